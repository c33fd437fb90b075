"""A player's history and the season as files: JSON-able documents and CSV rows."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..games import GAMES
from ..meetup.points import PLACE_POINTS_RULE
from ..meetup.ratings import RATING_RULE, Rating, shown_value
from ..meetup.season import SEASON_ORDER


def span_name(choice: dict[str, Any]) -> str:
    return "-".join(x for x in (choice["span"] if choice["span"] != "all" else "all", choice["game"]) if x)


def rating_entry(rating: Rating) -> dict[str, Any]:
    """A rating as the exports give it: the value the pages show (μ − 3σ to one decimal), μ, σ
    and the matches it rests on."""
    return {"shown": shown_value(rating), "mu": round(rating.mu, 6), "sigma": round(rating.sigma, 6),
            "matches": rating.matches}


def player_document(context: dict[str, Any]) -> dict[str, Any]:
    player, s, choice, names = context["player"], context["stats"], context["choice"], context["names"]
    # The ratings are the page's: over every night, whatever the span (players.service.ratings).
    doc: dict[str, Any] = {"player": {"id": player.id, "name": player.name},
                           "span": {"span": choice["span"], "since": choice["since"], "until": choice["until"],
                                    "game": choice["game"]},
                           "place_points_rule": str(PLACE_POINTS_RULE)}
    if context["rating"] is not None:  # only where the organiser lets this device see ratings
        doc.update(rating=rating_entry(context["rating"]),
                   game_ratings=[{"game": game, **rating_entry(r)} for game, r in context["game_ratings"]],
                   rating_rule=str(RATING_RULE))
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
                       "place_points": round(m["points"], 6), "place_points_exact": str(m["exact"]),
                       "score": m["score"],
                       "with": [names.get(k, n) for n, k in m["with"]],
                       "ended_at_time": m.get("at_time", False)} for m in reversed(context["matches"])]
    return doc


PLAYER_CSV = ("night", "time", "game", "table", "name_at_table", "place", "of", "place_points", "place_points_exact",
              "score", "with",
              "ended_at_time", "rating_now", "game_rating_now")


def history_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The player's CSV: one row per match of :func:`player_document`, oldest first, each with
    the player's rating as the page shows it today (``_now``: not the rating after that match):
    overall, and in that match's game."""
    in_game = {g["game"]: g["shown"] for g in doc.get("game_ratings", ())}
    rating = doc["rating"]["shown"] if "rating" in doc else None
    return [{"night": m["night"], "time": m["at"],
             "game": GAMES[m["game"]].name_en if m["game"] in GAMES else m["game"],
             "table": m["table"], "name_at_table": m["name_at_table"], "place": m["place"], "of": m["of"],
             "place_points": m["place_points"], "place_points_exact": m["place_points_exact"], "score": m["score"],
             "with": " / ".join(m["with"]),
             "ended_at_time": "yes" if m["ended_at_time"] else "",
             **({"rating_now": rating, "game_rating_now": in_game.get(m["game"], "")} if rating is not None else {})}
            for m in doc["matches"]]


def season_document(context: dict[str, Any]) -> dict[str, Any]:
    """The season table as JSON-able data. Each row has its player's ``rating`` only when the
    page was asked for its rating column (``ratings=1``, ``context["rating_of"]``): the same
    figures the page shows (the game's rating when one game is chosen)."""
    table, choice, names, rating_of = context["table"], context["choice"], context["names"], context["rating_of"]

    def row(r) -> dict[str, Any]:
        line = {"rank": r.rank, "player_id": r.key, "name": names.get(r.key, r.name), "nights": r.nights,
                "matches": r.matches, "wins": r.wins, "places": list(r.places), "place_points": round(r.points, 6),
                "place_points_exact": str(r.exact),
                "per_match": round(r.per_match, 6), "below_minimum": r.below_minimum}
        if rating_of:
            line["rating"] = rating_entry(rating_of(r.key))
        return line

    def who(pairs) -> list[dict[str, str]]:
        return [{"player_id": k, "name": names.get(k, n)} for k, n in pairs]

    doc = {"span": {"span": choice["span"], "since": choice["since"], "until": choice["until"],
                    "game": choice["game"]},
           "min_matches": table.min_matches, "order": str(SEASON_ORDER), "place_points_rule": str(PLACE_POINTS_RULE),
           "ranked": [row(r) for r in table.rows],
           "games": [{"game": g.game, "matches": g.matches, "most_played": who(g.most_played), "played": g.played,
                      "most_won": who(g.most_won), "won": g.won} for g in table.games]}
    if rating_of:
        doc["rating_rule"] = str(RATING_RULE)
    return doc


SEASON_CSV = ("rank", "player", "nights", "matches", "wins", "place_points", "place_points_exact", "per_match",
              "below_minimum")


def season_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The season's CSV: one row per player of :func:`season_document`, best first: those who
    reached the minimum, then the others (marked in below_minimum), with a column per place
    (and the rating's, when the document has them)."""
    width = max((len(r["places"]) for r in doc["ranked"]), default=0)
    rows = []
    for r in doc["ranked"]:
        line = {"rank": r["rank"], "player": r["name"], "nights": r["nights"], "matches": r["matches"],
                "wins": r["wins"], "place_points": r["place_points"], "place_points_exact": r["place_points_exact"],
                "per_match": r["per_match"],
                "below_minimum": 1 if r["below_minimum"] else ""}
        for place in range(width):
            line[f"place_{place + 1}"] = r["places"][place] if place < len(r["places"]) else 0
        if "rating" in r:  # asked for (ratings=1): after the places, so their columns stay where they were
            line.update(rating=r["rating"]["shown"], rating_mu=r["rating"]["mu"], rating_sigma=r["rating"]["sigma"],
                        rating_matches=r["rating"]["matches"])
        rows.append(line)
    return rows
