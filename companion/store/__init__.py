"""The storage interface: every SQL statement and the only ``sqlite3`` import in companion/.

Like datasette's ``Database`` (one owner of all SQL, its own errors) with flaskr's
one-connection-per-request. Nothing above this package sees SQL or a backend exception.

The interface (what a second backend would implement):

Connections
    ``connect(path, create=True)``, ``pool`` (``borrow(path)``/``give_back(path, conn)`` or
    ``with pool.lend(path) as conn``), ``get_db()``/``close_db()`` (this request's connection,
    Flask), ``write(conn)`` (one serialised write transaction; checks, before it commits,
    that the database file is still the one at its path), ``init_app(app)``.
Schema
    ``migrate(path)`` (create/upgrade; raises DatabaseError/DiskFull), ``is_ours(conn)``,
    ``MIGRATIONS``/``SCHEMA_VERSION``.
Tables (``store.tables``)
    ``load_table``, ``tables_after``, ``revision``, ``recent_tables``, ``changes``;
    inside ``write``: ``insert_table``, ``seat_players``, ``log_change``, ``insert_deal``,
    ``update_deal``, ``delete_deal``, ``set_finished``, ``recorded_outcome``/``record_outcome``
    (exactly-once writes by ``write_id``).
Nights (``store.nights``)
    ``night_started``, ``night_after_table``, ``insert_night``, ``night_signature``,
    ``next_table_number``; the night's roster and rounds (issue 25): ``current_night``,
    ``roster``, ``player``, ``player_by_key``, ``rounds`` (with their tables and seats),
    ``table_round``; inside ``write``: ``insert_player``, ``update_player``, ``insert_round``,
    ``insert_round_table``, ``set_seat``, ``bump_round``, ``set_clock``, ``extend_table``,
    ``unseat_table``.
Players (``store.players``, issue 26)
    ``stale_tables``/``save_result``/``results`` (each table's replayed result per revision),
    ``all_players``, ``player``, ``name_map``, ``seat_map``, ``signature``; inside ``write``:
    ``insert_player``, ``rename``, ``merge``, ``assign_seat``, ``log``.
Revisions (``store.revisions``, the serving layer's): the live questions middlewares ask.
Backup (``store.backup``)
    ``copy_database``, ``restore``, ``is_companion_database``, ``counts``, ``ServerLock``.
Errors (``store.errors``)
    StoreError > StorageError (NotSaved > StorageFull, StorageReplaced; StorageDamaged;
    DatabaseError > DiskFull), NotFound, Conflict, Repeated. ``BackendError`` and
    ``translate(exc)``: the backend's own error class and its store error, for a last safety
    net only (the app's error handler); nothing catches a backend error by name.

Backends: an SQLite file (the default), or PostgreSQL for a ``postgresql://`` database
(``store.postgres``: the same functions and errors over psycopg 3, its own migrations, backups
through pg_dump, and the relay carrying changes between servers on one database).

The domain (``companion.tables.service``, ``companion.night.service``,
``companion.players.service``) decides what is written; views, the CLI and the serving layer
call the domain, or these functions for plain reads.
"""

from __future__ import annotations

from .connection import (BackendError, Connection, ConnectionPool, check_same_file, close_db,  # noqa: F401
                         connect, get_db, ping, pool, translate, translated, write)
from .errors import (Conflict, DatabaseAway, DatabaseBusy, DatabaseError, DiskFull, NotFound, NotSaved,  # noqa: F401
                     Repeated, StorageDamaged, StorageError, StorageFull, StorageReplaced, StoreError)
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, is_ours, migrate  # noqa: F401
from . import backup, nights, players, revisions, tables  # noqa: F401
from .revisions import Revisions  # noqa: F401  (the serving layer's revision questions)


def init_app(app) -> None:
    """Create or upgrade the app's database, and give each request's connection back after it."""
    migrate(app.config["DATABASE"])
    pool.expect(app.config["DATABASE"])  # the file migrated is the database from now on
    app.teardown_appcontext(close_db)
