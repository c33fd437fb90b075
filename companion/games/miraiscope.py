"""Miraiscope, ミライスコープ: two-player Tressette with each player's future draws
shown to the opponent on a card stand.

A trick is four cards (lead, reply, both draw, lead, reply) with one led suit and
no trumps. Captured Qs score 3, 9/10/J/K/A score 1, the last trick 3 more:
35 points per deal. The match ends after a deal in which someone has 60.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .contract import AT_TIME, Figure, Game, Option, Ruling, after_end, race_stakes
from .forms import Column, Form, check_columns, read_columns, read_seat
from .model import DealScore, Facts, FieldError, Line, Match, MatchSetup, NextDeal, Outcome, Progress, Stakes
from .cards import Card, CardError
from .text import T, Text, Tn

DECK_RANKS = range(5, 15)  # 5..A: the 2s, 3s and 4s are removed
QUEENS = 4
ONE_POINTERS = 20  # the 9, 10, J, K and A of four suits
QUEEN_POINTS = 3
LAST_TRICK_BONUS = 3
POINTS_PER_DEAL = QUEENS * QUEEN_POINTS + ONE_POINTERS + LAST_TRICK_BONUS  # 35
TARGET = 60
ONE_POINT_RANKS = frozenset({9, 10, 11, 13, 14})


# --------------------------------------------------------------------------
# In-game helpers


@dataclass(frozen=True)
class TrickResult:
    led_suit: str  # suit of the leader's first card
    winning_card: int  # index into the four cards
    winner: str  # "leader" or "other"
    points: int  # what the winner captures
    revokes: tuple[int, ...] = ()  # plays that broke must-follow (only known when hands are given)


def _check_cards(cards: Sequence[Card]) -> None:
    for card in cards:
        if not isinstance(card, Card) or card.suit not in "SHDC" or card.rank not in DECK_RANKS:
            raise CardError(T("“{card}” is not in the Miraiscope deck (no 2s, 3s or 4s).",
                              card=str(card)[:8]))
    if len(set(cards)) != len(cards):
        raise CardError(T("The same card is entered twice."))


def points_in_trick(cards: Sequence[Card]) -> int:
    """Points among captured cards: Q = 3; 9, 10, J, K, A = 1; the rest 0."""
    _check_cards(cards)
    return sum(QUEEN_POINTS if c.rank == 12 else 1 if c.rank in ONE_POINT_RANKS else 0
               for c in cards)


def resolve_trick(cards: Sequence[Card],
                  hands: Sequence[Sequence[Card]] | None = None) -> TrickResult:
    """Judge a four-card trick.

    ``cards`` in play order: leader's first, other's first, leader's second,
    other's second. The whole trick has one led suit, the suit of the leader's
    first card (reading note ``one_led_suit``); the highest card of that suit wins.
    ``hands``, if given, holds for each of the four plays the cards that player
    held just before playing it; plays 2–4 that did not follow the led suit
    although the hand held it are reported in ``revokes``.
    Raises :class:`~companion.games.cards.CardError` for impossible input.
    """
    if len(cards) != 4:
        raise CardError(T("A Miraiscope trick has 4 cards; {count} given.", count=len(cards)))
    _check_cards(cards)
    led = cards[0].suit
    winning = max((i for i, c in enumerate(cards) if c.suit == led), key=lambda i: cards[i].rank)
    revokes: tuple[int, ...] = ()
    if hands is not None:
        if len(hands) != 4:
            raise CardError(T("Give the hand held before each of the 4 plays."))
        for i, (card, hand) in enumerate(zip(cards, hands)):
            _check_cards(hand)
            if card not in hand:
                raise CardError(T("{card} was played but is not in the hand given for it.",
                                  card=card.code))
        revokes = tuple(i for i in (1, 2, 3) if cards[i].suit != led
                        and any(c.suit == led for c in hands[i]))
    return TrickResult(led, winning, "leader" if winning % 2 == 0 else "other",
                       points_in_trick(cards), revokes)


# --------------------------------------------------------------------------
# Rules as data

RULINGS = (
    Ruling("tie_at_end", T("Equal totals at the end"),
           T("The source does not say what happens when both players have the same total "
             "when the match ends. Table ruling: the tie is shown as a tie, and you may play "
             "one more deal to break it, or accept the shared win."), table_decides=True),
    Ruling(AT_TIME, T("Ended at time"),
           T("The source does not say how a match ends when a meetup's time is up before a "
             "player reaches 60. Table ruling: the match ends with the deals played; the higher "
             "total wins; equal totals share the win (no deal is added to break the tie).")),
    Ruling("one_led_suit", T("One led suit per trick"),
           T("The source says that in the second round both players follow the suit of the "
             "card the leader played just before. For the leader that can only be their "
             "first card; the app reads it the same way for the other player (not as the "
             "leader's second card), so the whole four-card trick has one led suit.")),
)


class Miraiscope(Game):
    id = "miraiscope"
    order = 2
    name_en = "Miraiscope"
    name_ja = "ミライスコープ"
    players = (2,)
    credit = T("Designer not named in the source.")
    source = "001_1adc225d902d493e.txt"
    summary = T("A two-player trick-taking game after Tressette where you see your opponent's "
                "future draws, in order, but never your own.")
    components = (T("One standard deck with the 2s, 3s and 4s removed (40 cards)"),
                  T("Two card stands"))
    rulings = RULINGS
    fact_labels = {"queens": T("Qs captured"), "points": T("One-pointers captured"),
                   "last_trick": T("Last trick")}
    seat_facts = frozenset({"last_trick"})
    options = (Option("first_dealer", T("Dealer of the first deal"), "seat"),)

    # ---- setup
    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        if n not in self.players:
            raise ValueError(f"Miraiscope is for 2 players, not {n}")
        return (
            Figure("deck", T("Cards in the deck"), 40),
            Figure("removed", T("Ranks removed"), T("2–4")),
            Figure("hand", T("Cards in each hand"), 10),
            Figure("stand", T("Cards on each stand"), 10),
            Figure("tricks", T("Tricks per deal"), 10),
        )

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        figures = {f.key: f.value for f in self.setup_figures(n)}
        return (
            T("Take every 2, 3 and 4 out of a standard deck; {deck} cards remain.",
              deck=figures["deck"]),
            T("Each player sets a card stand in front of them."),
            T("Pick the first dealer however you like."),
            T("The dealer shuffles and gives each player {hand} cards as a hand.",
              hand=figures["hand"]),
            T("The dealer gives each player {stand} more cards; each player sets them on their "
              "own stand facing the opponent without looking at them. Overlapping is fine if "
              "every index shows.", stand=figures["stand"]),
            T("The non-dealer leads the first of {tricks} tricks.", tricks=figures["tricks"]),
        )

    # ---- one deal
    def columns(self, setup: MatchSetup) -> tuple[Column, ...]:
        """Every card is played and every trick has a winner, so all Queens and one-pointers
        are captured: each column adds up to what the deck has, and the second is worked out."""
        players = setup.players
        return (Column("queens", T("Qs captured"),
                       tuple(T("Qs captured by {player}", player=p) for p in players),
                       hi=QUEENS, total=QUEENS, why=T("the deck has {total}", total=QUEENS),
                       derive_last=True),
                Column("points", T("One-pointers captured (9, 10, J, K, A)"),
                       tuple(T("One-pointers captured by {player}", player=p) for p in players),
                       hi=ONE_POINTERS, total=ONE_POINTERS,
                       why=T("the deck has {total}", total=ONE_POINTERS), derive_last=True))

    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        errors: list[FieldError] = []
        facts: Facts = read_columns(form, self.columns(progress.setup), errors)  # type: ignore[assignment]
        facts["last_trick"] = read_seat(form, "last_trick", 2, T("Winner of the last trick"), errors)
        self.check_readable(progress, facts, errors)
        return facts, errors

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        if not isinstance(facts, dict):
            return [FieldError("queens", T("This deal's record is not readable."))]
        ended = after_end(self, progress)  # a tie-break deal after a tie is allowed
        if ended is not None:
            return [ended]
        players = progress.setup.players
        errors = check_columns(self.columns(progress.setup), facts)
        last = facts.get("last_trick")
        if isinstance(last, bool) or last not in (0, 1):
            errors.append(FieldError("last_trick", T(
                "Exactly one player wins the last trick; choose {first} or {second}.",
                first=players[0], second=players[1])))
        return errors

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        points, breakdown = [], []
        for seat in range(2):
            queens, ones = facts["queens"][seat], facts["points"][seat]
            bonus = LAST_TRICK_BONUS if facts["last_trick"] == seat else 0
            lines = [Line(T("Qs: {count} × 3", count=queens), queens * QUEEN_POINTS),
                     Line(T("9, 10, J, K, A: {count} × 1", count=ones), ones)]
            if bonus:
                lines.append(Line(T("Last trick"), bonus))
            points.append(queens * QUEEN_POINTS + ones + bonus)
            breakdown.append(tuple(lines))
        return DealScore(tuple(points), tuple(breakdown))

    # ---- match flow
    def next_deal(self, progress: Progress) -> NextDeal:
        number = len(progress.deals) + 1
        dealer = (self.option(progress.setup, "first_dealer") + number - 1) % 2
        leader = 1 - dealer
        players = progress.setup.players
        return NextDeal(number, dealer, leader, (
            T("{dealer} deals 10 cards to each hand and 10 to each stand. {leader} leads the "
              "first trick.", dealer=players[dealer], leader=players[leader]),))

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        """Over after a deal that leaves someone on 60+; a tie there follows ``tie_at_end``.

        ``finished`` only matters on such a tie: the players accept the shared win.
        """
        totals, players = progress.totals, progress.setup.players
        # An extra deal was played if an earlier deal already ended the match in a tie.
        earlier_tie = any(_tied_end(record.totals) for record in progress.deals[:-1])
        rulings = ("tie_at_end",) if earlier_tie else ()
        if max(totals) < TARGET:
            return Outcome(False, message=T("The match ends after a deal in which a player has "
                                            "{target} points or more.", target=TARGET),
                           rulings=rulings)
        if _tied_end(totals):
            if finished:
                return Outcome(True, (0, 1), T("{first} and {second} share the win on {total} "
                                               "each.", first=players[0], second=players[1],
                                               total=totals[0]), ("tie_at_end",))
            return Outcome(True, (0, 1), T("A tie on {total} each. Play one more deal to break "
                                           "it, or accept the shared win.", total=totals[0]),
                           ("tie_at_end",), more_deals_allowed=True)
        winner = 0 if totals[0] > totals[1] else 1
        return Outcome(True, (winner,), T("{winner} wins the match, {high} to {low}.",
                                          winner=players[winner], high=totals[winner],
                                          low=totals[1 - winner]), rulings)


    def stakes(self, progress: Progress, outcome: Outcome) -> Stakes:
        """The race to 60, and how far the leader still has to go."""
        return race_stakes(TARGET, progress.totals, self.entrants(progress.setup.players), outcome)

    def rematch_options(self, match: Match) -> dict[str, int]:
        """Dealers keep alternating: the rematch starts with the player who would deal next."""
        options = dict(match.setup.options)
        options["first_dealer"] = (self.option(match.setup, "first_dealer") + len(match.deals)) % 2
        return options


def _tied_end(totals: Sequence[int]) -> bool:
    return max(totals) >= TARGET and totals[0] == totals[1]


GAME = Miraiscope()


# ==========================================================================
# Calculators and helpers (the game page): pure functions over form fields, see calculators.Calculator

from typing import Mapping  # noqa: E402

from .calculators import CalcResult, Calculator, score_one_deal, seat_names  # noqa: E402
from .forms import card_codes, entered  # noqa: E402
from .cards import SUIT_NAMES, parse_card  # noqa: E402


def calc_deal(form: Mapping[str, str], n: int) -> CalcResult:
    """Both players' points for a deal; player 2 left blank gets the rest of the cards."""
    result = CalcResult(prompt=T("Enter the Qs and one-pointers each player captured, and who won "
                                 "the last trick. Leave player 2 blank to work it out."))
    if not entered(form):
        return result
    players = seat_names(2)
    derived = not any(form.get(k, "").strip() for k in ("queens-1", "points-1"))
    score = score_one_deal(GAME, players, form, result)
    if score is None:
        return result
    if derived:
        result.notes.append(T("{player} was left blank and gets the rest of the cards.",
                              player=players[1]))
    result.headline = T("{first} {a}, {second} {b}", first=players[0], a=score.points[0],
                        second=players[1], b=score.points[1])
    for seat, lines in enumerate(score.breakdown):
        result.groups.append((T("{player}: {points}", player=players[seat],
                                points=score.points[seat]), lines))
    result.items.append(T("Together {total} points: every deal hands out exactly {expected}.",
                          total=sum(score.points), expected=POINTS_PER_DEAL))
    return result


def helper_trick(form: Mapping[str, str], n: int) -> CalcResult:
    """Who wins a four-card trick and what it captures."""
    result = CalcResult(prompt=T("Type the four cards in play order: the leader's first, the other "
                                 "player's first, then both second cards."))
    if not entered(form):
        return result
    codes = card_codes(form.get("cards", ""))
    try:
        cards = [parse_card(code, ranks=DECK_RANKS) for code in codes]
        outcome = resolve_trick(cards)
    except CardError as error:
        return result.fail(error.message)
    result.empty = False
    who = T("The leader") if outcome.winner == "leader" else T("The other player")
    result.headline = Tn("{who} wins with {card} and captures {n} point.",
                         "{who} wins with {card} and captures {n} points.", outcome.points,
                         who=who, card=cards[outcome.winning_card].code)
    result.items.append(T("Led suit for the whole trick: {suit}.", suit=SUIT_NAMES[outcome.led_suit]))
    result.rulings.append("one_led_suit")
    return result


GAME.calculators = (Calculator("mi", calc_deal), Calculator("mt", helper_trick, kind="helper"))
