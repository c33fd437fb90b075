"""What changed, said by the code that changed it (issue 30): the publish seam.

After each write commits, the service that made it publishes one small :class:`Change`: which
kind of thing changed (a table, the night, the players' season), its key (a table's token, …)
and, where the writer knows it, its new revision. Whoever shows it subscribes: the event
streams (companion/serving/events.py) wake exactly the phones watching that table, and know
its revision without asking the database. Nothing guesses from URLs, and nothing sweeps.

One implementation, in-process (listeners called in the writer's own thread or greenlet, right
after its commit); the interface is kept this small so that another can carry changes between
processes (PostgreSQL's LISTEN/NOTIFY) without touching the writers or the listeners.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable, Literal

Kind = Literal["table", "night", "players"]
Listener = Callable[["Change"], None]

TABLE: Kind = "table"
NIGHT: Kind = "night"
PLAYERS: Kind = "players"
# This process may have missed other processes' changes (the relay's connection was lost and is
# back): every listener re-reads from the store whatever it keeps in memory.
EVERYTHING: Kind = "everything"


@dataclass(frozen=True)
class Change:
    """``kind`` "table": ``key`` is its token, ``revision`` its revision after the write (None:
    the writer doesn't know it; a listener that needs it asks the store). "night": the current
    night changed (its roster, rounds, clock, tables); "players": the season's stored results."""

    kind: Kind
    key: str = ""
    revision: int | None = None


_listeners: tuple[Listener, ...] = ()
_lock = threading.Lock()
_log = logging.getLogger("companion.changes")


def subscribe(listener: Listener) -> Callable[[], None]:
    """Call ``listener(change)`` after every write from now on; returns the way to stop.
    A listener runs inside the writer's request: it must be quick and must not block."""
    global _listeners
    with _lock:
        _listeners = _listeners + (listener,)

    def unsubscribe() -> None:
        global _listeners
        with _lock:
            _listeners = tuple(known for known in _listeners if known is not listener)

    return unsubscribe


def publish(change: Change) -> None:
    """Tell every listener about ``change`` (its write is committed), and the other processes
    serving the same database through the relay, if one is set. A listener that fails is
    logged and skipped: the write is saved whatever a listener does."""
    tell_here(change)
    relay = _relay
    if relay is not None:
        try:
            relay(change)
        except Exception:  # noqa: BLE001  (the write is saved; the others learn of the next one)
            _log.exception("could not relay %r to the other servers", change)


# Where changes go to the other processes serving the same database (issue 35: PostgreSQL's
# NOTIFY, companion/store/postgres.py's ChangeRelay); None: this process is the only one.
_relay: Callable[[Change], None] | None = None


def relay_through(send: Callable[[Change], None] | None) -> None:
    """Send every change published here to the other processes too (None: stop). What they
    send arrives through :func:`tell_here`, never relayed again."""
    global _relay
    _relay = send


def shared() -> bool:
    """Other processes write to the same store (``relay_through`` is on: ``--workers``, or two
    laptops on one PostgreSQL): what this process knows in memory of a table may be behind
    the store until their announcement arrives, so whoever answers "unchanged" asks the store."""
    return _relay is not None


def tell_here(change: Change) -> None:
    """Tell this process's listeners about ``change`` (made here, or by another process)."""
    for listener in _listeners:  # a tuple, replaced whole: (un)subscribing meanwhile is safe
        try:
            listener(change)
        except Exception:  # noqa: BLE001  (no listener may break a saved write)
            _log.exception("a listener of %r failed", change)
