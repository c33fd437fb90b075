"""Place points and the night's leaderboard (issue 25): the share of the other players (or teams)
beaten, ties counting half, from the rules engine's own ranking of real matches replayed from
their deals; the leaderboard's totals, places and stated order."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games import InvalidDeal
from companion.games.text import Text
from companion.meetup.points import (LEADERBOARD_ORDER, PLACE_POINTS_RULE, MatchResult, Placing, leaderboard,
                                     match_place_points, match_result, player_key)

THIRD = Fraction(1, 3)


def place_points_exact(places):
    """The place points of a match where every seat plays alone (each seat its own entrant)."""
    return match_place_points(tuple(range(len(places))), tuple(places))


# ------------------------------------------------------------------------------ the rule


def test_a_clear_order_at_four_gives_one_two_thirds_one_third_zero():
    assert place_points_exact([1, 2, 3, 4]) == (1, 2 * THIRD, THIRD, 0)
    assert place_points_exact([3, 1, 4, 2]) == (THIRD, 1, 0, 2 * THIRD)


def test_ties_count_half():
    assert place_points_exact([1, 1]) == (Fraction(1, 2), Fraction(1, 2))  # a two-way tie at two
    assert place_points_exact([1, 1, 3, 4]) == (Fraction(5, 6), Fraction(5, 6), THIRD, 0)
    assert place_points_exact([1, 2, 2]) == (1, Fraction(1, 4), Fraction(1, 4))
    assert place_points_exact([1, 1, 1, 1, 1]) == (Fraction(1, 2),) * 5


def test_a_win_is_worth_one_at_any_table_size():
    for size in range(2, 7):
        points = place_points_exact(list(range(1, size + 1)))
        assert points[0] == 1 and points[-1] == 0


@given(st.lists(st.integers(1, 6), min_size=2, max_size=6))
def test_a_table_hands_out_half_a_point_per_player(places):
    # Every pair of entrants shares 1/(k-1) between them: k(k-1)/2 pairs give k/2 in all.
    points = place_points_exact(places)
    assert sum(points) == Fraction(len(places), 2)
    assert all(0 <= p <= 1 for p in points)
    for a, pa in zip(places, points):  # a better place never gets fewer points
        for b, pb in zip(places, points):
            assert (a < b) <= (pa > pb)


def test_one_entrant_has_no_place_points():
    with pytest.raises(ValueError):
        place_points_exact([1])
    with pytest.raises(ValueError):  # two partners are one entrant
        match_place_points((0, 0), (1, 1))


def test_a_team_counts_once_and_both_partners_get_its_points():
    # Issue 33: partners are not tied opponents. Twin Shoot at four: 1 and 0, not 0.83 and 0.17.
    assert match_place_points((0, 0, 1, 1), (1, 1, 2, 2)) == (1, 1, 0, 0)
    # At six, three teams: 1, ½, 0 (not 0.9, 0.5, 0.1); teams may sit across the table.
    assert match_place_points((0, 1, 2, 0, 1, 2), (2, 1, 3, 2, 1, 3)) == (Fraction(1, 2), 1, 0, Fraction(1, 2), 1, 0)
    # Two of three teams sharing the win: ¾ each, the last team 0.
    assert match_place_points((0, 0, 1, 1, 2, 2), (1, 1, 1, 1, 3, 3)) == (Fraction(3, 4),) * 4 + (0, 0)


def test_partners_with_different_places_are_refused():
    with pytest.raises(ValueError):
        match_place_points((0, 0, 1, 1), (1, 2, 3, 3))


def test_the_rule_is_said_in_words_the_page_can_translate():
    assert isinstance(PLACE_POINTS_RULE, Text) and isinstance(LEADERBOARD_ORDER, Text)
    assert "share of the other players you beat" in str(PLACE_POINTS_RULE)
    assert "team" in str(PLACE_POINTS_RULE)


# ------------------------------------------------------------------------------ real matches


def rwd(chips, tricks, **extra):
    return {"chips": list(chips), "tricks": list(tricks), **extra}


ANN = rwd([4, 5, 8], [7, 7, 3])      # Ann +3, Bo +2, Cy -5: Ann alone
BO_BIG = rwd([0, 9, 8], [0, 17, 0])  # Bo +8 alone, by a lot
SHARED = rwd([5, 5, 7], [7, 7, 3])   # Ann and Bo +2, 5 chips each: shared
CY = rwd([8, 5, 4], [3, 7, 7])       # Cy +3 alone


def places_and_points(result: MatchResult):
    return [(p.player, p.place, p.points) for p in result.placings]


def test_rwd_places_follow_deal_wins_not_points():
    # Bo has the most points (+12 to Ann's +6) but one deal win to Ann's two: the rules rank Ann first.
    result = match_result("rwd", ["Ann", "Bo", "Cy"], [ANN, BO_BIG, ANN], {"first_start_player": 0})
    assert not result.over
    assert places_and_points(result) == [("Ann", 1, 1.0), ("Bo", 2, 0.5), ("Cy", 3, 0.0)]
    assert [p.score for p in result.placings] == [6, 12, -18]


def test_rwd_co_winners_share_first_place_and_its_points():
    # Cy wins deal 1, then Ann and Bo share three deals and reach 3 deal wins together.
    deals = [CY, SHARED, {**SHARED, "start_player": 0}, {**SHARED, "start_player": 1}]
    result = match_result("rwd", ["Ann", "Bo", "Cy"], deals, {"first_start_player": 0})
    assert result.over
    assert places_and_points(result) == [("Ann", 1, 0.75), ("Bo", 1, 0.75), ("Cy", 3, 0.0)]
    assert [p.player for p in result.ranking] == ["Bo", "Ann", "Cy"]  # within a place, the higher score


def test_team_game_partners_share_their_teams_result():
    # The rules' worked example: a team takes 4 + 3 tricks on bids of 4 and 3: 7 + 20 + 10 = 37 a deal.
    deal = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"]], "tricks": [4, 3, 2, 1], "open_bid": None}
    result = match_result("twin_shoot", ["Ann", "Bo", "Cy", "Di"], [deal, deal, deal])
    assert result.over  # 111 points: past 100
    assert [p.score for p in result.placings] == [111, 111, 9, 9]
    assert places_and_points(result) == [("Ann", 1, 1.0), ("Bo", 1, 1.0), ("Cy", 2, 0.0), ("Di", 2, 0.0)]
    assert [p.entrant for p in result.placings] == [0, 0, 1, 1]


def test_pair_and_quad_ranks_by_the_total():
    def row(*counts):
        return dict(zip(("7", "A", "K", "Q", "J", "other"), counts))
    # The pairs cancel: 2 × each rank and 2 others scores 2; with 6 others, 6.
    deal = {"captured": [row(0, 0, 0, 0, 0, 16), row(0, 0, 0, 0, 0, 8), row(2, 2, 2, 2, 2, 2), row(2, 2, 2, 2, 2, 6)]}
    result = match_result("pair_quad", ["Ann", "Bo", "Cy", "Di"], [deal], {"first_dealer": 0, "deals": 1})
    assert result.over and [p.score for p in result.placings] == [16, 8, 2, 6]
    assert [(p.place, p.points) for p in result.placings] == [(1, 1.0), (2, pytest.approx(2 / 3)), (4, 0.0),
                                                               (3, pytest.approx(1 / 3))]


def test_a_tie_accepted_at_two_players_is_half_each():
    def deal(q0, p0, last):
        return {"queens": [q0, 4 - q0], "points": [p0, 20 - p0], "last_trick": last}
    tie = [deal(4, 20, 0), deal(0, 0, 1), deal(2, 10, 0), deal(2, 10, 1)]  # 70 to 70
    result = match_result("miraiscope", ["Ann", "Bob"], tie, {"first_dealer": 0}, finished=True)
    assert result.over and places_and_points(result) == [("Ann", 1, 0.5), ("Bob", 1, 0.5)]
    broken = match_result("miraiscope", ["Ann", "Bob"], tie + [deal(1, 9, 1)], {"first_dealer": 0})
    assert places_and_points(broken) == [("Ann", 2, 0.0), ("Bob", 1, 1.0)]


def test_a_match_ending_level_on_chips_shares_first_place():
    draw = {"die_holder": None, "die_number": None}
    deals = [{**draw, "last_trick": (number + 1) % 4} for number in range(12)]
    result = match_result("lucky_cube", ["Ann", "Bo", "Cy", "Di"], deals, {"first_dealer": 0})
    assert result.over and [(p.place, p.points, p.score) for p in result.placings] == [(1, 0.5, 15)] * 4


def test_facts_no_table_could_store_are_refused_by_the_rules():
    with pytest.raises(InvalidDeal):
        match_result("rwd", ["Ann", "Bo", "Cy"], [rwd([4, 5, 8], [7, 7, 4])], {"first_start_player": 0})


# ------------------------------------------------------------------------------ the leaderboard


def result(game, over, *lines) -> MatchResult:
    """Placings from (name, place) in seat order, each seat alone; points by the rule (the tests
    above check it)."""
    points = place_points_exact([place for _name, place in lines])
    return MatchResult(game, over, tuple(Placing(seat, name, place, pts, 0, seat)
                                         for seat, ((name, place), pts) in enumerate(zip(lines, points))))


def test_leaderboard_adds_up_place_points_and_places():
    results = [
        result("rwd", True, ("Ann", 1), ("Bo", 2), ("Cy", 3)),                  # 1, ½, 0
        result("pair_quad", True, ("ann", 2), ("Di", 1), ("Bo", 3), ("Ed", 4)),  # ⅔, 1, ⅓, 0
        result("miraiscope", True, ("Cy", 1), ("Ed", 1)),                        # ½, ½
        result("lucky_cube", False, ("Ann", 3), ("Bo", 1), ("Cy", 2)),           # still in play: left out
    ]
    board = leaderboard(results)
    lines = [(s.rank, s.name, s.tables, s.places, round(s.points, 4), round(s.average, 4)) for s in board]
    assert lines == [
        (1, "ann", 2, (1, 1, 0, 0), round(5 / 3, 4), round(5 / 6, 4)),  # "Ann" and "ann" are one player
        (2, "Di", 1, (1, 0, 0, 0), 1.0, 1.0),
        (3, "Bo", 2, (0, 1, 1, 0), round(5 / 6, 4), round(5 / 12, 4)),
        # Cy and Ed: equal on points, average, first and second places; Cy has a third place, Ed none.
        (4, "Cy", 2, (1, 0, 1, 0), 0.5, 0.25),
        (5, "Ed", 2, (1, 0, 0, 1), 0.5, 0.25),
    ]
    assert board[0].key == player_key("ＡＮＮ") and board[0].wins == 1


def test_leaderboard_order_total_then_average_then_firsts_and_a_shared_rank():
    results = [
        result("rwd", True, ("Ann", 1), ("Bo", 2), ("Cy", 3)),  # Ann 1, Bo ½
        result("rwd", True, ("Bo", 2), ("Di", 1), ("Ed", 3)),   # Bo ½ more: 1 in two tables
        result("miraiscope", True, ("Fay", 1), ("Gus", 1)),     # ½ each
        result("miraiscope", True, ("Fay", 1), ("Gus", 1)),     # 1 each over two tables, with two firsts
    ]
    board = {s.name: s for s in leaderboard(results)}
    # Ann and Di: 1 point in one table (average 1) rank above Bo, Fay and Gus (1 point in two).
    assert board["Ann"].rank == board["Di"].rank == 1
    # Fay and Gus have two first places to Bo's none: above him; equal to each other: one rank.
    assert board["Fay"].rank == board["Gus"].rank == 3 and board["Bo"].rank == 5
    assert board["Cy"].rank == board["Ed"].rank == 6
    assert [s.name for s in leaderboard(results)] == ["Ann", "Di", "Fay", "Gus", "Bo", "Cy", "Ed"]


def test_leaderboard_totals_are_exact():
    # Three tables at four: ⅓ + ⅓ + ⅓ is exactly 1, equal to one win (a float sum would not be).
    thirds = [result("rwd", True, ("Ann", 3), ("X", 1), ("Y", 2), ("Z", 4)) for _ in range(3)]
    win = [result("miraiscope", True, ("Bo", 1), ("W", 2))]
    board = {s.name: s for s in leaderboard(thirds + win + [result("miraiscope", True, ("Bo", 2), ("V", 1))])}
    assert board["Ann"].points == board["Bo"].points == 1.0
    assert board["Ann"].average < board["Bo"].average and board["Bo"].rank < board["Ann"].rank


def test_an_empty_night_has_an_empty_leaderboard():
    assert leaderboard([]) == ()
