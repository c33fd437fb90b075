"""Names on tonight's list and the phones that own them, in the pages (issue 32; the rules are
:mod:`.claims`, a phone's side :mod:`.phone`): the phone that stops waiting, and the organiser's
answers and "remove these" on the laptop's hall page."""

from __future__ import annotations

from flask import Blueprint, redirect, request, session, url_for
from flask_babel import gettext

from ..numbers import ascii_number
from ..store import get_db
from ..web.host import is_host_request, organiser_only
from ..web.outcomes import answer as answer_write
from ..web.times import local_time
from . import claims
from .phone import CLAIM_KEY
from .views import hall_page

bp = Blueprint("claims", __name__)


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
    if not is_host_request():
        return organiser_only(gettext("The hall view opens only on the host laptop."))
    return None


@bp.post("/hall/claims/<int:claim_id>")
def answer(claim_id: int):
    if (refused := laptop_only()) is not None:
        return refused
    return answer_write(lambda: claims.answer(get_db(), claim_id, request.form.get("action") == "allow"),
                        saved=lambda _answered: redirect(url_for("hall.index") + "#roster", code=303),
                        page=lambda errors, status: hall_page({}, errors, status), field="claims")


@bp.post("/hall/claims/refuse-all/<int:player_id>")
def refuse_all(player_id: int):
    """Every phone asking for this name refused at once (issue 44)."""
    if (refused := laptop_only()) is not None:
        return refused
    return answer_write(lambda: claims.refuse_all(get_db(), player_id),
                        saved=lambda _count: redirect(url_for("hall.index") + "#claims", code=303),
                        page=lambda errors, status: hall_page({}, errors, status), field="claims")


@bp.post("/hall/players/remove")
def remove_many():
    """The roster's ticked names, taken off tonight's list in one action."""
    if (refused := laptop_only()) is not None:
        return refused
    ids = [number for v in request.form.getlist("player") if (number := ascii_number(v)) is not None]
    if not ids:
        return hall_page({}, {"remove": [gettext("Tick the names to remove first.")]}, 422)
    return answer_write(lambda: claims.remove_players(get_db(), ids),
                        saved=lambda _removed: redirect(url_for("hall.index") + "#roster", code=303),
                        page=lambda errors, status: hall_page({}, errors, status), field="remove")


@bp.app_template_global("claim_time")
def claim_time(stamp: str) -> str:
    """When a phone asked, on the laptop's clock."""
    return local_time(stamp, "%H:%M")


# What tells phones apart from their User-Agent: the few families a room's phones have.
_SYSTEMS = (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Windows", "Windows"),
            ("Macintosh", "Mac"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))
_BROWSERS = (("SamsungBrowser", "Samsung Internet"), ("Edg", "Edge"), ("FxiOS", "Firefox"), ("Firefox", "Firefox"),
             ("CriOS", "Chrome"), ("Chrome", "Chrome"), ("Safari", "Safari"))


@bp.app_template_global("phone_words")
def phone_words(user_agent: str | None) -> str:
    """A phone as the organiser can tell it ("Chrome on Android"), from its User-Agent; "" when
    it says neither (a made-up or missing one)."""
    ua = user_agent or ""
    system = next((name for mark, name in _SYSTEMS if mark in ua), None)
    browser = next((name for mark, name in _BROWSERS if mark + "/" in ua), None)
    if browser and system:
        return gettext("%(browser)s on %(system)s", browser=browser, system=system)
    return browser or system or ""
