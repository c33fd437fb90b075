"""Miraiscope: scoring table, checks, derivation of seat 1, tricks and the match end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES, InvalidDeal, MatchSetup
from companion.games.cards import Card, CardError, parse_card
from companion.games.miraiscope import points_in_trick, resolve_trick

GAME = GAMES["miraiscope"]
SETUP = MatchSetup("miraiscope", ("Ann", "Bob"), {"first_dealer": 0})


def cards(*codes: str) -> list[Card]:
    return [parse_card(c) for c in codes]


def progress(deals: list[dict] | None = None, first_dealer: int = 0):
    p = GAME.start(MatchSetup("miraiscope", ("Ann", "Bob"), {"first_dealer": first_dealer}))
    for facts in deals or []:
        p = GAME.add_deal(p, facts)
    return p


def deal(q0: int, p0: int, last: int) -> dict:
    return {"queens": [q0, 4 - q0], "points": [p0, 20 - p0], "last_trick": last}


def messages(errors) -> str:
    return " | ".join(str(e.message) for e in errors)


# ---------------------------------------------------------------- declaration and setup

def test_declaration():
    assert GAME.name_ja == "ミライスコープ"
    assert GAME.players == (2,)
    assert GAME.check_players(3) is not None and GAME.check_players(2) is None
    assert GAME.ruling("tie_at_end").table_decides
    assert not GAME.ruling("one_led_suit").table_decides
    assert [o.key for o in GAME.options] == ["first_dealer"]


def test_setup():
    figures = {f.key: f.value for f in GAME.setup_figures(2)}
    assert figures["deck"] == 40 and str(figures["removed"]) == "2–4"
    assert figures["hand"] == 10 and figures["tricks"] == 10
    assert "40 cards remain" in str(GAME.setup_steps(2)[0])
    with pytest.raises(ValueError):
        GAME.setup_figures(3)


# ---------------------------------------------------------------- scoring table

@pytest.mark.parametrize("code, points", [
    ("9S", 1), ("10H", 1), ("JD", 1), ("KC", 1), ("AS", 1), ("QH", 3),
    ("8S", 0), ("7H", 0), ("6D", 0), ("5C", 0),
])
def test_card_points(code, points):
    assert points_in_trick(cards(code)) == points


def test_whole_deck_is_worth_32_plus_last_trick():
    deck = [Card(rank, suit) for rank in range(5, 15) for suit in "SHDC"]
    assert points_in_trick(deck) == 32  # 20 one-pointers + 4 Qs × 3; + 3 for the last trick = 35


def test_score_a_deal():
    score = GAME.score_deal(progress(), {"queens": [3, 1], "points": [12, 8], "last_trick": 1})
    assert score.points == (21, 14)
    assert [line.points for line in score.breakdown[1]] == [3, 8, 3]
    assert len(score.breakdown[0]) == 2  # no last-trick line for Ann


# ---------------------------------------------------------------- input checks

def test_queens_must_sum_to_four():
    errors = GAME.check_deal(progress(), {"queens": [3, 2], "points": [10, 10], "last_trick": 0})
    assert [e.field for e in errors] == ["queens"]
    assert "must add up to 4" in messages(errors) and "add up to 5" in messages(errors)


def test_one_pointers_must_sum_to_twenty():
    errors = GAME.check_deal(progress(), {"queens": [2, 2], "points": [10, 9], "last_trick": 0})
    assert [e.field for e in errors] == ["points"]
    assert "must add up to 20" in messages(errors) and "add up to 19" in messages(errors)


def test_ranges():
    errors = GAME.check_deal(progress(), {"queens": [5, -1], "points": [21, 0], "last_trick": 0})
    assert [e.field for e in errors] == ["queens-0", "queens-1", "points-0"]
    assert "from 0 to 4; it is 5" in messages(errors)
    assert "from 0 to 20; it is 21" in messages(errors)


@pytest.mark.parametrize("last", [None, 2, -1, True, "0", [0, 1]])
def test_exactly_one_player_wins_the_last_trick(last):
    errors = GAME.check_deal(progress(), {"queens": [2, 2], "points": [10, 10], "last_trick": last})
    assert [e.field for e in errors] == ["last_trick"]
    assert "Exactly one player" in messages(errors)


@pytest.mark.parametrize("facts", [None, "x", {}, {"queens": [4], "points": [20, 0]},
                                   {"queens": [4, 0, 0], "points": [20, 0], "last_trick": 0},
                                   {"queens": [4.0, 0], "points": [20, 0], "last_trick": 0}])
def test_wrong_shapes_are_refused(facts):
    assert GAME.check_deal(progress(), facts)


# ---------------------------------------------------------------- parsing and derivation

def test_parse_both_players():
    form = {"queens-0": "1", "points-0": "9", "queens-1": "3", "points-1": "11",
            "last_trick": "0"}
    facts, errors = GAME.parse_deal(form, progress())
    assert errors == []
    assert facts == {"queens": [1, 3], "points": [9, 11], "last_trick": 0}


def test_parse_derives_seat_one():
    facts, errors = GAME.parse_deal({"queens-0": "3", "points-0": "12", "queens-1": " ",
                                     "last_trick": "1"}, progress())
    assert errors == []
    assert facts == {"queens": [3, 1], "points": [12, 8], "last_trick": 1}


def test_parse_derives_each_column_on_its_own():
    # The form works a blank value out column by column (as it shows it live), so a typed
    # second-player Q count keeps the one-pointers derived.
    facts, errors = GAME.parse_deal({"queens-0": "3", "points-0": "12", "queens-1": "1",
                                     "last_trick": "1"}, progress())
    assert errors == []
    assert facts["points"] == [12, 8] and facts["queens"] == [3, 1]


def test_parse_says_when_nothing_can_be_worked_out():
    # 9 Qs is out of range: no message for the blank second player, who follows once it's fixed.
    _, errors = GAME.parse_deal({"queens-0": "9", "points-0": "12", "last_trick": "1"},
                                progress())
    assert [e.field for e in errors] == ["queens-0"]
    _, errors = GAME.parse_deal({"queens-0": "4", "queens-1": "", "last_trick": "1"},
                                progress())
    assert [e.field for e in errors] == ["points-0"]


@settings(deadline=None)
@given(st.integers(0, 4), st.integers(0, 20), st.integers(0, 1))
def test_derived_seat_one_is_always_valid_and_totals_35(q0, p0, last):
    p = progress()
    facts, errors = GAME.parse_deal({"queens-0": str(q0), "points-0": str(p0),
                                     "last_trick": str(last)}, p)
    assert errors == [] and GAME.check_deal(p, facts) == []
    assert sum(GAME.score_deal(p, facts).points) == 35


@st.composite
def any_deal(draw):
    q = draw(st.integers(0, 4))
    p = draw(st.integers(0, 20))
    return {"queens": [q, draw(st.integers(0, 4))], "points": [p, draw(st.integers(0, 20))],
            "last_trick": draw(st.integers(0, 1))}


@settings(deadline=None)
@given(any_deal())
def test_every_valid_deal_distributes_35(facts):
    p = progress()
    valid = GAME.check_deal(p, facts) == []
    assert valid == (sum(facts["queens"]) == 4 and sum(facts["points"]) == 20)
    if valid:
        assert sum(GAME.score_deal(p, facts).points) == 35


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from(["queens-0", "queens-1", "points-0", "points-1",
                                        "last_trick", "other"]),
                       st.one_of(st.text(max_size=10), st.integers(), st.none(),
                                 st.booleans(), st.floats())))
def test_parse_never_raises(form):
    facts, errors = GAME.parse_deal(form, progress())
    if not errors:
        GAME.check_deal(progress(), facts)


# ---------------------------------------------------------------- tricks

def test_one_led_suit_for_the_whole_trick():
    # The leader's second card (AS) is not of the led suit (hearts), so it cannot win.
    result = resolve_trick(cards("5H", "9H", "AS", "6H"))
    assert result.led_suit == "H" and result.winning_card == 1 and result.winner == "other"
    assert result.points == 2 and result.revokes == ()


def test_leader_can_win_with_the_second_card():
    result = resolve_trick(cards("5H", "9H", "QH", "6C"))
    assert (result.winning_card, result.winner, result.points) == (2, "leader", 4)


def test_revokes_when_hands_are_given():
    played = cards("5H", "9C", "AS", "6H")
    hands = [cards("5H", "KD"), cards("9C", "7H"), cards("AS", "8H"), cards("6H", "QS")]
    result = resolve_trick(played, hands)
    assert result.revokes == (1, 2)  # both held a heart and played another suit
    assert result.winner == "other" and result.winning_card == 3
    with pytest.raises(CardError):
        resolve_trick(played, [cards("5H"), cards("9C"), cards("AS"), cards("7H")])
    with pytest.raises(CardError):
        resolve_trick(played, hands[:3])


@pytest.mark.parametrize("trick", [
    [Card(5, "H"), Card(9, "H"), Card(14, "S")],
    [Card(5, "H"), Card(5, "H"), Card(14, "S"), Card(6, "S")],
    [Card(4, "H"), Card(9, "H"), Card(14, "S"), Card(6, "S")],
    [Card(5, "L"), Card(9, "H"), Card(14, "S"), Card(6, "S")],
])
def test_impossible_tricks_are_refused(trick):
    with pytest.raises(CardError) as caught:
        resolve_trick(trick)
    assert isinstance(caught.value, ValueError) and str(caught.value.message)


miraiscope_cards = st.builds(Card, st.integers(5, 14), st.sampled_from("SHDC"))


@settings(deadline=None)
@given(st.lists(miraiscope_cards, min_size=4, max_size=4, unique=True))
def test_winner_is_the_highest_of_the_led_suit(trick):
    result = resolve_trick(trick)
    led = [c for c in trick if c.suit == trick[0].suit]
    assert trick[result.winning_card] == max(led)
    assert result.winner == ("leader" if result.winning_card in (0, 2) else "other")
    assert result.points == points_in_trick(trick)


# ---------------------------------------------------------------- match flow

def test_dealers_alternate_and_the_non_dealer_leads():
    p = progress(first_dealer=1)
    first = GAME.next_deal(p)
    assert (first.number, first.dealer, first.leader) == (1, 1, 0)
    assert "Bob deals" in str(first.lines[0]) and "Ann leads" in str(first.lines[0])
    second = GAME.next_deal(GAME.add_deal(p, deal(2, 10, 0)))
    assert (second.number, second.dealer, second.leader) == (2, 0, 1)


def test_match_ends_after_a_deal_reaching_60():
    match = GAME.replay(SETUP, [deal(4, 20, 0), deal(2, 15, 0)])  # 35, then 24 → 59
    assert match.totals == (59, 11) and not match.over
    match = GAME.replay(SETUP, [deal(4, 20, 0), deal(2, 16, 0)])  # 35 + 25 = 60
    assert match.over and match.winners == (0,) and match.next is None
    assert "Ann wins the match, 60 to 10" in str(match.outcome.message)
    assert match.outcome.rulings == ()


def test_more_points_wins():
    deals = [deal(4, 20, 0), deal(0, 0, 1), deal(2, 12, 0), deal(2, 8, 1)]
    match = GAME.replay(SETUP, deals)
    # Ann 35+0+21+14 = 70, Bob 0+35+14+21 = 70: a tie; swap the last deal's bonus.
    assert match.totals == (70, 70)
    deals[-1] = deal(2, 8, 0)
    match = GAME.replay(SETUP, deals)
    assert match.totals == (73, 67) and match.winners == (0,)


TIE = [deal(4, 20, 0), deal(0, 0, 1), deal(2, 10, 0), deal(2, 10, 1)]


def test_tie_at_end_offers_another_deal():
    match = GAME.replay(SETUP, TIE)
    assert match.totals == (70, 70)
    assert match.over and match.winners == (0, 1)
    assert match.outcome.more_deals_allowed and match.next is not None
    assert "tie_at_end" in match.outcome.rulings
    assert "tie" in str(match.outcome.message)


def test_tie_accepted_is_a_shared_win():
    match = GAME.replay(SETUP, TIE, finished=True)
    assert match.over and match.winners == (0, 1)
    assert not match.outcome.more_deals_allowed and match.next is None
    assert "tie_at_end" in match.outcome.rulings
    assert "share the win on 70" in str(match.outcome.message)


def test_extra_deal_breaks_the_tie():
    match = GAME.replay(SETUP, TIE + [deal(1, 9, 1)])
    assert match.totals == (82, 93)
    assert match.over and match.winners == (1,) and not match.outcome.more_deals_allowed
    assert "tie_at_end" in match.outcome.rulings


def test_finished_does_not_end_a_match_below_60():
    match = GAME.replay(SETUP, [deal(2, 10, 0)], finished=True)
    assert not match.over and match.next.number == 2


def test_replay_refuses_a_bad_deal():
    with pytest.raises(InvalidDeal) as caught:
        GAME.replay(SETUP, [deal(2, 10, 0), {"queens": [2, 2], "points": [10, 10]}])
    assert caught.value.number == 2
    assert caught.value.errors[0].field == "last_trick"


def test_replay_whole_match():
    deals = [deal(3, 12, 1), deal(1, 11, 0), deal(2, 10, 1), deal(4, 15, 0)]
    match = GAME.replay(MatchSetup("miraiscope", ("Ann", "Bob"), {"first_dealer": 1}), deals)
    assert [(d.before.dealer, d.before.leader) for d in match.deals] == [
        (1, 0), (0, 1), (1, 0), (0, 1)]
    assert [d.totals for d in match.deals] == [(21, 35 - 21), (38, 32), (54, 51), (84, 56)]
    assert match.over and match.winners == (0,)


def test_form_values_round_trip():
    facts = deal(3, 7, 1)
    assert GAME.parse_deal(GAME.form_values(facts), progress()) == (facts, [])
