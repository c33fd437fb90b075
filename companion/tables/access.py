"""May this device change this table now? (issue 32, item 1)

A table's link is all a phone needs to play, so while a match runs anyone with it may enter,
undo and correct (the table's phones sit side by side). Once the match is over its result
counts for the night and the season, so a change to it (undo, a correction, reopening,
accepting a tie) comes only from:

- the laptop itself, at any time (the organiser fixes a mistake found later);
- a device that had the table open before the match ended (its session remembers the tables
  it opened while they ran, see :func:`remember`), until the table's round closes (a drawn
  table: the next round is drawn or a new night begins) or, for any other table, for
  ``WINDOW`` after the match ended (its last deal, or "Finish match").

A phone that first opens the link after the match ended reads it and changes nothing.
No Flask here: the views pass the session (a mapping) and whether the request is the laptop's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, MutableMapping

from ..games.text import T, Text
from ..store import Connection
from ..store import trust as trust_store

WINDOW = timedelta(minutes=30)
SESSION_KEY = "opened"  # token -> when this device first opened the table while its match ran
MAX_REMEMBERED = 24  # a session cookie stays small: the most recent tables only (a night is a few)


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def is_over(table: Any) -> bool:
    """The match has ended (by its rules, or finished by hand)."""
    return table.match().over


def remember(session: MutableMapping, table: Any, when: datetime | None = None) -> None:
    """This device has the table open while its match runs: it may change it after it ends
    (within the window). Opening it after it ended remembers nothing."""
    if is_over(table) or not table.seated:
        return
    opened = session.get(SESSION_KEY)
    opened = dict(opened) if isinstance(opened, dict) else {}
    if table.token in opened:
        return
    opened[table.token] = (when or now_utc()).isoformat(timespec="seconds")
    if len(opened) > MAX_REMEMBERED:  # the oldest go first
        opened = dict(sorted(opened.items(), key=lambda item: str(item[1]))[-MAX_REMEMBERED:])
    session[SESSION_KEY] = opened


def opened_before(session: MutableMapping, token: str) -> bool:
    opened = session.get(SESSION_KEY)
    return isinstance(opened, dict) and token in opened


LATE = "late"  # the phone first opened the table after its match had ended: not one of its phones


@dataclass(frozen=True)
class Lock:
    """Why this device can't change this finished match: ``reason`` is a short key (part of a
    cached page's key), ``message`` what the page says."""
    reason: str
    message: Text

    @property
    def late(self) -> bool:
        """This phone was not at the table (it opened it after the end): it starts no rematch and
        gets no link to one."""
        return self.reason == LATE


def first_opened_after_end() -> Lock:
    return Lock(LATE, T("This match had ended when this phone first opened it: you can read it here, "
                          "but only a phone that was at the table, or the organiser's laptop, can change it."))


def round_closed() -> Lock:
    return Lock("round", T("This match's round is over, so it can no longer be changed from a phone: "
                           "ask the organiser to change it on the laptop."))


def window_passed(minutes: int) -> Lock:
    return Lock("window", T("This match ended more than {minutes} minutes ago, so it can no longer be changed "
                            "from a phone: ask the organiser to change it on the laptop.", minutes=minutes))


def decide(*, over: bool, laptop: bool, opened_before_end: bool, round_is_open: bool | None,
           ended: datetime | None, now: datetime) -> Lock | None:
    """The rule itself (None: the change may be made). ``round_is_open``: None for a table not
    drawn in a round; ``ended``: when its match ended."""
    if not over or laptop:
        return None
    if not opened_before_end:
        return first_opened_after_end()
    if round_is_open is not None:
        return None if round_is_open else round_closed()
    if ended is not None and now - ended > WINDOW:
        return window_passed(int(WINDOW.total_seconds() // 60))
    return None


def lock_for(conn: Connection, table: Any, session: MutableMapping, laptop: bool,
             now: datetime | None = None) -> Lock | None:
    """Whether (and why) this device may not change ``table`` now, reading what the rule needs."""
    if not is_over(table) or laptop:
        return None
    opened = opened_before(session, table.token)
    round_is_open = trust_store.round_open(conn, table.id) if opened else None
    ended = None
    if opened and round_is_open is None:
        stamp = table.ended_at or table.updated_at  # its finishing moment (issue 43)
        try:
            ended = datetime.fromisoformat(stamp)
        except (TypeError, ValueError):
            ended = None  # unreadable: the session's own record decides
    return decide(over=True, laptop=False, opened_before_end=opened, round_is_open=round_is_open,
                  ended=ended, now=now or now_utc())
