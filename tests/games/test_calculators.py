"""Each game's calculators and helpers as plain data (no web): the game page only renders
these answers. The page-level tests are in tests/web/test_game_pages.py."""

from __future__ import annotations

import pytest

from companion.games import GAMES, CalcResult


def calc(game_id: str, name: str):
    return next(c for c in GAMES[game_id].calculators if c.name == name)


def run(game_id: str, name: str, n: int, fields: dict) -> CalcResult:
    """The answer to a query string holding ``fields`` under the calculator's prefix."""
    c = calc(game_id, name)
    return c.run({c.prefix + key: str(value) for key, value in fields.items()}, n)


def test_every_calculator_name_is_unique_and_a_field_prefix():
    names = [c.name for game in GAMES.values() for c in game.calculators]
    assert len(names) == len(set(names)) and all(name.isalnum() for name in names)
    assert {c.kind for game in GAMES.values() for c in game.calculators} == {"calculator", "helper"}


@pytest.mark.parametrize("game_id,name", [(g.id, c.name) for g in GAMES.values() for c in g.calculators])
def test_an_empty_form_is_a_prompt_not_an_error(game_id, name):
    result = calc(game_id, name).run({}, GAMES[game_id].players[0])
    assert result.empty and result.prompt and not result.errors


def test_pair_quad_score_and_refusal_next_to_the_field():
    result = run("pair_quad", "pq", 4, {"7": 2, "A": 2, "K": 2, "J": 1, "other": 9})
    assert str(result.headline) == "Score: +8"
    assert [str(line.label) for line in result.groups[0][1]][:1] == ["7 ×2 → 0 (pair)"]
    refused = run("pair_quad", "pq", 4, {"7": 5})
    assert refused.failed and list(refused.field_errors) == ["pq-7"]  # the page's field name


def test_twin_shoot_bid_score_and_leader():
    assert str(run("twin_shoot", "tb", 4, {"1": "L", "2": "X"}).headline) == "Bid: 9 tricks"
    score = run("twin_shoot", "ts", 4, {"bid1": 3, "bid2": 2, "tricks1": 3, "tricks2": 2})
    assert str(score.headline).startswith("The team scores ")
    lead = run("twin_shoot", "tl", 4, {"deal": 3, "first": 0})
    assert "left-side player of Team 1" in str(lead.headline)


def test_lucky_cube_payment_and_tracker():
    paid = run("lucky_cube", "lp", 3, {"holder": 1, "number": 4, "last": 0, "chips": 10})
    assert str(paid.headline) == "Player 1 pays 4 chips to Player 2."
    tracked = run("lucky_cube", "lt", 3, {"lead": 0, "1": 1})
    assert "Player 1 takes the die" in str(tracked.items[0])
    gap = run("lucky_cube", "lt", 3, {"lead": 0, "2": 1})
    assert gap.field_errors == {"lt-1": gap.errors}


def test_rwd_and_miraiscope_score_a_deal_through_the_rules():
    deal = run("rwd", "rd", 3, {"chips-0": 0, "chips-1": 8, "chips-2": 9,
                                  "tricks-0": 5, "tricks-1": 6, "tricks-2": 6})
    assert str(deal.headline) == "Deal winner: Player 1"
    mirai = run("miraiscope", "mi", 2, {"queens-0": 2, "points-0": 10, "last_trick": 0})
    assert str(mirai.headline) == "Player 1 19, Player 2 16"
    assert "Player 2 was left blank" in str(mirai.notes[0])


def test_helpers_for_a_trick():
    assert str(run("rwd", "rf", 3, {"cards": "QS 10H 3D", "last": 2}).headline).startswith("Card 1, QS")
    trick = run("miraiscope", "mt", 2, {"cards": "QS 9S 10H AS"})
    assert trick.rulings == ["one_led_suit"]
    assert str(run("twin_shoot", "tt", 4, {"leader": 1, "cards": "QL 9L QC 8X"}).headline) == \
        "Player 2 wins the trick with QL."
