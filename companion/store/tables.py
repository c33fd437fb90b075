"""Tables, their deals, their change log and their exactly-once write records: every SQL
statement about them. Callers pass the connection they were lent (``store.get_db()``) and get
plain data back (dicts of JSON-able values); the domain (``companion.tables.service``) turns it into
its ``Table`` and decides what may be written. Writes run inside ``store.write(conn)``."""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Mapping, Sequence

from .connection import translated

# A table's columns as the store gives them (``players``/``options`` decoded, flags as bool),
# plus ``rematch_token`` (the table its rematch started, if any) and ``deals`` (facts, in order).
_TABLE_COLUMNS = ("SELECT t.*, (SELECT r.token FROM tables AS r WHERE r.rematch_of = t.id"
                  " ORDER BY r.id LIMIT 1) AS rematch_token")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _record(row: sqlite3.Row, deals: list[dict[str, Any]], pending: list[dict[str, Any] | None] | None = None
            ) -> dict[str, Any]:
    """``pending``: per deal, what waits for another seat's confirmation (issue 45), or None."""
    return {"id": row["id"], "token": row["token"], "game": row["game"],
            "players": json.loads(row["players"]), "options": json.loads(row["options"]),
            "finished": bool(row["finished"]), "revision": row["revision"],
            "created_at": row["created_at"], "updated_at": row["updated_at"],
            "label": row["label"], "seated": bool(row["seated"]), "rematch_token": row["rematch_token"],
            "seq": row["seq"], "rematch_of": row["rematch_of"], "ended_at_time": bool(row["ended_at_time"]),
            "ended_at": row["ended_at"], "ended_deals": row["ended_deals"], "opened_from": row["opened_from"],
            "room_table": row["room_table"],
            "confirm": None if row["confirm"] is None else bool(row["confirm"]),
            "pending_undos": json.loads(row["pending_undos"]) if row["pending_undos"] else [],
            "disputes": json.loads(row["disputes"]) if row["disputes"] else [],
            "pending": [None] * len(deals) if pending is None else pending,
            "deals": deals}


@translated
def load_table(conn: sqlite3.Connection, token: str) -> dict[str, Any] | None:
    """The table with this token and its deals' facts (in order), or None."""
    row = conn.execute(_TABLE_COLUMNS + " FROM tables AS t WHERE t.token = ?", (token,)).fetchone()
    if row is None:
        return None
    rows = conn.execute("SELECT facts, pending FROM deals WHERE table_id = ? ORDER BY number", (row["id"],)).fetchall()
    return _record(row, [json.loads(r["facts"]) for r in rows],
                   [json.loads(r["pending"]) if r["pending"] else None for r in rows])


@translated
def tables_after(conn: sqlite3.Connection, after_id: int, organised_or_played: bool = False,
                 unnumbered: bool = False, newest: int | None = None, skip: int = 0) -> list[dict[str, Any]]:
    """Every table with an id above ``after_id``, in the order they were opened, with their
    deals: one query for all of them (a night's hall view asks this every second).
    ``organised_or_played``: only the night's own tables: those with a number in the night
    (drawn, prepared, opened on the laptop or added by the organiser). ``unnumbered``: only the
    tables phones opened outside the draws (no number) that were played or are rematches; a
    table any phone opened and never played is in neither. ``newest``: only the last so many of
    those (the hall shows no more, however many phones opened), past the ``skip`` newest (its
    next page)."""
    found: dict[int, dict[str, Any]] = {}
    which = _which_tables(organised_or_played, unnumbered)
    params: tuple = (after_id,)
    if newest is not None:
        which += (" AND t.id IN (SELECT t.id FROM tables AS t WHERE t.id > ?" + which
                  + " ORDER BY t.id DESC LIMIT ? OFFSET ?)")
        params = (after_id, after_id, newest, skip)
    for row in conn.execute(_TABLE_COLUMNS + ", d.facts AS deal_facts, d.pending AS deal_pending FROM tables AS t"
                            " LEFT JOIN deals AS d ON d.table_id = t.id"
                            " WHERE t.id > ?" + which + " ORDER BY t.id, d.number", params):
        record = found.get(row["id"])
        if record is None:
            record = found[row["id"]] = _record(row, [])
        if row["deal_facts"] is not None:
            record["deals"].append(json.loads(row["deal_facts"]))
            record["pending"].append(json.loads(row["deal_pending"]) if row["deal_pending"] else None)
    return list(found.values())


def _which_tables(organised_or_played: bool, unnumbered: bool) -> str:
    """The condition on ``t`` (tables) for :func:`tables_after`'s choice of tables."""
    if organised_or_played:
        return " AND t.seq IS NOT NULL"
    if unnumbered:
        return (" AND t.seq IS NULL AND (t.rematch_of IS NOT NULL"
                " OR EXISTS (SELECT 1 FROM deals AS e WHERE e.table_id = t.id))")
    return ""


@translated
def count_tables_after(conn: sqlite3.Connection, after_id: int, organised_or_played: bool = False,
                       unnumbered: bool = False) -> int:
    """How many tables :func:`tables_after` would give (without loading them)."""
    return conn.execute("SELECT count(*) FROM tables AS t WHERE t.id > ?"
                        + _which_tables(organised_or_played, unnumbered), (after_id,)).fetchone()[0]


@translated
def at_room_table(conn: sqlite3.Connection, room_table: int) -> list[str]:
    """The tokens of the tables played at this room table, the newest first."""
    return [row[0] for row in conn.execute("SELECT token FROM tables WHERE room_table = ? ORDER BY id DESC LIMIT 20",
                                           (room_table,))]


@translated
def busy_openers(conn: sqlite3.Connection, after_id: int, more_than: int) -> list[tuple[str, int]]:
    """The phones (addresses) that opened more than ``more_than`` tables with an id above
    ``after_id``, and how many each, the most first."""
    return [(row[0], row[1]) for row in conn.execute(
        "SELECT opened_from, count(*) FROM tables WHERE id > ? AND opened_from IS NOT NULL"
        " GROUP BY opened_from HAVING count(*) > ? ORDER BY count(*) DESC, opened_from", (after_id, more_than))]


@translated
def last_changes(conn: sqlite3.Connection, after_id: int) -> dict[int, int]:
    """table id -> the store's sequence number of its last change, for every table with an id
    above ``after_id`` (which changed last, by the store's own order, never the wall clock)."""
    return dict(conn.execute("SELECT table_id, max(id) FROM changes WHERE table_id > ? GROUP BY table_id",
                             (after_id,)).fetchall())


@translated
def revision(conn: sqlite3.Connection, token: str) -> int | None:
    """The cheap question every phone asks: has anything changed? (None: no such table)."""
    row = conn.execute("SELECT revision FROM tables WHERE token = ?", (token,)).fetchone()
    return None if row is None else row[0]


@translated
def recent_tables(conn: sqlite3.Connection, limit: int = 12) -> list[dict[str, Any]]:
    """The most recently changed tables (token, game, players, updated_at), newest first,
    ordered by the store's own sequence of changes, never by the wall clock (it can jump back)."""
    rows = conn.execute(
        "SELECT token, game, players, updated_at FROM tables"
        " ORDER BY (SELECT max(c.id) FROM changes AS c WHERE c.table_id = tables.id) DESC, id DESC"
        " LIMIT ?", (limit,)).fetchall()
    return [dict(row, players=json.loads(row["players"])) for row in rows]


@translated
def changes(conn: sqlite3.Connection, table_id: int) -> list[dict[str, Any]]:
    """The table's change log, newest first, in the store's own order (its sequence ``id``):
    a clock set back can never put a change before an earlier one."""
    rows = conn.execute("SELECT id, at, action, number, before, after FROM changes WHERE table_id = ?"
                        " ORDER BY id DESC", (table_id,)).fetchall()
    return [dict(r, before=json.loads(r["before"]) if r["before"] else None,
                 after=json.loads(r["after"]) if r["after"] else None) for r in rows]


# --------------------------------------------------------------------------
# Writing (the caller holds ``store.write(conn)``)


@translated
def insert_table(conn: sqlite3.Connection, token: str, game: str, players: Sequence[str],
                 options: Mapping[str, Any], stamp: str, *, rematch_of: int | None = None,
                 label: str | None = None, seq: int | None = None, seated: bool = True,
                 opened_from: str | None = None, room_table: int | None = None) -> int:
    """Store a new table (logged as 'create', or 'prepare' for one waiting for its players);
    returns its id. The only place a table is inserted. ``opened_from``: the address of the
    phone that opened it (None: the laptop)."""
    cur = conn.execute(
        "INSERT INTO tables (token, game, players, options, rematch_of, label, seq, seated, created_at, updated_at,"
        " opened_from, room_table) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (token, game, json.dumps(list(players), ensure_ascii=False), json.dumps(dict(options)), rematch_of,
         label, seq, int(seated), stamp, stamp, opened_from, room_table))
    conn.execute("INSERT INTO changes (table_id, at, action) VALUES (?, ?, ?)",
                 (cur.lastrowid, stamp, "create" if seated else "prepare"))
    return cur.lastrowid


@translated
def seat_players(conn: sqlite3.Connection, table_id: int, players: Sequence[str], options: Mapping[str, Any],
                 stamp: str) -> int:
    """Give a prepared table its players and options (logged as 'seat'); returns its new revision."""
    revision = conn.execute("UPDATE tables SET players = ?, options = ?, seated = 1, revision = revision + 1,"
                            " updated_at = ? WHERE id = ? RETURNING revision",
                            (json.dumps(list(players), ensure_ascii=False), json.dumps(dict(options)), stamp,
                             table_id)).fetchone()[0]
    conn.execute("INSERT INTO changes (table_id, at, action) VALUES (?, ?, 'seat')", (table_id, stamp))
    return revision


@translated
def log_change(conn: sqlite3.Connection, table_id: int, action: str, number: int | None,
               before: dict | None, after: dict | None, stamp: str) -> int:
    """Bump the table's revision and append the change to its log; returns the new revision."""
    revision = conn.execute("UPDATE tables SET revision = revision + 1, updated_at = ? WHERE id = ? RETURNING revision",
                            (stamp, table_id)).fetchone()[0]
    conn.execute("INSERT INTO changes (table_id, at, action, number, before, after) VALUES (?, ?, ?, ?, ?, ?)",
                 (table_id, stamp, action, number,
                  None if before is None else _json(before), None if after is None else _json(after)))
    return revision


@translated
def change_seat(conn: sqlite3.Connection, table_id: int, players: Sequence[str], action: str, after_deal: int,
                before: dict, after: dict, stamp: str) -> int:
    """A started table's seat taken by another player (issue 44): its players anew, logged as
    ``action`` ("substitute": after deal ``after_deal``; "reseat": who really sat there, from
    the start) with the seat's player before and after. Returns the new revision."""
    conn.execute("UPDATE tables SET players = ? WHERE id = ?", (json.dumps(list(players), ensure_ascii=False), table_id))
    return log_change(conn, table_id, action, after_deal, before, after, stamp)


@translated
def seat_changes(conn: sqlite3.Connection, table_ids: Sequence[int]) -> list[dict[str, Any]]:
    """The seat changes of these tables, oldest first: table id, action, the deal after which,
    and the seat's player before and after."""
    found: list[dict[str, Any]] = []
    ids = list(table_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for row in conn.execute("SELECT table_id, action, number, before, after FROM changes WHERE action IN"
                                f" ('substitute', 'reseat') AND table_id IN ({','.join('?' * len(chunk))}) ORDER BY id",
                                chunk):
            found.append(dict(row, before=json.loads(row["before"]), after=json.loads(row["after"])))
    return found


@translated
def insert_deal(conn: sqlite3.Connection, table_id: int, number: int, facts: dict[str, Any], stamp: str,
                pending: dict[str, Any] | None = None) -> None:
    """``pending``: who saved it, while it waits for another seat's confirmation (None: confirmed)."""
    conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at, pending)"
                 " VALUES (?, ?, ?, ?, ?, ?)",
                 (table_id, number, _json(facts), stamp, stamp, None if pending is None else _json(pending)))


@translated
def update_deal(conn: sqlite3.Connection, table_id: int, number: int, facts: dict[str, Any], stamp: str) -> None:
    conn.execute("UPDATE deals SET facts = ?, updated_at = ? WHERE table_id = ? AND number = ?",
                 (_json(facts), stamp, table_id, number))


@translated
def set_pending(conn: sqlite3.Connection, table_id: int, number: int, pending: dict[str, Any] | None) -> None:
    """Deal ``number`` waits for another seat's confirmation (``pending``: who changed it), or not (None)."""
    conn.execute("UPDATE deals SET pending = ? WHERE table_id = ? AND number = ?",
                 (None if pending is None else _json(pending), table_id, number))


@translated
def set_pending_undos(conn: sqlite3.Connection, table_id: int, undos: Sequence[dict[str, Any]]) -> None:
    """The undone confirmed deals still waiting for another seat's confirmation of the undo."""
    conn.execute("UPDATE tables SET pending_undos = ? WHERE id = ?", (_json(list(undos)) if undos else None, table_id))


@translated
def set_disputes(conn: sqlite3.Connection, table_id: int, disputes: Sequence[dict[str, Any]]) -> None:
    """The table's open disputes (issue 45): another seat's version of a deal, for the organiser."""
    conn.execute("UPDATE tables SET disputes = ? WHERE id = ?", (_json(list(disputes)) if disputes else None, table_id))


@translated
def set_confirm(conn: sqlite3.Connection, table_id: int, on: bool) -> None:
    """Whether the table asks another seat to confirm each deal (issue 45)."""
    conn.execute("UPDATE tables SET confirm = ? WHERE id = ?", (int(on), table_id))


@translated
def delete_deal(conn: sqlite3.Connection, table_id: int, number: int) -> None:
    conn.execute("DELETE FROM deals WHERE table_id = ? AND number = ?", (table_id, number))


@translated
def numbering(conn: sqlite3.Connection, table_id: int) -> tuple[str, int | None] | None:
    """A table's token and its number in its night (None: a side table); None if no such table."""
    row = conn.execute("SELECT token, seq FROM tables WHERE id = ?", (table_id,)).fetchone()
    return None if row is None else (row[0], row[1])


@translated
def add_to_night(conn: sqlite3.Connection, table_id: int, seq: int) -> int | None:
    """The organiser adds a side table to the night: it gets the night's next number. Returns
    its new revision (None: it had a number already, nothing changed)."""
    row = conn.execute("UPDATE tables SET seq = ?, revision = revision + 1 WHERE id = ? AND seq IS NULL"
                       " RETURNING revision", (seq, table_id)).fetchone()
    return None if row is None else row[0]


@translated
def shown_again(conn: sqlite3.Connection, table_ids: Sequence[int]) -> dict[str, int]:
    """What these tables' pages show changed outside their own rows (a round's clock, time called):
    each gets a new revision, so its phones are told. Returns token -> new revision."""
    moved = {}
    for table_id in table_ids:
        row = conn.execute("UPDATE tables SET revision = revision + 1 WHERE id = ? RETURNING token, revision",
                           (table_id,)).fetchone()
        if row is not None:
            moved[row[0]] = row[1]
    return moved


@translated
def mark_ended(conn: sqlite3.Connection, table_id: int, stamp: str, deals: int) -> None:
    """The match's finishing moment is now, with ``deals`` deals (the caller holds ``store.write``)."""
    conn.execute("UPDATE tables SET ended_at = ?, ended_deals = ? WHERE id = ?", (stamp, deals, table_id))


@translated
def set_finished(conn: sqlite3.Connection, table_id: int, finished: bool, at_time: bool = False) -> None:
    """Finish or reopen a match; ``at_time``: it ended with the deals played when time was
    called (reopening clears it)."""
    conn.execute("UPDATE tables SET finished = ?, ended_at_time = ? WHERE id = ?",
                 (int(finished), int(finished and at_time), table_id))


# --------------------------------------------------------------------------
# Exactly-once writes: (table, write_id) -> the outcome of the write that carried it


MAX_WRITE_ID = 64


@translated
def recorded_outcome(conn: sqlite3.Connection, table_id: int, write_id: str) -> dict[str, Any] | None:
    """The outcome recorded for this write id at this table, or None if it was never written."""
    row = conn.execute("SELECT outcome FROM writes WHERE table_id = ? AND write_id = ?",
                       (table_id, write_id)).fetchone()
    return None if row is None else json.loads(row[0])


@translated
def record_outcome(conn: sqlite3.Connection, table_id: int, write_id: str, outcome: Mapping[str, Any],
                   stamp: str) -> None:
    """Remember the outcome, in the write's own transaction (so both are stored or neither)."""
    conn.execute("INSERT INTO writes (table_id, write_id, outcome, at) VALUES (?, ?, ?, ?)",
                 (table_id, write_id, _json(dict(outcome)), stamp))
