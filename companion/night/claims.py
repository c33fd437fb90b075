"""A name on tonight's list belongs to the phone that joined as it (issue 32, items 2-4).

- A phone that types a new name joins as it and owns it (its session's device id). One device
  (one address) joins at most ``MAX_NAMES_PER_DEVICE`` names a night: a parent with children;
  more come from the organiser, on the laptop.
- The same phone asking again (tapping or typing the name) gets it back at once. A name nobody
  owns yet (the organiser added it on the laptop) goes to the first phone that asks for it.
- Another phone asking for an owned name is never given it silently: it makes a request the
  organiser allows (the name moves to the new phone, e.g. the old one is lost or dead; the old
  phone's pages say it is no longer on the list) or refuses, on the laptop's hall page.
- A name the organiser removed stays removed until the organiser adds it again.
- A phone that gives up its name ("Not Dea? Change the name on this phone", issue 44): a name
  it typed that never sat at a table leaves the list (a typo, the wrong person); one that sat,
  or that the organiser added, stays, no phone's, for its player to take again.

No Flask here: the views pass the phone's device id and address.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..changes import Change, publish
from ..games import FieldError
from ..games.text import T
from ..names import name_key
from ..outcomes import Done, Outcome, done, not_found, refused
from ..store import Connection, write
from ..store import nights as night_rows
from ..store import players as player_rows
from ..store import trust as claim_rows
from ..serving.limits import NAMES_PER_NIGHT
from ..tables import service as table_service
from . import service

MAX_NAMES_PER_DEVICE = NAMES_PER_NIGHT  # companion/serving/limits.py: how much each device may do


@dataclass(frozen=True)
class Waiting:
    """The phone asked for a name another phone owns: the organiser decides."""
    claim_id: int
    name: str


def join_as(conn: Connection, device: str, address: str | None, *, name: str | None = None,
            player_id: int | None = None, user_agent: str | None = None) -> Done:
    """This phone asks to be a name on tonight's list: by tapping it (``player_id``) or by typing
    it (``name``; a new name joins the list). Its value: the player it now is, or
    :class:`Waiting`. ``address``: the device's, for its limit of names (None: the laptop, not
    limited)."""
    joined = _join_as(conn, device, address, name=name, player_id=player_id, user_agent=user_agent)
    if joined.saved:
        publish(Change("night"))  # committed: the hall's roster and requests show it
    return joined


def _join_as(conn: Connection, device: str, address: str | None, *, name: str | None,
             player_id: int | None, user_agent: str | None = None) -> Done:
    typed = None
    if player_id is None:
        typed, errors = service.check_name(name)
        if errors:
            return refused(errors)
    with write(conn):
        tonight = service.current_night(conn)
        if player_id is not None:
            found = service.player(conn, player_id)
            if found is None:
                return refused([FieldError("name", T("That name is no longer on tonight's list."))])
        else:
            row = night_rows.player_by_key(conn, tonight, name_key(typed))
            found = service._player(row)
        if found is None:
            return _join_new(conn, tonight, typed, device, address)
        if found.left:
            return refused([FieldError("name", T(
                "The organiser took “{name}” off tonight's list. Ask the organiser to put you back on the list.",
                name=found.name))])
        owner = claim_rows.owner(conn, found.id)
        if owner == device:
            return done(found)
        if owner is None:  # added by the organiser: the first phone that asks is theirs, within its share
            if address is not None and claim_rows.names_held(conn, tonight, address) >= MAX_NAMES_PER_DEVICE:
                return refused([too_many_names()])
            claim_rows.take(conn, found.id, device, address)
            return done(found)
        return done(Waiting(claim_rows.insert_claim(conn, found.id, device, address, table_service.now(),
                                                    (user_agent or "")[:USER_AGENT_KEPT] or None), found.name))


KEPT_FOR_KNOWN = 40  # of tonight's list's MAX_ROSTER places: never taken by a name a phone made up


def too_many_names() -> FieldError:
    return FieldError("name", T("This phone has already joined {max} names tonight. Ask the organiser to add more "
                                "names on the laptop.", max=MAX_NAMES_PER_DEVICE))


def _join_new(conn: Connection, tonight: int, name: str, device: str, address: str | None) -> Done:
    """Inside the write: a new name on the list, this phone's."""
    if address is not None and claim_rows.names_held(conn, tonight, address) >= MAX_NAMES_PER_DEVICE:
        return refused([too_many_names()])
    listed = len(night_rows.roster(conn, tonight))
    if listed >= service.MAX_ROSTER:
        return refused([FieldError("name", T("Tonight's list is full ({max} players).", max=service.MAX_ROSTER))])
    key = name_key(name)
    # Issue 44: 50 addresses x 4 names filled the list and a real player got "full". The last
    # places are kept for names the season knows (a player of an earlier night) and the organiser's.
    if listed >= service.MAX_ROSTER - KEPT_FOR_KNOWN and player_rows.name_map(conn).get(key) is None:
        return refused([FieldError("name", T(
            "Tonight's list is nearly full: its last {kept} places are kept for players of earlier nights. "
            "Ask the organiser to add you on the laptop.", kept=KEPT_FOR_KNOWN))])
    stamp = table_service.now()
    player_id = night_rows.insert_player(conn, tonight, name, key, stamp)
    claim_rows.set_owner(conn, player_id, device, address)
    return done(service.Player(player_id, name, key, stamp))


def give_up(conn: Connection, player_id: int, device: str | None) -> Done:
    """This phone is no longer ``player_id`` (see the module's docstring). Not found: the name is
    not this phone's to give up (another phone's, or gone already)."""
    with write(conn):
        found = claim_rows.origin(conn, player_id)
        if found is None or device is None or found[0] != device:
            return not_found()
        sat = any(player_id in rt.player_ids for r in service.night_rounds(conn) for rt in r.tables)
        if sat or found[1] is None:
            claim_rows.release_owner(conn, player_id)
        else:
            night_rows.delete_player(conn, player_id)
    publish(Change("night"))
    return done()


def owns(conn: Connection, player_id: int, device: str | None) -> bool:
    """Whether the phone with this device id (None: a session from before names had owners)
    may be this player: the name is its own, or nobody's and the session already had it."""
    owner = claim_rows.owner(conn, player_id)
    return owner is None or owner == device


def claim_of(conn: Connection, claim_id: int, device: str) -> dict | None:
    """This phone's request (its ``state``: waiting, allowed, refused, withdrawn), or None."""
    found = claim_rows.claim(conn, claim_id)
    return found if found is not None and found["device"] == device else None


USER_AGENT_KEPT = 300  # of a phone's User-Agent: enough to name its browser and system
REQUESTS_SHOWN = 5  # of one name's requests, the hall shows the latest so many (issue 44)


def waiting(conn: Connection) -> list[dict]:
    """Tonight's requests for names, for the organiser, one entry per name asked for (issue 44:
    400 addresses asking for one name put 400 lines on the hall): its ``name``, ``player_id``,
    how many phones ask (``count``), and the latest :data:`REQUESTS_SHOWN` of them (``shown``,
    newest first, each with its ``address``, ``user_agent`` and ``asked_at``). Oldest name first."""
    names: dict[int, dict] = {}
    for row in claim_rows.waiting_claims(conn, service.current_night(conn)):
        entry = names.setdefault(row["player_id"], {"player_id": row["player_id"], "name": row["name"],
                                                    "count": 0, "all": []})
        entry["count"] += 1
        entry["all"].append(row)
    return [dict(entry, shown=entry.pop("all")[::-1][:REQUESTS_SHOWN]) for entry in names.values()]


def refuse_all(conn: Connection, player_id: int) -> Done:
    """The organiser refuses every phone asking for this name; its value: how many."""
    with write(conn):
        if service.player(conn, player_id) is None:
            return not_found()
        refused_now = claim_rows.refuse_waiting(conn, player_id)
    publish(Change("night"))
    return done(refused_now)


def answer(conn: Connection, claim_id: int, allow: bool) -> Done:
    """The organiser allows a request (the name moves to the asking phone) or refuses it."""
    with write(conn):
        found = claim_rows.claim(conn, claim_id)
        if found is None or found["night"] != service.current_night(conn):
            return not_found()
        if found["state"] != "waiting":
            return Done(Outcome.SAME)  # answered already (a second click, or from another tab)
        if allow:
            claim_rows.set_owner(conn, found["player_id"], found["device"])
        claim_rows.answer_claim(conn, claim_id, "allowed" if allow else "refused")
    publish(Change("night"))
    return done()


def remove_players(conn: Connection, player_ids: list[int]) -> Done:
    """The organiser takes several names off tonight's list in one action; its value: how many
    were removed."""
    removed = 0
    with write(conn):
        for player_id in dict.fromkeys(player_ids):
            found = service.player(conn, player_id)
            if found is not None and not found.left:
                night_rows.update_player(conn, player_id, left=True)
                removed += 1
    publish(Change("night"))
    return done(removed)
