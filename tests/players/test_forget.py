"""A player's right to be forgotten (issue 43): on their request the organiser forgets them, and
their name (every spelling of it) is replaced by their number at every table they sat at, on
tonight's list, on the players list and in the log of who-is-who changes; a copy of the database
made afterwards holds it nowhere. Their results stay theirs: nobody's place points or rating move."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from companion.night import service as night
from companion.players import service as players
from companion.store import backup as store_backup
from companion.tables import service as tables
from table_writes import done
from table_writes import finished_match as finished

NAME = "Fayette"  # a name that appears nowhere else in the app's rows or pages


def figures(conn) -> dict:
    players.refresh(conn)
    rated = players.ratings(conn)
    season = players.season(conn, min_matches=1)
    return {"ratings": {k: (r.mu, r.sigma) for k, r in rated.overall.items()},
            "season": [(r.key, r.points, r.matches, r.places) for r in season.rows]}


def every_text(conn) -> str:
    """Every text value of every row of every table of ours, joined (a dump by hand, on either backend)."""
    names = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'" if isinstance(conn, sqlite3.Connection) else
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()").fetchall()]
    found = []
    for table in names:
        for row in conn.execute(f"SELECT * FROM {table}").fetchall():
            found.extend(str(value) for value in tuple(row) if value is not None)
    return "\n".join(found)


def test_a_forgotten_name_is_nowhere_and_nobodys_figures_move(app, client, conn, tmp_path):
    first = finished(conn, [NAME, "Bo", "Cy", "Di"], 0)
    finished(conn, ["Bo", NAME.lower() + " ", "Cy", "Di"], 1)  # another spelling, the same player
    done(night.join(conn, NAME))  # tonight's list
    players.refresh(conn)
    fay = players.player_of_name(conn, NAME)
    done(players.rename(conn, fay.id, NAME + " T"))  # the log of changes names her twice
    done(players.rename(conn, fay.id, NAME))
    before = figures(conn)
    assert NAME in every_text(conn)

    answer = client.post(f"/players/{fay.id}/forget", data={})  # not confirmed: refused, nothing forgotten
    assert answer.status_code == 422 and "Tick the box to confirm" in answer.get_data(as_text=True)
    assert NAME in every_text(conn)
    answer = client.post(f"/players/{fay.id}/forget", data={"confirm": "1"})
    assert answer.status_code == 303

    assert NAME.lower() not in every_text(conn).lower()
    assert tables.load(conn, first).setup.players[0] == f"#{fay.id}"
    assert figures(conn) == before  # the same results, the same ratings (keyed by player, not name)
    assert players.get(conn, fay.id).name == f"#{fay.id}"
    for path in ("/players", f"/players/{fay.id}", "/season", "/hall", f"/t/{first}", "/hall/export.csv",
                 f"/players/{fay.id}/history.json"):
        assert NAME.lower() not in client.get(path).get_data(as_text=True).lower(), path
    database = app.config["DATABASE"]
    if "://" not in database:  # SQLite: the file itself, and a backup made now, hold no trace of it
        copy = tmp_path / "after.sqlite"
        store_backup.copy_database(Path(database), copy)
        for path in (Path(database), copy):
            assert NAME.lower().encode() not in path.read_bytes().lower(), path


def test_only_the_laptop_may_forget(client, conn):
    finished(conn, [NAME, "Bo", "Cy", "Di"], 0)
    players.refresh(conn)
    fay = players.player_of_name(conn, NAME)
    answer = client.post(f"/players/{fay.id}/forget", data={"confirm": "1"}, environ_base={"REMOTE_ADDR": "192.168.1.23"})
    assert answer.status_code == 403
    assert players.get(conn, fay.id).name == NAME
