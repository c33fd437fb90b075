"""A fair share per device: one device can't slow the room, whatever it sends.

Under gevent a request runs to its end without yielding (rendering is pure Python, SQLite
calls are C calls), so "2 requests per table" never triggers: 64 connections from one device
make 64 requests the hub runs one after another, and every other phone's request waits
behind all of them (issue 23: other tables' p99 went from 76 ms to 4 s). Here the app's work
is handed out in turns, round-robin by device (its source address):

- every request that reaches the app joins its device's line (event streams, which wait for
  changes and cost no work, and the live answers known in memory are given before this layer,
  see companion/serving/__init__.py; /healthz never waits). The laptop's own requests (its
  browser on 127.0.0.1 or ::1 naming itself: the hall, any page it opens, the projector's
  included) never join a line: they run at once, never behind a phone;
- a dispatcher gives ``running`` turns at once, at most ``per_device`` of them to one device,
  each to the waiting device that has *used the least* lately: its requests, each counted 1
  plus 1 per 10 ms its turn took (at most 4 more: one turn stalled by the machine can't put a
  phone behind everyone for long), fading by half every ``half_life`` seconds (ties: the device
  whose last turn is the oldest). A device is a source address, so one attacker's 64 addresses are
  64 devices; but each of them is busy, and a phone that asks now and then has used almost
  nothing: it goes before all of them. Before each turn the dispatcher lets the server read
  what else has arrived (a short sleep, so gevent polls its sockets), so a phone that asked
  while a heavy page rendered is in line, and goes next;
- a device with ``max_waiting`` requests already in line, or whose request waited ``wait``
  seconds, is answered 503 with Retry-After at once (the busy page, what was typed kept);
  no other device is affected. All the lines together hold at most ``max_waiting_all``
  requests: past that the busiest device's newest waiting request is answered 503 to make
  room (or the newcomer's, if its device is the busiest), so many addresses can't fill the
  lines either.

A turn ends when the app starts its answer (the page is rendered): sending it to a slow phone
needs none. Uses threading's primitives only (gevent's monkey-patching makes them
cooperative), so it works under a thread pool (tests, `flask run`) and under gevent alike.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from typing import Callable, Iterable

from ..devices import device_of, is_organiser
from . import client_trouble, table_route
from .limits import TURNS
from .pages import Pages
from .turns import RETRY_AFTER_SECONDS, refuse_busy

HEALTH = "/healthz"
POLL_S = 0.0005  # the dispatcher's pause before a turn, under threads


def cooperative() -> bool:
    """Is threading gevent's (`companion serve`)?"""
    try:
        from gevent import monkey
    except ImportError:
        return False
    return monkey.is_module_patched("threading")


def let_server_read() -> None:
    """Under gevent, wait until the loop is idle: every socket polled (at once, never sleeping:
    on a busy machine a sleep gives the CPU away for far longer than asked) and what arrived
    read. Under threads, a short sleep."""
    if cooperative():
        import gevent

        gevent.idle()
    else:
        time.sleep(POLL_S)


OVER = "over"  # a turn refused: the device asked too much
WAITED = "waited"  # a turn refused: the device waited its time in line


class Ticket:
    __slots__ = ("device", "granted", "cancelled", "bumped")

    def __init__(self, device: str):
        self.device = device
        self.granted = threading.Event()
        self.cancelled = False
        self.bumped = False  # refused while waiting, to make room for a device that used less


TURN_UNIT_S = 0.01  # a request counts 1, and 1 more per this much of its turn...
MAX_TURN_UNITS = 4.0  # ...at most this many more (a turn's wall time includes the machine's stalls)
HALF_LIFE_S = 5.0  # a device's use fades by half this often


def request_cost(turn_seconds: float) -> float:
    """What one request counts as in a device's use (see the module's docstring)."""
    return 1.0 + min(turn_seconds / TURN_UNIT_S, MAX_TURN_UNITS)


class Usage:
    """What each device has used lately (:func:`request_cost` per request), fading by half every
    ``half_life`` seconds. Kept as a score grown by ``2 ** (t / half_life)`` at the time ``t`` of each use, so
    devices compare by their scores with no decay computed per comparison."""

    def __init__(self, half_life: float = HALF_LIFE_S, clock: Callable[[], float] = time.monotonic):
        self.half_life = half_life
        self.clock = clock
        self.base = clock()
        self.scores: dict[str, float] = {}

    def add(self, device: str, seconds: float) -> None:
        now = self.clock()
        if now - self.base > 40 * self.half_life:  # keep the scores' exponents small
            shrink = 2.0 ** (-(now - self.base) / self.half_life)
            self.scores = {d: v * shrink for d, v in self.scores.items() if v * shrink > 1e-9}
            self.base = now
        self.scores[device] = self.scores.get(device, 0.0) + seconds * 2.0 ** ((now - self.base) / self.half_life)

    def score(self, device: str) -> float:
        return self.scores.get(device, 0.0)

    def now(self, device: str) -> float:
        """The device's use now (faded)."""
        return self.score(device) * 2.0 ** (-(self.clock() - self.base) / self.half_life)

    def forget(self, keep: Callable[[str], bool]) -> None:
        """Drop the devices that have used next to nothing lately (and aren't ``keep``)."""
        floor = 1e-3 * 2.0 ** ((self.clock() - self.base) / self.half_life)
        self.scores = {d: v for d, v in self.scores.items() if v > floor or keep(d)}


class Turns:
    """Turns by device, the device that used the least lately first; see the module's docstring."""

    def __init__(self, running: int = 2, per_device: int = TURNS, max_waiting: int = 32, wait: float = 10.0,
                 max_waiting_all: int = 256, half_life: float = HALF_LIFE_S):
        self.running = running
        self.per_device = per_device
        self.max_waiting = max_waiting
        self.max_waiting_all = max_waiting_all
        self.wait = wait
        self.cond = threading.Condition()
        self.lines: OrderedDict[str, deque[Ticket]] = OrderedDict()  # devices with requests waiting, in turn order
        self.waiting = 0  # requests in all the lines
        self.active: dict[str, int] = {}  # device -> turns it holds
        self.started: dict[str, list[float]] = {}  # device -> when each of its turns started
        self.usage = Usage(half_life)
        self.held = 0
        self.given = 0  # turns given so far
        self.served: dict[str, int] = {}  # device -> the number of its last turn (the oldest goes next among equals)
        self.last: str | None = None  # the device that had the last turn
        self.refused = 0  # for tests and benchmarks
        self.thread: threading.Thread | None = None
        # Under threads (tests, `flask run`) the OS preempts a long request, so an uncontended
        # one may start at once. Under gevent never: requests that arrived together must all be
        # in line before the first turn is given, or they run back to back in arrival order.
        self.immediate = not cooperative()

    def enter(self, device: str) -> bool:
        """Wait for a turn; False: refused."""
        return self.wait_turn(device) is None

    def wait_turn(self, device: str) -> str | None:
        """Wait for a turn; None once given, else why it was refused: OVER (the device asked
        too much: its line is full, or it is the busiest when every line is), or WAITED (it
        waited its ``wait`` seconds in line: the room was busy, not this device's doing)."""
        ticket = Ticket(device)
        with self.cond:
            if self.immediate and not self.lines and self.held < self.running \
                    and self.active.get(device, 0) < self.per_device:
                self._take(device)
                return None  # uncontended, under threads: at once
            line = self.lines.get(device)
            if line is not None and len(line) >= self.max_waiting:
                self.refused += 1
                return OVER
            if self.waiting >= self.max_waiting_all and not self._make_room(device):
                self.refused += 1
                return OVER
            if line is None:
                line = self.lines[device] = deque()
            line.append(ticket)
            self.waiting += 1
            if self.thread is None:
                self.thread = threading.Thread(target=self.dispatch, name="fair-turns", daemon=True)
                self.thread.start()
            self.cond.notify_all()
        if ticket.granted.wait(self.wait) and not ticket.bumped:
            return None
        with self.cond:
            if ticket.bumped:  # the busiest device's newest, to make room for one that used less
                self.refused += 1
                return OVER
            if ticket.granted.is_set():  # given just as the wait ran out
                return None
            ticket.cancelled = True
            self._drop(ticket)
            self.refused += 1
        return WAITED

    def _busier(self, device: str) -> tuple[float, int]:
        """How busy ``device`` is: its use lately, then its requests waiting (lock held)."""
        return self.usage.score(device), len(self.lines.get(device, ()))

    def _make_room(self, device: str) -> bool:
        """Every line together is full: refuse the busiest device's newest waiting request,
        unless ``device`` (asking now) is at least as busy (lock held). True: room made."""
        busiest = max(self.lines, key=self._busier, default=None)
        if busiest is None or busiest == device:
            return False
        mine = self._busier(device)
        if self._busier(busiest) <= (mine[0], mine[1] + 1):
            return False
        ticket = self.lines[busiest][-1]
        self._drop(ticket)
        ticket.bumped = True
        ticket.granted.set()  # wakes its request, which answers 503
        return True

    def _drop(self, ticket: Ticket) -> None:
        """Take a waiting ticket out of its line (lock held)."""
        line = self.lines.get(ticket.device)
        if line is None:
            return
        try:
            line.remove(ticket)
        except ValueError:
            return
        self.waiting -= 1
        if not line:
            del self.lines[ticket.device]

    def leave(self, device: str) -> None:
        with self.cond:
            self.held -= 1
            left = self.active.get(device, 1) - 1
            if left > 0:
                self.active[device] = left
            else:
                self.active.pop(device, None)
            starts = self.started.get(device)
            if starts:
                self.usage.add(device, request_cost(time.perf_counter() - starts.pop(0)))
                if not starts:
                    del self.started[device]
            self.cond.notify_all()

    def _next(self) -> Ticket | None:
        """The waiting device (with a turn to spare) that used the least lately (lock held)."""
        best, best_key = None, None
        for device in self.lines:
            if self.active.get(device, 0) < self.per_device:
                key = (self.usage.score(device), self.served.get(device, -1))
                if best is None or key < best_key:
                    best, best_key = device, key
        return None if best is None else self.lines[best][0]

    def _grant(self, ticket: Ticket) -> None:
        line = self.lines[ticket.device]
        line.popleft()
        self.waiting -= 1
        if not line:
            del self.lines[ticket.device]
        self._take(ticket.device)
        ticket.granted.set()

    def _take(self, device: str) -> None:
        """``device`` starts a turn (lock held)."""
        self.held += 1
        self.active[device] = self.active.get(device, 0) + 1
        self.started.setdefault(device, []).append(time.perf_counter())
        self.given += 1
        self.served[device] = self.given
        if len(self.served) > 4096:  # a flood of addresses: forget those not waiting
            self.served = {d: n for d, n in self.served.items() if d in self.lines or d in self.active}
            self.usage.forget(lambda d: d in self.lines or d in self.active)
        self.last = device

    def dispatch(self) -> None:
        polled = False
        while True:
            with self.cond:
                while self.held >= self.running or self._next() is None:
                    self.cond.wait()
                ticket = self._next()
                if polled or (self.held == 0 and ticket.device != self.last):
                    # At once when no turn runs and another device asks (an ordinary hall's
                    # request never waits for the loop); else once the server read what arrived.
                    self._grant(ticket)
                    polled = False
                    continue
            # Before each turn, let the server read what else has arrived (turns given back to
            # back would run as one chain of gevent callbacks, the sockets unread meanwhile), so
            # a phone that asked while the last turn ran is in line, and goes first if it used less.
            let_server_read()
            polled = True


class FairShare:
    """WSGI layer, outermost: every request but event streams waits for its device's turn."""

    def __init__(self, app: Callable, headers: list[tuple[str, str]], pages: Pages, turns: Turns | None = None,
                 join_host: Callable[[], str | None] | None = None):
        self.app = app
        self.pages = pages
        self.turns = turns or Turns()
        self.join_host = join_host  # the laptop's own address, for its Host header
        self.headers = [("Retry-After", str(RETRY_AFTER_SECONDS)), ("Cache-Control", "no-store")] + headers

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        route = table_route(environ)
        if (route == "events" and environ.get("REQUEST_METHOD") == "GET") or environ.get("PATH_INFO") == HEALTH \
                or is_organiser(environ, self.join_host):
            # A held stream costs no work until a change; the liveness check (static/outbox.js
            # asks it to tell "the laptop is away") must answer at once, not wait in line; the
            # laptop's own pages (the organiser's hall, the projector) never wait behind a phone.
            return self.app(environ, start_response)
        device = device_of(environ)
        refusal = self.turns.wait_turn(device)
        if refusal is not None:
            # Only a device that asked too much is "refused lately" (its new connections counted:
            # companion/serving/server.py); one that waited its time in line did nothing wrong.
            if refusal == OVER:
                client_trouble(environ, "share", f"over its fair share (more than {self.turns.max_waiting} requests "
                                                 "waiting, or the busiest when every line is full): answered 503")
            else:
                client_trouble(environ, "waited", f"waited {self.turns.wait:g} s in line (the room is busy): "
                                                  "answered 503")
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
