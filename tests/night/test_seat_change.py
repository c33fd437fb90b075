"""Someone leaves mid-match (issue 44): a substitute takes the seat after the deals played, or
the wrong person was seated and the one who really sat there takes it from the start. Whoever
holds the seat when the match ends gets its place and place points; the table's log says who
took it after which deal, and the night's CSV gives the deals before to the one who left."""

from __future__ import annotations

import csv
import io

from companion.night import service as night
from companion.tables import service as tables
from helpers import text_of
import table_writes
from table_writes import done

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]
A_DEAL = {"chips": [3, 3, 3, 4], "tricks": [2, 7, 2, 2]}  # seat 2 wins it


def test_a_substitute_takes_the_seat_after_deal_two_and_gets_the_result(client, conn):
    for name in EIGHT[:4]:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    (rt,) = night.night_rounds(conn)[0].tables
    for number in (1, 2):
        table_writes.add_deal(conn, rt.table.token, number, A_DEAL)
    names = {p.id: p.name for p in night.roster(conn)}
    leaver = names[rt.player_ids[1]]
    sub = done(night.join(conn, "Ivy"))  # arrived late: takes the seat
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Someone leaves mid-match" in hall
    answer = client.post("/hall/seat-change", data={"seat": f"{rt.table.id}:1", "player": str(sub.id), "when": "now"})
    assert answer.status_code == 303
    table = tables.load(conn, rt.table.token)
    assert table.setup.players[1] == sub.name and len(table.deals) == 2
    log = text_of(client.get(f"/t/{rt.table.token}/log").get_data(as_text=True))
    assert f"{sub.name} took {leaver}'s seat after deal 2" in log
    # The substitute plays on to the end: the seat's result is theirs.
    while not table.match().over:
        table = table_writes.add_deal(conn, rt.table.token, len(table.deals) + 1, A_DEAL)
    board = {line.name: line for line in night.leaderboard(night.night_results(conn))}
    assert sub.name in board and leaver not in board
    rows = list(csv.DictReader(io.StringIO(client.get("/hall/export.csv").get_data().decode("utf-8-sig"))))
    seat_rows = [(r["deal"], r["player"]) for r in rows if r["entered_as"] in (leaver, sub.name)]
    assert seat_rows[:2] == [("1", leaver), ("2", leaver)] and all(p == sub.name for _d, p in seat_rows[2:])


def test_refused_where_it_would_make_no_sense(client, conn):
    for name in EIGHT:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    one, two = night.night_rounds(conn)[0].tables
    table_writes.add_deal(conn, one.table.token, 1, A_DEAL)
    # Someone playing at the other table, or already at this one.
    for pid in (two.player_ids[0], one.player_ids[2]):
        refused = client.post("/hall/seat-change", data={"seat": f"{one.table.id}:1", "player": str(pid)})
        assert refused.status_code == 422
    assert tables.load(conn, one.table.token).setup.players == one.table.setup.players


def test_the_one_who_left_reads_it_in_their_night(app, client, conn):
    """Issue 44: the leaver's night says they left after deal 2 and who took the seat."""
    from helpers import join_night
    phones = join_night(app, EIGHT[:4])
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    (rt,) = night.night_rounds(conn)[0].tables
    for number in (1, 2):
        table_writes.add_deal(conn, rt.table.token, number, A_DEAL)
    leaver = night.player(conn, rt.player_ids[1]).name
    sub = done(night.join(conn, "Ivy"))
    assert client.post("/hall/seat-change", data={"seat": f"{rt.table.id}:1", "player": str(sub.id)}).status_code == 303
    summary = text_of(phones[leaver].get("/night/me/summary").get_data(as_text=True))
    assert f"Table {rt.table.seq}: you left after deal 2; Ivy took your seat." in summary
