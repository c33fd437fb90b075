"""Pair & Quad, ペア＆クアッド (untitled in the source; the name is this app's).

Plain must-follow tricks with no trumps. 7s, aces, kings, queens and jacks cost
points, every other card earns one, but exactly two of a penalty rank cancel
out, three triple the penalty and all four turn it into a bonus.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from .contract import (AT_TIME, Figure, Game, Option, Ruling, best, first_among, names,
                       options_after_last_winner)
from .forms import Column, Form, check_columns, read_columns, read_int
from .model import (Choice, DealScore, Facts, FieldError, Line, Match, MatchSetup, NextDeal, Outcome,
                    Progress, Stakes)
from .text import T, Text, Tn

DECK_SIZE = 52
PER_RANK = 4
BASE_VALUES: dict[str, int] = {"7": -5, "A": -4, "K": -3, "Q": -2, "J": -1}
OTHER = "other"
KEYS = (*BASE_VALUES, OTHER)  # the order of a player's row on the form
OTHER_CARDS = DECK_SIZE - PER_RANK * len(BASE_VALUES)  # 32: the 2-6 and 8-10 of every suit
# A count's value is the rank's base times this (the designer's table, 3 from the comments).
MULTIPLIER = {0: 0, 1: 1, 2: 0, 3: 3, 4: -4}


def dealt(n: int) -> int:
    """Cards each player gets, which is also the number of tricks."""
    return DECK_SIZE // n


# --------------------------------------------------------------------------
# In-game helpers: one player's score from their captured cards


def rank_value(rank: str, count: int) -> int:
    """Points for ``count`` captured cards of ``rank`` ("7", "A", "K", "Q", "J" or "other").

    Penalty ranks: 1 → base, 2 → 0 (pair), 3 → 3 × base, 4 → −4 × base (quad).
    "other" cards earn +1 each. Raises ValueError for an unknown rank or count.
    """
    if isinstance(count, bool) or not isinstance(count, int):
        raise ValueError(f"count must be a whole number, not {count!r}")
    if rank == OTHER:
        if not 0 <= count <= OTHER_CARDS:
            raise ValueError(f"other cards must be 0..{OTHER_CARDS}, not {count}")
        return count
    if rank not in BASE_VALUES:
        raise ValueError(f"unknown rank {rank!r}; use one of {', '.join(KEYS)}")
    if not 0 <= count <= PER_RANK:
        raise ValueError(f"{rank}: count must be 0..{PER_RANK}, not {count}")
    return BASE_VALUES[rank] * MULTIPLIER[count]


def signed(points: int) -> str:
    """"+20", "0", "−15" (true minus sign) for breakdown lines."""
    return f"+{points}" if points > 0 else ("0" if points == 0 else f"−{-points}")


def _rank_line(rank: str, count: int, value: int) -> Line:
    shown = signed(value)
    if count == 2:
        label = T("{rank} ×{count} → {value} (pair)", rank=rank, count=count, value=shown)
    elif count == 3:
        label = T("{rank} ×{count} → {value} (three of a kind)", rank=rank, count=count,
                  value=shown)
    elif count == 4:
        label = T("{rank} ×{count} → {value} (quad)", rank=rank, count=count, value=shown)
    else:
        label = T("{rank} ×{count} → {value}", rank=rank, count=count, value=shown)
    return Line(label, value)


def score_captured(counts: Mapping[str, Any]) -> tuple[int, tuple[Line, ...]]:
    """One player's deal score and breakdown from their captured counts.

    ``counts`` maps "7", "A", "K", "Q", "J" (0..4 each) and "other" (0..32) to
    numbers; missing keys count as 0. Raises ValueError for anything else.
    """
    unknown = set(counts) - set(KEYS)
    if unknown:
        raise ValueError(f"unknown keys {sorted(map(str, unknown))}; use {', '.join(KEYS)}")
    lines = []
    total = 0
    for rank in BASE_VALUES:
        count = counts.get(rank, 0)
        value = rank_value(rank, count)
        if count:
            lines.append(_rank_line(rank, count, value))
        total += value
    others = counts.get(OTHER, 0)
    total += rank_value(OTHER, others)
    if others:
        lines.append(Line(T("Other ×{count} → {value}", count=others, value=signed(others)),
                          others))
    if not lines:
        lines.append(Line(T("Captured nothing → 0"), 0))
    return total, tuple(lines)


# --------------------------------------------------------------------------
# Rules as data

RULINGS = (
    Ruling("app_name", T("Name of the game"),
           T("The source post is titled only “a card game”. “Pair & Quad” is this app's name "
             "for it.")),
    Ruling("variant_counts", T("3, 5 or 6 players (variant)"),
           T("The source assumes 4 players. Table ruling: with 3, 5 or 6, deal out as many "
             "cards as divide evenly and set the rest aside face down, unseen. The checks "
             "then become: at most 4 of a rank, and cards captured = tricks × players.")),
    Ruling("match_length", T("Length of the match"),
           T("The source says only that several deals are played. The table decides when "
             "creating the table: a number of deals, or open-ended until someone presses "
             "“Finish match”."), table_decides=True),
    Ruling("tied_top", T("Tie for the top score of a deal"),
           T("The source does not say who deals next when several players share the top "
             "score of a deal. The table chooses one of them."), table_decides=True),
    Ruling(AT_TIME, T("Ended at time"),
           T("The source says only that several deals are played. Table ruling: when a meetup's "
             "time is up, the match ends with the deals played (whether a number of deals was "
             "chosen or not); the highest total wins; players tied for it share the win.")),
    Ruling("tie_shared", T("Tied for the highest total"),
           T("The source is silent. Table ruling: players tied for the highest total at the "
             "end of the match share the win.")),
)


def _cards(key: str) -> Text:
    """How a form column is named in messages."""
    return T("other cards") if key == OTHER else T("cards of rank {rank}", rank=key)


class PairQuad(Game):
    id = "pair_quad"
    order = 4
    name_en = "Pair & Quad"
    name_ja = "ペア＆クアッド"
    players = (4,)
    variant_players = (3, 5, 6)
    credit = T("Designed by {designer} (blog post of {date}).", designer="ていこく",
               date=T("19 October 2012"))
    source = "003_0ed02501cd0f9582.txt"
    summary = T("Must-follow tricks with no trumps where 7s, aces and court cards cost points, "
                "yet exactly two of a rank cancel out and all four become a bonus. The source "
                "post is untitled; “Pair & Quad” is this app's name for it.")
    components = (
        T("One standard 52-card deck without jokers"),
    )
    rulings = RULINGS
    choice_keys = ("dealer",)  # the answer to "who deals next?" after a tie for the top
    # "other" names the other cards inside each player's captured counts ("7 2, Other 9").
    fact_labels = {"captured": T("Cards captured"), "dealer": T("Dealer"), OTHER: T("Other")}
    seat_facts = frozenset({"dealer"})
    options = (
        Option("first_dealer", T("Dealer of the first deal, who also leads first"), "seat"),
        # No help text: the new-table form explains 0 for every "deals" option.
        Option("deals", T("Number of deals"), "deals", default=0, ruling="match_length"),
    )

    # ---- setup
    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        if self.check_players(n) is not None:
            raise ValueError(f"Pair & Quad is for 3 to 6 players, not {n}")
        return (
            Figure("deck", T("Cards in the deck"), DECK_SIZE),
            Figure("dealt", T("Cards dealt to each player"), dealt(n)),
            Figure("aside", T("Cards set aside face down"), DECK_SIZE % n),
            Figure("tricks", T("Tricks per deal"), dealt(n)),
        )

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        figures = {f.key: f.value for f in self.setup_figures(n)}
        if figures["aside"]:
            deal_step = Tn("The dealer deals {dealt} cards to each player, one at a time, "
                           "clockwise and face down, and puts the last card aside face down, "
                           "unseen (variant).",
                           "The dealer deals {dealt} cards to each player, one at a time, "
                           "clockwise and face down, and puts the last {n} cards aside face down, "
                           "unseen (variant).", figures["aside"], dealt=figures["dealt"])
        else:
            deal_step = T("The dealer deals out the whole deck one at a time, clockwise and "
                          "face down: {dealt} cards each.", dealt=figures["dealt"])
        return (
            T("Shuffle a full {deck}-card deck without jokers.", deck=figures["deck"]),
            deal_step,
            T("The dealer leads the first of {tricks} tricks.", tricks=figures["tricks"]),
        )

    # ---- one deal
    def columns(self, setup: MatchSetup) -> tuple[Column, ...]:
        """A count per player of each penalty rank, then of the other cards; a blank count
        means none. With every card dealt, each rank adds up to its 4 cards and the other cards
        to 32, so the last player's are worked out; with some set aside (variant), a column can
        only add up to at most that, and the last player's other cards are worked out from the
        cards dealt (every card dealt is captured by someone)."""
        n, players = setup.n, setup.players
        all_dealt = DECK_SIZE % n == 0
        return tuple(
            Column(key, T("Captured {cards}", cards=_cards(key)),
                   tuple(T("{player}: {cards}", player=p, cards=_cards(key)) for p in players),
                   hi=OTHER_CARDS if key == OTHER else PER_RANK,
                   total=(OTHER_CARDS if key == OTHER else PER_RANK) if all_dealt else None,
                   at_most=None if all_dealt else (OTHER_CARDS if key == OTHER else PER_RANK),
                   derive_last=all_dealt or key == OTHER, blank=0,
                   worked_out=dealt(n) * n if key == OTHER else None,
                   worked_over=tuple(BASE_VALUES) if key == OTHER else ())
            for key in KEYS)

    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        errors: list[FieldError] = []
        read = read_columns(form, self.columns(progress.setup), errors)
        captured = [{key: read[key][seat] for key in KEYS} for seat in range(progress.setup.n)]
        facts: Facts = {"captured": captured}
        self.read_choice(form, progress, facts, errors, T("Dealer of this deal"))
        self.check_readable(progress, facts, errors)
        return facts, errors

    def form_values(self, facts: Facts) -> dict[str, str]:
        values = {f"{rank}-{seat}": str(count)
                  for seat, counts in enumerate(facts.get("captured", []))
                  for rank, count in counts.items()}
        if facts.get("dealer") is not None:
            values["dealer"] = str(facts["dealer"])
        return values

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        if self.outcome(progress, False).over:
            return [FieldError("deal", T("The match is over; no more deals can be added."))]
        captured = facts.get("captured") if isinstance(facts, Mapping) else None
        players = progress.setup.players
        n = len(players)
        if not isinstance(captured, list) or len(captured) != n \
                or not all(isinstance(row, Mapping) for row in captured):
            return [FieldError("captured", T("Enter the cards captured by each of the {n} "
                                             "players.", n=n))]
        columns = self.columns(progress.setup)
        errors = check_columns(columns, {key: [row.get(key) for row in captured] for key in KEYS})
        if any(error.field not in KEYS for error in errors):
            return errors  # a count is unreadable: the sums below would mislead
        aside = DECK_SIZE % n
        total = sum(sum(row.values()) for row in captured)
        if aside and total != dealt(n) * n:
            errors.append(FieldError("captured", T(
                "Cards captured must add up to {expected} ({tricks} tricks × {n} players); "
                "they add up to {sum}.", expected=dealt(n) * n, tricks=dealt(n), n=n,
                sum=total)))
        for seat, row in enumerate(captured):
            cards = sum(row[key] for key in KEYS)
            if cards % n:
                # Every trick hands all n of its cards to one player.
                errors.append(FieldError(f"{OTHER}-{seat}", Tn(
                    "{player} captured {n} card, which is not a multiple of {players} (each "
                    "trick gives all {players} of its cards to one player).",
                    "{player} captured {n} cards, which is not a multiple of {players} (each "
                    "trick gives all {players} of its cards to one player).",
                    cards, player=players[seat], players=n)))
        return errors

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        scored = [score_captured({key: row[key] for key in KEYS}) for row in facts["captured"]]
        points = tuple(total for total, _ in scored)
        winners = best(points)
        rulings = []
        if progress.setup.n != 4:
            rulings.append("variant_counts")
        notes: tuple[Text, ...] = ()
        planned = self.option(progress.setup, "deals")
        last = bool(planned) and len(progress.deals) + 1 >= planned  # no deal follows this one
        if len(winners) > 1 and last:
            notes = (T("{names} tie for the top score.", names=names(progress.setup, winners)),)
        elif len(winners) > 1:
            rulings.append("tied_top")
            notes = (T("{names} tie for the top score; the table chooses which of them deals "
                       "next.", names=names(progress.setup, winners)),)
        return DealScore(points, tuple(lines for _, lines in scored), winners, notes,
                         tuple(rulings))

    # ---- match flow
    def next_deal(self, progress: Progress) -> NextDeal:
        setup = progress.setup
        number = len(progress.deals) + 1
        among = first_among(setup)
        if not progress.deals and not among:
            dealer = self.option(setup, "first_dealer")
            lines: tuple[Text, ...] = ()
        else:
            # A rematch after a tied last deal asks like a later deal would.
            top = progress.deals[-1].score.winners if progress.deals else among
            if len(top) > 1:
                question = T("{names} tied for the top score: who deals next?",
                             names=names(setup, top))
                return NextDeal(number, lines=(question,),
                                choice=Choice("dealer", question, tuple(top), "tied_top"))
            dealer = top[0]
            lines = (T("{dealer} had the top score last deal, so deals this one.",
                       dealer=setup.players[dealer]),)
        lines += (T("{dealer} deals and leads the first trick.", dealer=setup.players[dealer]),)
        return NextDeal(number, dealer, dealer, lines)

    def as_chosen(self, progress: Progress, upcoming: NextDeal, answer: int) -> NextDeal:
        """After a tie for the top the deal's record says who was chosen to deal."""
        chosen = T("{dealer} was chosen to deal (ruling: tie for the top score) and led the first "
                   "trick.", dealer=progress.setup.players[answer])
        return replace(upcoming, dealer=answer, leader=answer, lines=(chosen,))

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        setup, totals = progress.setup, progress.totals
        planned = self.option(setup, "deals")
        played = len(progress.deals)
        if planned:
            over = played >= planned
            progress_note = Tn("{played} of {n} deal played.", "{played} of {n} deals played.",
                               planned, played=played)
        else:
            over = finished
            progress_note = T("Deals played: {played}. Press “Finish match” to end the match.",
                              played=played)
        if not over:
            return Outcome(False, message=progress_note, rulings=("match_length",))
        if not played:
            return Outcome(True, (), T("The match ended before any deal was played."),
                           ("match_length",))
        winners = best(totals)
        if len(winners) > 1:
            return Outcome(True, winners, Tn("{names} share the win with {n} point each.",
                                             "{names} share the win with {n} points each.",
                                             totals[winners[0]], names=names(setup, winners)),
                           ("match_length", "tie_shared"))
        return Outcome(True, winners, Tn("{name} wins with {n} point.",
                                         "{name} wins with {n} points.", totals[winners[0]],
                                         name=setup.players[winners[0]]), ("match_length",))


    def stakes(self, progress: Progress, outcome: Outcome) -> Stakes:
        """The deal count of the planned total, or that the match is open-ended."""
        planned = self.option(progress.setup, "deals")
        played = len(progress.deals)
        if planned:
            if outcome.over:
                return Stakes(Tn("{played} of {n} deal played", "{played} of {n} deals played",
                                 planned, played=played), counts_deals=True)
            return Stakes(T("Deal {number} of {planned}", number=played + 1, planned=planned))
        if outcome.over:
            return Stakes(Tn("{n} deal played", "{n} deals played", played), counts_deals=True)
        return Stakes(T("Deal {number} · open-ended: finish the match when you like",
                        number=played + 1))

    def rematch_options(self, match: Match) -> dict[str, int]:
        """The top scorer of the last deal deals the rematch's first deal; after a tie for the
        top, the rematch asks which of them deals (ruling tied_top), as between deals."""
        return options_after_last_winner(match, "first_dealer")


GAME = PairQuad()


# ==========================================================================
# Calculators (the game page): pure functions over form fields, see calculators.Calculator

from .calculators import CalcResult, Calculator  # noqa: E402
from .forms import entered  # noqa: E402


def calc_captured(form: Mapping[str, str], n: int) -> CalcResult:
    """One player's score from how many cards of each rank they captured."""
    result = CalcResult(prompt=T("Tap + for each card of a rank you captured; the score appears here."))
    if not entered(form):  # nothing captured (yet) is a score too: say it is 0
        result.prompt = T("Score: 0 (nothing captured yet). Tap + for each card of a rank you "
                          "captured.")
        return result
    errors: list[FieldError] = []
    counts: dict[str, int] = {}
    for key in KEYS:
        hi = OTHER_CARDS if key == OTHER else PER_RANK
        label = T("Other cards") if key == OTHER else T("Cards of rank {rank}", rank=key)
        value = read_int(form, key, 0, hi, label, errors, required=False)
        counts[key] = value or 0
    if not errors and sum(counts.values()) > DECK_SIZE:
        errors.append(FieldError(OTHER, T("That is more than the {deck} cards of the deck.",
                                          deck=DECK_SIZE)))
    if errors:
        return result.refuse(errors)
    total, lines = score_captured(counts)
    result.empty = False
    result.headline = T("Score: {points}", points=signed(total))
    result.groups.append((T("Per rank"), lines))
    return result


GAME.calculators = (Calculator("pq", calc_captured),)
