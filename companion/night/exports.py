"""The night for keeping and for reading: what its pages and files call a table, the night
as JSON-able data (docs/organiser.md, "The night's files") and one CSV row per player per deal."""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext


from ..meetup import points as place_points
from ..meetup.seating import entrant_seats
from ..tables.exports import table_document
from ..tables.links import table_label  # noqa: F401  (the night's pages and files name tables so)
from ..tables.service import Table
from . import rolling, service


def round_label(rt: service.RoundTable) -> str:
    # The room's table, else the table's night-wide number (as on the hall board), never its
    # number within the round.
    return table_label(rt.table, rt.number)


def across_rounds(r: service.Round, rt: service.RoundTable) -> str:
    """A round's table where tables of several rounds are listed (the night's files, tables still
    playing, a player's history): "R2 · Table 3", as the room's Table 3 holds a table each round."""
    return gettext("R%(n)s · %(table)s", n=r.number, table=round_label(rt))


def night_name(conn) -> str:
    """The night's date, as its files are named."""
    started = service.night_started(conn)
    return (started[:10] if started else datetime.now().strftime("%Y-%m-%d"))


def night_document(conn) -> dict:
    """The night as JSON-able data: the roster, every round's seating, every table with its
    deals and result (places and place points), and the leaderboard (docs/organiser.md, "The night's files")."""
    tables = service.night_tables(conn)
    rounds = service.night_rounds(conn, tables)
    results = {r.table.id: r for r in service.night_results(conn, tables, rounds)}
    people = service.roster(conn, with_left=True)
    names = {p.id: p.name for p in people}
    roster_id = {p.key: p.id for p in people}
    where = {rt.table.id: (r, rt) for r in rounds for rt in r.tables}

    def result(table: Table) -> dict | None:
        found = results.get(table.id)
        if found is None:
            return None
        return {"over": found.result.over,
                "placings": [{"seat": p.seat + 1, "player": p.player, "player_id": found.player_ids[p.seat],
                              "place": p.place, "place_points": round(p.points, 6),
                              "place_points_exact": str(p.exact), "score": p.score}
                             for p in found.result.placings]}

    def table_entry(position: int, t: Table) -> dict:
        r, rt = where.get(t.id, (None, None))
        label = across_rounds(r, rt) if rt else table_label(t, position)
        return dict(table_document(t), label=label, token=t.token, seated=t.seated,
                    round=r.number if r else None, result=result(t))

    return {
        "night_started_at": service.night_started(conn) or None,
        "place_points_rule": str(place_points.PLACE_POINTS_RULE),
        "roster": [{"id": p.id, "name": p.name, "added_at": p.added_at, "left": p.left} for p in people],
        "rounds": [{"number": r.number, "drawn_at": r.drawn_at, "seed": r.seed, "clock_minutes": r.minutes,
                    "clock_started_at": r.clock_from, "draw": draw_entry(r.draw, names),
                    "tables": [{"label": round_label(rt), "number": rt.number, "game": rt.table.game.id,
                                "token": rt.table.token, "extra_minutes": rt.extra_minutes,
                                "seats": [{"seat": seat + 1, "player_id": pid, "name": names.get(pid)}
                                          for seat, pid in enumerate(rt.player_ids)]}
                               for rt in r.tables]}
                   for r in rounds],
        "tables": [table_entry(position, t) for position, t in enumerate(tables, start=1)],
        "leaderboard": [{"rank": s.rank, "name": s.name, "player_id": roster_id.get(s.key), "tables": s.tables,
                         "places": list(s.places),
                         "place_points": round(s.points, 6), "place_points_exact": str(s.exact),
                         "average": round(s.average, 6)}
                        for s in rolling.leaderboard(conn, list(results.values()))],
    }


def draw_entry(how: service.HowDrawn, names: dict[int, str]) -> dict:
    """How a round was drawn (a round drawn before rounds kept it: mix, no wishes), its
    never-together pairs by player id and name."""
    return {"way": how.way, "every_game": how.every_game, "newcomers": how.newcomers,
            "never": [[{"player_id": pid, "name": names.get(pid)} for pid in pair] for pair in how.never]}


CSV_COLUMNS = ("table", "game", "round", "deal", "player", "player_id", "entered_as", "points", "total", "place",
               "place_points", "place_points_exact", "ended_at_time")


def night_rows_of_deals(conn) -> list[dict]:
    """One row per player per deal (table, game, round, deal, player, points, total), so a
    spreadsheet can pivot it; in a team game a player's points are their team's. A finished
    table's last deal also carries each player's place and place points, the night's own
    result (service.night_results), so a column sum per player is their leaderboard total.

    A player on tonight's list is named as the list names them now, with their id on it (issue
    43: a name corrected on the hall after round 1 split one player in two in the CSV); the
    seat's name as it was typed at the table is ``entered_as``."""
    tables = service.night_tables(conn)
    rounds = service.night_rounds(conn, tables)
    where = {rt.table.id: (r, rt) for r in rounds for rt in r.tables}
    results = {found.table.id: found for found in service.night_results(conn, tables, rounds)}
    # Issue 44: a seat taken by a substitute after deal N: its deals up to N are the one who left.
    names = {p.id: p.name for p in service.roster(conn, with_left=True)}
    earlier: dict[tuple[int, int], list[tuple[int, str, int | None]]] = {}
    for change in service.seat_changes(conn, tables):
        if change["action"] == "substitute":
            was = change["before"]
            earlier.setdefault((change["table_id"], was["seat"] - 1), []).append(
                (change["number"], names.get(was.get("player_id"), was["player"]), was.get("player_id")))
    rows: list[dict] = []
    for position, table in enumerate(tables, start=1):
        if not table.seated:
            continue
        r, rt = where.get(table.id, (None, None))
        match = table.match()
        seats = seating_entrants(table)
        found = results.get(table.id)
        result = found.result if found is not None else None
        ended = result.placings if result is not None and result.over else None
        for record in match.deals:
            last = ended is not None and record.number == len(match.deals)
            for seat, typed in enumerate(table.setup.players):
                entrant = seats[seat]
                player_id = found.player_ids[seat] if found is not None else None
                name = result.placings[seat].player if result is not None else typed
                # The holder of the seat at this deal: the one who left, up to the deal after which
                # the substitute took it (the earliest change that comes after this deal).
                held = next(((n, was, pid) for n, was, pid in earlier.get((table.id, seat), ())
                             if record.number <= n), None)
                if held is not None:
                    _n, name, player_id = held
                    typed = held[1]
                rows.append({"table": across_rounds(r, rt) if rt else table_label(table, position),
                             "game": table.game.name_en, "round": r.number if r else "",
                             "deal": record.number,
                             "player": name,
                             "player_id": "" if player_id is None else player_id, "entered_as": typed,
                             "points": record.score.points[entrant], "total": record.totals[entrant],
                             "place": ended[seat].place if last else "",
                             "place_points": round(ended[seat].points, 6) if last else "",
                             "place_points_exact": str(ended[seat].exact) if last else "",
                             "ended_at_time": "yes" if last and match.at_time else ""})
    return rows


def seating_entrants(table: Table) -> list[int]:
    """Per seat, the entrant (player or team) whose points it shares."""
    found = [0] * table.setup.n
    for entrant, seats in enumerate(entrant_seats(table.game, table.setup.n)):
        for seat in seats:
            found[seat] = entrant
    return found
