"""Per-game pages: /games/<id> (setup checklist, reference card, calculators, helpers).

Every calculator and helper is a plain GET form whose result has a shareable URL
and works without JavaScript. With htmx the same view answers with only the
result box (``HX-Request``), as in Hypermedia Systems' Contact.app: the form's
``hx-get`` points at ``/games/<id>/calc/<name>`` and the view renders either the
whole page or just that calculator's result.

Field names carry a per-calculator prefix (``pq-7``, ``rd-chips-0`` ...) so the
forms stay independent. Nothing here is stored: the rules engine does the work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from flask import Blueprint, abort, render_template, request
from flask_babel import gettext

from ..games import GAMES, Game
from ..games import lucky_cube, miraiscope, pair_quad, rwd, twin_shoot
from ..games.base import FieldError, Line, MatchSetup, Progress, read_int, read_seat
from ..games.cards import SUIT_NAMES, CardError, parse_card
from ..games.text import T, Text

bp = Blueprint("games", __name__, url_prefix="/games")

MAX_FIELD = 64  # longest value any field here needs ("10S 10H 10D 10C 10L" and so on)


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


# --------------------------------------------------------------------------
# A calculator's answer, rendered by templates/games/_calc_result.html


@dataclass
class Result:
    empty: bool = True  # nothing entered yet: show the prompt
    prompt: str | None = None
    errors: list[Any] = field(default_factory=list)  # Text or str, shown in the result box
    field_errors: dict[str, list[Any]] = field(default_factory=dict)  # next to the inputs
    headline: Any = None  # the answer in one line
    groups: list[tuple[Any, tuple[Line, ...]]] = field(default_factory=list)  # (title, lines)
    items: list[Any] = field(default_factory=list)  # plain sentences, in order
    notes: list[Any] = field(default_factory=list)
    rulings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    def refuse(self, errors: list[FieldError], prefix: str = "") -> "Result":
        self.empty = False
        for error in errors:
            self.errors.append(error.message)
            self.field_errors.setdefault(prefix + error.field, []).append(error.message)
        return self


def seat_names(n: int) -> tuple[str, ...]:
    return tuple(gettext("Player %(n)s", n=i + 1) for i in range(n))


def team_names(k: int) -> tuple[str, ...]:
    return tuple(gettext("Team %(n)s (players %(a)s and %(b)s)", n=t + 1, a=2 * t + 1, b=2 * t + 2)
                 for t in range(k))


def prefixed(args: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The fields of one calculator, without its prefix, values trimmed to a sane length."""
    return {key[len(prefix):]: (value or "")[:MAX_FIELD] for key, value in args.items()
            if key.startswith(prefix)}


def entered(form: Mapping[str, str]) -> bool:
    return any(str(v).strip() for v in form.values())


def run_deal(game: Game, players: tuple[str, ...], form: Mapping[str, str], prefix: str,
             result: Result, check: Callable | None = None):
    """parse_deal, check_deal and score_deal of a one-deal dummy match, or None when refused."""
    setup = MatchSetup(game.id, players)
    progress = game.start(setup)
    facts, errors = game.parse_deal(form, progress)
    if not errors:
        errors = check(progress, facts) if check else game.check_deal(progress, facts)
    if errors:
        result.refuse(errors, prefix)
        return None
    result.empty = False
    return game.score_deal(progress, facts)


# --------------------------------------------------------------------------
# Calculators and helpers, one function each: (args, n) -> Result


def calc_pair_quad(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "pq-")
    result = Result(prompt=gettext("Tap + for each card of a rank you captured; the score appears here."))
    if not entered(form):
        return result
    errors: list[FieldError] = []
    counts: dict[str, int] = {}
    for key in pair_quad.KEYS:
        hi = pair_quad.OTHER_CARDS if key == pair_quad.OTHER else pair_quad.PER_RANK
        label = T("Other cards") if key == pair_quad.OTHER else T("Cards of rank {rank}", rank=key)
        value = read_int(form, key, 0, hi, label, errors, required=False)
        counts[key] = value or 0
    if not errors and sum(counts.values()) > pair_quad.DECK_SIZE:
        errors.append(FieldError("other", T("That is more than the {deck} cards of the deck.",
                                            deck=pair_quad.DECK_SIZE)))
    if errors:
        return result.refuse(errors, "pq-")
    total, lines = pair_quad.score_captured(counts)
    result.empty = False
    result.headline = gettext("Score: %(points)s", points=pair_quad.signed(total))
    result.groups.append((gettext("Per rank"), lines))
    return result


def _bid_suits(bid: int) -> list[str]:
    """Two suits whose values add up to ``bid`` (0..10), for a dummy record."""
    by_value = {v: s for s, v in twin_shoot.BID_VALUES.items()}
    first = min(bid, 5)
    return [by_value[first], by_value[bid - first]]


def calc_twin_bid(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "tb-")
    result = Result(prompt=gettext("Tap the suits of the two bid cards."))
    first, second = form.get("1", "").strip(), form.get("2", "").strip()
    if not (first or second):
        return result
    result.empty = False
    if not (first and second):
        result.errors.append(gettext("Tap the suit of the other bid card too."))
        return result
    try:
        bid = twin_shoot.decode_bid([first, second])
    except twin_shoot.TwinShootError as error:
        result.errors.append(error.message)
        return result
    names = [SUIT_NAMES[twin_shoot._suit_code(code)] for code in (first, second)]
    values = [twin_shoot.BID_VALUES[twin_shoot._suit_code(code)] for code in (first, second)]
    result.headline = gettext("Bid: %(bid)s tricks", bid=bid)
    result.items.append(T("{first} ({a}) + {second} ({b}) = {bid}", first=names[0], a=values[0],
                          second=names[1], b=values[1], bid=bid))
    return result


def calc_twin_score(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "ts-")
    result = Result(prompt=gettext("Enter both partners' bids and tricks to see the team's score."))
    if not entered({k: v for k, v in form.items() if k != "open"}):
        return result
    errors: list[FieldError] = []
    bids = [read_int(form, f"bid{i}", 0, twin_shoot.TRICKS, T("Bid of partner {i}", i=i), errors)
            for i in (1, 2)]
    tricks = [read_int(form, f"tricks{i}", 0, twin_shoot.TRICKS, T("Tricks of partner {i}", i=i),
                       errors) for i in (1, 2)]
    if not errors and sum(tricks) > twin_shoot.TRICKS:
        errors.append(FieldError("tricks2", T("The partners took {sum} tricks, but a deal has only "
                                              "{total}.", sum=sum(tricks), total=twin_shoot.TRICKS)))
    if errors:
        return result.refuse(errors, "ts-")
    open_bid = form.get("open", "") in ("1", "on", "yes")
    # Score the team against a dummy team that took the remaining tricks.
    partners = (gettext("Partner %(n)s", n=1), gettext("Partner %(n)s", n=2))
    setup = MatchSetup("twin_shoot", partners + (gettext("Opponent"), gettext("Opponent")))
    progress = Progress(setup, (), (0, 0))
    facts = {"bids": [_bid_suits(bids[0]), _bid_suits(bids[1]), ["D", "D"], ["D", "D"]],
             "tricks": [tricks[0], tricks[1], twin_shoot.TRICKS - sum(tricks), 0],
             "open_bid": 0 if open_bid else None}
    score = twin_shoot.GAME.score_deal(progress, facts)
    result.empty = False
    result.headline = gettext("The team scores %(points)s.", points=score.points[0])
    result.groups.append((gettext("Breakdown"), score.breakdown[0]))
    if open_bid:
        result.rulings.append("open_bid")
        if bids != tricks:
            result.notes.append(gettext("The open bid failed: every other team scores +%(bonus)s.",
                                        bonus=twin_shoot.OVERHEAD))
    return result


def calc_lucky_payment(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "lp-")
    result = Result(prompt=gettext("Choose who holds the die, its number and who won the last trick."))
    if not entered(form):
        return result
    players = seat_names(n)
    errors: list[FieldError] = []
    raw_holder = form.get("holder", "").strip().lower()
    holder = read_seat(form, "holder", n, T("Die holder"), errors, allow_none=True)
    number = None
    if raw_holder != "none":
        number = read_int(form, "number", 1, lucky_cube.TRICKS, T("Number on the die"), errors)
    last = read_seat(form, "last", n, T("Winner of the last trick"), errors)
    chips = read_int(form, "chips", 0, 99, T("Chips the last-trick winner has"), errors, required=False)
    if errors:
        return result.refuse(errors, "lp-")
    facts = {"die_holder": holder, "die_number": number, "last_trick": last}
    setup = MatchSetup("lucky_cube", players)
    totals = tuple(99 if chips is None else chips for _ in players)
    progress = Progress(setup, (), totals)
    # The opening leader is unknown here, so only the checks that do not need it apply.
    problems = lucky_cube.GAME._check_summary(progress, facts, n, None)
    if problems:
        return result.refuse([FieldError({"die_holder": "holder", "die_number": "number",
                                          "last_trick": "last"}.get(p.field, p.field), p.message)
                              for p in problems], "lp-")
    score = lucky_cube.GAME.score_deal(progress, facts)
    result.empty = False
    if holder is None:
        result.headline = gettext("Nobody took the die: a draw, no chips change hands.")
        return result
    amount = score.points[holder]
    result.headline = gettext("%(payer)s pays %(amount)s chips to %(holder)s.", payer=players[last],
                              amount=amount, holder=players[holder])
    result.items.extend(line.label for line in score.breakdown[last] + score.breakdown[holder])
    result.rulings.extend(score.rulings)
    return result


def calc_lucky_tracker(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "lt-")
    result = Result(prompt=gettext("Choose who leads the first trick, then tap the winner of each "
                                   "trick as it is played."))
    if not entered({k: v for k, v in form.items() if k != "lead"}):
        return result
    players = seat_names(n)
    errors: list[FieldError] = []
    form["lead"] = form.get("lead", "").strip() or "0"
    opener = read_seat(form, "lead", n, T("Leader of the first trick"), errors)
    winners: list[int] = []
    gap = None
    for k in range(1, lucky_cube.TRICKS + 1):
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
        return result.refuse(errors, "lt-")
    tracker = lucky_cube.track(winners, opener, n)
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
        where = gettext("The die is still in the middle, showing 1.")
    else:
        where = gettext("%(holder)s has the die, showing %(number)s.",
                        holder=players[tracker.die_holder], number=tracker.die_number)
    if tracker.complete:
        if tracker.payment is None:
            result.headline = gettext("Nobody took the die: a draw, no chips change hands.")
        else:
            p = tracker.payment
            result.headline = gettext("%(payer)s won the last trick and pays %(amount)s chips to "
                                      "%(holder)s.", payer=players[p.payer], amount=p.amount,
                                      holder=players[p.payee])
        result.notes.append(where)
    else:
        result.headline = where
        result.notes.append(gettext("%(leader)s leads trick %(k)s.", leader=players[tracker.next_leader],
                                    k=len(winners) + 1))
    return result


def calc_rwd_score(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "rd-")
    result = Result(prompt=gettext("Enter each player's first-half chips and second-half tricks."))
    if not entered(form):
        return result
    players = seat_names(n)
    score = run_deal(rwd.GAME, players, form, "rd-", result)
    if score is None:
        return result
    if score.winners:
        result.headline = gettext("Deal winner: %(names)s", names=", ".join(players[i] for i in score.winners))
    else:
        result.headline = gettext("A draw: nobody wins this deal.")
    for seat, lines in enumerate(score.breakdown):
        result.groups.append((gettext("%(player)s: %(points)s", player=players[seat],
                                      points=pair_quad.signed(score.points[seat])), lines))
    result.notes.extend(score.notes)
    result.rulings.extend(score.rulings)
    return result


def calc_miraiscope_score(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "mi-")
    result = Result(prompt=gettext("Enter the Qs and one-pointers each player captured, and who "
                                   "won the last trick. Leave player 2 blank to work it out."))
    if not entered(form):
        return result
    players = seat_names(2)
    derived = not any(form.get(k, "").strip() for k in ("queens-1", "points-1"))
    score = run_deal(miraiscope.GAME, players, form, "mi-", result)
    if score is None:
        return result
    if derived:
        result.notes.append(gettext("%(player)s was left blank and gets the rest of the cards.",
                                    player=players[1]))
    result.headline = gettext("%(first)s %(a)s, %(second)s %(b)s", first=players[0], a=score.points[0],
                              second=players[1], b=score.points[1])
    for seat, lines in enumerate(score.breakdown):
        result.groups.append((gettext("%(player)s: %(points)s", player=players[seat],
                                      points=score.points[seat]), lines))
    total = sum(score.points)
    result.items.append(gettext("Together %(total)s points: every deal hands out exactly %(expected)s.",
                                total=total, expected=miraiscope.POINTS_PER_DEAL))
    return result


def _codes(raw: str) -> list[str]:
    return raw.replace(",", " ").split()


def helper_rwd_first_half(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "rf-")
    result = Result(prompt=gettext("Type the %(n)s cards of the row (for example QS 10H 3D), then "
                                   "choose which was taken last.", n=n))
    if not entered(form):
        return result
    result.empty = False
    codes = _codes(form.get("cards", ""))
    if len(codes) != n:
        result.errors.append(gettext("Enter %(n)s cards, one for each player; %(count)s entered.",
                                     n=n, count=len(codes)))
        return result
    errors: list[FieldError] = []
    last = read_int(form, "last", 1, n, T("Card taken last"), errors)
    if errors:
        return result.refuse(errors, "rf-")
    outcome = rwd.resolve_first_half(codes, last - 1)
    if isinstance(outcome, Text):
        result.errors.append(outcome)
        return result
    cards = [parse_card(code) for code in codes]
    result.headline = gettext("Card %(k)s, %(card)s, wins the trick.", k=outcome + 1,
                              card=cards[outcome].code)
    trumps = any(c.suit == rwd.TRUMP for c in cards)
    result.items.append(gettext("Spades are trumps and there is a spade, so the highest spade wins.")
                        if trumps else
                        gettext("No spade: the highest card of the suit taken last, %(suit)s, wins.",
                                suit=SUIT_NAMES[cards[last - 1].suit].render(gettext)))
    return result


def helper_miraiscope_trick(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "mt-")
    result = Result(prompt=gettext("Type the four cards in play order: the leader's first, the "
                                   "other player's first, then both second cards."))
    if not entered(form):
        return result
    result.empty = False
    codes = _codes(form.get("cards", ""))
    try:
        cards = [parse_card(code, ranks=miraiscope.DECK_RANKS) for code in codes]
        outcome = miraiscope.resolve_trick(cards)
    except CardError as error:
        result.errors.append(error.message)
        return result
    who = gettext("The leader") if outcome.winner == "leader" else gettext("The other player")
    result.headline = gettext("%(who)s wins with %(card)s and captures %(points)s points.", who=who,
                              card=cards[outcome.winning_card].code, points=outcome.points)
    result.items.append(gettext("Led suit for the whole trick: %(suit)s.",
                                suit=SUIT_NAMES[outcome.led_suit].render(gettext)))
    result.rulings.append("one_led_suit")
    return result


def helper_twin_trick(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "tt-")
    result = Result(prompt=gettext("Choose the leader and type the cards in play order, the lead "
                                   "first (for example QL 9L QC 8X)."))
    if not entered({k: v for k, v in form.items() if k != "leader"}):
        return result
    result.empty = False
    players = seat_names(n)
    errors: list[FieldError] = []
    form["leader"] = form.get("leader", "").strip() or "0"
    leader = read_seat(form, "leader", n, T("Leader"), errors)
    if errors:
        return result.refuse(errors, "tt-")
    try:
        trick = twin_shoot.resolve_trick(leader, _codes(form.get("cards", "")), n)
    except twin_shoot.TwinShootError as error:
        result.errors.append(error.message)
        return result
    cards = _codes(form.get("cards", ""))
    result.headline = gettext("%(player)s wins the trick with %(card)s.", player=players[trick.winner],
                              card=cards[trick.winning_index].upper())
    if trick.direction == "clockwise":
        result.items.append(gettext("Play goes clockwise (the leader is a right-side player)."))
    else:
        result.items.append(gettext("Play goes counter-clockwise (the leader is a left-side player)."))
    for i, (seat, code) in enumerate(zip(trick.seats, cards)):
        if i == 0:
            text = gettext("%(player)s leads %(card)s.", player=players[seat], card=code.upper())
        elif i == trick.follow_index and trick.follow == "suit":
            text = gettext("%(player)s plays %(card)s: follows by suit, so everyone after must follow "
                           "the suit if they can.", player=players[seat], card=code.upper())
        elif i == trick.follow_index and trick.follow == "rank":
            text = gettext("%(player)s plays %(card)s: follows by rank, so everyone after must follow "
                           "the rank if they can.", player=players[seat], card=code.upper())
        else:
            text = gettext("%(player)s plays %(card)s.", player=players[seat], card=code.upper())
        result.items.append(text)
    if trick.follow is None:
        result.notes.append(gettext("Nobody matched the lead's suit or rank, so the leader wins. That "
                                    "is legal only if nobody could match it."))
    elif trick.follow == "suit":
        result.notes.append(gettext("Followed by suit: the highest card of the lead's suit wins."))
    else:
        result.notes.append(gettext("Followed by rank: of the cards of the lead's rank, the strongest "
                                    "suit wins (Leaf, Cross, Club, Heart, Spade, Diamond)."))
    return result


def helper_twin_leader(args: Mapping[str, str], n: int) -> Result:
    form = prefixed(args, "tl-")
    result = Result(prompt=gettext("Enter the deal number and the team that led the first deal."))
    if not form.get("deal", "").strip():
        return result
    k = n // 2
    teams = team_names(k)
    errors: list[FieldError] = []
    form["first"] = form.get("first", "").strip() or "0"
    deal = read_int(form, "deal", 1, 999, T("Deal number"), errors)
    first = read_int(form, "first", 0, k - 1, T("Team that led the first deal"), errors)
    if errors:
        return result.refuse(errors, "tl-")
    team, seat, side, direction = twin_shoot.opening_leader(deal - 1, first, k)
    players = seat_names(n)
    result.empty = False
    if side == "right":
        result.headline = gettext("Deal %(d)s: %(player)s, the right-side player of %(team)s, leads. "
                                  "Play goes clockwise.", d=deal, player=players[seat], team=teams[team])
    else:
        result.headline = gettext("Deal %(d)s: %(player)s, the left-side player of %(team)s, leads. "
                                  "Play goes counter-clockwise.", d=deal, player=players[seat],
                                  team=teams[team])
    result.items.append(gettext("Anyone outside %(team)s deals.", team=teams[team]))
    return result


# name -> (game id, function, anchor)
CALCULATORS: dict[str, tuple[str, Callable[[Mapping[str, str], int], Result]]] = {
    "pq": ("pair_quad", calc_pair_quad),
    "tb": ("twin_shoot", calc_twin_bid),
    "ts": ("twin_shoot", calc_twin_score),
    "tt": ("twin_shoot", helper_twin_trick),
    "tl": ("twin_shoot", helper_twin_leader),
    "lp": ("lucky_cube", calc_lucky_payment),
    "lt": ("lucky_cube", calc_lucky_tracker),
    "rd": ("rwd", calc_rwd_score),
    "rf": ("rwd", helper_rwd_first_half),
    "mi": ("miraiscope", calc_miraiscope_score),
    "mt": ("miraiscope", helper_miraiscope_trick),
}


def calculators_of(game_id: str) -> list[str]:
    return [name for name, (gid, _) in CALCULATORS.items() if gid == game_id]


# --------------------------------------------------------------------------
# Player count


def allowed_counts(game: Game) -> list[int]:
    return sorted(set(game.players) | set(game.variant_players))


def read_players(game: Game, raw: str | None) -> tuple[int, Any]:
    """(count to show, message or None) for ``?players=``; never raises."""
    default = game.players[0]
    if raw is None or not raw.strip():
        return default, None
    text = raw.strip()
    if len(text) > 3 or not (text.isascii() and text.isdigit()):
        return default, gettext("“%(value)s” is not a number of players.", value=text[:12])
    n = int(text)
    reason = game.check_players(n)
    if reason is not None:
        return default, reason
    return n, None


# --------------------------------------------------------------------------
# Views


@bp.get("/<game_id>")
@bp.get("/<game_id>/calc/<name>")
def show(game_id: str, name: str | None = None):
    game = GAMES.get(game_id)
    if game is None:
        abort(404)
    if name is not None and CALCULATORS.get(name, ("",))[0] != game_id:
        abort(404)
    n, players_message = read_players(game, request.args.get("players"))
    if name is not None and is_htmx():
        # Always 200: a half-filled form is a normal state while tapping, not a failed
        # request (a 4xx would also log a console error on every tap).
        result = CALCULATORS[name][1](request.args, n)
        return render_template("games/_calc_result.html", game=game, r=result, calc=name, n=n)
    results = {calc: CALCULATORS[calc][1](request.args, n) for calc in calculators_of(game_id)}
    values = {k: v[:MAX_FIELD] for k, v in request.args.items()}
    return render_template("game.html", game=game, n=n, players_message=players_message,
                           counts=allowed_counts(game), results=results, values=values,
                           seats=seat_names(n), teams=team_names(n // 2))
