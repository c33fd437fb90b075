"""RWD (Rewind): the digest's examples, checks, invariants and match flow."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES, InvalidDeal, MatchSetup
from companion.games.cards import Card, CardError
from companion.games.rwd import deal_winners, first_half_winner, resolve_first_half

GAME = GAMES["rwd"]
NAMES = ("Ann", "Bob", "Cy", "Di", "Ed")


def setup(n: int = 4, start: int = 0) -> MatchSetup:
    return MatchSetup("rwd", NAMES[:n], {"first_start_player": start})


def progress(n: int = 4, deals: list[dict] | None = None, start: int = 0):
    p = GAME.start(setup(n, start))
    for facts in deals or []:
        p = GAME.add_deal(p, facts)
    return p


def deal_won_by(winner: int, n: int = 4) -> dict:
    """A valid 4-player deal that ``winner`` wins outright (+2, others fewer)."""
    chips = [4, 3, 3, 3]
    tricks = [4, 3, 3, 3]
    tricks[winner] += 2
    tricks[(winner + 1) % n] -= 2
    return {"chips": chips, "tricks": tricks}


def messages(errors) -> str:
    return " | ".join(str(e.message) for e in errors)


# ---------------------------------------------------------------- declaration and setup

def test_declaration():
    assert GAME.name_ja == "RWD(リワインド)"
    assert GAME.players == (3, 4, 5)
    assert [r.id for r in GAME.rulings][:2] == ["shared_win", "start_after_tie"]
    assert GAME.ruling("start_after_tie").table_decides
    assert not GAME.ruling("shared_win").table_decides
    assert [o.key for o in GAME.options] == ["first_start_player", "length"]


@pytest.mark.parametrize("n, tricks, aside", [(3, 17, 1), (4, 13, 0), (5, 10, 2)])
def test_setup_figures_follow_the_table(n, tricks, aside):
    figures = {f.key: f.value for f in GAME.setup_figures(n)}
    assert figures["deck"] == 52
    assert figures["rows"] == n
    assert figures["tricks"] == tricks
    assert figures["aside"] == aside
    assert str(figures["chips"]) == "about 20"
    steps = " ".join(str(s) for s in GAME.setup_steps(n))
    assert f"turn up {n - 1} cards" in steps and f"{tricks} tricks" in steps


@pytest.mark.parametrize("n", [0, 2, 6])
def test_setup_refuses_other_counts(n):
    with pytest.raises(ValueError):
        GAME.setup_figures(n)
    assert GAME.check_players(n) is not None


# ---------------------------------------------------------------- worked example

def test_source_example_scores():
    # A: 4 chips, 6 tricks → 2. B: 4 chips, 3 tricks → −1 (the others fill the deal).
    score = GAME.score_deal(progress(), {"chips": [4, 4, 3, 2], "tricks": [6, 3, 2, 2]})
    assert score.points[:2] == (2, -1)
    assert score.points == (2, -1, -1, 0)
    assert [line.points for line in score.breakdown[0]] == [6, -4]
    assert score.winners == (0,)


# ---------------------------------------------------------------- input checks

def test_check_value_range():
    errors = GAME.check_deal(progress(), {"chips": [14, 0, 0, 0], "tricks": [13, 0, 0, 0]})
    assert [e.field for e in errors] == ["chips-0"]
    assert "from 0 to 13; it is 14" in messages(errors)


def test_check_chips_sum():
    errors = GAME.check_deal(progress(), {"chips": [4, 4, 3, 3], "tricks": [6, 3, 2, 2]})
    assert [e.field for e in errors] == ["chips"]
    assert "must add up to 13 with 4 players" in messages(errors)
    assert "add up to 14" in messages(errors)


def test_check_tricks_sum():
    errors = GAME.check_deal(progress(3), {"chips": [17, 0, 0], "tricks": [1, 1, 1]})
    assert [e.field for e in errors] == ["tricks"]
    assert "must add up to 17 with 3 players" in messages(errors)


@pytest.mark.parametrize("facts", [
    None, [], {}, {"chips": "13", "tricks": [13, 0, 0, 0]},
    {"chips": [13, 0, 0], "tricks": [13, 0, 0, 0]},
    {"chips": [13, 0, 0, True], "tricks": [13, 0, 0, 0]},
    {"chips": [13.0, 0, 0, 0], "tricks": [13, 0, 0, 0]},
    {"chips": [13, 0, 0, None], "tricks": [13, 0, 0, 0]},
])
def test_check_wrong_shapes_are_refused(facts):
    assert GAME.check_deal(progress(), facts)


def test_start_player_without_a_choice_is_refused():
    errors = GAME.check_deal(progress(), {"chips": [13, 0, 0, 0], "tricks": [13, 0, 0, 0],
                                          "start_player": 1})
    assert [e.field for e in errors] == ["start_player"]


def test_parse_deal_reads_fields():
    form = {"chips-0": "4", "chips-1": " 4", "chips-2": "3", "chips-3": "2",
            "tricks-0": "6", "tricks-1": "3", "tricks-2": "2", "tricks-3": "2"}
    facts, errors = GAME.parse_deal(form, progress())
    assert errors == []
    assert facts == {"chips": [4, 4, 3, 2], "tricks": [6, 3, 2, 2]}


def test_parse_deal_reports_bad_fields():
    facts, errors = GAME.parse_deal({"chips-0": "x", "chips-1": "99"}, progress())
    fields = {e.field for e in errors}
    assert {"chips-0", "chips-1", "chips-2", "tricks-0"} <= fields
    # The blank last player is worked out once the others are right: no message of its own.
    assert "chips-3" not in fields and "tricks-3" not in fields
    assert "start_player" not in facts


def test_parse_deal_works_out_the_last_player():
    # Each column adds up to the 13 tricks of a half (4 players).
    form = {"chips-0": "4", "chips-1": "4", "chips-2": "3", "chips-3": "",
            "tricks-0": "6", "tricks-1": "3", "tricks-2": "2"}
    facts, errors = GAME.parse_deal(form, progress())
    assert errors == []
    assert facts == {"chips": [4, 4, 3, 2], "tricks": [6, 3, 2, 2]}
    assert GAME.check_deal(progress(), facts) == []


def test_parse_deal_typed_last_player_wins_over_derivation():
    form = {"chips-0": "4", "chips-1": "4", "chips-2": "3", "chips-3": "1",
            "tricks-0": "6", "tricks-1": "3", "tricks-2": "2", "tricks-3": "2"}
    facts, errors = GAME.parse_deal(form, progress())
    assert errors == [] and facts["chips"] == [4, 4, 3, 1]
    assert [e.field for e in GAME.check_deal(progress(), facts)] == ["chips"]


def test_parse_deal_refuses_a_last_player_that_cannot_be_worked_out():
    form = {"chips-0": "8", "chips-1": "4", "chips-2": "3",
            "tricks-0": "6", "tricks-1": "3", "tricks-2": "2"}
    facts, errors = GAME.parse_deal(form, progress())
    assert [e.field for e in errors] == ["chips-3"]
    assert "15 of 13" in errors[0].message.render()


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from(["chips-0", "chips-1", "chips-2", "tricks-0",
                                        "tricks-1", "tricks-2", "start_player", "junk"]),
                       st.one_of(st.text(max_size=12), st.integers(), st.none(), st.booleans())),
       st.booleans())
def test_parse_deal_never_raises(form, after_draw):
    p = progress(3)
    if after_draw:  # a draw opens the start-player choice, so that field is read too
        p = GAME.add_deal(p, {"chips": [6, 6, 5], "tricks": [6, 6, 5]})
        assert GAME.next_deal(p).choice is not None
    facts, errors = GAME.parse_deal(form, p)
    if not errors:
        GAME.validate(p, facts)


# ---------------------------------------------------------------- invariants

@st.composite
def valid_deals(draw):
    n = draw(st.integers(3, 5))
    tricks = 52 // n
    chip_takers = draw(st.lists(st.integers(0, n - 1), min_size=tricks, max_size=tricks))
    trick_takers = draw(st.lists(st.integers(0, n - 1), min_size=tricks, max_size=tricks))
    return n, {"chips": [chip_takers.count(s) for s in range(n)],
               "tricks": [trick_takers.count(s) for s in range(n)]}


@settings(deadline=None)
@given(valid_deals())
def test_deal_scores_sum_to_zero(case):
    n, facts = case
    p = progress(n)
    assert GAME.check_deal(p, facts) == []
    score = GAME.score_deal(p, facts)
    assert sum(score.points) == 0
    assert score.points == tuple(t - c for t, c in zip(facts["tricks"], facts["chips"]))


@settings(deadline=None)
@given(valid_deals())
def test_deal_winner_tie_break(case):
    n, facts = case
    score = GAME.score_deal(progress(n), facts)
    points, chips = score.points, facts["chips"]
    if all(p == 0 for p in points):
        assert score.winners == ()
        assert "all_zero_draw" in score.rulings
        return
    # Compare (score, chips) lexicographically: the winners are exactly the best pairs.
    best = max(zip(points, chips))
    assert score.winners == tuple(i for i in range(n) if (points[i], chips[i]) == best)
    assert ("shared_win" in score.rulings) == (len(score.winners) > 1)


SUITS = "SHDC"
all_cards = st.builds(Card, st.integers(2, 14), st.sampled_from(SUITS))


def naive_winner(cards: list[Card], taken_last: int) -> int:
    spades = [i for i, c in enumerate(cards) if c.suit == "S"]
    pool = spades or [i for i, c in enumerate(cards) if c.suit == cards[taken_last].suit]
    winner = pool[0]
    for i in pool:
        if cards[i].rank > cards[winner].rank:
            winner = i
    return winner


@settings(deadline=None)
@given(st.lists(all_cards, min_size=3, max_size=5, unique=True), st.data())
def test_first_half_winner_matches_naive(cards, data):
    taken_last = data.draw(st.integers(0, len(cards) - 1))
    assert first_half_winner(cards, taken_last) == naive_winner(cards, taken_last)
    codes = [c.code for c in cards]
    assert resolve_first_half(codes, taken_last) == naive_winner(cards, taken_last)


# ---------------------------------------------------------------- first-half helper

def test_led_suit_is_the_card_taken_last():
    # Hearts led by the last card taken: the 5H beats the AD, which is off-suit.
    assert resolve_first_half(["AD", "3H", "5H", "KC"], taken_last=1) == 2
    # The same cards with the AD taken last: diamonds led, the AD wins.
    assert resolve_first_half(["AD", "3H", "5H", "KC"], taken_last=0) == 0


def test_spades_trump_in_the_first_half():
    assert resolve_first_half(["AH", "2S", "KH"], taken_last=0) == 1
    assert resolve_first_half(["AH", "2S", "3S", "KH"], taken_last=2) == 2


@pytest.mark.parametrize("codes, taken_last, part", [
    (["AH", "KH"], 0, "3 to 5 cards"),
    (["AH", "KH", "QH", "JH", "10H", "9H"], 0, "3 to 5 cards"),
    (["AH", "AH", "QH"], 0, "twice"),
    (["AH", "KH", "QH"], 3, "taken last"),
    (["AH", "KH", "QH"], -1, "taken last"),
    (["AH", "KH", "1H"], 0, "deck"),
    (["AH", "KH", "QL"], 0, "suit"),
    (["AH", "KH", "ZH"], 0, "rank"),
])
def test_resolve_first_half_refuses(codes, taken_last, part):
    result = resolve_first_half(codes, taken_last)
    assert not isinstance(result, int)
    assert part in str(result)


def test_first_half_winner_raises_value_error():
    with pytest.raises(CardError) as caught:
        first_half_winner([Card(14, "H"), Card(14, "H"), Card(2, "S")], 0)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(CardError):
        first_half_winner([Card(15, "H"), Card(3, "H"), Card(2, "S")], 0)
    with pytest.raises(CardError):
        first_half_winner([Card(4, "H"), Card(3, "H"), Card(2, "S")], True)


# ---------------------------------------------------------------- deal winners

def test_tie_goes_to_more_chips():
    winners, notes, rulings = deal_winners([1, 1, -2], [5, 6, 6], NAMES)
    assert winners == (1,) and rulings == ()
    assert "took more chips" in str(notes[0])


def test_tie_on_chips_too_is_shared():
    score = GAME.score_deal(progress(), {"chips": [4, 4, 3, 2], "tricks": [5, 5, 2, 1]})
    assert score.winners == (0, 1)
    assert "shared_win" in score.rulings


def test_all_zero_is_a_draw_even_with_different_chips():
    score = GAME.score_deal(progress(3), {"chips": [8, 6, 3], "tricks": [8, 6, 3]})
    assert score.winners == ()
    assert "all_zero_draw" in score.rulings and "shared_win" in score.rulings
    assert "draw" in str(score.notes[0])


# ---------------------------------------------------------------- match flow

def test_first_deal_start_player_comes_from_the_option():
    upcoming = GAME.next_deal(progress(start=2))
    assert upcoming.number == 1 and upcoming.leader == 2 and upcoming.choice is None
    text = " ".join(str(line) for line in upcoming.lines)
    assert "Cy is the start player" in text
    assert "counter-clockwise" in text and "goes clockwise" in text


def test_deal_winner_starts_the_next_deal():
    upcoming = GAME.next_deal(progress(deals=[deal_won_by(3)]))
    assert upcoming.number == 2 and upcoming.leader == 3 and upcoming.choice is None


def test_choice_after_a_shared_win():
    shared = {"chips": [4, 4, 3, 2], "tricks": [5, 5, 2, 1]}
    p = progress(deals=[shared])
    upcoming = GAME.next_deal(p)
    assert upcoming.leader is None
    assert upcoming.choice.options == (0, 1)
    assert upcoming.choice.key == "start_player"
    assert upcoming.choice.ruling == "start_after_tie"
    refused = GAME.validate(p, {**deal_won_by(0), "start_player": 2})
    assert [e.field for e in refused] == ["start_player"]
    facts, errors = GAME.parse_deal({"start_player": "1", **{f"{k}-{s}": str(v[s])
                                     for k, v in deal_won_by(0).items() for s in range(4)}}, p)
    assert errors == [] and facts["start_player"] == 1
    assert GAME.validate(p, facts) == []
    p = GAME.add_deal(p, facts)
    assert p.deals[-1].before.choice is not None


def test_choice_after_a_draw_offers_everyone():
    p = progress(5, deals=[{"chips": [2] * 5, "tricks": [2] * 5}])
    assert GAME.next_deal(p).choice.options == (0, 1, 2, 3, 4)
    missing = GAME.validate(p, {"chips": [10, 0, 0, 0, 0], "tricks": [0, 10, 0, 0, 0]})
    assert [e.field for e in missing] == ["start_player"]


def test_first_to_three_wins():
    deals = [deal_won_by(1), deal_won_by(2), deal_won_by(1)]
    match = GAME.replay(setup(), deals)
    assert not match.over and match.next.leader == 1
    assert "Bob 2" in str(match.outcome.message)
    match = GAME.replay(setup(), deals + [deal_won_by(1)])
    assert match.over and match.winners == (1,) and match.next is None
    assert "Bob wins the match" in str(match.outcome.message)
    assert match.outcome.rulings == ()


def test_shared_wins_count_for_each_and_share_the_match():
    shared = {"chips": [4, 4, 3, 2], "tricks": [5, 5, 2, 1]}
    draw = {"chips": [2] * 5, "tricks": [2] * 5}
    match = GAME.replay(setup(), [shared, {**shared, "start_player": 0}])
    assert not match.over and "shared_win" in match.outcome.rulings
    match = GAME.replay(setup(), [shared, {**shared, "start_player": 0},
                                  {**shared, "start_player": 1}])
    assert match.over and match.winners == (0, 1)
    assert "shared_win" in match.outcome.rulings
    assert "share the match" in str(match.outcome.message)
    # A draw counts for nobody.
    five = MatchSetup("rwd", NAMES, {})
    match = GAME.replay(five, [draw, {**draw, "start_player": 3}, {**draw, "start_player": 4}])
    assert not match.over and "shared_win" in match.outcome.rulings
    assert match.next.choice.options == (0, 1, 2, 3, 4)


def test_replay_refuses_a_bad_deal():
    with pytest.raises(InvalidDeal) as caught:
        GAME.replay(setup(), [deal_won_by(0), {"chips": [1, 1, 1, 1], "tricks": [13, 0, 0, 0]}])
    assert caught.value.number == 2


def test_replay_whole_match():
    deals = [
        {"chips": [4, 4, 3, 2], "tricks": [6, 3, 2, 2]},   # Ann +2
        {"chips": [3, 3, 3, 4], "tricks": [2, 3, 3, 5]},   # Di +1
        {"chips": [1, 5, 4, 3], "tricks": [4, 4, 3, 2]},   # Ann +3
        {"chips": [0, 2, 6, 5], "tricks": [3, 2, 4, 4]},   # Ann +3
    ]
    match = GAME.replay(setup(4, start=2), deals)
    assert [d.before.leader for d in match.deals] == [2, 0, 3, 0]
    assert [d.score.winners for d in match.deals] == [(0,), (3,), (0,), (0,)]
    assert match.totals == (7, -2, -4, -1)
    assert match.over and match.winners == (0,)


def test_form_values_round_trip():
    shared = {"chips": [4, 4, 3, 2], "tricks": [5, 5, 2, 1]}
    p = progress(deals=[shared])
    facts = {**deal_won_by(2), "start_player": 1}
    assert GAME.parse_deal(GAME.form_values(facts), p) == (facts, [])
