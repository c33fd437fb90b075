"""What a page says when the store could not save (a full or read-only disk, a damaged or
replaced database file), said in the terminal too: the host must act on it."""

from __future__ import annotations

import logging
import sys
import time

from flask import current_app, g, request
from flask_babel import gettext
from werkzeug.exceptions import HTTPException

from .. import metrics
from ..store import DatabaseAway, DatabaseBusy, NotSaved, StorageError, StorageFull, StorageReplaced, close_db


def not_saved_message() -> str:
    """Said when SQLite can't write (disk full, read-only file, locked too long): nothing was saved."""
    return gettext("The host laptop could not save this: its disk may be full or its database read-only. "
                   "Nothing was changed; try again.")


def damaged_message() -> str:
    """Said when the database file was damaged while the app ran (store.StorageDamaged)."""
    return gettext("The host laptop's database file is damaged, so this was not saved. What you entered "
                   "is kept here; the host should restart Table Companion (it checks the file at start).")


def replaced_message() -> str:
    """Said when the database file was deleted or replaced under the running server
    (store.StorageReplaced): nothing more can be saved until the host restarts it."""
    return gettext("The host laptop could not save this: its database file was deleted or replaced while "
                   "Table Companion was running. Nothing was changed and what you entered is kept here; "
                   "the host should restart Table Companion.")


def away_message() -> str:
    """Said when the club's database server does not answer (store.DatabaseAway, issue 46)."""
    return gettext("The club's database isn't answering, so this was not saved. What you entered is kept on "
                   "this phone and sent by itself when the database is back.")


def kept_message() -> str:
    """Said to a phone whose outbox keeps a write the laptop's disk refused (full, read-only)."""
    return gettext("The host laptop could not save this: its disk may be full or its database read-only. What "
                   "you entered is kept on this phone and sent by itself once it can be saved.")


def busy_message() -> str:
    """Said when every connection this server may hold to the club's database was in use too long
    (store.DatabaseBusy: a flood of requests, issue 46)."""
    return gettext("The club's server is very busy, so this was not saved. What you entered is kept on this "
                   "phone and sent by itself in a moment.")


def storage_message(error: StorageError, kept: bool = False) -> str:
    """Why the store refused: a full or read-only disk, a replaced file, a database server away
    or too busy, or a damaged file; ``kept``: the phone's outbox keeps the write and sends it again.
    Every refusal shown is also said in the terminal (the host must act on it), and counted (/metrics)."""
    metrics.refused(metrics.stored_refusal(error))
    say_in_terminal(error)
    if kept and type(error) in (NotSaved, StorageFull):
        return kept_message()
    if isinstance(error, DatabaseBusy):
        return busy_message()
    if isinstance(error, DatabaseAway):
        return away_message()
    if isinstance(error, StorageReplaced):
        return replaced_message()
    return not_saved_message() if isinstance(error, NotSaved) else damaged_message()


def kept_by_the_outbox() -> bool:
    """This request is a write the phone's outbox keeps until it is stored (htmx, with its write id)."""
    return request.headers.get("HX-Request") == "true" and bool(request.form.get("write_id"))


def the_apps_refusal(error: StorageError) -> bool:
    """Whether a table write's storage refusal is the app's own answer (the page's frame, swapped
    nowhere by a table page's request) rather than its form shown again with the reason: when the
    database is away (the table can't be read either), and whenever the outbox keeps the write and
    sends it again by itself (issue 46: SQLite's full or read-only disk as PostgreSQL away)."""
    return isinstance(error, DatabaseAway) or (isinstance(error, NotSaved) and kept_by_the_outbox())


def asked_again(error: StorageError):
    """The request's answer from its view run once more on a new connection, or None (then it is
    refused). Issue 46: when the club's database comes back, no request fails: the connection a
    request was lent may have been ended meanwhile without a word (a network's blip), which only
    its first question finds. A GET asks again; so does a write carrying its phone's write id (the
    store makes it at most once, and a resend is answered as the first time). A write without one
    is never made twice: refused. A second failure raises its store error."""
    if not isinstance(error, DatabaseAway) or isinstance(error, DatabaseBusy) or g.get("asked_again"):
        return None
    if request.method not in ("GET", "HEAD") and not request.form.get("write_id"):
        return None
    if not getattr(g.get("db"), "broken", False):
        return None  # the connection was never made (the server is away): asking again finds the same
    g.asked_again = True
    close_db()  # the lost connection back: the pool drops the idle ones with it, the next is new
    view = current_app.view_functions[request.endpoint]
    try:
        return current_app.make_response(current_app.ensure_sync(view)(**(request.view_args or {})))
    except HTTPException as refused:  # abort(404) and the like, answered as the first run would be
        return current_app.handle_http_exception(refused)


# The terminal the host watches: `companion serve` gives Flask's own log no stream (gevent's
# wsgi.errors is silenced), so storage refusals have their own logger writing to stderr, each
# kind at most once every LOG_EVERY seconds (a room of phones retrying must not flood it).
STORAGE_LOG = logging.getLogger("companion.storage")
if not STORAGE_LOG.handlers:
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("companion: %(message)s"))
    STORAGE_LOG.addHandler(_handler)
    STORAGE_LOG.setLevel(logging.WARNING)
LOG_EVERY = 10.0
_last_said: dict[str, float] = {}  # "<kind> <database>" -> when it was last said


def say_in_terminal(error: StorageError) -> None:
    kind = type(error).__name__
    key, now = f"{kind} {current_app.config.get('DATABASE')}", time.monotonic()
    if now - _last_said.get(key, -LOG_EVERY) < LOG_EVERY:
        return
    _last_said[key] = now
    if isinstance(error, StorageReplaced):
        STORAGE_LOG.error(
            "NOT SAVED: the database file %s was deleted or replaced while serving (%s). Every change is "
            "refused until Table Companion is restarted; to restore a backup: stop it, run `companion "
            "restore FILE`, start it again.", current_app.config.get("DATABASE"), error)
    else:
        STORAGE_LOG.error("NOT SAVED (%s) on %s %s: %s", kind, request.method, request.path, error)
