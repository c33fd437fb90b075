"""The PostgreSQL backend (``--db postgresql://user@host/dbname``): its connections, the small
SQL dialect layer that lets the store's hand-written statements run on it unchanged, its write
transaction, its errors mapped to the store's, its schema (forward migrations in its own
dialect) and the lock a server holds on it.

psycopg 3 is imported only here, and only when a postgresql:// database is used: a laptop on
SQLite installs and imports nothing new (``.venv/bin/pip install 'psycopg[binary]'`` adds it to a
clone's virtualenv; the ``postgres`` extra to an installed package).

What differs from SQLite, and how the store keeps the same behaviour:

- ``write(conn)``: SQLite's ``BEGIN IMMEDIATE`` serialises writers; here a write transaction
  (READ COMMITTED) first takes the database's writer lock (``pg_advisory_xact_lock``), held to
  its commit: one writer at a time across every worker and every laptop on the database, each
  reading what the previous one committed. Our own writers therefore never meet a
  serialization failure or a deadlock; one caused by something else (a tool run by hand) while
  the lock is being taken is retried there; during the change it rolls the change back as
  NotSaved, and the phone sends it again with the same write id (exactly once: ``writes``).
- Errors by SQLSTATE (:func:`translate`): 53100 disk full → StorageFull; the other 53
  (resources), 08 (connection), 57P0x (shut down), 40 (serialization, deadlock), 55P03 / 57014
  (lock or statement timeout), 25006 (read-only) and a connection lost → NotSaved; XX001/XX002
  (data corrupted) and the rest → StorageDamaged, as SQLite's non-operational errors are.
- No file to watch: ``StorageReplaced`` (SQLite's database file replaced under the server) has
  no counterpart; `companion restore` refuses while any server holds the database's lock.
"""

from __future__ import annotations

import functools
import re
import shlex
import sys
import time
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

from .errors import DatabaseAway, DatabaseError, NotSaved, StorageDamaged, StorageError, StorageFull

SCHEMES = ("postgresql://", "postgres://")

# pg_advisory locks are per database: (APPLICATION_ID, what).
LOCK_CLASS = 0x54436D70  # "TCmp", SQLite's application_id
WRITER_LOCK = 1  # held by each write transaction, to its commit
SERVER_LOCK = 2  # shared by every server on the database, exclusive for a restore
MIGRATION_LOCK = 3  # two laptops starting at once migrate one after the other

# Statements taking the writer lock that meet a deadlock or a lock timeout are tried again.
LOCK_TRIES = 5


def is_postgres(database: Any) -> bool:
    """Whether ``database`` (the app's DATABASE setting) names a PostgreSQL database."""
    return isinstance(database, str) and database.startswith(SCHEMES)


def without_password(url: str) -> str:
    """The URL with no password in it: what a printed command may say (libpq then reads the
    password from PGPASSWORD or ~/.pgpass, issue 46)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", "@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def shown(url: str) -> str:
    """The URL as printed (a password in it replaced by ***)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def psycopg():
    """The psycopg module, or a DatabaseError saying how to install it."""
    try:
        import psycopg as module
    except ImportError as exc:
        # Into the Python that runs this (a clone's .venv/bin/python): a plain `pip` may be another
        # Python's, and there is no table-companion on PyPI to take the extra from.
        raise DatabaseError("--db postgresql://… needs psycopg, which is not installed: install it into "
                            "this Table Companion's virtualenv: "
                            f"{shlex.quote(sys.executable)} -m pip install 'psycopg[binary]'") from exc
    return module


# --------------------------------------------------------------------------
# The dialect: the store's SQLite statements as PostgreSQL runs them

# Tables whose rows have an ``id`` an insert gives back (SQLite's ``cursor.lastrowid``).
ID_TABLES = {"tables", "changes", "nights", "night_players", "night_rounds", "players", "player_changes",
             "name_claims"}
# The key ``INSERT OR REPLACE`` replaces on.
REPLACE_KEYS = {"results": ("table_id",), "player_names": ("key",), "seat_assignments": ("table_id", "seat")}

_INSERT = re.compile(r"^\s*INSERT INTO (\w+)", re.S)
_INSERT_OR_REPLACE = re.compile(r"^\s*INSERT OR REPLACE INTO (\w+) \(([^)]*)\)(.*)$", re.S)
_LEFT_COLUMN = re.compile(r"\bleft\b(?!\s+JOIN)")  # night_players.left; LEFT is reserved in PostgreSQL
_GROUP_CONCAT = re.compile(r"group_concat\(([^,()]+), char\(10\)\)")


@functools.lru_cache(maxsize=512)
def dialect(sql: str, many: bool = False) -> tuple[str, bool]:
    """``sql`` as PostgreSQL takes it, and whether it returns the inserted row's id.
    The store's statements are few and fixed, so each is rewritten once."""
    sql = sql.replace("%", "%%").replace("?", "%s")
    sql = _LEFT_COLUMN.sub('"left"', sql)
    sql = _GROUP_CONCAT.sub(r"string_agg(\1, chr(10))", sql)
    replace = _INSERT_OR_REPLACE.match(sql)
    if replace:
        table, columns, rest = replace.groups()
        keys = REPLACE_KEYS[table]
        names = [c.strip() for c in columns.split(",")]
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in names if c not in keys)
        sql = (f"INSERT INTO {table} ({columns}){rest} ON CONFLICT ({', '.join(keys)}) "
               + (f"DO UPDATE SET {updates}" if updates else "DO NOTHING"))
    insert = _INSERT.match(sql)
    returning = bool(insert and insert.group(1) in ID_TABLES and not many)
    if returning:
        sql += " RETURNING id"
    return sql, returning


class Row(tuple):
    """A row read by column name or position, and ``dict(row)``, like ``sqlite3.Row``."""

    _index: dict[str, int]

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def _rows(cursor):
    description = cursor.description
    if description is None:
        return tuple
    index = {column.name: number for number, column in enumerate(description)}

    def make(values: Sequence[Any]) -> Row:
        row = Row(values)
        row._index = index
        return row

    return make


class Cursor:
    """What the store uses of a cursor: rows (fetchone, fetchall, iteration) and ``lastrowid``."""

    def __init__(self, cursor, returning: bool):
        self.cursor = cursor
        self.lastrowid = None
        if returning:
            self.lastrowid = cursor.fetchone()[0]

    def fetchone(self):
        return self.cursor.fetchone()

    def fetchall(self):
        return self.cursor.fetchall()

    def __iter__(self):
        return iter(self.cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return self.cursor.rowcount


class Connection:
    """A PostgreSQL connection that takes the store's statements as a ``sqlite3.Connection``
    does (``execute``, ``executemany``, ``in_transaction``, ``close``); autocommit between
    write transactions, as the SQLite connections are (``isolation_level=None``)."""

    identity = None  # no file (see connection.check_same_file)

    def __init__(self, url: str, raw):
        self.path = url
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        text, returning = dialect(sql)
        cursor = self.raw.cursor(row_factory=_rows)
        cursor.execute(text, tuple(params))
        return Cursor(cursor, returning)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        text, _ = dialect(sql, many=True)
        rows = [tuple(r) for r in rows]
        if rows:
            self.raw.cursor().executemany(text, rows)

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    @property
    def broken(self) -> bool:
        """Closed or lost: never lent again."""
        return self.raw.closed or self.raw.broken

    def rollback(self) -> None:
        self.raw.rollback()

    def close(self) -> None:
        self.raw.close()


def one_line(exc: BaseException) -> str:
    """psycopg's message as one line (libpq's spans two: "…failed: …\n\tIs the server running…?")."""
    return " ".join(str(exc).split()) or type(exc).__name__


def cannot_connect(url: str, exc: BaseException) -> DatabaseError:
    """What a command says when it can't connect to the database at ``url`` (issue 46: one line,
    never a traceback): stopped, a wrong password, out of connections."""
    return DatabaseError(f"could not connect to the PostgreSQL database {shown(url)} ({one_line(exc)}). Check that "
                         "the server runs, that the database exists (createdb NAME) and that this user may use it.")


def has_word(conn: Connection) -> bool:
    """Whether the server has written to this idle connection unasked (no LISTEN on a pooled one:
    it says FATAL before it ends a connection, at a restart or pg_terminate_backend). Costs no
    round trip: a look at the socket."""
    import select

    try:
        return bool(select.select([conn.raw.fileno()], [], [], 0)[0])
    except (OSError, ValueError, psycopg().Error):
        return True  # closed: asked, and found dead


def connect(url: str) -> Connection:
    """A new connection to the database at ``url`` (autocommit; statements prepared once
    they are used a few times, as psycopg does)."""
    module = psycopg()
    try:
        raw = module.connect(url, autocommit=True, connect_timeout=10)
    except module.Error as exc:
        raise translate(exc) from exc
    return Connection(url, raw)


def backend_errors() -> tuple[type[BaseException], ...]:
    return (psycopg().Error,)


def translate(exc: BaseException) -> StorageError:
    """The store's error for a psycopg error, by its SQLSTATE (the module's docstring)."""
    state = getattr(exc, "sqlstate", None) or ""
    module = psycopg()
    if state == "53100":
        return StorageFull(f"the PostgreSQL server's disk is full ({one_line(exc)})")
    if (state[:2] == "08" or state in ("57P01", "57P02", "57P03")
            or (not state and isinstance(exc, (module.OperationalError, module.InterfaceError)))):
        # The connection is gone or the server is shutting down or starting (issue 46).
        return DatabaseAway(one_line(exc))
    if (state[:2] in ("53", "40") or state.startswith("57P") or state in ("55P03", "57014", "25006")):
        return NotSaved(one_line(exc))
    return StorageDamaged(one_line(exc))


BEGIN_WRITE = (f"BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({LOCK_CLASS}, {WRITER_LOCK})")


@contextmanager
def write(conn: Connection) -> Iterator[Connection]:
    """One write transaction holding the database's writer lock (see the module's docstring)."""
    module = psycopg()
    try:
        for attempt in range(LOCK_TRIES):
            try:
                conn.raw.execute(BEGIN_WRITE)  # one round trip: both statements at once
                break
            except (module.errors.DeadlockDetected, module.errors.LockNotAvailable,
                    module.errors.SerializationFailure):
                conn.raw.execute("ROLLBACK")
                if attempt == LOCK_TRIES - 1:
                    raise
                time.sleep(0.01 * (attempt + 1))
        try:
            yield conn
        except BaseException:
            if not conn.broken and conn.in_transaction:
                conn.raw.execute("ROLLBACK")
            raise
        conn.raw.execute("COMMIT")
    except module.Error as exc:
        raise translate(exc) from exc


# --------------------------------------------------------------------------
# The schema

# Each entry moves the schema one version forward, as schema.MIGRATIONS does for SQLite: never
# edit a released one. Version 1 is SQLite's schema 8 (every table as it is there), in this
# dialect: ids are identities, JSON stays the store's own text (it is written and read only by
# the store, compact and with sorted keys, never queried inside), flags stay 0/1 integers.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE tables (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        token text NOT NULL UNIQUE,
        game text NOT NULL,
        players text NOT NULL,
        options text NOT NULL,
        finished integer NOT NULL DEFAULT 0,
        revision integer NOT NULL DEFAULT 0,
        rematch_of integer REFERENCES tables(id),
        created_at text NOT NULL,
        updated_at text NOT NULL,
        label text,
        seq integer,
        seated integer NOT NULL DEFAULT 1,
        ended_at_time integer NOT NULL DEFAULT 0
    );
    CREATE INDEX tables_by_rematch ON tables(rematch_of);
    CREATE TABLE deals (
        table_id integer NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        number integer NOT NULL,
        facts text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (table_id, number)
    );
    CREATE TABLE changes (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        table_id integer NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        at text NOT NULL,
        action text NOT NULL,
        number integer,
        before text,
        after text
    );
    CREATE INDEX changes_by_table ON changes(table_id, id);
    CREATE TABLE nights (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        started_at text NOT NULL,
        after_table integer NOT NULL
    );
    CREATE TABLE writes (
        table_id integer NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        write_id text NOT NULL,
        outcome text NOT NULL,
        at text NOT NULL,
        PRIMARY KEY (table_id, write_id)
    );
    CREATE TABLE night_players (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        night integer NOT NULL,
        name text NOT NULL,
        key text NOT NULL,
        added_at text NOT NULL,
        "left" integer NOT NULL DEFAULT 0,
        version integer NOT NULL DEFAULT 0,
        owner text,
        joined_from text,
        UNIQUE (night, key)
    );
    CREATE TABLE night_rounds (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        night integer NOT NULL,
        number integer NOT NULL,
        drawn_at text NOT NULL,
        seed text NOT NULL,
        minutes integer,
        clock_from text,
        version integer NOT NULL DEFAULT 0,
        UNIQUE (night, number)
    );
    CREATE TABLE round_tables (
        round_id integer NOT NULL REFERENCES night_rounds(id),
        table_id integer NOT NULL UNIQUE REFERENCES tables(id),
        number integer NOT NULL,
        extra_minutes integer NOT NULL DEFAULT 0,
        time_called text,
        PRIMARY KEY (round_id, number)
    );
    CREATE TABLE round_seats (
        table_id integer NOT NULL REFERENCES tables(id),
        seat integer NOT NULL,
        player_id integer NOT NULL REFERENCES night_players(id),
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX round_seats_by_player ON round_seats(player_id);
    CREATE TABLE players (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name text NOT NULL,
        key text NOT NULL,
        added_at text NOT NULL
    );
    CREATE INDEX players_by_key ON players(key);
    CREATE TABLE player_names (
        key text PRIMARY KEY,
        player_id integer NOT NULL REFERENCES players(id)
    );
    CREATE INDEX player_names_by_player ON player_names(player_id);
    CREATE TABLE seat_assignments (
        table_id integer NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat integer NOT NULL,
        player_id integer NOT NULL REFERENCES players(id),
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE results (
        table_id integer PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,
        revision integer NOT NULL,
        finished integer NOT NULL,
        over integer NOT NULL,
        night text NOT NULL,
        at text NOT NULL,
        game text NOT NULL,
        label text NOT NULL,
        data text NOT NULL,
        at_time integer NOT NULL DEFAULT 0
    );
    CREATE TABLE player_changes (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        at text NOT NULL,
        action text NOT NULL,
        detail text NOT NULL
    );
    CREATE TABLE name_claims (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        player_id integer NOT NULL REFERENCES night_players(id),
        device text NOT NULL,
        address text,
        asked_at text NOT NULL,
        state text NOT NULL DEFAULT 'waiting'
    );
    CREATE INDEX name_claims_by_device ON name_claims(device);
    -- The app's secret (sessions, form tokens) lives with the data, so that every laptop serving
    -- the database signs alike: a phone's session and forms are good on each (SQLite: a file).
    CREATE TABLE companion_secret (
        id integer PRIMARY KEY CHECK (id = 1),
        secret text NOT NULL
    );
    """,
    # 2 (SQLite's 9): how a round was drawn (JSON, NULL before).
    """
    ALTER TABLE night_rounds ADD COLUMN draw text;
    """,
    # 3 (SQLite's 10): the season's version, moved by the writes that change what it shows.
    """
    CREATE TABLE season (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL,
                         ratings_for_everyone integer NOT NULL DEFAULT 0);
    INSERT INTO season (id, version) VALUES (1, 0);
    """,
    # 4 (SQLite's 11): a match's finishing moment, and the deals it ended with.
    """
    ALTER TABLE tables ADD COLUMN ended_at text;
    ALTER TABLE tables ADD COLUMN ended_deals integer;
    ALTER TABLE night_players ADD COLUMN taken_from text;
    UPDATE tables SET ended_at = (SELECT c.at FROM changes AS c WHERE c.table_id = tables.id
                                  AND c.action IN ('add', 'finish') ORDER BY c.id DESC LIMIT 1),
                      ended_deals = (SELECT count(*) FROM deals AS d WHERE d.table_id = tables.id)
     WHERE id IN (SELECT table_id FROM results WHERE over = 1);
    """,
    # 5 (SQLite's 12): whether a result counts, and the address that opened a side table.
    """
    CREATE TABLE side_tables_since (after_table integer NOT NULL);
    INSERT INTO side_tables_since VALUES (0);
    ALTER TABLE results ADD COLUMN counted integer NOT NULL DEFAULT 0;
    UPDATE results SET counted = 1 WHERE table_id IN (SELECT id FROM tables WHERE seq IS NOT NULL);
    ALTER TABLE tables ADD COLUMN opened_from text;
    ALTER TABLE round_tables ADD COLUMN left_playing integer NOT NULL DEFAULT 0;
    ALTER TABLE night_rounds ADD COLUMN paused_at text;
    ALTER TABLE night_players ADD COLUMN sit_out_round integer;
    ALTER TABLE night_players ADD COLUMN leaving integer NOT NULL DEFAULT 0;
    ALTER TABLE name_claims ADD COLUMN user_agent text;
    CREATE TABLE room_tables (id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, position integer NOT NULL,
                              label text NOT NULL);
    ALTER TABLE tables ADD COLUMN room_table integer;
    ALTER TABLE night_players ADD COLUMN room_table integer;
    """,
    # 6 (SQLite's 13): the hall's "Review each draw before it is shown", and a round held for it.
    """
    CREATE TABLE hall_settings (id integer PRIMARY KEY CHECK (id = 1), review_draws integer NOT NULL DEFAULT 0,
                                confirm_deals integer NOT NULL DEFAULT 1);
    ALTER TABLE night_rounds ADD COLUMN held integer NOT NULL DEFAULT 0;
    -- and deals waiting for another seat's confirmation (issue 45)
    ALTER TABLE deals ADD COLUMN pending text;
    ALTER TABLE tables ADD COLUMN pending_undos text;
    ALTER TABLE tables ADD COLUMN confirm integer;
    ALTER TABLE tables ADD COLUMN disputes text;
    """,
    # 7 (SQLite's 14): game requests (issue 47), and which of them each drawn round met.
    """
    CREATE TABLE game_requests (player_id integer PRIMARY KEY REFERENCES night_players(id),
                                game text NOT NULL, learn integer NOT NULL DEFAULT 0, asked_at text NOT NULL);
    CREATE TABLE round_requests (round_id integer NOT NULL REFERENCES night_rounds(id),
                                 player_id integer NOT NULL REFERENCES night_players(id),
                                 game text NOT NULL, learn integer NOT NULL, met integer NOT NULL,
                                 again integer NOT NULL DEFAULT 0, PRIMARY KEY (round_id, player_id));
    """,
    # 8 (SQLite's 15): rolling tables (issue 47): the hall's rolling settings, a table let go.
    """
    ALTER TABLE hall_settings ADD COLUMN rolling text;
    ALTER TABLE round_tables ADD COLUMN released integer NOT NULL DEFAULT 0;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)

# Where the schema's version is kept (SQLite's PRAGMA user_version), with the program's mark
# (SQLite's application_id): a database holding other tables but not this one is not ours.
VERSION_TABLE = "companion_schema"


def _version(raw) -> int | None:
    """The schema version stored in the database, or None if it has no version table."""
    found = raw.execute("SELECT to_regclass(%s)", (VERSION_TABLE,)).fetchone()[0]
    if found is None:
        return None
    row = raw.execute(f"SELECT version FROM {VERSION_TABLE} WHERE application_id = %s", (LOCK_CLASS,)).fetchone()
    return None if row is None else row[0]


def _other_tables(raw) -> list[str]:
    return [r[0] for r in raw.execute("SELECT table_name FROM information_schema.tables"
                                      " WHERE table_schema = current_schema() AND table_name != %s",
                                      (VERSION_TABLE,)).fetchall()]


def migrate(url: str) -> int:
    """Create or upgrade the database at ``url``; returns the schema version. Raises
    DatabaseError (DiskFull) with what to do, as SQLite's migrate does."""
    module = psycopg()
    where = shown(url)
    try:
        raw = module.connect(url, autocommit=True, connect_timeout=10)
    except module.Error as exc:
        raise cannot_connect(url, exc) from exc
    try:
        raw.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, MIGRATION_LOCK))
        version = _version(raw)
        if version is None:
            if _other_tables(raw):
                raise DatabaseError(f"{where} holds another program's tables, not Table Companion's. It was left "
                                    "untouched; give --db a new database (createdb NAME).")
            version = 0
        if version > SCHEMA_VERSION:
            raise DatabaseError(f"{where} was written by a newer Table Companion (schema {version}, this one "
                                f"knows {SCHEMA_VERSION}). Upgrade, or use another database.")
        for number in range(version, SCHEMA_VERSION):
            with raw.transaction():
                if number == 0:
                    raw.execute(f"CREATE TABLE {VERSION_TABLE} (application_id bigint PRIMARY KEY,"
                                " version integer NOT NULL)")
                    raw.execute(f"INSERT INTO {VERSION_TABLE} VALUES (%s, 0)", (LOCK_CLASS,))
                raw.execute(MIGRATIONS[number])
                raw.execute(f"UPDATE {VERSION_TABLE} SET version = %s WHERE application_id = %s",
                            (number + 1, LOCK_CLASS))
        return SCHEMA_VERSION
    except module.Error as exc:
        if getattr(exc, "sqlstate", None) == "53100":
            from .errors import DiskFull

            raise DiskFull(f"The PostgreSQL server's disk is full: Table Companion could not prepare {where}. "
                           "Free some space there and start again; nothing was changed.") from exc
        raise DatabaseError(f"{where} is not a usable Table Companion database ({one_line(exc)}). "
                            "Nothing was changed; use another database.") from exc
    finally:
        raw.close()


def shared_secret(url: str) -> str:
    """The app's secret kept in the (migrated) database at ``url``, made by the first server."""
    import secrets

    conn = connect(url)
    try:
        conn.raw.execute("INSERT INTO companion_secret (id, secret) VALUES (1, %s) ON CONFLICT (id) DO NOTHING",
                         (secrets.token_hex(32),))
        return conn.raw.execute("SELECT secret FROM companion_secret WHERE id = 1").fetchone()[0]
    except psycopg().Error as exc:
        raise translate(exc) from exc
    finally:
        conn.close()


def is_ours(url: str) -> bool:
    """Whether the database at ``url`` is Table Companion's with a schema (reads only); a
    DatabaseError if it can't be reached (not answering is not "another program's")."""
    module = psycopg()
    try:
        raw = module.connect(url, autocommit=True, connect_timeout=10)
    except module.Error as exc:
        raise cannot_connect(url, exc) from exc
    try:
        with raw:
            return bool(_version(raw))
    except module.Error:
        return False


def counts(url: str) -> tuple[int, int]:
    """(tables, deals) stored in the database at ``url``."""
    conn = connect(url)
    try:
        return tuple(conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]  # type: ignore[return-value]
                     for name in ("tables", "deals"))
    except psycopg().Error as exc:
        raise translate(exc) from exc
    finally:
        conn.close()


class ServerLock:
    """`companion serve`'s hold on a PostgreSQL database (backup.ServerLock's counterpart): a
    shared session lock (every server on the database holds it, on as many laptops as serve
    one night), released when the server's connection ends, even on kill -9. `companion
    restore` takes it exclusively, so it never replaces the data under a running server."""

    def __init__(self, url: str, *, exclusive: bool = False):
        self.url = url
        self.exclusive = exclusive
        self.raw = None

    def acquire(self) -> bool:
        module = psycopg()
        try:
            raw = module.connect(self.url, autocommit=True, connect_timeout=10)
        except module.Error as exc:
            raise cannot_connect(self.url, exc) from exc
        how = "pg_try_advisory_lock" if self.exclusive else "pg_try_advisory_lock_shared"
        if not raw.execute(f"SELECT {how}(%s, %s)", (LOCK_CLASS, SERVER_LOCK)).fetchone()[0]:
            raw.close()
            return False
        self.raw = raw
        return True

    def release(self) -> None:
        if self.raw is not None:
            self.raw.close()
            self.raw = None

    def __enter__(self) -> "ServerLock":
        return self

    def __exit__(self, *_exc) -> None:
        self.release()


# --------------------------------------------------------------------------
# Backups: pg_dump and pg_restore (SQLite's backup API's counterparts)


def program(name: str) -> str:
    """PostgreSQL's own ``name`` (pg_dump, pg_restore): on the PATH, else Debian's newest."""
    import glob
    import shutil

    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True):
        candidate = f"{folder}/{name}"
        if shutil.os.access(candidate, shutil.os.X_OK):
            return candidate
    raise DatabaseError(f"{name} is not installed: it comes with PostgreSQL's client programs "
                        "(Debian: apt-get install postgresql-client).")


def _run(argv: list[str], what: str) -> None:
    import subprocess

    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        raise DatabaseError(f"{what} failed: {(result.stderr or result.stdout).strip()}")


def dump(url: str, target) -> None:
    """A consistent copy of the database at ``url`` (pg_dump's custom format: one snapshot,
    safe while servers write), written beside ``target`` and renamed into place."""
    import os
    from pathlib import Path

    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        _run([program("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}",
              f"--dbname={url}"], f"pg_dump of {shown(url)}")
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)


def is_our_dump(path) -> bool:
    """Whether ``path`` is a pg_dump of a Table Companion database (it holds our schema table)."""
    import subprocess

    result = subprocess.run([program("pg_restore"), "--list", str(path)], capture_output=True, text=True)
    ours = re.compile(rf" TABLE \S+ {VERSION_TABLE}\b")
    return result.returncode == 0 and any(ours.search(line) for line in result.stdout.splitlines())


def restore(backup, url: str):
    """Put the dump ``backup`` in place of the data at ``url``, in one transaction (all or
    nothing): refused while a server holds the database or if the dump is not ours. The data it
    replaces is dumped first beside the backup (``<name>.before-restore-<time>.dump``, returned)."""
    from datetime import datetime
    from pathlib import Path

    backup = Path(backup).resolve()
    if not backup.is_file():
        raise DatabaseError(f"no backup at {backup}.")
    if not is_our_dump(backup):
        raise DatabaseError(f"{backup} is not a backup of a Table Companion PostgreSQL database "
                            "(companion backup makes one); nothing was changed.")
    lock = ServerLock(url, exclusive=True)
    if not lock.acquire():
        raise DatabaseError(f"a Table Companion server is running on {shown(url)}: stop every server on it first "
                            "(Ctrl+C), then restore, then start them again. Nothing was changed.")
    with lock:
        kept = None
        if is_ours(url):
            kept = backup.with_name(f"{backup.stem}.before-restore-{datetime.now():%Y%m%d-%H%M%S}.dump")
            dump(url, kept)  # the scores being replaced, never lost
        _run([program("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges",
              "--single-transaction", "--exit-on-error", f"--dbname={url}", str(backup)],
             f"pg_restore into {shown(url)}")
    return kept


# --------------------------------------------------------------------------
# Changes between servers: LISTEN/NOTIFY behind companion/changes.py's publish/subscribe seam

CHANNEL = "companion_changes"


class ChangeRelay:
    """Carries each change published in this process to every other process serving the same
    database (another worker, another laptop), and theirs to this one's listeners: ``send`` is
    ``changes.relay_through``'s, ``start(deliver)`` listens on its own connection (a thread,
    a greenlet under gevent) and calls ``deliver(change)`` for the others' changes, never for
    its own. A lost connection is opened again after a second; the changes made meanwhile were
    never heard, so once it is back ``deliver`` gets ``Change(EVERYTHING)``: each listener asks
    the store again (the streams' tables, the night's pages)."""

    def __init__(self, url: str):
        import os
        import secrets
        import threading

        self.url = url
        self.origin = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.sender = None
        self.lock = threading.Lock()
        self.stopped = False
        self.ready = threading.Event()
        self.listening = False  # its LISTEN connection is up now (/readyz, issue 46)
        self.reconnects = 0  # for tests

    def send(self, change) -> None:
        import json

        payload = json.dumps([self.origin, change.kind, change.key, change.revision], separators=(",", ":"))
        module = psycopg()
        with self.lock:
            # A sending connection PostgreSQL dropped (terminated, restarted in a quiet moment) is
            # known only when used: the change goes again on a new one, or the other laptops'
            # phones would never hear of it (issue 46). A second failure is the database's.
            for attempt in (1, 2):
                try:
                    if self.sender is None or self.sender.closed or self.sender.broken:
                        self.sender = module.connect(self.url, autocommit=True, connect_timeout=10)
                    self.sender.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                    return
                except module.Error as exc:
                    if self.sender is not None:
                        self.sender.close()
                    self.sender = None
                    if attempt == 2:  # the database is away: one line, never a traceback (issue 46);
                        # the other servers' listeners lost their connection too, and ask again once back
                        import logging

                        logging.getLogger("companion.changes").warning(
                            "could not tell the other servers of a change (%s)", one_line(exc))

    def start(self, deliver) -> None:
        import threading

        threading.Thread(target=self._listen, args=(deliver,), name="change-relay", daemon=True).start()

    def _listen(self, deliver) -> None:
        import json
        import logging

        from ..changes import EVERYTHING, Change

        module = psycopg()
        while not self.stopped:
            try:
                with module.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    if self.ready.is_set():  # back after a loss: what was missed meanwhile
                        self.reconnects += 1
                        deliver(Change(EVERYTHING))
                    self.ready.set()
                    self.listening = True
                    while not self.stopped:
                        for note in conn.notifies(timeout=1.0):  # a second at most: stop() is heard
                            origin, kind, key, revision = json.loads(note.payload)
                            if origin != self.origin:
                                deliver(Change(kind, key, revision))
            except module.Error:
                self.listening = False
                if not self.stopped:
                    logging.getLogger("companion.changes").warning("lost the change relay's connection; again in 1 s")
            except Exception:  # noqa: BLE001  (a bad payload must not end the relay)
                logging.getLogger("companion.changes").exception("change relay")
            if not self.stopped:
                time.sleep(1)

    def stop(self) -> None:
        self.stopped = True
        with self.lock:
            if self.sender is not None:
                self.sender.close()
                self.sender = None
