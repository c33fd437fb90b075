"""A meetup night on the laptop: the hall view for the projector, tables prepared in
advance, printed QR table cards and the night's results in one file.

Every /hall page answers only the laptop itself, like the home page's table list. A prepared
table's seating page (/t/<token>/seat) is the tables blueprint's, for the phones at that table.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from flask_babel import force_locale, get_locale, gettext, ngettext

from ..games import GAMES
from ..games.text import join_names
from ..meetup import points as place_points
from ..names import name_key
from ..outcomes import Outcome, Result
from ..store import get_db
from ..qr import qr_svg
from ..numbers import ascii_number, number_or_error
from ..tables.forms import option_values
from ..tables import additions
from ..tables import service as table_service
from ..tables.links import join_link, label_text
from ..tables.service import MAX_NAME, Table
from ..web import game_name, render_text
from ..web.downloads import csv_download, json_download
from ..web.forms import form_values
from ..web.host import is_host_request, organiser_only, join_url
from ..web.live import unchanged
from ..web.outcomes import answer, status_of
from ..web.times import local_time
from . import service
from .pad import pad_of
from .exports import CSV_COLUMNS, across_rounds, night_document, night_name, night_rows_of_deals, round_label, table_label
from . import claims, game_requests, rolling, round_time, side_tables
from .summary import fraction_text, night_summary
from .phone import forget_me, join_as_this_phone, join_page, my_player, remember_me, waiting_page

bp = Blueprint("hall", __name__)

HALL_POLL_MS = 1000  # the board is pushed (static/live.js); it polls this often only while its stream is silent
CYCLE_MS = 8000  # how long the cycling mode shows each table


# What a phone may open: the night's own pages (join, "me"). A table's pages, its seating and its
# clock are the tables blueprint's (every /t/<token>/…).
PHONE_ENDPOINTS = ("hall.join", "hall.join_post", "hall.me", "hall.me_live", "hall.me_summary", "hall.me_forget",
                   "hall.my_season", "hall.me_away", "hall.me_request", "hall.room_table")


@bp.before_request
def laptop_only():
    if request.endpoint not in PHONE_ENDPOINTS and not is_host_request():
        return organiser_only(gettext("The hall view opens only on the host laptop."))


HALL_TIME = "%H:%M"  # the organiser reads the wall clock


def board_rows(tables: list[Table], shown: set[int] | None = None) -> list[dict]:
    """What the hall shows per table: the table page's stakes, its leaders and its last change
    (``shown``: only the tables with these ids, each still numbered by its place in ``tables``)."""
    rows = []
    for position, table in enumerate(tables, start=1):
        if shown is not None and table.id not in shown:
            continue
        match = table.match()
        leaders = () if not (table.seated and match.deals) else tuple(e for place, e in match.ranking() if place == 1)
        rows.append(dict(table=table, match=match, leaders=leaders, changed=local_time(table.updated_at, HALL_TIME),
                         label=table_label(table, position)))
    return rows


BOARD_MAX = 48  # tables on the board at once: the most recently changed; the rest a page further


def board_window(conn, tables: list[Table]) -> tuple[set[int] | None, dict | None]:
    """Which tables the board shows (their ids; None: all) and its paging (None: one page). Past
    BOARD_MAX tables, page 1 is the BOARD_MAX most recently changed, page 2 the next… (issue 23:
    a night of 16,000 tables took 2.6 s a render and weighed 12 MB)."""
    if len(tables) <= BOARD_MAX:
        return None, None
    pages = -(-len(tables) // BOARD_MAX)
    page = min(max(request.args.get("page", 1, type=number_or_error) or 1, 1), pages)
    recent = service.most_recent_first(conn, tables)[(page - 1) * BOARD_MAX:page * BOARD_MAX]
    return {t.id for t in recent}, dict(page=page, pages=pages, total=len(tables), shown=len(recent))


@bp.app_template_global("ordinal")
def ordinal(n: int) -> str:
    """A place as the reader says it: 1st, 2nd, 3rd (English), 1位 (Japanese)."""
    if str(get_locale()) == "ja":
        return f"{n}位"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@bp.app_template_global("points")
def points_text(value: float) -> str:
    """Place points as shown: at most two decimals, no trailing zeros (2.67, 1.5, 3)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@bp.app_template_global("place_points_text")
def place_points_text(value: float) -> str:
    """"1 place point", "0.5 place points", "2 place points": singular only for exactly one."""
    return ngettext("%(points)s place point", "%(points)s place points", 1 if value == 1 else 2,
                    points=points_text(value))


def seating_list(latest: service.Round | None, names: dict[int, str]) -> list[dict]:
    """The latest round's seating by name, for the big list ("Ann → Table 3 · <game> · seat 2")."""
    if latest is None:
        return []
    lines = [dict(name=names.get(pid, "?"), player_id=pid, rt=rt, seat=seat + 1, label=round_label(rt))
             for rt in latest.tables for seat, pid in enumerate(rt.player_ids)]
    return sorted(lines, key=lambda line: name_key(line["name"]))


def hall_context(cycle: bool = False, signature: str | None = None) -> dict:
    """``signature``: the night's, when the caller has just read it (for its 204 check)."""
    conn = get_db()
    if signature is None:
        signature = service.night_signature(conn)  # first: see night_signature
    tables = service.night_tables(conn)
    rounds = service.night_rounds(conn, tables)
    results = service.night_results(conn, tables, rounds)
    people = service.roster(conn, with_left=True)
    names = {p.id: p.name for p in people}
    latest = rounds[-1] if rounds else None
    round_of = {rt.table.id: (r, rt) for r in rounds for rt in r.tables}
    shown, paging = board_window(conn, tables)
    rows = board_rows(tables, shown)
    playing = {rt.table.id for _r, rt in round_time.playing_now(rounds)}
    for row in rows:
        found = round_of.get(row["table"].id)
        if found:
            row.update(round=found[0], rt=found[1], label=round_label(found[1]),
                       time_up=round_time.round_time_is_up(*found), can_end=round_time.can_end_at_time(*found),
                       playing_now=row["table"].id in playing)
    url, warning = join_url()
    link = url.rstrip("/") + url_for("hall.join")
    the_room = service.room(conn)
    return dict(rows=rows, paging=paging, signature=signature,
                poll_ms=HALL_POLL_MS, cycle_ms=CYCLE_MS, cycle=cycle,
                started=local_time(started, HALL_TIME) if (started := service.night_started(conn)) else None,
                roster=[p for p in people if not p.left], left_players=[p for p in people if p.left],
                rounds=rounds, latest=latest, seating_lines=seating_list(latest, names),
                seated_ids=(seated := {pid for rt in latest.tables for pid in rt.player_ids} if latest else set()),
                # Before a table starts, a late arrival may join it and a player leave it.
                unseated=(unseated := [p for p in people if not p.left and p.id not in seated]),
                # Issue 44: a late arrival, or a player swapped out, is said on the hall (not one
                # playing on at a table left playing: they join the next draw).
                without_seat=[p for p in unseated if p.id not in {
                    pid for _r, rt in round_time.left_playing(rounds) for pid in rt.player_ids}],
                open_tables=[(rt, round_label(rt)) for rt in latest.tables
                             if not rt.started and rt.table.game.check_players(len(rt.player_ids) + 1) is None]
                if latest else [],
                standings=rolling.leaderboard(conn, results), place_points_rule=place_points.PLACE_POINTS_RULE,
                leaderboard_order=place_points.LEADERBOARD_ORDER,
                join_link=link, join_warning=warning, join_qr=None if warning else qr_svg(link),
                clock=clock_of(latest), claims=claims.waiting(conn),
                still_playing=[(rt, across_rounds(r, rt)) for r, rt in service.still_playing(rounds)],
                room_text=", ".join(place.label for place in the_room),
                room_places=[(place.id, table_label_of_room(place)) for place in the_room],
                # Issue 44: the seats of started tables still playing, for "someone leaves mid-match".
                started_seats=[(f"{rt.table.id}:{seat}", across_rounds(r, rt) if r is not latest else round_label(rt),
                                names.get(pid, "?"))
                               for r, rt in round_time.playing_now(rounds) if rt.table.deals
                               for seat, pid in enumerate(rt.player_ids)], **draw_format_context(rounds), **time_context(conn, rounds),
                draw_start=draw_form_start(latest, people), drawn=drawn_text(latest.draw) if latest else None,
                clashes=clash_text(latest, {p.id: p.name for p in service.roster(conn, with_left=True)}),
                requests_met=requests_met_text(conn, latest, names), requests_open=open_requests_text(conn, {p.id: p.name for p in people if not p.left}),
                review_draws=service.review_draws(conn), confirm_deals=service.confirm_deals(conn),
                disputes=disputes_of(tables, {rt.table.id: across_rounds(r, rt) for r in rounds for rt in r.tables}),
                **rating_context(conn), **rolling_context(conn, rounds, people))


def rolling_context(conn, rounds: list[service.Round], people: list[service.Player]) -> dict:
    """What the hall shows of rolling tables (issue 47): the settings' form, and while tonight
    rolls, who waits, each table playing with its clock, and the tables just seated."""
    found = rolling.settings(conn)
    start = found or rolling.last_settings(conn)
    form = dict(copies={g: (start.games.get(g, "") if start else "") for g in GAMES},
                minutes={g: (start.minutes.get(g) if start and start.minutes.get(g) else rolling.default_minutes(game))
                         for g, game in GAMES.items()},
                closing=local_time(start.closing, HALL_TIME) if start and start.closing else "",
                every_game=bool(start and start.every_game), newcomers=bool(start and start.newcomers))
    context = dict(rolling=found, rolling_form=form, rolling_closed=bool(found and found.closed(table_service.now())))
    if found is None:
        return context
    names = {p.id: p.name for p in people}
    busy = rolling.playing(rounds)
    context.update(
        rolling_waiting=rolling.waiting(conn, rounds),
        rolling_playing=[dict(rt=rt, round=r, label=round_label(rt), names=[names.get(p, "?") for p in rt.player_ids],
                              seconds=None if rt.table.match().over else
                              0 if round_time.round_time_is_up(r, rt) else r.seconds_left(rt),
                              paused=bool(r.paused_at), disputed=bool(rt.table.disputes))
                         for r in rounds for rt in r.tables if rt in busy],
        rolling_announced=rolling.announcements(rounds, names),
        rolling_closing=local_time(found.closing, HALL_TIME) if found.closing else None)
    return context


def rating_context(conn) -> dict:
    """The leaderboard's rating column (issue 36): hidden unless the organiser turns it on
    (``?ratings=1`` on the hall; some players would rather not see it)."""
    if request.args.get("ratings") != "1":
        return dict(show_ratings=False, rating_of=None)
    return dict(show_ratings=True, rating_of=service.rating_by_key(conn))


def time_context(conn, rounds: list[service.Round]) -> dict:
    """What calling time and side tables add to the hall (issue 33): whether the latest round is
    over (every table has a result), how many of its tables still run, and tonight's side tables."""
    # Newest first, a page at a time, and only those loaded: many devices' flood neither fills nor
    # slows the hall, and none is out of the organiser's reach (issue 43).
    total = side_tables.side_table_count(conn)
    pages = max(-(-total // BOARD_MAX), 1)
    page = min(max(request.args.get("side_page", 1, type=number_or_error) or 1, 1), pages)
    apart = side_tables.side_tables(conn, newest=BOARD_MAX, skip=(page - 1) * BOARD_MAX)
    first = total - (page - 1) * BOARD_MAX - len(apart)  # how many were opened before this page's
    rows = [dict(row, label=gettext("Side table %(n)s", n=position))
            for position, row in enumerate(board_rows(apart), start=first + 1)]
    latest = rounds[-1] if rounds else None
    return dict(round_over=round_time.round_over(latest) and not round_time.left_playing(rounds),
                running=len(round_time.playing_now(rounds)),
                side_rows=rows[::-1], side_total=total, busy_devices=side_tables.busy_devices(conn),
                busy_opener=side_tables.BUSY_OPENER,
                side_paging=dict(page=page, pages=pages) if pages > 1 else None)


def draw_format_context(rounds: list[service.Round]) -> dict:
    """The draw form's match-format fields per game, each starting as the latest round that
    played that game set it."""
    before = {rt.table.game.id: rt.table.setup.options for r in rounds for rt in r.tables}  # latest wins
    fields = {game.id: [(opt, service.format_field(game.id, opt.key)) for opt in service.match_format(game)]
              for game in GAMES.values()}
    start = {name: str(before.get(game_id, {}).get(opt.key, opt.default))
             for game_id, pairs in fields.items() for opt, name in pairs}
    return dict(format_fields=fields, format_start=start)


def draw_form_start(latest: service.Round | None, people: list[service.Player]) -> dict:
    """The draw form's way and wishes as the latest round was drawn (none yet, or a round drawn
    before rounds kept them: mix, no wishes): its never-together pairs as the form sends them
    ("<id>-<id>"), a pair with a player no longer on the list left out."""
    how = latest.draw if latest else service.HowDrawn()
    names = {p.id: p.name for p in people if not p.left}
    return {"by": how.way, "every_game": "1" if how.every_game else "", "newcomers": "1" if how.newcomers else "",
            "never": [f"{a}-{b}" for a, b in how.never if a in names and b in names]}


def drawn_text(how: service.HowDrawn) -> str:
    """How a round was drawn, in one line of the draw form's own words (the hall's seating)."""
    ways = {"mix": gettext("Mix"), "standings": gettext("By standings"), "balanced": gettext("Balanced")}
    parts = [ways[how.way]]
    if how.every_game:
        parts.append(gettext("Every game in turn"))
    if how.newcomers:
        parts.append(gettext("Newcomers looked after"))
    if how.never:
        parts.append(ngettext("%(num)s pair kept apart", "%(num)s pairs kept apart", len(how.never)))
    return gettext("Drawn: %(how)s", how=" · ".join(parts))


CLASHES_SHOWN = 5  # pairs named on the hall; past that, how many more


def request_text(game: str, learn: bool) -> str:
    """A game request in a few words: "play <game>", "learn <game>"."""
    name = game_name(GAMES[game]) if game in GAMES else game
    return gettext("learn %(game)s", game=name) if learn else gettext("play %(game)s", game=name)


def requests_met_text(conn, latest: service.Round | None, names: dict[int, str]) -> str | None:
    """What the latest draw did with the players' game requests (issue 47), for the organiser:
    "3 of 4 requests met", and who, meeting theirs, sits with someone again. None: it had none."""
    found = game_requests.round_outcome(conn, latest.id) if latest else None
    if found is None:
        return None
    text = ngettext("%(met)s of %(num)s request met.", "%(met)s of %(num)s requests met.", found.asked,
                    met=found.met)
    if found.again:
        comma = "、" if get_locale().language == "ja" else ", "
        text += ("" if get_locale().language == "ja" else " ") + ngettext(
            "Meeting it seats %(names)s with someone they have played with tonight.",
            "Meeting them seats %(names)s with someone they have played with tonight.", len(found.again),
            names=comma.join(names.get(pid, "?") for pid in found.again))
    return text


def open_requests_text(conn, names: dict[int, str]) -> str | None:
    """The requests waiting for the next draw (rolling tables: the next tables seated), each with
    its player (None: none); ``names``: tonight's list (a player who left keeps theirs, unshown,
    should they come back)."""
    waiting = {pid: r for pid, r in game_requests.open_requests(conn).items() if pid in names}
    if not waiting:
        return None
    comma = "、" if get_locale().language == "ja" else ", "
    listed = comma.join(gettext("%(name)s: %(request)s", name=names[pid], request=request_text(r.game, r.learn))
                        for pid, r in waiting.items())
    if service.rolling_night(conn):
        return gettext("Requests for the next tables: %(requests)s", requests=listed)
    return gettext("Requests for the next draw: %(requests)s", requests=listed)


def clash_text(latest: service.Round | None, names: dict[int, str]) -> str | None:
    """The never-together pairs the round seats together all the same, named with their table,
    for the organiser (a swap on the hall can part them): None when every pair is apart."""
    together = latest.together_anyway() if latest else []
    if not together:
        return None
    named = [gettext("%(a)s + %(b)s (%(table)s)", a=names.get(a, "?"), b=names.get(b, "?"), table=round_label(rt))
             for a, b, rt in together[:CLASHES_SHOWN]]
    comma = "、" if get_locale().language == "ja" else ", "
    pairs = comma.join(named)
    if len(together) > CLASHES_SHOWN:
        pairs += (comma if comma == "、" else " ") + ngettext("and %(num)s more pair", "and %(num)s more pairs", len(together) - CLASHES_SHOWN)
    return gettext("Not kept apart, as no seating of these tables parts every pair: %(pairs)s. "
                   "Swap a player to part them.", pairs=pairs)


def clock_of(latest: service.Round | None) -> dict | None:
    """The latest round's clock for the hall: seconds left (the round's own), per extended table too."""
    if latest is None or latest.seconds_left() is None or round_time.round_over(latest):
        return None  # no clock, or not started, or the round is over: the clock stops
    return dict(seconds=round_time.clock_seconds(latest), minutes=latest.minutes, paused=bool(latest.paused_at),
                # A table given more time, unless time was called for it since: then it has none.
                extended=[(round_label(rt), latest.seconds_left(rt)) for rt in latest.tables
                          if rt.extra_minutes and not rt.time_called])


def playing_rows(rows: list[dict], rounds: list[service.Round]) -> list[dict]:
    """The tables the cycling mode shows: those with players (a table still waiting for its
    players has no standings to show), and of the drawn tables only the latest round's (an
    earlier round's table once came up between this round's; issue 33)."""
    earlier = {rt.table.id for r in rounds[:-1] for rt in r.tables}
    return [row for row in rows if row["table"].seated and row["table"].id not in earlier]


def disputes_of(tables: list[Table], labels: dict[int, str]) -> list[dict]:
    """Each open dispute of the night's tables (issue 45): the deal as saved and as the other
    seat saw it, each scored as the table would score it, for the organiser to settle."""
    found = []
    for position, table in enumerate(tables, start=1):
        if not table.disputes:
            continue
        match = table.match()
        for said in table.disputes:
            number = said["number"]
            if number > len(match.deals):
                continue
            try:
                theirs = table.game.score_deal(table.progress(upto=number - 1), said["facts"])
            except Exception:  # a version the rules no longer read: shown without its points
                theirs = None
            found.append(dict(table=table, label=labels.get(table.id) or table_label(table, position), number=number,
                              entrants=match.entrants, saved=match.deals[number - 1].score.points,
                              theirs=theirs.points if theirs else None, at=local_time(said["at"], HALL_TIME)))
    return found


@bp.get("/hall")
def index():
    cycle = request.args.get("cycle") == "1"
    context = hall_context(cycle)
    if cycle:
        playing = playing_rows(context["rows"], context["rounds"])
        context["current"] = playing[0] if playing else None
    return render_template("night/index.html", values={}, errors={}, **context)


@bp.get("/hall/board")
def board():
    """The live part of the hall view: 204 while no table of the night has changed."""
    signature = service.night_signature(get_db())
    if (same := unchanged(signature)) is not None:
        return same
    response = Response(render_template("night/_board.html", **hall_context(signature=signature)))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/hall/cycle")
def cycle():
    """The next table's standings, for the mode that shows one table at a time."""
    conn = get_db()
    tables = service.night_tables(conn)
    rows = playing_rows(board_rows(tables), service.night_rounds(conn, tables))
    after = request.args.get("after", type=number_or_error)
    later = [row for row in rows if after is not None and row["table"].id > after]
    current = (later or rows or [None])[0]
    response = Response(render_template("night/_cycle.html", current=current, cycle_ms=CYCLE_MS))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/hall/prepare")
def prepare():
    values = form_values()
    raw = {key: values.get(key, "").strip() for key in ("players", "count")}
    numbers = {key: ascii_number(v, 3) or 0 for key, v in raw.items()}
    label = " ".join(values.get("label", "").split())
    if label and "{n}" not in label:
        label += " {n}"
    return hall_answer(values, "count", "#board", lambda conn: service.prepare(
        conn, values.get("game", ""), numbers["players"], numbers["count"], label), merged=False)


@bp.get("/hall/cards")
def cards():
    """Printable QR cards: one per room table where the room's tables are set (its code opens
    whatever is played there now, so it is printed once for every night), else one per table of
    the night; four to a page, or one big card per page."""
    conn = get_db()
    # Serving on the laptop alone: a code would open nothing on a phone, so none is printed.
    base, warning = join_url()
    if (the_room := service.room(conn)):
        links = [base.rstrip("/") + url_for("hall.room_table", room_id=place.id) for place in the_room]
        cards = [dict(table=None, link=link, qr=None if warning else qr_svg(link), label=table_label_of_room(place))
                 for place, link in zip(the_room, links)]
    else:
        cards = [dict(table=t, link=join_link(t), qr=None if warning else qr_svg(join_link(t)),
                      label=table_label(t, position))
                 for position, t in enumerate(service.night_tables(conn), start=1)]
    return render_template("night/cards.html", cards=cards, big=request.args.get("big") == "1", warning=warning)


@bp.get("/hall/pad")
def pad():
    """The paper pads of a round (issue 45; ``?round=N``, the latest by default): one A4 page per
    table with its label, game, seats in order, code and a grid of the deal form's facts, for
    writing deals down when phones die; the organiser types them in afterwards."""
    conn = get_db()
    tables = service.night_tables(conn)
    rounds = [r for r in service.night_rounds(conn, tables) if r.tables]
    raw = request.args.get("round", "").strip()
    number = ascii_number(raw, 3) if raw else (rounds[-1].number if rounds else None)
    chosen = next((r for r in rounds if r.number == number), None)
    if chosen is None:
        message = (gettext("No round has been drawn tonight yet: the pads follow a round's seating.") if not rounds
                   else gettext("Round %(n)s has no tables tonight.", n=raw[:12]))
        return render_template("night/pad.html", pads=[], rounds=rounds, chosen=None, message=message), 404
    base, warning = join_url()
    pads = [dict(pad=pad_of(rt.table, round_label(rt), gettext("Checked by (initials)"), gettext("Deal")),
                 link=join_link(rt.table), qr=None if warning else qr_svg(join_link(rt.table)))
            for rt in chosen.tables]
    return render_template("night/pad.html", pads=pads, rounds=rounds, chosen=chosen, night=night_name(conn),
                           warning=warning, message=None)


def table_label_of_room(place: service.RoomTable) -> str:
    """A room table as the pages name it: "Table 3", or its own label ("Window")."""
    return label_text(place.label)


bp.add_app_template_global(table_label, "table_label")  # one naming of a table, in every page


@bp.get("/room/<int:room_id>")
def room_table(room_id: int):
    """A room table's printed card: the table played there now (the newest without a result,
    else the newest), for any phone."""
    conn = get_db()
    place = next((p for p in service.room(conn) if p.id == room_id), None)
    if place is None:
        abort(404)
    now = service.played_at(conn, room_id)
    if now is None:
        # A card printed for the room is right; its table simply has no match yet.
        return render_template("error.html", message=gettext(
            "Nothing is played at %(table)s yet: the next draw seats players here.", table=table_label_of_room(place)))
    return redirect(url_for("tables.show", token=now.token), code=303)


@bp.post("/hall/keep-table")
def keep_table():
    """A player keeps one room table for the night (``room_table`` empty: any table again)."""
    values = form_values()
    who, place = small_number(values.get("player")), small_number(values.get("room_table"))
    return hall_answer(values, "keep", "#room", lambda conn: service.keep_at_table(conn, who or 0, place))


@bp.post("/hall/confirming")
def set_confirm():
    """Confirming deals on or off for the night's tables from now on (issue 45)."""
    on = request.form.get("on") == "1"
    return hall_answer({}, "confirming", "#confirming", lambda conn: service.set_confirm_deals(conn, on))


@bp.post("/hall/room")
def set_room():
    """The room's tables (a count, a range or labels), kept for later nights (issue 44)."""
    values = form_values()
    return hall_answer(values, "room", "#room", lambda conn: service.set_room(conn, values.get("room")))


def unfinished_rows(tables: list[Table]) -> list[dict]:
    """The night's matches still in play (seated, not over): a new night must not drop them
    from the big screen without saying so."""
    return [row for row in board_rows(tables) if row["table"].seated and not row["match"].over]


def new_night_page(errors: dict | None = None, status: int = 200):
    tables = service.night_tables(get_db())
    return render_template("night/new_night.html", count=len(tables), unfinished=unfinished_rows(tables),
                           errors=errors or {}), status


@bp.get("/hall/new-night")
def new_night_confirm():
    return new_night_page()


@bp.post("/hall/nights")
def new_night():
    """A new night; matches still being played are left playing or ended at time, as chosen."""
    return answer(lambda: round_time.start_next_night(get_db(), request.form.get("unfinished")),
                  saved=lambda _started: redirect(url_for("hall.index"), code=303),
                  page=lambda errors, status: new_night_page(errors, status), field="unfinished")


# The night's files are in one language, English, whatever the browser's: their column names, game
# names and place-points rule are, so a table's label is too ("Table 1", never 「テーブル1」 beside
# an English game name); an organiser's own label stays as typed.
FILE_LANGUAGE = "en"


@bp.get("/hall/export.json")
def export_json():
    conn = get_db()
    with force_locale(FILE_LANGUAGE):
        document = night_document(conn)
    return json_download(document, f"night-{night_name(conn)}.json", **{"Cache-Control": "no-store"})


@bp.get("/hall/export.csv")
def export_csv():
    """One row per player per deal (table, game, round, deal, player, points, total), so a
    spreadsheet can pivot it; in a team game a player's points are their team's. A finished
    table's last deal also carries each player's place and place points, the night's own
    result (night.night_results), so a column sum per player is their leaderboard total."""
    conn = get_db()
    with force_locale(FILE_LANGUAGE):
        rows = night_rows_of_deals(conn)
    return csv_download(rows, CSV_COLUMNS, f"night-{night_name(conn)}.csv", **{"Cache-Control": "no-store"})


# --------------------------------------------------------------------------
# A prepared table's first phone gives the players


@bp.post("/hall/tables/<int:table_id>/unseat")
def unseat(table_id: int):
    """The organiser takes a table back to "waiting for players" before its first deal, so its
    players (and how many they are) can be entered again."""
    return hall_answer({}, "board", "#board", lambda conn: service.unseat(conn, table_id))


# --------------------------------------------------------------------------
# The night's roster, draws and clock: the organiser on the laptop (issue 25)


def hall_page(values: dict | None = None, errors: dict | None = None, status: int = 200):
    return render_template("night/index.html", values=values or {}, errors=errors or {}, **hall_context()), status


def small_number(raw: str | None) -> int | None:
    """A form's whole number (None: empty); -1 for anything unreadable (the domain refuses it)."""
    raw = (raw or "").strip()
    if not raw:
        return None
    return number if (number := ascii_number(raw, 4)) is not None else -1


def after(anchor: str):
    return redirect(url_for("hall.index") + anchor, code=303)


def one_field(errors: dict, field: str) -> dict:
    """Every reason beside ``field``: the domain names "name", the page has one such field per
    player (and a swap's, a join's or a clock's form shows its reasons as one)."""
    return {field: [m for ms in errors.values() for m in ms]}


def hall_answer(values: dict, field: str, anchor: str, write, *, merged: bool = True, saved=None):
    """An organiser's write on the hall (``write(conn)``), answered as every write is
    (companion/web/outcomes.py): saved, the hall at ``anchor`` (or ``saved(result)``); else the
    hall again with what was typed and why beside ``field`` (each beside its own field unless
    ``merged``)."""
    def page(errors: dict, status: int):
        return hall_page(values, one_field(errors, field) if merged else errors, status)
    return answer(lambda: write(get_db()), saved=saved or (lambda _done: after(anchor)), page=page, field=field)


@bp.post("/hall/players")
def add_player():
    values = form_values()
    return hall_answer(values, "name", "#roster", lambda conn: service.join(conn, values.get("name")))


@bp.post("/hall/players/<int:player_id>")
def edit_player(player_id: int):
    """Rename (field ``name``), remove (``action=remove``), bring back (``action=back``), or say
    they sit out the next round (``sit_out``), leave after their match (``leaving``) or play on
    (``stay``), as their phone may (issue 44)."""
    values = form_values()
    if values.get("action") in (service.SIT_OUT, service.LEAVING, "stay"):
        away = None if values["action"] == "stay" else values["action"]
        return hall_answer(values, f"name-{player_id}", "#roster", lambda conn: service.set_away(conn, player_id, away))
    if values.get("action") in ("remove", "back"):
        left = values.get("action") == "remove"
        return hall_answer(values, f"name-{player_id}", "#roster", lambda conn: service.set_left(conn, player_id, left))
    field = f"name-{player_id}"

    def page(errors: dict, status: int):
        # A name that is another season player's: the form asks "same person?" beside it.
        asked = dict(values, season_clash="1") if "same_person" in errors else values
        return hall_page(asked, one_field(errors, field), status)
    return answer(lambda: service.rename(get_db(), player_id, values.get("name"),
                                         same_person=values.get("same_person") == "1"),
                  saved=lambda _done: after("#roster"), page=page, field=field)


def draw_choice(values: dict) -> tuple[list[str], list[str]]:
    """(chosen games, one per table; offered games for the app to fill tables from)."""
    chosen: list[str] = []
    for game_id in GAMES:
        count = small_number(values.get(f"tables-{game_id}"))
        chosen.extend([game_id] * max(0, min(count or 0, service.MAX_PREPARED)))
    offered = [game_id for game_id in GAMES if values.get(f"offer-{game_id}")]
    return chosen, offered


def draw_formats(values: dict) -> dict[str, dict[str, int]]:
    """Per game, the match-format options the draw form sent (read as the new-table form reads them)."""
    formats = {}
    for game in GAMES.values():
        keys = {opt.key for opt in service.match_format(game)}
        sent = {key: values[service.format_field(game.id, key)] for key in keys
                if service.format_field(game.id, key) in values}
        formats[game.id] = {key: value for key, value in option_values(game, sent).items() if key in sent}
    return formats


# How the draw seats the round (the form's "by" field): mixing, by standings (issue 33), or
# tables of even strength (issue 36); the room's other wishes are ticked beside it.
DRAW_WAYS = service.DRAW_WAYS


# A pair's line holds two names of at most MAX_NAME characters and a "+": anything longer is
# refused before it is read (issue 42: a line of 5,000 "+" took 4.8 s to split, every phone
# waiting). A room has at most MAX_ROSTER players; more pairs than MAX_NEVER_PAIRS is a paste gone wrong.
MAX_PAIR_LINE = 2 * MAX_NAME + 8
MAX_NEVER_PAIRS = 500
MAX_NEVER_MESSAGES = 10  # what can't be read, said for the first lines only


def never_pairs() -> tuple[list[tuple[int, int]], list[str]]:
    """The draw form's "never together" pairs, picked from tonight's players (issue 44: never
    parsed from text, where a name holding ";" or "+" could not be kept apart): each kept pair
    a ticked ``never`` value "<id>-<id>", and a new one from the ``never_a`` / ``never_b``
    choices. Returns (pairs of player ids, in order, each once; what is wrong)."""
    people = {p.id for p in service.roster(get_db())}
    raw = request.form.getlist("never")[:MAX_NEVER_PAIRS + 1]
    if len(raw) > MAX_NEVER_PAIRS:
        return [], [gettext("At most %(max)s pairs can be kept apart.", max=MAX_NEVER_PAIRS)]
    pairs: list[tuple[int, int]] = []
    for value in raw:
        a, _, b = value.partition("-")
        ids = (ascii_number(a), ascii_number(b))
        if None in ids or ids[0] == ids[1] or not set(ids) <= people:
            continue  # a player since taken off the list (or a pair sent wrong): left out
        pairs.append((ids[0], ids[1]))
    a, b = small_number(request.form.get("never_a")), small_number(request.form.get("never_b"))
    if a or b:
        if not (a in people and b in people):
            return pairs, [gettext("Choose two players from tonight's list to keep apart.")]
        if a == b:
            return pairs, [gettext("Choose two different players to keep apart.")]
        pairs.append((a, b))
    unique = []
    for a, b in pairs:
        if (a, b) not in unique and (b, a) not in unique:
            unique.append((a, b))
    return unique, []


@bp.post("/hall/rounds")
def draw():
    values = form_values()
    chosen, offered = draw_choice(values)
    if not chosen and not offered:
        return hall_page(values, {"games": [gettext("Tick at least one game, or give some games a number of tables.")]},
                         422)
    way = values.get("by") or "mix"
    if way not in DRAW_WAYS:
        return hall_page(values, {"by": [gettext("Choose how to seat the round.")]}, 422)
    never, unread = never_pairs()
    values["never"] = [f"{a}-{b}" for a, b in never]  # the form again keeps them, ticked
    if unread:
        return hall_page(values, {"never": unread}, 422)
    if values.get("add_never"):  # "Keep these two apart": the form again with the pair, nothing drawn
        return hall_page(values, {}, 200)
    minutes = small_number(values.get("minutes"))
    # The round keeps its way and wishes: the next round's form starts from them (draw_form_start).
    return hall_answer(values, "games", "#seating", lambda conn: round_time.draw_next_round(
        conn, values.get("unfinished"), chosen=chosen, offered=offered, minutes=minutes, formats=draw_formats(values),
        by_standings=way == "standings", balanced=way == "balanced", every_game=bool(values.get("every_game")),
        newcomers=bool(values.get("newcomers")), never=never, review=bool(values.get("review"))), merged=False)


DRAW_WISHES = ("by", "every_game", "newcomers", "never")  # the draw form's way and wishes


@bp.app_template_global("draw_wishes")
def draw_wishes(values: dict, start: dict, roster: list[service.Player]) -> dict:
    """What the draw form's way and wishes show: the form sent back (a refused draw: nothing
    typed is lost), else ``start``, the latest round's (:func:`draw_form_start`)."""
    wishes = values if values.get("draw") == "1" else start
    found = {key: wishes.get(key, "") for key in DRAW_WISHES}
    # The pairs kept apart, each with its two names (as tonight's list names them now).
    names = {str(p.id): p.name for p in roster}
    found["never"] = [(value, names[a], names[b]) for value in wishes.get("never") or []
                      for a, _, b in [value.partition("-")] if a in names and b in names]
    return found


def change_round(values: dict, field_name: str, change):
    """One organiser's change to the latest round's seating; a refusal next to ``field_name``."""
    return hall_answer(values, field_name, "#seating", change)


@bp.post("/hall/swap")
def swap():
    values = form_values()
    a, b = small_number(values.get("a")), small_number(values.get("b"))
    return change_round(values, "swap", lambda conn: service.swap(conn, a or 0, b or 0))


@bp.post("/hall/join-table")
def join_table():
    """A late arrival takes a seat at a table of the round that has not started."""
    values = form_values()
    who, number = small_number(values.get("player")), small_number(values.get("table"))
    return change_round(values, "join", lambda conn: service.join_table(conn, who or 0, number or 0))


@bp.post("/hall/leave-table")
def leave_table():
    """A player leaves their table of the round before it starts."""
    values = form_values()
    who = small_number(values.get("player"))
    return change_round(values, "leave", lambda conn: service.leave_table(conn, who or 0))


@bp.post("/hall/clock")
def clock():
    values = form_values()
    return hall_answer(values, "clock", "#seating",
                       lambda conn: service.start_clock(conn, small_number(values.get("minutes"))))


@bp.post("/hall/seat-change")
def seat_change():
    """Mid-match (issue 44): who leaves a started table (``seat``: "<table id>:<seat>") and who
    takes the seat (``player``), now (``when=now``) or as who really sat there from the start."""
    values = form_values()
    table_id, _, seat = (values.get("seat") or "").partition(":")
    ids = small_number(table_id), small_number(seat), small_number(values.get("player"))
    if None in ids or -1 in ids:
        return hall_page(values, {"seat_change": [gettext("Choose who leaves and who takes the seat.")]}, 422)
    return hall_answer(values, "seat_change", "#seat-change", lambda conn: service.change_seat(
        conn, ids[0], ids[1], ids[2], from_start=values.get("when") == "start"))


@bp.post("/hall/redraw")
def redraw():
    """Fix a draw: the latest round drawn again while none of its tables has a deal (issue 44)."""
    return hall_answer({}, "redraw", "#seating", service.redraw_round)


@bp.post("/hall/clock/start")
def start_round():
    """"Start round N": the round's clock starts from its draw's minutes (issue 44)."""
    return hall_answer({}, "round_clock", "#seating", service.start_round)


@bp.post("/hall/clock/pause")
def pause_clock():
    """Pause the round's clock (``action=resume``: resume it)."""
    pause = request.form.get("action") != "resume"
    return hall_answer({}, "round_clock", "#seating", lambda conn: service.pause_clock(conn, pause))


@bp.post("/hall/clock/more")
def more_time_for_all():
    """Every table playing now gets 5 more minutes (one table: its own +5 on the board)."""
    return hall_answer({}, "round_clock", "#seating", lambda conn: service.extend_tables(
        conn, [rt.table.id for _r, rt in round_time.playing_now(service.night_rounds(conn))]))


@bp.post("/hall/tables/<int:table_id>/extend")
def extend(table_id: int):
    return hall_answer({}, "board", "#board", lambda conn: service.extend_table(conn, table_id))


# --------------------------------------------------------------------------
# The night on a player's phone: join once, then "your table", your line, your summary

@bp.get("/night")
def join():
    if my_player() is not None:
        return redirect(url_for("hall.me"), code=303)
    waiting = waiting_page()  # this phone asked for a name another phone has
    if isinstance(waiting, dict):  # the organiser allowed it
        allowed = service.player(get_db(), waiting["player_id"])
        if allowed is not None and not allowed.left:
            remember_me(allowed)
            return redirect(url_for("hall.me"), code=303)
    elif waiting is not None:
        return waiting
    return join_page({}, {}, 200)


@bp.post("/night/join")
def join_post():
    values = form_values()

    def joined(result: Result):
        who = result.value
        if isinstance(who, claims.Waiting):  # another phone's name: the organiser decides (issue 32)
            forget_me()  # this phone waits to be that player, no longer its earlier one
            return redirect(url_for("hall.join"), code=303)
        remember_me(who)
        return redirect(url_for("hall.me"), code=303)

    return answer(lambda: join_as_this_phone(get_db(), small_number(values.get("player")), values.get("name")),
                  saved=joined, page=lambda errors, status: join_page(values, one_field(errors, "name"), status),
                  field="name")


@bp.post("/night/me/away")
def me_away():
    """The player says it from their phone: sit out the next round, leave after this match, or
    (an empty ``away``) play on (issue 44)."""
    who = my_player()
    if who is None:
        return redirect(url_for("hall.join"), code=303)
    away = request.form.get("away") or None
    if away not in (None, service.SIT_OUT, service.LEAVING):
        abort(400)
    return answer(lambda: service.set_away(get_db(), who.id, away),
                  saved=lambda _now: redirect(url_for("hall.me") + "#me-away", code=303),
                  page=lambda errors, status: (render_template("night/me.html", **me_context(who)), status),
                  field="away")


@bp.post("/night/me/request")
def me_request():
    """The player's game request from their phone (issue 47): ``want`` "play:<game>" or
    "learn:<game>", or empty: no request. One at a time: it replaces the last."""
    who = my_player()
    if who is None:
        return redirect(url_for("hall.join"), code=303)
    kind, _, game = (request.form.get("want") or "").partition(":")
    if kind not in ("", "play", "learn") or (kind and not game):
        abort(400)
    return answer(lambda: game_requests.ask(get_db(), who.id, game or None, learn=kind == "learn"),
                  saved=lambda _now: me_request_saved(who),
                  page=lambda errors, status: (render_template(
                      "night/_me_request.html" if request.headers.get("HX-Request") == "true" else "night/me.html",
                      **me_context(who), errors=errors), status),
                  field="request")


def me_request_saved(who: service.Player):
    """A plain form: back to My night at the request; htmx: the request's card alone."""
    if request.headers.get("HX-Request") == "true":
        return render_template("night/_me_request.html", **me_context(who))
    return redirect(url_for("hall.me") + "#me-request", code=303)


@bp.post("/night/forget")
def me_forget():
    forget_me(give_up=True)  # "Not Dea?": the name goes too, or stays for its player (issue 44)
    return redirect(url_for("hall.join"), code=303)


def me_context(who: service.Player, signature: str | None = None) -> dict:
    """``signature``: the night's, when the caller has just read it (for its 204 check)."""
    conn = get_db()
    if signature is None:
        signature = service.night_signature(conn)  # first: see night_signature
    tables = service.night_tables(conn)
    rounds = service.night_rounds(conn, tables)
    results = service.night_results(conn, tables, rounds)
    standings = rolling.leaderboard(conn, results)
    line = next((s for s in standings if s.key == place_points.player_key(who.name)), None)
    held = rounds[-1] if rounds and rounds[-1].held else None  # the organiser reviews it: not shown yet
    rounds = service.shown_rounds(rounds)
    latest = rounds[-1] if rounds else None
    # Their table: the latest round's, or one left playing from an earlier round (issue 44).
    where = next(((r, found) for r in [latest, *(r for r, _rt in round_time.left_playing(rounds))]
                  if r is not None and (found := r.table_of(who.id)) is not None), None)
    rolls = rolling.settings(conn) is not None
    if rolls:  # rolling tables: their table is the one they play at now (none: they wait)
        where = next(((r, (rt, rt.player_ids.index(who.id))) for r in reversed(rounds) for rt in r.tables
                      if who.id in rt.player_ids and rt in rolling.playing(rounds)), None)
    names = {p.id: p.name for p in service.roster(conn, with_left=True)}
    table_page = None
    if where:
        r, (rt, seat) = where
        over = round_time.round_over(r)
        table_page = dict(rt=rt, seat=seat + 1, label=round_label(rt), round=r,
                          others=[names.get(p, "?") for p in rt.player_ids],
                          seconds=None if over or rt.table.match().over else
                          0 if round_time.round_time_is_up(r, rt) else r.seconds_left(rt),
                          paused=bool(r.paused_at), round_over=over)
    asked = game_requests.request_of(conn, who.id)
    return dict(who=who, line=line, mine=table_page, summary=service.player_summary(results, who),
                my_request=asked, my_request_text=request_text(asked.game, asked.learn) if asked else None,
                request_games=[GAMES[g] for g in game_requests.tonight_games()],
                rolling=rolls, announced=rolling.announcements(rounds, names) if rolls else [],
                next_round=len(rounds) + 1 + bool(held), held=held,
                signature=signature, poll_ms=2000, players=len(standings),
                place_points_rule=place_points.PLACE_POINTS_RULE)


@bp.get("/night/me")
def me():
    who = my_player()
    if who is None:
        return redirect(url_for("hall.join"), code=303)
    return render_template("night/me.html", **me_context(who))


@bp.get("/night/me/live")
def me_live():
    """The live part of a player's page: 204 while nothing of the night changed."""
    who = my_player()
    if who is None:
        # Removed from tonight's list (or a new night began) while this page was open: say so
        # in place of the old table, and stop asking.
        response = Response(render_template("night/_me_gone.html"))
        response.headers["Cache-Control"] = "no-store"
        return response
    signature = service.night_signature(get_db())
    if (same := unchanged(signature)) is not None:
        return same
    response = Response(render_template("night/_me_live.html", **me_context(who, signature)))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/players/me")
def my_season():
    """A phone on tonight's list (issue 25's per-phone player): its own season page (the season's
    player of its name, found or made by the players' service); a phone that hasn't joined
    tonight is sent to join. The night's, as only the night knows which player a phone is."""
    who = my_player()
    if who is None:
        return redirect(url_for("hall.join"), code=303)
    found = service.season_player(get_db(), who.name)
    if not found.saved:
        abort(status_of(found))
    return redirect(url_for("players.show", pid=found.value.id), code=303)


@bp.get("/night/me/summary")
def me_summary():
    who = my_player()
    if who is None:
        return redirect(url_for("hall.join"), code=303)
    return render_template("night/summary.html", night_date=night_name(get_db()), night=night_summary(get_db(), who),
                           fraction=fraction_text, **me_context(who))


# --------------------------------------------------------------------------
# The round clock on a round table's own page (templates/night/_table_clock.html), added to the
# tables' page through their one seam (companion/tables/additions.py): GET /t/<token>/clock
# renders it alone, POST /t/<token>/end-at-time ends the match with the deals played.

additions.add(additions.Addition(
    name="clock", read=round_time.table_clock, template="night/_table_clock.html",
    under_form="night/_time_up_note.html", action="end-at-time", act=round_time.end_at_time))


# --------------------------------------------------------------------------
# Calling time, and side tables (issue 33)


@bp.post("/hall/tables/<int:table_id>/call-time")
def call_time(table_id: int):
    """The organiser calls time for one table of the latest round."""
    return hall_answer({}, "board", "#hall-table-%d" % table_id, lambda conn: round_time.call_time(conn, table_id))


@bp.post("/hall/tables/<int:table_id>/end-at-time")
def end_table_at_time(table_id: int):
    """The organiser ends one round table's match at time (its time is up)."""
    found = next((rt for r in service.night_rounds(get_db()) for rt in r.tables if rt.table.id == table_id), None)
    if found is None:
        abort(404)
    # A button: a refusal (its time is not up, it has ended) is answered with the hall as it is (409).
    return answer(lambda: round_time.end_at_time(get_db(), found.table.token),
                  saved=lambda _ended: after("#hall-table-%d" % table_id),
                  page=lambda errors, status: hall_page({}, one_field(errors, "board"), status), field="board",
                  form=False)


def listed(labels: list[str]) -> str:
    """Labels in a sentence, the reader's way: "Table 5 and Table 6" / 「テーブル5、テーブル6」."""
    if len(labels) < 2:
        return "".join(labels)
    return gettext("%(names)s and %(last)s", names=render_text(join_names(labels[:-1])), last=labels[-1])


@bp.post("/hall/call-time")
def call_time_for_round():
    """Call time for every unfinished table of the latest round (``end=1``: and end them at time)."""
    if request.form.get("end") != "1":
        return hall_answer({}, "time", "#seating", round_time.call_time_for_round)

    def ended(result: Result):
        _ended, left = result.value
        if not left:
            return after("#seating")
        return hall_page({}, {"time": [ngettext(
            "%(tables)s has no deal played yet: it has no result to end with and goes on.",
            "%(tables)s have no deal played yet: they have no result to end with and go on.",
            len(left), tables=listed([round_label(rt) for rt in left]))]}, 200)

    return hall_answer({}, "time", "#seating", round_time.end_round_at_time, saved=ended)


@bp.post("/hall/tables/<int:table_id>/settle")
def settle(table_id: int):
    """The organiser settles a dispute (issue 45): the saved version, or the other seat's."""
    keep = request.form.get("keep")
    number = request.form.get("number", type=number_or_error) or 0
    token = next((t.token for t in service.night_tables(get_db()) if t.id == table_id), None)
    if token is None or keep not in ("saved", "theirs"):
        abort(404)
    settled = table_service.settle(get_db(), token, number, keep)
    if settled.outcome is Outcome.REFUSED:  # their version needs answers a correction asks: on its page
        return hall_page({}, {"disputes": [gettext(
            "Deal %(n)s: open the table on this laptop and correct the deal there.", n=number)]}, 422)
    return after("#disputes")


@bp.post("/hall/tables/<int:table_id>/add")
def add_side_table(table_id: int):
    """The organiser adds a side table to its night (tonight's from the hall; a past night's from
    the players list's "Matches not counted", which it returns to): it gets that night's next
    number and counts, the season and ratings included."""
    if request.form.get("back") == "players":
        return answer(lambda: side_tables.add_to_night(get_db(), table_id),
                      saved=lambda _number: redirect(url_for("players.index") + "#uncounted", code=303),
                      page=lambda errors, status: (hall_page({}, one_field(errors, "board"), status)), field="board")
    return hall_answer({}, "board", "#board", lambda conn: side_tables.add_to_night(conn, table_id))


# --------------------------------------------------------------------------
# Rolling tables (issue 47)


@bp.after_app_request
def seat_free_players(response: Response) -> Response:
    """Rolling tables: after any write that may free players (a table's write that ended its
    match, a deal confirmed, a dispute settled, a player joining or back, the organiser's), the
    tables that can start are seated at once (rolling.fill: idempotent, read afresh in its own
    write). The write that called is saved whatever happens here."""
    if request.method != "POST" or response.status_code >= 400:
        return response
    try:
        conn = get_db()
        if not service.rolling_night(conn):
            return response
        token = (request.view_args or {}).get("token")
        if token is not None:  # a table's write: only one that leaves its match over frees anyone
            table = table_service.load(conn, token)
            if table is None or not table.match().over:
                return response
        rolling.fill(conn)
    except Exception:  # noqa: BLE001  (the next write seats them; this one is saved)
        current_app.logger.exception("rolling tables: could not seat the free players")
    return response


def rolling_numbers(values: dict, prefix: str) -> dict[str, int | None]:
    return {game_id: small_number(values.get(f"{prefix}-{game_id}")) for game_id in GAMES}


@bp.post("/hall/rolling")
def set_rolling():
    """The organiser runs tonight as rolling tables (or changes their settings)."""
    values = form_values()
    return hall_answer(values, "rolling", "#rolling", lambda conn: rolling.set_rolling(
        conn, rolling_numbers(values, "copies"), rolling_numbers(values, "minutes"), values.get("closing"),
        every_game=bool(values.get("every_game")), newcomers=bool(values.get("newcomers"))), merged=False)


@bp.post("/hall/rounds-mode")
def set_rounds_mode():
    return hall_answer({}, "mode", "#rolling", rolling.set_rounds)


@bp.post("/hall/rolling/seat")
def seat_now():
    """Seat whoever can play now (the tables that can start start by themselves: this is for a
    change the hall did not see, such as a table's clock reaching its closing)."""
    return hall_answer({}, "rolling", "#rolling", rolling.fill)


@bp.post("/hall/tables/<int:table_id>/release")
def release_table(table_id: int):
    """Let a rolling table's players go while its dispute waits to be settled."""
    return hall_answer({}, "rolling", "#rolling", lambda conn: rolling.release(conn, table_id))


@bp.post("/hall/tables/<int:table_id>/pause")
def pause_table(table_id: int):
    """Pause one rolling table's clock (``action=resume``: resume it)."""
    pause = request.form.get("action") != "resume"
    return hall_answer({}, "rolling", "#rolling", lambda conn: rolling.pause_table(conn, table_id, pause))
