"""Players across nights and each table's stored result (issue 26): every SQL statement about
them. A seat's player is its ``seat_assignments`` row if the organiser gave one, else the
player its name's key points to (``player_names``). ``results`` keeps each seated table's
replayed result for the revision it was replayed at; a later change to the table (its
revision or finished flag) makes it stale, and the domain (``companion.players``) replays it
again. Writes run inside ``store.write(conn)``."""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Callable, Iterable, Mapping

from .connection import translated


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------
# Stored results


@translated
def stale_tables(conn: sqlite3.Connection, limit: int = 500) -> list[dict[str, Any]]:
    """Seated tables whose stored result is missing or older than the table (at most
    ``limit``, oldest first), with their deals, the date of the night they belong to and
    whether it counts them: a number in the night, or opened before side tables were
    (``side_tables_since``: each night counted every table then)."""
    found: dict[int, dict[str, Any]] = {}
    for row in conn.execute(
            "SELECT t.id, t.game, t.players, t.options, t.finished, t.revision, t.created_at, t.updated_at, t.ended_at,"
            " t.label, t.seq, t.ended_at_time, d.facts AS deal_facts,"
            " (t.seq IS NOT NULL OR t.id <= (SELECT max(after_table) FROM side_tables_since)) AS counted,"
            " (SELECT n.started_at FROM nights AS n WHERE n.after_table < t.id ORDER BY n.id DESC LIMIT 1)"
            "  AS night_started,"
            " (SELECT nr.number FROM round_tables AS rt JOIN night_rounds AS nr ON nr.id = rt.round_id"
            "  WHERE rt.table_id = t.id) AS round_number,"
            " (t.pending_undos IS NOT NULL OR EXISTS (SELECT 1 FROM deals AS p WHERE p.table_id = t.id"
            "  AND p.pending IS NOT NULL)) AS unconfirmed"
            " FROM (SELECT t.* FROM tables AS t LEFT JOIN results AS r ON r.table_id = t.id"
            "       WHERE t.seated = 1 AND (r.table_id IS NULL OR r.revision != t.revision"
            "                                OR r.finished != t.finished) ORDER BY t.id LIMIT ?) AS t"
            " LEFT JOIN deals AS d ON d.table_id = t.id ORDER BY t.id, d.number", (limit,)):
        record = found.get(row["id"])
        if record is None:
            record = found[row["id"]] = {
                "id": row["id"], "game": row["game"], "players": json.loads(row["players"]),
                "options": json.loads(row["options"]), "finished": bool(row["finished"]),
                "revision": row["revision"], "created_at": row["created_at"], "updated_at": row["updated_at"],
                "ended_at": row["ended_at"],
                "label": row["label"], "seq": row["seq"], "night_started": row["night_started"],
                "round": row["round_number"], "unconfirmed": bool(row["unconfirmed"]),
                "ended_at_time": bool(row["ended_at_time"]), "counted": bool(row["counted"]), "deals": []}
        if row["deal_facts"] is not None:
            record["deals"].append(json.loads(row["deal_facts"]))
    return list(found.values())


@translated
def save_result(conn: sqlite3.Connection, table_id: int, revision: int, finished: bool, over: bool, night: str,
                at: str, game: str, label: str, names: list[str], keys: list[str], places: list[int],
                scores: list[int], entrants: list[int], at_time: bool = False, counted: bool = True) -> None:
    """``counted``: some night's leaderboard counts the table (it has a number in its night);
    the season reads only those (issue 43)."""
    conn.execute("INSERT OR REPLACE INTO results (table_id, revision, finished, over, night, at, game, label, data,"
                 " at_time, counted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (table_id, revision, int(finished), int(over), night, at, game, label,
                  _json([names, keys, places, scores, entrants]), int(at_time), int(counted)))


@translated
def results_signature(conn: sqlite3.Connection) -> tuple:
    """Changes whenever a stored result changes (a cheap "anything new?")."""
    return tuple(conn.execute("SELECT count(*), coalesce(sum(revision), 0), coalesce(sum(finished), 0),"
                              " coalesce(sum(over), 0), coalesce(max(table_id), 0), coalesce(sum(table_id), 0),"
                              " coalesce(sum(counted), 0) FROM results").fetchone())


@translated
def who_signature(conn: sqlite3.Connection) -> tuple:
    """Changes whenever who-is-who changes (a merge, a rename, a seat given, a new player)."""
    return tuple(conn.execute("SELECT (SELECT coalesce(max(id), 0) FROM player_changes),"
                              " (SELECT coalesce(max(id), 0) FROM players), (SELECT count(*) FROM player_names)"
                              ).fetchone())


@translated
def result_marks(conn: sqlite3.Connection) -> dict[int, tuple[int, int]]:
    """Each ended counted match's table id -> (revision, finished) of its stored result."""
    return {t: (r, f) for t, r, f in conn.execute("SELECT table_id, revision, finished FROM results"
                                                  " WHERE over = 1 AND counted = 1")}


@translated
def results_of(conn: sqlite3.Connection, table_ids: Iterable[int]) -> list[tuple]:
    """(table_id, revision, finished, night, at, game, label, data JSON, at_time) of these ended counted matches."""
    ids = list(table_ids)
    found: list[tuple] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        found.extend(conn.execute("SELECT table_id, revision, finished, night, at, game, label, data, at_time FROM results"
                                  f" WHERE over = 1 AND counted = 1 AND table_id IN ({','.join('?' * len(chunk))})", chunk))
    return found


@translated
def ended_results(conn: sqlite3.Connection) -> list[tuple]:
    """Every ended counted match, as :func:`results_of` gives them, in table order (one query:
    what the season reads after a start)."""
    return conn.execute("SELECT table_id, revision, finished, night, at, game, label, data, at_time FROM results"
                        " WHERE over = 1 AND counted = 1 ORDER BY table_id").fetchall()


@translated
def uncounted_results(conn: sqlite3.Connection, limit: int, offset: int = 0) -> list[dict[str, Any]]:
    """Ended matches no night counts (side tables never added), newest first: their table's id,
    token, night, game and the names typed at it."""
    rows = conn.execute("SELECT r.table_id, t.token, r.night, r.at, r.game, r.data FROM results AS r"
                        " JOIN tables AS t ON t.id = r.table_id WHERE r.over = 1 AND r.counted = 0"
                        " ORDER BY r.table_id DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
    return [{"table_id": row[0], "token": row[1], "night": row[2], "at": row[3], "game": row[4],
             "names": json.loads(row[5])[0]} for row in rows]


@translated
def count_uncounted(conn: sqlite3.Connection) -> int:
    """How many ended matches no night counts."""
    return conn.execute("SELECT count(*) FROM results WHERE over = 1 AND counted = 0").fetchone()[0]


@translated
def season_version(conn: sqlite3.Connection) -> int:
    """The season's version: moved by every write that changes what its pages show."""
    row = conn.execute("SELECT version FROM season WHERE id = 1").fetchone()
    return row[0] if row else 0


@translated
def ratings_for_everyone(conn: sqlite3.Connection) -> bool:
    """Whether every device may see the ratings (else the organiser only)."""
    row = conn.execute("SELECT ratings_for_everyone FROM season WHERE id = 1").fetchone()
    return bool(row[0]) if row else False


@translated
def show_ratings_to_everyone(conn: sqlite3.Connection, everyone: bool) -> None:
    """Set who may see the ratings (the caller holds ``store.write``; then :func:`move_season`)."""
    conn.execute("INSERT INTO season (id, version, ratings_for_everyone) VALUES (1, 0, ?)"
                 " ON CONFLICT (id) DO UPDATE SET ratings_for_everyone = excluded.ratings_for_everyone",
                 (int(everyone),))


@translated
def move_season(conn: sqlite3.Connection) -> int:
    """Move the season's version (the caller holds ``store.write``); returns the new one.
    (An upsert: a database emptied table by table, as the tests' PostgreSQL is, has no row.)"""
    return conn.execute("INSERT INTO season (id, version) VALUES (1, 1)"
                        " ON CONFLICT (id) DO UPDATE SET version = season.version + 1 RETURNING version").fetchone()[0]


@translated
def table_ref(conn: sqlite3.Connection, token: str) -> dict[str, Any] | None:
    """A table's id, players and stored result's night, by its token (for seat assignments)."""
    row = conn.execute("SELECT id, token, game, players, label, seq, created_at FROM tables WHERE token = ?",
                       (token,)).fetchone()
    return None if row is None else dict(row, players=json.loads(row["players"]))


@translated
def tokens(conn: sqlite3.Connection, table_ids: Iterable[int]) -> dict[int, str]:
    ids = list(table_ids)
    found: dict[int, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        found.update(conn.execute(f"SELECT id, token FROM tables WHERE id IN ({','.join('?' * len(chunk))})",
                                  chunk).fetchall())
    return found


# --------------------------------------------------------------------------
# Who is who


@translated
def all_players(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every player with the name keys that point to them, by name."""
    rows = conn.execute("SELECT p.id, p.name, p.key, p.added_at,"
                        " (SELECT group_concat(n.key, char(10)) FROM player_names AS n WHERE n.player_id = p.id)"
                        "  AS keys FROM players AS p ORDER BY p.key, p.id").fetchall()
    return [dict(r, keys=sorted((r["keys"] or "").split("\n")) if r["keys"] else []) for r in rows]


@translated
def player(conn: sqlite3.Connection, player_id: int) -> dict[str, Any] | None:
    row = conn.execute("SELECT id, name, key, added_at FROM players WHERE id = ?", (player_id,)).fetchone()
    return None if row is None else dict(row)


@translated
def name_map(conn: sqlite3.Connection) -> dict[str, int]:
    """Name key -> player id."""
    return dict(conn.execute("SELECT key, player_id FROM player_names").fetchall())


@translated
def seat_map(conn: sqlite3.Connection) -> dict[tuple[int, int], int]:
    """(table id, seat) -> player id, where the organiser gave a seat to a player."""
    return {(t, s): p for t, s, p in conn.execute("SELECT table_id, seat, player_id FROM seat_assignments")}


@translated
def missing_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> set[str]:
    known = set(r[0] for r in conn.execute("SELECT key FROM player_names"))
    return set(keys) - known


@translated
def insert_player(conn: sqlite3.Connection, name: str, key: str, stamp: str, *, own_name: bool = True) -> int:
    """A new player; with ``own_name`` their name's key points to them (not for a namesake kept
    apart, who is reached through seat assignments only)."""
    player_id = conn.execute("INSERT INTO players (name, key, added_at) VALUES (?, ?, ?)",
                             (name, key, stamp)).lastrowid
    if own_name:
        conn.execute("INSERT INTO player_names (key, player_id) VALUES (?, ?)", (key, player_id))
    return player_id


@translated
def rename(conn: sqlite3.Connection, player_id: int, name: str, key: str, point_key: bool) -> None:
    """Show the player as ``name``; with ``point_key`` that name's key points to them too."""
    conn.execute("UPDATE players SET name = ?, key = ? WHERE id = ?", (name, key, player_id))
    if point_key:
        conn.execute("INSERT OR REPLACE INTO player_names (key, player_id) VALUES (?, ?)", (key, player_id))


@translated
def merge(conn: sqlite3.Connection, keep: int, gone: int) -> dict[str, Any]:
    """Everything of player ``gone`` becomes ``keep``'s; returns what ``gone`` had (for the log)."""
    before = {"player": player(conn, gone),
              "keys": [r[0] for r in conn.execute("SELECT key FROM player_names WHERE player_id = ?", (gone,))],
              "seats": [list(r) for r in conn.execute("SELECT table_id, seat FROM seat_assignments"
                                                       " WHERE player_id = ?", (gone,))]}
    conn.execute("UPDATE player_names SET player_id = ? WHERE player_id = ?", (keep, gone))
    conn.execute("UPDATE seat_assignments SET player_id = ? WHERE player_id = ?", (keep, gone))
    conn.execute("DELETE FROM players WHERE id = ?", (gone,))
    return before


@translated
def assign_seat(conn: sqlite3.Connection, table_id: int, seat: int, player_id: int | None) -> None:
    """Give the seat to ``player_id`` (None: back to whoever its name points to)."""
    if player_id is None:
        conn.execute("DELETE FROM seat_assignments WHERE table_id = ? AND seat = ?", (table_id, seat))
    else:
        conn.execute("INSERT OR REPLACE INTO seat_assignments (table_id, seat, player_id) VALUES (?, ?, ?)",
                     (table_id, seat, player_id))


@translated
def log(conn: sqlite3.Connection, action: str, detail: Mapping[str, Any], stamp: str) -> int:
    """Log a change of who-is-who (the caller holds ``store.write``). The season's pages show
    who is who, so its version moves with it: returns the new one."""
    conn.execute("INSERT INTO player_changes (at, action, detail) VALUES (?, ?, ?)",
                 (stamp, action, _json(dict(detail))))
    return move_season(conn)


# --------------------------------------------------------------------------
# Forgetting a player (issue 43): their name out of every row that holds it


@translated
def seated_tables(conn: sqlite3.Connection) -> list[tuple[int, list[str]]]:
    """Every table's id and seat names (the names as typed at it)."""
    return [(row[0], json.loads(row[1])) for row in conn.execute("SELECT id, players FROM tables ORDER BY id")]


@translated
def forget_player(conn: sqlite3.Connection, player_id: int, name: str, key: str, seats: dict[int, list[str]],
                  old_keys: list[str], theirs: Callable[[str], bool], stamp: str) -> tuple[int, dict[int, int]]:
    """Give the player ``name`` wherever their name was (the caller holds ``store.write``):
    ``seats`` (table id -> its seat names, the player's already replaced), tonight's lists
    (``old_keys``), the player's own row and spellings, and every logged change of who is who
    (any text ``theirs`` says is a name or key of theirs, in its details); their tables' stored
    results are read again. Logged with no
    name. Returns the season's new version and each of those tables' new revision."""
    revisions = {}
    for table_id, names in seats.items():
        revisions[table_id] = conn.execute("UPDATE tables SET players = ?, revision = revision + 1, updated_at = ?"
                                           " WHERE id = ? RETURNING revision",
                                           (_json(names), stamp, table_id)).fetchone()[0]
        conn.execute("INSERT INTO changes (table_id, at, action) VALUES (?, ?, 'forget')", (table_id, stamp))
        conn.execute("DELETE FROM results WHERE table_id = ?", (table_id,))
    for old in old_keys:
        conn.execute("UPDATE night_players SET name = ?, key = ?, version = version + 1 WHERE key = ?",
                     (name, key, old))
        conn.execute("DELETE FROM player_names WHERE key = ?", (old,))
    conn.execute("UPDATE players SET name = ?, key = ? WHERE id = ?", (name, key, player_id))
    conn.execute("INSERT OR REPLACE INTO player_names (key, player_id) VALUES (?, ?)", (key, player_id))

    def scrubbed(value: Any) -> Any:
        if isinstance(value, str):
            return name if theirs(value) else value
        if isinstance(value, list):
            return [scrubbed(v) for v in value]
        if isinstance(value, dict):
            return {k: scrubbed(v) for k, v in value.items()}
        return value

    for change_id, detail in conn.execute("SELECT id, detail FROM player_changes").fetchall():
        cleaned = _json(scrubbed(json.loads(detail)))
        if cleaned != detail:
            conn.execute("UPDATE player_changes SET detail = ? WHERE id = ?", (cleaned, change_id))
    return log(conn, "forget", {"player": player_id}, stamp), revisions


@translated
def on_tonights_list(conn: sqlite3.Connection, keys: list[str]) -> int:
    """How many rows of the nights' lists have one of ``keys``."""
    if not keys:
        return 0
    marks = ",".join("?" * len(keys))
    return conn.execute(f"SELECT count(*) FROM night_players WHERE key IN ({marks})", keys).fetchone()[0]
