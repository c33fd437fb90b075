"""This phone's player tonight, kept in its session: the night's pages on a player's phone
and the season's "my page" (companion/players) ask who it is."""

from __future__ import annotations

from flask import session

from ..store import get_db
from . import service


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
    return found if found is not None and not found.left else None


def remember_me(who: service.Player) -> None:
    session[SESSION_KEY] = {"night": service.current_night(get_db()), "id": who.id}
    session.permanent = True  # a phone locked for an hour is still Ann's


def forget_me() -> None:
    """This phone is no one's any more (another person takes it, or its player left)."""
    session.pop(SESSION_KEY, None)
