"""A meetup night: tables prepared on the laptop before people sit down, and the hall
view's list of every table opened since the night began.

A prepared table is an ordinary table whose players are not known yet (``seated`` is 0,
its names are placeholders). The first phone that opens it gives the names in seat
order; from then on it plays like any other table. Nights only mark a start time:
tables are never deleted, a new night just leaves the older ones out of the hall view.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Mapping, Sequence

from .games import GAMES, MatchSetup
from .games.base import FieldError
from .games.text import T
from . import tables as store

MAX_PREPARED = 64  # one evening's tables at once; a typo like 600 must not fill the hall


def night_started(conn: sqlite3.Connection) -> str:
    """When the current night began ("" = no night was ever started: every table is tonight's)."""
    row = conn.execute("SELECT started_at FROM nights ORDER BY id DESC LIMIT 1").fetchone()
    return row["started_at"] if row else ""


def _after_table(conn: sqlite3.Connection) -> int:
    """Tables with a larger id belong to the current night (ids only grow; clocks may not)."""
    row = conn.execute("SELECT after_table FROM nights ORDER BY id DESC LIMIT 1").fetchone()
    return row["after_table"] if row else 0


def start_night(conn: sqlite3.Connection) -> str:
    """Begin a new night: the hall view forgets (but keeps) every table opened before."""
    stamp = store.now()
    with store.write(conn):
        conn.execute("INSERT INTO nights (started_at, after_table) VALUES (?, (SELECT coalesce(max(id), 0) FROM tables))",
                     (stamp,))
    return stamp


def night_tables(conn: sqlite3.Connection) -> list[store.Table]:
    """Every table of the current night, in the order they were opened."""
    rows = conn.execute("SELECT token FROM tables WHERE id > ? ORDER BY id", (_after_table(conn),)).fetchall()
    found = (store.load(conn, row["token"]) for row in rows)
    return [table for table in found if table is not None]


def night_signature(conn: sqlite3.Connection) -> str:
    """Changes whenever any table of the night changes: the hall view's cheap "anything new?"."""
    row = conn.execute("SELECT count(*), coalesce(sum(revision), 0), coalesce(max(id), 0) FROM tables"
                       " WHERE id > ?", (_after_table(conn),)).fetchone()
    return f"{row[0]}-{row[1]}-{row[2]}"


def next_table_number(conn: sqlite3.Connection) -> int:
    return 1 + conn.execute("SELECT coalesce(max(seq), 0) FROM tables WHERE id > ?",
                            (_after_table(conn),)).fetchone()[0]


def check_plan(game_id: str, players: int, count: int) -> list[FieldError]:
    errors = []
    game = GAMES.get(game_id)
    if game is None:
        return [FieldError("game", T("Choose one of the games."))]
    reason = game.check_players(players)
    if reason:
        errors.append(FieldError("players", reason))
    if not 1 <= count <= MAX_PREPARED:
        errors.append(FieldError("count", T("Prepare from 1 to {max} tables at a time.", max=MAX_PREPARED)))
    return errors


def prepare(conn: sqlite3.Connection, game_id: str, players: int, count: int,
            label: str = "") -> list[str]:
    """Create ``count`` tables waiting for their players, numbered on from the night's
    prepared tables. ``label`` is the organiser's own, such as "Cube {n}" ({n} = the
    number); without one a table is shown as "Table 3" in the reader's language.
    Returns their tokens."""
    errors = check_plan(game_id, players, count)
    if errors:
        raise store.Refused(errors)
    game = GAMES[game_id]
    options = {opt.key: opt.default for opt in game.options}
    placeholders = json.dumps([str(seat + 1) for seat in range(players)])
    tokens = []
    with store.write(conn):
        first = next_table_number(conn)
        stamp = store.now()
        for offset in range(count):
            token = store.new_token()
            cur = conn.execute(
                "INSERT INTO tables (token, game, players, options, label, seq, seated, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (token, game_id, placeholders, json.dumps(options),
                 label.replace("{n}", str(first + offset))[:store.MAX_NAME] or None, first + offset,
                 stamp, stamp))
            conn.execute("INSERT INTO changes (table_id, at, action) VALUES (?, ?, 'prepare')",
                         (cur.lastrowid, stamp))
            tokens.append(token)
    return tokens


class AlreadySeated(Exception):
    """Another phone gave this table's players first."""


def seat(conn: sqlite3.Connection, token: str, names: Sequence[str], options: Mapping[str, int]) -> store.Table:
    """Give a prepared table its players (and the game's opening choices), exactly once."""
    with store.write(conn):
        table = store.load(conn, token)
        if table is None:
            raise store.NoSuchTable(token)
        if table.seated:
            raise AlreadySeated(token)
        cleaned, errors = store.check_names(list(names), table.game)  # team names too, where the game has teams
        if len(cleaned) != table.setup.n:
            errors.append(FieldError("players", T("This table was prepared for {n} players.", n=table.setup.n)))
        if not errors:
            try:
                table.game.start(MatchSetup(table.game.id, tuple(cleaned), dict(options)))
            except Exception as exc:  # InvalidOptions carries field errors
                errors.extend(getattr(exc, "errors", [FieldError("players", T("These settings can't start a match."))]))
        if errors:
            raise store.Refused(errors)
        stamp = store.now()
        conn.execute("UPDATE tables SET players = ?, options = ?, seated = 1, revision = revision + 1,"
                     " updated_at = ? WHERE id = ?",
                     (json.dumps(cleaned, ensure_ascii=False), json.dumps(dict(options)), stamp, table.id))
        conn.execute("INSERT INTO changes (table_id, at, action) VALUES (?, ?, 'seat')", (table.id, stamp))
    return store.load(conn, token)
