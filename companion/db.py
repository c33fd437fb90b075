"""Compatibility shim: storage lives in :mod:`companion.store` now. Kept while code and tests
still import ``companion.db``; new code imports ``companion.store``."""

from __future__ import annotations

from .store.connection import ConnectionPool, close_db, connect, get_db, pool  # noqa: F401
from .store.errors import DatabaseError  # noqa: F401
from .store.schema import (APPLICATION_ID, MIGRATIONS, OUR_TABLES, SCHEMA_VERSION,  # noqa: F401
                           _statements, is_ours, migrate)
from .store import init_app  # noqa: F401
