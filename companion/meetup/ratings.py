"""Ratings across nights (issue 36): a skill estimate per player, per game and over every game.

The rating is the ``openskill`` package's Weng–Lin Plackett–Luce model with its default
figures (μ 25, σ 25/3, β 25/6, τ 25/300): every counted match updates the ratings of the
players at it from its places. It is worked out again, from nothing, from the stored results
(one :class:`~companion.meetup.season.MatchRecord` per ended match, players by id), replayed in
the order the matches finished and then by table; so a merge of two players, a seat given to
someone else or a corrected deal re-rates everyone it touches, and the same results always give
the same figures.

- **Teams as teams**: partners in a team game are one team of the model (the team's strength
  is the sum of theirs), ranked by their team's place.
- **Ties as ties** (:data:`TIE_POLICY`): entrants who share a place are given the same rank and
  the model's own tie rule applies (the Weng–Lin ``A_q``: each comparison a tied group takes part
  in is shared among its members). Nothing breaks a tie (not the seat, not the score), and the
  tied entrants' changes are not averaged afterwards: with different ratings before, they move
  differently. (openskill 6.2 means to average them but leaves them as computed, because its
  update has already changed the ratings it compares; the version is pinned in pyproject.toml
  so the figures don't move under a club's feet.)
- **Shown** as the conservative value μ − 3σ (a player with few matches shows low until the
  matches say otherwise), with the number of matches it rests on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from openskill.models import PlackettLuce

from ..games.text import T
from .season import MatchRecord

__all__ = ["Rating", "Ratings", "Replay", "rate", "carry_on", "replay_order", "shown_value", "TIE_POLICY",
           "RATING_RULE", "MODEL"]

MODEL = PlackettLuce()  # the library's defaults: μ 25, σ 25/3, β 25/6, τ 25/300

TIE_POLICY = ("Tied entrants get the same rank and the model's own tie rule (Weng-Lin A_q); no tie is broken "
              "and no change is averaged.")

# Shown on a player's page and under the season table's rating column.
RATING_RULE = T(
    "Rating: a skill estimate from every finished match's places, in the order the matches ended "
    "(openskill's Plackett-Luce model; partners rated as a team, ties as ties). Shown as μ − 3σ: "
    "it starts at 0 and moves with each match as the results show how well you play; it can go below 0.")


@dataclass(frozen=True)
class Rating:
    """One player's rating: mean μ and uncertainty σ, after ``matches`` matches."""

    mu: float
    sigma: float
    matches: int
    # The library's own rating object with these figures, handed to its next update as it is
    # (making one per player per match was a third of a season's replay).
    model: Any = field(default=None, compare=False, repr=False)

    @property
    def shown(self) -> float:
        """The conservative value μ − 3σ (what the pages show)."""
        return self.mu - 3 * self.sigma


FRESH = Rating(MODEL.mu, MODEL.sigma, 0)


def shown_value(rating: Rating) -> float:
    """μ − 3σ as the pages and exports show it: to one decimal, never −0.0."""
    return round(rating.shown, 1) + 0.0  # adding 0.0 turns −0.0 into 0.0


@dataclass(frozen=True)
class Ratings:
    """Every player's rating over every game (``overall``) and per game (``by_game``), by the
    player ids the records carry."""

    overall: Mapping[str, Rating]
    by_game: Mapping[str, Mapping[str, Rating]]

    def of(self, player: str, game: str | None = None) -> Rating:
        """``player``'s rating (for one ``game``, or overall); a fresh one if they have none."""
        table = self.overall if game is None else self.by_game.get(game, {})
        return table.get(player, FRESH)

    def for_game(self, player: str, game: str) -> Rating:
        """The rating a draw balances with: for ``game``, or overall where they have no match of it."""
        found = self.by_game.get(game, {}).get(player)
        return found if found is not None else self.of(player)


def replay_order(records: Sequence[MatchRecord]) -> list[MatchRecord]:
    """The records in the order the matches finished (night, then finishing time); records that
    finished at the same moment keep their given order (the caller's: by table)."""
    return [r for _, r in sorted(enumerate(records), key=lambda pair: (pair[1].when, pair[0]))]


def _model_rating(rating: Rating) -> Any:
    """The library's rating object for ``rating`` (rate() copies its input, never changes it)."""
    return rating.model if rating.model is not None else MODEL.rating(mu=rating.mu, sigma=rating.sigma)


def _update(ratings: dict[str, Rating], record: MatchRecord) -> list[tuple[str, Rating | None]]:
    """One match: its entrants as the model's teams, ranked by place, ties as ties. Returns each
    changed player's rating before it (None: they had none), to undo it."""
    members: dict[int, list[str]] = {}
    place_of: dict[int, int] = {}
    for player, team, place in zip(record.keys, record.teams, record.places):
        members.setdefault(team, []).append(player)
        place_of[team] = place
    if len(members) < 2:
        return []  # nothing to compare
    order = sorted(members)
    teams = [[_model_rating(ratings.get(p, FRESH)) for p in members[t]] for t in order]
    rated = MODEL.rate(teams, ranks=[float(place_of[t]) for t in order])
    before = []
    for t, team in zip(order, rated):
        for player, after in zip(members[t], team):
            before.append((player, ratings.get(player)))
            ratings[player] = Rating(after.mu, after.sigma, ratings.get(player, FRESH).matches + 1, after)
    return before


class Replay:
    """The ratings after replaying some matches in order, to be carried on when the matches
    change: only from the first one that differs (the usual change: a match finished after all
    the others, or a correction to one of tonight's)."""

    def __init__(self) -> None:
        self.done: list[MatchRecord] = []
        self.overall: dict[str, Rating] = {}
        self.by_game: dict[str, dict[str, Rating]] = {}
        self.undo: list[tuple[list, list]] = []  # per match: what it changed, overall and in its game

    def add(self, record: MatchRecord) -> None:
        changed = _update(self.overall, record)
        self.undo.append((changed, _update(self.by_game.setdefault(record.game, {}), record)))
        self.done.append(record)

    def back_to(self, count: int) -> None:
        """Undo the matches after the first ``count``, latest first."""
        while len(self.done) > count:
            record = self.done.pop()
            overall, in_game = self.undo.pop()
            for table, changed in ((self.overall, overall), (self.by_game[record.game], in_game)):
                for player, before in reversed(changed):
                    if before is None:
                        table.pop(player, None)
                    else:
                        table[player] = before

    def ratings(self) -> Ratings:
        """The ratings so far (a copy: later matches don't change it)."""
        return Ratings(dict(self.overall), {game: dict(table) for game, table in self.by_game.items() if table})


def carry_on(replay: Replay | None, records: Iterable[MatchRecord]) -> Replay:
    """The replay of ``records`` (ended matches, players by id, in table order): ``replay``
    taken back to the first match that differs (a merge, a correction, a match that ended
    earlier: everyone after it is re-rated) and carried on from there. The figures are
    exactly those of :func:`rate`: every update is the same arithmetic in the same order."""
    ordered = replay_order(list(records))
    if replay is None:
        replay = Replay()
    same = 0
    for done, record in zip(replay.done, ordered):
        if done != record:
            break
        same += 1
    replay.back_to(same)
    for record in ordered[same:]:
        replay.add(record)
    return replay


def rate(records: Iterable[MatchRecord]) -> Ratings:
    """Every player's ratings from ``records`` (ended matches, players by id, in table order)."""
    return carry_on(None, records).ratings()
