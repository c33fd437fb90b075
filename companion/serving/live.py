"""The fast answer to "has my table changed?" (GET /t/<token>/live?rev=R): 204 when it hasn't.

A phone asks it only as a fallback (its event stream is silent, see static/live.js, or the
page's 30 s timer); a pushed change is fetched without ``rev`` mismatching, so it goes to
Flask. Answering the "no" here costs one indexed read and no Flask request, session or
template context; every other request, including a "yes", goes to Flask as usual. This is
the only place that answers 204 for an unchanged table (the Flask view renders).
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..store import StorageError
from ..store.revisions import Revisions
from . import query_revision, table_route, table_token
from .pages import Pages


class UnchangedShortcut:
    def __init__(self, app: Callable, database: Callable[[], str], headers: list[tuple[str, str]],
                 pages: Pages):
        self.app = app
        self.pages = pages
        self.headers = [("Cache-Control", "no-store"), ("Content-Length", "0")] + headers
        self.gone_headers = [("Cache-Control", "no-store"), ("Content-Type", "text/html; charset=utf-8")] + headers
        self.revisions = Revisions(database)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET" and table_route(environ) == "live":
            shown = query_revision(environ)
            if shown is not None:
                try:
                    current = self.revisions.of(table_token(environ))
                except StorageError:
                    return self.app(environ, start_response)  # Flask answers, with its error handling
                if current == shown:
                    start_response("204 No Content", self.headers)
                    return [b""]
                if current is None and environ.get("HTTP_HX_REQUEST") == "true":
                    # The table is gone: replaces the live region, which has no trigger left.
                    gone = self.pages.for_request("gone", environ)
                    start_response("404 Not Found", self.gone_headers + [("Content-Length", str(len(gone)))])
                    return [gone]
        return self.app(environ, start_response)
