"""Fix a draw (issue 44): until any table of the round has a deal the organiser may draw the
round again: the same games, way and wishes, a new seed, everyone on tonight's list now (a late
arrival too). Its tables keep their links and numbers (a printed card still opens its table),
each with its new players; once a table has a deal, a redraw is refused and says what to do."""

from __future__ import annotations

from companion.night import service as night
from companion.tables import service as tables
from helpers import text_of
import table_writes
from table_writes import done

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]


def seats(conn) -> list[tuple[str, int, tuple[int, ...]]]:
    (r,) = night.night_rounds(conn)[-1:]
    return [(rt.table.token, rt.table.seq, rt.player_ids) for rt in r.tables]


def test_a_redraw_seats_a_late_arrival_at_the_same_tables(client, conn):
    for name in EIGHT:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "2", "minutes": "30", "never": ""}).status_code == 303
    before = seats(conn)
    (first,) = night.night_rounds(conn)
    late = done(night.join(conn, "Ivy"))
    assert "Draw round 1 again" in text_of(client.get("/hall").get_data(as_text=True))
    assert client.post("/hall/redraw").status_code == 303
    rounds = night.night_rounds(conn)
    assert len(rounds) == 1 and rounds[0].minutes == 30 and rounds[0].draw == first.draw
    assert rounds[0].seed != first.seed  # the round keeps the seed it was drawn again with
    after = seats(conn)
    assert [(token, seq) for token, seq, _ids in after] == [(token, seq) for token, seq, _ids in before]
    seated = [pid for _token, _seq, ids in after for pid in ids]
    assert sorted(seated) == sorted(p.id for p in night.roster(conn)) and late.id in seated
    for token, _seq, ids in after:  # each table's own names follow its new seats
        names = {p.id: p.name for p in night.roster(conn)}
        assert list(tables.load(conn, token).setup.players) == [names[pid] for pid in ids]


def test_once_a_table_has_a_deal_a_redraw_is_refused(client, conn):
    for name in EIGHT:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    before = seats(conn)
    table_writes.add_deal(conn, before[0][0], 1, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
    assert "Draw round 1 again" not in text_of(client.get("/hall").get_data(as_text=True))
    refused = client.post("/hall/redraw")
    assert refused.status_code == 422
    assert "has a deal already: swap or move players" in text_of(refused.get_data(as_text=True))
    assert seats(conn) == before


def test_a_player_swapped_out_or_late_is_named_without_a_seat(client, conn):
    """Issue 44 item 7: swapping a late arrival in left the swapped-out player unseated, and the
    hall said nothing."""
    for name in EIGHT:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    late = done(night.join(conn, "<b>Ivy</b>"))
    hall = client.get("/hall").get_data(as_text=True)
    assert "Without a seat this round: &lt;b&gt;Ivy&lt;/b&gt;." in hall  # named, and as text
    (r,) = night.night_rounds(conn)
    out = r.tables[0].player_ids[0]
    assert client.post("/hall/swap", data={"a": str(out), "b": str(late.id)}).status_code == 303
    text = text_of(client.get("/hall").get_data(as_text=True))
    assert f"Without a seat this round: {night.player(conn, out).name}." in text
