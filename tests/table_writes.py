"""The writes as scripts and tests like them: the table as stored (a write's value), or what
happened raised as the store's errors. Production code never raises for an outcome (issue 41:
one vocabulary for writes, companion/outcomes.py): every write of the tables, the night and the
players returns a ``Result``, and the views answer its ``outcome``. These wrappers, and
:func:`done` for any write, are the tests' shorthand for "this must succeed"."""

from __future__ import annotations

from typing import Any, Mapping

from companion.outcomes import Done
from companion.tables import service
from companion.tables.service import (Conflict, EndsEarlier, NeedsChoices, NoSuchTable, Outcome, Refused,
                                      Repeated, Table, Written)
from companion.games import FieldError


class Started(Conflict):
    """A round table has started (a deal is recorded): its players stay as they are."""


def done(result: Done | Written) -> Any:
    """What a write gave back (a table write's table), or what happened raised: :class:`Refused`
    (its ``errors``), :class:`NoSuchTable` (the store's NotFound), :class:`Started`, :class:`Conflict`."""
    if isinstance(result, Written):
        return raised(result)
    if result.outcome is Outcome.REFUSED:
        raise Refused(result.errors)
    if result.outcome is Outcome.NOT_FOUND:
        raise NoSuchTable("")
    if result.outcome is Outcome.STARTED:
        raise Started(result.message)
    if not result.saved:
        raise Conflict(result.message)
    return result.value


def raised(written: Written) -> Table:
    """The table, or what happened raised (:class:`Repeated`, :class:`Conflict`, :class:`Refused`
    and its kinds, :class:`NoSuchTable`)."""
    if written.outcome is Outcome.NO_TABLE:
        raise NoSuchTable("")
    if written.outcome is Outcome.LOCKED:
        raise Refused([FieldError("table", written.message)])
    if written.outcome is Outcome.REPEATED:
        raise Repeated(written.recorded)
    if written.outcome in (Outcome.CONFLICT, Outcome.SAME):
        raise Conflict(written.message, written.number)
    if written.outcome is Outcome.REFUSED:
        if written.removal is not None:
            raise EndsEarlier(written.removal[0] - 1, written.removal[1])
        if written.later_choices:
            raise NeedsChoices(written.errors, written.later_choices, written.unanswered)
        raise Refused(written.errors)
    assert written.table is not None
    return written.table


def create(conn, game_id: str, names, options: dict[str, int], rematch_of: int | None = None,
           numbered: bool = False) -> str:
    """The new table's token, or its refusal raised."""
    return raised(service.create(conn, game_id, names, options, rematch_of, numbered)).token


def seat(conn, token: str, names, options: Mapping[str, int], write_id: str | None = None) -> Table:
    """The table seated, or what happened raised (another phone seated it first: :class:`Conflict`)."""
    return raised(service.seat(conn, token, names, options, write_id))


def add_deal(conn, token: str, number: int, facts: dict[str, Any] | None = None, *,
             form: Mapping[str, str] | None = None, write_id: str | None = None) -> Table:
    return raised(service.enter_deal(conn, token, number, facts, form=form, write_id=write_id))


def edit_deal(conn, token: str, number: int, facts: dict[str, Any], was: str,
              choices: Mapping[int, Any] | None = None, write_id: str | None = None,
              remove_after_end: int | None = None) -> Table:
    return raised(service.correct_deal(conn, token, number, facts, was=was, choices=choices, write_id=write_id,
                                       remove_after_end=remove_after_end))


def undo_last(conn, token: str, number: int, write_id: str | None = None) -> Table:
    return raised(service.undo_deal(conn, token, number, write_id))


def set_finished(conn, token: str, finished: bool, write_id: str | None = None, time_up=None) -> Table:
    return raised(service.finish_match(conn, token, finished, write_id, time_up))


def rematch(conn, token: str, write_id: str | None = None) -> str:
    """The rematch's token (started now, or by another phone first), or what happened raised."""
    started = service.start_rematch(conn, token, write_id)
    if started.outcome is not Outcome.SAME:
        raised(started)
    assert started.rematch_token is not None
    return started.rematch_token


# --- a match played to its end -----------------------------------------------------------------

def rwd_win(winner: int, chips=(3, 3, 3, 4)) -> dict:
    """A four-player RWD deal that seat ``winner`` wins clearly (7 of the 13 tricks)."""
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return {"chips": list(chips), "tricks": tricks}


def play_until_over(conn, token: str, winner: int) -> Table:
    """Deals :func:`rwd_win` by ``winner`` until the table's match is over; the table then."""
    table = service.load(conn, token)
    while not table.match().over:
        table = add_deal(conn, token, len(table.deals) + 1, rwd_win(winner))
    return table


def finished_match(conn, names, winner: int = 0, counted: bool = True) -> str:
    """A new four-player RWD table played to its end, ``winner`` winning every deal; its token.
    ``counted``: opened on the laptop, so its night counts it; else a phone's side table."""
    token = create(conn, "rwd", list(names), {}, numbered=counted)
    play_until_over(conn, token, winner)
    return token
