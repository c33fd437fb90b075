"""Players across nights (issue 26): a player's statistics and the season table from a
hand-worked set of three nights, every expected number worked out by hand below; names matched
as a table matches them; ids (merged spellings, namesakes kept apart) decide where given."""

from __future__ import annotations

from fractions import Fraction

import pytest

from companion.games.text import Text
from companion.meetup.points import match_result
from companion.meetup.season import (SEASON_ORDER, GameLine, HeadToHead, MatchRecord, NightLine, game_leaders,
                                     min_matches_text, player_key, player_stats, record_of, season_table)
from companion.tables.service import check_names

N1, N2, N3 = "2026-10-06", "2026-10-20", "2026-11-03"


def rec(night, at, game, table, *seats, teams=()):
    """A record from (name, place, score) per seat."""
    return MatchRecord(night, game, table, tuple(s[0] for s in seats), tuple(s[1] for s in seats),
                       tuple(s[2] for s in seats), tuple(teams), (), f"{night}T{at}")


# Three nights. Place points (share of the others beaten, ties half) are written beside each seat.
NIGHTS = [
    # Night 1
    rec(N1, "19:30", "rwd", "1", ("Ann", 1, 5), ("Bo", 2, 1), ("Cy", 3, -6)),                    # 1, ½, 0
    rec(N1, "19:30", "miraiscope", "2", ("Di", 2, 40), ("Ed", 1, 62)),                           # 0, 1
    rec(N1, "20:30", "lucky_cube", "3", ("Ann", 1, 22), ("Di", 1, 22), ("Bo", 3, 10), ("Ed", 4, 6)),  # ⅚, ⅚, ⅓, 0
    # Night 2: a team game (Ann & Cy against Bo & Di), then Bo spelled in full-width letters
    rec(N2, "19:30", "twin_shoot", "1", ("Ann", 2, 64), ("Cy", 2, 64), ("Bo", 1, 103), ("Di", 1, 103),
        teams=(0, 0, 1, 1)),                                                                     # 0, 0, 1, 1
    rec(N2, "21:00", "rwd", "2", ("Ｂｏ", 1, 7), ("Ann", 2, -2), ("Ed", 2, -5)),                  # 1, ¼, ¼
    # Night 3: Ann written in lower case
    rec(N3, "19:00", "rwd", "1", ("ann", 4, -8), ("Cy", 1, 6), ("Di", 2, 3), ("Ed", 3, -1)),       # 0, 1, ⅔, ⅓
    rec(N3, "20:00", "miraiscope", "2", ("Ann", 1, 61), ("Bo", 2, 45)),                           # 1, 0
]

ANN, BO, CY, DI, ED = (player_key(n) for n in ("Ann", "Bo", "Cy", "Di", "Ed"))


def approx(x):
    return pytest.approx(float(x))


# ------------------------------------------------------------------------------ a player


def test_ann_over_three_nights():
    s = player_stats(NIGHTS, ANN)
    assert s.name == "Ann"  # the latest spelling (night 3, 20:00), not "ann" an hour before
    assert (s.nights, s.matches, s.wins) == (3, 6, 3)
    assert s.places == (3, 2, 0, 1)  # 1st: rwd N1, lucky N1, mirai N3; 2nd: team N2, rwd N2; 4th: rwd N3
    # 1 + ⅚ + 0 + ¼ + 0 + 1 = 3 1/12 = 37/12 in 6 matches
    assert s.points == approx(Fraction(37, 12)) and s.average == approx(Fraction(37, 72))


def test_ann_per_game_most_played_first():
    s = player_stats(NIGHTS, ANN)
    assert s.games == (
        GameLine("rwd", 3, 1, (1, 1, 0, 1), approx(Fraction(5, 4)), approx(Fraction(5, 12)), 5, -8),
        GameLine("lucky_cube", 1, 1, (1,), approx(Fraction(5, 6)), approx(Fraction(5, 6)), 22, 22),
        GameLine("miraiscope", 1, 1, (1,), 1.0, 1.0, 61, 61),
        GameLine("twin_shoot", 1, 0, (0, 1), 0.0, 0.0, 64, 64),
    )


def test_ann_best_worst_and_recent_form():
    s = player_stats(NIGHTS, ANN)
    # Best: 1 point twice (rwd of 3 on night 1, miraiscope of 2 on night 3): the bigger table.
    assert (s.best.night, s.best.game, s.best.place, s.best.of, s.best.points) == (N1, "rwd", 1, 3, 1.0)
    # Worst: 0 twice (the team game of 2 teams, rwd of 4 on night 3): the bigger table.
    assert (s.worst.night, s.worst.game, s.worst.place, s.worst.of, s.worst.score) == (N3, "rwd", 4, 4, -8)
    # The last five, latest first.
    assert [(m.night, m.game, m.place) for m in s.form] == [
        (N3, "miraiscope", 1), (N3, "rwd", 4), (N2, "rwd", 2), (N2, "twin_shoot", 2), (N1, "lucky_cube", 1)]
    assert [m.points for m in s.form] == [1.0, 0.0, 0.25, 0.0, approx(Fraction(5, 6))]


def test_ann_head_to_head():
    s = player_stats(NIGHTS, ANN)
    assert s.head_to_head == (
        # Bo: above at rwd N1, lucky N1, mirai N3; below in the team game and rwd N2
        HeadToHead(BO, "Bo", 5, 3, 2, 0, 0),
        # Cy: above at rwd N1, below at rwd N3, her partner in the team game
        HeadToHead(CY, "Cy", 3, 1, 1, 0, 1),
        # Di: tied first at lucky N1, below in the team game and at rwd N3
        HeadToHead(DI, "Di", 3, 0, 2, 1, 0),
        # Ed: above at lucky N1, tied second at rwd N2, below at rwd N3
        HeadToHead(ED, "Ed", 3, 1, 1, 1, 0),
    )


def test_ann_night_by_night():
    s = player_stats(NIGHTS, ANN)
    assert s.timeline == (NightLine(N1, 2, approx(Fraction(11, 6)), approx(Fraction(11, 12))),
                          NightLine(N2, 2, 0.25, 0.125),
                          NightLine(N3, 2, 1.0, 0.5))


def test_a_span_and_a_game_narrow_the_statistics():
    since = player_stats(NIGHTS, ANN, since=N2)
    assert (since.nights, since.matches, since.wins) == (2, 4, 1)
    assert since.points == approx(Fraction(5, 4))  # 0 + ¼ + 0 + 1
    until = player_stats(NIGHTS, ANN, until=N1)
    assert (until.nights, until.matches, until.points) == (1, 2, approx(Fraction(11, 6)))
    rwd = player_stats(NIGHTS, BO, game="rwd")
    assert (rwd.matches, rwd.wins, rwd.points, rwd.name) == (2, 1, 1.5, "Ｂｏ")  # his rwd name was full-width
    assert player_stats(NIGHTS, CY, game="lucky_cube") is None
    assert player_stats(NIGHTS, "nobody") is None


def test_the_form_is_at_most_five_and_latest_first():
    s = player_stats(NIGHTS, BO)
    assert len(s.form) == 5 and s.matches == 5
    assert [m.night for m in s.form] == [N3, N2, N2, N1, N1]
    assert [m.game for m in s.form[-2:]] == ["lucky_cube", "rwd"]  # 20:30 after 19:30 on night 1
    assert len(player_stats(NIGHTS, ANN).form) == 5


# ------------------------------------------------------------------------------ the season


def rows(table):
    return [(r.rank, r.name, r.nights, r.matches, r.wins, r.places, r.points, r.per_match)
            for r in table.rows if not r.below_minimum]


def test_season_table_over_all_three_nights():
    table = season_table(NIGHTS, min_matches=4)
    assert rows(table) == [
        # Di: 0 + ⅚ + 1 + ⅔ = 5/2 in 4
        (1, "Di", 3, 4, 2, (2, 2), 2.5, 0.625),
        # Bo: ½ + ⅓ + 1 + 1 + 0 = 17/6 in 5
        (2, "Bo", 3, 5, 2, (2, 2, 1), approx(Fraction(17, 6)), approx(Fraction(17, 30))),
        # Ann: 37/12 in 6
        (3, "Ann", 3, 6, 3, (3, 2, 0, 1), approx(Fraction(37, 12)), approx(Fraction(37, 72))),
        # Ed: 1 + 0 + ¼ + ⅓ = 19/12 in 4
        (4, "Ed", 3, 4, 1, (1, 1, 1, 1), approx(Fraction(19, 12)), approx(Fraction(19, 48))),
    ]
    # Cy played 3 matches, one fewer than the minimum: ranked after the others, marked (issue 34).
    cy = table.rows[-1]
    assert (cy.rank, cy.name, cy.matches, cy.points, cy.per_match, cy.below_minimum) == (
        5, "Cy", 3, 1.0, approx(Fraction(1, 3)), True)
    assert [r.below_minimum for r in table.rows] == [False] * 4 + [True]
    # Every table hands out half a point per entrant seat-wise: 11 in all, nothing lost.
    assert sum(r.points for r in table.rows) == pytest.approx(11.0)
    assert table.min_matches == 4


def test_season_table_of_one_game():
    table = season_table(NIGHTS, game="rwd", min_matches=2)
    assert [(r.rank, r.name, r.matches, r.per_match, r.below_minimum) for r in table.rows] == [
        (1, "Ｂｏ", 2, 0.75, False),                       # ½, 1 (his latest name at this game)
        (2, "Cy", 2, 0.5, False),                          # 0, 1
        (3, "ann", 3, approx(Fraction(5, 12)), False),     # 1, ¼, 0 (lower case at her latest)
        (4, "Ed", 2, approx(Fraction(7, 24)), False),      # ¼, ⅓
        (5, "Di", 1, approx(Fraction(2, 3)), True),        # one match: after the others, marked
    ]
    assert [g.game for g in table.games] == ["rwd"]


def test_season_table_of_a_span():
    table = season_table(NIGHTS, since=N3, until=N3, min_matches=1)
    # Night 3 alone: Cy 1, Di ⅔, Ann ½ (0 and 1), Ed ⅓, Bo 0.
    assert [(r.rank, r.name, r.per_match) for r in table.rows] == [
        (1, "Cy", 1.0), (2, "Di", approx(Fraction(2, 3))), (3, "Ann", 0.5), (4, "Ed", approx(Fraction(1, 3))),
        (5, "Bo", 0.0)]
    assert season_table(NIGHTS, since="2027-01-01").rows == ()


def test_most_played_and_most_won_per_game():
    leaders = {g.game: g for g in game_leaders(NIGHTS)}
    assert [g.game for g in game_leaders(NIGHTS)] == ["rwd", "miraiscope", "lucky_cube", "twin_shoot"]
    rwd = leaders["rwd"]
    assert (rwd.matches, rwd.most_played, rwd.played) == (3, ((ANN, "Ann"),), 3)
    assert (rwd.most_won, rwd.won) == (((ANN, "Ann"), (BO, "Bo"), (CY, "Cy")), 1)  # one win each
    mirai = leaders["miraiscope"]
    assert (mirai.matches, mirai.played, len(mirai.most_played)) == (2, 1, 4)
    assert mirai.most_won == ((ANN, "Ann"), (ED, "Ed"))
    assert leaders["twin_shoot"].most_won == ((BO, "Bo"), (DI, "Di"))  # a team's win is both partners'
    assert leaders["lucky_cube"].most_won == ((ANN, "Ann"), (DI, "Di"))  # shared first place
    assert [g.game for g in game_leaders(NIGHTS, since=N3)] == ["miraiscope", "rwd"]  # 1 each: by id


def test_equal_lines_share_a_rank():
    records = [rec(N1, "19:00", "miraiscope", "1", ("Ann", 1, 60), ("Bo", 2, 10)),
               rec(N1, "20:00", "miraiscope", "2", ("Cy", 1, 60), ("Di", 2, 10)),
               rec(N1, "21:00", "miraiscope", "3", ("Ed", 1, 60), ("Ann", 2, 10))]
    table = season_table(records, min_matches=1)
    assert [(r.rank, r.name) for r in table.rows] == [(1, "Cy"), (1, "Ed"), (3, "Ann"), (4, "Bo"), (4, "Di")]


def test_the_order_and_the_minimum_are_said_in_translatable_words():
    assert isinstance(SEASON_ORDER, Text) and "place points per match" in str(SEASON_ORDER)
    assert str(min_matches_text(5)) == ("* Fewer than 5 matches played: ranked after the players who have "
                                        "played 5 or more.")


# ------------------------------------------------------------------------------ who is who


@pytest.mark.parametrize("a, b", [("Ann", "ann"), ("Ann", "ＡＮＮ"), ("René", "Rene\u0301"), ("Ann  Lee", " ann lee "),
                                  ("Bo", "Bo\u200b"), ("Ann", "Anna"), ("Ann", "Ánn")])
def test_two_names_are_one_player_exactly_when_a_table_refuses_them_side_by_side(a, b):
    _names, errors = check_names([a, b])
    assert (player_key(a) == player_key(b)) == bool(errors)


def test_ids_from_storage_merge_spellings_and_keep_namesakes_apart():
    # Storage merged "Jon" into "John" (same id), and keeps two different people called Sam apart.
    def with_ids(record, ids):
        return MatchRecord(record.night, record.game, record.table, record.players, record.places, record.scores,
                           record.entrants, tuple(ids), record.at)
    records = [with_ids(rec(N1, "19:00", "miraiscope", "1", ("Jon", 1, 60), ("Sam", 2, 10)), ["p1", "p2"]),
               with_ids(rec(N2, "19:00", "miraiscope", "1", ("John", 2, 30), ("Sam", 1, 60)), ["p1", "p3"])]
    john = player_stats(records, "p1")
    assert (john.name, john.matches, john.wins, john.nights) == ("John", 2, 1, 2)
    assert [(h.key, h.matches, h.above, h.below) for h in john.head_to_head] == [("p2", 1, 1, 0), ("p3", 1, 0, 1)]
    table = season_table(records, min_matches=1)
    assert sorted((r.key, r.name, r.matches) for r in table.rows) == [("p1", "John", 2), ("p2", "Sam", 1),
                                                                    ("p3", "Sam", 1)]
    assert player_stats(records, player_key("Sam")) is None  # with ids, names decide nothing


def test_a_record_from_a_replayed_match():
    deal = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"]], "tricks": [4, 3, 2, 1], "open_bid": None}
    result = match_result("twin_shoot", ["Ann", "Bo", "Cy", "Di"], [deal] * 3)
    record = record_of(result, N1, "4", at="2026-10-06T22:00")
    assert record == MatchRecord(N1, "twin_shoot", "4", ("Ann", "Bo", "Cy", "Di"), (1, 1, 2, 2), (111, 111, 9, 9),
                                 (0, 0, 1, 1), (), "2026-10-06T22:00")
    ann = player_stats([record], ANN)
    assert (ann.wins, ann.points) == (1, 1.0)
    assert ann.head_to_head[0] == HeadToHead(BO, "Bo", 1, 0, 0, 0, 1)  # partners: neither above nor below
