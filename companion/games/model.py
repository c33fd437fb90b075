"""The data model of a match: a setup, the facts of each deal and what a replay derives.

A deal is recorded as *raw facts* (:data:`Facts`, the JSON-able dict a scorekeeper enters);
everything else here is derived from them by a game's rules
(:meth:`companion.games.contract.Game.replay`): the :class:`Progress` of a match deal by
deal, each :class:`DealRecord` and its :class:`DealScore`, the :class:`Outcome`, the
:class:`Stakes` and finally the :class:`Match`. Standings are never stored.

Seats are 0-based indexes into ``players`` in clockwise order. "Entrants" are what a game
ranks: the players themselves, or the teams the game seats
(:meth:`companion.games.contract.Game.seating`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .text import Text

Facts = dict[str, Any]


# --------------------------------------------------------------------------
# Refused input


@dataclass(frozen=True)
class FieldError:
    """A refused input. ``field`` is the form field the message belongs next to:
    ``"chips-2"`` for one player's value, ``"chips"`` for the whole column."""

    field: str
    message: Text


class InvalidDeal(ValueError):
    def __init__(self, number: int, errors: Sequence[FieldError]):
        self.number = number
        self.errors = list(errors)
        super().__init__(f"deal {number}: " + "; ".join(str(e.message) for e in errors))


class InvalidOptions(ValueError):
    def __init__(self, errors: Sequence[FieldError]):
        self.errors = list(errors)
        super().__init__("; ".join(str(e.message) for e in errors))


# --------------------------------------------------------------------------
# One deal: its score and who does what in it


@dataclass(frozen=True)
class Line:
    """One line of a score breakdown: "7 ×2 → 0 (pair)"."""

    label: Text
    points: int | None = None


@dataclass(frozen=True)
class DealScore:
    points: tuple[int, ...]  # change to each entrant's total
    breakdown: tuple[tuple[Line, ...], ...]  # per entrant
    winners: tuple[int, ...] = ()  # entrants who won this deal, where the game names deal winners
    notes: tuple[Text, ...] = ()  # e.g. "Nobody took the die: a draw."
    rulings: tuple[str, ...] = ()  # rulings that applied to this deal


@dataclass(frozen=True)
class Choice:
    """A decision the rules leave to the players before the next deal.

    The answer is recorded in the next deal's facts under ``key``.
    """

    key: str
    question: Text
    options: tuple[int, ...]  # seats
    ruling: str | None = None
    # What each option value is called when the options are not seats (Twin Shoot's teams and
    # "nobody"): labels[value]. Empty: the options are seats, named by the players.
    labels: tuple[Text | str, ...] = ()


@dataclass(frozen=True)
class NextDeal:
    """Who does what in a deal, in the game's own words.

    ``detail`` is the game's own account of the deal (a dataclass of its own, e.g. which team
    leads and from which side): shared code never reads it; the game's templates and helpers may.
    """

    number: int  # 1-based
    dealer: int | None = None  # seat
    leader: int | None = None  # seat that starts / leads first (None while a choice is open)
    lines: tuple[Text, ...] = ()
    choice: Choice | None = None
    detail: Any = None  # the game's own facts about this deal; opaque to shared code


# --------------------------------------------------------------------------
# A match: its setup, the deals so far, and how it stands


@dataclass(frozen=True)
class MatchSetup:
    game: str
    players: tuple[str, ...]
    options: Mapping[str, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.players)


@dataclass(frozen=True)
class DealRecord:
    number: int  # 1-based
    facts: Facts
    before: NextDeal  # who dealt / started this deal
    score: DealScore
    totals: tuple[int, ...]  # entrants' totals after this deal


@dataclass(frozen=True)
class Progress:
    """The match so far: what scoring and checks of the next deal may look at."""

    setup: MatchSetup
    deals: tuple[DealRecord, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Outcome:
    over: bool
    winners: tuple[int, ...] = ()  # entrants; several = a shared win; empty when over = a draw
    message: Text | None = None
    rulings: tuple[str, ...] = ()
    more_deals_allowed: bool = False  # e.g. Miraiscope's "play one more deal" after a tie


@dataclass(frozen=True)
class Tally:
    """A per-entrant count, beside the points, that decides the match (RWD's deal wins)."""

    label: Text  # column heading, e.g. "Deal wins"
    values: tuple[int, ...]  # one per entrant
    goal: int | None = None  # e.g. 3 for "first to 3"
    decides: bool = True  # orders the standings before the points (Game.rank_key)


@dataclass(frozen=True)
class Stakes:
    """What decides the match and how close its end is, in the game's own words.

    The table page shows ``headline`` above the standings, each tally as a column
    before the total, and ``lines`` below (e.g. who may open-bid in Twin Shoot).
    Every game fills it in from :meth:`Game.stakes`, whether the match runs or is over.
    """

    headline: Text | None = None  # e.g. "Deal 6 of at most 12 · ends at 0 or 30 chips"
    tallies: tuple[Tally, ...] = ()
    lines: tuple[Text, ...] = ()
    total_label: Text | None = None  # heading of the totals when they aren't points ("Chips")
    # The headline already says how many deals were played ("1 deal played of at most 12"): a
    # page that counts them itself (the hall's board) then leaves its own count out.
    counts_deals: bool = False


@dataclass(frozen=True)
class Match:
    setup: MatchSetup
    entrants: tuple[str, ...]
    deals: tuple[DealRecord, ...]
    totals: tuple[int, ...]
    outcome: Outcome
    next: NextDeal | None  # None when no further deal may be entered
    stakes: Stakes = Stakes()
    # Per entrant, what orders the standings, higher first (Game.rank_key): RWD's deal wins
    # before its points. Empty: by totals.
    rank_keys: tuple[tuple[int, ...], ...] = ()
    # Ended with the deals played when time was called (Game.outcome_at_time), not by the rules.
    at_time: bool = False

    @property
    def over(self) -> bool:
        return self.outcome.over

    @property
    def winners(self) -> tuple[int, ...]:
        return self.outcome.winners

    def ranking(self) -> list[tuple[int, int]]:
        """(place, entrant) pairs, best first, in the order that decides the match.

        Places follow :attr:`rank_keys` (what the game says decides its match: RWD's deal
        wins; by default the totals), equal keys sharing a place; within a place the higher
        total comes first. Once the match is over its winners share first place, whatever
        their points (two RWD players who reach 3 deal wins together share the match).
        """
        keys = self.rank_keys or tuple((total,) for total in self.totals)
        won = set(self.outcome.winners) if self.outcome.over else set()

        def key(entrant: int) -> tuple:
            return (entrant in won, keys[entrant])

        order = sorted(range(len(self.totals)), key=lambda e: (key(e), self.totals[e]),
                       reverse=True)  # stable: seat order on full ties
        places, place = [], 0
        for pos, entrant in enumerate(order):
            previous = order[pos - 1] if pos else None
            shares = previous is not None and (key(entrant) == key(previous)
                                               or entrant in won and previous in won)
            if not shares:
                place = pos + 1
            places.append((place, entrant))
        return places
