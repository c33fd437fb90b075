"""Lucky Cube, ラッキー・キューブ: six tricks a deal, and one lucky die to fight over.

Leading trick *k* and losing it hands you the die, set to *k*. Whoever holds the
die after the sixth trick collects that many chips from the winner of the last
trick. Chips are the score: everyone starts with 15, and they only ever move
from one player to another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .contract import AT_TIME, Figure, Game, Option, Ruling, best, names
from .forms import Form, is_blank, read_int, read_seat
from .model import DealScore, Facts, FieldError, Line, Match, MatchSetup, NextDeal, Outcome, Progress, Stakes
from .text import T, Text, Tn, join_names

TRICKS = 6
SUMMARY_FIELDS = ("die_holder", "die_number", "last_trick")  # the summary way of entering a deal
START_CHIPS = 15
HIGH_WATER = 30  # holding this many chips ends the match (ruling "thirty_held")
DEALS_PER_PLAYER = 3  # the match lasts at most N × 3 deals

# Per player count: (ranks removed, deck size, lowest rank kept, cards set aside).
DECKS: dict[int, tuple[Text, int, str, int]] = {
    3: (T("2–8"), 24, "9", 6),
    4: (T("2–7"), 28, "8", 4),
    5: (T("2–6"), 32, "7", 2),
}


# --------------------------------------------------------------------------
# In-game helper: follow the die trick by trick


@dataclass(frozen=True)
class TrickStep:
    """One played trick and where the die stands after it."""

    number: int  # 1..6
    leader: int  # seat that led this trick
    winner: int  # seat that won it (and leads the next)
    die_holder: int | None  # after this trick; None while the die is still in the middle
    die_number: int | None  # the number showing; None while nobody holds it (it shows 1)


@dataclass(frozen=True)
class Payment:
    payer: int  # the last-trick winner
    payee: int  # the die holder
    amount: int  # chips that change hands (capped at what the payer has, when chips are given)
    owed: int  # the number on the die


@dataclass(frozen=True)
class Tracker:
    """The state of a deal after the tricks tapped so far (0..6 of them)."""

    steps: tuple[TrickStep, ...]
    die_holder: int | None
    die_number: int | None
    next_leader: int | None  # who leads the next trick; None once all six are played
    complete: bool
    last_trick_winner: int | None  # None until the sixth trick is played
    payment: Payment | None  # None until complete, and when nobody took the die (a draw)


def capped_payment(owed: int, payer_chips: int) -> int:
    """Chips actually handed over: all the payer has when short (ruling "payment_cap")."""
    return max(0, min(owed, payer_chips))


def track(trick_winners: Sequence[int], opening_leader: int, n: int,
          chips: Sequence[int] | None = None) -> Tracker:
    """Replay the tricks tapped so far and say where the die is.

    ``trick_winners`` are the seats that won tricks 1, 2, ... (0 to 6 of them);
    ``opening_leader`` is the seat left of the dealer. Give ``chips`` (each
    seat's chips before the deal) to cap the payment at what the payer has.
    Raises ValueError for a seat outside 0..n-1 or more than six tricks.
    """
    if not 3 <= n <= 5:
        raise ValueError(f"Lucky Cube is for 3 to 5 players, not {n}")
    if len(trick_winners) > TRICKS:
        raise ValueError(f"a deal has {TRICKS} tricks, {len(trick_winners)} given")
    for seat in [opening_leader, *trick_winners]:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"{seat!r} is not a seat of a {n}-player table")
    holder: int | None = None
    number: int | None = None
    leader = opening_leader
    steps = []
    for trick, winner in enumerate(trick_winners, start=1):
        if winner != leader:  # the leader lost their own trick: the die comes to them
            holder, number = leader, trick
        steps.append(TrickStep(trick, leader, winner, holder, number))
        leader = winner
    complete = len(trick_winners) == TRICKS
    last = trick_winners[-1] if complete else None
    payment = None
    if complete and holder is not None and number is not None and last is not None:
        amount = number if chips is None else capped_payment(number, chips[last])
        payment = Payment(last, holder, amount, number)
    return Tracker(tuple(steps), holder, number, None if complete else leader, complete,
                   last, payment)


def summary_of(tracker: Tracker) -> Facts:
    """The summary facts (die holder, number, last-trick winner) of a complete deal."""
    if not tracker.complete:
        raise ValueError("the deal is not finished")
    return {"die_holder": tracker.die_holder, "die_number": tracker.die_number,
            "last_trick": tracker.last_trick_winner}


# --------------------------------------------------------------------------
# Rules as data

RULINGS = (
    Ruling("thirty_held", T("“30 points or more”"),
           T("The source could mean points held or points gained. Table ruling: the match "
             "ends after a deal in which a player holds chips worth 30 or more (double the "
             "starting 15).")),
    Ruling("payment_cap", T("A payment bigger than the payer's chips"),
           T("The source is silent. Table ruling: the payer hands over all the chips they "
             "have (never fewer than 0); they have then lost all their chips, so the match "
             "ends.")),
    Ruling(AT_TIME, T("Ended at time"),
           T("The source does not say how a match ends when a meetup's time is up before a "
             "player runs out of chips, reaches 30 or the last deal is played. Table ruling: the "
             "match ends with the deals played; the most points (chips held) wins; players tied "
             "for the most share the win.")),
    Ruling("tie_shared", T("Tied for the most points"),
           T("The source is silent. Table ruling: players tied for the most points at the "
             "end share the win.")),
)


def _is_seat(value: Any, n: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n


class LuckyCube(Game):
    id = "lucky_cube"
    order = 3
    name_en = "Lucky Cube"
    name_ja = "ラッキー・キューブ"
    players = (3, 4, 5)
    credit = T("Designer not named in the source.")
    source = "002_2f2cfd8cdd834b07.txt"
    summary = T("Six tricks a deal, no trumps: lead a trick and lose it to take the die, which "
                "then shows that trick's number. Whoever holds the die at the end collects "
                "that many chips from the winner of the last trick.")
    components = (
        T("One standard deck without jokers, with the low ranks removed"),
        T("One six-sided die"),
        T("Chips: 15 points' worth per player"),
        T("A dealer marker (optional)"),
    )
    rulings = RULINGS
    fact_labels = {"die_holder": T("Die holder"), "die_number": T("Die number"),
                   "last_trick": T("Last trick"), "trick_winners": T("Trick winners")}
    seat_facts = frozenset({"die_holder", "last_trick", "trick_winners"})
    options = (Option("first_dealer", T("Dealer of the first deal"), "seat"),)

    # ---- setup
    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        if n not in DECKS:
            raise ValueError(f"Lucky Cube is for 3 to 5 players, not {n}")
        removed, deck, _lowest, aside = DECKS[n]
        return (
            Figure("removed", T("Ranks removed from every suit"), removed),
            Figure("deck", T("Cards in the deck"), deck),
            Figure("dealt", T("Cards dealt to each player"), TRICKS),
            Figure("aside", T("Cards set aside face down"), aside),
            Figure("tricks", T("Tricks per deal"), TRICKS),
            Figure("chips", T("Starting chips per player, in points' worth"), START_CHIPS),
            Figure("deals", T("Most deals in a match"), n * DEALS_PER_PLAYER),
        )

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        figures = {f.key: f.value for f in self.setup_figures(n)}
        return (
            T("Put the jokers away and take out the {removed} of every suit: {deck} cards "
              "remain, from A down to {lowest}.", removed=figures["removed"],
              deck=figures["deck"], lowest=DECKS[n][2]),
            T("First deal only: give every player chips worth {start} points.",
              start=figures["chips"]),
            T("Turn the die to 1 and set it in the middle of the table."),
            T("Every deal, the dealer gathers all the cards, shuffles them and gives each "
              "player {dealt} cards; the other {aside} go face down at the side, out of play.",
              dealt=figures["dealt"], aside=figures["aside"]),
            T("The player on the dealer's left leads the first trick (put the dealer marker "
              "in front of them if you use one)."),
            T("If you use the dealer marker, move it in front of each new leader during play."),
        )

    def start_totals(self, setup: MatchSetup) -> tuple[int, ...]:
        return (START_CHIPS,) * setup.n

    # ---- one deal
    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        n = progress.setup.n
        errors: list[FieldError] = []
        trick_fields = [f"trick-{k}" for k in range(1, TRICKS + 1)]
        if any(str(form.get(name) or "").strip() for name in trick_fields):
            winners = [read_seat(form, name, n, T("Winner of trick {k}", k=k), errors)
                       for k, name in enumerate(trick_fields, start=1)]
            if any(not is_blank(form, key) for key in SUMMARY_FIELDS):
                errors.extend(self._compare_modes(form, progress, winners))
            return {"trick_winners": winners}, errors
        holder = read_seat(form, "die_holder", n, T("Die holder"), errors, allow_none=True)
        holder_raw = str(form.get("die_holder") or "").strip().lower()
        number = None
        if holder_raw != "none":  # with nobody holding the die its number is ignored
            number = read_int(form, "die_number", 1, TRICKS, T("Number on the die"), errors)
        last = read_seat(form, "last_trick", n, T("Winner of the last trick"), errors)
        return {"die_holder": holder, "die_number": number, "last_trick": last}, errors

    def _compare_modes(self, form: Form, progress: Progress,
                       winners: Sequence[int | None]) -> list[FieldError]:
        """Both ways of entering a deal are filled in: they must tell one story, or the phone
        says so (the tracker must never silently win over a summary that disagrees)."""
        n, players = progress.setup.n, progress.setup.players
        if any(seat is None for seat in winners):
            return [FieldError("trick_winners", T(
                "The summary is filled in, and some tricks are tapped too: tap the rest of the "
                "tricks or clear them, so only one story is saved."))]
        derived = summary_of(track(list(winners), self.next_deal(progress).leader, n))  # type: ignore[arg-type]
        quiet: list[FieldError] = []
        given = {"die_holder": read_seat(form, "die_holder", n, T("Die holder"), quiet, allow_none=True),
                 "die_number": read_int(form, "die_number", 1, TRICKS, T("Number on the die"), quiet),
                 "last_trick": read_seat(form, "last_trick", n, T("Winner of the last trick"), quiet)}
        if str(form.get("die_holder") or "").strip().lower() == "none":
            given["die_number"] = None  # nobody holds the die: its number is ignored
        differ = [key for key in SUMMARY_FIELDS if not is_blank(form, key) and given[key] != derived[key]]
        if not differ:
            return []
        last = players[derived["last_trick"]]
        if derived["die_holder"] is None:
            story = T("by the tricks tapped, nobody took the die and {last} won the last trick",
                      last=last)
        else:
            story = T("by the tricks tapped, {holder} holds the die showing {number} and {last} "
                      "won the last trick", holder=players[derived["die_holder"]],
                      number=derived["die_number"], last=last)
        return [FieldError("trick_winners", T(
            "The tricks and the summary disagree: {story}. Correct one of them, or clear the "
            "summary.", story=story))]

    def form_values(self, facts: Facts) -> dict[str, str]:
        if "trick_winners" in facts:
            return {f"trick-{k}": str(seat) for k, seat in enumerate(facts["trick_winners"], start=1)}
        holder = facts.get("die_holder")
        return {"die_holder": "none" if holder is None else str(holder),
                "die_number": "" if facts.get("die_number") is None else str(facts["die_number"]),
                "last_trick": str(facts.get("last_trick", ""))}

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        if self.outcome(progress, False).over:
            return [FieldError("deal", T("The match is over; no more deals can be added."))]
        if not isinstance(facts, Mapping):
            return [FieldError("deal", T("This deal's record is unreadable."))]
        n = progress.setup.n
        opener = self.next_deal(progress).leader
        if "trick_winners" in facts:
            return self._check_tracker(facts, n, opener)
        return self._check_summary(progress, facts, n, opener)

    def _check_tracker(self, facts: Facts, n: int, opener: int | None) -> list[FieldError]:
        winners = facts["trick_winners"]
        if not isinstance(winners, list) or len(winners) != TRICKS:
            return [FieldError("trick_winners", T("Enter the winner of each of the {tricks} "
                                                  "tricks.", tricks=TRICKS))]
        errors = [FieldError(f"trick-{k}", T("Winner of trick {k}: choose one of the players.",
                                             k=k))
                  for k, seat in enumerate(winners, start=1) if not _is_seat(seat, n)]
        if errors or opener is None:
            return errors
        # A record holding both forms must tell one story.
        derived = summary_of(track(winners, opener, n))
        for key in ("die_holder", "die_number", "last_trick"):
            if key in facts and facts[key] != derived[key]:
                errors.append(FieldError(key, T("The trick winners and the summary disagree.")))
                break
        return errors

    def _check_summary(self, progress: Progress, facts: Facts, n: int,
                       opener: int | None) -> list[FieldError]:
        players = progress.setup.players
        holder = facts.get("die_holder")
        number = facts.get("die_number")
        last = facts.get("last_trick")
        errors = []
        if holder is not None and not _is_seat(holder, n):
            errors.append(FieldError("die_holder", T("Die holder: choose one of the players, "
                                                     "or nobody.")))
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)
                                   or not 1 <= number <= TRICKS):
            errors.append(FieldError("die_number", T("The number on the die must be from 1 "
                                                     "to {tricks}; it is {value}.",
                                                     tricks=TRICKS, value=str(number)[:12])))
        if not _is_seat(last, n):
            errors.append(FieldError("last_trick", T("Winner of the last trick: choose one of "
                                                     "the players.")))
        if errors:
            return errors
        if holder is None and number is not None:
            errors.append(FieldError("die_number", T("Nobody holds the die, so leave its number "
                                                     "blank; it is {value}.", value=number)))
        if holder is not None and number is None:
            errors.append(FieldError("die_number", T("{holder} holds the die: enter the number "
                                                     "it shows.", holder=players[holder])))
        if holder is not None and holder == last:
            errors.append(FieldError("last_trick", T(
                "The die holder can never have won the last trick, but {player} is entered "
                "as both.", player=players[holder])))
        if opener is not None and holder is None and last != opener:
            errors.append(FieldError("last_trick", T(
                "Nobody takes the die only when the opening leader, {leader}, wins all six "
                "tricks; the last trick is entered as won by {player}.",
                leader=players[opener], player=players[last])))
        if opener is not None and holder is not None and number == 1 and holder != opener:
            # Only the opening leader leads trick 1, so only they can take the die at 1.
            errors.append(FieldError("die_holder", T(
                "A die showing 1 was taken on the first trick, so it must be with the opening "
                "leader, {leader}; it is entered as with {player}.",
                leader=players[opener], player=players[holder])))
        return errors

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        n = progress.setup.n
        players = progress.setup.players
        if "trick_winners" in facts:
            opener = (self.next_deal(progress).dealer or 0) + 1
            facts = summary_of(track(facts["trick_winners"], opener % n, n))
        holder, number, last = facts["die_holder"], facts.get("die_number"), facts["last_trick"]
        if holder is None or number is None:
            draw = T("Nobody took the die: a draw.")
            return DealScore((0,) * n, tuple((Line(draw, 0),) for _ in range(n)), (), (draw,))
        amount = capped_payment(number, progress.totals[last])
        points = [0] * n
        points[holder] += amount
        points[last] -= amount
        breakdown: list[tuple[Line, ...]] = [(Line(T("Neither held the die nor won the last "
                                                     "trick."), 0),) for _ in range(n)]
        breakdown[holder] = (Line(T("Holds the die showing {number}: collects {amount} from "
                                    "{payer}.", number=number, amount=amount,
                                    payer=players[last]), amount),)
        rulings: tuple[str, ...] = ()
        if amount < number:
            rulings = ("payment_cap",)
            breakdown[last] = (Line(T("Won the last trick: owes {owed} to {holder} but has only "
                                      "{amount}, and hands it all over.", owed=number,
                                      holder=players[holder], amount=amount), -amount),)
        else:
            breakdown[last] = (Line(T("Won the last trick: pays {amount} to {holder}.",
                                      amount=amount, holder=players[holder]), -amount),)
        return DealScore(tuple(points), tuple(breakdown), (holder,), (), rulings)

    # ---- match flow
    def tracker_from_form(self, form: Form, progress: Progress) -> Tracker | None:
        """The die so far from the trick winners tapped in order (trick-1, trick-2, ...),
        for showing the state mid-deal; None when nothing usable is tapped yet."""
        n = progress.setup.n
        winners = []
        for k in range(1, TRICKS + 1):
            raw = str(form.get(f"trick-{k}", "")).strip()
            # Length first: int() refuses strings of more than 4300 digits with a ValueError.
            if not (raw.isascii() and raw.isdigit()) or len(raw) > 6 or int(raw) >= n:
                break
            winners.append(int(raw))
        if not winners:
            return None
        leader = self.next_deal(progress).leader
        return track(winners, leader, n, chips=progress.totals)

    def next_deal(self, progress: Progress) -> NextDeal:
        n = progress.setup.n
        number = len(progress.deals) + 1
        dealer = (self.option(progress.setup, "first_dealer") + number - 1) % n
        leader = (dealer + 1) % n
        players = progress.setup.players
        return NextDeal(number, dealer, leader, (
            T("{dealer} gathers all the cards, shuffles and deals. {leader} leads the first "
              "trick.", dealer=players[dealer], leader=players[leader]),
            T("Set the die to 1 in the middle of the table."),
        ))

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        setup, totals = progress.setup, progress.totals
        limit = setup.n * DEALS_PER_PLAYER
        played = len(progress.deals)
        broke = [s for s in range(setup.n) if totals[s] <= 0]
        rich = [s for s in range(setup.n) if totals[s] >= HIGH_WATER]
        rulings: list[str] = []
        if broke:
            reason = T("{names} lost all their chips.", names=names(setup, broke))
            if progress.deals and "payment_cap" in progress.deals[-1].score.rulings:
                rulings.append("payment_cap")
        elif rich:
            reason = T("{names} reached {target} points or more.", names=names(setup, rich),
                       target=HIGH_WATER)
            rulings.append("thirty_held")
        elif played >= limit:
            reason = T("All {limit} deals have been played.", limit=limit)
        else:
            return Outcome(False, message=T("{played} of at most {limit} deals played.",
                                            played=played, limit=limit))
        winners = best(totals)
        if len(winners) > 1:
            rulings.append("tie_shared")
            result = Tn("{names} share the win with {n} point each.",
                        "{names} share the win with {n} points each.", totals[winners[0]],
                        names=names(setup, winners))
        else:
            result = Tn("{name} wins with {n} point.", "{name} wins with {n} points.",
                        totals[winners[0]], name=setup.players[winners[0]])
        return Outcome(True, winners, T("{reason} {result}", reason=reason, result=result),
                       tuple(rulings))


    def stakes(self, progress: Progress, outcome: Outcome) -> Stakes:
        """How many of the N × 3 deals are played, and the two chip limits that end it sooner."""
        limit = progress.setup.n * DEALS_PER_PLAYER
        played = len(progress.deals)
        chips = T("Chips")  # the totals are the chips each player holds
        if outcome.over:
            return Stakes(Tn("{n} deal played of at most {limit} · ends at 0 or {high} chips",
                             "{n} deals played of at most {limit} · ends at 0 or {high} chips",
                             played, limit=limit, high=HIGH_WATER), total_label=chips, counts_deals=True)
        # A deal moves at most 6 chips (the die's highest number): say who one deal can take to
        # 0 or to 30, so the table sees the end coming, not only the deal count.
        players, totals = progress.setup.players, progress.totals
        near = [s for s in range(progress.setup.n)
                if totals[s] <= TRICKS or totals[s] >= HIGH_WATER - TRICKS]
        lines = ()
        if near:
            # (Built apart: the catalog's extractor misses a message nested in another's call.)
            holdings = [Tn("{name} has {n} chip", "{name} has {n} chips", totals[s], name=players[s])
                        for s in near]
            lines = (T("This deal can end the match: {names}.", names=join_names(holdings)),)
        return Stakes(T("Deal {number} of at most {limit} · ends at 0 or {high} chips",
                        number=played + 1, limit=limit, high=HIGH_WATER), lines=lines, total_label=chips)

    def rematch_options(self, match: Match) -> dict[str, int]:
        """The deal keeps passing left: the rematch's first dealer is the one after the last."""
        options = dict(match.setup.options)
        options["first_dealer"] = (self.option(match.setup, "first_dealer") + len(match.deals)) \
            % match.setup.n
        return options


GAME = LuckyCube()


# ==========================================================================
# Calculators (the game page): pure functions over form fields, see calculators.Calculator

from .calculators import CalcResult, Calculator, seat_names  # noqa: E402
from .forms import entered  # noqa: E402


def calc_payment(form: Mapping[str, str], n: int) -> CalcResult:
    """The chips paid at the end of a deal: who holds the die, its number, who won the last trick."""
    result = CalcResult(prompt=T("Choose who holds the die, its number and who won the last trick."))
    if not entered(form):
        return result
    players = seat_names(n)
    errors: list[FieldError] = []
    raw_holder = form.get("holder", "").strip().lower()
    holder = read_seat(form, "holder", n, T("Die holder"), errors, allow_none=True)
    number = None
    if raw_holder != "none":
        number = read_int(form, "number", 1, TRICKS, T("Number on the die"), errors)
    last = read_seat(form, "last", n, T("Winner of the last trick"), errors)
    chips = read_int(form, "chips", 0, 99, T("Chips the last-trick winner has"), errors, required=False)
    if errors:
        return result.refuse(errors)
    facts = {"die_holder": holder, "die_number": number, "last_trick": last}
    setup = MatchSetup(GAME.id, players)  # type: ignore[arg-type]
    totals = tuple(99 if chips is None else chips for _ in players)
    progress = Progress(setup, (), totals)
    # The opening leader is unknown here, so only the checks that do not need it apply.
    problems = GAME._check_summary(progress, facts, n, None)
    if problems:
        field_of = {"die_holder": "holder", "die_number": "number", "last_trick": "last"}
        return result.refuse([FieldError(field_of.get(p.field, p.field), p.message)
                              for p in problems])
    score = GAME.score_deal(progress, facts)
    result.empty = False
    if holder is None:
        result.headline = T("Nobody took the die: a draw, no chips change hands.")
        return result
    amount = score.points[holder]
    result.headline = Tn("{payer} pays {n} chip to {holder}.", "{payer} pays {n} chips to {holder}.",
                         amount, payer=players[last], holder=players[holder])
    result.items.extend(line.label for line in score.breakdown[last] + score.breakdown[holder])
    result.rulings.extend(score.rulings)
    return result


def calc_tracker(form: Mapping[str, str], n: int) -> CalcResult:
    """Where the die goes, trick by trick, and the payment once all six are in."""
    result = CalcResult(prompt=T("Choose who leads the first trick, then tap the winner of each "
                                 "trick as it is played."))
    if not entered(form, "lead"):
        return result
    players = seat_names(n)
    errors: list[FieldError] = []
    form = {**form, "lead": form.get("lead", "").strip() or "0"}
    opener = read_seat(form, "lead", n, T("Leader of the first trick"), errors)
    winners: list[int] = []
    gap = None
    for k in range(1, TRICKS + 1):
        if not form.get(str(k), "").strip():
            gap = gap or k
            continue
        seat = read_seat(form, str(k), n, T("Winner of trick {k}", k=k), errors)
        if seat is not None:
            if gap is not None:
                errors.append(FieldError(str(gap), T("Tap the winner of trick {k} first.", k=gap)))
                break
            winners.append(seat)
    if errors:
        return result.refuse(errors)
    tracker = track(winners, opener, n)  # type: ignore[arg-type]
    result.empty = False
    for step in tracker.steps:
        if step.winner != step.leader:
            line = T("Trick {k}: {leader} led and lost to {winner}, so {leader} takes the die "
                     "showing {k}.", k=step.number, leader=players[step.leader],
                     winner=players[step.winner])
        else:
            line = T("Trick {k}: {leader} led and won it; the die stays where it is.",
                     k=step.number, leader=players[step.leader])
        result.items.append(line)
    if tracker.die_holder is None:
        where = T("The die is still in the middle, showing 1.")
    else:
        where = T("{holder} has the die, showing {number}.", holder=players[tracker.die_holder],
                  number=tracker.die_number)
    if tracker.complete:
        if tracker.payment is None:
            result.headline = T("Nobody took the die: a draw, no chips change hands.")
        else:
            p = tracker.payment
            result.headline = Tn("{payer} won the last trick and pays {n} chip to {holder}.",
                                 "{payer} won the last trick and pays {n} chips to {holder}.",
                                 p.amount, payer=players[p.payer], holder=players[p.payee])
        result.notes.append(where)
    else:
        result.headline = where
        result.notes.append(T("{leader} leads trick {k}.", leader=players[tracker.next_leader],
                              k=len(winners) + 1))
    return result


GAME.calculators = (Calculator("lp", calc_payment), Calculator("lt", calc_tracker))
