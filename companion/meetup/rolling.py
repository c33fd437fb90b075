"""Rolling tables (issue 47): which free players start the next table, at which game and room
table, as soon as a table can start. Pure: no store, no Flask.

A night of rolling tables has no rounds: a table starts whenever enough players are free (their
table finished, or they just came), a copy of a game on offer is free and a room table is free.
:func:`next_table` picks one such table among the free players only, by the draw's own order of
costs (companion.meetup.seating): never together > no third meeting > who has waited (played
fewer tables tonight) > tables of four (as a round's plan) > the players' game requests (as the
round draw's: below never together and no third meeting; a learner beside someone who knows the
game) > every game in turn > newcomers beside someone who knows the game > fewer repeats. The seat order within the table is then seating.draw_round's, given
just these players and the one table (the service's).

A table that would seat a never-together pair, a third meeting, or only players who have all
met already (the four who just finished, together again) waits while another table is still
playing (its players will be free soon, and may fill it better); with nothing playing, it
starts all the same (the room's size forces it, as in a round).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Hashable, Iterable, Mapping, Sequence

from ..games import GAMES, Game
from . import seating

PlayerId = Hashable

ENUMERATE_UP_TO = 3000  # subsets of one size looked at one by one; past that, improved by swaps
SWAP_PASSES = 6


@dataclass(frozen=True)
class Free:
    """A free player: ``tables`` played tonight (fewer: waited more), ``since`` an order of when
    they became free (smaller: free longer), ``room_table`` the room table they keep (mobility)."""

    id: PlayerId
    tables: int = 0
    since: int = 0
    room_table: int | None = None


@dataclass(frozen=True)
class Start:
    """The next table: its game, its players (not yet in seat order) and its room table (None:
    the room's tables are not set)."""

    game: str
    players: tuple[PlayerId, ...]
    room_table: int | None = None


def free_copies(copies: Mapping[str, int], playing: Iterable[str]) -> dict[str, int]:
    """Per game on offer, the copies not in use (``playing``: the game of each table in play)."""
    left = dict(copies)
    for game in playing:
        if game in left:
            left[game] -= 1
    return {game: count for game, count in left.items() if count > 0}


def shared_tables(history: Iterable[Sequence[seating.Seating]]) -> dict[frozenset, int]:
    """For every two players who sat together tonight, how many tables they shared."""
    met: dict[frozenset, int] = {}
    for round_ in history:
        for table in round_:
            for a, b in combinations(table.players, 2):
                key = frozenset((a, b))
                met[key] = met.get(key, 0) + 1
    return met


def games_tonight(history: Iterable[Sequence[seating.Seating]]) -> dict[PlayerId, set[str]]:
    played: dict[PlayerId, set[str]] = {}
    for round_ in history:
        for table in round_:
            for p in table.players:
                played.setdefault(p, set()).add(table.game)
    return played


@dataclass
class _Costs:
    met: dict[frozenset, int]
    never: set[frozenset]
    played: dict[PlayerId, set[str]]
    experience: Mapping[PlayerId, Iterable[str]] | None
    every_game: bool
    requests: Mapping[PlayerId, tuple[str, bool]] = field(default_factory=dict)
    known: Mapping[PlayerId, Iterable[str]] = field(default_factory=dict)
    copies: Mapping[str, int] = field(default_factory=dict)

    stranded: Mapping[int, int] = field(default_factory=dict)  # table size -> players left with no table

    def of(self, game: Game, members: Sequence[Free], pool: Sequence[Free]) -> tuple:
        ids = [m.id for m in members]
        pairs = [frozenset(pair) for pair in combinations(ids, 2)]
        never = sum(pair in self.never for pair in pairs)
        third = sum(self.met.get(pair, 0) >= 2 for pair in pairs)
        inside = {m.id for m in members}
        most = max(m.tables for m in members)
        # Someone left waiting who has played fewer tables than someone seated: skipped.
        skipped = sum(1 for p in pool if p.id not in inside and p.tables < most)
        again = sum(game.id in self.played.get(i, ()) for i in ids) if self.every_game else 0
        alone = 0
        if self.experience is not None:
            knows = [game.id in set(self.experience.get(i, ())) | self.played.get(i, set()) for i in ids]
            alone = int(not all(knows) and not any(knows))
        repeats = sum(self.met.get(pair, 0) for pair in pairs)
        return (never, third, skipped, self.stranded.get(len(ids), 0), seating.size_cost(len(ids)),
                self.requests_unmet(game.id, ids, pool), again, alone, repeats,
                sum(m.since for m in members))


    def knows(self, player: PlayerId, game: str) -> bool:
        """Could teach ``game``: played it before tonight (``known``) or tonight, and isn't asking to learn it."""
        return (game in set(self.known.get(player, ())) | self.played.get(player, set())
                and self.requests.get(player) != (game, True))

    def requests_unmet(self, game: str, ids: Sequence[PlayerId], pool: Sequence[Free]) -> int:
        """The requests a table of ``game`` for ``ids`` misses: a player seated at another game
        than theirs; a learner of it with nobody at the table who knows it, where a free player
        does; one asking for it left out when it is the game's last free copy (a requester left
        for a later table of their game is not missed: no round waits for them)."""
        if not self.requests:
            return 0
        unmet = 0
        for player in ids:
            wish = self.requests.get(player)
            if wish is None:
                continue
            if wish[0] != game:
                unmet += 1
            elif wish[1] and not any(self.knows(q, game) for q in ids if q != player) and \
                    any(self.knows(p.id, game) for p in pool):
                unmet += 1
        if self.copies.get(game, 0) <= 1:
            inside = set(ids)
            unmet += sum(1 for p in pool if p.id not in inside and (self.requests.get(p.id) or ("",))[0] == game)
        return unmet


def next_table(free: Sequence[Free], history: Iterable[Sequence[seating.Seating]], copies: Mapping[str, int],
               room_free: Sequence[int] | None = None, *, others_playing: bool = False, every_game: bool = False,
               experience: Mapping[PlayerId, Iterable[str]] | None = None,
               never: Iterable[tuple[PlayerId, PlayerId]] = (), seed: object = 0,
               games: Mapping[str, Game] = GAMES, requests: Mapping[PlayerId, tuple[str, bool]] | None = None,
               known: Mapping[PlayerId, Iterable[str]] | None = None) -> Start | None:
    """The next table to start among the ``free`` players (None: none can start now).

    ``copies``: per game on offer, its copies free now (:func:`free_copies`). ``room_free``:
    the room's free tables, in the room's order (None: the room's tables are not set, tables
    are not limited by them). A free player who keeps a free room table is seated there first;
    one who keeps a table someone plays at waits for it. ``others_playing``: a table is still
    playing (a table that needs a third meeting or a never-together pair then waits for it).
    ``requests`` (seating.draw_round's): per player, (game id, wants to learn it); ``known``:
    per player, the games they played before tonight, for who can teach a learner (default:
    ``experience``; tonight's tables count too)."""
    if room_free is not None and not room_free:
        return None
    offered = [games[g] for g, n in copies.items() if n > 0 and g in games]
    if not offered:
        return None
    history = [tuple(r) for r in history]
    place: int | None = None
    required: list[Free] = []
    pool = list(free)
    if room_free is not None:
        keepers = sorted((p for p in free if p.room_table in room_free), key=lambda p: (p.tables, p.since))
        if keepers:
            place = keepers[0].room_table
            required = [p for p in keepers if p.room_table == place]
        else:
            place = room_free[0]
        # Whoever keeps another room table sits only there.
        pool = [p for p in free if p.room_table is None or p.room_table == place]
    costs = _Costs(shared_tables(history), {frozenset(pair) for pair in never}, games_tonight(history),
                   experience, every_game, dict(requests or {}), (known if known is not None else experience) or {},
                   copies)
    rng = random.Random(f"{seed}/rolling")
    best: tuple[tuple, Start] | None = None
    for game in offered:
        # Who would be left with no table once the other free copies are filled too: 9 free with
        # two copies of a game for 3-5 take a table of 5 (then 4), never 4 and 4 and one waiting.
        others = [g for g2, n in copies.items() if g2 in games for g in [games[g2]] * (n - (g2 == game.id))]
        # (Only whether everyone sits: with copies short, tables of four still come first.)
        costs.stranded = {size: int(_left_over(len(pool) - size, others, room_free, place) > 0) for size in game.players}
        for size in game.players:
            if size > len(pool) or size < len(required) or size < 2:
                continue
            found = _best_members(game, size, pool, required, costs, rng)
            if found is None:
                continue
            cost, members = found
            # Of two equal tables, the game the room played least tonight (spread over the games).
            key = (cost, sum(game.id == t.game for r in history for t in r), offered.index(game))
            if best is None or key < best[0]:
                best = (key, Start(game.id, tuple(m.id for m in members), place))
    if best is None:
        return None
    never_count, third = best[0][0][:2]
    chosen = best[1].players
    same_again = all(costs.met.get(frozenset(pair), 0) for pair in combinations(chosen, 2))
    if (never_count or third or same_again) and others_playing:
        return None  # a table about to finish may seat it better: without either, or mixed
    return best[1]


def _left_over(players: int, copies: Sequence[Game], room_free: Sequence[int] | None, place: int | None) -> int:
    """The fewest players left with no table when ``players`` fill some of ``copies`` (each one
    table of its game's sizes), at most one a free room table."""
    if players <= 0:
        return 0
    tables = len(copies) if room_free is None else min(len(copies), len(room_free) - (place is not None))
    reach = {0: 0}  # players seated -> tables used
    for game in copies:
        for seated, used in list(reach.items()):
            if used >= tables:
                continue
            for size in game.players:
                total = seated + size
                if total <= players and reach.get(total, tables + 1) > used + 1:
                    reach[total] = used + 1
    return players - max(reach)


def _best_members(game: Game, size: int, pool: Sequence[Free], required: Sequence[Free], costs: _Costs,
                  rng: random.Random) -> tuple[tuple, tuple[Free, ...]] | None:
    others = [p for p in pool if p not in required]
    need = size - len(required)
    if need < 0 or need > len(others):
        return None
    if comb(len(others), need) <= ENUMERATE_UP_TO:
        best = None
        for chosen in combinations(others, need):
            members = (*required, *chosen)
            cost = costs.of(game, members, pool)
            if best is None or cost < best[0]:
                best = (cost, members)
        return best
    # Many free at once (a night's start): the longest waiters first, then swaps while they help.
    ordered = sorted(others, key=lambda p: (p.tables, p.since, rng.random()))
    inside, outside = list(ordered[:need]), list(ordered[need:])
    cost = costs.of(game, (*required, *inside), pool)
    for _ in range(SWAP_PASSES):
        improved = False
        for i in range(len(inside)):
            for j in range(len(outside)):
                trial = inside[:i] + [outside[j]] + inside[i + 1:]
                trial_cost = costs.of(game, (*required, *trial), pool)
                if trial_cost < cost:
                    inside[i], outside[j] = outside[j], inside[i]
                    cost = trial_cost
                    improved = True
        if not improved:
            break
    return cost, (*required, *inside)
