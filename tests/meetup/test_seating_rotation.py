"""Every game in turn without buying repeats (issue 47): at twelve players over three rounds on
three tables of four, no night without a third meeting repeats fewer than 9 pairs (from round 2
on, every table of four holds two players of one earlier table: 3 in round 2, and in round 3 one
pair from each earlier round, 6), and a night where everyone meets three games no fewer than 12
(round 2 rotates with 3 repeats only at three tables of the one game nobody played, after which
each round-3 table draws from two round-1 tables and meets a round-2 pair: 9). The issue's "≤ 8"
is below both bounds. The draw now reaches 12 on every seed (it was 13.2 on average, and one
player in seven met a game twice) by letting a table take another game of its size where that
lowers the cost (seating._Search.regame)."""

from __future__ import annotations

from itertools import combinations

import pytest

from companion.meetup.seating import Draw, draw_round, repeated_pairs, third_meetings

PLAYERS = [f"P{i:02d}" for i in range(12)]
# Today's five games, named: the rotation measured is theirs (a sixth game registered by
# tests/test_sixth_game.py offers the draw other tables of four).
FIVE = ["rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot"]


def night(rounds: int, seed: object, **wishes) -> list[Draw]:
    history: list[Draw] = []
    for number in range(rounds):
        history.append(draw_round(PLAYERS, history, seed=f"{seed}/{number}", **wishes))
    return history


def splits(players: list[str]):
    """Every way to seat twelve players at three tables of four (tables unordered)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for others in combinations(rest, 3):
        left = [p for p in rest if p not in others]
        for tail in splits(left):
            yield [(first, *others), *tail]


def met_counts(rounds: list[Draw]) -> dict[frozenset, int]:
    counts: dict[frozenset, int] = {}
    for drawn in rounds:
        for table in drawn.tables:
            for pair in combinations(table.players, 2):
                counts[frozenset(pair)] = counts.get(frozenset(pair), 0) + 1
    return counts


def test_no_three_rounds_of_twelve_at_tables_of_four_repeat_fewer_than_nine_pairs():
    drawn = night(2, "bound")
    assert drawn[1].repeats == 3  # round 2 can't do with fewer: 3 tables, each two of one round-1 table
    counts = met_counts(drawn)
    fewest = min(sum(1 for t in split for pair in combinations(t, 2) if counts.get(frozenset(pair)))
                 for split in splits(PLAYERS)
                 if all(counts.get(frozenset(pair), 0) < 2 for t in split for pair in combinations(t, 2)))
    assert fewest == 6  # so any such night repeats at least 3 + 6 = 9


@pytest.mark.parametrize("seed", range(8))
def test_every_game_in_turn_at_twelve_over_three_rounds_reaches_its_bound(seed):
    drawn = night(3, f"12/3/{seed}", every_game=True, offered=FIVE)
    assert third_meetings(drawn) == 0
    games = [len({t.game for d in drawn for t in d.tables if p in t.players}) for p in PLAYERS]
    assert games == [3] * 12, games  # everyone meets three games
    assert repeated_pairs(drawn) == 12  # the fewest a full rotation allows (13.2 on average before)


def test_the_organisers_games_are_never_changed():
    chosen = ["rwd", "pair_quad", "twin_shoot"]
    history: list[Draw] = []
    for number in range(3):
        history.append(draw_round(PLAYERS, history, seed=f"c/{number}", chosen=chosen, every_game=True))
        assert [t.game for t in history[-1].tables] == chosen


def test_a_table_takes_only_an_offered_game_of_its_size():
    offered = ["rwd", "lucky_cube", "twin_shoot"]
    for seed in range(4):
        for drawn in night(4, f"o{seed}", every_game=True, offered=offered):
            assert {t.game for t in drawn.tables} <= set(offered)
