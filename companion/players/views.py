"""Players across nights (issue 26): the players list and the organiser's merge/rename/keep
apart (the laptop only, like /hall), a player's page and the season table (the laptop and the
phones: a table page's names lead here), and their CSV/JSON exports."""

from __future__ import annotations

from datetime import date, datetime, timezone
from functools import partial
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from ..games import GAMES
from ..meetup.points import PLACE_POINTS_RULE
from ..meetup.ratings import RATING_RULE, shown_value
from ..meetup.season import FORM_LENGTH, MIN_MATCHES, SEASON_ORDER, PlayerStats, min_matches_text
from ..numbers import ascii_number, number_or_error
from ..store import get_db
from ..store import players as player_rows
from ..web.downloads import csv_download, json_download
from ..web.host import is_host_request, organiser_only
from ..web.live import asked_unchanged
from ..web.outcomes import answer
from . import service
from .exports import PLAYER_CSV, SEASON_CSV, history_rows, player_document, season_document, season_rows, span_name

bp = Blueprint("players", __name__)

# What a phone may open: reading pages and exports. Everything else (the players list, merging,
# renaming, giving a seat to someone else) is the organiser's, on the laptop.
PHONE_ENDPOINTS = ("players.show", "players.at_table", "players.player_csv", "players.player_json",
                   "players.season", "players.season_csv", "players.season_json")

MAX_MIN_MATCHES = 99
RECENT_MATCHES = 30  # the player page lists this many latest matches (exports have them all)


@bp.before_request
def laptop_only():
    if request.endpoint not in PHONE_ENDPOINTS and not is_host_request():
        return organiser_only(gettext("The players list opens only on the host laptop."))


@bp.app_template_global("rating_text")
def rating_text(rating) -> str:
    """A rating as shown: μ − 3σ to one decimal ("0.0", never "-0.0"; ratings.shown_value)."""
    return f"{shown_value(rating):.1f}"


# --------------------------------------------------------------------------
# The span and game a page shows


def today() -> date:
    return datetime.now(timezone.utc).date()


def chosen() -> dict[str, Any]:
    """The page's span (month, year, all), game (or all) and minimum, from its query string;
    anything unknown falls back to the default (a hand-edited URL is never a 500)."""
    span = request.args.get("span", "all")
    if span not in service.SPANS:
        span = "all"
    game = request.args.get("game") or None
    if game not in GAMES:
        game = None
    raw = request.args.get("min", "")
    minimum = number if (number := ascii_number(raw)) is not None and 1 <= number <= MAX_MIN_MATCHES else MIN_MATCHES
    since, until = service.span_bounds(span, today())
    return {"span": span, "game": game, "min": minimum, "since": since, "until": until,
            "ratings": request.args.get("ratings") == "1"}  # the season table's rating column, when asked


def span_links(endpoint: str, choice: dict[str, Any], **values: Any) -> dict[str, Any]:
    """Links to the same page in each span and each game (keeping the other choices)."""
    def link(**change: Any) -> str:
        args = {"span": choice["span"], "game": choice["game"], **values, **change}
        if endpoint == "players.season" and choice["min"] != MIN_MATCHES:
            args.setdefault("min", choice["min"])
        if endpoint == "players.season" and choice.get("ratings"):
            args.setdefault("ratings", 1)
        return url_for(endpoint, **{k: v for k, v in args.items() if v not in (None, "all") or k == "pid"})
    return {"spans": [(s, service.SPAN_LABELS[s], link(span=s)) for s in service.SPANS],
            "games": [(None, gettext("All games"), link(game=None))]
            + [(g.id, None, link(game=g.id)) for g in GAMES.values()]}


# --------------------------------------------------------------------------
# The chart of a player's place points, night by night (SVG geometry; the template draws it)

CHART_W, CHART_H, PAD_L, PAD_R, PAD_Y = 560, 170, 34, 12, 16


def points_chart(s: PlayerStats) -> dict[str, Any] | None:
    """Each night's average place points (0..1) as a line, oldest to latest."""
    nights = s.timeline
    if not nights:
        return None
    inner_w, inner_h = CHART_W - PAD_L - PAD_R, CHART_H - 2 * PAD_Y

    def x(i: int) -> float:
        return round(PAD_L + (inner_w * i / (len(nights) - 1) if len(nights) > 1 else inner_w / 2), 1)

    def y(v: float) -> float:
        return round(PAD_Y + inner_h * (1 - v), 1)

    dots = [{"x": x(i), "y": y(n.average), "night": n.night, "matches": n.matches, "average": n.average}
            for i, n in enumerate(nights)]
    return {"width": CHART_W, "height": CHART_H, "points": " ".join(f"{d['x']},{d['y']}" for d in dots),
            "dots": dots, "ticks": [(y(v), v) for v in (0, 0.5, 1)], "left": PAD_L, "right": CHART_W - PAD_R,
            "first": nights[0].night, "last": nights[-1].night, "overall": y(s.average)}


# --------------------------------------------------------------------------
# Pages


def player_or_404(pid: int) -> service.Player:
    found = service.get(get_db(), pid)
    if found is None:
        abort(404)
    return found


def names_by_id() -> dict[str, str]:
    return {p.sid: p.name for p in service.everyone(get_db())}


def player_matches(conn, player: service.Player, choice: dict[str, Any]) -> list[dict[str, Any]]:
    """The player's matches in the span, latest first: each with its table and the others
    (remembered with the records: a page asks again without going through the season)."""
    return service.matches_of(conn, player, since=choice["since"], until=choice["until"], game=choice["game"])


@bp.get("/players/at/<token>/<int:seat>")
def at_table(token: str, seat: int):
    """From a table page's names: the page of the player in that seat (a seat the organiser
    gave to a namesake leads to them)."""
    conn = get_db()
    table = player_rows.table_ref(conn, token)
    if table is None or not 0 <= seat < len(table["players"]):
        abort(404)
    service.refresh(conn)
    found = service.seat_players(conn, table["id"], table["players"])[seat]
    if found is None:
        abort(404)
    return redirect(url_for("players.show", pid=found))


def ratings_shown() -> bool:
    """May the device asking see ratings? The laptop always; another device when the organiser
    chose "everyone" on /players (issue 43: some players would rather not be rated in public)."""
    return is_host_request() or service.ratings_for_everyone(get_db())


def player_context(pid: int) -> dict[str, Any]:
    conn = get_db()
    service.refresh(conn)
    player = player_or_404(pid)
    choice = chosen()
    stats = service.stats(conn, player, since=choice["since"], until=choice["until"], game=choice["game"])
    rated = service.ratings(conn) if ratings_shown() else None
    return {"player": player, "stats": stats, "choice": choice, "names": names_by_id(),
            "rating": rated.of(player.sid) if rated else None, "rating_rule": RATING_RULE,
            "game_ratings": [(game, rated.by_game[game][player.sid])  # in the games' own order
                             for game in [*GAMES, *sorted(set(rated.by_game) - set(GAMES))]
                             if player.sid in rated.by_game.get(game, {})] if rated else [],
            "chart": points_chart(stats) if stats else None,
            "matches": player_matches(conn, player, choice) if stats else [],
            "links": span_links("players.show", choice, pid=pid)}


@bp.get("/players/<int:pid>")
def show(pid: int):
    version = service.season_version(get_db())  # first: see season_version
    if (same := asked_unchanged(version)) is not None:
        return same
    context = player_context(pid)
    host = is_host_request()
    matches = context["matches"]
    tokens: dict[int, str] = {}
    if matches and is_host_request():  # only the laptop's "Not this player?" form names a table's token
        tokens = player_rows.tokens(get_db(), {m["table_id"] for m in matches[:RECENT_MATCHES]})
    others = [p for p in service.everyone(get_db()) if p.id != pid] if host else []
    return render_template("players/player.html", host=host, shown=matches[:RECENT_MATCHES], tokens=tokens,
                           others=others, form_length=FORM_LENGTH, rule=PLACE_POINTS_RULE,
                           errors={}, values={}, season_version=version, **context)


@bp.post("/players/ratings")
def ratings_for():
    """The organiser's choice of who sees the ratings ("everyone" or the laptop only)."""
    everyone = request.form.get("ratings") == "everyone"
    return answer(lambda: service.show_ratings_to_everyone(get_db(), everyone),
                  saved=lambda _shown: redirect(url_for("players.index") + "#ratings", code=303),
                  page=lambda errors, status: (players_page(errors), status), field="ratings")


def players_page(errors: dict | None = None, values: dict | None = None):
    """The players list (the organiser's), with a refused change's reasons and what was typed."""
    conn = get_db()
    service.refresh(conn)
    everyone = service.everyone(conn)
    season = service.season(conn, min_matches=1)
    lines = {r.key: r for r in season.rows}
    page = max(request.args.get("uncounted", 1, type=number_or_error) or 1, 1)
    uncounted, uncounted_total = service.uncounted_matches(conn, page)
    pages = -(-uncounted_total // service.UNCOUNTED_PAGE)
    return render_template("players/index.html", everyone=everyone, lines=lines, errors=errors or {}, values=values or {},
                           spellings=service.spellings(conn), ratings_for_everyone=service.ratings_for_everyone(conn),
                           uncounted=uncounted, uncounted_total=uncounted_total,
                           uncounted_paging=dict(page=page, pages=pages) if pages > 1 else None)


@bp.get("/players")
def index():
    return players_page()


def refused(player: service.Player | None, errors: dict[str, list], status: int, *, values: dict[str, str]):
    """The page the change came from again, the reason next to its field, what was typed kept."""
    if player is None:
        return players_page(errors, values), status
    context = player_context(player.id)
    matches = context["matches"]
    tokens = player_rows.tokens(get_db(), {m["table_id"] for m in matches[:RECENT_MATCHES]}) if matches else {}
    others = [p for p in service.everyone(get_db()) if p.id != player.id]
    return render_template("players/player.html", host=True, shown=matches[:RECENT_MATCHES], tokens=tokens,
                           others=others, form_length=FORM_LENGTH, rule=PLACE_POINTS_RULE, errors=errors,
                           values=values, **context), status


def form_int(name: str) -> int | None:
    return ascii_number(request.form.get(name))


@bp.post("/players/<int:pid>/rename")
def rename(pid: int):
    player = player_or_404(pid)
    return answer(lambda: service.rename(get_db(), pid, request.form.get("name", "")),
                  saved=lambda _renamed: redirect(url_for("players.show", pid=pid)),
                  page=partial(refused, player, values={"name": request.form.get("name", "")}), field="name")


@bp.post("/players/<int:pid>/forget")
def forget(pid: int):
    """Forget a player on their request: their name replaced everywhere (issue 43)."""
    player = player_or_404(pid)
    return answer(lambda: service.forget_player(get_db(), pid, confirmed=request.form.get("confirm") == "1"),
                  saved=lambda _forgotten: redirect(url_for("players.show", pid=pid), code=303),
                  page=partial(refused, player, values={"forget": "1"}), field="forget")


@bp.post("/players/<int:pid>/merge")
def merge(pid: int):
    """Merge another player into this one (``gone``: the other player's id)."""
    player = player_or_404(pid)
    return answer(lambda: service.merge(get_db(), pid, form_int("gone")),
                  saved=lambda _merged: redirect(url_for("players.show", pid=pid)),
                  page=partial(refused, player, values={"gone": request.form.get("gone", "")}), field="gone")


@bp.post("/players/<int:pid>/apart")
def keep_apart(pid: int):
    """One of this player's matches was someone else who shares the name: a new player gets
    that seat (``token``, ``seat``), named ``name``."""
    player = player_or_404(pid)
    seat = form_int("seat")
    token = request.form.get("token", "")
    name = request.form.get("name", "")
    return answer(lambda: service.keep_apart(get_db(), token, -1 if seat is None else seat, name, was=pid),
                  saved=lambda made: redirect(url_for("players.show", pid=made.value.id)),
                  page=partial(refused, player, values={"name": name, "apart": f"{token}:{seat}"}), field="name")


# --------------------------------------------------------------------------
# The season


def season_context() -> dict[str, Any]:
    conn = get_db()
    choice = chosen()
    table = service.season(conn, since=choice["since"], until=choice["until"], game=choice["game"],
                          min_matches=choice["min"])
    shown = ratings_shown()
    rated = service.ratings(conn) if choice["ratings"] and shown else None
    return {"table": table, "choice": choice, "names": names_by_id(), "order": SEASON_ORDER,
            "rating_of": (lambda key: rated.of(key, choice["game"])) if rated else None, "rating_rule": RATING_RULE,
            "ratings_link": url_for("players.season", **{k: v for k, v in request.args.items() if k != "ratings"},
                                    **({} if choice["ratings"] else {"ratings": 1})) if shown else None,
            "minimum": min_matches_text(choice["min"]), "rule": PLACE_POINTS_RULE,
            "links": span_links("players.season", choice)}


@bp.get("/season")
def season():
    version = service.season_version(get_db())  # first: see season_version
    if (same := asked_unchanged(version)) is not None:
        return same
    return render_template("players/season.html", host=is_host_request(), season_version=version,
                           **season_context())


# --------------------------------------------------------------------------
# Exports


@bp.get("/players/<int:pid>/history.json")
def player_json(pid: int):
    context = player_context(pid)
    return json_download(player_document(context), f"player-{pid}-{span_name(context['choice'])}.json",
                         indent=1, **{"Cache-Control": "no-store"})


@bp.get("/players/<int:pid>/history.csv")
def player_csv(pid: int):
    """One row per match, oldest first (a spreadsheet sorts it as it likes)."""
    context = player_context(pid)
    columns = PLAYER_CSV if context["rating"] is not None else tuple(c for c in PLAYER_CSV if "rating" not in c)
    return csv_download(history_rows(player_document(context)), columns,
                        f"player-{pid}-{span_name(context['choice'])}.csv", **{"Cache-Control": "no-store"})


@bp.get("/season.json")
def season_json():
    context = season_context()
    return json_download(season_document(context), f"season-{span_name(context['choice'])}.json",
                         indent=1, **{"Cache-Control": "no-store"})


@bp.get("/season.csv")
def season_csv():
    """One row per player, best first: those who reached the minimum, then the others (marked)."""
    context = season_context()
    return csv_download(season_rows(season_document(context)), SEASON_CSV,
                        f"season-{span_name(context['choice'])}.csv", **{"Cache-Control": "no-store"})
