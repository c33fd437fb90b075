"""Issue 25: between the draw and a table's first deal, the organiser seats a late arrival at a
table (RWD 4 → 5) or lets a player leave one (5 → 4), when the game takes that count; once a deal
is recorded the seating is the table's own. The table's phones get the new players."""

from __future__ import annotations

import re

from companion.night import service as night
from companion.tables import service as store
from helpers import text_of
from helpers import join_night as join_all
import table_writes
from table_writes import done

RWD_DEAL_4P = {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]}


def drawn(app, client, conn, **fields):
    join_all(app)  # 12 players
    assert client.post("/hall/rounds", data={"draw": "1", **fields}).status_code == 303
    return night.night_rounds(conn)[-1]


def latest(conn):
    return night.night_rounds(conn)[-1]


def test_a_late_arrival_takes_the_last_seat_of_a_table_that_has_not_started(app, client, conn):
    r = drawn(app, client, conn, **{"tables-rwd": "3"})
    late = done(night.join(conn, "Zed"))
    table = r.tables[1]
    response = client.post("/hall/join-table", data={"player": str(late.id), "table": str(table.number)})
    assert response.status_code == 303
    after = latest(conn).tables[1]
    assert after.player_ids == (*table.player_ids, late.id)
    assert list(after.table.setup.players) == [*table.table.setup.players, "Zed"]
    assert after.table.token == table.table.token  # the same table, the same link
    # Zed's phone view and the hall's big list place Zed at that table, seat 5.
    assert latest(conn).table_of(late.id) == (after, 4)
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert re.search(r"Zed → Table \d+ · RWD \(Rewind\) · seat 5", hall)


def test_a_player_leaves_a_table_and_the_others_keep_their_order(app, client, conn):
    r = drawn(app, client, conn, **{"tables-rwd": "3"})
    table = r.tables[0]
    leaver = table.player_ids[1]
    assert client.post("/hall/leave-table", data={"player": str(leaver)}).status_code == 303
    after = latest(conn).tables[0]
    assert after.player_ids == tuple(p for p in table.player_ids if p != leaver)
    assert len(after.table.setup.players) == 3
    assert latest(conn).table_of(leaver) is None
    # The next draw seats them again (they are still on tonight's list).
    assert leaver in {p.id for p in night.roster(conn)}


def test_a_count_the_game_does_not_take_is_refused_next_to_the_form(app, client, conn):
    r = drawn(app, client, conn, **{"tables-twin_shoot": "3"})  # 4 + 4 + 4: five is no Twin Shoot
    late = done(night.join(conn, "Zed"))
    response = client.post("/hall/join-table", data={"player": str(late.id), "table": "1"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    error = re.search(r'id="err-join"[^>]*>([^<]*)<', page)
    assert error and "4 or 6" in error.group(1), error
    assert re.search(rf'<option value="{late.id}" selected>Zed</option>', page)  # the choice kept
    assert latest(conn).tables[0].player_ids == r.tables[0].player_ids
    leave = client.post("/hall/leave-table", data={"player": str(r.tables[0].player_ids[0])})
    assert leave.status_code == 422 and 'id="err-leave"' in leave.get_data(as_text=True)


def test_a_started_table_keeps_its_players(app, client, conn):
    r = drawn(app, client, conn, **{"tables-rwd": "3"})
    table_writes.add_deal(conn, r.tables[0].table.token, 1, RWD_DEAL_4P)
    late = done(night.join(conn, "Zed"))
    joined = client.post("/hall/join-table", data={"player": str(late.id), "table": str(r.tables[0].number)})
    assert joined.status_code == 409 and "has started" in text_of(joined.get_data(as_text=True))
    left = client.post("/hall/leave-table", data={"player": str(r.tables[0].player_ids[0])})
    assert left.status_code == 409
    assert latest(conn).tables[0].player_ids == r.tables[0].player_ids
    # The hall offers only the tables that have not started, and only players without a seat.
    form = client.get("/hall").get_data(as_text=True)
    join_form = re.search(r'action="/hall/join-table".*?</form>', form, re.S).group(0)
    tables = re.search(r'<select id="f-join-table".*?</select>', join_form, re.S).group(0)
    players = re.search(r'<select id="f-join-player".*?</select>', join_form, re.S).group(0)
    assert f'<option value="{r.tables[0].number}"' not in tables, tables
    assert f'<option value="{r.tables[1].number}"' in tables
    assert f'<option value="{late.id}"' in players
    assert f'<option value="{r.tables[1].player_ids[0]}"' not in players


def test_a_seated_player_cannot_join_a_second_table(app, client, conn):
    r = drawn(app, client, conn, **{"tables-rwd": "3"})
    seated = r.tables[0].player_ids[0]
    response = client.post("/hall/join-table", data={"player": str(seated), "table": str(r.tables[1].number)})
    assert response.status_code == 422 and 'id="err-join"' in response.get_data(as_text=True)
    assert latest(conn).tables[1].player_ids == r.tables[1].player_ids


def test_the_tables_phones_get_the_new_players(app, client, conn):
    r = drawn(app, client, conn, **{"tables-rwd": "3"})
    token = r.tables[2].table.token
    before = store.load(conn, token).revision
    late = done(night.join(conn, "Zed"))
    client.post("/hall/join-table", data={"player": str(late.id), "table": str(r.tables[2].number)})
    assert store.load(conn, token).revision > before  # the live check sees a change
    page = text_of(client.get(f"/t/{token}").get_data(as_text=True))
    assert "Zed" in page


def test_a_table_its_game_cannot_grow_is_not_offered_to_a_late_arrival(app, client, conn):
    r = drawn(app, client, conn, **{"tables-rwd": "3"})
    done(night.join(conn, "Zed"))
    late = done(night.join(conn, "Yo"))
    full = r.tables[0]
    assert client.post("/hall/join-table", data={"player": str(late.id), "table": str(full.number)}).status_code == 303
    # RWD now has 5 at that table, its most: only the other two tables are offered to Zed.
    form = client.get("/hall").get_data(as_text=True)
    tables = re.search(r'<select id="f-join-table".*?</select>', form, re.S).group(0)
    assert f'<option value="{full.number}"' not in tables
    assert all(f'<option value="{rt.number}"' in tables for rt in r.tables[1:])
