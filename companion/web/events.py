"""Push, not poll: each table page holds one Server-Sent Events stream, GET /t/<token>/events.

The stream carries a signal, never the HTML: ``event: changed`` with the table's revision as
its id and data. The page's live region (templates/tables/_live_attrs.html) answers it by
fetching /t/<token>/live?rev=R, which renders that phone's own partial (its language, its
form) in a normal Flask request. So one save costs one render per phone, as polling did, but
nothing at all while nothing changes.

Catching up is by revision, not by replaying events: a stream opened with ``?rev=R`` (the
revision the page shows) or a ``Last-Event-ID: R`` header (the last one it saw, sent by
htmx's hx-sse on reconnect) gets ``changed`` at once if the table has moved on since, however
many changes it missed (server restarted, Wi-Fi lost, phone asleep, tab in the background).

How changes are noticed: after any request that may write (not GET/HEAD) to a table, this
layer asks SQLite for that table's revision at once; every second it also checks every watched
table (a change made by another process, or through another route). Either way one query
serves every phone watching the table, and only that table's streams are woken.

Like the 204 shortcut, this sits in front of Flask: a held stream costs a greenlet (under
`companion serve`, see companion/server.py) or a thread (under `flask run`), a socket and a
few hundred bytes here, and no Flask request context.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from typing import Callable, Iterable, Iterator

from .live import GONE, Revisions

EVENTS_PATH = re.compile(r"^/t/([A-Za-z0-9_-]{16,64})/events$")
TABLE_PATH = re.compile(r"^/t/([A-Za-z0-9_-]{16,64})(?:/|$)")
REV_PARAM = re.compile(r"(?:^|&)rev=(\d{1,12})(?:&|$)")

HEARTBEAT_S = 20.0  # a comment line this often finds dead connections and keeps NATs open
SWEEP_S = 1.0  # every watched table is checked this often, whatever else happens
RETRY_MS = 1000  # the browser's reconnect delay after the stream drops
REPEAT_S = 2.0  # "changed" is said again this long after, if the page has not fetched it


class TableWatch:
    """Which tables have streams open, their last known revision, and one Event per table
    that is set (and replaced) when its revision moves."""

    def __init__(self, revisions: Revisions, sweep: float = SWEEP_S):
        self.revisions = revisions
        self.sweep = sweep
        self.lock = threading.Lock()
        self.watchers: dict[str, int] = {}
        self.known: dict[str, int | None] = {}
        self.moved: dict[str, threading.Event] = {}
        self.poked: set[str] = set()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None
        self.checks = 0  # queries made, for tests and benchmarks

    # --- streams ---------------------------------------------------------------------------

    def watch(self, token: str) -> int | None:
        """Start watching ``token``; returns its revision now (None: no such table)."""
        current = self.revisions.of(token)
        moved = None
        with self.lock:
            if token in self.watchers and self.known.get(token) != current:
                # Read before the watcher's own check: the other streams must hear of it too.
                moved = self.moved.pop(token, None)
            self.watchers[token] = self.watchers.get(token, 0) + 1
            self.known[token] = current
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="table-watch", daemon=True)
                self.thread.start()
        if moved is not None:
            moved.set()
        return current

    def unwatch(self, token: str) -> None:
        with self.lock:
            left = self.watchers.get(token, 1) - 1
            if left > 0:
                self.watchers[token] = left
                return
            self.watchers.pop(token, None)
            self.known.pop(token, None)
            self.moved.pop(token, None)

    def wait(self, token: str, shown: int | None, timeout: float) -> int | None:
        """The table's revision once it differs from ``shown``, or after ``timeout`` seconds."""
        with self.lock:
            moved = self.moved.get(token)
            if moved is None:
                moved = self.moved[token] = threading.Event()
            current = self.known.get(token)
        if current != shown:
            return current
        moved.wait(timeout)
        with self.lock:
            return self.known.get(token)

    # --- noticing changes ------------------------------------------------------------------

    def poke(self, token: str | None) -> None:
        """A request that may have changed ``token`` (None: any table) has been answered."""
        with self.lock:
            if token is None:
                self.poked.update(self.watchers)
            elif token in self.watchers:
                self.poked.add(token)
            else:
                return
        self.wake.set()

    def run(self) -> None:
        last_sweep = time.monotonic()
        while True:
            self.wake.wait(self.sweep)
            self.wake.clear()
            now = time.monotonic()
            with self.lock:
                if now - last_sweep >= self.sweep:
                    tokens, last_sweep = list(self.watchers), now
                else:
                    tokens = list(self.poked)
                self.poked.clear()
            if tokens:
                self.check(tokens)

    def check(self, tokens: list[str]) -> None:
        try:
            found = self.revisions.of_many(tokens)
        except sqlite3.Error:
            return  # the database is busy or damaged: the next sweep tries again
        self.checks += 1
        woken = []
        with self.lock:
            for token in tokens:
                if token in self.watchers and self.known.get(token) != found.get(token):
                    self.known[token] = found.get(token)
                    moved = self.moved.pop(token, None)
                    if moved is not None:
                        woken.append(moved)
        for moved in woken:
            moved.set()


def event(revision: int) -> bytes:
    return f"event: changed\nid: {revision}\ndata: {revision}\n\n".encode()


class TableEvents:
    """WSGI layer: serves GET /t/<token>/events, and notices answered writes to tables."""

    def __init__(self, app: Callable, database: Callable[[], str], headers: list[tuple[str, str]],
                 heartbeat: float = HEARTBEAT_S, sweep: float = SWEEP_S):
        self.app = app
        self.heartbeat = heartbeat
        self.watch = TableWatch(Revisions(database), sweep)
        self.stream_headers = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                               ("X-Accel-Buffering", "no")] + headers  # no proxy may hold events back
        self.gone_headers = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                             ("Content-Length", str(len(GONE)))] + headers

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if method == "GET":
            match = EVENTS_PATH.match(path)
            if match:
                return self.open(match.group(1), environ, start_response)
            return self.app(environ, start_response)
        if method == "HEAD":
            return self.app(environ, start_response)
        try:
            return self.app(environ, start_response)
        finally:  # the answer is rendered, so the write (if any) is committed
            table = TABLE_PATH.match(path)
            self.watch.poke(table.group(1) if table else None)

    def open(self, token: str, environ: dict, start_response: Callable) -> Iterable[bytes]:
        shown = self.shown_revision(environ)
        try:
            current = self.watch.watch(token)
        except sqlite3.Error:
            start_response("503 Service Unavailable", [("Retry-After", "2"), ("Content-Length", "0"),
                                                       ("Cache-Control", "no-store")])
            return [b""]
        if current is None:
            self.watch.unwatch(token)
            start_response("404 Not Found", self.gone_headers)
            return [GONE]
        start_response("200 OK", self.stream_headers)
        return Stream(self.stream(token, shown, current), lambda: self.watch.unwatch(token))

    @staticmethod
    def shown_revision(environ: dict) -> int | None:
        """What the phone shows: the last event it saw, else the revision its page was drawn at."""
        last = environ.get("HTTP_LAST_EVENT_ID", "").strip()
        if last.isdigit() and len(last) <= 12:
            return int(last)
        rev = REV_PARAM.search(environ.get("QUERY_STRING", ""))
        return int(rev.group(1)) if rev else None

    def stream(self, token: str, shown: int | None, current: int | None) -> Iterator[bytes]:
        # The id says what this phone shows, so a reconnect sends it back as Last-Event-ID.
        # "hello" and the "ping" heartbeat tell the page (static/live.js) its stream gets through.
        opening = f"retry: {RETRY_MS}\n" + (f"id: {shown}\n" if shown is not None else "") + "event: hello\ndata:\n\n"
        yield opening.encode()
        again = None  # seconds until "changed" is said again
        while True:
            if current != shown:
                # None: the table was removed; the phone's fetch then gets the "gone" notice.
                yield event(current if current is not None else 0)
                shown = current
                if current is None:
                    return
                again = REPEAT_S
            current = self.watch.wait(token, shown, again or self.heartbeat)
            if current == shown:
                if again is not None:
                    # Still open: a page that fetched its update replaces its live region and
                    # closes this stream, so that fetch failed (refused while the table was
                    # busy, Wi-Fi lost): say it again, less and less often. A stream whose
                    # phone has gone fails on this write and ends.
                    yield event(shown)
                    again = again * 2 if again * 2 < self.heartbeat else None
                else:
                    yield b"event: ping\ndata:\n\n"


class Stream:
    """The WSGI body of one stream: stops watching when the server closes it, even if it
    never started (a phone that left at once)."""

    def __init__(self, chunks: Iterator[bytes], done: Callable[[], None]):
        self.chunks = chunks
        self.done: Callable[[], None] | None = done

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks

    def close(self) -> None:
        self.chunks.close()
        if self.done is not None:
            self.done, done = None, self.done
            done()
