"""Who may do what (issue 32): every SQL statement about a finished match's window for changes
and about the names on tonight's list that phones own and ask for."""

from __future__ import annotations

import sqlite3

from .connection import translated
from .nights import current_night

# --------------------------------------------------------------------------
# A finished match


@translated
def round_open(conn: sqlite3.Connection, table_id: int) -> bool | None:
    """Whether the table's round is still the night's latest (None: the table was not drawn in a
    round, or it was left playing: see below). A round closes when the next one is drawn or a
    new night begins. A table the organiser left playing past the next draw or night (issue 44)
    is None: open as if its round were the latest until its match ends, then the usual window
    after the end decides, as for a table outside the rounds."""
    row = conn.execute("SELECT r.id, r.night, r.number, t.left_playing FROM round_tables AS t"
                       " JOIN night_rounds AS r ON r.id = t.round_id WHERE t.table_id = ?", (table_id,)).fetchone()
    if row is None:
        return None
    if row["left_playing"]:
        return None  # left playing past the next draw or night: the window after its end decides
    if row["night"] != current_night(conn):
        return False
    later = conn.execute("SELECT 1 FROM night_rounds WHERE night = ? AND number > ? LIMIT 1",
                         (row["night"], row["number"])).fetchone()
    return later is None


# --------------------------------------------------------------------------
# Names on tonight's list and the phones that own them


@translated
def owner(conn: sqlite3.Connection, player_id: int) -> str | None:
    row = conn.execute("SELECT owner FROM night_players WHERE id = ?", (player_id,)).fetchone()
    return row["owner"] if row else None


@translated
def set_owner(conn: sqlite3.Connection, player_id: int, device: str, address: str | None = None) -> None:
    """The name is this phone's from now on (the caller holds ``store.write``)."""
    if address is None:
        conn.execute("UPDATE night_players SET owner = ?, version = version + 1 WHERE id = ?", (device, player_id))
    else:
        conn.execute("UPDATE night_players SET owner = ?, joined_from = ?, version = version + 1 WHERE id = ?",
                     (device, address, player_id))


@translated
def origin(conn: sqlite3.Connection, player_id: int) -> tuple[str | None, str | None] | None:
    """(owner, joined_from) of a name on a night's list: which phone's it is, and the address of
    the phone that typed it (None: the organiser added it); None: no such name."""
    row = conn.execute("SELECT owner, joined_from FROM night_players WHERE id = ?", (player_id,)).fetchone()
    return (row["owner"], row["joined_from"]) if row else None


@translated
def release_owner(conn: sqlite3.Connection, player_id: int) -> None:
    """The name is no phone's any more: the first phone that asks for it gets it (caller holds write)."""
    conn.execute("UPDATE night_players SET owner = NULL, version = version + 1 WHERE id = ?", (player_id,))


@translated
def names_held(conn: sqlite3.Connection, night: int, address: str) -> int:
    """How many names of the night's list this address holds: typed there (``joined_from``) or
    taken there from the organiser's (``taken_from``), removed ones too (a name removed and typed
    again is no new name); a name given up (no owner, still on the list) no longer counts."""
    return conn.execute("SELECT count(*) FROM night_players WHERE night = ? AND (joined_from = ? OR taken_from = ?)"
                        " AND (owner IS NOT NULL OR left = 1)", (night, address, address)).fetchone()[0]


@translated
def take(conn: sqlite3.Connection, player_id: int, device: str, address: str | None) -> None:
    """A name nobody owned (the organiser's) is this phone's from now on, taken from ``address``
    (the caller holds ``store.write``)."""
    conn.execute("UPDATE night_players SET owner = ?, taken_from = ?, version = version + 1 WHERE id = ?",
                 (device, address, player_id))


@translated
def insert_claim(conn: sqlite3.Connection, player_id: int, device: str, address: str | None, stamp: str,
                 user_agent: str | None = None) -> int:
    """A phone asks for a name another phone owns; its earlier waiting request is withdrawn (one
    waiting request per phone, and per address: new cookies don't fill the organiser's list).
    The name's version is bumped so the hall shows it."""
    conn.execute("UPDATE name_claims SET state = 'withdrawn' WHERE state = 'waiting' AND (device = ? OR address = ?)",
                 (device, address))
    claim_id = conn.execute("INSERT INTO name_claims (player_id, device, address, asked_at, user_agent)"
                            " VALUES (?, ?, ?, ?, ?)", (player_id, device, address, stamp, user_agent)).lastrowid
    conn.execute("UPDATE night_players SET version = version + 1 WHERE id = ?", (player_id,))
    return claim_id


@translated
def claim(conn: sqlite3.Connection, claim_id: int) -> dict | None:
    row = conn.execute("SELECT c.id, c.player_id, c.device, c.asked_at, c.state, p.name, p.night"
                       " FROM name_claims AS c JOIN night_players AS p ON p.id = c.player_id WHERE c.id = ?",
                       (claim_id,)).fetchone()
    return None if row is None else dict(row)


@translated
def waiting_claims(conn: sqlite3.Connection, night: int) -> list[dict]:
    """The night's requests the organiser has not answered, oldest first."""
    rows = conn.execute("SELECT c.id, c.player_id, c.device, c.address, c.user_agent, c.asked_at, c.state, p.name,"
                        " p.night FROM name_claims AS c JOIN night_players AS p ON p.id = c.player_id"
                        " WHERE p.night = ? AND c.state = 'waiting' AND p.left = 0 ORDER BY c.id", (night,)).fetchall()
    return [dict(r) for r in rows]


@translated
def refuse_waiting(conn: sqlite3.Connection, player_id: int) -> int:
    """Every waiting request for this name refused; how many. The name's version is bumped so
    the hall shows it."""
    count = conn.execute("UPDATE name_claims SET state = 'refused' WHERE player_id = ? AND state = 'waiting'",
                         (player_id,)).rowcount
    conn.execute("UPDATE night_players SET version = version + 1 WHERE id = ?", (player_id,))
    return count


@translated
def answer_claim(conn: sqlite3.Connection, claim_id: int, state: str) -> None:
    conn.execute("UPDATE name_claims SET state = ? WHERE id = ?", (state, claim_id))
