"""This phone's player tonight, kept in its session: the night's pages on a player's phone
and the season's "my page" (companion/players) ask who it is. A name on tonight's list belongs
to the phone that joined as it (issue 32, the rules in :mod:`.claims`): the phone's device id
and the request it waits on are kept in its session too."""

from __future__ import annotations

from flask import render_template, request, session
from flask_babel import gettext

from ..store import get_db
from ..web.host import phone_address
from ..web.phone_id import device_id
from . import claims, service


SESSION_KEY = "night_player"


def my_player() -> service.Player | None:
    """This phone's player tonight (None: not joined, or joined an earlier night)."""
    mine = session.get(SESSION_KEY)
    if not isinstance(mine, dict):
        return None
    conn = get_db()
    if mine.get("night") != service.current_night(conn):
        return None
    found = service.player(conn, mine.get("id") if isinstance(mine.get("id"), int) else None)
    # A player who left after their match keeps their night on their phone (and may come back);
    # a name the organiser took off the list is no longer this phone's.
    if found is None or (found.left and not found.leaving):
        return None
    # Issue 32: a name is the phone's that joined as it (another phone got it from the organiser).
    return found if owns(conn, found.id) else None


def remember_me(who: service.Player) -> None:
    session[SESSION_KEY] = {"night": service.current_night(get_db()), "id": who.id}
    session.permanent = True  # a phone locked for an hour is still Ann's


def forget_me(give_up: bool = False) -> None:
    """This phone is no one's any more (another person takes it, or its player left). With
    ``give_up``, its name is given up too (claims.give_up: a typo that never sat leaves the list)."""
    who = my_player() if give_up else None  # tonight's, still this phone's
    if who is not None:
        claims.give_up(get_db(), who.id, device_id())
    session.pop(SESSION_KEY, None)


CLAIM_KEY = "night_claim"  # the request this phone is waiting on


def join_as_this_phone(conn, picked: int | None, name: str | None):
    """This phone asks for a name (tapped: ``picked``, else typed): claims.join_as's result, its
    value the player or claims.Waiting (remembered in the session, so the join page shows the wait)."""
    found = claims.join_as(conn, device_id(create=True), phone_address(), user_agent=request.user_agent.string,
                           player_id=picked if picked else None, name=None if picked else name)
    if not found.saved:
        return found
    if isinstance(found.value, claims.Waiting):
        session[CLAIM_KEY] = found.value.claim_id
        session.permanent = True
    else:
        session.pop(CLAIM_KEY, None)
    return found


def owns(conn, player_id: int) -> bool:
    return claims.owns(conn, player_id, device_id())


def join_page(values: dict, errors: dict, status: int):
    """The join page: tonight's list to tap, or a name to type."""
    return render_template("night/join.html", values=values, errors=errors, roster=service.roster(get_db())), status


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
    return join_page({}, {"name": [gettext("The organiser did not give you “%(name)s”. If it is your name, "
                                            "talk to the organiser.", name=found["name"])]}, 200)
