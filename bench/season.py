"""How fast are the season table and a player's statistics over a long season? (issue 26)

Synthetic season: ``--nights`` nights (200) × ``--tables`` tables (20) of the five games, each
match of ``--deals`` deals (10), 80 regulars with their names written in varying case. The
season module sees finished-match records (places and final scores), as storage will hand
them over, so each match is one record; the deals matter only to a replay, measured apart:
how long ``match_result`` takes to replay one 10-deal match (what a page would pay per match
if results were not stored).

Each figure includes making the records from plain rows (their name keys and place points
worked out, as after reading them from storage), ``--repeat`` times: the fastest wall-clock time is held against the target (≤ 100 ms), beside
the median, the worst and the median CPU time (on a machine shared with other work the wall
time also counts waiting for a core; the first run also fills the name-key cache).

    python bench/season.py [--nights 200] [--tables 20] [--deals 10] [--repeat 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games import GAMES  # noqa: E402
from companion.meetup.points import match_result  # noqa: E402
from companion.meetup.season import MatchRecord, player_key, player_stats, season_table  # noqa: E402
from companion.meetup.seating import entrant_seats  # noqa: E402

TARGET_MS = 100.0


def synthetic_season(nights: int, tables: int, seed: int = 1) -> list[MatchRecord]:
    rng = random.Random(seed)
    regulars = [f"Player {i:02d}" for i in range(80)]
    games = list(GAMES.values())
    records = []
    for night in range(nights):
        date = f"{2020 + night // 100}-{1 + night // 9 % 12:02d}-{1 + night % 9 * 3:02d}"
        for table in range(tables):
            game = rng.choice(games)
            size = rng.choice(game.players)
            names = rng.sample(regulars, size)
            names = [n.upper() if rng.random() < 0.1 else n for n in names]  # spelled otherwise at times
            groups = entrant_seats(game, size)
            # Places of the entrants, ties now and then; partners share theirs.
            scores = [rng.randint(-20, 120) // 5 for _ in groups]
            places_by_entrant = [1 + sum(1 for other in scores if other > mine) for mine in scores]
            places, team_of, seat_scores = [0] * size, [0] * size, [0] * size
            for entrant, seats in enumerate(groups):
                for seat in seats:
                    places[seat], team_of[seat], seat_scores[seat] = (places_by_entrant[entrant], entrant,
                                                                      scores[entrant])
            records.append(MatchRecord(date, game.id, str(table + 1), tuple(names), tuple(places),
                                       tuple(seat_scores), tuple(team_of), (), f"{date}T{19 + table // 8}:{table % 8 * 7:02d}"))
    return records


def rows_of(records: list[MatchRecord]) -> list[tuple]:
    """The records as plain rows, as storage would read them."""
    return [(r.night, r.game, r.table, r.players, r.places, r.scores, r.entrants, r.ids, r.at) for r in records]


def timed(rows: list[tuple], repeat: int, work: Callable[[list[MatchRecord]], object]) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of making the records from ``rows`` and doing ``work`` on them
    (the wall time includes waiting for the CPU on a busy machine; the CPU time does not)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        work([MatchRecord(*row) for row in rows])
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return wall, cpu


def replay_ms(deals: int, repeat: int) -> float:
    """One match of ``deals`` deals replayed through the rules (a drawn deal repeated)."""
    def row(*counts: int) -> dict:
        return dict(zip(("7", "A", "K", "Q", "J", "other"), counts))
    deal = {"captured": [row(0, 0, 0, 0, 0, 16), row(0, 0, 0, 0, 0, 8), row(2, 2, 2, 2, 2, 2),
                         row(2, 2, 2, 2, 2, 6)]}
    game_id = next(g.id for g in GAMES.values() if "captured" in g.fact_labels)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        match_result(game_id, ["A", "B", "C", "D"], [deal] * deals, {"first_dealer": 0, "deals": deals})
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nights", type=int, default=200)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    records = synthetic_season(args.nights, args.tables)
    seats = sum(len(r.players) for r in records)
    busiest = max(((k, sum(1 for r in records for key in r.keys if key == k))
                   for k in {player_key(f"Player {i:02d}") for i in range(80)}), key=lambda kc: kc[1])
    last_year = records[-1].night[:4]
    print(f"season: {args.nights} nights × {args.tables} tables = {len(records)} matches, {seats} player-matches; "
          f"busiest player {busiest[1]} matches")
    figures = [
        ("season table, all nights", lambda rs: season_table(rs)),
        ("season table, one game", lambda rs: season_table(rs, game=rs[0].game)),
        (f"season table, {last_year}", lambda rs: season_table(rs, since=f"{last_year}-01-01", until=f"{last_year}-12-31")),
        ("player's statistics, busiest player", lambda rs: player_stats(rs, busiest[0])),
    ]
    failed = False
    rows = rows_of(records)
    for label, work in figures:
        wall, cpu = timed(rows, args.repeat, work)
        # The verdict takes the fastest run, the one least disturbed by other work on a shared
        # machine (timeit's advice); the median, the worst and the CPU time are shown beside it.
        best, median, worst = min(wall), statistics.median(wall), max(wall)
        verdict = "PASS" if best <= TARGET_MS else "FAIL"
        failed |= verdict == "FAIL"
        print(f"{label:38s} best {best:6.1f} ms  median {median:6.1f} ms  worst {worst:6.1f} ms  "
              f"CPU median {statistics.median(cpu):6.1f} ms  (target ≤ {TARGET_MS:.0f} ms: {verdict})")
    per_match = replay_ms(args.deals, args.repeat)
    print(f"replaying one {args.deals}-deal match through the rules: {per_match:.2f} ms "
          f"(× {len(records)} matches = {per_match * len(records) / 1000:.1f} s: store each finished match's "
          f"result, don't replay a season per page)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
