"""Names on tonight's list and the phones that own them, in the pages (issue 32; the rules are
companion.claims): a phone's device id, its waiting request, and the organiser's answers and
"remove these" on the laptop's hall page."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import gettext

from .. import claims
from .. import tables as store
from ..store import StorageError, get_db

bp = Blueprint("claims", __name__)

DEVICE_KEY = "device"  # this phone's id in its (signed) session cookie
CLAIM_KEY = "night_claim"  # the request this phone is waiting on


def device_id(create: bool = False) -> str | None:
    """This phone's device id (made on its first join; None before, unless ``create``)."""
    found = session.get(DEVICE_KEY)
    if not isinstance(found, str) and create:
        found = session[DEVICE_KEY] = claims.new_device_id()
    return found if isinstance(found, str) else None


def device_address() -> str | None:
    """The address a device's limit of names counts by (None: the laptop, which isn't limited)."""
    from .tables import is_the_laptop
    return None if is_the_laptop() else (request.remote_addr or "")


def join_as_this_phone(conn, picked: int | None, name: str | None):
    """This phone asks for a name (tapped: ``picked``, else typed): the player, or claims.Waiting
    (remembered in the session, so the join page shows the wait)."""
    found = claims.join_as(conn, device_id(create=True), device_address(),
                           player_id=picked if picked else None, name=None if picked else name)
    if isinstance(found, claims.Waiting):
        session[CLAIM_KEY] = found.claim_id
        session.permanent = True
    else:
        session.pop(CLAIM_KEY, None)
    return found


def owns(conn, player_id: int) -> bool:
    return claims.owns(conn, player_id, device_id())


def waiting_page():
    """The join page's answer while this phone waits on a request: "waiting" (it reloads itself),
    the player once allowed (None: the caller remembers them), or the refusal. None: no request."""
    claim_id = session.get(CLAIM_KEY)
    device = device_id()
    if not isinstance(claim_id, int) or device is None:
        return None
    conn = get_db()
    found = claims.claim_of(conn, claim_id, device)
    if found is None or found["state"] == "withdrawn":
        session.pop(CLAIM_KEY, None)
        return None
    if found["state"] == "waiting":
        return render_template("night/waiting.html", name=found["name"]), 200, {"Cache-Control": "no-store"}
    session.pop(CLAIM_KEY, None)
    if found["state"] == "allowed":
        return found
    from .hall import join_page
    return join_page({}, {"name": [gettext("The organiser did not give you “%(name)s”. If it is your name, "
                                            "talk to the organiser.", name=found["name"])]}, 200)


@bp.post("/night/claim/cancel")
def cancel():
    """The phone stops waiting (its request stays unanswered on the laptop, then is withdrawn
    by its next one)."""
    session.pop(CLAIM_KEY, None)
    return redirect(url_for("hall.join"), code=303)


# --------------------------------------------------------------------------
# The organiser, on the laptop


def laptop_only():
    """The organiser's answers come from the laptop's own browser (127.0.0.1 or ::1, naming itself
    in Host): other loopback addresses are other devices, as in the tests and benches."""
    from .tables import is_the_laptop
    if not is_the_laptop():
        return render_template("error.html", message=gettext(
            "The hall view opens only on the host laptop.")), 403
    return None


@bp.post("/hall/claims/<int:claim_id>")
def answer(claim_id: int):
    if (refused := laptop_only()) is not None:
        return refused
    from .hall import hall_page
    try:
        claims.answer(get_db(), claim_id, request.form.get("action") == "allow")
    except store.NotFound:
        abort(404)
    except StorageError as error:
        from .tables import storage_message
        return hall_page({}, {"claims": [storage_message(error)]}, 503)
    return redirect(url_for("hall.index") + "#roster", code=303)


@bp.post("/hall/players/remove")
def remove_many():
    """The roster's ticked names, taken off tonight's list in one action."""
    if (refused := laptop_only()) is not None:
        return refused
    from .hall import hall_page
    ids = [int(v) for v in request.form.getlist("player") if v.isascii() and v.isdigit() and len(v) < 10]
    if not ids:
        return hall_page({}, {"remove": [gettext("Tick the names to remove first.")]}, 422)
    try:
        claims.remove_players(get_db(), ids)
    except StorageError as error:
        from .tables import storage_message
        return hall_page({}, {"remove": [storage_message(error)]}, 503)
    return redirect(url_for("hall.index") + "#roster", code=303)


@bp.app_template_global("claim_time")
def claim_time(stamp: str) -> str:
    """When a phone asked, on the laptop's clock."""
    from .tables import local_time
    return local_time(stamp, "%H:%M")
