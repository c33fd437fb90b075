"""One table's load can't starve the others: a few requests per table at a time.

A table's page costs CPU in proportion to its deals, and every request shares the laptop's
CPU. Sixteen loops against one heavy table would otherwise hold every server thread and make
every other table's phones wait. Here each table runs at most ``per_table`` requests at
once; a few more wait briefly for a turn, and the rest are answered at once with 503 and
Retry-After, so the server's threads stay free for the other tables. Real play never gets
there: a table's phones ask one cheap question at a time.

Slots are per table token (companion.serving.table_token). Uses threading's Condition only,
which gevent's monkey-patching makes cooperative, so it works under a thread pool and under
gevent alike.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Iterable
from urllib.parse import parse_qsl

from . import client_trouble, table_route, table_token
from .pages import Pages

RETRY_AFTER_SECONDS = 2
MAX_FORM_BYTES = 64 * 1024  # as Flask's MAX_CONTENT_LENGTH: a refused form is given back, never more


class TableSlots:
    """At most ``per_table`` requests per key at once; up to ``max_waiting`` more may wait
    ``wait`` seconds for a turn; anyone beyond is refused at once."""

    def __init__(self, per_table: int = 2, max_waiting: int = 4, wait: float = 1.0,
                 clock: Callable[[], float] = time.monotonic):
        self.per_table = per_table
        self.max_waiting = max_waiting
        self.wait = wait
        self.clock = clock
        self.running: dict[str, int] = {}
        self.waiting: dict[str, int] = {}
        self.turns = threading.Condition()
        self.refused = 0  # for benchmarks and tests

    def acquire(self, key: str) -> bool:
        with self.turns:
            if self.running.get(key, 0) < self.per_table:
                self.running[key] = self.running.get(key, 0) + 1
                return True
            if self.waiting.get(key, 0) >= self.max_waiting:
                self.refused += 1
                return False
            self.waiting[key] = self.waiting.get(key, 0) + 1
            deadline = self.clock() + self.wait
            try:
                while self.running.get(key, 0) >= self.per_table:
                    remaining = deadline - self.clock()
                    if remaining <= 0:
                        self.refused += 1
                        return False
                    self.turns.wait(remaining)
                self.running[key] = self.running.get(key, 0) + 1
                return True
            finally:
                self.waiting[key] -= 1
                if not self.waiting[key]:
                    del self.waiting[key]

    def release(self, key: str) -> None:
        with self.turns:
            self.running[key] -= 1
            if not self.running[key]:
                del self.running[key]
            self.turns.notify_all()


class TableTurns:
    """WSGI layer in front of Flask (behind the 204 live fast path): a few requests per table
    at a time; a refusal is answered here, without building a Flask request."""

    def __init__(self, app: Callable, headers: list[tuple[str, str]], pages: Pages,
                 slots: TableSlots | None = None):
        self.app = app
        self.pages = pages
        self.slots = slots or TableSlots()
        self.headers = [("Retry-After", str(RETRY_AFTER_SECONDS)), ("Cache-Control", "no-store")] + headers

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        token = table_token(environ)
        if token is None:
            return self.app(environ, start_response)
        if not self.slots.acquire(token):
            client_trouble(environ, "table", f"a table's {self.slots.per_table} turns were taken: answered busy")
            return self.refuse(environ, start_response, table_route(environ) == "live")
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.slots.release(token)

        def started(status: str, headers, exc_info=None):
            # Flask has done the work (page rendered) once it starts the answer: sending it
            # to a slow phone needs no turn.
            release()
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        try:
            return self.app(environ, started)
        finally:
            release()  # an exception, or an app that never started its answer

    def refuse(self, environ: dict, start_response: Callable, live: bool) -> Iterable[bytes]:
        return refuse_busy(self.pages, self.headers, environ, start_response, live)


def refuse_busy(pages: Pages, headers: list[tuple[str, str]], environ: dict, start_response: Callable,
                live: bool) -> Iterable[bytes]:
    """503 "busy" (``headers`` carry Retry-After), keeping what was typed: a live fetch gets 204
    (nothing new yet; the page tries again), an htmx request the note at the page's foot, a
    plain page or form the busy page with the form's values ready to send again."""
    if live and environ.get("REQUEST_METHOD") == "GET":
        # The phone's live fetch: "nothing new yet"; the page tries again (static/live.js).
        start_response("204 No Content", headers + [("Content-Length", "0")])
        return [b""]
    html = "text/html; charset=utf-8"
    if environ.get("HTTP_HX_REQUEST") == "true":
        # Keep the page (and whatever was typed) as it is; add the message at its foot.
        note = pages.for_request("busy_note", environ)
        start_response("503 Service Unavailable", headers + [
            ("Content-Type", html), ("Content-Length", str(len(note))),
            ("HX-Retarget", "body"), ("HX-Reswap", "beforeend")])
        return [note]
    typed = []
    if environ.get("REQUEST_METHOD") == "POST" and "form-urlencoded" in environ.get("CONTENT_TYPE", ""):
        try:
            length = min(int(environ.get("CONTENT_LENGTH") or 0), MAX_FORM_BYTES)
        except ValueError:
            length = 0
        raw = environ["wsgi.input"].read(length) if length > 0 else b""
        typed = parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True)
    page = pages.busy(environ, environ.get("PATH_INFO", "/"), typed)
    start_response("503 Service Unavailable", headers + [
        ("Content-Type", html), ("Content-Length", str(len(page)))])
    return [page]
