"""Issue 32 in the pages: a finished match's changes stay with its table (companion.tables.access), and
the read-only record of a match that the players' and season pages link to instead of the
table's link (which would let any phone change it)."""

from __future__ import annotations

from flask import Blueprint, abort, g, render_template, session

from ..store import get_db
from ..store import nights as night_rows
from ..store import players as player_rows
from ..web.phone_id import device_id
from ..web.host import is_host_request
from ..web.times import local_time
from . import access, service
from .confirming import LAPTOP, Who

bp = Blueprint("trust", __name__)


def change_lock(table: service.Table) -> access.Lock | None:
    """Why this device may not change ``table`` now (None: it may), once per request and table.
    The table views hand it to their templates as ``lock``: Undo, Correct, Reopen and Accept the
    tie are hidden where the change would be refused."""
    memo = g.setdefault("change_locks", {})
    key = (table.token, table.revision, table.finished, len(table.deals))
    if key not in memo:
        memo[key] = access.lock_for(get_db(), table, session, is_host_request())
    return memo[key]


def lock_key(table: service.Table) -> str:
    """The part of a cached rendering's key that says which buttons it shows."""
    lock = change_lock(table)
    return lock.reason if lock else ""


def who_here(token: str) -> Who:
    """Who this device is at the table ``token`` (issue 45): the laptop, or a phone with its id
    (made now if it has none: what it saves is told apart from what others confirm), the names
    it holds tonight and when it first opened the table while its match ran."""
    if is_host_request():
        return LAPTOP
    device = device_id(create=True)
    opened = session.get(access.SESSION_KEY)
    return Who(device, opened_at=opened.get(token) if isinstance(opened, dict) else None,
               keys=frozenset(night_rows.keys_held(get_db(), device)))


def remember_opened(table: service.Table) -> None:
    """This device has the table open while its match runs (see companion.tables.access.remember)."""
    access.remember(session, table)


@bp.get("/matches/<int:table_id>")
def record(table_id: int):
    """A match as it ended: its players, deals and result, for reading. No link to the table,
    no form: the players' and season pages send every phone here."""
    conn = get_db()
    token = player_rows.tokens(conn, {table_id}).get(table_id)
    table = service.load(conn, token) if token else None
    if table is None or not table.seated or not table.match().over:
        abort(404)
    return render_template("tables/record.html", table=table, game=table.game, match=table.match(),
                           played_at=local_time(table.updated_at, "%Y-%m-%d %H:%M"))


def device_key(token: str, load) -> str:
    """The part of a shared live rendering's key that says which change buttons it shows,
    reading the table (``load()``) only for a device that had it open while it ran: the laptop
    and a device that never had it open see the same buttons at a given revision."""
    if is_host_request():
        return "laptop"
    if not access.opened_before(session, token):
        return "stranger"
    return "opened:" + lock_key(load())
