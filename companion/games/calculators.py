"""Calculators and helpers (the game page's quick answers), declared by each game.

A calculator is a pure function over the fields of one small form: it returns a
:class:`CalcResult` (the answer, breakdown lines, notes, rulings, or messages for the fields it
refuses) and never stores anything. Its ``name`` is both its address
(/games/<game>/calc/<name>) and the prefix of its form fields ("pq" → "pq-7", "pq-other"),
so several calculators live side by side on one page. The web layer renders any game's
calculators without knowing which game it is. The fields are read with
:mod:`companion.games.forms` (``entered``, ``card_codes``, ``read_int``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .contract import Game, Team
from .model import DealScore, FieldError, Line, MatchSetup
from .text import T, Text, join_names


@dataclass
class CalcResult:
    """A calculator's answer, shown by templates/games/_calc_result.html."""

    empty: bool = True  # nothing entered yet: show the prompt
    prompt: Text | None = None
    errors: list[Text] = field(default_factory=list)  # shown in the result box
    field_errors: dict[str, list[Text]] = field(default_factory=dict)  # next to the inputs
    headline: Text | None = None  # the answer in one line
    groups: list[tuple[Text, tuple[Line, ...]]] = field(default_factory=list)  # (title, lines)
    items: list[Text] = field(default_factory=list)  # plain sentences, in order
    notes: list[Text] = field(default_factory=list)
    rulings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    def refuse(self, errors: Sequence[FieldError]) -> "CalcResult":
        """Refuse the input: each message in the box and next to its field."""
        self.empty = False
        for error in errors:
            self.errors.append(error.message)
            self.field_errors.setdefault(error.field, []).append(error.message)
        return self

    def fail(self, message: Text) -> "CalcResult":
        """Refuse the input with one message that belongs to no single field."""
        self.empty = False
        self.errors.append(message)
        return self


@dataclass(frozen=True)
class Calculator:
    """One calculator or helper of a game's page.

    ``compute(form, n)`` gets this calculator's fields without their prefix ("7", "other")
    and the number of players the page shows; field errors name fields the same way.
    """

    name: str  # address and field prefix; letters and digits, unique within the game
    compute: Callable[[Mapping[str, str], int], CalcResult]
    kind: str = "calculator"  # "calculator" (scores) or "helper" (who leads, who wins a trick)

    @property
    def prefix(self) -> str:
        return self.name + "-"

    def fields(self, args: Mapping[str, str], max_length: int = 64) -> dict[str, str]:
        """This calculator's fields of a request, without the prefix, trimmed to a sane length."""
        return {key[len(self.prefix):]: (value or "")[:max_length] for key, value in args.items()
                if key.startswith(self.prefix)}

    def run(self, args: Mapping[str, str], n: int, max_length: int = 64) -> CalcResult:
        """The answer for a whole query string; field errors come back under their full names."""
        result = self.compute(self.fields(args, max_length), n)
        result.field_errors = {self.prefix + key: messages
                               for key, messages in result.field_errors.items()}
        return result


def seat_names(n: int) -> tuple[Text, ...]:
    """"Player 1" … "Player n": the calculators know seats, not names."""
    return tuple(T("Player {n}", n=i + 1) for i in range(n))


def team_names(teams: Sequence[Team]) -> tuple[Text, ...]:
    """"Team 1 (players 1 and 2)" …, for calculators (they know seats, not names), from the
    game's :meth:`Game.seating`."""
    named = []
    for t, team in enumerate(teams):
        seats = [seat + 1 for seat in team.seats]
        if len(seats) == 2:
            named.append(T("Team {n} (players {a} and {b})", n=t + 1, a=seats[0], b=seats[1]))
        else:
            named.append(T("Team {n} (players {seats})", n=t + 1, seats=join_names([str(s) for s in seats])))
    return tuple(named)


def score_one_deal(game: Game, players: Sequence[Text | str], form: Mapping[str, Any],
                   result: CalcResult) -> DealScore | None:
    """parse_deal, check_deal and score_deal of a one-deal match (seats named ``players``);
    None after refusing the input in ``result``."""
    progress = game.start(MatchSetup(game.id, tuple(players)))  # type: ignore[arg-type]
    facts, errors = game.parse_deal(form, progress)
    if not errors:
        errors = game.check_deal(progress, facts)
    if errors:
        result.refuse(errors)
        return None
    result.empty = False
    return game.score_deal(progress, facts)
