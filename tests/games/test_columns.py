"""The one shared implementation of "one number per player, the column adds up to a total"
(companion.games: Column, read_columns, check_columns), which RWD, Miraiscope, Twin Shoot,
Pair & Quad and the toy games declare instead of writing it each (issue 21)."""

from __future__ import annotations

from companion.games import GAMES, Column, MatchSetup, check_columns, read_columns
from companion.games.text import T

PLAYERS = ("Ann", "Bo", "Cy")


def column(**kw) -> Column:
    return Column(kw.pop("key", "chips"), T("Chips"), tuple(T("Chips of {player}", player=p) for p in PLAYERS),
                  **{"hi": 5, "total": 5, "why": T("one per trick"), **kw})


def said(errors) -> list[tuple[str, str]]:
    return [(e.field, str(e.message)) for e in errors]


def test_a_blank_last_value_is_worked_out_and_others_are_required():
    errors: list = []
    assert read_columns({"chips-0": "2", "chips-1": "1", "chips-2": ""}, [column(derive_last=True)], errors) \
        == {"chips": [2, 1, 2]} and errors == []
    read = read_columns({"chips-0": "", "chips-1": "1", "chips-2": ""}, [column(derive_last=True)], errors)
    assert read == {"chips": [None, 1, None]}
    assert said(errors) == [("chips-0", "Chips of Ann: enter a number.")]
    errors = []
    read_columns({"chips-0": "4", "chips-1": "3"}, [column(derive_last=True)], errors)
    assert said(errors) == [("chips-2", "Chips of Cy can't be worked out: the others add up to 7 of 5. "
                                        "Check their numbers or enter this one.")]


def test_blank_means_what_the_column_says_and_worked_out_over_other_columns():
    ranks = column(key="7", blank=0, total=None, at_most=4, hi=4)
    rest = column(key="other", blank=0, total=None, derive_last=True, worked_out=9, worked_over=("7",), hi=9)
    errors: list = []
    read = read_columns({"7-0": "1", "other-0": "2", "7-2": "2"}, [ranks, rest], errors)
    assert errors == [] and read == {"7": [1, 0, 2], "other": [2, 0, 4]}  # 9 − (1 + 2) − 2 − 0
    assert (ranks.derive(2), rest.derive(2), rest.derive(1)) == (None, 9, None)


def test_checks_say_each_value_and_the_sum_with_its_reason():
    assert check_columns([column()], {"chips": [2, 2, 1]}) == []
    assert said(check_columns([column()], {"chips": [2, 2, 2]})) == [
        ("chips", "Chips must add up to 5 with 3 players (one per trick); they add up to 6.")]
    assert said(check_columns([column(why=None)], {"chips": [0, 0, 0]})) == [
        ("chips", "Chips must add up to 5 with 3 players; they add up to 0.")]
    assert said(check_columns([column(total=None, at_most=4)], {"chips": [2, 2, 1]})) == [
        ("chips", "Chips can add up to at most 4; they add up to 5.")]
    # A wrong value is said next to it, and its column's sum is not (it would mislead).
    assert said(check_columns([column()], {"chips": [6, True, 1]})) == [
        ("chips-0", "Chips of Ann must be from 0 to 5; it is 6."),
        ("chips-1", "Chips of Bo: “True” is not a whole number.")]
    assert said(check_columns([column()], {"chips": [1, 2]})) == [
        ("chips", "Chips: enter one number for each of the 3 players.")]


def test_every_built_in_column_game_declares_what_its_form_needs():
    """The deal forms' numbers come from the declarations (no 52 // n in a template needed)."""
    rwd = GAMES["rwd"].column_map(MatchSetup("rwd", PLAYERS))
    assert (rwd["chips"].hi, rwd["chips"].total, rwd["tricks"].derive(2)) == (17, 17, 17)
    twin = GAMES["twin_shoot"].column_map(MatchSetup("twin_shoot", PLAYERS + ("Di",)))
    assert (twin["tricks"].values, twin["tricks"].derive(3), twin["tricks"].derive(2)) == (range(0, 11), 10, None)
    mirai = GAMES["miraiscope"].column_map(MatchSetup("miraiscope", PLAYERS[:2]))
    assert [(c.hi, c.derive(1)) for c in mirai.values()] == [(4, 4), (20, 20)]
    five = GAMES["pair_quad"].column_map(MatchSetup("pair_quad", PLAYERS + ("Di", "Ed")))
    assert (five["7"].derive(4), five["7"].at_most, five["other"].derive(4), five["other"].hi) == (None, 4, 50, 32)
    assert GAMES["pair_quad"].figure(5, "tricks") == 10 and GAMES["lucky_cube"].columns(MatchSetup("lucky_cube", PLAYERS)) == ()
