"""The fast path for the question every phone asks every 0.7 s: "has my table changed?"

Hundreds of phones poll at once at a meetup, and almost every answer is "no".
This WSGI layer answers that "no" (204) straight from SQLite, without building a
Flask request, session or template context; every other request, including a
"yes", goes to Flask as usual.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from typing import Callable, Iterable

from ..db import connect

LIVE_PATH = re.compile(r"^/t/([A-Za-z0-9_-]{16,64})/live$")
REV_PARAM = re.compile(r"(?:^|&)rev=(\d{1,12})(?:&|$)")


class UnchangedShortcut:
    def __init__(self, app: Callable, database: Callable[[], str], headers: list[tuple[str, str]]):
        self.app = app
        self.database = database
        self.headers = [("Cache-Control", "no-store"), ("Content-Length", "0")] + headers
        self.local = threading.local()

    def revision(self, token: str) -> int | None:
        path = self.database()
        conn = getattr(self.local, "conn", None)
        if conn is None or self.local.path != path:
            conn = connect(path)
            self.local.conn, self.local.path = conn, path
        row = conn.execute("SELECT revision FROM tables WHERE token = ?", (token,)).fetchone()
        return None if row is None else row[0]

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
                    if current is not None and str(current) == rev.group(1):
                        start_response("204 No Content", self.headers)
                        return [b""]
        return self.app(environ, start_response)
