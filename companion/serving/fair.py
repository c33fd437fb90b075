"""A fair share per device: one device can't slow the room, whatever it sends.

Under gevent a request runs to its end without yielding (rendering is pure Python, SQLite
calls are C calls), so "2 requests per table" never triggers: 64 connections from one device
make 64 requests the hub runs one after another, and every other phone's request waits
behind all of them (issue 23: other tables' p99 went from 76 ms to 4 s). Here the app's work
is handed out in turns, round-robin by device (its source address):

- every request that reaches the app joins its device's line (event streams, which wait for
  changes and cost no work, and the live answers known in memory are given before this layer,
  see companion/serving/__init__.py; /healthz never waits);
- a dispatcher gives ``running`` turns at once, at most ``per_device`` of them to one device,
  each to the waiting device whose last turn is the oldest; before giving the device that
  had the last turn another one, it lets the server read what else has arrived (a short
  sleep, so gevent polls its sockets), so a phone that asked while a heavy page rendered
  goes next;
- a device with ``max_waiting`` requests already in line, or whose request waited ``wait``
  seconds, is answered 503 with Retry-After at once (the busy page, what was typed kept);
  no other device is affected.

A turn ends when the app starts its answer (the page is rendered): sending it to a slow phone
needs none. Uses threading's primitives only (gevent's monkey-patching makes them
cooperative), so it works under a thread pool (tests, `flask run`) and under gevent alike.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from typing import Callable, Iterable

from . import client_trouble, table_route
from .pages import Pages
from .turns import RETRY_AFTER_SECONDS, refuse_busy

HEALTH = "/healthz"
POLL_S = 0.0005  # the dispatcher's pause before a turn: gevent reads the sockets meanwhile


def cooperative() -> bool:
    """Is threading gevent's (`companion serve`)?"""
    try:
        from gevent import monkey
    except ImportError:
        return False
    return monkey.is_module_patched("threading")


class Ticket:
    __slots__ = ("device", "granted", "cancelled")

    def __init__(self, device: str):
        self.device = device
        self.granted = threading.Event()
        self.cancelled = False


class Turns:
    """Round-robin turns by device; see the module's docstring."""

    def __init__(self, running: int = 2, per_device: int = 1, max_waiting: int = 32, wait: float = 10.0):
        self.running = running
        self.per_device = per_device
        self.max_waiting = max_waiting
        self.wait = wait
        self.cond = threading.Condition()
        self.lines: OrderedDict[str, deque[Ticket]] = OrderedDict()  # devices with requests waiting, in turn order
        self.active: dict[str, int] = {}  # device -> turns it holds
        self.held = 0
        self.given = 0  # turns given so far
        self.served: dict[str, int] = {}  # device -> the number of its last turn (the oldest goes next)
        self.last: str | None = None  # the device that had the last turn
        self.refused = 0  # for tests and benchmarks
        self.thread: threading.Thread | None = None
        # Under threads (tests, `flask run`) the OS preempts a long request, so an uncontended
        # one may start at once. Under gevent never: requests that arrived together must all be
        # in line before the first turn is given, or they run back to back in arrival order.
        self.immediate = not cooperative()

    def enter(self, device: str) -> bool:
        """Wait for a turn; False: refused (the device is over its share)."""
        ticket = Ticket(device)
        with self.cond:
            if self.immediate and not self.lines and self.held < self.running \
                    and self.active.get(device, 0) < self.per_device:
                self._take(device)
                return True  # uncontended, under threads: at once
            line = self.lines.get(device)
            if line is not None and len(line) >= self.max_waiting:
                self.refused += 1
                return False
            if line is None:
                line = self.lines[device] = deque()
            line.append(ticket)
            if self.thread is None:
                self.thread = threading.Thread(target=self.dispatch, name="fair-turns", daemon=True)
                self.thread.start()
            self.cond.notify_all()
        if ticket.granted.wait(self.wait):
            return True
        with self.cond:
            if ticket.granted.is_set():  # given just as the wait ran out
                return True
            ticket.cancelled = True
            line = self.lines.get(device)
            if line is not None:
                try:
                    line.remove(ticket)
                except ValueError:
                    pass
                if not line:
                    del self.lines[device]
            self.refused += 1
        return False

    def leave(self, device: str) -> None:
        with self.cond:
            self.held -= 1
            left = self.active.get(device, 1) - 1
            if left > 0:
                self.active[device] = left
            else:
                self.active.pop(device, None)
            self.cond.notify_all()

    def _next(self) -> Ticket | None:
        """The waiting device (with a turn to spare) whose last turn is the oldest (lock held)."""
        best = None
        for device in self.lines:
            if self.active.get(device, 0) < self.per_device:
                if best is None or self.served.get(device, -1) < self.served.get(best, -1):
                    best = device
        return None if best is None else self.lines[best][0]

    def _grant(self, ticket: Ticket) -> None:
        line = self.lines[ticket.device]
        line.popleft()
        if not line:
            del self.lines[ticket.device]
        self._take(ticket.device)
        ticket.granted.set()

    def _take(self, device: str) -> None:
        """``device`` starts a turn (lock held)."""
        self.held += 1
        self.active[device] = self.active.get(device, 0) + 1
        self.given += 1
        self.served[device] = self.given
        if len(self.served) > 4096:  # a flood of addresses: forget those not waiting
            self.served = {d: n for d, n in self.served.items() if d in self.lines or d in self.active}
        self.last = device

    def dispatch(self) -> None:
        polled = False
        while True:
            with self.cond:
                while self.held >= self.running or self._next() is None:
                    self.cond.wait()
                ticket = self._next()
                if ticket.device != self.last or polled:
                    self._grant(ticket)
                    polled = False
                    continue
            # The device that had the last turn would have the next one: first let the server
            # read what else has arrived (under gevent a short sleep polls every socket), so a
            # phone that asked while that device's request ran goes first.
            time.sleep(POLL_S)
            polled = True


class FairShare:
    """WSGI layer, outermost: every request but event streams waits for its device's turn."""

    def __init__(self, app: Callable, headers: list[tuple[str, str]], pages: Pages, turns: Turns | None = None):
        self.app = app
        self.pages = pages
        self.turns = turns or Turns()
        self.headers = [("Retry-After", str(RETRY_AFTER_SECONDS)), ("Cache-Control", "no-store")] + headers

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        route = table_route(environ)
        if (route == "events" and environ.get("REQUEST_METHOD") == "GET") or environ.get("PATH_INFO") == HEALTH:
            # A held stream costs no work until a change; the liveness check (static/outbox.js
            # asks it to tell "the laptop is away") must answer at once, not wait in line.
            return self.app(environ, start_response)
        device = environ.get("REMOTE_ADDR", "")
        if not self.turns.enter(device):
            client_trouble(environ, "share", f"over its fair share (more than {self.turns.max_waiting} requests "
                                             f"waiting, or {self.turns.wait:g} s in line): answered 503")
            return refuse_busy(self.pages, self.headers, environ, start_response, route == "live")
        done = False

        def leave() -> None:
            nonlocal done
            if not done:
                done = True
                self.turns.leave(device)

        def started(status: str, headers, exc_info=None):
            leave()  # rendered: sending it needs no turn
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        try:
            return self.app(environ, started)
        finally:
            leave()
