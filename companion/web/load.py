"""One table's load can't starve the others: a few requests per table at a time.

A table's page costs CPU in proportion to its deals, and every request shares the laptop's
CPU. Sixteen loops against one heavy table would otherwise hold every server thread and make
every other table's phones wait. Here each table runs at most ``per_table`` requests at
once; a few more wait briefly for a turn, and the rest are answered at once with 503 and
Retry-After, so the server's threads stay free for the other tables. Real play never gets
there: a table's phones ask one cheap question at a time.

Uses threading's Condition only, which gevent's monkey-patching makes cooperative, so it
works under a thread pool and under gevent alike.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from flask import Flask, Response, g, render_template, request
from flask_babel import gettext

RETRY_AFTER_SECONDS = 2


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


def busy_message() -> str:
    return gettext("This table is very busy right now (many requests at once). Nothing was changed; "
                   "wait a moment and try again.")


def busy_response() -> Response:
    """The refusal, shaped so that nothing on the phone is lost."""
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
    if request.endpoint == "tables.live":
        # The phone's live check: "nothing new yet"; it asks again on its next tick.
        return Response(status=204, headers=headers)
    if request.headers.get("HX-Request") == "true":
        # Keep the page (and whatever was typed) as it is; add the message at its foot.
        html = render_template("_busy.html", message=busy_message())
        return Response(html, status=503, headers=dict(headers, **{"HX-Retarget": "body",
                                                                   "HX-Reswap": "beforeend"}))
    typed = {k: v for k, v in request.form.items() if k != "csrf_token"} if request.method == "POST" else {}
    html = render_template("not_saved.html", message=busy_message(), typed=typed, action=request.path)
    return Response(html, status=503, headers=headers)


def init_app(app: Flask) -> None:
    slots = app.extensions["table_slots"] = TableSlots()

    @app.before_request
    def take_turn():
        token = (request.view_args or {}).get("token")
        if not isinstance(token, str):
            return None
        if not slots.acquire(token):
            return busy_response()
        g.table_turn = token
        return None

    @app.teardown_request
    def end_turn(_exc):
        token = g.pop("table_turn", None)
        if token is not None:
            slots.release(token)
