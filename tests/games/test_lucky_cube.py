"""Lucky Cube: the digest's numbers, facts that follow from the rules, checks and match end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from companion.games import GAMES, InvalidDeal, MatchSetup
from companion.games.lucky_cube import capped_payment, summary_of, track

GAME = GAMES["lucky_cube"]
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")


def setup(n: int = 3, first_dealer: int = 0) -> MatchSetup:
    return MatchSetup("lucky_cube", NAMES[:n], {"first_dealer": first_dealer})


def summary(holder, number, last):
    return {"die_holder": holder, "die_number": number, "last_trick": last}


def messages(errors) -> str:
    return " | ".join(str(e.message) for e in errors)


# --------------------------------------------------------------------------
# Declaration and setup


def test_declaration():
    assert GAME.order == 3 and GAME.name_ja == "ラッキー・キューブ"
    assert GAME.players == (3, 4, 5)
    assert {r.id for r in GAME.rulings} == {"thirty_held", "payment_cap", "tie_shared", "at_time"}
    assert [o.key for o in GAME.options] == ["first_dealer"]


@pytest.mark.parametrize("n, removed, deck, aside", [(3, "2–8", 24, 6), (4, "2–7", 28, 4),
                                                      (5, "2–6", 32, 2)])
def test_numbers_by_player_count(n, removed, deck, aside):
    figures = {f.key: f.value for f in GAME.setup_figures(n)}
    assert str(figures["removed"]) == removed
    assert figures["deck"] == deck
    assert figures["dealt"] == 6 and figures["tricks"] == 6
    assert figures["aside"] == aside
    assert figures["deck"] == 6 * n + aside
    assert figures["chips"] == 15
    assert figures["deals"] == 3 * n
    steps = " ".join(str(s) for s in GAME.setup_steps(n))
    assert removed in steps and f"{deck} cards" in steps and f"other {aside}" in steps


@pytest.mark.parametrize("n", [2, 6, 0])
def test_setup_refuses_other_counts(n):
    with pytest.raises(ValueError):
        GAME.setup_figures(n)


def test_start_totals_are_fifteen_each():
    assert GAME.start(setup(4)).totals == (15, 15, 15, 15)


def test_dealer_moves_left_and_left_of_dealer_leads():
    progress = GAME.start(setup(3, first_dealer=2))
    first = GAME.next_deal(progress)
    assert (first.number, first.dealer, first.leader) == (1, 2, 0)
    assert str(first.lines[0]) == "Cat gathers all the cards, shuffles and deals. Ann leads the first trick."
    progress = GAME.add_deal(progress, {"trick_winners": [0] * 6})
    second = GAME.next_deal(progress)
    assert (second.number, second.dealer, second.leader) == (2, 0, 1)


# --------------------------------------------------------------------------
# The tracker helper


def test_track_worked_deal():
    # Bob leads trick 1 and loses it to Cat: die to Bob at 1. Cat wins 2; Cat loses 3 to
    # Ann: die to Cat at 3. Ann wins 4, loses 5 to Bob: die to Ann at 5. Bob wins 6.
    t = track([2, 2, 0, 0, 1, 1], opening_leader=1, n=3)
    assert [(s.leader, s.winner, s.die_holder, s.die_number) for s in t.steps] == [
        (1, 2, 1, 1), (2, 2, 1, 1), (2, 0, 2, 3), (0, 0, 2, 3), (0, 1, 0, 5), (1, 1, 0, 5)]
    assert t.complete and t.next_leader is None and t.last_trick_winner == 1
    assert (t.die_holder, t.die_number) == (0, 5)
    assert (t.payment.payer, t.payment.payee, t.payment.amount) == (1, 0, 5)


def test_track_partial_says_who_leads_next():
    empty = track([], opening_leader=2, n=4)
    assert empty.next_leader == 2 and empty.die_holder is None and empty.payment is None
    partial = track([3, 3], opening_leader=2, n=4)
    assert partial.next_leader == 3 and (partial.die_holder, partial.die_number) == (2, 1)
    assert not partial.complete and partial.last_trick_winner is None and partial.payment is None


def test_track_last_trick_die_is_worth_six():
    t = track([0, 0, 0, 0, 0, 2], opening_leader=0, n=3)
    assert (t.die_holder, t.die_number, t.payment.payer) == (0, 6, 2)


def test_track_caps_payment_with_chips():
    t = track([0, 0, 0, 0, 0, 2], opening_leader=0, n=3, chips=[15, 15, 4])
    assert (t.payment.amount, t.payment.owed) == (4, 6)
    assert capped_payment(6, 0) == 0 and capped_payment(3, 10) == 3


@pytest.mark.parametrize("winners, leader, n", [([0] * 7, 0, 3), ([3], 0, 3), ([0], 5, 5),
                                                 ([True], 0, 3), ([0], 0, 6)])
def test_track_refuses_impossible_input(winners, leader, n):
    with pytest.raises(ValueError):
        track(winners, leader, n)


# --------------------------------------------------------------------------
# Scoring


def test_holder_collects_from_last_trick_winner_only():
    progress = GAME.start(setup(4))  # dealer Ann, Bob leads
    score = GAME.score_deal(progress, summary(2, 4, 3))
    assert score.points == (0, 0, 4, -4)
    assert score.winners == (2,)
    assert "collects 4 from Dan" in str(score.breakdown[2][0].label)
    assert "pays 4 to Cat" in str(score.breakdown[3][0].label)


def test_nobody_holds_the_die_is_a_draw():
    progress = GAME.start(setup(3))
    score = GAME.score_deal(progress, summary(None, None, 1))
    assert score.points == (0, 0, 0) and score.winners == ()
    assert "draw" in str(score.notes[0])


def test_tracker_facts_score_like_summary():
    progress = GAME.start(setup(3))
    by_tricks = GAME.score_deal(progress, {"trick_winners": [2, 2, 0, 0, 1, 1]})
    by_summary = GAME.score_deal(progress, summary(0, 5, 1))
    assert by_tricks.points == by_summary.points == (5, -5, 0)


# --------------------------------------------------------------------------
# Input checks


@pytest.mark.parametrize("facts, field, text", [
    (summary(1, 3, 1), "last_trick", "never have won the last trick"),
    (summary(None, 3, 1), "die_number", "leave its number blank"),
    (summary(2, None, 1), "die_number", "enter the number"),
    (summary(None, None, 2), "last_trick", "opening leader, Bob, wins all six"),
    (summary(2, 1, 0), "die_holder", "must be with the opening leader, Bob"),
    (summary(0, 7, 1), "die_number", "from 1 to 6; it is 7"),
    (summary(0, 0, 1), "die_number", "from 1 to 6; it is 0"),
    (summary(5, 2, 1), "die_holder", "choose one of the players"),
    (summary(0, 2, "x"), "last_trick", "choose one of the players"),
    (summary(0, True, 1), "die_number", "from 1 to 6"),
    ({"trick_winners": [0, 0]}, "trick_winners", "each of the 6 tricks"),
    ({"trick_winners": [0, 0, 0, 9, 0, 0]}, "trick-4", "Winner of trick 4"),
    ({"trick_winners": "000000"}, "trick_winners", "each of the 6 tricks"),
    ({"trick_winners": [1] * 6, "die_holder": 2, "die_number": 1, "last_trick": 1},
     "die_holder", "disagree"),
    ([1, 2], "deal", "unreadable"),
])
def test_checks(facts, field, text):
    progress = GAME.start(setup(3))  # dealer Ann, opening leader Bob
    errors = GAME.check_deal(progress, facts)
    assert field in [e.field for e in errors], messages(errors)
    assert text in messages(errors)


@pytest.mark.parametrize("facts", [summary(1, 1, 2), summary(None, None, 1), summary(0, 6, 2),
                                   {"trick_winners": [1] * 6}])
def test_checks_accept_possible_deals(facts):
    assert GAME.check_deal(GAME.start(setup(3)), facts) == []


def test_invalid_deal_is_refused_by_replay():
    with pytest.raises(InvalidDeal):
        GAME.replay(setup(3), [summary(1, 3, 1)])


# --------------------------------------------------------------------------
# Reading forms


def test_parse_summary_form():
    progress = GAME.start(setup(3))
    facts, errors = GAME.parse_deal({"die_holder": "2", "die_number": " 4 ", "last_trick": "0"},
                                    progress)
    assert errors == [] and facts == summary(2, 4, 0)


def test_parse_nobody_ignores_number():
    progress = GAME.start(setup(3))
    facts, errors = GAME.parse_deal({"die_holder": "none", "die_number": "junk",
                                     "last_trick": "1"}, progress)
    assert errors == [] and facts == summary(None, None, 1)


def test_parse_tracker_form_is_used_when_any_trick_is_entered():
    progress = GAME.start(setup(3))
    form = {f"trick-{k}": str(w) for k, w in enumerate([2, 2, 0, 0, 1, 1], start=1)}
    facts, errors = GAME.parse_deal(form, progress)
    assert errors == [] and facts == {"trick_winners": [2, 2, 0, 0, 1, 1]}
    # A summary that tells the same story (Ann holds the die at 5, Bob won the last trick) is fine.
    facts, errors = GAME.parse_deal({**form, "die_holder": "0", "die_number": "5", "last_trick": "1"},
                                    progress)
    assert errors == [] and facts == {"trick_winners": [2, 2, 0, 0, 1, 1]}


@pytest.mark.parametrize("summary", [{"die_holder": "1"}, {"die_number": "4"}, {"last_trick": "2"},
                                     {"die_holder": "none"}])
def test_parse_refuses_a_summary_that_contradicts_the_tracker(summary):
    # Issue 11: both modes filled in and disagreeing must never let the tracker win silently.
    progress = GAME.start(setup(3))
    form = {f"trick-{k}": str(w) for k, w in enumerate([2, 2, 0, 0, 1, 1], start=1)}
    _, errors = GAME.parse_deal({**form, **summary}, progress)
    assert [e.field for e in errors] == ["trick_winners"]
    assert str(errors[0].message) == (
        "The tricks and the summary disagree: by the tricks tapped, Ann holds the die showing 5 "
        "and Bob won the last trick. Correct one of them, or clear the summary.")


def test_parse_says_so_when_a_summary_meets_half_tapped_tricks():
    progress = GAME.start(setup(3))
    _, errors = GAME.parse_deal({"trick-1": "2", "trick-2": "2", "die_holder": "0",
                                 "die_number": "5", "last_trick": "1"}, progress)
    assert "trick_winners" in {e.field for e in errors}
    assert "Winner of trick 3: choose one of the players." in [str(e.message) for e in errors]


def test_parse_tracker_where_nobody_takes_the_die_against_a_summary():
    progress = GAME.start(setup(3))  # dealer Ann, so Bob leads and wins all six
    form = {f"trick-{k}": "1" for k in range(1, 7)}
    _, errors = GAME.parse_deal({**form, "die_holder": "none", "last_trick": "1"}, progress)
    assert errors == []
    _, errors = GAME.parse_deal({**form, "die_holder": "2", "die_number": "3"}, progress)
    assert "nobody took the die and Bob won the last trick" in str(errors[0].message)
    facts, errors = GAME.parse_deal({"trick-1": "1"}, progress)
    assert {e.field for e in errors} == {f"trick-{k}" for k in range(2, 7)}


def test_parse_reports_missing_and_bad_fields():
    progress = GAME.start(setup(3))
    _, errors = GAME.parse_deal({"die_holder": "3", "die_number": "", "last_trick": "-1"},
                                progress)
    assert {e.field for e in errors} == {"die_holder", "die_number", "last_trick"}


junk = st.one_of(st.none(), st.text(max_size=12), st.integers(-10**9, 10**9).map(str),
                 st.sampled_from(["none", "NONE", "0", "5", "６", "1e3", "-0", " 2 "]))


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from(["die_holder", "die_number", "last_trick", "trick-1",
                                        "trick-3", "trick-6", "trick-7"]), junk),
       st.integers(3, 5))
def test_parse_garbage_never_raises(form, n):
    progress = GAME.start(setup(n))
    facts, errors = GAME.parse_deal(form, progress)
    if not errors:
        GAME.check_deal(progress, facts)


@settings(deadline=None)
@given(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(-2, 6)),
                 st.dictionaries(st.text(max_size=12), st.one_of(st.none(), st.integers(-3, 9),
                                                                  st.text(max_size=3)))))
def test_check_copes_with_wrong_shapes(facts):
    progress = GAME.start(setup(3))
    errors = GAME.check_deal(progress, facts)
    assert isinstance(errors, list)


# --------------------------------------------------------------------------
# Invariants over random trick sequences

deal_tricks = st.lists(st.integers(0, 4), min_size=6, max_size=6)


@settings(deadline=None)
@given(st.integers(3, 5), st.integers(0, 4), deal_tricks)
def test_one_deal_invariants(n, leader, raw):
    leader %= n
    winners = [w % n for w in raw]
    t = track(winners, leader, n)
    assert t.die_holder != t.last_trick_winner
    assert (t.die_holder is None) == (winners == [leader] * 6)
    if t.die_number is not None and t.die_number < 6:
        # The player who beat the holder on trick n won every trick after it.
        assert set(winners[t.die_number - 1:]) == {t.last_trick_winner}
    # Partial lists agree with the full one step by step.
    for k in range(7):
        assert track(winners[:k], leader, n).steps == t.steps[:k]


@settings(deadline=None)
@given(st.integers(3, 5), st.integers(0, 4), deal_tricks)
def test_summary_from_tracker_passes_and_scores_the_same(n, first_dealer, raw):
    progress = GAME.start(setup(n, first_dealer % n))
    winners = [w % n for w in raw]
    leader = GAME.next_deal(progress).leader
    derived = summary_of(track(winners, leader, n))
    assert GAME.check_deal(progress, {"trick_winners": winners}) == []
    assert GAME.check_deal(progress, derived) == []
    assert GAME.score_deal(progress, derived) == GAME.score_deal(progress,
                                                                 {"trick_winners": winners})


@settings(deadline=None)
@given(st.integers(3, 5), st.lists(deal_tricks, max_size=15))
def test_chips_conserved_and_never_negative(n, deals):
    progress = GAME.start(setup(n))
    for raw in deals:
        if GAME.outcome(progress, False).over:
            break
        progress = GAME.add_deal(progress, {"trick_winners": [w % n for w in raw]})
        assert sum(progress.totals) == 15 * n
        assert min(progress.totals) >= 0
    match = GAME.conclude(progress)
    if match.over:
        assert set(match.winners) == {i for i, t in enumerate(match.totals)
                                      if t == max(match.totals)}


# --------------------------------------------------------------------------
# Match end and rulings


def test_all_chips_lost_with_payment_cap():
    # 3 players, Ann deals first: Bob, Cat, Ann open the three deals.
    deals = [{"trick_winners": [1, 1, 1, 1, 1, 0]},  # Bob takes the die at 6; Ann pays 6
             {"trick_winners": [2, 2, 2, 2, 2, 0]},  # Cat takes the die at 6; Ann pays 6
             {"trick_winners": [1, 1, 1, 1, 1, 0]}]  # Bob at 6; Ann owes 6 with only 3
    match = GAME.replay(setup(3), deals)
    assert match.totals == (0, 24, 21)
    assert match.deals[2].score.rulings == ("payment_cap",)
    assert match.deals[2].score.points == (-3, 3, 0)
    assert match.over and match.winners == (1,) and match.next is None
    assert "payment_cap" in match.outcome.rulings
    assert "Ann lost all their chips" in str(match.outcome.message)
    with pytest.raises(InvalidDeal, match="match is over"):
        GAME.replay(setup(3), deals + [{"trick_winners": [2] * 6}])


def test_thirty_held_ends_the_match():
    deals = [{"trick_winners": [1, 1, 1, 1, 1, 0]},  # Bob +6 from Ann
             {"trick_winners": [1, 1, 1, 1, 1, 2]},  # Bob at 6; Cat pays
             {"trick_winners": [1, 1, 1, 1, 1, 2]}]  # Bob at 6; Cat pays
    match = GAME.replay(setup(3), deals)
    assert match.totals == (9, 33, 3)
    assert match.over and match.winners == (1,)
    assert "thirty_held" in match.outcome.rulings
    not_yet = GAME.replay(setup(3), deals[:2])
    assert not_yet.totals == (9, 27, 9) and not not_yet.over and not_yet.outcome.rulings == ()


def test_n_times_three_deals_and_shared_win():
    # Every deal the opening leader wins all six tricks: nine draws.
    deals = [{"trick_winners": [(k + 1) % 3] * 6} for k in range(9)]
    short = GAME.replay(setup(3), deals[:8])
    assert not short.over and short.next.number == 9
    match = GAME.replay(setup(3), deals)
    assert match.over and match.winners == (0, 1, 2)
    assert "tie_shared" in match.outcome.rulings
    assert "All 9 deals" in str(match.outcome.message)


def test_whole_match_replay_mixed_forms():
    setup4 = setup(4, first_dealer=3)  # Dan deals first; Ann leads
    deals = [
        {"trick_winners": [0, 1, 1, 2, 2, 2]},  # Ann die at 2, Bob at 4; Cat pays Bob 4
        summary(None, None, 1),  # Bob leads and takes all six
        summary(3, 6, 0),  # Dan takes the die on the last trick from Ann
    ]
    match = GAME.replay(setup4, deals)
    assert match.totals == (9, 19, 11, 21)
    assert [d.before.dealer for d in match.deals] == [3, 0, 1]
    assert match.next.dealer == 2 and match.next.leader == 3
    assert not match.over
