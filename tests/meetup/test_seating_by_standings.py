"""The by-standings draw (issue 33): players with similar place points so far sit together, the
leaders at table 1, with the same tables and games as a mixing draw; earlier shared tables are
weighed against the gap in points (docs/developing.md, "Seating draws: the costs"); a seed gives one draw."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from companion.meetup.seating import (STANDING_GAP, STANDING_REPEAT, Draw, Seating, draw_round, plan_tables)

ROSTER = [f"P{i:02d}" for i in range(12)]


def mixed_night(roster, rounds: int) -> list[Draw]:
    history: list[Draw] = []
    for number in range(rounds):
        history.append(draw_round(roster, history, seed=f"mix/{number}", offered=["rwd", "lucky_cube"]))
    return history


def standings_of(roster) -> dict[str, Fraction]:
    """Distinct points, P00 leading: P00 3, P01 2⅚, P02 2⅔, …"""
    return {p: Fraction(18 - i, 6) for i, p in enumerate(roster)}


def test_the_leaders_share_table_1_and_each_table_holds_neighbours_in_the_standings():
    history = mixed_night(ROSTER, 3)
    points = standings_of(ROSTER)
    drawn = draw_round(ROSTER, history, seed="last", offered=["rwd", "lucky_cube"], standings=points)
    ranked = sorted(ROSTER, key=lambda p: -points[p])
    assert [len(t.players) for t in drawn.tables] == [4, 4, 4]
    for number, table in enumerate(drawn.tables):
        assert set(table.players) == set(ranked[4 * number:4 * number + 4])
    # Over three mixed rounds most of the top four already met: leaders meet all the same.
    assert any(frozenset(pair) in {frozenset(q) for d in history for t in d.tables for q in combinations(t.players, 2)}
               for pair in combinations(ranked[:4], 2))


def test_the_same_tables_and_games_as_a_mixing_draw():
    for n in (9, 13, 17, 22):
        roster = ROSTER[:0] + [f"Q{i}" for i in range(n)]
        points = standings_of(roster)
        mix = draw_round(roster, seed=7, offered=["rwd", "lucky_cube", "miraiscope"])
        by = draw_round(roster, seed=7, offered=["rwd", "lucky_cube", "miraiscope"], standings=points)
        assert sorted((t.game, len(t.players)) for t in by.tables) == \
               sorted((t.game, len(t.players)) for t in mix.tables) == \
               sorted((p.game, p.size) for p in plan_tables(n, ["rwd", "lucky_cube", "miraiscope"], seed=7))
        # The strongest table comes first: its players' mean points is the highest.
        means = [sum(points[p] for p in t.players) / len(t.players) for t in by.tables]
        assert means == sorted(means, reverse=True)


def test_the_same_seed_gives_the_same_draw_and_another_seed_another():
    history = mixed_night(ROSTER, 2)
    points = {p: Fraction(i % 3, 2) for i, p in enumerate(ROSTER)}  # ties: the draw chooses among equals

    def drawn(seed):
        return draw_round(ROSTER, history, seed=seed, offered=["rwd", "lucky_cube"], standings=points)
    assert drawn("s1") == drawn("s1")
    assert len({drawn(f"s{i}").tables for i in range(6)}) > 1


def two_tables_that_met(gap: Fraction) -> tuple[list[str], list[Draw], dict[str, Fraction]]:
    """Eight players: A-D shared a table, E-H the other; E-H lead A-D by ``gap`` place points."""
    roster = list("ABCDEFGH")
    history = [Draw((Seating("lucky_cube", tuple("ABCD")), Seating("lucky_cube", tuple("EFGH"))))]
    points = {p: Fraction(1) + (gap if p in "EFGH" else 0) for p in roster}
    return roster, history, points


def test_a_small_gap_gives_way_to_repeated_pairings():
    # ⅙ place point apart: the same two tables again would repeat 12 pairs (12 × STANDING_REPEAT);
    # two from each side at each table repeats 4 and pays 8 pairs a gap of ⅙ (cheaper).
    roster, history, points = two_tables_that_met(Fraction(1, 6))
    assert 12 * STANDING_REPEAT > 4 * STANDING_REPEAT + 8 * STANDING_GAP * Fraction(1, 6) ** 2
    drawn = draw_round(roster, history, seed=1, offered=["lucky_cube"], standings=points)
    assert drawn.repeats == 4
    for table in drawn.tables:
        assert sum(1 for p in table.players if p in "EFGH") == 2


def test_a_gap_of_a_whole_point_keeps_the_leaders_together_though_they_met():
    roster, history, points = two_tables_that_met(Fraction(1))
    drawn = draw_round(roster, history, seed=1, offered=["lucky_cube"], standings=points)
    assert set(drawn.tables[0].players) == set("EFGH") and set(drawn.tables[1].players) == set("ABCD")
    assert drawn.repeats == 12


def test_equal_standings_mix_like_the_mixing_draw():
    # Before a first result everyone has 0: by standings then only avoids repeats.
    history = mixed_night(ROSTER, 2)
    level = {p: 0 for p in ROSTER}
    by = draw_round(ROSTER, history, seed=3, offered=["rwd", "lucky_cube"], standings=level)
    mix = draw_round(ROSTER, history, seed=3, offered=["rwd", "lucky_cube"])
    assert by.repeats == mix.repeats


def test_a_player_missing_from_the_standings_has_no_points_yet():
    roster = list("ABCDEFGH")
    points = {"A": 3, "B": 3, "C": 3, "D": Fraction(5, 2)}  # E-H: late arrivals, no result yet
    drawn = draw_round(roster, seed=2, offered=["lucky_cube"], standings=points)
    assert set(drawn.tables[0].players) == set("ABCD")


def test_team_partners_again_are_still_avoided_by_standings():
    # Twin Shoot, four players with equal points, three rounds: three different partners.
    roster = list("ABCD")
    history: list[Draw] = []
    for number in range(3):
        history.append(draw_round(roster, history, seed=number, offered=["twin_shoot"],
                                  standings={p: 1 for p in roster}))
    assert all(d.partner_repeats == 0 for d in history)
