"""The schema: forward migrations, and recognising our own database file.

Only raw facts are stored; standings are derived by the rules engine.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from . import connection, postgres
from ..names import name_key
from .errors import DatabaseError, DiskFull

# Each entry moves the schema one version forward. Never edit a released entry:
# append a new one, so that a laptop with last month's matches upgrades in place.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,
        game TEXT NOT NULL,
        players TEXT NOT NULL,            -- JSON list of names, clockwise
        options TEXT NOT NULL,            -- JSON: choices made at creation
        finished INTEGER NOT NULL DEFAULT 0,
        revision INTEGER NOT NULL DEFAULT 0,  -- bumped on every change; phones poll it
        rematch_of INTEGER REFERENCES tables(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE deals (
        table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,          -- 1-based; the primary key makes a doubled deal impossible
        facts TEXT NOT NULL,              -- JSON raw facts
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (table_id, number)
    );
    CREATE TABLE changes (
        id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        at TEXT NOT NULL,
        action TEXT NOT NULL,             -- add, edit, undo, finish, reopen
        number INTEGER,
        before TEXT,
        after TEXT
    );
    CREATE INDEX changes_by_table ON changes(table_id, id);
    """,
    # 2: meetup nights. A table prepared on the laptop before anyone sits down has a label
    # ("Table 3") and waits for its first phone to give the players (seated = 0).
    """
    ALTER TABLE tables ADD COLUMN label TEXT;        -- the organiser's own label, if any
    ALTER TABLE tables ADD COLUMN seq INTEGER;       -- its number in the night ("Table 3")
    ALTER TABLE tables ADD COLUMN seated INTEGER NOT NULL DEFAULT 1;
    CREATE TABLE nights (
        id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        after_table INTEGER NOT NULL      -- the night holds tables with a larger id (opened since it began)
    );
    """,
    # 3: every table page asks whether a rematch exists (Table.rematch_token).
    """
    CREATE INDEX tables_by_rematch ON tables(rematch_of);
    """,
    # 4: exactly-once writes. A phone names each change it sends (write_id); the change and its
    # outcome are stored in one transaction, so the same change sent again is answered with the
    # recorded outcome instead of being made twice.
    """
    CREATE TABLE writes (
        table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        write_id TEXT NOT NULL,
        outcome TEXT NOT NULL,            -- JSON: what the first answer said, e.g. {"action":"add","number":3}
        at TEXT NOT NULL,
        PRIMARY KEY (table_id, write_id)
    ) WITHOUT ROWID;
    """,
    # 5: a meetup night's roster and rounds (issue 25). ``night`` is nights.id (0: before any night
    # was started). A player who leaves keeps their row (left = 1): earlier rounds still name them.
    # A round's tables are ordinary tables; round_seats says which roster player sits in which
    # seat, so the next draw knows who already shared a table.
    """
    CREATE TABLE night_players (
        id INTEGER PRIMARY KEY,
        night INTEGER NOT NULL,
        name TEXT NOT NULL,
        key TEXT NOT NULL,                -- tables.name_key(name): the same name typed twice is one player
        added_at TEXT NOT NULL,
        left INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0,  -- bumped on every change (the hall's "anything new?")
        UNIQUE (night, key)
    );
    CREATE TABLE night_rounds (
        id INTEGER PRIMARY KEY,
        night INTEGER NOT NULL,
        number INTEGER NOT NULL,          -- 1, 2, 3 ... within the night
        drawn_at TEXT NOT NULL,
        seed TEXT NOT NULL,
        minutes INTEGER,                  -- the round clock, if set
        clock_from TEXT,                  -- when the organiser started it (UTC), NULL: not started
        version INTEGER NOT NULL DEFAULT 0,
        UNIQUE (night, number)
    );
    CREATE TABLE round_tables (
        round_id INTEGER NOT NULL REFERENCES night_rounds(id),
        table_id INTEGER NOT NULL UNIQUE REFERENCES tables(id),
        number INTEGER NOT NULL,          -- "Table 3" of the round
        extra_minutes INTEGER NOT NULL DEFAULT 0,  -- the organiser extended this table's clock
        PRIMARY KEY (round_id, number)
    );
    CREATE TABLE round_seats (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seat INTEGER NOT NULL,            -- 0-based, the table's seat order
        player_id INTEGER NOT NULL REFERENCES night_players(id),
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX round_seats_by_player ON round_seats(player_id);
    """,
    # 6: players across nights (issue 26). A name as a table compares it (name_key) is one
    # player (player_names); a merge points a second spelling's key at the kept player; a seat
    # given to someone else who shares the name is a seat_assignments row. ``results`` keeps each
    # table's replayed result for its revision (replaying a season per page is too slow). The
    # players already at tables and on night rosters are read in here (name_key is registered
    # on the migrating connection).
    """
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,               -- as shown: the latest spelling, or the organiser's
        key TEXT NOT NULL,                -- name_key(name)
        added_at TEXT NOT NULL
    );
    CREATE INDEX players_by_key ON players(key);
    CREATE TABLE player_names (
        key TEXT PRIMARY KEY,             -- a name as tables compare it
        player_id INTEGER NOT NULL REFERENCES players(id)
    ) WITHOUT ROWID;
    CREATE INDEX player_names_by_player ON player_names(player_id);
    CREATE TABLE seat_assignments (
        table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,            -- 0-based, the table's seat order
        player_id INTEGER NOT NULL REFERENCES players(id),
        PRIMARY KEY (table_id, seat)
    ) WITHOUT ROWID;
    CREATE TABLE results (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,        -- the table's revision it was replayed at
        finished INTEGER NOT NULL,
        over INTEGER NOT NULL,            -- 1: the match has ended (only these count)
        night TEXT NOT NULL,              -- the night's date, ISO
        at TEXT NOT NULL,                 -- when the table last changed
        game TEXT NOT NULL,
        label TEXT NOT NULL,
        data TEXT NOT NULL                -- JSON [names, keys, places, scores, entrants] in seat order
    );
    CREATE TABLE player_changes (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        action TEXT NOT NULL,             -- merge, rename, seat, add
        detail TEXT NOT NULL              -- JSON: what it was before, so nothing is lost
    );
    INSERT INTO players (name, key, added_at)
        SELECT name, k, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now') FROM
            (SELECT name_key(j.value) AS k, j.value AS name, max(t.id) FROM tables AS t, json_each(t.players) AS j
             WHERE t.seated = 1 GROUP BY k) ORDER BY k;
    INSERT INTO players (name, key, added_at)
        SELECT name, key, added_at FROM (SELECT key, name, added_at, max(id) FROM night_players GROUP BY key)
        WHERE key NOT IN (SELECT key FROM players) ORDER BY key;
    INSERT INTO player_names (key, player_id) SELECT key, id FROM players;
    """,
    # 7 (issue 32, "trust"): a name on tonight's list belongs to the phone that joined as it.
    # ``owner`` is that phone's session device id (NULL: the organiser added the name, or it
    # was added before this version: the first phone to take it owns it); ``joined_from`` the
    # address it joined from (one device joins at most a few names). Another phone asking for
    # an owned name makes a ``name_claims`` row the organiser allows or refuses on the laptop.
    """
    ALTER TABLE night_players ADD COLUMN owner TEXT;
    ALTER TABLE night_players ADD COLUMN joined_from TEXT;
    CREATE TABLE name_claims (
        id INTEGER PRIMARY KEY,
        player_id INTEGER NOT NULL REFERENCES night_players(id),
        device TEXT NOT NULL,             -- the asking phone's session device id
        address TEXT,                     -- and its address (one waiting request per device)
        asked_at TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'waiting'  -- waiting, allowed, refused
    );
    CREATE INDEX name_claims_by_device ON name_claims(device);
    """,
    # 8: calling time (issue 33). A match its table ended with the deals played when time was
    # called (a raw fact of the table, set with ``finished`` and cleared with it on reopen); the
    # organiser calling time for one table of a round; and whether a stored result is such a match.
    # Side tables begin here: until now each night counted every table opened in it, so a table
    # opened before (id up to side_tables_since) stays counted (issue 43, migration 12).
    """
    ALTER TABLE tables ADD COLUMN ended_at_time INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE round_tables ADD COLUMN time_called TEXT;  -- when the organiser called time (UTC), NULL: not
    ALTER TABLE results ADD COLUMN at_time INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE side_tables_since (after_table INTEGER NOT NULL);
    INSERT INTO side_tables_since SELECT coalesce(max(id), 0) FROM tables;
    """,
    # 9: a round remembers how it was drawn, so the next draw's form starts from it. JSON
    # {"way": "mix"|"standings"|"balanced", "every_game", "newcomers", "never": [[id, id], …]}
    # (night_players ids); NULL for a round drawn before: mixed, with no wishes.
    """
    ALTER TABLE night_rounds ADD COLUMN draw TEXT;
    """,
    # 10: the season's version (issue 41). Moved, inside their transaction, by the writes that
    # change what the season's pages show (a match that ends, is reopened or changed once ended;
    # who-is-who), so those pages follow it by push and catch up by it after a lost stream.
    """
    -- and who may see the ratings (issue 43): 0 the organiser only (the laptop), 1 everyone.
    CREATE TABLE season (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL,
                         ratings_for_everyone INTEGER NOT NULL DEFAULT 0);
    INSERT INTO season (id, version) VALUES (1, 0);
    """,
    # 11: a match's finishing moment (issue 43): set when it first ends (by its rules, by hand or
    # at time), kept through corrections, undo and re-entry, reopening and Rematch presses; moved
    # only when a reopened match ends with more deals than before. The season's order (ratings,
    # a player's matches) and a finished match's window for changes go by it. A match that ended
    # before: its last deal added or finish, as its change log says.
    """
    ALTER TABLE tables ADD COLUMN ended_at TEXT;
    ALTER TABLE tables ADD COLUMN ended_deals INTEGER;
    -- and (issue 44) the address that took a name the organiser added, which it then holds as
    -- one of its names of the night, as the ones it typed (joined_from).
    ALTER TABLE night_players ADD COLUMN taken_from TEXT;
    UPDATE tables SET ended_at = (SELECT c.at FROM changes AS c WHERE c.table_id = tables.id
                                  AND c.action IN ('add', 'finish') ORDER BY c.id DESC LIMIT 1),
                      ended_deals = (SELECT count(*) FROM deals AS d WHERE d.table_id = tables.id)
     WHERE id IN (SELECT table_id FROM results WHERE over = 1);
    """,
    # 12: only counted matches count (issue 43): a result says whether some night's leaderboard
    # counts its table (drawn, prepared, opened on the laptop or added: it has a number in its
    # night); the season, ratings and draws read those alone. A side table remembers the address
    # that opened it, so the hall can name a device that opened many.
    # (A database that passed migration 8 before it kept side_tables_since gets 0: its tables
    # without a number count only once added.)
    """
    CREATE TABLE IF NOT EXISTS side_tables_since (after_table INTEGER NOT NULL);
    INSERT INTO side_tables_since SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM side_tables_since);
    ALTER TABLE results ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;
    UPDATE results SET counted = 1 WHERE table_id IN (SELECT id FROM tables WHERE seq IS NOT NULL
                                                      OR id <= (SELECT max(after_table) FROM side_tables_since));
    ALTER TABLE tables ADD COLUMN opened_from TEXT;
    -- (issue 44) a round table the organiser left playing when the next round was drawn: its
    -- phones may change it as if its round were the latest, until the window after its end.
    ALTER TABLE round_tables ADD COLUMN left_playing INTEGER NOT NULL DEFAULT 0;
    -- (issue 44) a round clock the organiser paused: when (UTC); resuming moves clock_from on.
    ALTER TABLE night_rounds ADD COLUMN paused_at TEXT;
    -- (issue 44) a player sitting out one round (its number), or leaving after their match.
    ALTER TABLE night_players ADD COLUMN sit_out_round INTEGER;
    ALTER TABLE night_players ADD COLUMN leaving INTEGER NOT NULL DEFAULT 0;
    -- (issue 44) what tells the phones asking for one name apart: their browser and system.
    ALTER TABLE name_claims ADD COLUMN user_agent TEXT;
    -- (issue 44) the room's own tables, set once and kept for later nights: every draw seats at
    -- free ones, so a table's number is the room's, and a printed card opens what is played there.
    CREATE TABLE room_tables (id INTEGER PRIMARY KEY, position INTEGER NOT NULL, label TEXT NOT NULL);
    ALTER TABLE tables ADD COLUMN room_table INTEGER;
    -- a player who needs one table (mobility) keeps it for the night: every draw seats them there
    ALTER TABLE night_players ADD COLUMN room_table INTEGER;
    """,
    # 13: the hall's "Review each draw before it is shown" (issue 44), kept for later nights: a
    # round drawn with it on is held, shown on the hall only, until "Start round N".
    """
    CREATE TABLE hall_settings (id INTEGER PRIMARY KEY CHECK (id = 1), review_draws INTEGER NOT NULL DEFAULT 0,
                                confirm_deals INTEGER NOT NULL DEFAULT 1);
    ALTER TABLE night_rounds ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
    -- Two sides agree (issue 45): a deal a phone saved at a table that asks for confirmation
    -- waits for a phone of another seat: JSON {"by": device, "seats": [...], "at": UTC}, NULL
    -- once confirmed (or entered on the laptop). An undone confirmed deal waits the same way
    -- (tables.pending_undos, a JSON list). tables.confirm: whether the table asks (decided at
    -- its first deal from the hall's confirm_deals for the night's tables; a side table's seat
    -- may turn it on before); NULL until then.
    ALTER TABLE deals ADD COLUMN pending TEXT;
    ALTER TABLE tables ADD COLUMN pending_undos TEXT;
    ALTER TABLE tables ADD COLUMN confirm INTEGER;
    -- Another seat says "That's not right" and gives what they saw: open disputes, a JSON list
    -- of {"number", "facts", "by", "seats", "at"}, until the organiser settles each (the change
    -- log keeps every version with who said what).
    ALTER TABLE tables ADD COLUMN disputes TEXT;
    """,
    # 14: game requests (issue 47): a player's "I'd like to play / learn …" from their phone,
    # one at a time (the latest replaces it), until a draw meets it; and, per drawn round, the
    # requests it was given and which it met (``again``: the requester sits beside someone they
    # had shared a table with that night), for the hall's "3 of 4 requests met".
    """
    CREATE TABLE game_requests (player_id INTEGER PRIMARY KEY REFERENCES night_players(id),
                                game TEXT NOT NULL, learn INTEGER NOT NULL DEFAULT 0, asked_at TEXT NOT NULL);
    CREATE TABLE round_requests (round_id INTEGER NOT NULL REFERENCES night_rounds(id),
                                 player_id INTEGER NOT NULL REFERENCES night_players(id),
                                 game TEXT NOT NULL, learn INTEGER NOT NULL, met INTEGER NOT NULL,
                                 again INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (round_id, player_id));
    """,
    # 15: rolling tables (issue 47). The hall's settings for a night run as rolling tables (JSON:
    # the night it is for, the games on offer with their copies and minutes, the closing time,
    # the draw's options; NULL or another night's: rounds). A table with an open dispute frees its
    # players once settled, or once the organiser lets them go (released).
    """
    ALTER TABLE hall_settings ADD COLUMN rolling TEXT;
    ALTER TABLE round_tables ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


# SQLite's header field for "which program's file is this" ("TCmp"): set when we create a
# database, so another program's SQLite file given with --db is recognised and left alone.
APPLICATION_ID = 0x54436D70

# What schema 1 and later always have: a database written by a version from before
# APPLICATION_ID is recognised by these (and then stamped), never converted blindly.
OUR_TABLES = {"tables": {"id", "token", "game", "players", "options", "revision", "rematch_of"},
              "deals": {"table_id", "number", "facts"},
              "changes": {"table_id", "at", "action", "before", "after"}}


# Free space a start needs before SQLite touches the file. SQLite maps its shared-memory file
# (<db>-shm, 32 KB per 4,096 WAL frames) and writes into the mapping: on a full disk whose blocks
# are smaller than a memory page (ext4 on a small partition: 1 KB), the file it grew has holes, and
# writing into one kills the process with SIGBUS ("Fatal Python error: Bus error"). With this much
# room every block it may need is there; with less, the disk is full and the start says so.
START_ROOM = 1024 * 1024


def room_needed(path: str) -> int:
    """START_ROOM, plus the shared memory a write-ahead log left beside ``path`` needs."""
    try:
        wal = os.stat(path + "-wal").st_size
    except OSError:
        wal = 0
    return START_ROOM + 32 * 1024 * (wal // (4096 * 512) + 1)  # frames of 512-byte pages or more


def check_room(path: str) -> None:
    """Raise :class:`DiskFull` if the disk holding ``path`` has less room than a start needs."""
    try:
        free = shutil.disk_usage(Path(path).resolve().parent).free
    except OSError:
        return  # unknown: SQLite's own errors will tell
    if free < room_needed(path):
        raise DiskFull(f"The disk holding {path} is full ({free // 1024:,} KB free): Table Companion could not "
                       "open its database. Free some space on it (or use --db on another disk) and start "
                       "again; the file was left as it was.")


def migrate(path: str) -> int:
    """Create or upgrade the database at ``path``; returns the schema version. A postgresql://
    URL: the PostgreSQL backend's own migrations (postgres.MIGRATIONS)."""
    if postgres.is_postgres(path):
        connection.use_postgres()
        return postgres.migrate(path)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    if path != ":memory:":
        check_room(path)
    try:
        conn = connection.raw_connect(path)
        conn.create_function("name_key", 1, name_key, deterministic=True)  # migration 6 reads names
        try:
            # Read-only checks first: a file we refuse must be left byte-for-byte as it was
            # (switching to WAL rewrites the header, migrating writes pages).
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise DatabaseError(
                    f"{path} was written by a newer Table Companion (schema {version}, "
                    f"this one knows {SCHEMA_VERSION}). Upgrade, or use another --db file.")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise DatabaseError(f"{path} is damaged ({check}). It was left untouched; "
                                    "move it aside or start with another --db file.")
            if not is_ours(conn):
                raise DatabaseError(
                    f"{path} is another program's SQLite database, not Table Companion's. It was left "
                    "untouched; give --db a new file name (or a database Table Companion made).")
            conn.execute("PRAGMA journal_mode = WAL")
            if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for number in range(version, SCHEMA_VERSION):
                conn.execute("BEGIN IMMEDIATE")
                for statement in _statements(MIGRATIONS[number]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
                conn.execute("COMMIT")
            return SCHEMA_VERSION
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if disk_full(exc, path):
            raise DiskFull(f"The disk holding {path} is full: Table Companion could not "
                           "open its database. Free some space on it (or use --db on another disk) "
                           "and start again; the file was left as it was.") from exc
        raise DatabaseError(f"{path} is not a usable Table Companion database ({exc}). "
                            "It was left untouched; move it aside or use another --db file.") from exc


def disk_full(exc: sqlite3.Error, path: str) -> bool:
    """Whether SQLite failed because the disk is full: it says so (SQLITE_FULL), or an I/O
    error came while the disk holding ``path`` has no room left."""
    if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(exc):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        try:
            return shutil.disk_usage(Path(path).resolve().parent).free < 64 * 1024
        except OSError:
            return False
    return False


def is_ours(conn: sqlite3.Connection) -> bool:
    """Whether this database is Table Companion's: stamped with APPLICATION_ID, or an earlier
    version's (unstamped) with our schema, or a new empty file. Reads only."""
    stamp = conn.execute("PRAGMA application_id").fetchone()[0]
    if stamp == APPLICATION_ID:
        return True
    if stamp != 0:
        return False
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    if not names:
        return conn.execute("PRAGMA user_version").fetchone()[0] == 0  # a new, empty file
    if conn.execute("PRAGMA user_version").fetchone()[0] < 1 or not set(OUR_TABLES) <= names:
        return False
    for table, columns in OUR_TABLES.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not columns <= have:
            return False
    return True


def _statements(script: str) -> list[str]:
    """Split a migration into statements so they run inside one transaction
    (executescript would commit implicitly)."""
    parts, buffer = [], ""
    for line in script.splitlines():
        line = line.split("--", 1)[0]
        buffer += line + "\n"
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                parts.append(buffer.strip())
            buffer = ""
    return parts


