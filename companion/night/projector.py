"""The screen for the room (issue 33): a read-only page of the night for a projector, opened
from the laptop's hall (/hall/screen), with no organiser control on it.

What it shows follows the night: before a round is drawn, the join code; once drawn and until
a deal is recorded, who sits where; while the round is played, the clock and each of its
tables' progress (the deal being played, who leads); once the round is over (or when the night
has no rounds), the whole leaderboard. Only the latest round's tables are ever shown. Every
figure comes from the night service and the tables' own matches: nothing is recomputed here.

It is a /hall page, so like the hall it answers only the laptop itself (the projector hangs off
the laptop; any device could read it, but nothing a phone needs is there, and the hall's rule
stays one rule: docs/organiser.md, "Every /hall page answers only the laptop itself"). It is
updated by push, as every live page: it holds the night's event stream (/night/events,
companion/serving/events.py) and, on "changed", asks /hall/screen/live with the night's
signature it shows, answered 204 when nothing it shows changed. Long lists are paged on the
page itself (static/projector.js), so the page never scrolls.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, url_for
from flask_babel import gettext

from ..store import Connection, get_db
from ..web.host import is_host_request, join_url, organiser_only
from ..web.live import unchanged
from ..web.times import local_time
from ..qr import qr_svg
from . import rolling, round_time, service
from .exports import round_label
from .views import board_rows

bp = Blueprint("screen", __name__)

WELCOME, SEATING, PLAYING, LEADERBOARD, ROLLING = "welcome", "seating", "playing", "leaderboard", "rolling"
PAGE_MS = 10000  # how long the screen shows each page of a list too long for it


def screen_state(latest: service.Round | None, has_standings: bool) -> str:
    """What the room needs to see now: the latest round's seating until one of its tables has a
    deal, its play until every table has a result, then the leaderboard (the join code while
    there is neither a round nor a result)."""
    if latest is not None and not round_time.round_over(latest):
        return PLAYING if any(rt.started for rt in latest.tables) else SEATING
    return LEADERBOARD if latest is not None or has_standings else WELCOME


def round_rows(latest: service.Round | None) -> list[dict]:
    """The latest round's tables (never an earlier round's), each as the hall's board row (its
    match, its leaders) labelled by the round, with whether its time is up."""
    if latest is None:
        return []
    rows = board_rows([rt.table for rt in latest.tables])
    for row, rt in zip(rows, latest.tables):
        match = row["match"]
        row.update(rt=rt, label=round_label(rt), time_up=round_time.round_time_is_up(latest, rt),
                   deal=None if match.over else len(match.deals) + 1)
    return rows


def seating_tables(latest: service.Round | None, names: dict[int, str]) -> list[dict]:
    """Who sits where, a table at a time: its label, game and players in seat order."""
    if latest is None:
        return []
    return [dict(rt=rt, label=round_label(rt), game=rt.table.game, players=[names.get(pid, "?") for pid in rt.player_ids])
            for rt in latest.tables]


def screen_context(conn: Connection, signature: str | None = None) -> dict:
    """``signature``: the night's, when the caller has just read it (for its 204 check)."""
    if signature is None:
        signature = service.night_signature(conn)  # first: see night_signature
    tables = service.night_tables(conn)
    rounds = service.shown_rounds(service.night_rounds(conn, tables))  # not a round held for review
    latest = rounds[-1] if rounds else None
    standings = rolling.leaderboard(conn, service.night_results(conn, tables, rounds))
    if rolling.settings(conn) is not None:
        return rolling_screen(conn, rounds, standings, signature)
    state = screen_state(latest, bool(standings))
    context = dict(state=state, latest=latest, standings=standings, signature=signature,
                   page_ms=PAGE_MS, round_over=round_time.round_over(latest))
    if state == SEATING:
        names = {p.id: p.name for p in service.roster(conn, with_left=True)}
        context["seating"] = seating_tables(latest, names)
    if state in (SEATING, PLAYING):
        seconds = round_time.clock_seconds(latest)
        context["clock"] = None if seconds is None else dict(seconds=seconds, paused=bool(latest.paused_at))
    if state == PLAYING:
        context["rows"] = round_rows(latest)
    if state == WELCOME:
        context["players"] = len(service.roster(conn))
    return context


def rolling_screen(conn: Connection, rounds: list[service.Round], standings, signature: str) -> dict:
    """Rolling tables (issue 47): everything at once, as tables start and end at any time: the
    tables just seated ("Table 3 is free: Ann, Bob, Cy, Di → <game>"), who waits, the tables
    playing with their clocks, and the standings (place points per match)."""
    names = {p.id: p.name for p in service.roster(conn, with_left=True)}
    busy = rolling.playing(rounds)
    announced = rolling.announcements(rounds, names)
    rows = board_rows([rt.table for r in rounds for rt in r.tables if rt in busy])  # just seated too: their clocks run
    where = {rt.table.id: (r, rt) for r in rounds for rt in r.tables}
    for row in rows:
        r, rt = where[row["table"].id]
        match = row["match"]
        seconds = None if match.over else 0 if round_time.round_time_is_up(r, rt) else r.seconds_left(rt)
        row.update(rt=rt, label=round_label(rt), time_up=round_time.round_time_is_up(r, rt),
                   deal=None if match.over else len(match.deals) + 1, seconds=seconds, paused=bool(r.paused_at),
                   disputed=bool(rt.table.disputes))
    found = rolling.settings(conn)
    return dict(state=ROLLING, latest=rounds[-1] if rounds else None, standings=standings, signature=signature,
                page_ms=PAGE_MS, round_over=False, announced=announced, rows=rows,
                waiting=rolling.waiting(conn, rounds),
                closing=local_time(found.closing, "%H:%M") if found and found.closing else None, closed=bool(found and found.closed(
                    service.table_service.now())))


def page_context(conn: Connection, signature: str | None = None) -> dict:
    """The screen's context and, before the first round, the join code (the hall's own)."""
    context = screen_context(conn, signature)
    if context["state"] == WELCOME:
        url, warning = join_url()
        link = url.rstrip("/") + url_for("hall.join")
        context.update(join_link=link, join_qr=None if warning else qr_svg(link))
    return context


def no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.before_request
def laptop_only():
    if not is_host_request():  # as every /hall page (companion/night/views.py)
        return organiser_only(gettext("The hall view opens only on the host laptop."))


@bp.get("/hall/screen")
def index():
    return no_store(Response(render_template("night/projector.html", **page_context(get_db()))))


@bp.get("/hall/screen/live")
def live():
    """The screen's content once the night's stream said "changed": 204 while nothing changed."""
    conn = get_db()
    signature = service.night_signature(conn)
    if (same := unchanged(signature)) is not None:
        return same
    return no_store(Response(render_template("night/_projector_live.html", **page_context(conn, signature))))
