"""Every blueprint answers a write's outcome (companion/outcomes.py) the same way (issue 41):
one status per outcome, here, and one function that runs a write and answers it.

- saved (now, sent again, or already so): 303 to the page as it now is (an htmx request
  gets its part, 200);
- refused: 422, the form sent re-rendered, what was typed kept, each reason beside its
  field; a button that sends nothing to re-render (Finish, Rematch, End at time) is answered
  with the page as it now is and the reason: 409, as any page pressed after it changed;
- a conflict, or a table that has started: 409; not found: 404; locked: 403;
- the store could not save (a failure of the machine, raised as the store's StorageError,
  never an outcome): 503, the form re-rendered with what was typed, the reason said in the
  terminal too (companion/web/refusals.py).
"""

from __future__ import annotations

from typing import Callable

from flask import abort
from flask.typing import ResponseReturnValue

from ..outcomes import Outcome, Result
from ..store import StorageError
from .forms import group_errors
from .refusals import storage_message

STATUS = {
    Outcome.SAVED: 303,
    Outcome.REPEATED: 303,
    Outcome.SAME: 303,
    Outcome.REFUSED: 422,
    Outcome.CONFLICT: 409,
    Outcome.STARTED: 409,
    Outcome.NOT_FOUND: 404,
    Outcome.LOCKED: 403,
}
NOT_SAVED = 503  # the store's StorageError
STALE = 409  # a refused button: the page it was pressed on is no longer the page as it is


def status_of(result: Result | Outcome, *, form: bool = True) -> int:
    """The HTTP status of a write's outcome. ``form``: the answer re-renders the form that was
    sent (a refusal: 422); False for a button answered with the page as it now is (409)."""
    outcome = result if isinstance(result, Outcome) else result.outcome
    if outcome is Outcome.REFUSED and not form:
        return STALE
    return STATUS[outcome]


def reasons(result: Result, field: str) -> dict[str, list]:
    """What a page shows beside its fields: a refusal's reasons by field, and the sentence of
    any other outcome (a conflict, a started table) beside ``field``."""
    errors = group_errors(list(result.errors))
    if result.message is not None:
        errors.setdefault(field, []).append(result.message)
    return errors


Page = Callable[[dict, int], ResponseReturnValue]  # the form again: (reasons by field, status)


def answer(write: Callable[[], Result], *, saved: Callable[[Result], ResponseReturnValue], page: Page,
           field: str, form: bool = True) -> ResponseReturnValue:
    """Run ``write`` (a service write) and answer it: ``saved(result)`` once it is stored,
    404 for nothing found, else ``page(reasons, status)``; a storage failure is ``page`` too
    (503), its reason beside ``field``."""
    try:
        result = write()
    except StorageError as error:
        return page({field: [storage_message(error)]}, NOT_SAVED)
    if result.saved:
        return saved(result)
    if result.outcome is Outcome.NOT_FOUND:
        abort(404)
    return page(reasons(result, field), status_of(result, form=form))
