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
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar
from urllib.parse import quote

from .errors import NotSaved, StorageDamaged, StorageError, StorageFull, StorageReplaced


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
    conn.path = path
    conn.identity = None if path == ":memory:" else file_identity(path)
    return conn


def connect(path: str, *, create: bool = True) -> Connection:
    """Open ``path`` with our settings. ``create=False`` (the pool's way) refuses a missing
    file with :class:`StorageReplaced` instead of making a new empty one."""
    try:
        return raw_connect(path, create=create)
    except sqlite3.Error as exc:
        if not create and file_identity(path) is None:
            raise StorageReplaced(f"the database file {path} is gone (deleted or moved away)") from exc
        raise translate(exc) from exc


# The backend's own error class: callers never catch it by name (a second backend has another);
# the app registers it only as a last safety net, turned into a store error by ``translate``.
BackendError = sqlite3.Error


def translate(exc: sqlite3.Error) -> StorageError:
    """The store's error for a backend error: full, not saved (locked, read-only, I/O), damaged."""
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
        except sqlite3.Error as exc:
            raise translate(exc) from exc

    return wrapper  # type: ignore[return-value]


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
def write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction; the immediate lock serialises concurrent writers. Before it
    commits, the file is checked to still be the one at the database path: a change is never
    answered as saved into a deleted or replaced file."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            check_same_file(conn)
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back already (disk full)
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
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

    def __init__(self, keep: int = 8):
        self.keep = keep
        self.idle: list[tuple[str, sqlite3.Connection]] = []
        self.expected: dict[str, tuple[int, int] | None] = {}
        self.lock = threading.Lock()

    def expect(self, path: str, identity: tuple[int, int] | None = None) -> None:
        """The file at ``path`` now is the database (its identity, or the current file's)."""
        with self.lock:
            self.expected[path] = identity or file_identity(path)

    def borrow(self, path: str) -> sqlite3.Connection:
        with self.lock:
            while self.idle:
                held_path, conn = self.idle.pop()
                if held_path == path:
                    return conn
                conn.close()
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
            if conn.in_transaction:
                conn.rollback()  # never carry a half-done transaction into the next request
        except sqlite3.Error:
            conn.close()
            return
        stale = getattr(conn, "identity", None) is not None and file_identity(path) != conn.identity
        if not stale:
            with self.lock:
                if len(self.idle) < self.keep:
                    self.idle.append((path, conn))
                    return
        conn.close()

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
