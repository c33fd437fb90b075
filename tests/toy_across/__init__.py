"""Across Tricks: a made-up seventh game whose partners sit ACROSS the table (issue 21).

It proves that a team game is one module, its templates and its tests, whatever its seating:
Twin Shoot's partners sit side by side (seats 1–2 and 3–4); here seats 1 and 3 play against
seats 2 and 4, and nothing in ``companion/``, ``templates/`` or ``static/`` is written for it.
The game declares its teams (:meth:`seating`), the number each player records
(:meth:`columns`) and its facts' labels; the new-table form, the deal form, the checks, the
standings, the log and the exports read them. tests/test_across_game.py registers it with
:func:`companion.games.register` and plays it through the site.

The rules: 4 players, 8 tricks a deal. A team scores its two partners' tricks, and 2 more
for the team that took the last trick. The first team to 20 points wins; equal leaders share.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.games import (AT_TIME, DealScore, FieldError, Figure, Game, Line, NextDeal, Option, Outcome,
                             Progress, Ruling, T, Text)
from companion.games import Column, MatchSetup, Team, check_columns, read_columns
from companion.games.contract import best
from companion.games.forms import Form, read_int
from companion.games.model import Facts

TEMPLATES = Path(__file__).parent / "templates"  # deal_form and reference
TRICKS = 8
LAST_TRICK = 2
TARGET = 20


@dataclass(frozen=True)
class Lead:
    """This game's own account of a deal (``NextDeal.detail``): the team whose player leads."""

    team: int


class AcrossTricks(Game):
    id = "toy_across"
    order = 61  # after the five built-in games and Toy Tricks
    name_en = "Across Tricks"
    name_ja = "アクロス・トリックス"
    players = (4,)
    credit = T("A toy game made up for the test suite.")
    summary = T("Partners sit across the table and take tricks together; first team to 20.")
    rulings = (Ruling("shared_lead", T("Equal leaders"),
                      T("Teams that reach 20 with the same total share the win.")),
               Ruling(AT_TIME, T("Ended at time"),
                      T("A made-up rule: when time is called, the higher total wins; equal totals share the win.")))
    options = (Option("first_team", T("Team that leads the first deal"), "team"),)
    fact_labels = {"tricks": T("Tricks"), "last_trick": T("Last trick")}
    team_facts = frozenset({"last_trick"})  # shows as the team's name ("Ann & Cy")

    # ---- who plays with whom: the one place this game's seating is written
    def seating(self, n: int) -> tuple[Team, ...]:
        half = n // 2
        return tuple(Team((seat, seat + half)) for seat in range(half))

    def seating_help(self, n: int) -> Text:
        return T("Partners sit across the table: seats 1 and 3 are one team, seats 2 and 4 the other.")

    def columns(self, setup: MatchSetup) -> tuple[Column, ...]:
        return (Column("tricks", T("Tricks"), tuple(T("Tricks of {player}", player=p) for p in setup.players),
                       hi=TRICKS, total=TRICKS, why=T("one per trick"), derive_last=True),)

    # ---- setup
    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        return (Figure("deck", T("Cards in the deck"), 32),
                Figure("tricks", T("Tricks per deal"), TRICKS))

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        return (T("Sit so that partners face each other across the table."),
                T("Deal all 32 cards: 8 to each player."))

    # ---- one deal
    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        errors: list[FieldError] = []
        facts: Facts = dict(read_columns(form, self.columns(progress.setup), errors))
        quiet: list[FieldError] = []
        facts["last_trick"] = read_int(form, "last_trick", 0, len(self.seating(progress.setup.n)) - 1,
                                       T("Last trick"), quiet)
        if quiet:
            errors.append(FieldError("last_trick", T("Last trick: choose the team that took it.")))
        self.check_readable(progress, facts, errors)
        return facts, errors

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        errors = check_columns(self.columns(progress.setup), facts)
        if facts.get("last_trick") not in range(len(self.seating(progress.setup.n))):
            errors.append(FieldError("last_trick", T("Last trick: choose the team that took it.")))
        return errors

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        tricks, players = facts["tricks"], progress.setup.players
        points, breakdown = [], []
        for index, team in enumerate(self.seating(progress.setup.n)):
            lines = [Line(T("{player}: {n} tricks", player=players[seat], n=tricks[seat]), tricks[seat])
                     for seat in team.seats]
            if facts["last_trick"] == index:
                lines.append(Line(T("Last trick"), LAST_TRICK))
            points.append(sum(line.points or 0 for line in lines))
            breakdown.append(tuple(lines))
        return DealScore(tuple(points), tuple(breakdown), winners=best(points))

    # ---- match flow
    def next_deal(self, progress: Progress) -> NextDeal:
        number = len(progress.deals) + 1
        teams = self.seating(progress.setup.n)
        team = (self.option(progress.setup, "first_team") + number - 1) % len(teams)
        # The leaders take turns: team 1's first player, team 2's first, team 1's second …
        leader = teams[team].seats[(number - 1) // len(teams) % len(teams[team].seats)]
        return NextDeal(number, leader=leader, lines=(
            T("{player} leads the first trick.", player=progress.setup.players[leader]),), detail=Lead(team))

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        totals, names = progress.totals, self.entrants(progress.setup.players)
        if max(totals) < TARGET and not finished:
            return Outcome(False, message=T("First team to {target} points wins.", target=TARGET))
        winners = best(totals)
        return Outcome(True, winners, T("{team} win.", team=" and ".join(names[w] for w in winners)),
                       ("shared_lead",) if len(winners) > 1 else ())


GAME = AcrossTricks()
