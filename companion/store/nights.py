"""Meetup nights: every SQL statement about them. A night only marks where it began (the
largest table id then): its tables are those opened since (ids only grow; clocks may not)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from typing import Any, Sequence

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
    """Changes whenever any table, the roster or a round of the night changes: the hall view's
    cheap "anything new?"."""
    row = conn.execute("SELECT count(*), coalesce(sum(revision), 0), coalesce(max(id), 0) FROM tables"
                       " WHERE id > (SELECT coalesce((SELECT after_table FROM nights ORDER BY id DESC LIMIT 1), 0))"
                       ).fetchone()
    night = current_night(conn)
    people = conn.execute("SELECT count(*), coalesce(sum(version), 0), coalesce(max(id), 0) FROM night_players"
                          " WHERE night = ?", (night,)).fetchone()
    rounds = conn.execute("SELECT count(*), coalesce(sum(r.version), 0),"
                          " (SELECT coalesce(sum(t.extra_minutes), 0) FROM round_tables AS t JOIN night_rounds AS q"
                          "  ON q.id = t.round_id WHERE q.night = ?)"
                          " FROM night_rounds AS r WHERE r.night = ?", (night, night)).fetchone()
    # The room's tables (issue 44): the hall shows them, and where the next draw seats.
    room = conn.execute("SELECT count(*), coalesce(sum(id * (position + 1)), 0), coalesce(max(id), 0)"
                        " FROM room_tables").fetchone()
    released = conn.execute("SELECT count(*) FROM round_tables AS t JOIN night_rounds AS q ON q.id = t.round_id"
                            " WHERE q.night = ? AND t.released = 1", (night,)).fetchone()[0]
    return "-".join(str(v) for v in (*row, night, *people, *rounds, *room, int(review_draws(conn)),
                                      int(confirm_deals(conn)), released, zlib.crc32(_rolling_text(conn).encode())))


# --------------------------------------------------------------------------
# The night's roster and rounds (issue 25)


@translated
def current_night(conn: sqlite3.Connection) -> int:
    """The current night's id (0: no night was ever started; the roster is then night 0's)."""
    row = conn.execute("SELECT id FROM nights ORDER BY id DESC LIMIT 1").fetchone()
    return row["id"] if row else 0


_PLAYER = ("SELECT id, night, name, key, added_at, left, version, sit_out_round, leaving, room_table"
           " FROM night_players")


@translated
def roster(conn: sqlite3.Connection, night: int, with_left: bool = False) -> list[dict]:
    """The night's players in the order they arrived (those who left too, with ``with_left``)."""
    rows = conn.execute(_PLAYER + " WHERE night = ?" + ("" if with_left else " AND left = 0") + " ORDER BY id",
                        (night,)).fetchall()
    return [dict(r, left=bool(r["left"]), leaving=bool(r["leaving"])) for r in rows]


@translated
def player(conn: sqlite3.Connection, player_id: int) -> dict | None:
    row = conn.execute(_PLAYER + " WHERE id = ?", (player_id,)).fetchone()
    return None if row is None else dict(row, left=bool(row["left"]), leaving=bool(row["leaving"]))


@translated
def player_by_key(conn: sqlite3.Connection, night: int, key: str) -> dict | None:
    row = conn.execute(_PLAYER + " WHERE night = ? AND key = ?", (night, key)).fetchone()
    return None if row is None else dict(row, left=bool(row["left"]), leaving=bool(row["leaving"]))


@translated
def insert_player(conn: sqlite3.Connection, night: int, name: str, key: str, stamp: str) -> int:
    """Add a player to the roster (the caller holds ``store.write`` and checked the key is new)."""
    return conn.execute("INSERT INTO night_players (night, name, key, added_at) VALUES (?, ?, ?, ?)",
                        (night, name, key, stamp)).lastrowid


@translated
def delete_player(conn: sqlite3.Connection, player_id: int) -> None:
    """A name gone from the list as if never typed, with its requests (the caller holds
    ``store.write`` and checked it never sat at a table)."""
    conn.execute("DELETE FROM name_claims WHERE player_id = ?", (player_id,))
    conn.execute("DELETE FROM game_requests WHERE player_id = ?", (player_id,))
    conn.execute("DELETE FROM night_players WHERE id = ?", (player_id,))


@translated
def update_player(conn: sqlite3.Connection, player_id: int, *, name: str | None = None, key: str | None = None,
                  left: bool | None = None) -> None:
    if name is not None:
        conn.execute("UPDATE night_players SET name = ?, key = ?, version = version + 1 WHERE id = ?",
                     (name, key, player_id))
    if left is not None:
        conn.execute("UPDATE night_players SET left = ?, version = version + 1 WHERE id = ?",
                     (int(left), player_id))


@translated
def keep_at_table(conn: sqlite3.Connection, player_id: int, room_table: int | None) -> None:
    """The player keeps this room table for the night (None: any table)."""
    conn.execute("UPDATE night_players SET room_table = ?, version = version + 1 WHERE id = ?", (room_table, player_id))


@translated
def set_away(conn: sqlite3.Connection, player_id: int, sit_out_round: int | None, leaving: bool) -> None:
    """The player sits out round ``sit_out_round`` (None: no round), or leaves after their match."""
    conn.execute("UPDATE night_players SET sit_out_round = ?, leaving = ?, version = version + 1 WHERE id = ?",
                 (sit_out_round, int(leaving), player_id))


@translated
def rounds(conn: sqlite3.Connection, night: int) -> list[dict]:
    """The night's rounds in order, each with how it was drawn (``draw``: the JSON given to
    :func:`insert_round`, decoded; None for a round drawn before it was stored), its tables
    (table id, number, extra minutes) and its seats (table id -> player ids in seat order)."""
    found = [dict(r, draw=None if r["draw"] is None else json.loads(r["draw"]), tables=[]) for r in conn.execute(
        "SELECT id, number, drawn_at, seed, minutes, clock_from, paused_at, version, draw, held FROM night_rounds"
        " WHERE night = ?"
        " ORDER BY number", (night,))]
    by_id = {r["id"]: r for r in found}
    if not found:
        return found
    for row in conn.execute(
            "SELECT t.round_id, t.table_id, t.number, t.extra_minutes, t.time_called, t.released, x.token"
            " FROM round_tables AS t"
            " JOIN night_rounds AS r ON r.id = t.round_id JOIN tables AS x ON x.id = t.table_id"
            " WHERE r.night = ? ORDER BY t.round_id, t.number", (night,)):
        by_id[row["round_id"]]["tables"].append(dict(table_id=row["table_id"], number=row["number"],
                                                     extra_minutes=row["extra_minutes"], token=row["token"],
                                                     time_called=row["time_called"], released=bool(row["released"]),
                                                     seats=[]))
    tables = {t["table_id"]: t for r in found for t in r["tables"]}
    for row in conn.execute(
            "SELECT s.table_id, s.seat, s.player_id FROM round_seats AS s JOIN round_tables AS t"
            " ON t.table_id = s.table_id JOIN night_rounds AS r ON r.id = t.round_id WHERE r.night = ?"
            " ORDER BY s.table_id, s.seat", (night,)):
        tables[row["table_id"]]["seats"].append(row["player_id"])
    return found


@translated
def insert_round(conn: sqlite3.Connection, night: int, number: int, stamp: str, seed: str,
                 minutes: int | None, draw: dict[str, Any] | None = None, held: bool = False) -> int:
    """A new round; ``draw``: how it was drawn (JSON-able), kept for the next draw's form;
    ``held``: shown on the hall only, for the organiser to review, until :func:`show_round`."""
    stored = None if draw is None else json.dumps(draw, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return conn.execute("INSERT INTO night_rounds (night, number, drawn_at, seed, minutes, draw, held)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)", (night, number, stamp, seed, minutes, stored,
                                                         int(held))).lastrowid


@translated
def show_round(conn: sqlite3.Connection, round_id: int) -> None:
    """A round held for review is shown to the room and the phones."""
    conn.execute("UPDATE night_rounds SET held = 0, version = version + 1 WHERE id = ?", (round_id,))


@translated
def review_draws(conn: sqlite3.Connection) -> bool:
    """The hall's setting: each draw is held for the organiser's review until "Start round N"."""
    row = conn.execute("SELECT review_draws FROM hall_settings WHERE id = 1").fetchone()
    return bool(row and row[0])


@translated
def keys_held(conn: sqlite3.Connection, device: str) -> list[str]:
    """The name keys of tonight's players this phone (its device id) holds: the seats it stands
    for at a table (issue 45)."""
    return [row[0] for row in conn.execute(
        "SELECT key FROM night_players WHERE owner = ? AND left = 0 AND night = ?", (device, current_night(conn)))]


@translated
def confirm_deals(conn: sqlite3.Connection) -> bool:
    """The hall's setting (issue 45, on unless turned off): the night's tables ask another seat
    to confirm each deal a phone saves."""
    row = conn.execute("SELECT confirm_deals FROM hall_settings WHERE id = 1").fetchone()
    return True if row is None else bool(row[0])


@translated
def set_confirm_deals(conn: sqlite3.Connection, on: bool) -> None:
    conn.execute("INSERT INTO hall_settings (id, confirm_deals) VALUES (1, ?)"
                 " ON CONFLICT (id) DO UPDATE SET confirm_deals = excluded.confirm_deals", (int(on),))


@translated
def set_review_draws(conn: sqlite3.Connection, on: bool) -> None:
    conn.execute("INSERT INTO hall_settings (id, review_draws) VALUES (1, ?)"
                 " ON CONFLICT (id) DO UPDATE SET review_draws = excluded.review_draws", (int(on),))


@translated
def insert_round_table(conn: sqlite3.Connection, round_id: int, table_id: int, number: int,
                       player_ids: list[int]) -> None:
    conn.execute("INSERT INTO round_tables (round_id, table_id, number) VALUES (?, ?, ?)",
                 (round_id, table_id, number))
    conn.executemany("INSERT INTO round_seats (table_id, seat, player_id) VALUES (?, ?, ?)",
                     [(table_id, seat, p) for seat, p in enumerate(player_ids)])


@translated
def set_seat(conn: sqlite3.Connection, table_id: int, seat: int, player_id: int) -> None:
    conn.execute("UPDATE round_seats SET player_id = ? WHERE table_id = ? AND seat = ?", (player_id, table_id, seat))


@translated
def set_seats(conn: sqlite3.Connection, table_id: int, player_ids: list[int]) -> None:
    """A round table's whole seating anew (a player joined or left it before it started)."""
    conn.execute("DELETE FROM round_seats WHERE table_id = ?", (table_id,))
    conn.executemany("INSERT INTO round_seats (table_id, seat, player_id) VALUES (?, ?, ?)",
                     [(table_id, seat, p) for seat, p in enumerate(player_ids)])


@translated
def bump_round(conn: sqlite3.Connection, round_id: int, seed: str | None = None) -> None:
    """The round changed (``seed``: drawn again with this seed)."""
    conn.execute("UPDATE night_rounds SET version = version + 1, seed = coalesce(?, seed) WHERE id = ?",
                 (seed, round_id))


@translated
def set_clock(conn: sqlite3.Connection, round_id: int, minutes: int | None, clock_from: str | None) -> None:
    """Start (``clock_from``: now), restart or stop (None) a round's clock; it runs, not paused."""
    conn.execute("UPDATE night_rounds SET minutes = ?, clock_from = ?, paused_at = NULL, version = version + 1"
                 " WHERE id = ?", (minutes, clock_from, round_id))


@translated
def pause_clock(conn: sqlite3.Connection, round_id: int, paused_at: str | None, clock_from: str | None) -> None:
    """Pause a round's clock (``paused_at``: now) or resume it (None, with ``clock_from`` moved on
    by the pause, so the seconds left are those it was paused at)."""
    conn.execute("UPDATE night_rounds SET paused_at = ?, clock_from = ?, version = version + 1 WHERE id = ?",
                 (paused_at, clock_from, round_id))


@translated
def round_table_ids(conn: sqlite3.Connection, round_id: int) -> list[int]:
    """The tables drawn in a round."""
    return [row[0] for row in conn.execute("SELECT table_id FROM round_tables WHERE round_id = ? ORDER BY number",
                                           (round_id,))]


@translated
def extend_table(conn: sqlite3.Connection, table_id: int, extra_minutes: int) -> None:
    """The table's clock ends ``extra_minutes`` after the round's, and time is no longer called
    for it (the organiser gave it more time after calling it)."""
    conn.execute("UPDATE round_tables SET extra_minutes = ?, time_called = NULL WHERE table_id = ?",
                 (extra_minutes, table_id))


@translated
def table_round(conn: sqlite3.Connection, table_id: int) -> dict | None:
    """The round a table was drawn in (its clock), or None for a table outside any round."""
    row = conn.execute("SELECT r.id, r.number, r.minutes, r.clock_from, r.paused_at, t.number AS table_number,"
                       " t.extra_minutes, t.time_called"
                       " FROM round_tables AS t JOIN night_rounds AS r ON r.id = t.round_id WHERE t.table_id = ?",
                       (table_id,)).fetchone()
    return None if row is None else dict(row)


@translated
def next_table_number(conn: sqlite3.Connection) -> int:
    """The number the night's next prepared table gets ("Table 3")."""
    return 1 + conn.execute("SELECT coalesce(max(seq), 0) FROM tables WHERE id > ?",
                            (night_after_table(conn),)).fetchone()[0]


@translated
def room_tables(conn: sqlite3.Connection) -> list[dict]:
    """The room's tables (id, label), in the room's order."""
    return [dict(r) for r in conn.execute("SELECT id, label FROM room_tables ORDER BY position, id")]


@translated
def set_room_tables(conn: sqlite3.Connection, labels: Sequence[str]) -> None:
    """The room's tables anew (the caller holds ``store.write``): a label kept keeps its id, so
    a card printed for it still opens its table; a label gone is gone, and a new one is added."""
    kept = {row["label"]: row["id"] for row in conn.execute("SELECT id, label FROM room_tables")}
    for label in set(kept) - set(labels):
        conn.execute("DELETE FROM room_tables WHERE id = ?", (kept[label],))
    for position, label in enumerate(labels):
        if label in kept:
            conn.execute("UPDATE room_tables SET position = ? WHERE id = ?", (position, kept[label]))
        else:
            conn.execute("INSERT INTO room_tables (position, label) VALUES (?, ?)", (position, label))


@translated
def leave_playing(conn: sqlite3.Connection, table_ids: Sequence[int]) -> None:
    """These round tables play on past the next draw (the caller holds ``store.write``)."""
    for table_id in table_ids:
        conn.execute("UPDATE round_tables SET left_playing = 1 WHERE table_id = ?", (table_id,))


@translated
def number_in_night_of(conn: sqlite3.Connection, table_id: int) -> int:
    """The next number in the night the table was opened in (tonight's or a past one's): what a
    side table added to its night gets."""
    start = conn.execute("SELECT coalesce(max(after_table), 0) FROM nights WHERE after_table < ?",
                         (table_id,)).fetchone()[0]
    end = conn.execute("SELECT min(after_table) FROM nights WHERE after_table >= ?", (table_id,)).fetchone()[0]
    if end is None:  # tonight's (or, before any night, the laptop's only one)
        row = conn.execute("SELECT coalesce(max(seq), 0) FROM tables WHERE id > ?", (start,)).fetchone()
    else:
        row = conn.execute("SELECT coalesce(max(seq), 0) FROM tables WHERE id > ? AND id <= ?", (start, end)).fetchone()
    return 1 + row[0]


@translated
def night_table_count(conn: sqlite3.Connection) -> int:
    """How many tables the current night holds, numbered or not (phone tables have no number)."""
    return conn.execute("SELECT count(*) FROM tables WHERE id > ?",
                        (night_after_table(conn),)).fetchone()[0]


@translated
def unseat_table(conn: sqlite3.Connection, table_id: int, stamp: str) -> int:
    """A table with no deal waits for its players again (its phones are asked for the names);
    returns its new revision."""
    return conn.execute("UPDATE tables SET seated = 0, revision = revision + 1, updated_at = ? WHERE id = ?"
                        " RETURNING revision", (stamp, table_id)).fetchone()[0]


@translated
def call_time(conn: sqlite3.Connection, table_ids: list[int], stamp: str) -> None:
    """The organiser calls time for these round tables (those already called keep their time)."""
    conn.executemany("UPDATE round_tables SET time_called = coalesce(time_called, ?) WHERE table_id = ?",
                     [(stamp, table_id) for table_id in table_ids])
    conn.executemany("UPDATE night_rounds SET version = version + 1 WHERE id ="
                     " (SELECT round_id FROM round_tables WHERE table_id = ?)", [(t,) for t in table_ids])


# --------------------------------------------------------------------------
# Game requests (issue 47)


@translated
def game_requests(conn: sqlite3.Connection, night: int) -> dict[int, dict]:
    """The night's open game requests: player id -> {"game", "learn", "asked_at"}."""
    return {row["player_id"]: dict(game=row["game"], learn=bool(row["learn"]), asked_at=row["asked_at"])
            for row in conn.execute("SELECT q.player_id, q.game, q.learn, q.asked_at FROM game_requests AS q"
                                    " JOIN night_players AS p ON p.id = q.player_id WHERE p.night = ?"
                                    " ORDER BY q.player_id", (night,))}


@translated
def set_game_request(conn: sqlite3.Connection, player_id: int, game: str | None, learn: bool, stamp: str) -> None:
    """The player's one request (None: withdrawn); their version moves, so the hall sees it."""
    conn.execute("DELETE FROM game_requests WHERE player_id = ?", (player_id,))
    if game is not None:
        conn.execute("INSERT INTO game_requests (player_id, game, learn, asked_at) VALUES (?, ?, ?, ?)",
                     (player_id, game, int(learn), stamp))
    conn.execute("UPDATE night_players SET version = version + 1 WHERE id = ?", (player_id,))


@translated
def record_round_requests(conn: sqlite3.Connection, round_id: int, outcomes: Sequence[dict]) -> None:
    """What a drawn round did with the requests it was given (each {"player_id", "game",
    "learn", "met", "again"}); the met ones are closed (the caller holds ``store.write``)."""
    for o in outcomes:
        conn.execute("INSERT INTO round_requests (round_id, player_id, game, learn, met, again)"
                     " VALUES (?, ?, ?, ?, ?, ?)",
                     (round_id, o["player_id"], o["game"], int(o["learn"]), int(o["met"]), int(o["again"])))
        if o["met"]:
            conn.execute("DELETE FROM game_requests WHERE player_id = ?", (o["player_id"],))
            conn.execute("UPDATE night_players SET version = version + 1 WHERE id = ?", (o["player_id"],))


@translated
def round_requests(conn: sqlite3.Connection, round_id: int) -> list[dict]:
    """The requests a round's draw was given, in player order, with whether it met each."""
    return [dict(player_id=row["player_id"], game=row["game"], learn=bool(row["learn"]), met=bool(row["met"]),
                 again=bool(row["again"]))
            for row in conn.execute("SELECT player_id, game, learn, met, again FROM round_requests"
                                    " WHERE round_id = ? ORDER BY player_id", (round_id,))]


@translated
def clear_round_requests(conn: sqlite3.Connection, round_id: int) -> None:
    """A round drawn again: what its first draw did with the requests goes."""
    conn.execute("DELETE FROM round_requests WHERE round_id = ?", (round_id,))


@translated
def close_game_requests(conn: sqlite3.Connection, player_ids: Sequence[int]) -> None:
    """These players' requests are met (a table seated outside a round): closed."""
    for player_id in player_ids:
        conn.execute("DELETE FROM game_requests WHERE player_id = ?", (player_id,))
        conn.execute("UPDATE night_players SET version = version + 1 WHERE id = ?", (player_id,))


# --------------------------------------------------------------------------
# Rolling tables (issue 47)


def _rolling_text(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT rolling FROM hall_settings WHERE id = 1").fetchone()
    return (row[0] if row else None) or ""


@translated
def rolling(conn: sqlite3.Connection) -> dict | None:
    """The hall's rolling-tables settings as last set (any night's; None: never set)."""
    text = _rolling_text(conn)
    return json.loads(text) if text else None


@translated
def set_rolling(conn: sqlite3.Connection, settings: dict | None) -> None:
    stored = None if settings is None else json.dumps(settings, ensure_ascii=False, sort_keys=True,
                                                      separators=(",", ":"))
    conn.execute("INSERT INTO hall_settings (id, rolling) VALUES (1, ?)"
                 " ON CONFLICT (id) DO UPDATE SET rolling = excluded.rolling", (stored,))


@translated
def release_table(conn: sqlite3.Connection, table_id: int) -> None:
    """The organiser lets a rolling table's players go before its dispute is settled."""
    conn.execute("UPDATE round_tables SET released = 1 WHERE table_id = ?", (table_id,))
    conn.execute("UPDATE night_rounds SET version = version + 1 WHERE id ="
                 " (SELECT round_id FROM round_tables WHERE table_id = ?)", (table_id,))
