"""One vocabulary for writes (issue 41): what a service write did, as a value.

Every write of the tables, the night and the players returns a :class:`Result`, never raises
its decision: saved, refused (``errors``: which field and why), a conflict with what another
phone or the organiser did first, not found, locked, or a table already started. The web layer
answers each outcome with one status for every blueprint (companion/web/outcomes.py), as
boardgame.io's move returns the new state or ``INVALID_MOVE``, nothing else.

A failure of the machine (a full disk, a replaced database file: the store's ``StorageError``)
is no outcome of a decision: it stays the store's exception, and the web layer answers it.

No Flask here: scripts, the CLI and the tests read the same values.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from enum import Enum
from typing import Any, Sequence

from .games.model import FieldError
from .games.text import Text


class Outcome(Enum):
    """What a write did."""

    SAVED = "saved"  # written now
    REPEATED = "repeated"  # this write id was answered before: nothing written, answered as then
    SAME = "same"  # already so: the very deal recorded (a double tap), the rematch started or the players given by another phone
    CONFLICT = "conflict"  # another phone (or the organiser) changed it first: nothing written (``message`` says what)
    REFUSED = "refused"  # against the rules (``errors`` say which field and why): nothing written
    NOT_FOUND = "not_found"  # nothing has this token or id (any more): nothing written
    NO_TABLE = "not_found"  # no table has this token (the tables' name for NOT_FOUND)
    LOCKED = "locked"  # this device may not change the finished match (``lock`` says why): nothing written
    STARTED = "started"  # the table has started (a deal is recorded): its players stay as they are


SAVED_OUTCOMES = (Outcome.SAVED, Outcome.REPEATED, Outcome.SAME)


@dataclass(frozen=True)
class Result:
    """What a write did: its ``outcome``; for a refusal, ``errors`` by field; for any other
    answer that is not saved, ``message`` may say what happened."""

    outcome: Outcome
    _: KW_ONLY
    errors: tuple[FieldError, ...] = ()
    message: Text | None = None

    @property
    def saved(self) -> bool:
        """The change is stored (now, or by the first sending of this write id, or it was already)."""
        return self.outcome in SAVED_OUTCOMES


@dataclass(frozen=True)
class Done(Result):
    """A write's result with what it made or changed (``value``: a player, a round, the
    prepared tables' tokens…; None when there is nothing to give back)."""

    value: Any = None


def done(value: Any = None) -> Done:
    """Saved now, giving back ``value``."""
    return Done(Outcome.SAVED, value)


def refused(errors: Sequence[FieldError]) -> Done:
    """Against the rules: nothing written; ``errors`` say which field and why."""
    return Done(Outcome.REFUSED, errors=tuple(errors))


def not_found() -> Done:
    """Nothing has this id (any more): nothing written."""
    return Done(Outcome.NOT_FOUND)


def conflict(message: Text) -> Done:
    """Someone changed it first: nothing written; ``message`` says what."""
    return Done(Outcome.CONFLICT, message=message)


def started(message: Text) -> Done:
    """The table has started (a deal is recorded): its players stay as they are."""
    return Done(Outcome.STARTED, message=message)
