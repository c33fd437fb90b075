"""SQLite connections: opening one, the pool that lends them per request, and the write
transaction. The only place besides the other store modules that imports ``sqlite3``.

Under `companion serve` (gevent) a write transaction runs to its end without yielding, and a
connection is lent per running request, not per greenlet (see ConnectionPool).
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar
from urllib.parse import quote

from . import postgres
from .errors import DatabaseBusy, NotSaved, StorageDamaged, StorageError, StorageFull, StorageReplaced


class Connection(sqlite3.Connection):
    """A connection that remembers which file it opened (``path``, and the file's identity
    ``(st_dev, st_ino)`` when it was opened): a write checks the file is still the one at the
    path before it is answered as saved."""

    path: str = ""
    identity: tuple[int, int] | None = None


def file_identity(path: str) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the file at ``path``; None if there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def file_state(path: str) -> tuple[int, ...] | None:
    """The file at ``path`` as the OS last saw it written: (device, inode, size, mtime, ctime in
    nanoseconds); None if there is none. A file copied over it (``cp``: the same inode) changes
    its size, mtime or ctime; SQLite writes the database file itself only when it checkpoints."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class FileWatch:
    """What this process knows of its database file, to notice another file put in its place
    however it was done: moved over it (another inode), or copied over it (the same inode, new
    bytes; the old WAL read against them damages it). A write transaction commits only if the
    file is as this process last left it (:attr:`state`, taken after each of its own commits,
    under :attr:`lock`); once it is not, :attr:`replaced` says why, for good: no connection is
    lent, none is closed (SQLite's checkpoint on close would write the old WAL into the newcomer)
    and nothing is written until the server restarts.

    :attr:`anchor`, one connection held open and idle for as long as the watch lives, keeps
    another process's SQLite (a `companion backup`, the sqlite3 shell) from being the database's
    last connection: the last one to close checkpoints into the file, which would look like a
    replacement."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.RLock()
        self.replaced: str | None = None
        self.anchor: Connection | None = None
        self.in_wal = False  # in WAL mode a commit writes only the log; else the file itself
        self.commits = 0
        try:
            self.anchor = raw_connect(path, create=False)
            self.anchor.execute("SELECT count(*) FROM sqlite_master").fetchall()  # holds SQLite's shared lock
            self.in_wal = self.anchor.execute("PRAGMA journal_mode").fetchall()[0][0] == "wal"
        except sqlite3.Error:
            if self.anchor is not None:
                self.anchor.close()
            self.anchor = None
        self.state = file_state(path)

    def changed(self) -> bool:
        """Whether the file is no longer as this process left it (remembered for good)."""
        if self.replaced is None:
            now = file_state(self.path)
            if now != self.state:
                what = ("deleted" if now is None else "replaced by another file" if now[:2] != self.state[:2]
                        else "overwritten by another program (a copy put over it?)") if self.state else "changed"
                self.replaced = f"the database file {self.path} was {what} while the server was running"
                self.set_log_aside()
        return self.replaced is not None

    def set_log_aside(self) -> None:
        """Move this process's write-ahead log away from the file that took the database's place:
        read against it (by the next start, or a checkpoint) it would write our pages into a
        file that is not ours. It is kept, renamed, with whatever it held."""
        log = self.path + "-wal"
        try:
            if os.path.exists(log):
                os.replace(log, f"{log}.of-replaced-file-{os.getpid()}")
        except OSError:  # Windows can't rename an open file: SQLite's own checks remain
            pass

    def check(self) -> None:
        """Raise :class:`StorageReplaced` if the file is not as this process left it."""
        if self.changed():
            raise StorageReplaced(self.replaced)

    def settled(self) -> None:
        """This process wrote the file (a commit, maybe with its checkpoint): as it is now is ours."""
        self.state = file_state(self.path)

    def close(self) -> None:
        if self.anchor is not None and self.replaced is None:
            self.anchor.close()
        self.anchor = None


# SQLite's own autocheckpoint runs at 1,000 pages of log; a change writes a few pages.
CHECKPOINT_EVERY = 100  # commits

# The watched database files (one for `companion serve`; tests make many apps, so only the
# most recent few are kept, each holding its anchor connection).
WATCHED = 8
watches: dict[str, FileWatch] = {}
_watch_lock = threading.Lock()


def watch(path: str) -> FileWatch:
    """Start watching the database file at ``path`` as it is now (after its migration)."""
    new = FileWatch(path)
    with _watch_lock:
        old = watches.pop(path, None)
        watches[path] = new
        while len(watches) > WATCHED:
            watches.pop(next(iter(watches))).close()
    if old is not None:
        old.close()
    return new


def replaced_at_stop() -> str | None:
    """At the end of serving: why a watched database is not the file this process wrote (then
    its connections must not be closed: the process ends without closing them), or None."""
    for watched in list(watches.values()):
        if watched.changed():
            return watched.replaced
    return None


# Connections never closed: they belong to a file found replaced (see FileWatch).
_kept_open: list[sqlite3.Connection] = []


def _open(path: str, create: bool) -> Connection:
    if create or path == ":memory:":
        conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False, factory=Connection)
    else:
        # Never create: if the file was deleted while serving, a new empty database must not
        # silently take its place (its first write would look saved, then every table is gone).
        uri = "file:" + quote(os.path.abspath(path)) + "?mode=rw"
        conn = sqlite3.connect(uri, timeout=10, isolation_level=None, check_same_thread=False,
                               factory=Connection, uri=True)
    return conn


def raw_connect(path: str, *, create: bool = True) -> Connection:
    """``connect`` without the error translation (migrations want SQLite's own errors)."""
    conn = _open(path, create)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    # In WAL mode NORMAL keeps every committed deal through a crash or kill -9 of the
    # server; only an OS crash or power cut could lose the last commit. FULL would
    # fsync on every deal and triple an entry's latency on a laptop disk.
    conn.execute("PRAGMA synchronous = NORMAL")
    if path in watches:
        # A watched file is checkpointed by write() only, between its checks (FileWatch): a
        # commit then never writes the database file itself.
        conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.path = path
    conn.identity = None if path == ":memory:" else file_identity(path)
    return conn


def connect(path: str, *, create: bool = True) -> Connection:
    """Open ``path`` with our settings. ``create=False`` (the pool's way) refuses a missing
    file with :class:`StorageReplaced` instead of making a new empty one. A postgresql:// URL
    opens the PostgreSQL backend's connection (companion/store/postgres.py)."""
    if postgres.is_postgres(path):
        use_postgres()
        return postgres.connect(path)
    try:
        return raw_connect(path, create=create)
    except sqlite3.Error as exc:
        if not create and file_identity(path) is None:
            raise StorageReplaced(f"the database file {path} is gone (deleted or moved away)") from exc
        raise translate(exc) from exc


# The backend's own error class: callers never catch it by name (a second backend has another);
# the app registers it only as a last safety net, turned into a store error by ``translate``.
BackendError = sqlite3.Error


def backend_errors() -> tuple[type[BaseException], ...]:
    """The backends' own error classes: SQLite's, and psycopg's once PostgreSQL is in use."""
    return _BACKEND_ERRORS


_BACKEND_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error,)


def use_postgres() -> None:
    """PostgreSQL is in use in this process: its errors are translated too."""
    global _BACKEND_ERRORS
    if len(_BACKEND_ERRORS) == 1:
        _BACKEND_ERRORS = (sqlite3.Error, *postgres.backend_errors())


def translate(exc: BaseException) -> StorageError:
    """The store's error for a backend error: full, not saved (locked, read-only, I/O), damaged."""
    if not isinstance(exc, sqlite3.Error):
        return postgres.translate(exc)
    if isinstance(exc, sqlite3.OperationalError):
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(exc):
            return StorageFull(str(exc))
        return NotSaved(str(exc))
    return StorageDamaged(str(exc))


F = TypeVar("F", bound=Callable)


def translated(function: F) -> F:
    """Decorator for every public store function: backend errors leave it as store errors."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except _BACKEND_ERRORS as exc:
            raise translate(exc) from exc

    return wrapper  # type: ignore[return-value]


@translated
def ping(conn: sqlite3.Connection) -> None:
    """The database answers (``/readyz``, issue 46); a store error if it does not."""
    conn.execute("SELECT 1").fetchone()


def check_same_file(conn: sqlite3.Connection) -> None:
    """Raise :class:`StorageReplaced` if the file this connection writes is no longer the
    file at its path (deleted, or another file moved or copied into its place)."""
    identity = getattr(conn, "identity", None)
    if identity is None:
        return
    now = file_identity(conn.path)
    if now != identity:
        what = "deleted" if now is None else "replaced by another file"
        raise StorageReplaced(f"the database file {conn.path} was {what} while the server was running")


@contextmanager
def _erasing(conn: sqlite3.Connection) -> Iterator[None]:
    """SQLite's secure_delete on this connection while inside (it is a pooled connection)."""
    conn.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        conn.execute("PRAGMA secure_delete = OFF")


@contextmanager
def write(conn: sqlite3.Connection, erase: bool = False) -> Iterator[sqlite3.Connection]:
    """One write transaction; the immediate lock serialises concurrent writers. Before it
    commits, the file is checked to still be the one at the database path: a change is never
    answered as saved into a deleted or replaced file. (PostgreSQL: postgres.write.)

    ``erase`` (a player forgotten, issue 43): what the change overwrites or removes is erased
    from the file too (SQLite's ``secure_delete``: zeros, not the old bytes), and the
    write-ahead log, which holds pages as they were, is emptied into the file once committed,
    so a copy of the file made afterwards holds none of it. (PostgreSQL keeps old rows until
    its vacuum, and a dump never has them.)"""
    if isinstance(conn, postgres.Connection):
        with postgres.write(conn):
            yield conn
        return
    if erase:
        with _erasing(conn):
            with write(conn) as same:
                yield same
            watched = watches.get(getattr(conn, "path", ""))
            try:
                if watched is None:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                else:
                    with watched.lock:  # as write's own checkpoint: the file as it is then is ours
                        watched.check()
                        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                        watched.settled()
            except sqlite3.Error as exc:
                raise translate(exc) from exc
        return
    watched = watches.get(getattr(conn, "path", ""))
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            if watched is None:
                check_same_file(conn)
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back already (disk full)
                conn.execute("ROLLBACK")
            raise
        if watched is None:
            conn.execute("COMMIT")
        else:
            # The check and the commit (with the checkpoint that may follow it) as one step: the
            # file is as this process left it, and what the commit writes into it is ours again.
            with watched.lock:
                try:
                    watched.check()
                except StorageReplaced:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                watched.commits += 1
                if not watched.in_wal:
                    watched.settled()
                elif watched.commits % CHECKPOINT_EVERY == 0:  # as SQLite's autocheckpoint would
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    watched.settled()
    except sqlite3.Error as exc:
        raise translate(exc) from exc


class ConnectionPool:
    """Open connections kept between requests: opening SQLite costs more than the question
    most requests ask ("has the table changed?"). One is lent per request running at once,
    not one per thread: under `companion serve` (gevent) every held connection is a greenlet
    "thread", and a connection (with its page cache) per phone would grow without bound.

    ``borrow(path)`` / ``give_back(path, conn)``; or ``with pool.lend(path) as conn``. A
    connection whose file was deleted or replaced is closed, never lent again; and a new one
    is opened only on the file the pool first opened at that path (``expect`` sets it, after
    a migration): a file put in its place while serving (a backup moved over it, beside the
    old file's WAL) is refused with :class:`StorageReplaced` until the server restarts."""

    # A PostgreSQL server has a fixed number of connections for every laptop, worker and `companion
    # backup` on it (max_connections, 100 by default): this process holds at most LIMIT of them at
    # once, lent or idle (issue 46: 8 addresses asking a laptop's live URLs held 99 of 100). A
    # request finding them all lent waits up to WAIT_S for one, then is refused as busy.
    LIMIT = 8
    WAIT_S = 5.0

    def __init__(self, keep: int = 8, limit: int | None = None):
        self.keep = keep
        self.limit = limit or self.LIMIT
        self.idle: list[tuple[str, sqlite3.Connection]] = []
        self.since: dict[int, float] = {}  # id(conn) -> when it was given back (PostgreSQL's are checked)
        self.expected: dict[str, tuple[int, int] | None] = {}
        self.lock = threading.Lock()
        self.freed = threading.Condition(self.lock)  # a PostgreSQL connection was given back
        self.lent_postgres = 0  # PostgreSQL connections lent now (with the idle ones: at most ``limit``)

    def expect(self, path: str, identity: tuple[int, int] | None = None) -> None:
        """The file at ``path`` now is the database (its identity, or the current file's): it is
        watched from now on (:class:`FileWatch`)."""
        with self.lock:
            self.expected[path] = identity or file_identity(path)
        if path != ":memory:" and identity is None and not postgres.is_postgres(path):
            watch(path)

    def borrow(self, path: str) -> sqlite3.Connection:
        if postgres.is_postgres(path):
            self.take_turn()
            try:
                return self._borrow(path)
            except BaseException:
                self.end_turn()
                raise
        return self._borrow(path)

    def take_turn(self) -> None:
        """Wait (at most WAIT_S) until this process may hold one more PostgreSQL connection."""
        with self.freed:
            if not self.freed.wait_for(lambda: self.lent_postgres < self.limit, timeout=self.WAIT_S):
                raise DatabaseBusy(f"all {self.limit} of this process's connections to the database were in use "
                                   f"for {self.WAIT_S:g} s")
            self.lent_postgres += 1

    def end_turn(self) -> None:
        with self.freed:
            self.lent_postgres -= 1
            self.freed.notify()

    def _borrow(self, path: str) -> sqlite3.Connection:
        watched = watches.get(path)
        if watched is not None:
            watched.check()  # before any connection reads (or, closing, writes) a file not ours
        while True:
            with self.lock:
                if not self.idle:
                    break
                held_path, conn = self.idle.pop()
                since = self.since.pop(id(conn), None)
            if held_path != path:
                self.close(held_path, conn)
            elif self.alive(path, conn, since):
                return conn
        conn = connect(path, create=False)
        with self.lock:
            expected = self.expected.setdefault(path, conn.identity)
        if conn.identity is not None and expected is not None and conn.identity != expected:
            conn.close()
            raise StorageReplaced(f"the database file {path} was replaced by another file while the server "
                                  "was running")
        return conn

    def give_back(self, path: str, conn: sqlite3.Connection) -> None:
        try:
            self._give_back(path, conn)
        finally:
            if postgres.is_postgres(path):
                self.end_turn()

    def _give_back(self, path: str, conn: sqlite3.Connection) -> None:
        watched = watches.get(path)
        try:
            if getattr(conn, "broken", False):  # a PostgreSQL connection lost: its server dropped the others too
                self.drop_idle(path)  # (restarted, or ended them), so the next borrow connects afresh
                raise sqlite3.OperationalError("connection lost")
            if conn.in_transaction:
                conn.rollback()  # never carry a half-done transaction into the next request
        except _BACKEND_ERRORS:
            self.close(path, conn)
            return
        stale = getattr(conn, "identity", None) is not None and file_identity(path) != conn.identity
        if not stale and not (watched is not None and watched.changed()):
            with self.lock:
                if len(self.idle) < self.keep:
                    self.idle.append((path, conn))
                    self.since[id(conn)] = time.monotonic()
                    return
        self.close(path, conn)

    IDLE_CHECK_S = 1.0  # a PostgreSQL connection idle this long is asked once before it is lent

    def alive(self, path: str, conn: sqlite3.Connection, since: float | None) -> bool:
        """Whether an idle connection may be lent: a PostgreSQL one idle a while, or one the server
        has written to unasked (its last word before it ends a connection: a restart,
        pg_terminate_backend), is asked a trivial question first, so a server restarted meanwhile
        (issue 46) costs a reconnect, not the next request's failure; a dead one is closed here."""
        if not postgres.is_postgres(path):
            return True
        if since is not None and time.monotonic() - since < self.IDLE_CHECK_S and not postgres.has_word(conn):
            return True
        try:
            conn.execute("SELECT 1").fetchone()
            return True
        except _BACKEND_ERRORS:
            self.close(path, conn)
            return False

    def drop_idle(self, path: str) -> None:
        """Close the idle connections to ``path`` (lent again, each would fail its request first)."""
        with self.lock:
            dropped = [conn for held, conn in self.idle if held == path]
            self.idle = [(held, conn) for held, conn in self.idle if held != path]
            for conn in dropped:
                self.since.pop(id(conn), None)
        for conn in dropped:
            self.close(path, conn)

    @staticmethod
    def close(path: str, conn: sqlite3.Connection) -> None:
        """Close ``conn``, unless its file was found replaced: then it is kept open (and never
        used), as closing could checkpoint the old WAL into the file that took its place."""
        watched = watches.get(path)
        if watched is None:
            conn.close()
            return
        with watched.lock:
            if watched.changed():
                _kept_open.append(conn)
                return
            conn.close()
            if watched.anchor is None:  # then this may have been the last connection, which checkpoints
                watched.settled()

    @contextmanager
    def lend(self, path: str) -> Iterator[sqlite3.Connection]:
        conn = self.borrow(path)
        try:
            yield conn
        finally:
            self.give_back(path, conn)


pool = ConnectionPool()


def get_db() -> sqlite3.Connection:
    """This request's connection (flaskr's get_db), lent from the pool until the request ends."""
    from flask import current_app, g

    if "db" not in g:
        g.db_path = current_app.config["DATABASE"]
        g.db = pool.borrow(g.db_path)
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    from flask import g

    conn = g.pop("db", None)
    if conn is not None:
        pool.give_back(g.pop("db_path"), conn)
