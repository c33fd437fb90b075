"""The seating draw of one round of a meetup night: who sits at which table, in which seat.

Input: tonight's roster (player ids, in any hashable form the caller uses), the games on
offer (each declares its player counts: ``Game.players``, and ``Game.variant_players`` as a
marked variant), optionally the organiser's own choice of games for the round's tables, the
earlier rounds of the night (who sat with whom, who were partners) and a seed. Output: a
:class:`Draw`, each table a game and its players in seat order.

The rules of the draw:

- every player on the roster sits at exactly one table, whose game allows that many players;
- when the organiser doesn't choose the games, the tables are sized from the counts the
  offered games allow, preferring tables of four (17 players: 4 + 4 + 4 + 5), and each table
  gets one of the games that fit its size, spread over the offered games;
- over the night, two players who already shared a table are seated together again as
  rarely as the counts allow; partners in a team game (the seats its ``Game.seating``
  declares as one team, neighbours or across the table) are partners again more rarely still;
- no pair meets a third time unless the room's size forces it (issue 47): the draw's order is
  never together > no third meeting (:data:`THIRD`) > every game in turn > fewer repeats
  (by standings, a third meeting weighs as a whole place point's gap: :data:`STANDING_THIRD`);
- the draw is random, but the same inputs and seed give the same draw (the search is
  bounded by a count of steps, never by the clock, so a slow laptop draws the same);
- *by standings* (a last round, issue 33): given each player's place points so far, players
  with similar points sit together (the leaders at one table, listed first), with the same
  tables and games; each earlier shared table is then weighed against the gap in points
  (:data:`STANDING_GAP`, :data:`STANDING_REPEAT`) instead of coming first;
- the room's wishes (issue 36), each a weighted cost in the same search: *balanced* tables by
  rating (instead of by standings), *every game in turn*, *newcomers looked after* and
  *never together* pairs (:data:`BALANCE`, :data:`GAME_AGAIN`, :data:`NEWCOMER`, :data:`NEVER`);
- players' game requests (issue 47): "I'd like to play …" seats the player at a table of that
  game, "I'd like to learn …" at one with someone who knows it (:data:`REQUEST` each unmet),
  below never together and no third meeting, above every game in turn and repeats; the plan
  gives a requested game a table where its size allows (:func:`requests_met` counts them).

A late arrival or a leaver between rounds needs nothing special: the next draw seats the
roster it is given, and earlier rounds count only between players still on it.

The search: many starts (one of them the greedy mixer's draw, so the result is never worse
than it for the round) each improved by swapping two players of different tables while that
lowers the cost, then kicked by a few random swaps and improved again; the best seen wins.
With every game in turn or game requests (and the tables not the organiser's own games), a
table may also take another offered game of its size where that lowers the cost
(:meth:`_Search.regame`): a round may then have several tables of one game (twelve players
after a first round of three games out of four: three tables of the fourth rotate with 3
repeats, where one of it and two games played already cost 6).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from numbers import Real
from typing import Hashable, Iterable, Mapping, Sequence, Union

from ..games import GAMES, Game
from ..games.text import T, Text, Tn, join_names

PlayerId = Hashable


class SeatingError(ValueError):
    """The roster can't be seated as asked; ``message`` says why, for the organiser's page."""

    def __init__(self, message: Text):
        self.message = message
        super().__init__(str(message))


@dataclass(frozen=True)
class TablePlan:
    """One table of a round before anyone is seated: its game and how many players."""

    game: str
    size: int


@dataclass(frozen=True)
class Seating:
    """One table of a drawn round: its game and its players in seat order (seat 1 first,
    then clockwise, as a table stores its players)."""

    game: str
    players: tuple[PlayerId, ...]


@dataclass(frozen=True)
class Draw:
    """A round's seating. ``repeats``: pairs seated together who shared a table earlier in the
    night; ``partner_repeats``: partners in a team game who were partners before."""

    tables: tuple[Seating, ...]
    repeats: int = 0
    partner_repeats: int = 0
    # Game requests (issue 47): how many the draw was given and met, and the players whose met
    # request seats them beside someone they already shared a table with tonight.
    requests_asked: int = 0
    requests_met: int = 0
    request_repeats: tuple[PlayerId, ...] = ()

    def seat_of(self, player: PlayerId) -> tuple[int, int] | None:
        """(table index, seat index), both 0-based, of ``player``; None when not seated."""
        for number, table in enumerate(self.tables):
            if player in table.players:
                return number, table.players.index(player)
        return None


# A table's game: a game id alone (the draw picks its size), or (game id, size).
Chosen = Union[str, tuple[str, int]]
# An earlier round: a Draw or its tables.
Round = Union[Draw, Sequence[Seating]]


# --------------------------------------------------------------------------------------------
# Table sizes and games


def size_cost(size: int) -> int:
    """How much a table of ``size`` players is avoided: tables of four are the meetup's
    favourite (most games play best with four, and four mix more people than two)."""
    return (size - 4) ** 2


VARIANT_COST = 2  # a count the game allows only as a marked variant: used when nothing else fits


def _count_cost(game: Game, size: int) -> int | None:
    if size in game.players:
        return size_cost(size)
    if size in game.variant_players:
        return size_cost(size) + VARIANT_COST
    return None


def _offered(offered: Iterable[str] | None, games: Mapping[str, Game]) -> list[Game]:
    ids = list(games) if offered is None else list(dict.fromkeys(offered))
    unknown = [game_id for game_id in ids if game_id not in games]
    if unknown:
        raise ValueError(f"not a game: {unknown}")
    return [games[game_id] for game_id in ids]


def _totals_text(totals: Sequence[int]) -> Text:
    return join_names([str(total) for total in totals])


def plan_tables(players: int, offered: Iterable[str] | None = None, chosen: Sequence[Chosen] | None = None,
                games: Mapping[str, Game] = GAMES, seed: object = 0,
                tables_before: Mapping[str, int] | None = None,
                wanted: Mapping[str, int] | None = None) -> tuple[TablePlan, ...]:
    """The round's tables for ``players`` players: the organiser's ``chosen`` games (each a
    game id, or (game id, size)), or else tables filled from the ``offered`` games (all games
    by default), a table of each ``wanted`` game first (game id -> players who asked for it)
    where its size fits. Raises :class:`SeatingError` when the roster can't be seated that way."""
    if chosen:
        return _plan_chosen(players, chosen, games)
    return _plan_auto(players, _offered(offered, games), random.Random(f"{seed}/plan"), tables_before, wanted)


def _plan_auto(players: int, offered: Sequence[Game], rng: random.Random,
               tables_before: Mapping[str, int] | None = None,
               wanted: Mapping[str, int] | None = None) -> tuple[TablePlan, ...]:
    costs: dict[int, int] = {}
    for game in offered:
        for size in (*game.players, *game.variant_players):
            cost = _count_cost(game, size)
            if cost is not None and size > 1:
                costs[size] = min(costs.get(size, cost), cost)
    # Fewest-cost way to split the roster into table sizes (a small knapsack): the cost, then
    # more tables of four, then fewer tables; ``best[m]`` is the plan for m players.
    best: list[tuple[int, int, int, tuple[int, ...]] | None] = [None] * (players + 1)
    best[0] = (0, 0, 0, ())
    for m in range(1, players + 1):
        for size, cost in sorted(costs.items()):
            if size <= m and best[m - size] is not None:
                c, fours, tables, sizes = best[m - size]  # type: ignore[misc]
                option = (c + cost, fours - (size == 4), tables + 1, sizes + (size,))
                if best[m] is None or option < best[m]:  # type: ignore[operator]
                    best[m] = option
    if players < 1 or best[players] is None:
        smallest = min(costs) if costs else 2
        raise SeatingError(Tn("The games on offer need at least {n} player at a table; the roster has {roster}.",
                              "The games on offer need at least {n} players at a table; the roster has {roster}.",
                              smallest, roster=players) if players < smallest else
                           T("The games on offer can't seat exactly {n} players. Offer more games.", n=players))
    sizes = sorted(best[players][3], key=lambda s: (s != 4, s))  # type: ignore[index]
    # A requested game that fits none of these sizes (a game for two among tables of four) gets
    # a table of its smallest count where the rest of the roster can still be seated.
    for game_id in sorted(wanted or {}, key=lambda g: (-(wanted or {})[g], g)):
        game = next((g for g in offered if g.id == game_id), None)
        if game is None or any(size in game.players for size in sizes):
            continue
        own = min(game.players)
        rest = players - own
        if rest >= 0 and best[rest] is not None and (rest == 0 or best[rest][3]):  # type: ignore[index]
            sizes = sorted((*best[rest][3], own), key=lambda s: (s != 4, s))  # type: ignore[index]
            break
    # Spread the games over the round's tables; for *every game in turn* (``tables_before``:
    # the night's tables of each game so far) over the night's tables too.
    used = {game.id: (tables_before or {}).get(game.id, 0) for game in offered}
    plan: list[TablePlan | None] = [None] * len(sizes)
    # Requested games first (most asked first): tables of a size the game plays, enough for
    # its requests where the round has them.
    for game_id, asked in sorted((wanted or {}).items(), key=lambda item: (-item[1], item[0])):
        game = next((g for g in offered if g.id == game_id), None)
        seats = 0
        for t, size in enumerate(sizes):
            if game is not None and plan[t] is None and size in game.players and seats < asked:
                plan[t] = TablePlan(game.id, size)
                used[game.id] += 1
                seats += size
    for t, size in enumerate(sizes):
        if plan[t] is not None:
            continue
        fitting = [g for g in offered if size in g.players] or [g for g in offered if size in g.variant_players]
        fewest = min(used[g.id] for g in fitting)
        game = rng.choice([g for g in fitting if used[g.id] == fewest])  # spread the games over the tables
        used[game.id] += 1
        plan[t] = TablePlan(game.id, size)
    return tuple(p for p in plan if p is not None)


def _plan_chosen(players: int, chosen: Sequence[Chosen], games: Mapping[str, Game]) -> tuple[TablePlan, ...]:
    options: list[list[tuple[int, int]]] = []  # per table: (cost, size) it may take
    for entry in chosen:
        game_id, size = (entry, None) if isinstance(entry, str) else entry
        if game_id not in games:
            raise ValueError(f"not a game: {game_id!r}")
        game = games[game_id]
        if size is not None:
            cost = _count_cost(game, size)
            if cost is None:
                reason = game.check_players(size)  # not None: the game allows no such count
                assert reason is not None
                raise SeatingError(reason)
            options.append([(cost, size)])
        else:
            options.append(sorted((c, s) for s in (*game.players, *game.variant_players)
                                  if (c := _count_cost(game, s)) is not None))
    # reach[k][total]: the cheapest sizes of the first k tables seating ``total`` players.
    reach: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for table_options in options:
        after: dict[int, tuple[int, tuple[int, ...]]] = {}
        for total, (cost, sizes) in reach.items():
            for c, size in table_options:
                option = (cost + c, sizes + (size,))
                if total + size not in after or option < after[total + size]:
                    after[total + size] = option
        reach = after
    if players not in reach:
        raise SeatingError(T("These tables can't seat exactly {n} players (they seat {totals}). Add or remove "
                             "a table, or choose another game.", n=players, totals=_totals_text(sorted(reach))))
    sizes = reach[players][1]
    return tuple(TablePlan(entry if isinstance(entry, str) else entry[0], size) for entry, size in zip(chosen, sizes))


# --------------------------------------------------------------------------------------------
# Partners


@lru_cache(maxsize=256)
def entrant_seats(game: Game, size: int) -> tuple[tuple[int, ...], ...]:
    """The seats of each entrant of ``game`` with ``size`` players (what its standings rank:
    a player, or a team of partners), in the order the game ranks them: its teams as the game
    declares them (:meth:`Game.seating`, whichever seats it makes partners), else each seat
    alone."""
    teams = game.seating(size)
    if not teams:
        return tuple((seat,) for seat in range(size))
    alone = [(seat,) for seat in range(size) if all(seat not in team.seats for team in teams)]
    return tuple(tuple(team.seats) for team in teams) + tuple(alone)


def partner_groups(game: Game, size: int) -> tuple[tuple[int, ...], ...]:
    """The seats that are partners (one entrant of two or more seats); () for a game of
    single players."""
    return tuple(seats for seats in entrant_seats(game, size) if len(seats) > 1)


def _tables(round_: Round) -> Sequence[Seating]:
    return round_.tables if isinstance(round_, Draw) else round_


def _history_counts(index: Mapping[PlayerId, int], history: Iterable[Round], games: Mapping[str, Game]
                    ) -> tuple[list[list[int]], list[list[int]]]:
    """How often each two roster players shared a table, and were partners, before."""
    n = len(index)
    met = [[0] * n for _ in range(n)]
    partnered = [[0] * n for _ in range(n)]
    for round_ in history:
        for table in _tables(round_):
            here = [index.get(p) for p in table.players]
            present = [i for i in here if i is not None]
            for a, b in combinations(present, 2):
                met[a][b] += 1
                met[b][a] += 1
            game = games.get(table.game)
            if game is None:
                continue
            for group in partner_groups(game, len(table.players)):
                for sa, sb in combinations(group, 2):
                    a, b = here[sa], here[sb]
                    if a is not None and b is not None:
                        partnered[a][b] += 1
                        partnered[b][a] += 1
    return met, partnered


# --------------------------------------------------------------------------------------------
# The search


# The cost of a round, lexicographic in one integer: each pair seated again costs REPEAT (the
# count the draw must keep low), each partner pair again PARTNER, and, below both, a pair
# costs met² so that a pair who met twice is split before a pair who met once.
REPEAT = 10 ** 8
PARTNER = 10 ** 5

# By standings, two tablemates cost STANDING_GAP per squared place point between them (so a
# table of similar players is cheap and the leaders end up together), and a pair who already
# shared a table tonight costs STANDING_REPEAT (and met² below it, as when mixing): a repeat
# weighs as much as a gap of about ⅓ place point (a tenth of a squared point). Partners again
# still cost PARTNER on top: a tenth of a squared point too. Squared gaps make two small gaps
# cheaper than one big one.
STANDING_GAP = 10 ** 6
STANDING_REPEAT = 10 ** 5
# A third meeting by standings (issue 47) weighs as a whole place point between two tablemates:
# with level points the draw avoids it as mixing does; the leaders, points apart from the rest,
# still sit together.
STANDING_THIRD = STANDING_GAP


# The room's other wishes (issue 36), weighed in the same units as mixing (a repeat REPEAT):
# - never together (pairs the organiser sets): NEVER per such pair at one table, above all else
#   (above THIRD, a pair's third meeting, below);
# - newcomers looked after: NEWCOMER per player new to the table's game with nobody at the table
#   who has played it (only when someone on the roster has): as much as one repeated pair;
# - every game in turn: GAME_AGAIN per time a player already played the table's game tonight
#   (twice before: twice that): ten repeated pairs' worth, more than any one seat can save, so
#   when asked for, a new game comes first and mixing chooses among the draws that give one (a
#   games night rotating its tables). Why: below a repeat, one player a table kept the same game
#   all night at twelve players on three tables of four (rotating forces repeats there);
# - balanced: BALANCE per squared rating point (μ) between a table's mean and the room's mean for
#   its game, times the table's size: a table 3 μ points off costs about a tenth of a repeat.
NEVER = 10 ** 17
NEWCOMER = 10 ** 8
GAME_AGAIN = 10 * REPEAT
BALANCE = 10 ** 6
# A game request (issue 47) not met: a player not at a table of the game they asked for, or a
# learner there with nobody who knows it. Ten games again' worth (a request outweighs every game
# in turn, whose cost a player asking to play a game again doesn't pay there) and a hundred
# repeats; a whole round of 100 players' requests (10¹²) stays below one third meeting (THIRD).
REQUEST = 10 * GAME_AGAIN

# No third meeting (issue 47): the draw's order is never together > no pair meets a third time >
# every game in turn > fewer repeats. A pair seated together for the third time tonight (or the
# fourth…) costs THIRD on top of its repeat: more than the game-again costs of a whole round of
# up to 10,000 player-games played again (GAME_AGAIN each), so no new game, no balance, no
# newcomer and no number of repeats is bought with a third meeting; only the room's size forces
# one (eight players at two tables of four for five rounds: 60 pair meetings over 28 pairs).
# NEVER is above 10,000 third meetings, so a never-together pair is never seated to avoid them.
THIRD = 10 ** 13
# Below a repeat: a second meeting costs SECOND per player either of the two has not met yet
# tonight (at most 2 × 10⁴ a pair with 100 players, a round's all far below one REPEAT).
SECOND = 100


class _TableCosts:
    """What a table's players cost beyond their pairs. A table's players are summed up in a
    small state (their strength, their games again, how many know the game), so a swap's
    change is worked out from the two players alone."""

    def __init__(self, plan: Sequence[TablePlan], n: int, *, strength: Sequence[Mapping[str, float]] | None = None,
                 played_tonight: Sequence[Mapping[str, int]] | None = None,
                 experienced: Sequence[frozenset[str]] | None = None,
                 requests: Sequence[tuple[str, bool] | None] | None = None,
                 known: Sequence[frozenset[str]] | None = None):
        self.n = n
        self.balance = strength is not None
        self._strength_of, self._played, self._experienced = strength, played_tonight, experienced
        self._requests = requests if requests and any(requests) else None
        self._known = known
        self._rows: dict[str, tuple] = {}
        # Per table, per player, the rows of its game (:meth:`rows`); a table's game may change
        # during the search (:meth:`set_game`).
        self.strength: list[list[float]] = []
        self.again: list[list[int]] = []
        self.knows: list[list[int] | None] = []
        self.learns: list[list[int] | None] = []
        self.teaches: list[list[int]] = []
        for table in plan:
            for rows, row in zip((self.strength, self.again, self.knows, self.learns, self.teaches),
                                 self.rows(table.game)):
                rows.append(row)

    def free(self, game: str) -> int:
        """How many players a table of ``game`` costs nothing (they haven't played it, or asked for it)."""
        return sum(1 for cost in self.rows(game)[1] if cost == 0)

    def set_game(self, t: int, game: str) -> None:
        """Table ``t`` plays ``game`` from now on."""
        (self.strength[t], self.again[t], self.knows[t], self.learns[t], self.teaches[t]) = self.rows(game)

    def rows(self, game: str) -> tuple:
        """Per player, at a table of ``game``: their strength for it (centred on the room's mean
        for it); what playing it again costs; 1 if they know it (None: the wish is off, or nobody
        on the roster knows it, so nobody could help); 1 if they asked to learn it (None: nobody
        did, or nobody could teach); 1 if they could teach it. Zeros where the wish is off."""
        found = self._rows.get(game)
        if found is not None:
            return found
        n = self.n
        strength = [0.0] * n
        if self._strength_of is not None:
            row = [r.get(game, r.get("", 0.0)) for r in self._strength_of]
            mean = sum(row) / n
            strength = [value - mean for value in row]
        again = [0] * n if self._played is None else [GAME_AGAIN * counts.get(game, 0) for counts in self._played]
        knows = None
        if self._experienced is not None:
            knows = [int(game in games) for games in self._experienced]
            knows = knows if any(knows) else None
        # Requests: a requester at another game's table costs REQUEST (in ``again``; at their
        # game, no game-again: they asked for it); a learner there needs a teacher (someone who
        # knows the game and isn't learning it), unless nobody on the roster knows it.
        learns, teaches = None, [0] * n
        if self._requests is not None:
            wanted = [int(r is not None and r == (game, True)) for r in self._requests]
            could = [int(game in self._known[p] and not wanted[p]) if self._known else 0 for p in range(n)]
            if any(wanted) and any(could):
                learns, teaches = wanted, could
            for p, wish in enumerate(self._requests):
                if wish is not None:
                    again[p] = 0 if wish[0] == game else again[p] + REQUEST
        found = (strength, again, knows, learns, teaches)
        self._rows[game] = found
        return found

    def state(self, t: int, members: Sequence[int]) -> tuple:
        """(strength off the mean, again, players who know the game, players, learners asking
        for it, teachers) of table ``t``."""
        knows, learns, teaches = self.knows[t], self.learns[t], self.teaches[t]
        return (sum(self.strength[t][p] for p in members), sum(self.again[t][p] for p in members),
                sum(knows[p] for p in members) if knows is not None else 1, len(members),
                sum(learns[p] for p in members) if learns is not None else 0, sum(teaches[p] for p in members))

    def moved(self, t: int, state: tuple, out: int, into: int) -> tuple:
        """The state after ``out`` leaves table ``t`` and ``into`` takes the seat."""
        strength, again, knowing, size, learning, teaching = state
        knows, learns, teaches = self.knows[t], self.learns[t], self.teaches[t]
        return (strength - self.strength[t][out] + self.strength[t][into],
                again - self.again[t][out] + self.again[t][into],
                knowing - knows[out] + knows[into] if knows is not None else 1, size,
                learning - learns[out] + learns[into] if learns is not None else 0,
                teaching - teaches[out] + teaches[into])

    def cost(self, state: tuple) -> int:
        strength, again, knowing, size, learning, teaching = state
        cost = again + (NEWCOMER * size if knowing == 0 else 0) + (REQUEST * learning if teaching == 0 else 0)
        if self.balance:
            cost += round(BALANCE * strength * strength / size)
        return cost


def _again(met: int, fresh: int) -> int:
    """Mixing: what seating a pair who met ``met`` times tonight together once more costs:
    nothing for a first meeting; for a second REPEAT, and 1 + SECOND per player either of the two
    has not met yet (``fresh``) below it; for a third or later THIRD + REPEAT + met²."""
    if met == 0:
        return 0
    if met == 1:
        return REPEAT + 1 + SECOND * fresh
    return THIRD + REPEAT + met * met


def _pair_costs(met: list[list[int]], points: Sequence[Fraction] | None) -> list[list[int]]:
    """What seating each two roster players at one table costs: mixing, a repeat REPEAT (and
    met² below it), a third meeting THIRD more (:func:`_again`); by standings (``points`` per
    player), the squared gap, a repeat STANDING_REPEAT (and met²) and a third meeting
    STANDING_THIRD more."""
    n = len(met)
    if points is None:
        # A second meeting also costs SECOND per player either of the two has not met yet: among
        # rounds of as many repeats, the one whose repeats fall on players with fewest fresh
        # tablemates left (they would meet someone again anyway), so those with many keep them,
        # and a later round still seats everyone without a third meeting.
        fresh = [sum(1 for b, m in enumerate(row) if m == 0 and b != a) for a, row in enumerate(met)]
        return [[_again(met[a][b], fresh[a] + fresh[b]) for b in range(n)] for a in range(n)]
    return [[0 if a == b else round(STANDING_GAP * (points[a] - points[b]) ** 2)
             + (0 if met[a][b] == 0 else STANDING_REPEAT + met[a][b] ** 2)
             + (STANDING_THIRD if met[a][b] >= 2 else 0) for b in range(n)] for a in range(n)]


def _block_sizes(groups: tuple[tuple[int, ...], ...], size: int) -> tuple[int, ...]:
    grouped = {seat for group in groups for seat in group}
    return tuple(len(g) for g in groups) + (1,) * (size - len(grouped))


def _partitions(members: tuple[int, ...], sizes: tuple[int, ...]) -> Iterable[tuple[tuple[int, ...], ...]]:
    """Every way to split ``members`` into blocks of ``sizes`` (blocks of equal size unordered)."""
    if not sizes:
        yield ()
        return
    if len(set(sizes)) > 1:  # uneven teams: try every order (tables are at most six)
        seen = set()
        for order in permutations(members):
            blocks, at = [], 0
            for size in sizes:
                blocks.append(tuple(sorted(order[at:at + size])))
                at += size
            key = tuple(blocks)
            if key not in seen:
                seen.add(key)
                yield key
        return
    first, rest = members[0], members[1:]
    for others in combinations(rest, sizes[0] - 1):
        block = (first, *others)
        remaining = tuple(m for m in rest if m not in others)
        for tail in _partitions(remaining, sizes[1:]):
            yield (block, *tail)


@lru_cache(maxsize=64)
def _partition_patterns(k: int, sizes: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """:func:`_partitions` of the positions 0..k-1, worked out once per table shape (a search
    asks for the partners of thousands of foursomes)."""
    return tuple(_partitions(tuple(range(k)), sizes))


class _Search:
    """The state of one round's search: players are indexes 0..n-1 into the roster."""

    def __init__(self, plan: Sequence[TablePlan], met: list[list[int]], partnered: list[list[int]],
                 games: Mapping[str, Game], points: Sequence[Fraction] | None = None,
                 never: Iterable[tuple[int, int]] = (), table_costs: "_TableCosts | None" = None):
        self.plan = list(plan)  # a table's game may change (:meth:`regame`); its size never
        self.games = games
        n = len(met)
        self.n = n
        self.cost = _pair_costs(met, points)
        for a, b in never:
            self.cost[a][b] += NEVER
            self.cost[b][a] += NEVER
        self.table_costs = table_costs
        self.partnered = partnered
        self.any_partners = any(any(row) for row in partnered)
        # Per table: the block sizes of its partners (None for a game of single players).
        self.blocks: list[tuple[int, ...] | None] = [self._blocks_of(table) for table in plan]
        self._partner_memo: dict[tuple[str, tuple[int, ...]], tuple[int, tuple]] = {}

    def _blocks_of(self, table: TablePlan) -> tuple[int, ...] | None:
        groups = partner_groups(self.games[table.game], table.size)
        return _block_sizes(groups, table.size) if groups else None

    # ---- partners at one table
    def partner_best(self, table: int, members: Sequence[int]) -> tuple[int, tuple]:
        """The lowest partner cost of ``members`` at ``table`` and the blocks achieving it."""
        sizes = self.blocks[table]
        if sizes is None or not self.any_partners:
            return 0, ()
        key = (self.plan[table].game, tuple(sorted(members)))
        found = self._partner_memo.get(key)
        if found is None:
            found = (1 << 62, ())
            members = key[1]
            partnered = self.partnered
            for pattern in _partition_patterns(len(members), sizes):
                blocks = tuple(tuple(members[i] for i in block) for block in pattern)
                cost = sum(PARTNER * partnered[a][b] for block in blocks for a, b in combinations(block, 2))
                if cost < found[0]:
                    found = (cost, blocks)
            self._partner_memo[key] = found
        return found

    # ---- one arrangement
    def start(self, groups: list[list[int]], plan: Sequence[TablePlan] | None = None) -> None:
        """Seat ``groups`` (per table, its players), the tables playing ``plan``'s games (None:
        as they are)."""
        if plan is not None:
            self.plan = list(plan)
            self.blocks = [self._blocks_of(table) for table in plan]
            if self.table_costs is not None:
                for t, table in enumerate(plan):
                    self.table_costs.set_game(t, table.game)
        self.groups = [list(g) for g in groups]
        self.where = [0] * self.n
        for t, members in enumerate(self.groups):
            for p in members:
                self.where[p] = t
        cost = self.cost
        # at[p][t]: what p pays for the players of table t (not counting p itself).
        self.at = [[sum(cost[p][x] for x in members if x != p) for members in self.groups] for p in range(self.n)]
        self.partner_cost = [self.partner_best(t, members)[0] for t, members in enumerate(self.groups)]
        costs = self.table_costs
        self.table_state = [costs.state(t, members) if costs else None for t, members in enumerate(self.groups)]
        self.table_cost = [costs.cost(state) if costs else 0 for state in self.table_state]
        self.total = (sum(self.at[p][self.where[p]] for p in range(self.n)) // 2) + sum(self.partner_cost) \
            + sum(self.table_cost)

    def delta(self, a: int, b: int) -> tuple[int, int, int, tuple | None, tuple | None]:
        """The change of cost if ``a`` and ``b`` (at different tables) swap seats, and the two
        tables' partner costs and table states after it."""
        ta, tb = self.where[a], self.where[b]
        at_a, at_b, cab = self.at[a], self.at[b], self.cost[a][b]
        d = at_b[ta] + at_a[tb] - 2 * cab - at_a[ta] - at_b[tb]
        pa, pb = self.partner_cost[ta], self.partner_cost[tb]
        if self.any_partners and (self.blocks[ta] is not None or self.blocks[tb] is not None):
            if self.blocks[ta] is not None:
                pa = self.partner_best(ta, [b if x == a else x for x in self.groups[ta]])[0]
            if self.blocks[tb] is not None:
                pb = self.partner_best(tb, [a if x == b else x for x in self.groups[tb]])[0]
            d += pa - self.partner_cost[ta] + pb - self.partner_cost[tb]
        sa = sb = None
        costs = self.table_costs
        if costs:
            sa = costs.moved(ta, self.table_state[ta], a, b)
            sb = costs.moved(tb, self.table_state[tb], b, a)
            d += costs.cost(sa) - self.table_cost[ta] + costs.cost(sb) - self.table_cost[tb]
        return d, pa, pb, sa, sb

    def swap(self, a: int, b: int, d: int, pa: int, pb: int, sa: tuple | None = None, sb: tuple | None = None
             ) -> None:
        ta, tb = self.where[a], self.where[b]
        ga, gb = self.groups[ta], self.groups[tb]
        ga[ga.index(a)] = b
        gb[gb.index(b)] = a
        self.where[a], self.where[b] = tb, ta
        cost = self.cost
        for p in range(self.n):  # a left ta for tb, b the other way
            row, at = cost[p], self.at[p]
            at[ta] += row[b] - row[a]
            at[tb] += row[a] - row[b]
        # A player's own cost[p][p] is 0, so the loop left a's and b's own sums right.
        self.partner_cost[ta], self.partner_cost[tb] = pa, pb
        if sa is not None and sb is not None:
            self.table_state[ta], self.table_state[tb] = sa, sb
            self.table_cost[ta], self.table_cost[tb] = self.table_costs.cost(sa), self.table_costs.cost(sb)
        self.total += d

    def descend(self, rng: random.Random, budget: int) -> int:
        """Swap while a swap lowers the cost (first improvement, in random order); returns
        the number of swaps looked at."""
        pairs = [(a, b) for a in range(self.n) for b in range(a + 1, self.n)]
        looked = 0
        while looked < budget and self.total > 0:
            rng.shuffle(pairs)
            improved = False
            for a, b in pairs:
                if self.where[a] == self.where[b]:
                    continue
                looked += 1
                d, *after = self.delta(a, b)
                if d < 0:
                    self.swap(a, b, d, *after)
                    improved = True
                    if self.total == 0:
                        break
                if looked >= budget:
                    break
            if not improved:
                break
        return looked

    def set_game(self, t: int, table: TablePlan) -> int:
        """Table ``t`` plays ``table``'s game from now on; returns the change of cost."""
        costs = self.table_costs
        self.plan[t], self.blocks[t] = table, self._blocks_of(table)
        costs.set_game(t, table.game)
        members = self.groups[t]
        state = costs.state(t, members)
        cost, partner = costs.cost(state), self.partner_best(t, members)[0]
        d = cost - self.table_cost[t] + partner - self.partner_cost[t]
        self.table_state[t], self.table_cost[t], self.partner_cost[t] = state, cost, partner
        self.total += d
        return d

    def regame(self, rng: random.Random, choices: Sequence[Sequence[str]], budget: int,
               night: Mapping[str, int] | None = None) -> tuple[bool, int]:
        """Give a table another game (``choices[t]``: the games table ``t`` may play) where that
        lowers the cost: every game in turn may rotate better with two tables of one game than
        with one table each of two games played already (twelve players after a first round of
        three games out of four: three tables of the fourth cost 3 repeats, one of it and two of
        the played games 6). A table where someone plays a game again (or misses a request)
        tries each other game, the players swapped afresh (``budget`` swaps looked at), kept
        only if the round costs a repeat's worth less (a new game is never chosen for balance
        alone: balanced tables of two games each went on to repeat twice as many pairs at 24
        players over five rounds); no dearer with the same players, a game fewer have played
        is kept (it leaves the next swaps more room). A game never gets more than GAME_SPREAD
        tables more, over the night so far (``night``: its earlier rounds' tables) and this round,
        than the game of that size with fewest (six tables of one game in a round of 24 left later
        rounds no rotation but repeats). Returns (any table changed, swaps looked at)."""
        costs = self.table_costs
        if costs is None:
            return False, 0
        changed, looked, tries = False, 0, 0
        for t in rng.sample(range(len(self.plan)), len(self.plan)):
            current = self.plan[t]
            pays = self.table_state[t][1] > 0  # someone there plays it again, or misses a request
            tables = dict(night or {})
            for table in self.plan:
                tables[table.game] = tables.get(table.game, 0) + 1
            tables[current.game] -= 1  # the table itself, whichever game it takes
            fewest = min(tables.get(g, 0) for g in choices[t])
            others = [g for g in choices[t] if g != current.game and tables.get(g, 0) + 1 - fewest <= GAME_SPREAD]
            rng.shuffle(others)
            others.sort(key=costs.free, reverse=True)
            for game in others:
                before_total = self.total
                d = self.set_game(t, TablePlan(game, current.size))
                if d <= -REPEAT or (d <= 0 and costs.free(game) > costs.free(current.game)):
                    changed = True
                    break
                if not pays or tries >= REGAME_TRIES:
                    self.set_game(t, current)  # back, as cheaply as it came
                    continue
                tries += 1
                self.set_game(t, current)
                before_groups, before_plan = [list(g) for g in self.groups], list(self.plan)
                self.set_game(t, TablePlan(game, current.size))
                looked += self.descend(rng, budget)
                if self.total <= before_total - REPEAT:
                    changed = True
                    break
                self.start(before_groups, before_plan)
        return changed, looked

    def kick(self, rng: random.Random, swaps: int) -> None:
        """A few random swaps, to leave a local optimum."""
        for _ in range(swaps):
            a, b = rng.sample(range(self.n), 2)
            if self.where[a] != self.where[b]:
                self.swap(a, b, *self.delta(a, b))


def _greedy_groups(plan: Sequence[TablePlan], met: list[list[int]], rng: random.Random) -> list[list[int]]:
    """The simple greedy mixer: players in random order, each to the table (with a free seat)
    where they have met the fewest players already seated; ties to a random one of them."""
    order = list(range(len(met)))
    rng.shuffle(order)
    groups: list[list[int]] = [[] for _ in plan]
    for p in order:
        open_tables = [t for t, table in enumerate(plan) if len(groups[t]) < table.size]
        known = {t: sum(1 for x in groups[t] if met[p][x]) for t in open_tables}
        fewest = min(known.values())
        groups[rng.choice([t for t in open_tables if known[t] == fewest])].append(p)
    return groups


def _random_groups(plan: Sequence[TablePlan], n: int, rng: random.Random) -> list[list[int]]:
    order = list(range(n))
    rng.shuffle(order)
    groups, at = [], 0
    for table in plan:
        groups.append(order[at:at + table.size])
        at += table.size
    return groups


def _seat(search: _Search, plan: Sequence[TablePlan], groups: list[list[int]], roster: Sequence[PlayerId],
          games: Mapping[str, Game], rng: random.Random) -> tuple[Seating, ...]:
    """Each table's seat order: drawn at random; in a team game the partner blocks with the
    fewest partners again go to the game's partner seats."""
    seated = []
    for t, (table, members) in enumerate(zip(plan, groups)):
        members = sorted(members)  # the seat draw below must not depend on the search's order
        groups_of_game = partner_groups(games[table.game], table.size)
        if not groups_of_game:
            rng.shuffle(members)
            seated.append(Seating(table.game, tuple(roster[p] for p in members)))
            continue
        sizes = _block_sizes(groups_of_game, table.size)
        options = list(_partitions(tuple(members), sizes))
        costs = [sum(PARTNER * search.partnered[a][b] for block in blocks for a, b in combinations(block, 2))
                 for blocks in options]
        lowest = min(costs)
        tied = [o for o, c in zip(options, costs) if c == lowest]
        if len(tied) > 1:
            # Look one round ahead: keep the pairings that leave the most fresh pairings for
            # the next round at this table (six players choosing greedily can otherwise use
            # up their fresh partners in a way no fifth round can complete).
            def fresh_after(blocks: tuple) -> int:
                now = {frozenset(pair) for block in blocks for pair in combinations(block, 2)}
                return sum(1 for other in options
                           if all(not search.partnered[a][b] and frozenset((a, b)) not in now
                                  for block in other for a, b in combinations(block, 2)))
            most = max(fresh_after(o) for o in tied)
            tied = [o for o in tied if fresh_after(o) == most]
        blocks = [list(block) for block in rng.choice(tied)]
        rng.shuffle(blocks)
        for block in blocks:
            rng.shuffle(block)
        seats: list[int | None] = [None] * table.size
        free_groups = list(groups_of_game)
        singles = [s for s in range(table.size) if all(s not in g for g in groups_of_game)]
        for block in blocks:
            if len(block) == 1 and singles:
                seats[singles.pop(0)] = block[0]
                continue
            group = next(g for g in free_groups if len(g) == len(block))
            free_groups.remove(group)
            for seat, p in zip(group, block):
                seats[seat] = p
        seated.append(Seating(table.game, tuple(roster[p] for p in seats)))  # type: ignore[index]
    return tuple(seated)


def _roster_index(roster: Sequence[PlayerId]) -> dict[PlayerId, int]:
    index: dict[PlayerId, int] = {}
    for p in roster:
        if p in index:
            raise ValueError(f"player {p!r} is twice on the roster")
        index[p] = len(index)
    return index


def _finish(tables: tuple[Seating, ...], index: Mapping[PlayerId, int], met: list[list[int]],
            partnered: list[list[int]], games: Mapping[str, Game],
            requests: Mapping[PlayerId, tuple[str, bool]] | None = None,
            known: Mapping[PlayerId, Iterable[str]] | None = None) -> Draw:
    repeats = partner_repeats = 0
    for table in tables:
        members = [index[p] for p in table.players]
        repeats += sum(1 for a, b in combinations(members, 2) if met[a][b])
        for group in partner_groups(games[table.game], len(members)):
            partner_repeats += sum(1 for sa, sb in combinations(group, 2) if partnered[members[sa]][members[sb]])
    if not requests:
        return Draw(tables, repeats, partner_repeats)
    asked = {p: wish for p, wish in requests.items() if p in index}
    granted, _ = requests_met(tables, asked, experience=known)
    again = tuple(p for table in tables for p in table.players if p in granted
                  and any(met[index[p]][index[q]] for q in table.players if q != p))
    return Draw(tables, repeats, partner_repeats, len(asked), len(granted), again)


def requests_met(tables: Iterable[Seating], requests: Mapping[PlayerId, tuple[str, bool]], *,
                 experience: Mapping[PlayerId, Iterable[str]] | None = None, history: Iterable[Round] = ()
                 ) -> tuple[frozenset, frozenset]:
    """Which of ``requests`` (player -> (game id, wants to learn)) a round's ``tables`` meet, and
    which not: a player asking to play a game is met at a table of it; one asking to learn it,
    at a table of it with someone who knows it (played it before, per ``experience``, or at a
    table of ``history``, tonight's earlier rounds) and isn't learning it, or with nobody seated
    who knows it (nobody could teach)."""
    tables = list(tables)
    known: dict[PlayerId, set[str]] = {p: set(experience.get(p, ())) if experience else set()
                                       for t in tables for p in t.players}
    for round_ in history:
        for table in _tables(round_):
            for p in table.players:
                if p in known:
                    known[p].add(table.game)
    met, unmet = set(), set()
    for player, (game, learn) in requests.items():
        table = next((t for t in tables if player in t.players), None)
        if table is None:
            continue  # not in this draw (sitting out): neither met nor missed
        teachers = [q for q in table.players if q != player and game in known[q] and requests.get(q) != (game, True)]
        nobody_knows = not any(game in games for q, games in known.items() if requests.get(q) != (game, True))
        ok = table.game == game and (not learn or bool(teachers) or nobody_knows)
        (met if ok else unmet).add(player)
    return frozenset(met), frozenset(unmet)


# Search effort: starts, and swaps looked at per start. Enough to find a repeat-free round
# where one exists for nights up to 40 players and 5 rounds, small enough to draw a round of
# 40 in well under a second on a slow laptop (the draw stops early once no pair repeats).
STARTS = 12
KICKS = 6
WEIGHED_LOOKS = 15_000


REGAMES = 3  # rounds of :meth:`_Search.regame` after a descent, each followed by another descent
REGAME_TRIES = 4  # per round of it, the other games tried with the players swapped afresh
GAME_SPREAD = 2  # a game's tables tonight at most this many more than the fewest of a game of that size


def _game_choices(plan: Sequence[TablePlan], offered: Sequence[Game], games: Mapping[str, Game]) -> list[list[str]]:
    """Per table, the games it may play instead: the offered games whose own counts include its
    size (a table at a variant's count keeps its game)."""
    choices = []
    for table in plan:
        if table.size not in games[table.game].players:
            choices.append([table.game])
        else:
            choices.append([table.game] + [g.id for g in offered if g.id != table.game and table.size in g.players])
    return choices


def _exact_points(index: Mapping[PlayerId, int], standings: Mapping[PlayerId, Real]) -> list[Fraction]:
    """Each roster player's place points so far, exact (0 for a player with no result yet)."""
    points = [Fraction(0)] * len(index)
    for player, value in standings.items():
        if player in index:
            points[index[player]] = Fraction(value)
    return points


def _strongest_first(plan: Sequence[TablePlan], groups: list[list[int]], points: Sequence[Fraction]
                     ) -> tuple[list[TablePlan], list[list[int]]]:
    """The tables reordered by their players' mean place points, highest first (ties keep the
    plan's order): by standings, table 1 is the leaders' table."""
    order = sorted(range(len(plan)), key=lambda t: -sum(points[p] for p in groups[t]) / len(groups[t]))
    return [plan[t] for t in order], [groups[t] for t in order]


def _tables_of_each_game(history: Sequence[Round]) -> dict[str, int]:
    """How many tables of each game the night's earlier rounds had."""
    counts: dict[str, int] = {}
    for round_ in history:
        for table in _tables(round_):
            counts[table.game] = counts.get(table.game, 0) + 1
    return counts


def _known_tonight(index: Mapping[PlayerId, int], history: Sequence[Round],
                   experience: Mapping[PlayerId, Iterable[str]] | None) -> dict[PlayerId, set[str]]:
    """The games each roster player knows: played before tonight (``experience``) or tonight."""
    tonight = _games_tonight(index, history)
    return {p: set((experience or {}).get(p, ())) | set(tonight[i]) for p, i in index.items()}


def _games_tonight(index: Mapping[PlayerId, int], history: Sequence[Round]) -> list[dict[str, int]]:
    """How often each roster player played each game in the night's earlier rounds."""
    counts: list[dict[str, int]] = [{} for _ in index]
    for round_ in history:
        for table in _tables(round_):
            for p in table.players:
                if p in index:
                    row = counts[index[p]]
                    row[table.game] = row.get(table.game, 0) + 1
    return counts


def _table_costs(plan: Sequence[TablePlan], index: Mapping[PlayerId, int], history: Sequence[Round], *,
                 strength: Mapping[PlayerId, Mapping[str, float]] | None, every_game: bool,
                 experience: Mapping[PlayerId, Iterable[str]] | None,
                 requests: Mapping[PlayerId, tuple[str, bool]] | None = None,
                 known: Mapping[PlayerId, Iterable[str]] | None = None) -> _TableCosts | None:
    if strength is None and not every_game and experience is None and not requests:
        return None
    tonight = _games_tonight(index, history)
    rows = None
    if strength is not None:
        rated = [strength[p] for p in index if p in strength]
        # A player the caller has no figure for counts as the room's average (of overall figures).
        average = sum(row.get("", 0.0) for row in rated) / len(rated) if rated else 0.0
        rows = [strength.get(p, {"": average}) for p in index]
    # The games each has played before tonight (when given), and tonight so far.
    experienced = None
    if experience is not None:
        experienced = [frozenset(experience.get(p, ())) | frozenset(tonight[i]) for p, i in index.items()]
    teachers = experience if known is None else known
    knowing = [frozenset((teachers or {}).get(p, ())) | frozenset(tonight[i]) for p, i in index.items()]
    wishes = [(requests or {}).get(p) for p in index]
    return _TableCosts(plan, len(index), strength=rows, played_tonight=tonight if every_game else None,
                       experienced=experienced, requests=wishes if any(wishes) else None, known=knowing)


def draw_round(roster: Sequence[PlayerId], history: Iterable[Round] = (), *, offered: Iterable[str] | None = None,
               chosen: Sequence[Chosen] | None = None, seed: object = 0, games: Mapping[str, Game] = GAMES,
               starts: int = STARTS, kicks: int = KICKS, standings: Mapping[PlayerId, Real] | None = None,
               strength: Mapping[PlayerId, Mapping[str, float]] | None = None, every_game: bool = False,
               experience: Mapping[PlayerId, Iterable[str]] | None = None,
               never: Iterable[tuple[PlayerId, PlayerId]] = (),
               requests: Mapping[PlayerId, tuple[str, bool]] | None = None,
               known: Mapping[PlayerId, Iterable[str]] | None = None) -> Draw:
    """Draw the next round's seating for ``roster``.

    ``history``: the night's earlier rounds (each a :class:`Draw` or its tables), in any order.
    ``offered``: the game ids the app may fill tables with (default every game); ``chosen``:
    the organiser's games for this round's tables instead (each a game id, or (id, size)).
    ``seed``: any int or str; the same inputs and seed give the same draw.
    ``standings``: draw *by standings* instead of mixing: each player's place points so far
    (read from the night's results; a player not in it has 0); similar players sit together
    and the leaders' table comes first.
    The room's wishes, each a weighted cost in the same search (issue 36): ``strength``
    (*balanced*: per player, their rating per game id, and under "" overall: tables of even
    strength; not with ``standings``), ``every_game`` (each player meets games they haven't
    played tonight), ``experience`` (*newcomers looked after*: per player, the games they
    played before tonight; a newcomer to a table's game sits with someone who knows it) and
    ``never`` (pairs never seated together where the room allows).
    ``requests`` (issue 47): per player, (game id, wants to learn it): "I'd like to play …" or
    "I'd like to learn …"; met as a cost below never together and no third meeting (the
    draw's ``requests_met`` of ``requests_asked``; ``request_repeats`` names the met
    requesters seated beside someone they met tonight). ``known``: per player, the games they
    have played before tonight, for who can teach a learner (default: ``experience``; the
    night's earlier rounds count too), without the newcomers' wish.
    Raises :class:`SeatingError` when the roster can't be seated so."""
    if standings is not None and strength is not None:
        raise ValueError("by standings groups the strong; balanced spreads them: choose one")
    index = _roster_index(roster)
    history = list(history)
    requests = {p: (str(game), bool(learn)) for p, (game, learn) in (requests or {}).items() if p in index}
    wanted: dict[str, int] = {}
    for game_id, _ in requests.values():
        wanted[game_id] = wanted.get(game_id, 0) + 1
    plan = plan_tables(len(index), offered, chosen, games, seed, _tables_of_each_game(history) if every_game else None,
                       wanted)
    met, partnered = _history_counts(index, history, games)
    rng = random.Random(f"{seed}/draw")
    points = None if standings is None else _exact_points(index, standings)
    apart = [(index[a], index[b]) for a, b in never if a in index and b in index and a != b]
    search = _Search(plan, met, partnered, games, points, apart,
                     _table_costs(plan, index, history, strength=strength, every_game=every_game,
                                  experience=experience, requests=requests, known=known))
    n = len(index)
    budget = 4 * n * n  # about eight passes over every pair of players
    # Weighed costs (standings, the room's wishes) seldom reach 0, where mixing stops early:
    # their search stops after WEIGHED_LOOKS swaps looked at in all (a count: the same draw on
    # any laptop), so a draw of 40 answers within a second.
    weighed = points is not None or search.table_costs is not None
    limit = WEIGHED_LOOKS if weighed else None
    # The tables' games are part of the search where a game's cost depends on who plays it
    # (every game in turn, requests): a table may take another offered game of its size.
    choices = _game_choices(plan, _offered(offered, games), games) if not chosen and (every_game or requests) else None
    night_tables = _tables_of_each_game(history)
    looked = 0
    best: tuple[int, list[list[int]], list[TablePlan]] | None = None

    def descend() -> int:
        count = search.descend(rng, budget)
        for _ in range(REGAMES):
            if choices is None:
                break
            # The swaps a game's try looks at are not counted against WEIGHED_LOOKS: counted,
            # they ended the search for 24 players with all three wishes after a few starts
            # (4.8 repeats a night became 9.9); REGAME_TRIES bounds them instead.
            changed, _tried = search.regame(rng, choices, budget, night_tables)
            if not changed:
                break
            count += search.descend(rng, budget)
        return count

    for start in range(starts):
        # The first start is the greedy mixer's seating: the draw is never worse than it.
        groups = _greedy_groups(plan, met, rng) if start == 0 else _random_groups(plan, n, rng)
        search.start(groups, plan)
        looked += descend()
        for kick in range(kicks + 1):
            if best is None or search.total < best[0]:
                best = (search.total, [list(g) for g in search.groups], list(search.plan))
            if best[0] == 0 or kick == kicks or (limit is not None and looked >= limit):
                break
            search.start(best[1], best[2])  # kick from the best seen, not from a worse wander
            search.kick(rng, 2 + kick % 3)
            looked += descend()
        if best[0] == 0 or (limit is not None and looked >= limit):
            break
    assert best is not None
    search.start(best[1], best[2])
    groups, plan = best[1], best[2]
    if points is not None:
        plan, groups = _strongest_first(plan, groups, points)
    tables = _seat(search, plan, groups, list(index), games, rng)
    return _finish(tables, index, met, partnered, games, requests,
                   _known_tonight(index, history, experience if known is None else known))


def greedy_round(roster: Sequence[PlayerId], history: Iterable[Round] = (), *, offered: Iterable[str] | None = None,
                 chosen: Sequence[Chosen] | None = None, seed: object = 0, games: Mapping[str, Game] = GAMES) -> Draw:
    """The simple greedy mixer (a baseline the tests compare :func:`draw_round` with): the same
    tables, each player in random order to the table where they know the fewest, seats at random."""
    index = _roster_index(roster)
    plan = plan_tables(len(index), offered, chosen, games, seed)
    met, partnered = _history_counts(index, history, games)
    rng = random.Random(f"{seed}/greedy")
    groups = _greedy_groups(plan, met, rng)
    tables = []
    for table, members in zip(plan, groups):
        rng.shuffle(members)
        tables.append(Seating(table.game, tuple(roster[p] for p in members)))
    return _finish(tuple(tables), index, met, partnered, games)


def swap_players(draw: Draw, a: PlayerId, b: PlayerId, history: Iterable[Round] = (),
                 games: Mapping[str, Game] = GAMES) -> Draw:
    """The organiser's swap before a round starts: ``a`` and ``b`` change seats (tables and
    seat numbers). ``b`` may be someone not seated yet (a late arrival): then ``b`` takes
    ``a``'s seat and ``a`` is left out. The repeat counts are recounted against ``history``."""
    where_a, where_b = draw.seat_of(a), draw.seat_of(b)
    if where_a is None:
        raise ValueError(f"{a!r} is not seated in this draw")
    seats = [list(table.players) for table in draw.tables]
    seats[where_a[0]][where_a[1]] = b
    if where_b is not None:
        seats[where_b[0]][where_b[1]] = a
    tables = tuple(Seating(table.game, tuple(players)) for table, players in zip(draw.tables, seats))
    index = _roster_index([p for table in tables for p in table.players])
    met, partnered = _history_counts(index, history, games)
    return _finish(tables, index, met, partnered, games)


# --------------------------------------------------------------------------------------------
# A night's mixing, counted


def _tables_shared(rounds: Iterable[Round]) -> dict[tuple, int]:
    """Over the night: for every two players who sat together, how many tables they shared."""
    together: dict[tuple, int] = {}
    for round_ in rounds:
        for table in _tables(round_):
            for a, b in combinations(table.players, 2):
                key = (a, b) if repr(a) <= repr(b) else (b, a)
                together[key] = together.get(key, 0) + 1
    return together


def repeated_pairs(rounds: Iterable[Round]) -> int:
    """Over the night: for every two players, the tables they shared beyond the first, added up."""
    return sum(count - 1 for count in _tables_shared(rounds).values())


def third_meetings(rounds: Iterable[Round]) -> int:
    """Over the night: for every two players, the tables they shared beyond the second, added
    up (a pair at three tables together counts 1, at four 2)."""
    return sum(count - 2 for count in _tables_shared(rounds).values() if count > 2)


def forced_third_meetings(rounds: Iterable[Round]) -> int:
    """The counting bound on :func:`third_meetings`: the night's pair meetings beyond two for
    every pair of its players (8 players × 5 rounds at two tables of four: 60 − 2 × 28 = 4).
    A lower bound only: those 8 × 5 nights can't do with fewer than 8."""
    meetings, players = 0, set()
    for round_ in rounds:
        for table in _tables(round_):
            meetings += len(table.players) * (len(table.players) - 1) // 2
            players.update(table.players)
    return max(0, meetings - len(players) * (len(players) - 1))


def repeated_partners(rounds: Iterable[Round], games: Mapping[str, Game] = GAMES) -> int:
    """Over the night: for every two players, the times they were partners beyond the first."""
    partners: dict[tuple, int] = {}
    for round_ in rounds:
        for table in _tables(round_):
            game = games.get(table.game)
            if game is None:
                continue
            for group in partner_groups(game, len(table.players)):
                for sa, sb in combinations(group, 2):
                    a, b = table.players[sa], table.players[sb]
                    key = (a, b) if repr(a) <= repr(b) else (b, a)
                    partners[key] = partners.get(key, 0) + 1
    return sum(count - 1 for count in partners.values())
