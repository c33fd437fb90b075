"""Versions of what the live pages show, for the serving layer (companion/serving/): the one
question it asks the store, "which version is this at?", for a table (its revision), the
night ("night": its signature) or the season ("season": its version), one at a time (a topic
no page watches yet) or several at once (changes announced without their version). A table
that no longer exists has no revision (None / left out): the phone is told its table is gone.

Each call borrows a connection from the store's pool for one query and gives it back, so a
held event stream never holds a connection. Backend errors leave as store errors
(:class:`~companion.store.errors.StorageError`).
"""

from __future__ import annotations

from typing import Callable

from ..topics import NIGHT, SEASON
from . import nights, players
from .connection import pool, translated
from .errors import DatabaseAway, DatabaseBusy

CHUNK = 500  # SQLite's variable limit is 999 on old builds


class Revisions:
    """Versions of what pages show in the database at ``database()`` (read at each call: tests
    and `companion serve` may point the app at another file after it is built)."""

    def __init__(self, database: Callable[[], str]):
        self.database = database

    @translated
    def of(self, topic: str) -> int | str | None:
        """The topic's version: a table's revision (None if no table has this token), the
        night's signature, the season's version."""
        return self.of_many([topic]).get(topic)

    def of_many(self, topics: list[str]) -> dict[str, int | str]:
        """Versions of ``topics`` (the tables gone are left out). Asked once more on a new
        connection when the one lent was found lost (issue 46: a database restarted, the
        connection ended without a word): a read, so asking again is safe."""
        try:
            return self._read(topics)
        except DatabaseAway as lost:
            if isinstance(lost, DatabaseBusy):
                raise
            return self._read(topics)

    @translated
    def _read(self, topics: list[str]) -> dict[str, int | str]:
        found: dict[str, int | str] = {}
        tokens = [topic for topic in topics if topic not in (NIGHT, SEASON)]
        with pool.lend(self.database()) as conn:
            if NIGHT in topics:
                found[NIGHT] = nights.night_signature(conn)
            if SEASON in topics:
                found[SEASON] = players.season_version(conn)
            for start in range(0, len(tokens), CHUNK):
                chunk = tokens[start:start + CHUNK]
                marks = ",".join("?" * len(chunk))
                found.update(conn.execute(f"SELECT token, revision FROM tables WHERE token IN ({marks})",
                                          chunk).fetchall())
        return found
