"""A meetup night: tables prepared on the laptop before people sit down, and the hall
view's list of every table opened since the night began.

A prepared table is an ordinary table whose players are not known yet (``seated`` is 0,
its names are placeholders). The first phone that opens it gives the names in seat
order; from then on it plays like any other table. Nights only mark a start time:
tables are never deleted, a new night just leaves the older ones out of the hall view.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .games import GAMES
from .games.base import FieldError
from .games.text import T
from . import tables as store
from .store import Connection, write
from .store import nights as nights_store
from .store import tables as rows

MAX_PREPARED = 64  # one evening's tables at once; a typo like 600 must not fill the hall


def night_started(conn: Connection) -> str:
    """When the current night began ("" = no night was ever started: every table is tonight's)."""
    return nights_store.night_started(conn)


def start_night(conn: Connection) -> str:
    """Begin a new night: the hall view forgets (but keeps) every table opened before."""
    stamp = store.now()
    with write(conn):
        nights_store.insert_night(conn, stamp)
    return stamp


def night_tables(conn: Connection) -> list[store.Table]:
    """Every table of the current night, in the order they were opened (one query for all)."""
    found = (store.table_of(record)
             for record in rows.tables_after(conn, nights_store.night_after_table(conn)))
    return [table for table in found if table is not None]


def night_signature(conn: Connection) -> str:
    """Changes whenever any table of the night changes: the hall view's cheap "anything new?"."""
    return nights_store.night_signature(conn)


def next_table_number(conn: Connection) -> int:
    return nights_store.next_table_number(conn)


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


def prepare(conn: Connection, game_id: str, players: int, count: int,
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
    placeholders = [str(seat + 1) for seat in range(players)]
    tokens = []
    with write(conn):
        first = next_table_number(conn)
        stamp = store.now()
        for offset in range(count):
            token = store.new_token()
            rows.insert_table(conn, token, game_id, placeholders, options, stamp, seated=False, seq=first + offset,
                              label=label.replace("{n}", str(first + offset))[:store.MAX_NAME] or None)
            tokens.append(token)
    return tokens


class AlreadySeated(Exception):
    """Another phone gave this table's players first."""


def seat(conn: Connection, token: str, names: Sequence[str], options: Mapping[str, int],
         write_id: str | None = None) -> store.Table:
    """Give a prepared table its players (and the game's opening choices), exactly once.
    With ``write_id``, the same seating sent again raises ``store.Repeated`` ({"action": "seat"})."""
    with write(conn):
        table = store.load(conn, token)
        if table is None:
            raise store.NoSuchTable(token)
        store._once(conn, table, write_id)
        if table.seated:
            raise AlreadySeated(token)
        # Team names too, where the game has teams; the game's own check of the options.
        cleaned, errors = store._check_setup(table.game, list(names), options, n=table.setup.n)
        if errors:
            raise store.Refused(errors)
        rows.seat_players(conn, table.id, cleaned, options, store.now())
        store._done(conn, table, write_id, {"action": "seat"})
    return store.load(conn, token)
