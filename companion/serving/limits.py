"""How much each device may do, in one place (issue 42), and the one per-device map that counts it.

A device is a source address (companion/devices.py). What a phone does at a table is a few
things a minute, with bursts when the table moves; a device doing far more is flooding. Each
rule that counts a rate is a token bucket here, all in one bounded map (the devices seen
longest ago are forgotten first; a forgotten device starts again with full buckets, which is
what its buckets would hold by then for all but a flood of addresses), on the monotonic clock
(a jump of the laptop's wall clock neither blocks nor frees anyone):

- ``asks``: the live asks answered from memory ("unchanged", a partial already rendered:
  companion/serving/live.py). A phone asks once per change its stream tells it of, and every
  5 s while its stream is silent; 100 addresses x 4 connections asked 3,500 a second, and
  another phone waited 8 s for one answer;
- ``connecting``: new connections of a device *refused lately* (it asked too much, see
  :meth:`DeviceLimits.refused`), closed at accept past this (companion/serving/server.py);
  every other device connects freely;
- ``tables``: new tables (companion/tables/views.py): one device made 15,946 in 20 s;
- ``sign_in``: tries of the organiser's passcode behind a proxy (companion/web/organiser_signin.py);
- ``links``: distinct unknown table links asked for within a window (companion/serving/guard.py:
  guessing links is cut off; a phone asking again for its removed table's one link never is).

The rules that count what a device *holds* rather than a rate keep their counts beside what
they hold (a stream, a connection, a turn, a name on tonight's list), with their limits declared
here too: :data:`STREAMS` (companion/serving/events.py), :data:`CONNECTIONS`
(companion/serving/server.py), :data:`TURNS` (companion/serving/fair.py), :data:`NAMES_PER_NIGHT`
(companion/night/claims.py, counted in the store: the names outlive the server). The laptop is never counted by any of them.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Mapping


@dataclass(frozen=True)
class Rate:
    """``burst`` at once, then ``per_s`` a second."""

    burst: float
    per_s: float


RATES: dict[str, Rate] = {
    "asks": Rate(burst=10, per_s=5.0),
    "connecting": Rate(burst=16, per_s=1.0),
    "tables": Rate(burst=10, per_s=1 / 3.0),
    "sign_in": Rate(burst=5, per_s=1 / 30.0),
}
STREAMS = 4  # event streams at once: a page or two, a tab left open (events.STREAMS_PER_DEVICE)
CONNECTIONS = 64  # connections at once (a phone's browser opens at most 6 per host)
TURNS = 1  # requests of the app's at once (fair.Turns)
NAMES_PER_NIGHT = 4  # names on tonight's list one address holds, typed or taken (night/claims.py): a parent with children
REFUSED_FOR_S = 60.0  # a device refused for asking too much is counted at accept this long
DEVICES = 8192  # devices remembered


class DeviceLimits:
    """Every device's buckets (one per rule of ``rates``) and when it was last refused, in
    one map of at most ``devices`` devices, least recently seen forgotten first."""

    def __init__(self, rates: Mapping[str, Rate] | None = None, devices: int = DEVICES,
                 refused_for: float = REFUSED_FOR_S, clock: Callable[[], float] = time.monotonic):
        self.rates = dict(RATES if rates is None else rates)
        self.devices, self.refused_for, self.clock = devices, refused_for, clock
        # device -> {rule: (tokens, as of)}, "refused" -> (0, when it was last refused), and for
        # a rule counting distinct things (links) -> {key: when}, oldest first
        self.seen: OrderedDict[str, dict[str, tuple[float, float]]] = OrderedDict()
        self.lock = threading.Lock()
        self.refusals: dict[str, int] = {}  # by rule, for tests and benchmarks

    def _state(self, device: str) -> dict:
        """The device's entry, now the most recently seen (lock held)."""
        state = self.seen.pop(device, None)
        if state is None:
            state = {}
        self.seen[device] = state
        while len(self.seen) > self.devices:
            self.seen.popitem(last=False)
        return state

    def take(self, device: str, rule: str) -> int:
        """One of ``rule`` for ``device``: 0 if it may now (and it is counted), else the whole
        seconds until it may (nothing counted)."""
        rate, now = self.rates[rule], self.clock()
        with self.lock:
            state = self._state(device)
            tokens, since = state.get(rule, (rate.burst, now))
            tokens = min(rate.burst, tokens + max(0.0, now - since) * rate.per_s)
            if tokens >= 1.0:
                state[rule] = (tokens - 1.0, now)
                return 0
            state[rule] = (tokens, now)
            self.refusals[rule] = self.refusals.get(rule, 0) + 1
            return max(1, math.ceil(round((1.0 - tokens) / rate.per_s, 6)))  # 1/3 a second: no 1.0000001

    def give_back(self, device: str, rule: str) -> None:
        """What was taken was not done (a refused form opened no table): it doesn't count."""
        with self.lock:
            state = self.seen.get(device)
            found = state.get(rule) if state is not None else None
            if found is not None:
                state[rule] = (min(self.rates[rule].burst, found[0] + 1.0), found[1])

    def distinct(self, device: str, rule: str, now: float, window: float) -> int:
        """How many distinct things (links…) ``device`` was noted for under ``rule`` within the
        last ``window`` seconds (the older ones forgotten)."""
        with self.lock:
            state = self.seen.get(device)
            recent = state.get(rule) if state is not None else None
            if not recent:
                return 0
            while recent and next(iter(recent.values())) < now - window:
                recent.popitem(last=False)
            return len(recent)

    def note(self, device: str, rule: str, key: str, now: float, keep: int) -> None:
        """``device`` met ``key`` under ``rule`` now (the same key again only moves its time);
        at most ``keep`` kept, enough to decide, never more memory per device."""
        with self.lock:
            recent = self._state(device).setdefault(rule, OrderedDict())
            recent.pop(key, None)
            recent[key] = now
            while len(recent) > keep:
                recent.popitem(last=False)

    def refused(self, device: str) -> None:
        """``device`` asked too much and was refused: its new connections are counted for a while."""
        now = self.clock()
        with self.lock:
            self._state(device)["refused"] = (0.0, now)

    def refused_lately(self, device: str) -> bool:
        now = self.clock()
        with self.lock:
            state = self.seen.get(device)
            when = state.get("refused") if state is not None else None
            if when is None:
                return False
            if now - when[1] >= self.refused_for:
                del state["refused"]
                state.pop("connecting", None)  # a fresh start: a full bucket next time
                return False
            return True

    def may_connect(self, device: str) -> bool:
        """May ``device`` open a new connection now? Always, unless it was refused lately and
        has opened more than ``connecting`` allows since (then it is counted)."""
        return not self.refused_lately(device) or self.take(device, "connecting") == 0


def device_limits(app) -> DeviceLimits:
    """The app's one map (made on first use; CREATION_BURST and CREATION_EVERY_S, if set,
    change the ``tables`` rule, as the tests do)."""
    found = app.extensions.get("device_limits")
    if found is None:
        rates = dict(RATES)
        if "CREATION_BURST" in app.config or "CREATION_EVERY_S" in app.config:
            rates["tables"] = Rate(burst=app.config.get("CREATION_BURST", RATES["tables"].burst),
                                   per_s=1.0 / app.config.get("CREATION_EVERY_S", 1 / RATES["tables"].per_s))
        found = app.extensions["device_limits"] = DeviceLimits(rates)
    return found
