"""A table for reading and keeping: its facts in the players' words (the change log, the CSV),
one row per deal for a spreadsheet, and the whole table as JSON-able data (the table's own
export and the night's share it)."""

from __future__ import annotations

from typing import Sequence

from flask_babel import gettext

from ..games import Game
from ..web import render_text
from ..web.times import local_time
from .service import Table


# Readable facts: what the log and the CSV say about a deal, in the players' words. Each game
# describes its own facts (Game.describe_facts: its fact_labels, seat_facts and team_facts).


def fact_items(facts: dict, players: Sequence[str], entrants: Sequence[str],
               game: Game) -> list[tuple[str, str, str]]:
    """(label, name or "", value) per fact, as the game describes them, in this reader's language."""
    return [(render_text(item.label), item.owner, render_text(item.value))
            for item in game.describe_facts(facts, players, entrants)]


def fact_groups(facts: dict, players: Sequence[str], entrants: Sequence[str], game: Game):
    """The facts for reading: what concerns the whole deal ("Start player: Ann"), then each
    player's (or team's) own facts together ("Ann: Chips 4 · Tricks 2")."""
    general, per_name = [], {}
    for label, name, value in fact_items(facts, players, entrants, game):
        if name:
            per_name.setdefault(name, []).append((label, value))
        else:
            general.append((label, value))
    return general, list(per_name.items())


def distinct(labels: Sequence[str]) -> list[str]:
    """The labels made unique (" (2)", " (3)"…), so no two columns or keys ever merge."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def export_rows(table: Table):
    """One row per deal, column -> value in order; every entrant has its own columns even if
    two share a name (seat-ordered, made distinct)."""
    match = table.match()
    players, entrants = table.setup.players, match.entrants
    rows = []
    for record in match.deals:
        pairs = [(gettext("Deal"), str(record.number))]
        pairs += [(f"{label}: {name}" if name else label, value)
                  for label, name, value in fact_items(record.facts, players, entrants, table.game)]
        pairs += [(gettext("Points: %(name)s", name=name), str(record.score.points[i]))
                  for i, name in enumerate(entrants)]
        pairs += [(gettext("Total: %(name)s", name=name), str(record.totals[i])) for i, name in enumerate(entrants)]
        if match.at_time and record.number == len(match.deals):  # issue 33: the result, marked
            pairs.append((gettext("Ended at time"), render_text(match.outcome.message)))
        rows.append(dict(zip(distinct([c for c, _v in pairs]), [v for _c, v in pairs])))
    return match, rows


def download_name(table: Table, ext: str) -> str:
    return f"{table.game.id}-{table.created_at[:10]}-{table.token[:6]}.{ext}"


def table_document(table: Table) -> dict:
    """One table as JSON-able data: its facts, every deal's points, totals and winners
    (the table's own export and the meetup night's export share it)."""
    match = table.match()
    return {
        "game": table.game.id,
        "players": list(table.setup.players),
        "entrants": list(match.entrants),
        "options": dict(table.setup.options),
        "created_at": table.created_at,  # UTC, ISO 8601
        "created_at_local": local_time(table.created_at),  # the laptop's clock
        "finished": table.finished,
        "ended_at_time": match.at_time,  # issue 33: ended with the deals played when time was called
        "deals": [{
            "number": r.number,
            "facts": r.facts,
            "points": list(r.score.points),
            "totals": list(r.totals),
            "winners": [match.entrants[i] for i in r.score.winners],
            # Lists by seat (or team) order, never keyed by name: two equal names can't merge.
            "breakdown": [{"name": match.entrants[i],
                           "lines": [{"label": str(line.label), "points": line.points} for line in lines]}
                          for i, lines in enumerate(r.score.breakdown)],
            "rulings": list(r.score.rulings),
        } for r in match.deals],
        "totals": [{"name": name, "total": total} for name, total in zip(match.entrants, match.totals)],
        "over": match.over,
        "winners": [match.entrants[i] for i in match.winners],
        "rulings": list(match.outcome.rulings),
    }
