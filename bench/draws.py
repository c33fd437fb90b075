"""How well do the seating draw's options look after the room? (issue 36)

Seeded nights of ``--sizes`` players (8 12 17 24 40) × ``--rounds`` rounds (3 5), ``--seeds``
nights each (100: 1,000 nights in all), every round drawn from all the games, by each way:
a random draw (the same tables, players shuffled), today's draw (*mix*), *balanced*, *every
game in turn*, *newcomers looked after* and the three together. A synthetic room: each player
has a skill (μ ~ N(25, 4)) and a rating per game near it (± 2), and has played each game
before with probability 0.6 (so about four in ten are newcomers to a given game).

Per way, averaged over the nights:

- **repeats**: pairs seated together again over the night (``repeated_pairs``);
- **thirds**: meetings beyond a pair's second over the night (a pair at three tables
  together counts 1, at four 2), and **forced**: the fewest the counts allow, the night's pair
  meetings beyond two for every pair (8 players × 5 rounds at two tables of four: 60 meetings
  over 28 pairs, 4); issue 47: no pair meets a third time unless the room's size forces it;
- **spread**: per round, the standard deviation of the tables' mean rating (for their game),
  averaged over the rounds (lower: tables of more even strength);
- **games**: different games met per player over the night, and the share of players who met
  as many as the rounds allow (min(rounds, the games the night's tables offered: a game for
  two is seldom drawn, tables of four being preferred));
- **looked after**: of the seats where a newcomer to the table's game sits (someone on the
  roster knows that game), the share with someone at the table who knows it;
- **± se**: the standard error of the repeats' mean over the seeds (two of it: a change
  beyond the spread);
- **slowest**: the slowest single draw, in seconds (the target: ≤ 1 s for 40 players).

    python bench/draws.py [--sizes 8 12 17 24 40] [--rounds 3 5] [--seeds 100]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games import GAMES  # noqa: E402
from companion.meetup.seating import Draw, Seating, draw_round, plan_tables, repeated_pairs  # noqa: E402


def third_meetings(rounds) -> int:
    """Over the night: for every two players, the tables they shared beyond the second."""
    together: dict[tuple, int] = {}
    for drawn in rounds:
        for table in drawn.tables:
            for pair in combinations(sorted(table.players), 2):
                together[pair] = together.get(pair, 0) + 1
    return sum(count - 2 for count in together.values() if count > 2)


def forced_thirds(n: int, rounds) -> int:
    """The counting bound: the night's pair meetings beyond two for each of the n·(n−1)/2 pairs."""
    meetings = sum(len(t.players) * (len(t.players) - 1) // 2 for drawn in rounds for t in drawn.tables)
    return max(0, meetings - n * (n - 1))

TARGET_S = 1.0  # a draw for 40 players answers within a second
WAYS = ("random", "mix", "balanced", "every game", "newcomers", "all three")


def room(n: int, seed: str):
    """Players, their ratings per game ("" overall) and the games each played before."""
    rng = random.Random(f"room/{seed}")
    players = [f"P{i:02d}" for i in range(n)]
    strength, experience = {}, {}
    for p in players:
        skill = rng.gauss(25, 4)
        strength[p] = {"": skill, **{g: skill + rng.uniform(-2, 2) for g in GAMES}}
        experience[p] = {g for g in GAMES if rng.random() < 0.6}
    return players, strength, experience


def random_round(players, seed) -> Draw:
    plan = plan_tables(len(players), seed=seed)
    order = list(players)
    random.Random(f"random/{seed}").shuffle(order)
    tables, at = [], 0
    for table in plan:
        tables.append(Seating(table.game, tuple(order[at:at + table.size])))
        at += table.size
    return Draw(tuple(tables))


def draw(way: str, players, history, seed, strength, experience) -> Draw:
    if way == "random":
        return random_round(players, seed)
    wishes = {"balanced": dict(strength=strength), "every game": dict(every_game=True),
              "newcomers": dict(experience=experience),
              "all three": dict(strength=strength, every_game=True, experience=experience)}.get(way, {})
    return draw_round(players, history, seed=seed, **wishes)


def night(way: str, n: int, rounds: int, seed: str) -> dict:
    players, strength, experience = room(n, seed)
    history: list[Draw] = []
    slowest = 0.0
    spreads, new_seats, looked_after = [], 0, 0
    known = {p: set(experience[p]) for p in players}
    for number in range(rounds):
        started = time.perf_counter()
        drawn = draw(way, players, history, f"{seed}/{number}", strength, experience)
        slowest = max(slowest, time.perf_counter() - started)
        means = [statistics.fmean(strength[p][t.game] for p in t.players) for t in drawn.tables]
        spreads.append(statistics.pstdev(means) if len(means) > 1 else 0.0)
        for table in drawn.tables:
            if not any(table.game in known[p] for p in players):
                continue  # nobody in the room could help
            for p in table.players:
                if table.game not in known[p]:
                    new_seats += 1
                    looked_after += any(table.game in known[q] for q in table.players if q != p)
        for table in drawn.tables:
            for p in table.players:
                known[p].add(table.game)
        history.append(drawn)
    met = {p: {t.game for d in history for t in d.tables if p in t.players} for p in players}
    most = min(rounds, len({t.game for d in history for t in d.tables}))  # the games the night's tables offered
    return {"repeats": repeated_pairs(history), "thirds": third_meetings(history),
            "forced": forced_thirds(n, history), "spread": statistics.fmean(spreads),
            "games": statistics.fmean(len(g) for g in met.values()),
            "all games": sum(1 for g in met.values() if len(g) >= most) / len(players),
            "new seats": new_seats, "looked after": looked_after, "slowest": slowest}


def standard_error(values) -> float:
    """The spread over seeds of a mean: the standard error (0 for a single night)."""
    return statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 12, 17, 24, 40])
    parser.add_argument("--rounds", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--ways", nargs="+", default=list(WAYS), choices=WAYS)
    args = parser.parse_args()
    largest, slowest_largest = max(args.sizes), 0.0
    print(f"{'players':>7} {'rounds':>6}  {'way':<10} {'repeats':>8} {'± se':>5} {'thirds':>6} {'forced':>6} "
          f"{'spread':>7} {'games':>6} "
          f"{'all games':>9} {'looked after':>12} {'slowest s':>9}")
    for n in args.sizes:
        for rounds in args.rounds:
            for way in args.ways:
                found = [night(way, n, rounds, f"{n}/{rounds}/{s}") for s in range(args.seeds)]
                new = sum(f["new seats"] for f in found)
                share = sum(f["looked after"] for f in found) / new if new else 1.0
                print(f"{n:>7} {rounds:>6}  {way:<10} {statistics.fmean(f['repeats'] for f in found):>8.2f} "
                      f"{standard_error([f['repeats'] for f in found]):>5.2f} "
                      f"{statistics.fmean(f['thirds'] for f in found):>6.2f} "
                      f"{statistics.fmean(f['forced'] for f in found):>6.2f} "
                      f"{statistics.fmean(f['spread'] for f in found):>7.2f} "
                      f"{statistics.fmean(f['games'] for f in found):>6.2f} "
                      f"{statistics.fmean(f['all games'] for f in found):>9.0%} {share:>12.0%} "
                      f"{max(f['slowest'] for f in found):>9.3f}", flush=True)
                if n == largest and way != "random":
                    slowest_largest = max(slowest_largest, max(f["slowest"] for f in found))
    verdict = "PASS" if slowest_largest <= TARGET_S else "FAIL"
    print(f"{verdict}: the slowest draw for {largest} players took {slowest_largest:.3f} s (target ≤ {TARGET_S} s)")


if __name__ == "__main__":
    main()
