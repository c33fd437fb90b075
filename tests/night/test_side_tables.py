"""Tonight's tables and players (issue 33): "Tables opened from phones outside the draw joined
the night as Tables 7–11 and fed its leaderboard; two people who never joined tonight appear on
it."

The night counts its drawn tables, the tables the laptop opens and the tables the organiser adds
to it. A table phones open outside the draws is a side table: shown apart on the hall, counted
(board, leaderboard, exports) only once the organiser adds it. Everyone on the leaderboard is a
player on tonight's list.
"""

from __future__ import annotations

import json

from companion.night import service as night
from companion.night import side_tables
from companion.tables import service as store
from helpers import join_night, text_of
import table_writes

ONE_DEAL = {"length": 1, "first_start_player": 0}  # RWD: one deal is the whole game
CY_WINS = {"chips": [8, 5, 4], "tricks": [3, 7, 7]}  # seat 3 wins the deal


def board_of(hall: str) -> str:
    """The hall's board (every table of the night), as text."""
    return text_of(hall.split('id="board"')[1].split('id="roster"')[0])


def played(conn, names, numbered=False) -> str:
    token = table_writes.create(conn, "rwd", names, ONE_DEAL, numbered=numbered)
    table_writes.add_deal(conn, token, 1, CY_WINS)
    assert store.load(conn, token).match().over
    return token


def test_a_phones_table_is_a_side_table_until_the_organiser_adds_it(app, client, conn):
    join_night(app, ["Ann", "Bo", "Cy"])
    drawn = client.post("/hall/rounds", data={"tables-rwd": "1"})
    assert drawn.status_code == 303
    side = played(conn, ["Ann", "Bo", "Cy"])  # opened from a phone, outside the draw
    table = store.load(conn, side)
    # Not tonight's: neither on the board nor on the leaderboard.
    assert table.id not in {t.id for t in night.night_tables(conn)}
    assert night.leaderboard(night.night_results(conn)) == ()
    assert [t.id for t in side_tables.side_tables(conn)] == [table.id]
    hall = client.get("/hall").get_data(as_text=True)
    shown = board_of(hall)
    assert "Side tables" in shown and "Side table 1" in shown and "Table 2" not in shown
    assert f'action="/hall/tables/{table.id}/add"' in hall
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    assert side not in [t["token"] for t in doc["tables"]] and doc["leaderboard"] == []

    # Added to tonight: it takes the night's next number and counts.
    assert client.post(f"/hall/tables/{table.id}/add").status_code == 303
    assert store.load(conn, side).seq == 2
    assert side_tables.side_tables(conn) == []
    assert [t.token for t in night.night_tables(conn)][-1] == side
    board = {s.name: s for s in night.leaderboard(night.night_results(conn))}
    assert set(board) == {"Ann", "Bo", "Cy"} and board["Cy"].rank == 1
    hall = board_of(client.get("/hall").get_data(as_text=True))
    assert "Table 2" in hall and "Side tables" not in hall
    assert client.post(f"/hall/tables/{table.id}/add").status_code == 404  # once


def test_a_phone_table_never_played_is_in_neither_list(app, client, conn):
    table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy"], ONE_DEAL)
    assert night.night_tables(conn) == [] and side_tables.side_tables(conn) == []


def test_only_players_on_tonights_list_are_on_the_leaderboard(app, client, conn):
    """A laptop's table counts at once; its players who never joined tonight get no line (their
    places still rank the others)."""
    join_night(app, ["Ann", "Bo"])
    played(conn, ["Stranger", "Ann", "Bo"], numbered=True)
    board = {s.name: s for s in night.leaderboard(night.night_results(conn))}
    assert set(board) == {"Ann", "Bo"}
    assert board["Bo"].points == 1.0 and board["Ann"].points < 1.0
    hall = text_of(client.get("/hall").get_data(as_text=True))
    leaderboard = hall.split("Tonight's leaderboard")[1]
    assert "Stranger" not in leaderboard.split("Place points compare")[0]
