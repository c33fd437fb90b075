"""The storage interface (placeholder; filled in below as the modules move in)."""

from __future__ import annotations

from .connection import ConnectionPool, close_db, connect, get_db, pool, translated, write  # noqa: F401
from .errors import (Conflict, DatabaseError, DiskFull, NotFound, NotSaved, Repeated,  # noqa: F401
                     StorageDamaged, StorageError, StorageFull, StorageReplaced, StoreError)
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, is_ours, migrate  # noqa: F401


def init_app(app) -> None:
    """Create or upgrade the app's database, and give each request's connection back after it."""
    migrate(app.config["DATABASE"])
    app.teardown_appcontext(close_db)
