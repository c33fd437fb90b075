"""Only counted matches count (issue 43): the season, the ratings and a player's figures count
exactly what some night's leaderboard counted (drawn, prepared, opened on the laptop, added).
A stranger's phone opened ten side tables with real players' names and ended them in a second:
Ann's matches went 1 -> 11, her rating fell, and the stranger's invented "Zorro" topped the
season. Side tables never added are listed by the names typed in "Matches not counted" until
the organiser counts them; the hall lists every side table, newest first, a page at a time, and
names a device that opened more than five tonight."""

from __future__ import annotations

import json
import re

from companion.night import service as night
from companion.night import side_tables
from companion.night.views import BOARD_MAX
from companion.players import service as players
from companion.tables import service as tables
from helpers import text_of
import table_writes
from table_writes import done, finished_match

STRANGER = "192.168.1.99"
SIDE_NAMES = ["Ann", "Zorro", "Bo"]
ZORRO_WINS = {"chips-0": "8", "chips-1": "4", "chips-2": "5", "tricks-0": "3", "tricks-1": "7", "tricks-2": "7"}


def season_lines(client) -> dict[str, tuple]:
    ranked = json.loads(client.get("/season.json?min=1").get_data(as_text=True))["ranked"]
    return {line["name"]: (line["matches"], line["place_points_exact"]) for line in ranked}


def ratings(conn) -> dict[str, tuple[float, float]]:
    players.refresh(conn)
    return {k: (r.mu, r.sigma) for k, r in players.ratings(conn).overall.items()}


def stranger_opens(app, count: int) -> list[str]:
    """A phone opens ``count`` one-deal RWD tables with real players' names and a made-up one,
    Zorro winning each; their tokens."""
    phone = app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": STRANGER})
    tokens = []
    for _ in range(count):
        made = phone.post("/tables", data={"game": "rwd", "players": "3", "length": "1", "first_start_player": "0",
                                           **{f"name-{i}": n for i, n in enumerate(SIDE_NAMES)}})
        assert made.status_code == 303, text_of(made.get_data(as_text=True))[:300]
        token = made.headers["Location"].rsplit("/", 1)[-1]
        assert phone.post(f"/t/{token}/deals", data={"number": "1", **ZORRO_WINS}).status_code == 303
        tokens.append(token)
    return tokens


def test_a_strangers_side_tables_count_for_nobody_until_the_organiser_counts_one(app, client, conn):
    done(night.start_night(conn))
    finished_match(conn, ["Ann", "Bo", "Cy", "Di"], winner=0)  # drawn or opened on the laptop: counted
    before, rated = season_lines(client), ratings(conn)
    assert before["Ann"][0] == 1

    opened = stranger_opens(app, 8)
    assert all(tables.load(conn, token).match().over for token in opened)
    # Nothing moved: not Ann's matches, not anyone's rating; Zorro is nobody's name.
    assert season_lines(client) == before and ratings(conn) == rated
    assert players.player_of_name(conn, "Zorro") is None
    assert "Zorro" not in client.get("/season?min=1").get_data(as_text=True)
    ann = players.player_of_name(conn, "Ann")
    assert "Zorro" not in client.get(f"/players/{ann.id}").get_data(as_text=True)

    # The organiser's players list lists them, by the names typed, newest first.
    listed = text_of(client.get("/players").get_data(as_text=True))
    assert "Matches not counted" in listed and listed.count("Ann, Zorro, Bo") == 8
    page = client.get("/players").get_data(as_text=True)
    ids = [int(n) for n in re.findall(r'/hall/tables/(\d+)/add', page)]
    assert ids == sorted((tables.load(conn, t).id for t in opened), reverse=True)

    # The hall lists them too, newest first, and names the device that opened them.
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert f"The device at {STRANGER} opened 8 tables tonight." in hall
    assert hall.index("Side table 8") < hall.index("Side table 1")

    # Counting one (from the players list): it counts for Ann, Bo and Zorro from now on.
    counted = client.post(f"/hall/tables/{ids[-1]}/add", data={"back": "players"})
    assert counted.status_code == 303 and counted.headers["Location"].endswith("/players#uncounted")
    after = season_lines(client)
    assert after["Ann"][0] == 2 and after["Zorro"] == (1, "1") and after["Cy"] == before["Cy"]
    assert ratings(conn) != rated
    assert text_of(client.get("/players").get_data(as_text=True)).count("Ann, Zorro, Bo") == 7
    # A phone can't count one: /hall is the laptop's.
    stranger = app.test_client()
    stranger.environ_base.update({"REMOTE_ADDR": STRANGER})
    assert stranger.post(f"/hall/tables/{ids[0]}/add", data={"back": "players"}).status_code == 403


def test_a_past_nights_side_table_counted_joins_that_night(app, client, conn, monkeypatch):
    from helpers import NightClock, N1, N2
    clock = NightClock(monkeypatch)
    clock.at(N1, "09:00")
    done(night.start_night(conn))
    clock.at(N1, "19:00")
    first = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy"], {"first_start_player": 0}, numbered=True)
    (side,) = stranger_opens(app, 1)
    clock.at(N2, "09:00")
    done(night.start_night(conn))
    tonight = table_writes.create(conn, "rwd", ["Di", "Ed", "Fay"], {"first_start_player": 0}, numbered=True)
    assert [tables.load(conn, t).seq for t in (first, side, tonight)] == [1, None, 1]

    assert done(side_tables.add_to_night(conn, tables.load(conn, side).id)) == 2  # the next number of ITS night
    assert tables.load(conn, tonight).seq == 1 and side_tables.side_table_count(conn) == 0
    (match,) = players.matches_of(conn, players.player_of_name(conn, "Zorro"))
    assert match["night"] == N1  # the season has it on the night it was played
    # Counted once only: a second press finds no side table.
    assert side_tables.add_to_night(conn, tables.load(conn, side).id).outcome.name == "NOT_FOUND"


def test_the_hall_lists_every_side_table_newest_first_a_page_at_a_time(app, client, conn):
    done(night.start_night(conn))
    made = []
    for n in range(BOARD_MAX + 2):  # as phones at many addresses would, each one table
        token = table_writes.create(conn, "rwd", ["Ann", "Bo", f"P{n + 1}"], {"first_start_player": 0})
        table_writes.add_deal(conn, token, 1, {"chips": [5, 8, 4], "tricks": [7, 3, 7]})
        made.append(token)
    first = text_of(client.get("/hall").get_data(as_text=True))
    assert f"Side tables ({BOARD_MAX + 2})" in first
    assert first.index(f"Side table {BOARD_MAX + 2} ") < first.index(f"Side table {BOARD_MAX + 1} ")
    assert f"P{BOARD_MAX + 2}" in first and "Side table 2 " not in first and "Older side tables" in first
    second = text_of(client.get("/hall?side_page=2").get_data(as_text=True))
    assert second.index("Side table 2 ") < second.index("Side table 1 ")
    assert "P1 " in second and f"P{BOARD_MAX + 2}" not in second and "Newer side tables" in second
    # The live board, asked from page 2, stays on page 2.
    board = client.get("/hall/board?side_page=2").get_data(as_text=True)
    assert "side_page=2" in board and "Side table 1 " in text_of(board)
    assert "The device at" not in first  # no address opened more than five


def test_upgrading_keeps_counted_what_its_night_counted(tmp_path, monkeypatch):
    """A laptop upgraded from the last release: results of numbered tables, and of tables
    opened before side tables existed (each night counted every table then), stay counted; a
    side table's result no longer counts."""
    import sqlite3
    from companion.store import schema

    path = str(tmp_path / "laptop.sqlite")
    older = schema.MIGRATIONS[:7]  # before side tables (issue 33, migration 8)
    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", older)
        m.setattr(schema, "SCHEMA_VERSION", len(older))
        schema.migrate(path)
    raw = sqlite3.connect(path)
    insert = ("INSERT INTO tables (id, token, game, players, options, seq, created_at, updated_at)"
              " VALUES (?, ?, 'rwd', '[]', '{}', ?, 'x', 'x')")
    raw.execute(insert, (1, "aaaaaaaaaaaaaaaaaaaaaa", None))  # a phone's table before side tables existed
    raw.commit()
    raw.close()
    release = schema.MIGRATIONS[:11]  # the last release's schema: side tables, no counted flag
    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", release)
        m.setattr(schema, "SCHEMA_VERSION", len(release))
        schema.migrate(path)
    raw = sqlite3.connect(path)
    raw.execute("INSERT INTO nights (started_at, after_table) VALUES ('x', 1)")
    raw.execute(insert, (2, "bbbbbbbbbbbbbbbbbbbbbb", 1))  # drawn: Table 1
    raw.execute(insert, (3, "cccccccccccccccccccccc", None))  # a side table
    for table_id in (1, 2, 3):
        raw.execute("INSERT INTO results (table_id, revision, finished, over, night, at, game, label, data)"
                    " VALUES (?, 0, 0, 1, 'x', 'x', 'rwd', 'x', '[[],[],[],[],[]]')", (table_id,))
    raw.commit()
    raw.close()
    schema.migrate(path)
    raw = sqlite3.connect(path)
    assert dict(raw.execute("SELECT table_id, counted FROM results")) == {1: 1, 2: 1, 3: 0}
    raw.close()
