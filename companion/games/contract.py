"""The contract every game module fulfils (:class:`Game` and what a game declares), and the
replay that derives a match.

A game is a declaration (names, player counts, rulings, options) plus pure
functions over *raw facts*: the JSON-able dict a scorekeeper records for one
deal. Standings are never stored; :meth:`Game.replay` derives them from the
facts every time, which is what makes undo, edits and audits trivial.

Seats are 0-based indexes into ``players`` in clockwise order. "Entrants" are
what a game ranks: the players themselves, or the teams its :meth:`Game.seating` declares.

A game also declares what shared code must never guess: which seats form each team
(:class:`Team`), the per-player number columns a deal records (:class:`Column`: range,
the total the column adds up to, whether the last value is worked out) and how its facts
read in the log and exports (:meth:`Game.describe_facts`). Parsing, the checks, the deal
forms and the log read these declarations; nothing outside a game's module knows them.

What a replay derives (:class:`~companion.games.model.Match` and its parts) is in
:mod:`companion.games.model`; reading a deal's form fields is in :mod:`companion.games.forms`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from .forms import Column, Form, choice_answer
from .model import (Choice, DealRecord, DealScore, Facts, FieldError, InvalidDeal, InvalidOptions, Match,
                    MatchSetup, NextDeal, Outcome, Progress, Stakes)
from .text import NameList, T, Text, Tn, join_names



class Spaced(NameList):
    """Values one after another with a space in every language ("4 3 2": a list of numbers)."""

    __slots__ = ()
    SEPARATOR = "{first} {second}"

    def render(self, gettext=None, ngettext=None) -> str:  # the separator is never translated
        return " ".join(name.render(gettext, ngettext) if isinstance(name, Text) else name
                        for name in self.names)


# --------------------------------------------------------------------------
# Declarations


@dataclass(frozen=True)
class Ruling:
    """A table ruling: what the app does where the source is silent or open."""

    id: str  # stable key, e.g. "shared_win"; shown next to the inputs it affects
    title: Text
    text: Text
    table_decides: bool = False  # True when the app asks the players instead of deciding


@dataclass(frozen=True)
class Option:
    """A choice the table makes when it creates a table (stored in ``options``)."""

    key: str  # e.g. "first_dealer"
    label: Text
    # "seat" (a player), "team" (a team index), "deals" (a count or 0 = open-ended),
    # "choice" (one of ``choices``: labelled values, shown as one tap each)
    kind: str
    default: int = 0
    ruling: str | None = None  # id of the ruling that asks for it, if any
    help: Text | None = None
    choices: tuple[tuple[int, Text], ...] = ()  # kind "choice": (stored value, label), in order


@dataclass(frozen=True)
class Figure:
    """One number of a setup checklist, e.g. deck size."""

    key: str
    label: Text
    value: int | str | Text


@dataclass(frozen=True)
class Team:
    """One team of a team game, as the game seats it.

    ``seats`` are seat indexes (clockwise, 0-based) in the order the game names the team's
    players ("Ann & Cy"); ``roles`` says what each of those seats is within the team where the
    rules give seats a role (Twin Shoot's right-side and left-side players), else is empty.
    """

    seats: tuple[int, ...]
    roles: tuple[Text, ...] = ()


@dataclass(frozen=True)
class FactItem:
    """One fact of a deal for reading (log, CSV, history): "Chips · Ann · 4"."""

    label: Text | str
    owner: str  # the player's or team's name, "" when it concerns the whole deal
    value: Text | str


# --------------------------------------------------------------------------
# The game contract


class Game:
    """Subclass per game; one instance named ``GAME`` per module registers it."""

    id: str = ""
    order: int = 99  # position on the home page
    name_en: str = ""
    name_ja: str = ""
    players: tuple[int, ...] = ()  # allowed player counts
    variant_players: tuple[int, ...] = ()  # counts allowed only as a marked variant (a ruling)
    credit: Text = T("Designer not named in the source.")
    source: str = ""  # file name in shared/sources
    summary: Text = Text("")  # not T(): an empty msgid must not be extracted
    components: tuple[Text, ...] = ()
    rulings: tuple[Ruling, ...] = ()
    options: tuple[Option, ...] = ()
    # The game page's calculators and helpers (calculators.Calculator; that module builds on this
    # one, so it is not imported here, not even for type checkers: no import cycle).
    calculators: tuple[Any, ...] = ()
    choice_keys: tuple[str, ...] = ()  # facts keys that hold answers to a Choice (NextDeal.choice)
    # How the deal log and the exports name each key of the facts ("called" → "Called" if
    # absent; also the keys inside a fact that counts by kind, e.g. "other" → "Other"), and
    # which keys hold a seat or a team (shown as that player's or team's name).
    fact_labels: Mapping[str, Text] = {}
    seat_facts: frozenset[str] = frozenset()
    team_facts: frozenset[str] = frozenset()

    # ---- declaration helpers
    def ruling(self, ruling_id: str) -> Ruling:
        for r in self.rulings:
            if r.id == ruling_id:
                return r
        raise KeyError(ruling_id)

    def check_players(self, n: int) -> Text | None:
        """None when ``n`` players may play, else the reason."""
        if n in self.players or n in self.variant_players:
            return None
        # No game name: it would stay English inside a Japanese sentence, and the form names it.
        return T("This game is for {counts}, not {n}.", counts=self.players_text(), n=n)

    def players_text(self) -> Text:
        """"3–5 players", "4 or 6 players", "4 players (also 3, 5, 6 players as a variant)"."""
        usual = counts_text(self.players)
        if not self.variant_players:
            return usual
        return T("{counts} (also {variants} as a variant)", counts=usual,
                 variants=counts_text(self.variant_players))

    def players_note(self) -> Text:
        """:meth:`players_text` for inside brackets, with none of its own: "4 players; 3, 5, 6 as a
        variant" (the hall's "Pair & Quad (4 players; 3, 5, 6 as a variant)")."""
        usual = counts_text(self.players)
        if not self.variant_players:
            return usual
        return T("{counts}; {variants} as a variant", counts=usual,
                 variants=join_names([str(c) for c in sorted(self.variant_players)]))

    def player_counts_text(self) -> str:
        counts = sorted(set(self.players) | set(self.variant_players))
        if counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 2:
            return f"{counts[0]}–{counts[-1]}"
        return "/".join(str(c) for c in counts)

    # ---- setup
    def setup_figures(self, n: int) -> tuple[Figure, ...]:
        raise NotImplementedError

    def setup_steps(self, n: int) -> tuple[Text, ...]:
        raise NotImplementedError

    def figure(self, n: int, key: str) -> int | str | Text:
        """One number of the setup checklist (:meth:`setup_figures`) by key, for templates that
        need a rule's number ("tricks" per deal at ``n`` players) without recomputing it."""
        for found in self.setup_figures(n):
            if found.key == key:
                return found.value
        raise KeyError(key)

    # ---- seating: who plays with whom
    def seating(self, n: int) -> tuple[Team, ...]:
        """The teams at ``n`` players, in team order (team 0 first), each its seats in the order
        the team is named; () when everyone plays alone (the default). A team game overrides it:
        which seats are partners is its rule, never shared code's."""
        return ()

    @property
    def teams(self) -> bool:
        """Whether the game ranks teams rather than players (it declares a :meth:`seating`)."""
        return any(self.seating(n) for n in (*self.players, *self.variant_players))

    def entrants(self, players: Sequence[str]) -> tuple[str, ...]:
        """Names of what is ranked: the players, or each team's players joined ("Ann & Cy")."""
        teams = self.seating(len(players))
        if not teams:
            return tuple(players)
        return tuple(" & ".join(str(players[seat]) for seat in team.seats) for team in teams)

    def team_of(self, n: int, seat: int) -> int | None:
        """The team ``seat`` plays in at ``n`` players (None in a game without teams)."""
        return next((index for index, team in enumerate(self.seating(n)) if seat in team.seats), None)

    def team_label(self, n: int, team: int) -> Text:
        """A team as the new-table form offers it: "Team 1 (seats 1–2)", "Team 1 (seats 1, 3)"."""
        seats = [seat + 1 for seat in self.seating(n)[team].seats]
        if len(seats) > 1 and seats == list(range(seats[0], seats[0] + len(seats))):
            return T("Team {t} (seats {a}–{b})", t=team + 1, a=seats[0], b=seats[-1])
        return T("Team {t} (seats {seats})", t=team + 1, seats=join_names([str(s) for s in seats]))

    def seat_note(self, n: int, seat: int) -> Text | None:
        """What a seat is, beside its name on the new-table form ("Team 1 · right side"); None
        in a game without teams."""
        for index, team in enumerate(self.seating(n)):
            if seat in team.seats:
                if team.roles:
                    return T("Team {t} · {role}", t=index + 1, role=team.roles[team.seats.index(seat)])
                return T("Team {t}", t=index + 1)
        return None

    def seating_help(self, n: int) -> Text | None:
        """How to sit, above the names on the new-table form (who partners whom); None: no help."""
        return None

    # ---- the numbers a deal records
    def columns(self, setup: MatchSetup) -> tuple[Column, ...]:
        """The per-player number columns of a deal at this table (labels name ``setup.players``):
        what :func:`read_columns` reads, :func:`check_columns` checks and the deal form shows
        (``column.values``, ``column.derive(seat)``). Default: none."""
        return ()

    def column_map(self, setup: MatchSetup) -> dict[str, Column]:
        """:meth:`columns` by key, for templates: ``columns["chips"].hi``."""
        return {column.key: column for column in self.columns(setup)}

    # ---- reading the facts (log, CSV, history)
    def fact_label(self, key: str) -> Text | str:
        """How the log and the exports name a key of the facts (a key without a label reads as
        its own words: ``taken`` -> "Taken")."""
        label = self.fact_labels.get(key)
        return label if label is not None else key.replace("_", " ").capitalize()

    def describe_value(self, value: Any) -> Text | str:
        """A fact's value in words: None is "none"; a count by kind ``{"7": 2, "other": 9}``
        names each kind by :attr:`fact_labels` (or as itself): "7 2, Other 9"."""
        if value is None:
            return T("none")
        if isinstance(value, Mapping):
            return join_names([Text("{label} {value}", label=self.fact_labels.get(str(k), str(k)),
                                    value=self.describe_value(v)) for k, v in value.items()])
        if isinstance(value, list):
            return Spaced([self.describe_value(v) for v in value])
        return str(value)

    def describe_facts(self, facts: Mapping[str, Any], players: Sequence[str],
                       entrants: Sequence[str]) -> list[FactItem]:
        """The facts of a deal for reading: per-player (or per-team) lists get each owner's
        name, keys in :attr:`seat_facts` / :attr:`team_facts` show as the named player or team
        ("Start player: Ann"), the rest as plain words and numbers. Override for more."""
        items: list[FactItem] = []

        def who(value: Any, names: Sequence[str]) -> Text | str:
            if isinstance(value, list):
                return Spaced([who(v, names) for v in value])
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
                return names[value]
            return self.describe_value(value)

        for key, value in facts.items():
            label = self.fact_label(key)
            if key in self.seat_facts:
                items.append(FactItem(label, "", who(value, players)))
            elif key in self.team_facts:
                items.append(FactItem(label, "", who(value, entrants)))
            elif isinstance(value, list) and len(value) in (len(players), len(entrants)):
                owners = players if len(value) == len(players) else entrants
                items.extend(FactItem(label, owners[i], self.describe_value(item))
                             for i, item in enumerate(value))
            else:
                items.append(FactItem(label, "", self.describe_value(value)))
        return items

    def check_options(self, setup: MatchSetup) -> list[FieldError]:
        errors = []
        for opt in self.options:
            value = setup.options.get(opt.key, opt.default)
            if opt.kind == "seat" and not 0 <= value < setup.n:
                errors.append(FieldError(opt.key, T("{field}: choose one of the players.", field=opt.label)))
            if opt.kind == "team" and not 0 <= value < len(self.entrants(setup.players)):
                errors.append(FieldError(opt.key, T("{field}: choose one of the teams.", field=opt.label)))
            if opt.kind == "deals" and not 0 <= value <= 99:
                errors.append(FieldError(opt.key, T("{field} must be from 0 to 99.", field=opt.label)))
            if opt.kind == "choice" and value not in [v for v, _label in opt.choices]:
                errors.append(FieldError(opt.key, T("{field}: choose one of the options.", field=opt.label)))
        return errors

    def option(self, setup: MatchSetup, key: str) -> int:
        for opt in self.options:
            if opt.key == key:
                return int(setup.options.get(key, opt.default))
        raise KeyError(key)

    # ---- one deal
    def parse_deal(self, form: Form, progress: Progress) -> tuple[Facts, list[FieldError]]:
        """Turn submitted form fields (strings) into facts; report unreadable fields."""
        raise NotImplementedError

    def read_choice(self, form: Form, progress: Progress, facts: Facts, errors: list[FieldError],
                    label: Text) -> None:
        """Read the answer to the next deal's open choice (if any) into ``facts``.

        For :meth:`parse_deal`. Left empty, the choice says "choose", and the deal's own checks
        run at once on what was read (a wrong chip sum is said now, not after the choice)."""
        choice = self.next_deal(progress).choice
        if choice is None:
            return
        answer = choice_answer(form.get(choice.key), choice)
        facts[choice.key] = answer
        if answer is not None:
            return
        if set(choice.options) == set(range(progress.setup.n)):
            message = T("{field}: choose one of the players.", field=label)
        else:
            message = T("{field}: choose one of {names}.", field=label, names=names(progress.setup, choice.options))
        errors.insert(0, FieldError(choice.key, message))

    def check_readable(self, progress: Progress, facts: Facts, errors: list[FieldError]) -> None:
        """For :meth:`parse_deal` of games whose facts are columns (a list per key): once some
        input was refused, add the deal's checks about what *was* read, so one wrong or empty
        field (an untapped choice, a blank chip count) hides no other mistake (a wrong trick
        sum). Left out: fields already refused or left unknown (a value the rules could not
        work out), and the columns they belong to."""
        if not errors:
            return  # all was read: validate() runs every check
        readable = {key: value for key, value in facts.items() if value is not None}
        unknown = {e.field for e in errors}
        unknown |= {name for name, value in self.form_values(readable).items()
                    if value is None or str(value) in ("", "None")}
        unknown |= {key for key, value in facts.items()
                    if value is None or isinstance(value, list) and None in value}
        columns = {field.split("-")[0] for field in unknown}
        for error in self.check_deal(progress, readable):
            if error.field not in unknown and error.field.split("-")[0] not in columns:
                errors.append(error)

    def form_values(self, facts: Facts) -> dict[str, str]:
        """The inverse of :meth:`parse_deal`, to pre-fill a form for editing a deal.

        Default: a list ``key: [a, b]`` becomes fields ``key-0``, ``key-1``; a scalar
        stays ``key``; None becomes "". Games whose facts nest further override it.
        """
        values: dict[str, str] = {}
        for key, value in facts.items():
            if isinstance(value, list):
                for seat, item in enumerate(value):
                    values[f"{key}-{seat}"] = "" if item is None else str(item)
            else:
                values[key] = "" if value is None else str(value)
        return values

    def check_deal(self, progress: Progress, facts: Facts) -> list[FieldError]:
        """The digest's "checks a scorekeeper can make", each a sentence naming field and rule."""
        raise NotImplementedError

    def score_deal(self, progress: Progress, facts: Facts) -> DealScore:
        raise NotImplementedError

    def start_totals(self, setup: MatchSetup) -> tuple[int, ...]:
        return (0,) * len(self.entrants(setup.players))

    # ---- match flow
    def next_deal(self, progress: Progress) -> NextDeal:
        raise NotImplementedError

    def outcome(self, progress: Progress, finished: bool) -> Outcome:
        """Whether the match is over (``finished``: the table pressed "finish match")."""
        raise NotImplementedError

    def stakes(self, progress: Progress, outcome: Outcome) -> Stakes:
        """What decides this match and how near its end is; games override it."""
        return Stakes()

    def rank_key(self, progress: Progress, stakes: Stakes, entrant: int) -> tuple[int, ...]:
        """What places an entrant in the standings, higher first (equal keys share a place;
        :meth:`Match.ranking` orders by the total within a place). Default: the deciding
        tallies (``Tally.decides``, e.g. RWD's deal wins) when the game has any, else the
        total. Override for another order."""
        deciding = tuple(t.values[entrant] for t in stakes.tallies if t.decides)
        return deciding or (progress.totals[entrant],)

    # ---- a match ended when time is called (issue 33)
    def ranking_at_time(self, progress: Progress, stakes: Stakes) -> tuple[tuple[int, ...], ...]:
        """Per entrant, what places it when time is called before the match's own end, higher
        first: what decides the match (:meth:`rank_key`, e.g. RWD's deal wins), then the points.
        The game's :data:`AT_TIME` ruling says so in words; override both for another order."""
        return tuple(self.rank_key(progress, stakes, entrant) + (total,)
                     for entrant, total in enumerate(progress.totals))

    def outcome_at_time(self, progress: Progress, stakes: Stakes) -> Outcome:
        """The result of a match ended with the deals played when time was called: whoever ranks
        first by :meth:`ranking_at_time` wins; entrants level on all of it share the win."""
        keys = self.ranking_at_time(progress, stakes)
        top = max(keys)
        winners = tuple(entrant for entrant, key in enumerate(keys) if key == top)
        entrants = self.entrants(progress.setup.players)
        if len(winners) == 1:
            message = Tn("Ended at time after {n} deal. Winner: {names}.",
                         "Ended at time after {n} deals. Winner: {names}.",
                         len(progress.deals), names=entrants[winners[0]])
        else:
            message = Tn("Ended at time after {n} deal. {names} share the win.",
                         "Ended at time after {n} deals. {names} share the win.",
                         len(progress.deals), names=join_names([entrants[w] for w in winners]))
        return Outcome(True, winners, message, (AT_TIME,))

    def rematch_options(self, match: Match) -> dict[str, int]:
        """The options of the next match between the same players, continuing where this one
        stopped as the rules would (the next dealer or start player, not the first one again).

        Default: the same options. Games with a rotation override it.
        """
        return dict(match.setup.options)

    def as_chosen(self, progress: Progress, upcoming: NextDeal, answer: int) -> NextDeal:
        """The deal ``upcoming`` as it was played once its open choice was answered ``answer``:
        what a deal's record (:attr:`DealRecord.before`, the deal history) says instead of the
        question. Games with a choice override it; the choice itself stays on the record."""
        return upcoming

    def reask(self, progress: Progress, facts: Facts) -> Choice | None:
        """After a correction of an earlier deal: a decision recorded in ``facts`` (not an
        answer to :meth:`next_deal`'s choice) that the match before it no longer allows, as a
        Choice to ask again (e.g. Twin Shoot's open bid by a team no longer alone in last
        place); None when all still fits. Its answer is written by :meth:`apply_answer`."""
        return None

    def apply_answer(self, facts: Facts, choice: Choice, answer: int) -> Facts:
        """``facts`` with ``answer`` to a re-asked ``choice`` written in."""
        return {**facts, choice.key: answer}

    def settle_choices(self, setup: MatchSetup, deals: Sequence[Facts],
                       answers: Mapping[int, Any] | None = None
                       ) -> tuple[list[Facts], list[tuple[int, Choice]], list[tuple[int, Choice]]]:
        """Fit each deal's recorded answer to the choice its deal now asks, after a correction
        of an earlier deal changed the match before it.

        Replays ``deals`` in order. Where deal *k* now opens a choice, its answer is
        ``answers[k]`` if given, else the one recorded in its facts if it is still one of the
        options; an answer recorded where no choice is open any more is dropped. Returns the
        deals with those answers written in; the (deal number, Choice) pairs that still need an
        answer (then the replay stopped at the first of them: a later deal's choice may depend
        on it); and the pairs answered from ``answers`` (a page asking again keeps showing
        them). Facts that fail their own checks are left for :meth:`replay` to refuse.
        """
        answers = answers or {}
        answered: list[tuple[int, Choice]] = []
        settled: list[Facts] = []
        progress = self.start(setup)
        for number, facts in enumerate(deals, start=1):
            if after_end(self, progress) is not None:  # no choice after the end: replay refuses
                return settled + [dict(f) if isinstance(f, Mapping) else f
                                  for f in deals[number - 1:]], [], answered
            facts = dict(facts) if isinstance(facts, Mapping) else facts
            choice = self.next_deal(progress).choice
            if isinstance(facts, dict):
                if choice is None:
                    facts = {k: v for k, v in facts.items() if k not in self.choice_keys}
                else:
                    answer = choice_answer(answers.get(number), choice)
                    if answer is not None:
                        answered.append((number, choice))
                    elif facts.get(choice.key) in choice.options:
                        answer = facts[choice.key]
                    if answer is None:
                        return settled + [dict(f) if isinstance(f, Mapping) else f
                                          for f in deals[number - 1:]], [(number, choice)], answered
                    facts[choice.key] = answer
                # A decision recorded in the deal itself that this correction made illegal
                # (Twin Shoot's open bid) is asked again like a choice.
                again = self.reask(progress, facts)
                if again is not None:
                    answer = choice_answer(answers.get(number), again)
                    if answer is None:
                        return settled + [dict(f) if isinstance(f, Mapping) else f
                                          for f in deals[number - 1:]], [(number, again)], answered
                    answered.append((number, again))
                    facts = self.apply_answer(facts, again, answer)
            settled.append(facts)
            try:
                progress = self.add_deal(progress, facts)
            except InvalidDeal:
                return settled + [dict(f) if isinstance(f, Mapping) else f for f in deals[number:]], [], answered
        return settled, [], answered

    # ---- generic machinery
    def start(self, setup: MatchSetup) -> Progress:
        errors = self.check_options(setup)
        reason = self.check_players(setup.n)
        if reason:
            errors.insert(0, FieldError("players", reason))
        if errors:
            raise InvalidOptions(errors)
        return Progress(setup, (), self.start_totals(setup))

    def validate(self, progress: Progress, facts: Facts) -> list[FieldError]:
        """All checks for the next deal, including the answer to an open choice. No deal may
        follow the end of the match (but a game's ``more_deals_allowed``, e.g. a tie-break)."""
        ended = after_end(self, progress)
        if ended is not None:
            return [ended]
        upcoming = self.next_deal(progress)
        errors = []
        if upcoming.choice is not None:
            answer = facts.get(upcoming.choice.key)
            if answer not in upcoming.choice.options:
                errors.append(FieldError(upcoming.choice.key, upcoming.choice.question))
        return errors + self.check_deal(progress, facts)

    def add_deal(self, progress: Progress, facts: Facts) -> Progress:
        errors = self.validate(progress, facts)
        if errors:
            raise InvalidDeal(len(progress.deals) + 1, errors)
        upcoming = self.next_deal(progress)
        score = self.score_deal(progress, facts)
        totals = tuple(t + p for t, p in zip(progress.totals, score.points))
        if upcoming.choice is not None:  # the deal as played: who was chosen, not the question
            upcoming = self.as_chosen(progress, upcoming, facts[upcoming.choice.key])
        record = DealRecord(len(progress.deals) + 1, dict(facts), upcoming, score, totals)
        return replace(progress, deals=progress.deals + (record,), totals=totals)

    def replay(self, setup: MatchSetup, deals: Sequence[Facts], finished: bool = False,
               at_time: bool = False) -> Match:
        """Derive the whole match from the recorded facts, deal by deal (``at_time``: the
        table ended it with the deals played when time was called)."""
        progress = self.start(setup)
        for facts in deals:
            progress = self.add_deal(progress, facts)
        return self.conclude(progress, finished, at_time)

    def conclude(self, progress: Progress, finished: bool = False, at_time: bool = False) -> Match:
        outcome = self.outcome(progress, finished)
        # Ended at time counts only while the rules had not ended the match by themselves (a
        # correction may since have made it end on its own: then that result stands).
        at_time = at_time and bool(progress.deals) and not (outcome if not finished
                                                            else self.outcome(progress, False)).over
        if at_time:
            outcome = self.outcome_at_time(progress, self.stakes(progress, outcome))
        upcoming = None
        if not outcome.over or outcome.more_deals_allowed:
            upcoming = self.next_deal(progress)
        stakes = self.stakes(progress, outcome)
        if at_time:
            rank_keys = self.ranking_at_time(progress, stakes)
        else:
            rank_keys = tuple(self.rank_key(progress, stakes, entrant)
                              for entrant in range(len(progress.totals)))
        return Match(progress.setup, self.entrants(progress.setup.players), progress.deals,
                     progress.totals, outcome, upcoming, stakes, rank_keys, at_time)


# --------------------------------------------------------------------------
# What the rules of several games share

# The id of the ruling each game declares for a match ended when time is called (issue 33):
# the posts never say, so each game says how it ranks the deals played (Game.ranking_at_time).
AT_TIME = "at_time"



def after_end(game: Game, progress: Progress) -> FieldError | None:
    """The refusal of a deal after the end of the match, or None while another deal may follow
    (the match runs, or its end allows more, as Miraiscope's tie-break deal)."""
    outcome = game.outcome(progress, False)
    if outcome.over and not outcome.more_deals_allowed:
        return FieldError("deal", T("The match is over; no more deals can be added."))
    return None


# A rematch option: when the last game ended with a tie where the next deal's dealer or start
# player is the table's choice, the rematch's first deal asks it among these seats (a bitmask)
# instead of taking the option of the first dealer / start player. Absent or 0: no choice.
FIRST_AMONG = "first_among"


def first_among(setup: MatchSetup) -> tuple[int, ...]:
    """The seats a rematch's first deal chooses its dealer / start player among (option
    ``first_among``), or () when that option is not set."""
    mask = setup.options.get(FIRST_AMONG) or 0
    return tuple(seat for seat in range(setup.n) if isinstance(mask, int) and mask >> seat & 1)


def among_mask(seats: Sequence[int]) -> int:
    return sum(1 << seat for seat in set(seats))


def options_after_last_winner(match: "Match", key: str) -> dict[str, int]:
    """Rematch options where the last deal's winner deals or starts (option ``key``), as the
    rules pass it on between deals; after a shared win or a draw the rematch's first deal asks
    among the sharers, or everyone (``first_among``), as the table decides between deals."""
    options = {k: v for k, v in match.setup.options.items() if k != FIRST_AMONG}
    if not match.deals:
        return options
    last = match.deals[-1].score.winners
    if len(last) == 1:
        options[key] = last[0]
    else:
        options[FIRST_AMONG] = among_mask(last or range(match.setup.n))
    return options


def race_stakes(target: int, totals: Sequence[int], entrants: Sequence[str], outcome: Outcome,
                lines: Sequence[Text] = ()) -> Stakes:
    """Stakes of a race to ``target`` points (Miraiscope, Twin Shoot): the headline, how far
    the leader still has to go while the match runs, then ``lines``."""
    said: list[Text] = []
    if not outcome.over and totals:
        top = max(totals)
        leaders = [entrant for entrant, total in enumerate(totals) if total == top]
        if top > 0:
            said.append(Tn("{names}: {n} point to go.", "{names}: {n} points to go.", target - top,
                           names=join_names([entrants[e] for e in leaders])))
    return Stakes(T("Race to {target} points", target=target), (), tuple(said) + tuple(lines))


def best(values: Sequence[int], among: Sequence[int] | None = None) -> tuple[int, ...]:
    """Indexes holding the highest value (optionally only among ``among``)."""
    candidates = list(range(len(values))) if among is None else list(among)
    if not candidates:
        return ()
    top = max(values[i] for i in candidates)
    return tuple(i for i in candidates if values[i] == top)


def counts_text(counts: Sequence[int]) -> Text:
    """Player counts in words: "4 players", "3–5 players", "4 or 6 players"."""
    counts = sorted(set(counts))
    if len(counts) == 1:
        return Tn("{n} player", "{n} players", counts[0])
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return T("{lo}–{hi} players", lo=counts[0], hi=counts[-1])
    if len(counts) == 2:
        return T("{first} or {second} players", first=counts[0], second=counts[1])
    return T("{counts} players", counts=join_names([str(c) for c in counts]))


def names(setup: MatchSetup, seats: Sequence[int]) -> NameList:
    """The players at ``seats``, joined the reader's way (「、」 in Japanese) when rendered."""
    return join_names([setup.players[s] for s in seats])
