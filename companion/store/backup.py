"""Copies of the database: a consistent backup while serving, a safe restore while not, and
the lock that tells them apart (a running server holds it on its database)."""

from __future__ import annotations

import os
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

from .errors import DatabaseError, StorageError
from .connection import translate
from .schema import is_ours


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy with SQLite's backup API (safe while a server writes to ``source``:
    the copy is one committed state), written beside ``target`` and then renamed into place,
    so ``target`` is either absent or complete. The copy is one self-contained file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    if not source.is_file():
        raise FileNotFoundError(f"no database at {source}")
    try:
        src = sqlite3.connect(source, timeout=10)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode = DELETE")  # no -wal beside the copy
                check = dst.execute("PRAGMA integrity_check").fetchone()[0]
                if check != "ok":
                    raise StorageError(f"the copy failed its integrity check ({check})")
            finally:
                dst.close()
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        finally:
            src.close()
    except sqlite3.Error as exc:
        raise translate(exc) from exc
    os.replace(partial, target)


def is_companion_database(path: Path) -> bool:
    """Whether ``path`` is a Table Companion database with a schema (reads only; never creates)."""
    try:
        conn = sqlite3.connect("file:" + quote(str(Path(path).resolve())) + "?mode=ro", uri=True)
        try:
            return is_ours(conn) and conn.execute("PRAGMA user_version").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def is_ours_file(path: Path) -> bool:
    """Whether the existing file at ``path`` is Table Companion's (or a new, empty database);
    an unreadable file raises a store error."""
    try:
        conn = sqlite3.connect(path)
        try:
            return is_ours(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise translate(exc) from exc


def counts(path: Path) -> tuple[int, int]:
    """(tables, deals) stored in the database at ``path``."""
    try:
        conn = sqlite3.connect(path)
        try:
            return tuple(conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]  # type: ignore[return-value]
                         for name in ("tables", "deals"))
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise translate(exc) from exc


class ServerLock:
    """An exclusive lock on ``<database>.lock``: `companion serve` holds it while it runs on that
    database (the OS lets it go when the process ends, even on kill -9), and `companion restore`
    takes it so that no server runs on a file being replaced."""

    def __init__(self, database: str | Path):
        self.path = Path(str(database) + ".lock")
        self.fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock; False if another process holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if sys.platform == "win32":
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the lock
            self.fd = None

    def __enter__(self) -> "ServerLock":
        return self

    def __exit__(self, *_exc) -> None:
        self.release()


def restore(backup: Path, database: Path) -> Path | None:
    """Put the backup ``backup`` in place of ``database``, safely: refused (DatabaseError) while a
    server runs on it or if the backup is not a sound Table Companion database. The database
    being replaced is first copied beside it (``<name>.before-restore-<time>``, returned), its
    WAL included; the stale -wal/-shm files are removed before the restored file is renamed into
    place, so an old WAL can never be read against the restored file."""
    backup, database = Path(backup).resolve(), Path(database).resolve()
    if backup == database:
        raise DatabaseError(f"{backup} is the database itself: give a backup file to restore.")
    if not backup.is_file():
        raise DatabaseError(f"no backup at {backup}.")
    if not is_companion_database(backup):
        raise DatabaseError(f"{backup} is not a Table Companion database (or it is damaged); nothing was changed.")
    lock = ServerLock(database)
    if not lock.acquire():
        raise DatabaseError(f"a Table Companion server is running on {database}: stop it first (Ctrl+C), "
                            "then restore, then start it again. Nothing was changed.")
    with lock:
        incoming = database.with_name(database.name + ".restoring")
        copy_database(backup, incoming)  # checked (integrity) and complete before anything is touched
        kept = None
        if database.exists():
            kept = database.with_name(f"{database.name}.before-restore-{datetime.now():%Y%m%d-%H%M%S}")
            try:
                copy_database(database, kept)  # the scores being replaced, WAL included, never lost
            except (StorageError, OSError):  # damaged: keep its files as they are, aside
                for suffix in ("", "-wal", "-shm"):
                    if database.with_name(database.name + suffix).exists():
                        os.replace(database.with_name(database.name + suffix), kept.with_name(kept.name + suffix))
        for leftover in ("-wal", "-shm"):
            database.with_name(database.name + leftover).unlink(missing_ok=True)
        os.replace(incoming, database)
    return kept
