"""Toy Tricks: a made-up sixth game, registered from the test suite.

It exists to prove that a game is one module, its templates and its tests: nothing in
``companion/``, ``templates/`` or ``static/`` is written for it. tests/test_sixth_game.py
registers it with :func:`companion.games.register` and plays it through the whole site.

The rules: 20 cards, 2–4 players, 5 tricks a deal. A player who takes exactly the tricks
they called scores 10 plus their tricks; anyone else scores their tricks. The first to
30 points wins; equal leaders share the win.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from companion.games import (AT_TIME, CalcResult, Calculator, DealScore, FieldError, Figure, Game, Line,
                             NextDeal, Outcome, Progress, Ruling, T, Text)
from companion.games.contract import best, names
from companion.games.forms import Form, entered, read_int
from companion.games.model import Facts

TEMPLATES = Path(__file__).parent / "templates"  # deal_form, reference and calculators
TRICKS = 5
EXACT_BONUS = 10
TARGET = 30


def deal_points(called: int, taken: int) -> tuple[int, tuple[Line, ...]]:
    lines = [Line(T("Tricks taken: {n}", n=taken), taken)]
    if called == taken:
        lines.append(Line(T("Exactly as called"), EXACT_BONUS))
    return sum(line.points or 0 for line in lines), tuple(lines)


class ToyTricks(Game):
    id = "toy_tricks"
    order = 60  # after the five built-in games
    name_en = "Toy Tricks"
    name_ja = "トイ・トリックス"
    players = (2, 3, 4)
    credit = T("A toy game made up for the test suite.")
    summary = T("Call your tricks, take exactly that many, and race to 30.")
    rulings = (Ruling("shared_lead", T("Equal leaders"),
                      T("Players who reach 30 with the same total share the win.")),
               Ruling(AT_TIME, T("Ended at time"),
                      T("A made-up rule: when time is called, the highest total wins; equal totals share the win.")))
    fact_labels = {"called": T("Tricks called")}  # "taken" reads as its own word: "Taken"

    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        return (Figure("deck", T("Cards in the deck"), 20),
                Figure("hand", T("Cards in each hand"), 20 // n),
                Figure("tricks", T("Tricks per deal"), TRICKS))

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        return (T("Take the 20 highest cards of a deck (10 to A, all suits)."),
                T("Deal {hand} cards to each player; the rest stay face down.", hand=20 // n),
                T("Everyone calls how many tricks they will take."))

    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        errors: list[FieldError] = []
        players = progress.setup.players
        called = [read_int(form, f"called-{s}", 0, TRICKS, T("Called by {p}", p=p), errors)
                  for s, p in enumerate(players)]
        taken = [read_int(form, f"taken-{s}", 0, TRICKS, T("Taken by {p}", p=p), errors)
                 for s, p in enumerate(players)]
        return {"called": called, "taken": taken}, errors

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        taken = facts.get("taken")
        if not isinstance(taken, list) or any(not isinstance(t, int) for t in taken):
            return [FieldError("taken", T("Enter the tricks each player took."))]
        if sum(taken) != TRICKS:
            return [FieldError("taken", T("Tricks taken must add up to {total}; they add up to {sum}.",
                                          total=TRICKS, sum=sum(taken)))]
        return []

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        scored = [deal_points(c, t) for c, t in zip(facts["called"], facts["taken"])]
        points = tuple(p for p, _ in scored)
        return DealScore(points, tuple(lines for _, lines in scored), winners=best(points))

    def next_deal(self, progress: Progress) -> NextDeal:
        number = len(progress.deals) + 1
        n = progress.setup.n
        dealer = (number - 1) % n
        return NextDeal(number, dealer, (dealer + 1) % n, (
            T("{dealer} deals.", dealer=progress.setup.players[dealer]),))

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        totals = progress.totals
        if max(totals) < TARGET and not finished:
            return Outcome(False, message=T("First to {target} points wins.", target=TARGET))
        winners = best(totals)
        return Outcome(True, winners, T("{names} win.", names=names(progress.setup, winners)),
                       ("shared_lead",) if len(winners) > 1 else ())


GAME = ToyTricks()


# ---- calculators: pure functions over the form's fields (prefix "tp-" on the page)

def calc_deal_points(form: Mapping[str, str], n: int) -> CalcResult:
    result = CalcResult(prompt=T("Enter what you called and what you took."))
    if not entered(form):
        return result
    errors: list[FieldError] = []
    called = read_int(form, "called", 0, TRICKS, T("Called"), errors)
    taken = read_int(form, "taken", 0, TRICKS, T("Taken"), errors)
    if errors:
        return result.refuse(errors)
    total, lines = deal_points(called, taken)  # type: ignore[arg-type]
    result.empty = False
    result.headline = T("You score {points}.", points=total)
    result.groups.append((T("Breakdown"), lines))
    return result


GAME.calculators = (Calculator("tp", calc_deal_points),)
