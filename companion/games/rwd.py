"""RWD (Rewind), RWD(リワインド): draft a hand backwards, then play it forwards.

First half: N cards lie in an open row (one face down); players take one each
counter-clockwise and the cards are judged as a trick, the winner taking a chip.
Second half: ordinary trick-taking with the drafted hands, clockwise.
Deal score = second-half tricks − first-half chips, so a deal always sums to 0.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .contract import AT_TIME, Figure, Game, Option, Ruling, first_among, names, options_after_last_winner
from .forms import Column, Form, check_columns, read_columns
from .model import (Choice, DealScore, Facts, FieldError, Line, Match, MatchSetup, NextDeal, Outcome,
                    Progress, Stakes, Tally)
from .cards import Card, CardError, parse_card
from .text import T, Text, Tn, join_names

DECK_SIZE = 52
WINS_FOR_MATCH = 3
# Option "length": the source makes one deal a whole game; first to 3 deal wins "if you play
# repeatedly". The stored value is the number of deal wins that take the match, 1 = one deal.
ONE_DEAL = 1
TRUMP = "S"


def tricks_per_half(n: int) -> int:
    """T = floor(52 / N): tricks in each half, and each player's hand size."""
    return DECK_SIZE // n


# --------------------------------------------------------------------------
# In-game helper: the private first-half check


def first_half_winner(cards: Sequence[Card], taken_last: int) -> int:
    """Index of the card that wins a first-half trick.

    ``cards`` are the N cards of row 1 (any order); ``taken_last`` is the index
    of the card taken last, whose suit is the led suit. Spades are trumps: the
    highest spade wins if there is one, else the highest card of the led suit.
    Raises :class:`~companion.games.cards.CardError` (a ValueError carrying a
    T message) for anything that cannot be a row of RWD.
    """
    if not 3 <= len(cards) <= 5:
        raise CardError(T("A first-half trick has 3 to 5 cards (one per player); {count} given.",
                          count=len(cards)))
    for card in cards:
        if not isinstance(card, Card) or card.suit not in "SHDC" or not 2 <= card.rank <= 14:
            raise CardError(T("“{card}” is not a card of a standard 52-card deck.",
                              card=str(card)[:8]))
    if len(set(cards)) != len(cards):
        raise CardError(T("The same card is entered twice."))
    if isinstance(taken_last, bool) or not isinstance(taken_last, int) \
            or not 0 <= taken_last < len(cards):
        raise CardError(T("Choose which of the {n} cards was taken last.", n=len(cards)))
    led = cards[taken_last].suit
    # Trumps first; else the led suit (the card taken last always has it, so never empty).
    suit = TRUMP if any(c.suit == TRUMP for c in cards) else led
    return max((i for i, c in enumerate(cards) if c.suit == suit), key=lambda i: cards[i].rank)


def resolve_first_half(codes: Sequence[str], taken_last: int) -> int | Text:
    """Like :func:`first_half_winner` for typed card codes ("QS", "10h", "A♠").

    Returns the winning index, or a T message explaining what is wrong.
    """
    try:
        return first_half_winner([parse_card(str(code)) for code in codes], taken_last)
    except CardError as error:
        return error.message


# --------------------------------------------------------------------------
# Rules as data

RULINGS = (
    Ruling("shared_win", T("Shared deal wins in a match"),
           T("The source does not say how a shared deal win counts towards the 3 wins. "
             "Table ruling: it counts as a win for each player who shares it; a draw "
             "(everyone scored 0) counts for nobody. If several players reach 3 wins on "
             "the same deal, they share the match.")),
    Ruling("start_after_tie", T("Start player after a shared win or a draw"),
           T("The source says the last deal's winner starts the next deal, but not who starts "
             "after a shared win or a draw. The table decides: choose among the players who "
             "shared the win, or among everyone after a draw."),
           table_decides=True),
    Ruling(AT_TIME, T("Ended at time"),
           T("The source does not say how a match ends when a meetup's time is up before anyone "
             "has 3 deal wins. Table ruling: the match ends with the deals played; the player with "
             "the most deal wins takes the match; with equal deal wins, the higher points total "
             "does; players level on both share the win.")),
    Ruling("all_zero_draw", T("Everyone scored 0"),
           T("Reading of the source: when every player scored 0 the deal is a draw, even if "
             "their chips differ; the chip tie-break is not used.")),
)


class RWD(Game):
    id = "rwd"
    order = 1
    name_en = "RWD (Rewind)"
    name_ja = "RWD(リワインド)"
    players = (3, 4, 5)
    credit = T("Designer not named in the source.")
    source = "000_18c4d0f1ea461cd4.txt"
    summary = T("Draft your hand backwards from open rows, taking a chip from the middle for "
                "every trick you win there, then play the hand forwards and win more tricks "
                "than you took chips.")
    components = (T("One standard 52-card deck, no jokers"), T("About 20 chips"))
    rulings = RULINGS
    fact_labels = {"chips": T("Chips"), "tricks": T("Tricks"), "start_player": T("Start player")}
    seat_facts = frozenset({"start_player"})
    options = (
        Option("first_start_player", T("Start player of the first deal"), "seat"),
        Option("length", T("How long you play"), "choice", default=WINS_FOR_MATCH,
               choices=((WINS_FOR_MATCH, Tn("First to {n} deal win", "First to {n} deal wins",
                                            WINS_FOR_MATCH)),
                        (ONE_DEAL, T("One deal"))),
               help=T("One deal is a whole game. If you play repeatedly, the first player to "
                      "win 3 deals wins the match.")),
    )
    choice_keys = ("start_player",)

    # ---- setup
    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        if n not in self.players:
            raise ValueError(f"RWD is for 3–5 players, not {n}")
        tricks = tricks_per_half(n)
        return (
            Figure("deck", T("Cards in the deck"), DECK_SIZE),
            Figure("rows", T("Cards per row (one of them face down)"), n),
            Figure("tricks", T("Tricks in each half"), tricks),
            Figure("aside", T("Stock cards left over and set aside"), DECK_SIZE - n * tricks),
            Figure("chips", T("Chips"), T("about 20")),
        )

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        figures = {f.key: f.value for f in self.setup_figures(n)}
        return (
            T("Shuffle all {deck} cards and put them face down in the middle as the stock.",
              deck=figures["deck"]),
            T("Row 1: turn up {open} cards from the stock side by side, then add one more "
              "card face down ({rows} cards in the row).", open=n - 1, rows=n),
            T("Row 2: lay out another {open} face-up cards and one face-down card, offset "
              "from row 1 so the rows stay apart.", open=n - 1),
            T("Put the chips ({chips}) where everyone can reach them.", chips=figures["chips"]),
            T("Pick a start player however you like."),
            _leftover_step(figures["tricks"], figures["aside"]),
        )

    # ---- one deal
    def columns(self, setup: MatchSetup) -> tuple[Column, ...]:
        """Chips and second-half tricks: each adds up to the trick count (every first-half trick
        gives out one chip; every second-half trick has a winner), so the last is worked out."""
        tricks, players = tricks_per_half(setup.n), setup.players
        return (Column("chips", T("Chips"), tuple(T("Chips of {player}", player=p) for p in players),
                       hi=tricks, total=tricks, why=T("one per trick"), derive_last=True),
                Column("tricks", T("Second-half tricks"),
                       tuple(T("Second-half tricks of {player}", player=p) for p in players),
                       hi=tricks, total=tricks, why=T("one per trick"), derive_last=True))

    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        errors: list[FieldError] = []
        facts: Facts = read_columns(form, self.columns(progress.setup), errors)  # type: ignore[assignment]
        self.read_choice(form, progress, facts, errors, T("Start player"))
        self.check_readable(progress, facts, errors)
        return facts, errors

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        if not isinstance(facts, dict):
            return [FieldError("chips", T("This deal's record is not readable."))]
        if self.outcome(progress, False).over:
            return [FieldError("deal", T("The match is over; no more deals can be added."))]
        errors = check_columns(self.columns(progress.setup), facts)
        if "start_player" in facts and self.next_deal(progress).choice is None:
            errors.append(FieldError("start_player", T(
                "The start player of this deal follows from the last deal; no choice was open.")))
        return errors

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        chips, tricks = facts["chips"], facts["tricks"]
        points = tuple(t - c for t, c in zip(tricks, chips))
        breakdown = tuple(
            (Line(T("Second-half tricks: {tricks}", tricks=t), t),
             Line(T("Chips from the first half: {chips}", chips=c), -c))
            for t, c in zip(tricks, chips))
        winners, notes, rulings = deal_winners(points, chips, progress.setup.players)
        if self.one_deal(progress.setup):  # no match to count wins towards
            rulings = tuple(r for r in rulings if r != "shared_win")
        if facts.get("start_player") is not None:  # the table chose who started this deal
            rulings = ("start_after_tie",) + rulings
        return DealScore(points, breakdown, winners, notes, rulings)

    def one_deal(self, setup: MatchSetup) -> bool:
        """Whether the table plays a single deal as the whole game (option "length")."""
        return self.option(setup, "length") == ONE_DEAL

    # ---- match flow
    def next_deal(self, progress: Progress) -> NextDeal:
        number = len(progress.deals) + 1
        players = progress.setup.players
        first_half = T("The first half goes counter-clockwise. The second half is led by "
                       "whoever wins the last first-half trick, and goes clockwise.")
        among = first_among(progress.setup)
        if not progress.deals and not among:
            starter = self.option(progress.setup, "first_start_player")
        else:
            # A rematch whose last game was shared or drawn asks like a later deal would.
            last = progress.deals[-1].score.winners if progress.deals else among
            if len(last) == progress.setup.n:  # everyone: the last game was a draw
                last = ()
            if len(last) != 1:
                options = last or tuple(range(progress.setup.n))
                question = (T("Deal {number}: the last deal was shared. Who of {names} starts?",
                              number=number, names=names(progress.setup, options)) if last else
                            T("Deal {number}: the last deal was a draw. Who starts?",
                              number=number))
                return NextDeal(number, leader=None, lines=(question, first_half),
                                choice=Choice("start_player", question, options,
                                              ruling="start_after_tie"))
            starter = last[0]
        lines = (T("{leader} is the start player and takes the first card from row 1.",
                   leader=players[starter]), first_half)
        return NextDeal(number, leader=starter, lines=lines)

    def as_chosen(self, progress: Progress, upcoming: NextDeal, answer: int) -> NextDeal:
        """After a shared win or a draw the deal's record says who was chosen to start (the
        question is its first line)."""
        chosen = T("{leader} was chosen as the start player and took the first card from row 1.",
                   leader=progress.setup.players[answer])
        return replace(upcoming, leader=answer, lines=(chosen,) + upcoming.lines[1:])

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        """The first to 3 deal wins takes the match, or the one deal is the game (option
        "length"); ``finished`` does not end an RWD match."""
        if self.one_deal(progress.setup):
            return _one_deal_outcome(progress)
        wins = deal_wins(progress)
        shared_deals = any("shared_win" in d.score.rulings for d in progress.deals)
        rulings = ("shared_win",) if shared_deals else ()
        champions = tuple(i for i, w in enumerate(wins) if w >= WINS_FOR_MATCH)
        players = progress.setup.players
        if not champions:
            standings = join_names([T("{name} {wins}", name=name, wins=w)
                                    for name, w in zip(players, wins)])
            return Outcome(False, message=T("First to {target} deal wins takes the match. "
                                            "Deal wins so far: {standings}.",
                                            target=WINS_FOR_MATCH, standings=standings),
                           rulings=rulings)
        if len(champions) == 1:
            return Outcome(True, champions, Tn("{winner} wins the match with {n} deal win.",
                                               "{winner} wins the match with {n} deal wins.",
                                               wins[champions[0]],
                                               winner=players[champions[0]]), rulings)
        return Outcome(True, champions,
                       T("{names} reached {target} deal wins on the same deal and share the "
                         "match.", names=names(progress.setup, champions),
                         target=WINS_FOR_MATCH), ("shared_win",))


    def stakes(self, progress: Progress, outcome: Outcome) -> Stakes:
        """First to 3: the deal wins as a tally (goal 3) beside the points, and who is one win
        from the match; one deal: the headline says that deal is the game."""
        if self.one_deal(progress.setup):
            return Stakes(T("One deal is the whole game: its winner wins."))
        wins = deal_wins(progress)
        lines: tuple[Text, ...] = ()
        close = [seat for seat, w in enumerate(wins) if w == WINS_FOR_MATCH - 1]
        if close and not outcome.over:
            lines = (T("One deal win from the match: {names}.", names=names(progress.setup, close)),)
        return Stakes(Tn("First to {n} deal win takes the match", "First to {n} deal wins takes the match",
                         WINS_FOR_MATCH),
                      (Tally(T("Deal wins"), tuple(wins), WINS_FOR_MATCH),), lines)

    def rematch_options(self, match: Match) -> dict[str, int]:
        """As the source plays repeatedly: the last deal's winner starts the next game. After
        a shared win or a draw the rematch's first deal asks among the sharers (or everyone),
        as ruling start_after_tie does between deals."""
        return options_after_last_winner(match, "first_start_player")


def _one_deal_outcome(progress: Progress) -> Outcome:
    """The single-deal game: over after its deal, won by the deal's winners (none: a draw)."""
    if not progress.deals:
        return Outcome(False, message=T("One deal is the whole game: its winner wins."))
    record = progress.deals[0]
    winners, players = record.score.winners, progress.setup.players
    rulings = tuple(r for r in record.score.rulings if r == "all_zero_draw")
    if not winners:
        return Outcome(True, (), T("Everyone scored 0: the game is a draw."), rulings)
    if len(winners) == 1:
        return Outcome(True, winners, T("{winner} wins the game.", winner=players[winners[0]]), rulings)
    return Outcome(True, winners, T("{names} share the win.", names=names(progress.setup, winners)),
                   rulings)


def _leftover_step(tricks: int, aside: int) -> Text:
    """The last setup step: how many stock cards the first half leaves (0, 1 or 2)."""
    if not aside:
        return T("Each half has {tricks} tricks, and the first half uses up the whole stock.",
                 tricks=tricks)
    return Tn("Each half has {tricks} tricks; {n} stock card is left over: set it aside face "
              "down, unused.",
              "Each half has {tricks} tricks; {n} stock cards are left over: set them aside "
              "face down, unused.", aside, tricks=tricks)


def deal_winners(points: Sequence[int], chips: Sequence[int], players: Sequence[str]
                 ) -> tuple[tuple[int, ...], tuple[Text, ...], tuple[str, ...]]:
    """Winners of one deal, with notes and the rulings that applied.

    Highest score wins; a tie goes to more chips; still tied, the win is shared.
    Everyone on 0 is a draw with no winner.
    """
    if all(p == 0 for p in points):
        return (), (T("Everyone scored 0: the deal is a draw."),), ("all_zero_draw", "shared_win")
    top = max(points)
    tied = [i for i, p in enumerate(points) if p == top]
    most_chips = max(chips[i] for i in tied)
    winners = tuple(i for i in tied if chips[i] == most_chips)
    who = join_names([players[i] for i in winners])
    if len(winners) > 1:
        return winners, (T("{names} tie on score and chips and share the deal win.",
                           names=who),), ("shared_win",)
    if len(tied) > 1:
        return winners, (T("{names} tie on {score}; {winner} took more chips and wins the "
                           "deal.", names=join_names([players[i] for i in tied]), score=top,
                           winner=who),), ()
    return winners, (T("{winner} wins the deal.", winner=who),), ()


def deal_wins(progress: Progress) -> list[int]:
    """Deal wins per seat; a shared win counts for each sharer (ruling shared_win)."""
    wins = [0] * progress.setup.n
    for record in progress.deals:
        for seat in record.score.winners:
            wins[seat] += 1
    return wins


GAME = RWD()


# ==========================================================================
# Calculators and helpers (the game page): pure functions over form fields, see calculators.Calculator

from typing import Mapping  # noqa: E402

from .calculators import CalcResult, Calculator, score_one_deal, seat_names  # noqa: E402
from .forms import card_codes, entered, read_int  # noqa: E402
from .cards import SUIT_NAMES  # noqa: E402
from .pair_quad import signed  # noqa: E402


def calc_deal(form: Mapping[str, str], n: int) -> CalcResult:
    """A whole deal's scores and winner from each player's chips and tricks."""
    result = CalcResult(prompt=T("Enter each player's first-half chips and second-half tricks."))
    if not entered(form):
        return result
    players = seat_names(n)
    score = score_one_deal(GAME, players, form, result)
    if score is None:
        return result
    if score.winners:
        result.headline = T("Deal winner: {names}",
                            names=join_names([players[i] for i in score.winners]))
    else:
        result.headline = T("A draw: nobody wins this deal.")
    for seat, lines in enumerate(score.breakdown):
        result.groups.append((T("{player}: {points}", player=players[seat],
                                points=signed(score.points[seat])), lines))
    result.notes.extend(score.notes)
    result.rulings.extend(score.rulings)
    return result


def helper_first_half(form: Mapping[str, str], n: int) -> CalcResult:
    """Which card of a first-half row wins, for a player checking privately."""
    result = CalcResult(prompt=T("Type the {n} cards of the row (for example QS 10H 3D), then "
                                 "choose which was taken last.", n=n))
    if not entered(form):
        return result
    codes = card_codes(form.get("cards", ""))
    if len(codes) != n:
        return result.fail(T("Enter {n} cards, one for each player; {count} entered.",
                             n=n, count=len(codes)))
    errors: list[FieldError] = []
    last = read_int(form, "last", 1, n, T("Card taken last"), errors)
    if errors:  # tapped, never typed: say "choose", not "enter a number"
        errors = [FieldError("last", T("Card taken last: choose which of the {n} cards was taken "
                                       "last.", n=n))]
    if errors:
        return result.refuse(errors)
    outcome = resolve_first_half(codes, last - 1)  # type: ignore[operator]
    if isinstance(outcome, Text):
        return result.fail(outcome)
    result.empty = False
    cards = [parse_card(code) for code in codes]
    result.headline = T("Card {k}, {card}, wins the trick.", k=outcome + 1, card=cards[outcome].code)
    trumps = any(c.suit == TRUMP for c in cards)
    result.items.append(T("Spades are trumps and there is a spade, so the highest spade wins.")
                        if trumps else
                        T("No spade: the highest card of the suit taken last, {suit}, wins.",
                          suit=SUIT_NAMES[cards[last - 1].suit]))  # type: ignore[operator]
    return result


GAME.calculators = (Calculator("rd", calc_deal), Calculator("rf", helper_first_half, kind="helper"))
