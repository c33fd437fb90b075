"""Players across nights (issue 26): the players list and the organiser's merge/rename/keep
apart (the laptop only, like /hall), a player's page and the season table (the laptop and the
phones: a table page's names lead here), and their CSV/JSON exports."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import date, datetime, timezone
from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import players as domain
from ..games import GAMES
from ..meetup.points import PLACE_POINTS_RULE
from ..meetup.season import FORM_LENGTH, MIN_MATCHES, SEASON_ORDER, PlayerStats, min_matches_text
from ..store import get_db
from .home import is_host_request
from .tables import csv_download

bp = Blueprint("players", __name__)

# What a phone may open: reading pages and exports. Everything else (the players list, merging,
# renaming, giving a seat to someone else) is the organiser's, on the laptop.
PHONE_ENDPOINTS = ("players.show", "players.at_table", "players.mine", "players.player_csv", "players.player_json",
                   "players.season", "players.season_csv", "players.season_json")

MAX_MIN_MATCHES = 99
RECENT_MATCHES = 30  # the player page lists this many latest matches (exports have them all)


@bp.before_request
def laptop_only():
    if request.endpoint not in PHONE_ENDPOINTS and not is_host_request():
        return render_template("error.html", message=gettext(
            "The players list opens only on the host laptop.")), 403


# --------------------------------------------------------------------------
# The span and game a page shows


def today() -> date:
    return datetime.now(timezone.utc).date()


def chosen() -> dict[str, Any]:
    """The page's span (month, year, all), game (or all) and minimum, from its query string;
    anything unknown falls back to the default (a hand-edited URL is never a 500)."""
    span = request.args.get("span", "all")
    if span not in domain.SPANS:
        span = "all"
    game = request.args.get("game") or None
    if game not in GAMES:
        game = None
    raw = request.args.get("min", "")
    minimum = int(raw) if raw.isdigit() and 1 <= int(raw) <= MAX_MIN_MATCHES else MIN_MATCHES
    since, until = domain.span_bounds(span, today())
    return {"span": span, "game": game, "min": minimum, "since": since, "until": until}


def span_links(endpoint: str, choice: dict[str, Any], **values: Any) -> dict[str, Any]:
    """Links to the same page in each span and each game (keeping the other choices)."""
    def link(**change: Any) -> str:
        args = {"span": choice["span"], "game": choice["game"], **values, **change}
        if endpoint == "players.season" and choice["min"] != MIN_MATCHES:
            args.setdefault("min", choice["min"])
        return url_for(endpoint, **{k: v for k, v in args.items() if v not in (None, "all") or k == "pid"})
    return {"spans": [(s, domain.SPAN_LABELS[s], link(span=s)) for s in domain.SPANS],
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


def player_or_404(pid: int) -> domain.Player:
    found = domain.get(get_db(), pid)
    if found is None:
        abort(404)
    return found


def names_by_id() -> dict[str, str]:
    return {p.sid: p.name for p in domain.everyone(get_db())}


def player_matches(conn, player: domain.Player, choice: dict[str, Any]) -> list[dict[str, Any]]:
    """The player's matches in the span, latest first: each with its table and the others
    (remembered with the records: a page asks again without going through the season)."""
    return domain.matches_of(conn, player, since=choice["since"], until=choice["until"], game=choice["game"])


@bp.get("/players/me")
def mine():
    """A phone on tonight's roster (issue 25's per-phone player): its own season page; a phone
    that hasn't joined tonight is sent to join."""
    from .hall import my_player
    who = my_player()
    if who is None:
        return redirect(url_for("hall.join"), code=303)
    found = domain.ensure_player(get_db(), who.name)
    if found is None:
        abort(404)
    return redirect(url_for("players.show", pid=found.id), code=303)


@bp.get("/players/at/<token>/<int:seat>")
def at_table(token: str, seat: int):
    """From a table page's names: the page of the player in that seat (a seat the organiser
    gave to a namesake leads to them)."""
    conn = get_db()
    from ..store import players as rows
    table = rows.table_ref(conn, token)
    if table is None or not 0 <= seat < len(table["players"]):
        abort(404)
    domain.refresh(conn)
    found = domain.seat_players(conn, table["id"], table["players"])[seat]
    if found is None:
        abort(404)
    return redirect(url_for("players.show", pid=found))


def player_context(pid: int) -> dict[str, Any]:
    conn = get_db()
    domain.refresh(conn)
    player = player_or_404(pid)
    choice = chosen()
    stats = domain.stats(conn, player, since=choice["since"], until=choice["until"], game=choice["game"])
    return {"player": player, "stats": stats, "choice": choice, "names": names_by_id(),
            "chart": points_chart(stats) if stats else None,
            "matches": player_matches(conn, player, choice) if stats else [],
            "links": span_links("players.show", choice, pid=pid)}


@bp.get("/players/<int:pid>")
def show(pid: int):
    context = player_context(pid)
    host = is_host_request()
    matches = context["matches"]
    tokens: dict[int, str] = {}
    if matches:
        from ..store import players as rows
        tokens = rows.tokens(get_db(), {m["table_id"] for m in matches[:RECENT_MATCHES]})
    others = [p for p in domain.everyone(get_db()) if p.id != pid] if host else []
    return render_template("players/player.html", host=host, shown=matches[:RECENT_MATCHES], tokens=tokens,
                           others=others, form_length=FORM_LENGTH, rule=PLACE_POINTS_RULE,
                           errors={}, values={}, **context)


@bp.get("/players")
def index():
    conn = get_db()
    domain.refresh(conn)
    everyone = domain.everyone(conn)
    season = domain.season(conn, min_matches=1)
    lines = {r.key: r for r in season.rows + season.unranked}
    return render_template("players/index.html", everyone=everyone, lines=lines, errors={}, values={})


def refused(player: domain.Player | None, exc: domain.Refused, values: dict[str, str]):
    """The page the change came from again, the reason next to its field, what was typed kept."""
    errors: dict[str, list] = {}
    for e in exc.errors:
        errors.setdefault(e.field, []).append(e.message)
    if player is None:
        conn = get_db()
        everyone = domain.everyone(conn)
        season = domain.season(conn, min_matches=1)
        lines = {r.key: r for r in season.rows + season.unranked}
        return render_template("players/index.html", everyone=everyone, lines=lines, errors=errors,
                               values=values), 422
    context = player_context(player.id)
    matches = context["matches"]
    from ..store import players as rows
    tokens = rows.tokens(get_db(), {m["table_id"] for m in matches[:RECENT_MATCHES]}) if matches else {}
    others = [p for p in domain.everyone(get_db()) if p.id != player.id]
    return render_template("players/player.html", host=True, shown=matches[:RECENT_MATCHES], tokens=tokens,
                           others=others, form_length=FORM_LENGTH, rule=PLACE_POINTS_RULE, errors=errors,
                           values=values, **context), 422


def form_int(name: str) -> int | None:
    raw = (request.form.get(name) or "").strip()
    return int(raw) if raw.isdigit() and len(raw) <= 9 else None


@bp.post("/players/<int:pid>/rename")
def rename(pid: int):
    player = player_or_404(pid)
    try:
        domain.rename(get_db(), pid, request.form.get("name", ""))
    except domain.Refused as exc:
        return refused(player, exc, {"name": request.form.get("name", "")})
    return redirect(url_for("players.show", pid=pid))


@bp.post("/players/<int:pid>/merge")
def merge(pid: int):
    """Merge another player into this one (``gone``: the other player's id)."""
    player = player_or_404(pid)
    gone = form_int("gone")
    try:
        if gone is None:
            raise domain.Refused([domain.FieldError("gone", domain.T("Choose the player to merge into this one."))])
        domain.merge(get_db(), pid, gone)
    except domain.Refused as exc:
        return refused(player, exc, {"gone": request.form.get("gone", "")})
    return redirect(url_for("players.show", pid=pid))


@bp.post("/players/<int:pid>/apart")
def keep_apart(pid: int):
    """One of this player's matches was someone else who shares the name: a new player gets
    that seat (``token``, ``seat``), named ``name``."""
    player = player_or_404(pid)
    seat = form_int("seat")
    token = request.form.get("token", "")
    name = request.form.get("name", "")
    try:
        made = domain.keep_apart(get_db(), token, -1 if seat is None else seat, name, was=pid)
    except domain.Refused as exc:
        return refused(player, exc, {"name": name, "apart": f"{token}:{seat}"})
    return redirect(url_for("players.show", pid=made.id))


# --------------------------------------------------------------------------
# The season


def season_context() -> dict[str, Any]:
    conn = get_db()
    choice = chosen()
    table = domain.season(conn, since=choice["since"], until=choice["until"], game=choice["game"],
                          min_matches=choice["min"])
    return {"table": table, "choice": choice, "names": names_by_id(), "order": SEASON_ORDER,
            "minimum": min_matches_text(choice["min"]), "rule": PLACE_POINTS_RULE,
            "links": span_links("players.season", choice)}


@bp.get("/season")
def season():
    return render_template("players/season.html", host=is_host_request(), **season_context())


# --------------------------------------------------------------------------
# Exports


def _span_name(choice: dict[str, Any]) -> str:
    return "-".join(x for x in (choice["span"] if choice["span"] != "all" else "all", choice["game"]) if x)


def player_document(context: dict[str, Any]) -> dict[str, Any]:
    player, s, choice, names = context["player"], context["stats"], context["choice"], context["names"]
    doc: dict[str, Any] = {"player": {"id": player.id, "name": player.name},
                           "span": {"span": choice["span"], "since": choice["since"], "until": choice["until"],
                                    "game": choice["game"]},
                           "place_points_rule": str(PLACE_POINTS_RULE)}
    if s is None:
        return {**doc, "summary": None, "games": [], "head_to_head": [], "nights": [], "matches": []}
    doc["summary"] = {"nights": s.nights, "matches": s.matches, "wins": s.wins, "places": list(s.places),
                      "place_points": round(s.points, 6), "average": round(s.average, 6),
                      "best": asdict(s.best), "worst": asdict(s.worst), "form": [asdict(m) for m in s.form]}
    doc["games"] = [dict(asdict(g), places=list(g.places)) for g in s.games]
    doc["head_to_head"] = [{"player_id": h.key, "name": names.get(h.key, h.name), "matches": h.matches,
                            "above": h.above, "below": h.below, "tied": h.tied, "partners": h.partners}
                           for h in s.head_to_head]
    doc["nights"] = [asdict(n) for n in s.timeline]
    doc["matches"] = [{"night": m["night"], "at": m["at"], "game": m["game"], "table": m["table"],
                       "name_at_table": m["name"], "place": m["place"], "of": m["of"],
                       "place_points": round(m["points"], 6), "score": m["score"],
                       "with": [names.get(k, n) for n, k in m["with"]],
                       "ended_at_time": m.get("at_time", False)} for m in reversed(context["matches"])]
    return doc


def _json_response(doc: dict[str, Any], filename: str) -> Response:
    return Response(json.dumps(doc, ensure_ascii=False, indent=1), mimetype="application/json", headers={
        "Content-Disposition": f"attachment; filename={filename}", "Cache-Control": "no-store"})


@bp.get("/players/<int:pid>/history.json")
def player_json(pid: int):
    context = player_context(pid)
    return _json_response(player_document(context), f"player-{pid}-{_span_name(context['choice'])}.json")


PLAYER_CSV = ("night", "time", "game", "table", "name_at_table", "place", "of", "place_points", "score", "with",
              "ended_at_time")


@bp.get("/players/<int:pid>/history.csv")
def player_csv(pid: int):
    """One row per match, oldest first (a spreadsheet sorts it as it likes)."""
    context = player_context(pid)
    doc = player_document(context)
    rows = [{"night": m["night"], "time": m["at"], "game": GAMES[m["game"]].name_en if m["game"] in GAMES else m["game"],
             "table": m["table"], "name_at_table": m["name_at_table"], "place": m["place"], "of": m["of"],
             "place_points": m["place_points"], "score": m["score"], "with": " / ".join(m["with"]),
             "ended_at_time": "yes" if m["ended_at_time"] else ""}
            for m in doc["matches"]]
    return csv_download(rows, PLAYER_CSV, f"player-{pid}-{_span_name(context['choice'])}.csv",
                        **{"Cache-Control": "no-store"})


def season_document(context: dict[str, Any]) -> dict[str, Any]:
    table, choice, names = context["table"], context["choice"], context["names"]

    def row(r) -> dict[str, Any]:
        return {"rank": r.rank, "player_id": r.key, "name": names.get(r.key, r.name), "nights": r.nights,
                "matches": r.matches, "wins": r.wins, "places": list(r.places), "place_points": round(r.points, 6),
                "per_match": round(r.per_match, 6)}

    def who(pairs) -> list[dict[str, str]]:
        return [{"player_id": k, "name": names.get(k, n)} for k, n in pairs]

    return {"span": {"span": choice["span"], "since": choice["since"], "until": choice["until"],
                     "game": choice["game"]},
            "min_matches": table.min_matches, "order": str(SEASON_ORDER), "place_points_rule": str(PLACE_POINTS_RULE),
            "ranked": [row(r) for r in table.rows], "unranked": [row(r) for r in table.unranked],
            "games": [{"game": g.game, "matches": g.matches, "most_played": who(g.most_played), "played": g.played,
                       "most_won": who(g.most_won), "won": g.won} for g in table.games]}


@bp.get("/season.json")
def season_json():
    context = season_context()
    return _json_response(season_document(context), f"season-{_span_name(context['choice'])}.json")


SEASON_CSV = ("rank", "player", "nights", "matches", "wins", "place_points", "per_match")


@bp.get("/season.csv")
def season_csv():
    """One row per player, ranked first, then those below the minimum (rank empty)."""
    context = season_context()
    doc = season_document(context)
    width = max((len(r["places"]) for r in doc["ranked"] + doc["unranked"]), default=0)
    rows = []
    for r in doc["ranked"] + doc["unranked"]:
        line = {"rank": r["rank"] or "", "player": r["name"], "nights": r["nights"], "matches": r["matches"],
                "wins": r["wins"], "place_points": r["place_points"], "per_match": r["per_match"]}
        for place in range(width):
            line[f"place_{place + 1}"] = r["places"][place] if place < len(r["places"]) else 0
        rows.append(line)
    return csv_download(rows, SEASON_CSV, f"season-{_span_name(context['choice'])}.csv",
                        **{"Cache-Control": "no-store"})
