"""Twin Shoot (ツインシュート) by 安藤慎吾 (Shingo Ando): teams of two, six suits.

Spec: shared/rules/twin_shoot.md, source shared/sources/004_453d5ebb181b80f7.txt.

Seats are clockwise; teams are consecutive seat pairs (0, 1), (2, 3), (4, 5).
In each pair the first seat is the *right-side* player (their partner sits on
their left, i.e. plays next clockwise) and the second is the *left-side* one.

Facts of one deal::

    {"bids": [["X", "H"], ...],   # per seat: suit codes of the two bid cards
     "tricks": [3, 2, ...],       # per seat: tricks taken (sum 10)
     "open_bid": 1 | None}        # team that open-bid, if any
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .contract import AT_TIME, Figure, Game, Option, Ruling, Team, after_end, best, race_stakes
from .forms import Column, Form, check_columns, read_columns, read_int
from .model import (Choice, DealScore, Facts, FieldError, Line, Match, MatchSetup, NextDeal, Outcome,
                    Progress, Stakes)
from .cards import SUIT_CODES, Card, CardError, parse_card
from .text import T, Text, Tn, join_names

# Strongest first; a suit's bid value equals its strength rank counted from the weakest.
SUITS = "LXCHSD"
BID_VALUES = {"L": 5, "X": 4, "C": 3, "H": 2, "S": 1, "D": 0}
SUIT_WORDS = {"LEAF": "L", "CROSS": "X", "CLUB": "C", "CLUBS": "C", "HEART": "H",
              "HEARTS": "H", "SPADE": "S", "SPADES": "S", "DIAMOND": "D", "DIAMONDS": "D"}
LOWEST_RANK = {4: 7, 6: 3}  # 4 players drop 2–6, 6 players drop the 2s
DEALT = 12
BID_CARDS = 2
TRICKS = 10
TARGET = 100
SHOOT = 10
TWIN_SHOOT = 10
OVERHEAD = 30


class TwinShootError(ValueError):
    """Bad input to a helper; ``message`` is player-facing."""

    def __init__(self, message: Text):
        self.message = message
        super().__init__(str(message))


# --------------------------------------------------------------------------
# Helpers: bids


def _suit_code(value: Any) -> str | None:
    """"X", "x", "cross", "♣" -> the suit code, else None."""
    if not isinstance(value, str):
        return None
    raw = value.strip().upper()
    code = SUIT_CODES.get(raw) or SUIT_WORDS.get(raw)
    return code if code in BID_VALUES else None


def bid_value(suit1: str, suit2: str) -> int:
    """The bid shown by two bid cards: the sum of their suits' values (Cross + Heart = 6)."""
    return decode_bid([suit1, suit2])


def decode_bid(codes: str | Sequence[str]) -> int:
    """Decode two suits ("XH", "x h", "Cross+Heart", ["X", "H"]) into the bid 0..10.

    Raises :class:`TwinShootError` with a clear message when it is not exactly two suits.
    """
    if isinstance(codes, str):
        spaced = codes.replace("+", " ").replace(",", " ").split()
        whole_words = len(spaced) > 1 or (len(spaced) == 1 and _suit_code(spaced[0]) is not None)
        parts: list[Any] = spaced if whole_words else list(codes.strip())
    else:
        try:
            parts = list(codes)
        except TypeError:
            raise TwinShootError(T("A bid is two suits, e.g. XH for Cross and Heart.")) from None
    if len(parts) != BID_CARDS:
        raise TwinShootError(T("A bid is exactly two suits; “{codes}” has {count}.",
                               codes=str(codes)[:20], count=len(parts)))
    total = 0
    for part in parts:
        code = _suit_code(part)
        if code is None:
            raise TwinShootError(T("“{suit}” is not a suit; use L (Leaf), X (Cross), C (Club), "
                                   "H (Heart), S (Spade) or D (Diamond).", suit=str(part)[:12]))
        total += BID_VALUES[code]
    return total


def open_bid_eligible(totals: Sequence[int]) -> int | None:
    """The team alone in last place on ``totals`` (the only one allowed to open-bid), else None."""
    if len(totals) < 2:
        return None
    lowest = min(totals)
    last = [team for team, total in enumerate(totals) if total == lowest]
    return last[0] if len(last) == 1 else None


# --------------------------------------------------------------------------
# Helpers: who leads and which way play goes


def _direction(side: str) -> str:
    # The leader's partner always plays second: the right-side player's partner is on the left.
    return "clockwise" if side == "right" else "counter-clockwise"


def opening_leader(deal_index: int, first_team: int, teams: int) -> tuple[int, int, str, str]:
    """(team, seat, side, direction) of the opening leader of deal ``deal_index`` (0-based).

    The lead passes clockwise team by team; the first cycle leads from the right-side
    players, the second from the left-side players, and so on alternately.
    """
    if teams not in (2, 3):
        raise TwinShootError(T("Twin Shoot is played by 2 or 3 teams, not {teams}.", teams=teams))
    if not 0 <= first_team < teams:
        raise TwinShootError(T("The first team must be from 0 to {last}; it is {team}.",
                               last=teams - 1, team=first_team))
    if deal_index < 0:
        raise TwinShootError(T("Deals are counted from 0; {deal} is not a deal.", deal=deal_index))
    team = (first_team + deal_index) % teams
    side = "right" if (deal_index // teams) % 2 == 0 else "left"
    seat = 2 * team + (0 if side == "right" else 1)
    return team, seat, side, _direction(side)


def play_order(leader_seat: int, n_players: int) -> tuple[int, ...]:
    """Seats in play order for a trick led by ``leader_seat``: the partner always plays second."""
    step = 1 if leader_seat % 2 == 0 else -1
    return tuple((leader_seat + step * i) % n_players for i in range(n_players))


# --------------------------------------------------------------------------
# Helpers: resolving a trick


def deck(n_players: int) -> tuple[Card, ...]:
    """The deck for ``n_players`` (4: A–7, 48 cards; 6: A–3, 72 cards)."""
    if n_players not in LOWEST_RANK:
        raise TwinShootError(T("Twin Shoot is for 4 or 6 players, not {n}.", n=n_players))
    return tuple(Card(rank, suit) for suit in SUITS for rank in range(LOWEST_RANK[n_players], 15))


def _card(value: Card | str, n_players: int) -> Card:
    ranks = range(LOWEST_RANK[n_players], 15)
    if isinstance(value, Card):
        if value.suit not in BID_VALUES or value.rank not in ranks:
            raise TwinShootError(T("{card} is not in the {n}-player deck.", card=value.code, n=n_players))
        return value
    try:
        return parse_card(str(value), suits=SUITS, ranks=ranks)
    except CardError as err:
        raise TwinShootError(err.message) from None


@dataclass(frozen=True)
class TrickResult:
    seats: tuple[int, ...]  # seat of each play, in play order
    direction: str  # "clockwise" or "counter-clockwise"
    follow: str | None  # "suit", "rank", or None when nobody matched the lead
    follow_index: int | None  # index (in play order) of the play that set the follow type
    legal: tuple[bool | None, ...]  # per play; None when no hands were given
    reasons: tuple[Text | None, ...]  # why a play was not legal
    winner: int  # seat
    winning_index: int  # index in play order


def _required(follow: str | None) -> tuple[bool, bool]:
    """Whether matching the lead's (suit, rank) fulfils the duty while ``follow`` is the follow type."""
    return follow in (None, "suit"), follow in (None, "rank")


def resolve_trick(leader_seat: int, plays: Sequence[Card | str], n_players: int,
                  hands: Sequence[Iterable[Card | str]] | None = None) -> TrickResult:
    """Resolve one trick from its cards in play order (the lead first).

    ``hands`` (optional, in play order) are the cards each player held when playing,
    with or without the card played; when given, each play is judged legal or not.
    Raises :class:`TwinShootError` for cards outside the deck, repeated cards or wrong counts.
    """
    if n_players not in LOWEST_RANK:
        raise TwinShootError(T("Twin Shoot is for 4 or 6 players, not {n}.", n=n_players))
    if not 0 <= leader_seat < n_players:
        raise TwinShootError(T("The leader must be a seat from 0 to {last}; it is {seat}.",
                               last=n_players - 1, seat=leader_seat))
    cards = [_card(c, n_players) for c in plays]
    if len(cards) != n_players:
        raise TwinShootError(T("A trick has one card from each of the {n} players; cards entered: {count}.",
                               n=n_players, count=len(cards)))
    if len(set(cards)) != len(cards):
        raise TwinShootError(T("Each card is unique in Twin Shoot; a card was entered twice."))
    held: list[set[Card]] | None = None
    if hands is not None:
        held = [{_card(c, n_players) for c in hand} for hand in hands]
        if len(held) != n_players:
            raise TwinShootError(T("Enter one hand per player: {n} hands, not {count}.",
                                   n=n_players, count=len(held)))
        for i, hand in enumerate(held):
            for j, other in enumerate(held):
                if i < j and hand & other:
                    raise TwinShootError(T("{card} is in two hands.", card=min(hand & other).code))
            strays = hand & (set(cards) - {cards[i]})
            if strays:
                raise TwinShootError(T("{card} was played by another player, so it cannot be in this hand.",
                                       card=min(strays).code))

    lead = cards[0]
    follow: str | None = None
    follow_index: int | None = None
    legal: list[bool | None] = [True if held is not None else None]
    reasons: list[Text | None] = [None]
    for i, card in enumerate(cards[1:], start=1):
        by_suit, by_rank = _required(follow)
        matches = (by_suit and card.suit == lead.suit) or (by_rank and card.rank == lead.rank)
        if held is None:
            legal.append(None)
            reasons.append(None)
        else:
            others = held[i] - {card}
            could = [c for c in others
                     if (by_suit and c.suit == lead.suit) or (by_rank and c.rank == lead.rank)]
            ok = matches or not could
            legal.append(ok)
            reasons.append(None if ok else T("{card} breaks the follow rule: {held} could have been played.",
                                             card=card.code, held=min(could).code))
        if follow is None and card.suit == lead.suit:
            follow, follow_index = "suit", i
        elif follow is None and card.rank == lead.rank:
            follow, follow_index = "rank", i

    if follow == "suit":
        winning_index = max((i for i, c in enumerate(cards) if c.suit == lead.suit), key=lambda i: cards[i].rank)
    elif follow == "rank":
        winning_index = max((i for i, c in enumerate(cards) if c.rank == lead.rank),
                            key=lambda i: BID_VALUES[cards[i].suit])
    else:
        winning_index = 0  # nobody matched the lead: the leader wins
    seats = play_order(leader_seat, n_players)
    return TrickResult(seats, _direction("right" if leader_seat % 2 == 0 else "left"), follow,
                       follow_index, tuple(legal), tuple(reasons), seats[winning_index], winning_index)


# --------------------------------------------------------------------------
# The game


RULINGS = (
    Ruling("sides", T("Right-side and left-side players"),
           T("The app reads the source's right-side player as the teammate who comes first clockwise "
             "(their partner sits on their left): enter each team as two neighbouring seats, right-side "
             "player first.")),
    Ruling("first_team", T("Who leads the first deal"),
           T("The app asks the table which team leads first when the table is created."),
           table_decides=True),
    Ruling("dealer", T("Who deals"),
           T("The source has a player outside the opening leader's team deal, but does not say which "
             "one. The app names no one: any of them may deal."),
           table_decides=True),
    Ruling(AT_TIME, T("Ended at time"),
           T("The source does not say how a match ends when a meetup's time is up before a team "
             "reaches 100. Table ruling: the match ends with the deals played; the team with the "
             "highest total wins; teams level on it share the win.")),
    Ruling("match_end", T("End of the match"),
           T("The deal in which a team reaches 100 points is scored in full for every team before the "
             "match ends.")),
)


@dataclass(frozen=True)
class Lead:
    """Who opens a deal (``NextDeal.detail``): the leading team, its seat, the side it leads
    from ("right" / "left") and which way play goes."""

    team: int
    seat: int
    side: str
    direction: str


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class TwinShoot(Game):
    suit_order = SUITS  # strongest first; the suit pickers read these two
    bid_values = BID_VALUES
    lowest_rank = LOWEST_RANK  # per player count: the card keypad offers only the deck's ranks
    id = "twin_shoot"
    order = 5
    name_en = "Twin Shoot"
    name_ja = "ツインシュート"
    players = (4, 6)
    credit = T("Designed by {designer} ({romanised}).", designer="安藤慎吾", romanised="Shingo Ando")
    source = "004_453d5ebb181b80f7.txt"
    summary = T("Teams of two secretly bid their tricks with the suits of two cards, follow the "
                "lead's suit or its rank, and score big when both partners hit their bids exactly.")
    components = (
        T("A six-suit deck: Leaf, Cross, Club, Heart, Spade and Diamond, A down to 2 in each suit."),
        T("Something to keep the team scores (this app)."),
    )
    rulings = RULINGS
    fact_labels = {"bids": T("Bid cards"), "tricks": T("Tricks"), "open_bid": T("Open bid")}
    team_facts = frozenset({"open_bid"})
    options = (
        Option("first_team", T("Team that leads the first deal"), "team", default=0,
               ruling="first_team",
               help=T("The right-side players agree among themselves who leads first.")),
    )

    # ---- setup
    def _check_n(self, n: int) -> None:
        if n not in self.players:
            raise ValueError(f"Twin Shoot is for 4 or 6 players, not {n}")

    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        self._check_n(n)
        return (
            Figure("teams", T("Teams of two"), n // 2),
            Figure("deck", T("Cards in the deck"), 6 * (15 - LOWEST_RANK[n])),
            Figure("removed", T("Ranks removed"), T("2–6") if n == 4 else T("2")),
            Figure("ranks", T("Ranks in each suit"), T("A–7") if n == 4 else T("A–3")),
            Figure("dealt", T("Cards dealt to each player"), DEALT),
            Figure("bid_cards", T("Bid cards per player"), BID_CARDS),
            Figure("tricks", T("Tricks per deal"), TRICKS),
            Figure("target", T("Points that end the match"), TARGET),
        )

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        fig = {f.key: f.value for f in self.setup_figures(n)}
        return (
            T("Make {teams} teams of two. Partners sit side by side; enter each team as two seats "
              "in a row, going clockwise.", teams=fig["teams"]),
            T("Take out every card ranked {removed}. That leaves {deck} cards: {ranks} in each of the "
              "six suits.", removed=fig["removed"], deck=fig["deck"], ranks=fig["ranks"]),
            T("New players may lay one removed card of each suit at the edge of the table, strongest "
              "first (Leaf, Cross, Club, Heart, Spade, Diamond), as a reminder."),
            T("The right-side players agree which of them leads first. Someone from another team deals."),
            T("Deal out the whole deck: {dealt} cards to each player.", dealt=fig["dealt"]),
            T("Each player then bids with {bid_cards} cards face down and plays {tricks} tricks with the "
              "rest.", bid_cards=fig["bid_cards"], tricks=fig["tricks"]),
        )

    def seating(self, n: int) -> tuple[Team, ...]:
        """Partners sit side by side: seats (0, 1), (2, 3), (4, 5), the right-side player first
        (ruling "sides")."""
        return tuple(Team((2 * team, 2 * team + 1), (T("right side"), T("left side")))
                     for team in range(n // 2))

    def seating_help(self, n: int) -> Text:
        if n == 4:
            return T("Teammates sit next to each other: seats 1–2 and 3–4 are teams. In each team "
                     "the first is the right-side player, the second the left-side player.")
        return T("Teammates sit next to each other: seats 1–2, 3–4 and 5–6 are teams. In each team "
                 "the first is the right-side player, the second the left-side player.")

    def columns(self, setup: MatchSetup) -> tuple[Column, ...]:
        # The ten tricks all have a winner, so a blank last player's tricks are worked out.
        return (Column("tricks", T("Tricks"), tuple(T("Tricks taken by {player}", player=p)
                                                     for p in setup.players),
                       hi=TRICKS, total=TRICKS, derive_last=True),)

    # ---- one deal
    def open_bid_team(self, progress: Progress) -> int | None:
        """The team the deal form may offer an open bid to (none on the first deal)."""
        return open_bid_eligible(progress.totals) if progress.deals else None

    def reask(self, progress: Progress, facts: Facts) -> "Choice | None":
        """A correction of an earlier deal can leave this deal's recorded open bid with a team
        that is no longer alone in last place: ask again who open-bid (the team that now is,
        or nobody); the question says why. Options are team indexes; the number
        of teams stands for nobody (``labels`` name them)."""
        bidder = facts.get("open_bid") if isinstance(facts, dict) else None
        teams = progress.setup.n // 2
        if not _is_count(bidder) or not 0 <= bidder < teams:
            return None  # none, or unreadable: the deal's own checks say so
        eligible = self.open_bid_team(progress)
        if eligible == bidder:
            return None
        names = self.entrants(progress.setup.players)
        number = len(progress.deals) + 1
        if eligible is None:
            question = T("Deal {number}: {team} may no longer open-bid: no team is alone in last "
                         "place before this deal, so nobody may. Confirm that nobody open-bid.",
                         number=number, team=names[bidder])
            options: tuple[int, ...] = (teams,)
        else:
            question = T("Deal {number}: {team} may no longer open-bid: {eligible} is now alone in "
                         "last place before this deal. Who open-bid?", number=number,
                         team=names[bidder], eligible=names[eligible])
            options = (eligible, teams)
        return Choice("open_bid", question, options, labels=tuple(names) + (T("Nobody"),))

    def apply_answer(self, facts: Facts, choice: "Choice", answer: int) -> Facts:
        if choice.key == "open_bid":  # the last label is "nobody"
            return {**facts, "open_bid": None if answer == len(choice.labels) - 1 else answer}
        return super().apply_answer(facts, choice, answer)

    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        setup = progress.setup
        errors: list[FieldError] = []
        bids: list[list[str | None]] = []
        for seat, player in enumerate(setup.players):
            pair: list[str | None] = []
            for which in (1, 2):
                name = f"bid{which}-{seat}"
                raw = form.get(name)
                code = _suit_code(raw)
                if code is None:
                    if raw is None or (isinstance(raw, str) and not raw.strip()):
                        errors.append(FieldError(name, T("{player}: choose the suit of bid card {which}.",
                                                         player=player, which=which)))
                    else:
                        errors.append(FieldError(name, T("{player}'s bid card {which}: “{value}” is not a "
                                                         "suit; use L, X, C, H, S or D.",
                                                         player=player, which=which, value=str(raw)[:12])))
                pair.append(code)
            bids.append(pair)
        tricks = read_columns(form, self.columns(setup), errors)["tricks"]
        raw_open = form.get("open_bid")
        open_bid = None
        if not (raw_open is None or (isinstance(raw_open, str) and raw_open.strip().lower() in ("", "none"))):
            unreadable: list[FieldError] = []  # a team is tapped: say "choose", never a 0-based range
            open_bid = read_int(form, "open_bid", 0, setup.n // 2 - 1, T("Open bid"), unreadable,
                                required=False)
            if unreadable:
                errors.append(FieldError("open_bid", T("{field}: choose one of the teams, or nobody.",
                                                       field=T("Open bid"))))
        facts = {"bids": bids, "tricks": tricks, "open_bid": open_bid}
        self.check_readable(progress, facts, errors)
        return facts, errors

    def form_values(self, facts: Facts) -> dict[str, str]:
        values = {"open_bid": "none" if facts.get("open_bid") is None else str(facts["open_bid"])}
        for seat, (first, second) in enumerate(facts.get("bids", [])):
            values[f"bid1-{seat}"], values[f"bid2-{seat}"] = first, second
        for seat, tricks in enumerate(facts.get("tricks", [])):
            values[f"tricks-{seat}"] = str(tricks)
        return values

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        setup = progress.setup
        n, k = setup.n, setup.n // 2
        errors: list[FieldError] = []
        if not isinstance(facts, dict):
            return [FieldError("bids", T("The deal's record is not readable."))]
        ended = after_end(self, progress)
        if ended is not None:
            return [ended]

        bids = facts.get("bids")
        if not isinstance(bids, list) or len(bids) != n:
            errors.append(FieldError("bids", T("Bids must list two suits for each of the {n} players.", n=n)))
        else:
            for seat, pair in enumerate(bids):
                player = setup.players[seat]
                if not isinstance(pair, list) or len(pair) != BID_CARDS:
                    errors.append(FieldError(f"bid1-{seat}", T("{player}'s bid must be exactly two suits.",
                                                               player=player)))
                    continue
                for which, code in enumerate(pair, start=1):
                    if not (isinstance(code, str) and code in BID_VALUES):
                        errors.append(FieldError(f"bid{which}-{seat}", T(
                            "{player}'s bid card {which} must be one of the six suits (L, X, C, H, S, D); "
                            "it is “{value}”.", player=player, which=which, value=str(code)[:12])))

        errors += check_columns(self.columns(setup), facts)

        open_bid = facts.get("open_bid")
        if open_bid is not None:
            names = self.entrants(setup.players)
            if not _is_count(open_bid) or not 0 <= open_bid < k:
                errors.append(FieldError("open_bid", T("Open bid: “{value}” is not one of the teams.",
                                                       value=str(open_bid)[:12])))
            elif not progress.deals:
                errors.append(FieldError("open_bid", T("Open bid: nobody may open-bid on the first deal, when "
                                                       "every team is tied at 0.")))
            elif open_bid_eligible(progress.totals) != open_bid:
                lowest = min(progress.totals)
                points = progress.totals[open_bid]
                if points == lowest:
                    errors.append(FieldError("open_bid", Tn(
                        "Open bid: only a team alone in last place may open-bid; {team} shares last place "
                        "with {n} point.",
                        "Open bid: only a team alone in last place may open-bid; {team} shares last place "
                        "with {n} points.", points, team=names[open_bid])))
                else:
                    errors.append(FieldError("open_bid", Tn(
                        "Open bid: only a team alone in last place may open-bid; {team} has {n} point "
                        "and the lowest total is {lowest}.",
                        "Open bid: only a team alone in last place may open-bid; {team} has {n} points "
                        "and the lowest total is {lowest}.", points, team=names[open_bid],
                        lowest=lowest)))
        return errors

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        setup = progress.setup
        k = setup.n // 2
        names = self.entrants(setup.players)
        bids = [bid_value(*pair) for pair in facts["bids"]]
        tricks = list(facts["tricks"])
        open_bid = facts.get("open_bid")
        points = [0] * k
        lines: list[list[Line]] = [[] for _ in range(k)]
        notes: list[Text] = []
        open_failed = False
        for team in range(k):
            right, left = 2 * team, 2 * team + 1
            taken = tricks[right] + tricks[left]
            lines[team].append(Line(T("Trick points: {first} + {second} tricks",
                                      first=tricks[right], second=tricks[left]), taken))
            hits = 0
            for seat in (right, left):
                player = setup.players[seat]
                if tricks[seat] == bids[seat]:
                    hits += 1
                    lines[team].append(Line(T("Shoot bonus: {player} bid {bid} and took {tricks}",
                                              player=player, bid=bids[seat], tricks=tricks[seat]), SHOOT))
                else:
                    lines[team].append(Line(T("No Shoot bonus: {player} bid {bid} but took {tricks}",
                                              player=player, bid=bids[seat], tricks=tricks[seat]), 0))
            points[team] = taken + SHOOT * hits
            if hits == 2:
                points[team] += TWIN_SHOOT
                lines[team].append(Line(T("Twin Shoot bonus: both partners hit their bids"), TWIN_SHOOT))
            if team == open_bid:
                if hits == 2:
                    points[team] += OVERHEAD
                    lines[team].append(Line(T("Overhead Twin Shoot bonus: the open bid succeeded"), OVERHEAD))
                    notes.append(T("{team} made an Overhead Twin Shoot.", team=names[team]))
                else:
                    open_failed = True
                    lines[team].append(Line(T("Open bid failed: every other team scores {bonus}",
                                              bonus=OVERHEAD), 0))
                    notes.append(T("{team}'s open bid failed, so every other team scores {bonus}.",
                                   team=names[team], bonus=OVERHEAD))
            elif hits == 2:
                notes.append(T("{team} made a Twin Shoot.", team=names[team]))
        if open_failed:
            for team in range(k):
                if team != open_bid:
                    points[team] += OVERHEAD
                    lines[team].append(Line(T("+{bonus} from {team}'s failed open bid",
                                              bonus=OVERHEAD, team=names[open_bid]), OVERHEAD))
        return DealScore(tuple(points), tuple(tuple(team_lines) for team_lines in lines),
                         notes=tuple(notes))

    # ---- match flow
    def next_deal(self, progress: Progress) -> NextDeal:
        setup = progress.setup
        k = setup.n // 2
        names = self.entrants(setup.players)
        team, seat, side, direction = opening_leader(len(progress.deals), self.option(setup, "first_team"), k)
        partner = setup.players[seat + 1 if side == "right" else seat - 1]
        leader = setup.players[seat]
        if side == "right":
            lead_line = T("{leader}, right-side player of {team}, leads the first trick. Play goes clockwise, "
                          "so {partner} plays second.", leader=leader, team=names[team], partner=partner)
        else:
            lead_line = T("{leader}, left-side player of {team}, leads the first trick. Play goes "
                          "counter-clockwise, so {partner} plays second.", leader=leader, team=names[team],
                          partner=partner)
        lines = [T("Any player outside {team} deals {dealt} cards to each player.", team=names[team],
                   dealt=DEALT), lead_line]
        eligible = open_bid_eligible(progress.totals) if progress.deals else None
        if eligible is None:
            lines.append(T("No team is alone in last place, so nobody may open-bid this deal."))
        else:
            lines.append(T("{team} is alone in last place and may open-bid this deal.", team=names[eligible]))
        return NextDeal(number=len(progress.deals) + 1, dealer=None, leader=seat, lines=tuple(lines),
                        detail=Lead(team, seat, side, direction))

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        # ``finished`` is ignored: the source ends the match only at 100 points.
        totals = progress.totals
        names = self.entrants(progress.setup.players)
        top = max(totals)
        if not progress.deals or top < TARGET:
            return Outcome(False, message=T("The match ends after a deal in which a team reaches {target} points.",
                                            target=TARGET))
        winners = best(totals)
        if len(winners) == 1:
            # A team is two people: "Ann & Bob win", as the match result says it.
            message = Tn("{team} win with {n} point.", "{team} win with {n} points.", top,
                         team=names[winners[0]])
        else:
            message = Tn("{names} share the win with {n} point each.",
                         "{names} share the win with {n} points each.", top,
                         names=join_names([names[w] for w in winners]))
        return Outcome(True, winners, message, rulings=("match_end",))


    def stakes(self, progress: Progress, outcome: Outcome) -> Stakes:
        """The race to 100, and who may open-bid the next deal (only a team alone in last place)."""
        lines: tuple[Text, ...] = ()
        if not outcome.over:
            names = self.entrants(progress.setup.players)
            eligible = self.open_bid_team(progress)
            lines = (T("No team is alone in last place, so nobody may open-bid this deal.")
                     if eligible is None else
                     T("{team} is alone in last place and may open-bid this deal.", team=names[eligible]),)
        return race_stakes(TARGET, progress.totals, self.entrants(progress.setup.players), outcome, lines)

    def rematch_options(self, match: Match) -> dict[str, int]:
        """The opening lead keeps moving clockwise team by team: the rematch's first deal is led
        by the team after the last deal's (from its right side: a new match's first cycle)."""
        options = dict(match.setup.options)
        options["first_team"] = (self.option(match.setup, "first_team") + len(match.deals)) \
            % (match.setup.n // 2)
        return options


GAME = TwinShoot()


# ==========================================================================
# Calculators and helpers (the game page): pure functions over form fields, see calculators.Calculator

from typing import Mapping  # noqa: E402

from .calculators import CalcResult, Calculator, seat_names, team_names  # noqa: E402
from .forms import card_codes, entered, read_seat  # noqa: E402
from .model import MatchSetup  # noqa: E402
from .cards import SUIT_NAMES  # noqa: E402


def _bid_suits(bid: int) -> list[str]:
    """Two suits whose values add up to ``bid`` (0..10), for a dummy record."""
    by_value = {v: s for s, v in BID_VALUES.items()}
    first = min(bid, 5)
    return [by_value[first], by_value[bid - first]]


def calc_bid(form: Mapping[str, str], n: int) -> CalcResult:
    """The bid two face-down cards' suits make."""
    result = CalcResult(prompt=T("Tap the suits of the two bid cards."))
    first, second = form.get("1", "").strip(), form.get("2", "").strip()
    if not (first or second):
        return result
    if not (first and second):
        return result.fail(T("Tap the suit of the other bid card too."))
    try:
        bid = decode_bid([first, second])
    except TwinShootError as error:
        return result.fail(error.message)
    result.empty = False
    names = [SUIT_NAMES[_suit_code(code)] for code in (first, second)]
    values = [BID_VALUES[_suit_code(code)] for code in (first, second)]
    result.headline = Tn("Bid: {n} trick", "Bid: {n} tricks", bid)
    result.items.append(T("{first} ({a}) + {second} ({b}) = {bid}", first=names[0], a=values[0],
                          second=names[1], b=values[1], bid=bid))
    return result


def calc_team_score(form: Mapping[str, str], n: int) -> CalcResult:
    """A team's score for a deal from both partners' bids and tricks."""
    result = CalcResult(prompt=T("Enter both partners' bids and tricks to see the team's score."))
    if not entered(form, "open"):
        return result
    errors: list[FieldError] = []
    bids = [read_int(form, f"bid{i}", 0, TRICKS, T("Bid of partner {i}", i=i), errors)
            for i in (1, 2)]
    tricks = [read_int(form, f"tricks{i}", 0, TRICKS, T("Tricks of partner {i}", i=i), errors)
              for i in (1, 2)]
    if not errors and sum(tricks) > TRICKS:  # type: ignore[arg-type]
        errors.append(FieldError("tricks2", T("The partners took {sum} in all, but a deal has only "
                                              "{total} tricks.", sum=sum(tricks), total=TRICKS)))  # type: ignore[arg-type]
    if errors:
        return result.refuse(errors)
    open_bid = form.get("open", "") in ("1", "on", "yes")
    # Score the team against a dummy team that took the remaining tricks.
    partners = (T("Partner {n}", n=1), T("Partner {n}", n=2))
    setup = MatchSetup(GAME.id, partners + (T("Opponent"), T("Opponent")))  # type: ignore[arg-type]
    progress = Progress(setup, (), (0, 0))
    facts = {"bids": [_bid_suits(bids[0]), _bid_suits(bids[1]), ["D", "D"], ["D", "D"]],  # type: ignore[arg-type]
             "tricks": [tricks[0], tricks[1], TRICKS - sum(tricks), 0],  # type: ignore[arg-type]
             "open_bid": 0 if open_bid else None}
    score = GAME.score_deal(progress, facts)
    result.empty = False
    if open_bid and bids != tricks:
        # The failed open bid's +30 goes to every other team: say so beside the team's own score.
        result.headline = T("The team scores {points}; every other team scores +{bonus}.",
                            points=score.points[0], bonus=OVERHEAD)
    else:
        result.headline = T("The team scores {points}.", points=score.points[0])
    result.groups.append((T("Breakdown"), score.breakdown[0]))
    return result


def helper_trick(form: Mapping[str, str], n: int) -> CalcResult:
    """Who wins a trick, and whether it was followed by suit or by rank."""
    result = CalcResult(prompt=T("Choose the leader and type the cards in play order, the lead "
                                 "first (for example QL 9L QC 8X)."))
    if not entered(form, "leader"):
        return result
    result.empty = False
    players = seat_names(n)
    errors: list[FieldError] = []
    form = {**form, "leader": form.get("leader", "").strip() or "0"}
    leader = read_seat(form, "leader", n, T("Leader"), errors)
    if errors:
        return result.refuse(errors)
    cards = card_codes(form.get("cards", ""))
    try:
        trick = resolve_trick(leader, cards, n)  # type: ignore[arg-type]
    except TwinShootError as error:
        return result.fail(error.message)
    result.headline = T("{player} wins the trick with {card}.", player=players[trick.winner],
                        card=cards[trick.winning_index].upper())
    if trick.direction == "clockwise":
        result.items.append(T("Play goes clockwise (the leader is a right-side player)."))
    else:
        result.items.append(T("Play goes counter-clockwise (the leader is a left-side player)."))
    for i, (seat, code) in enumerate(zip(trick.seats, cards)):
        if i == 0:
            text = T("{player} leads {card}.", player=players[seat], card=code.upper())
        elif i == trick.follow_index and trick.follow == "suit":
            text = T("{player} plays {card}: follows by suit, so everyone after must follow the "
                     "suit if they can.", player=players[seat], card=code.upper())
        elif i == trick.follow_index and trick.follow == "rank":
            text = T("{player} plays {card}: follows by rank, so everyone after must follow the "
                     "rank if they can.", player=players[seat], card=code.upper())
        else:
            text = T("{player} plays {card}.", player=players[seat], card=code.upper())
        result.items.append(text)
    if trick.follow is None:
        result.notes.append(T("Nobody matched the lead's suit or rank, so the leader wins. That is "
                              "legal only if nobody could match it."))
    elif trick.follow == "suit":
        result.notes.append(T("Followed by suit: the highest card of the lead's suit wins."))
    else:
        result.notes.append(T("Followed by rank: of the cards of the lead's rank, the strongest "
                              "suit wins (Leaf, Cross, Club, Heart, Spade, Diamond)."))
    return result


def helper_leader(form: Mapping[str, str], n: int) -> CalcResult:
    """Who leads deal k, from the team that led the first deal."""
    result = CalcResult(prompt=T("Enter the deal number and the team that led the first deal."))
    if not form.get("deal", "").strip():
        return result
    k = n // 2
    teams = team_names(GAME.seating(n))
    errors: list[FieldError] = []
    form = {**form, "first": form.get("first", "").strip() or "0"}
    deal = read_int(form, "deal", 1, 999, T("Deal number"), errors)
    first = read_int(form, "first", 0, k - 1, T("Team that led the first deal"), errors)
    if errors:
        return result.refuse(errors)
    team, seat, side, _direction = opening_leader(deal - 1, first, k)  # type: ignore[operator, arg-type]
    players = seat_names(n)
    result.empty = False
    if side == "right":
        result.headline = T("Deal {d}: {player}, the right-side player of {team}, leads. Play goes "
                            "clockwise.", d=deal, player=players[seat], team=teams[team])
    else:
        result.headline = T("Deal {d}: {player}, the left-side player of {team}, leads. Play goes "
                            "counter-clockwise.", d=deal, player=players[seat], team=teams[team])
    result.items.append(T("Anyone outside {team} deals.", team=teams[team]))
    return result


GAME.calculators = (Calculator("tb", calc_bid), Calculator("ts", calc_team_score),
                    Calculator("tl", helper_leader, kind="helper"),
                    Calculator("tt", helper_trick, kind="helper"))
