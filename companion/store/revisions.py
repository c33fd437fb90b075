"""Table revisions, for the serving layer (companion/serving/): the one question it asks the
store, "which revision is this table at?", for one table (a table no phone watches yet) or
for several watched tables at once (changes announced without their revision). A table that
no longer exists has no revision (None / left out): the phone is told its table is gone.

Each call borrows a connection from the store's pool for one query and gives it back, so a
held event stream never holds a connection. Backend errors leave as store errors
(:class:`~companion.store.errors.StorageError`).
"""

from __future__ import annotations

from typing import Callable

from .connection import pool, translated

CHUNK = 500  # SQLite's variable limit is 999 on old builds


class Revisions:
    """Revisions of the tables in the database at ``database()`` (read at each call: tests
    and `companion serve` may point the app at another file after it is built)."""

    def __init__(self, database: Callable[[], str]):
        self.database = database

    @translated
    def of(self, token: str) -> int | None:
        """The table's revision; None if no table has this token."""
        with pool.lend(self.database()) as conn:
            row = conn.execute("SELECT revision FROM tables WHERE token = ?", (token,)).fetchone()
        return None if row is None else row[0]

    @translated
    def of_many(self, tokens: list[str]) -> dict[str, int]:
        """Revisions of the tables that still exist among ``tokens`` (the gone ones are left out)."""
        found: dict[str, int] = {}
        with pool.lend(self.database()) as conn:
            for start in range(0, len(tokens), CHUNK):
                chunk = tokens[start:start + CHUNK]
                marks = ",".join("?" * len(chunk))
                found.update(conn.execute(f"SELECT token, revision FROM tables WHERE token IN ({marks})",
                                          chunk).fetchall())
        return found
