"""Place points: one measure of how well a player did at a table, whatever the game.

Each game keeps its own score (chips, points, a race to 100), so a night across five games
can't add them up. Place points come from the final ranking alone:

    At each finished table you get the share of the other players you beat. Every player
    who finished below you counts 1, every player who tied with you counts ½, and the sum
    is divided by the number of other players at the table. A clear winner gets 1, a clear
    last 0; at a table of four, second place gets ⅔ and third ⅓; two players who tie at a
    table of two get ½ each. In a team game your team's result counts for both partners,
    compared with the other teams.

So a win at a table of five is worth as much as a win at a table of three (1), and points
are comparable between games and table sizes. The ranking is the rules engine's own
(:meth:`companion.games.Match.ranking`: what decides the game, e.g. deal wins before
points; the match's winners share first place), replayed from the recorded deals.

The night's leaderboard adds them up per player: tables played, how often 1st, 2nd, …, the
total and the average. It ranks by the total, then the average, then the most first places,
then second places, and so on; players equal on all of these share a rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..games import GAMES, Game, Match, MatchSetup
from ..games.text import T
from ..names import name_key
from .seating import entrant_seats

# Shown on the leaderboard and the player pages (the docstring above says the same).
PLACE_POINTS_RULE = T(
    "Place points compare results across games. At each finished table you get the share of the other "
    "players you beat: each player below you counts 1, each player tied with you counts ½, divided by the "
    "number of other players at the table. A clear winner gets 1 and a clear last 0; at a table of four, "
    "second place gets ⅔ and third ⅓. In a team game your team's result counts for both partners, compared "
    "with the other teams.")
LEADERBOARD_ORDER = T(
    "Ranked by total place points, then average place points, then the most first places, then second "
    "places, and so on. Players equal on all of these share a rank.")


# Cached: a season reads the same few hundred names tens of thousands of times, and the
# Unicode clean-up behind a key is most of a season table's work without it.
@lru_cache(maxsize=16384)
def player_key(name: str) -> str:
    """What makes two names one player: exactly the rule a table uses to refuse the same name
    twice (:func:`companion.names.name_key`: NFKC, case-folded, spaces collapsed, so "Ann",
    "ann" and "ＡＮＮ" are one player)."""
    return name_key(name)


# Cached: a season has thousands of matches but few patterns of places (1-2-3-4 above all).
@lru_cache(maxsize=4096)
def match_place_points(entrants: tuple[int, ...], places: tuple[int, ...]) -> tuple[Fraction, ...]:
    """A match's place points, per seat: the one computation the leaderboard, a player's night,
    the season and the exports all read.

    ``entrants[seat]`` is what the game ranks at that seat (partners share one entrant, so a
    team counts once) and ``places[seat]`` that entrant's place (1 = first; equal places are a
    tie). Each seat gets its entrant's share of the *other entrants* beaten, a tie counting
    half: twice the entrants below plus the others tied, over twice the others. Both partners
    get their team's points: at a table of two teams, each winner gets 1 and each loser 0 (not
    the ⅚ and ⅙ of partners counted as tied opponents). Exact fractions, so totals over a
    night or a season compare without rounding (⅓ + ⅔ is 1)."""
    if len(entrants) != len(places):
        raise ValueError("one entrant and one place per seat")
    place_of: dict[int, int] = {}
    for entrant, place in zip(entrants, places):
        if place_of.setdefault(entrant, place) != place:
            raise ValueError(f"entrant {entrant} has two places; partners share their team's place")
    ranked = list(place_of.values())
    twice_others = 2 * (len(ranked) - 1)
    if twice_others < 2:
        raise ValueError("place points need at least two entrants")
    worth = {place: Fraction(2 * sum(1 for q in ranked if q > place) + sum(1 for q in ranked if q == place) - 1,
                             twice_others)
             for place in set(ranked)}
    return tuple(worth[place] for place in places)


@dataclass(frozen=True)
class Placing:
    """One player's result at a table."""

    seat: int  # 0-based, in the table's seat order
    player: str
    place: int  # 1 = first; partners share their team's place, tied players share a place
    exact: Fraction  # place points, 0..1, as match_place_points gives them
    score: int  # the final total in the game's own scale (a team game: the team's total)
    entrant: int  # index of what the game ranks (the seat itself, or the team)

    @property
    def points(self) -> float:
        """The place points as a float, for pages and exports."""
        return float(self.exact)


@dataclass(frozen=True)
class MatchResult:
    """A replayed match: ``placings`` in seat order; ``over`` when the match has ended (a match
    still in play has places too, but they may change)."""

    game: str
    over: bool
    placings: tuple[Placing, ...]
    at_time: bool = False  # ended with the deals played when time was called (Game.outcome_at_time)

    @property
    def ranking(self) -> tuple[Placing, ...]:
        """The placings best first (within a place, the higher score, then seat order)."""
        return tuple(sorted(self.placings, key=lambda p: (p.place, -p.score, p.seat)))


def result_of(match: Match, games: Mapping[str, Game] = GAMES) -> MatchResult:
    """The placings of a replayed :class:`~companion.games.Match`, by its own ranking."""
    setup = match.setup
    entrant_places = dict((entrant, place) for place, entrant in match.ranking())
    entrant_of = [0] * setup.n
    for entrant, entrant_seat_list in enumerate(entrant_seats(games[setup.game], setup.n)):
        for seat in entrant_seat_list:
            entrant_of[seat] = entrant
    places = tuple(entrant_places[entrant] for entrant in entrant_of)
    points = match_place_points(tuple(entrant_of), places)
    return MatchResult(setup.game, match.over, tuple(
        Placing(seat, setup.players[seat], places[seat], points[seat], match.totals[entrant_of[seat]],
                entrant_of[seat]) for seat in range(setup.n)), match.at_time)


def match_result(game_id: str, players: Sequence[str], deals: Sequence[Mapping[str, Any]],
                 options: Mapping[str, int] | None = None, finished: bool = False,
                 games: Mapping[str, Game] = GAMES, at_time: bool = False) -> MatchResult:
    """Replay a table's deals through its game's rules and return the ranking with place points.

    ``players`` in seat order, ``deals`` the recorded facts, ``options`` the table's options,
    ``finished`` whether the table pressed "finish match" (``at_time``: ended it when time was
    called). Raises the rules' own
    ``InvalidDeal`` / ``InvalidOptions`` on facts a table could never have stored."""
    game = games[game_id]
    match = game.replay(MatchSetup(game_id, tuple(players), dict(options or {})), [dict(d) for d in deals],
                        finished=finished, at_time=at_time)
    return result_of(match, games)


# --------------------------------------------------------------------------------------------
# The night's leaderboard


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard."""

    rank: int  # 1-based; equal lines share a rank
    key: str  # player_key of the name
    name: str  # as last written at a table
    tables: int  # finished tables played
    places: tuple[int, ...]  # how often 1st, 2nd, 3rd, … (index 0 = first places)
    points: float  # total place points
    average: float  # place points per table
    exact: Fraction = Fraction(0)  # the total exactly ("8/3" where points says 2.667)

    @property
    def wins(self) -> int:
        return self.places[0] if self.places else 0


def leaderboard(results: Iterable[MatchResult], key: Callable[[str], str] = player_key) -> tuple[Standing, ...]:
    """Every player of the finished matches in ``results``, ranked (see :data:`LEADERBOARD_ORDER`).

    Matches not over yet are left out: their places may still change. ``key`` says when two
    names are one player (by default :func:`player_key`). Each placing's points are its
    match's own (:func:`match_place_points`: partners count once, as one entrant)."""
    tables: dict[str, int] = {}
    totals: dict[str, Fraction] = {}
    places: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for result in results:
        if not result.over:
            continue
        for placing in result.placings:
            k = key(placing.player)
            names[k] = placing.player
            tables[k] = tables.get(k, 0) + 1
            totals[k] = totals.get(k, Fraction(0)) + placing.exact
            counts = places.setdefault(k, [])
            counts.extend([0] * (placing.place - len(counts)))
            counts[placing.place - 1] += 1
    width = max((len(c) for c in places.values()), default=0)

    def order(k: str) -> tuple:
        counts = places[k] + [0] * (width - len(places[k]))
        return (-totals[k], -totals[k] / tables[k], [-c for c in counts])

    ranked = sorted(tables, key=lambda k: (order(k), k))  # then the name key: a stable page
    standings, rank = [], 0
    for position, k in enumerate(ranked):
        if position == 0 or order(k) != order(ranked[position - 1]):
            rank = position + 1
        standings.append(Standing(rank, k, names[k], tables[k], tuple(places[k] + [0] * (width - len(places[k]))),
                                  float(totals[k]), float(totals[k] / tables[k]), totals[k]))
    return tuple(standings)
