"""Meetup nights: every SQL statement about them. A night only marks where it began (the
largest table id then): its tables are those opened since (ids only grow; clocks may not)."""

from __future__ import annotations

import sqlite3

from .connection import translated


@translated
def night_started(conn: sqlite3.Connection) -> str:
    """When the current night began ("" = no night was ever started)."""
    row = conn.execute("SELECT started_at FROM nights ORDER BY id DESC LIMIT 1").fetchone()
    return row["started_at"] if row else ""


@translated
def night_after_table(conn: sqlite3.Connection) -> int:
    """Tables with a larger id belong to the current night."""
    row = conn.execute("SELECT after_table FROM nights ORDER BY id DESC LIMIT 1").fetchone()
    return row["after_table"] if row else 0


@translated
def insert_night(conn: sqlite3.Connection, stamp: str) -> None:
    """Begin a night after every table opened so far (the caller holds ``store.write``)."""
    conn.execute("INSERT INTO nights (started_at, after_table) VALUES (?, (SELECT coalesce(max(id), 0) FROM tables))",
                 (stamp,))


@translated
def night_signature(conn: sqlite3.Connection) -> str:
    """Changes whenever any table of the night changes: the hall view's cheap "anything new?"."""
    row = conn.execute("SELECT count(*), coalesce(sum(revision), 0), coalesce(max(id), 0) FROM tables"
                       " WHERE id > (SELECT coalesce((SELECT after_table FROM nights ORDER BY id DESC LIMIT 1), 0))"
                       ).fetchone()
    return f"{row[0]}-{row[1]}-{row[2]}"


@translated
def next_table_number(conn: sqlite3.Connection) -> int:
    """The number the night's next prepared table gets ("Table 3")."""
    return 1 + conn.execute("SELECT coalesce(max(seq), 0) FROM tables WHERE id > ?",
                            (night_after_table(conn),)).fetchone()[0]
