"""The storage interface's own errors: what views, the CLI and the serving layer catch.

No caller ever sees a backend's exception (``sqlite3.Error``): the store translates it into
one of these, so a second backend (PostgreSQL…) raises the same ones and nothing above the
store changes.

    StoreError
    ├── StorageError        the storage failed; nothing half-done was stored (pages answer 503)
    │   ├── NotSaved        could not write now: locked, read-only, an I/O error (try again later)
    │   │   ├── StorageFull       the disk (or the database's size limit) is full
    │   │   ├── StorageReplaced   the database file was deleted or replaced under the server
    │   │   └── DatabaseAway      a database server (PostgreSQL) does not answer: stopped, restarting
    │   │       └── DatabaseBusy  every connection this process may open to it is in use (the pool's bound)
    │   ├── StorageDamaged  the file is damaged (reads and writes fail until it is restored)
    │   └── DatabaseError   at start: the file can't be used (newer, damaged, another program's…)
    │       └── DiskFull    at start: the disk is full
    ├── NotFound            no table has this token
    ├── Conflict            someone else changed the table first (the domain says what)
    └── Repeated            a write with this write_id was already stored: ``outcome`` is its answer
"""

from __future__ import annotations

from typing import Any


class StoreError(Exception):
    """Base of every error the store raises."""


class StorageError(StoreError):
    """The storage failed; the transaction was rolled back, nothing half-done was stored."""


class NotSaved(StorageError):
    """The change could not be written now (database locked, read-only, an I/O error)."""


class StorageFull(NotSaved):
    """The disk is full (or the database reached its size limit): free some space."""


class StorageReplaced(NotSaved):
    """The database file this server writes was deleted or replaced by another file (a restore
    done while serving, a cleanup tool): the change was NOT saved, and no further change will
    be until the server is restarted on the file that is now at the path."""


class DatabaseAway(NotSaved):
    """The database server does not answer (PostgreSQL stopped, restarting, out of reach): the
    change was not saved; the phone keeps it and sends it again when the server is back."""


class DatabaseBusy(DatabaseAway):
    """Every connection this process may hold to the database server was in use for the pool's
    whole wait (a flood of requests): nothing was saved; the phone keeps the change and sends it
    again, as when the server is away."""


class StorageDamaged(StorageError):
    """The database file is damaged (it was changed by something other than SQLite)."""


class DatabaseError(StorageError, RuntimeError):
    """At start: the database file cannot be used; the message says why and what to do."""


class DiskFull(DatabaseError):
    """At start: the disk is full, so the database could not be created or upgraded."""


class NotFound(StoreError, LookupError):
    """No table has this token."""


class Conflict(StoreError):
    """Someone else changed the table first; ``message`` (a rules-engine Text) says what
    happened, ``number`` which deal it was about, if any."""

    def __init__(self, message: Any, number: int | None = None):
        self.message = message
        self.number = number
        super().__init__(str(message))


class Repeated(StoreError):
    """A write carrying this ``write_id`` was stored already (the phone sent it again after a
    lost answer): nothing was written now, ``outcome`` is what the first one recorded, e.g.
    ``{"action": "add", "number": 3}``; answer exactly as the first time."""

    def __init__(self, outcome: dict[str, Any]):
        self.outcome = dict(outcome)
        super().__init__(f"already stored: {self.outcome}")
