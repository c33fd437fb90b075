"""The fast path for the question every phone asks every 0.7 s: "has my table changed?"

Hundreds of phones poll at once at a meetup, and almost every answer is "no".
This WSGI layer answers that "no" (204) straight from SQLite, without building a
Flask request, session or template context; every other request, including a
"yes", goes to Flask as usual.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Callable, Iterable

from ..db import pool

LIVE_PATH = re.compile(r"^/t/([A-Za-z0-9_-]{16,64})/live$")
REV_PARAM = re.compile(r"(?:^|&)rev=(\d{1,12})(?:&|$)")


class Revisions:
    """Reads a table's revision with a connection lent by the app's pool (companion.db)."""

    def __init__(self, database: Callable[[], str]):
        self.database = database

    def _borrow(self) -> tuple[str, sqlite3.Connection]:
        path = self.database()
        return path, pool.borrow(path)

    def _give_back(self, held: tuple[str, sqlite3.Connection]) -> None:
        pool.give_back(*held)

    def of(self, token: str) -> int | None:
        held = self._borrow()
        try:
            row = held[1].execute("SELECT revision FROM tables WHERE token = ?", (token,)).fetchone()
        except BaseException:
            held[1].close()
            raise
        self._give_back(held)
        return None if row is None else row[0]

    def of_many(self, tokens: list[str]) -> dict[str, int]:
        """Revisions of the tables that still exist among ``tokens``."""
        found: dict[str, int] = {}
        held = self._borrow()
        try:
            for start in range(0, len(tokens), 500):  # SQLite's variable limit is 999 on old builds
                chunk = tokens[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(held[1].execute(f"SELECT token, revision FROM tables WHERE token IN ({marks})",
                                             chunk).fetchall())
        except BaseException:
            held[1].close()
            raise
        self._give_back(held)
        return found


# A phone whose table is gone (removed, or another laptop's link): replaces the live region,
# which has no trigger left, so the phone stops asking. Both languages: no locale out here.
GONE = ('<section id="live" class="sheet" role="alert"><p>This table is no longer on the host laptop. '
        'Ask the host for the table\'s new link, or scan its QR code again.</p>'
        '<p lang="ja">このテーブルはホストのノートパソコンにもうありません。新しいリンクをホストに聞くか、'
        'QRコードをもう一度読み取ってください。</p></section>').encode()


class UnchangedShortcut:
    def __init__(self, app: Callable, database: Callable[[], str], headers: list[tuple[str, str]]):
        self.app = app
        self.database = database
        self.headers = [("Cache-Control", "no-store"), ("Content-Length", "0")] + headers
        self.gone_headers = [("Cache-Control", "no-store"), ("Content-Type", "text/html; charset=utf-8"),
                             ("Content-Length", str(len(GONE)))] + headers
        self.revisions = Revisions(database)

    def revision(self, token: str) -> int | None:
        return self.revisions.of(token)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET":
            match = LIVE_PATH.match(environ.get("PATH_INFO", ""))
            if match:
                rev = REV_PARAM.search(environ.get("QUERY_STRING", ""))
                if rev:
                    try:
                        current = self.revision(match.group(1))
                    except sqlite3.Error:
                        current = None  # let Flask answer, with its error handling
                        missing = False
                    else:
                        missing = current is None
                    if current is not None and str(current) == rev.group(1):
                        start_response("204 No Content", self.headers)
                        return [b""]
                    if missing and environ.get("HTTP_HX_REQUEST") == "true":
                        start_response("404 Not Found", self.gone_headers)
                        return [GONE]
        return self.app(environ, start_response)
