"""Pair & Quad: the worked examples, the value table, checks, dealer choice and match end."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from companion.games import GAMES, InvalidDeal, MatchSetup
from companion.games.pair_quad import rank_value, score_captured

GAME = GAMES["pair_quad"]
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
KEYS = ("7", "A", "K", "Q", "J", "other")


def setup(n: int = 4, first_dealer: int = 0, deals: int = 0) -> MatchSetup:
    return MatchSetup("pair_quad", NAMES[:n], {"first_dealer": first_dealer, "deals": deals})


def row(seven=0, ace=0, king=0, queen=0, jack=0, other=0) -> dict:
    return dict(zip(KEYS, (seven, ace, king, queen, jack, other)))


def labels(lines) -> list[str]:
    return [str(line.label) for line in lines]


def messages(errors) -> str:
    return " | ".join(str(e.message) for e in errors)


# The source's example table: Ann holds the worked example (16 cards), Dan took nothing.
EXAMPLE = {"captured": [row(2, 2, 2, 0, 1, 9), row(2, 2, 2, 4, 3, 7), row(other=16),
                        row()]}


# --------------------------------------------------------------------------
# Declaration and setup


def test_declaration():
    assert (GAME.order, GAME.name_en, GAME.name_ja) == (4, "Pair & Quad", "ペア＆クアッド")
    assert GAME.players == (4,) and GAME.variant_players == (3, 5, 6)
    assert "ていこく" in str(GAME.credit) and "19 October 2012" in str(GAME.credit)
    assert "this app's name" in str(GAME.summary)
    ids = {r.id: r for r in GAME.rulings}
    assert set(ids) >= {"variant_counts", "match_length", "tied_top", "app_name", "tie_shared"}
    assert ids["match_length"].table_decides and ids["tied_top"].table_decides
    options = {o.key: o for o in GAME.options}
    assert options["deals"].default == 0 and options["deals"].kind == "deals"
    assert options["first_dealer"].kind == "seat"


@pytest.mark.parametrize("n, dealt, aside", [(3, 17, 1), (4, 13, 0), (5, 10, 2), (6, 8, 4)])
def test_setup_figures(n, dealt, aside):
    figures = {f.key: f.value for f in GAME.setup_figures(n)}
    assert figures == {"deck": 52, "dealt": dealt, "aside": aside, "tricks": dealt}
    steps = " ".join(str(s) for s in GAME.setup_steps(n))
    assert str(dealt) in steps
    assert ("aside" in steps) == bool(aside)


@pytest.mark.parametrize("n", [2, 7])
def test_setup_refuses_other_counts(n):
    with pytest.raises(ValueError):
        GAME.setup_figures(n)


# --------------------------------------------------------------------------
# Worked examples from the source


def test_example_three_pairs_cancel():
    total, lines = score_captured({"7": 2, "A": 2, "K": 2, "J": 1, "other": 9})
    assert total == 8
    assert labels(lines) == ["7 ×2 → 0 (pair)", "A ×2 → 0 (pair)", "K ×2 → 0 (pair)",
                             "J ×1 → −1", "Other ×9 → +9"]
    # Without the special rule the same cards would be −16.
    naive = -5 * 2 - 4 * 2 - 3 * 2 - 1 + 9
    assert naive == -16 and total != naive


def test_example_four_sevens_are_plus_twenty():
    total, lines = score_captured({"7": 4})
    assert total == 20 and labels(lines) == ["7 ×4 → +20 (quad)"]


def test_example_three_sevens_are_minus_fifteen():
    assert rank_value("7", 3) == -15
    assert labels(score_captured({"7": 3})[1]) == ["7 ×3 → −15 (three of a kind)"]


def test_capturing_nothing_scores_zero():
    total, lines = score_captured({})
    assert total == 0 and labels(lines) == ["Captured nothing → 0"]


def test_designer_table_for_every_rank():
    table = {"7": (0, -5, 0, -15, 20), "A": (0, -4, 0, -12, 16), "K": (0, -3, 0, -9, 12),
             "Q": (0, -2, 0, -6, 8), "J": (0, -1, 0, -3, 4)}
    for rank, values in table.items():
        assert [rank_value(rank, c) for c in range(5)] == list(values)
    assert rank_value("other", 9) == 9


@pytest.mark.parametrize("rank, count", [("7", 5), ("7", -1), ("10", 1), ("other", 33),
                                         ("A", True), ("K", "2")])
def test_rank_value_refuses_nonsense(rank, count):
    with pytest.raises(ValueError):
        rank_value(rank, count)


def test_score_captured_refuses_unknown_keys():
    with pytest.raises(ValueError):
        score_captured({"8": 1})


def test_example_deal_scores_and_winner():
    progress = GAME.start(setup())
    assert GAME.check_deal(progress, EXAMPLE) == []
    score = GAME.score_deal(progress, EXAMPLE)
    assert score.points == (8, 12, 16, 0)
    assert score.winners == (2,) and score.rulings == ()
    assert labels(score.breakdown[1])[3:] == ["Q ×4 → +8 (quad)", "J ×3 → −3 (three of a kind)",
                                              "Other ×7 → +7"]


# --------------------------------------------------------------------------
# Brute-force reading of the table


def by_the_table(counts: dict) -> int:
    base = {"7": -5, "A": -4, "K": -3, "Q": -2, "J": -1}
    total = counts["other"]
    for rank, b in base.items():
        c = counts[rank]
        total += {0: 0, 1: b, 2: 0, 3: 3 * b, 4: -4 * b}[c]
    return total


@settings(deadline=None)
@given(st.fixed_dictionaries({**{r: st.integers(0, 4) for r in KEYS[:5]},
                              "other": st.integers(0, 32)}))
def test_scoring_matches_the_table(counts):
    total, lines = score_captured(counts)
    assert total == by_the_table(counts)
    assert sum(line.points for line in lines) == total


def random_deal(n: int, seed: int) -> dict:
    """Deal a shuffled deck and give each trick to a random player, as real play would."""
    rng = random.Random(seed)
    deck = [r for r in ("7", "A", "K", "Q", "J") for _ in range(4)] + ["other"] * 32
    rng.shuffle(deck)
    tricks = 52 // n
    in_play = deck[:tricks * n]
    captured = [row() for _ in range(n)]
    for t in range(tricks):
        winner = rng.randrange(n)
        for card in in_play[t * n:(t + 1) * n]:
            captured[winner][card] += 1
    return {"captured": captured}


@settings(deadline=None)
@given(st.integers(3, 6), st.integers(0, 10**9))
def test_real_deals_pass_the_checks(n, seed):
    progress = GAME.start(setup(n))
    facts = random_deal(n, seed)
    assert GAME.check_deal(progress, facts) == []
    captured = facts["captured"]
    assert sum(sum(r.values()) for r in captured) == (52 // n) * n
    if n == 4:
        assert all(sum(r[k] for r in captured) == 4 for k in KEYS[:5])
    score = GAME.score_deal(progress, facts)
    assert list(score.points) == [by_the_table(r) for r in captured]
    assert ("variant_counts" in score.rulings) == (n != 4)


# --------------------------------------------------------------------------
# Input checks


def test_check_rank_must_sum_to_four():
    facts = {"captured": [row(3, 2, 2, 0, 0, 9), row(2, 2, 2, 4, 3, 7), row(other=16), row()]}
    errors = GAME.check_deal(GAME.start(setup()), facts)
    assert [e.field for e in errors] == ["7", "J"]
    assert "cards of rank 7 must add up to 4 with 4 players; they add up to 5" in messages(errors)


def test_check_other_must_sum_to_thirty_two():
    facts = {"captured": [row(2, 2, 2, 0, 1, 9), row(2, 2, 2, 4, 3, 7), row(other=12), row()]}
    errors = GAME.check_deal(GAME.start(setup()), facts)
    assert "other" in [e.field for e in errors]
    assert "other cards must add up to 32 with 4 players; they add up to 28" in messages(errors)


def test_check_captured_multiple_of_players():
    facts = {"captured": [row(2, 2, 2, 0, 1, 8), row(2, 2, 2, 4, 3, 7), row(other=17), row()]}
    errors = GAME.check_deal(GAME.start(setup()), facts)
    assert {e.field for e in errors} == {"other-0", "other-2"}
    assert "Ann captured 15 cards, which is not a multiple of 4" in messages(errors)


def test_check_counts_out_of_range():
    facts = {"captured": [row(5, 2, 2, 0, 1, 9), row(2, 2, 2, 4, 3, 7), row(other=-16), row()]}
    errors = GAME.check_deal(GAME.start(setup()), facts)
    assert {e.field for e in errors} == {"7-0", "other-2"}
    assert "Ann: cards of rank 7 must be from 0 to 4; it is 5." in messages(errors)


@pytest.mark.parametrize("facts", [{}, {"captured": None}, {"captured": [row()] * 3},
                                   {"captured": [1, 2, 3, 4]}, [], "x",
                                   {"captured": [{"7": "2"}] * 4}])
def test_check_wrong_shapes(facts):
    errors = GAME.check_deal(GAME.start(setup()), facts)
    assert errors


def test_variant_checks():
    progress = GAME.start(setup(5))  # 10 tricks of 5: 50 cards, 2 aside
    good = {"captured": [row(4, 4, 4, 4, 4, 10), row(other=15), row(other=5), row(), row()]}
    assert GAME.check_deal(progress, good) == []
    too_many = {"captured": [row(4, 4, 4, 4, 4, 10), row(1, other=14), row(other=5), row(),
                             row()]}
    errors = GAME.check_deal(progress, too_many)
    assert [e.field for e in errors] == ["7"]
    assert "at most 4; they add up to 5" in messages(errors)
    short = {"captured": [row(4, 4, 4, 4, 4, 10), row(other=10), row(other=5), row(), row()]}
    errors = GAME.check_deal(progress, short)
    assert [e.field for e in errors] == ["captured"]
    assert "must add up to 50 (10 tricks × 5 players); they add up to 45" in messages(errors)


# --------------------------------------------------------------------------
# Reading forms


def form_of(captured, extra=None) -> dict:
    form = {f"{k}-{seat}": str(r[k]) for seat, r in enumerate(captured) for k in KEYS}
    form.update(extra or {})
    return form


def test_parse_round_trip():
    progress = GAME.start(setup())
    facts, errors = GAME.parse_deal(form_of(EXAMPLE["captured"]), progress)
    assert errors == [] and facts == EXAMPLE


def test_parse_reports_each_bad_field():
    progress = GAME.start(setup())
    form = form_of(EXAMPLE["captured"], {"7-1": "5", "A-2": "", "other-3": "lots"})
    _, errors = GAME.parse_deal(form, progress)
    assert {e.field for e in errors} == {"7-1", "other-3"}  # a blank count is none


junk = st.one_of(st.none(), st.text(max_size=10), st.integers(-10**12, 10**12).map(str),
                 st.sampled_from(["", "4", "none", "٣", "0x4", "1.5", "  3 "]))


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from([f"{k}-{s}" for k in KEYS for s in range(7)]
                                       + ["dealer"]), junk), st.integers(3, 6))
def test_parse_garbage_never_raises(form, n):
    progress = GAME.start(setup(n))
    facts, errors = GAME.parse_deal(form, progress)
    if not errors:
        GAME.check_deal(progress, facts)


# --------------------------------------------------------------------------
# Dealer, ties and match end


TIED = {"captured": [row(other=12), row(other=12), row(3, 3, 3, 3, 3, 1), row(1, 1, 1, 1, 1, 7)]}


def test_first_dealer_leads_and_top_scorer_deals_next():
    progress = GAME.start(setup(first_dealer=1))
    first = GAME.next_deal(progress)
    assert (first.dealer, first.leader, first.choice) == (1, 1, None)
    progress = GAME.add_deal(progress, EXAMPLE)
    second = GAME.next_deal(progress)
    assert (second.dealer, second.leader) == (2, 2)
    assert "Cat deals and leads the first trick." in [str(x) for x in second.lines]


def test_tied_top_lets_the_table_choose_the_dealer():
    progress = GAME.add_deal(GAME.start(setup()), TIED)
    assert progress.deals[0].score.points == (12, 12, -44, -8)
    assert progress.deals[0].score.winners == (0, 1)
    assert "tied_top" in progress.deals[0].score.rulings
    upcoming = GAME.next_deal(progress)
    assert upcoming.choice.key == "dealer" and upcoming.choice.options == (0, 1)
    assert upcoming.choice.ruling == "tied_top" and upcoming.dealer is None
    # The answer must be one of the tied players.
    assert [e.field for e in GAME.validate(progress, dict(EXAMPLE, dealer=2))] == ["dealer"]
    assert GAME.validate(progress, dict(EXAMPLE, dealer=1)) == []
    form = form_of(EXAMPLE["captured"], {"dealer": "1"})
    facts, errors = GAME.parse_deal(form, progress)
    assert errors == [] and facts["dealer"] == 1
    _, errors = GAME.parse_deal(form_of(EXAMPLE["captured"]), progress)
    assert [e.field for e in errors] == ["dealer"]


def test_fixed_length_match():
    match = GAME.replay(setup(deals=2), [EXAMPLE, EXAMPLE])
    assert match.totals == (16, 24, 32, 0)
    assert match.over and match.winners == (2,) and match.next is None
    assert "match_length" in match.outcome.rulings
    assert "Cat wins with 32 points" in str(match.outcome.message)
    one = GAME.replay(setup(deals=2), [EXAMPLE])
    assert not one.over and one.next.number == 2
    with pytest.raises(InvalidDeal, match="match is over"):
        GAME.replay(setup(deals=2), [EXAMPLE] * 3)


def test_open_ended_match_ends_only_when_finished():
    deals = [EXAMPLE, TIED | {"dealer": 0}]
    match = GAME.replay(setup(), deals)
    assert not match.over and match.next is not None
    finished = GAME.replay(setup(), deals, finished=True)
    assert finished.totals == (20, 24, -28, -8)
    assert finished.over and finished.winners == (1,)
    assert GAME.replay(setup(), deals + [EXAMPLE | {"dealer": 1}]).next.dealer == 2
    empty = GAME.replay(setup(), [], finished=True)
    assert empty.over and empty.winners == ()


def test_shared_overall_win():
    match = GAME.replay(setup(deals=1), [TIED])
    assert match.winners == (0, 1)
    assert "tie_shared" in match.outcome.rulings
    assert "Ann, Bob share the win with 12 points" in str(match.outcome.message)


def test_whole_variant_match_replay():
    progress = GAME.start(setup(6, deals=5))
    deals = []
    for seed in range(5):
        facts = random_deal(6, seed)
        choice = GAME.next_deal(progress).choice
        if choice is not None:  # a tied top score: the table picks the first tied player
            facts["dealer"] = choice.options[0]
        deals.append(facts)
        progress = GAME.add_deal(progress, facts)
    match = GAME.replay(setup(6, deals=5), deals)
    expected = [sum(by_the_table(d["captured"][s]) for d in deals) for s in range(6)]
    assert list(match.totals) == expected
    assert all("variant_counts" in d.score.rulings for d in match.deals)
    assert match.over


def test_every_count_of_every_rank_matches_the_table():
    import itertools
    for counts in itertools.product(range(5), repeat=5):
        for other in (0, 7):
            reading = dict(zip(KEYS, (*counts, other)))
            assert score_captured(reading)[0] == by_the_table(reading)


# --------------------------------------------------------------------------
# Worked-out values: each rank has 4 cards and every card dealt is captured


def sparse_form(captured, last_blank=True) -> dict:
    """Only what a phone sends from tap rows: non-zero counts, the last player left blank."""
    rows = captured[:-1] if last_blank else captured
    return {f"{k}-{seat}": str(r[k]) for seat, r in enumerate(rows) for k in KEYS if r[k]}


def test_parse_works_out_the_last_player_and_blank_counts_are_none():
    captured = [row(1, 2, 0, 1, 0, 8), row(2, 0, 1, 1, 1, 7), row(0, 1, 2, 0, 2, 11),
                row(1, 1, 1, 2, 1, 6)]
    progress = GAME.start(setup())
    facts, errors = GAME.parse_deal(sparse_form(captured), progress)
    assert errors == []
    assert facts["captured"] == captured
    assert GAME.check_deal(progress, facts) == []


def test_parse_typed_last_player_is_kept():
    captured = [row(4, 0, 0, 0, 0, 12), row(0, 4, 0, 0, 0, 8), row(0, 0, 4, 0, 0, 8),
                row(0, 0, 0, 4, 4, 4)]
    progress = GAME.start(setup())
    form = sparse_form(captured) | {"Q-3": "3", "other-3": "4"}
    facts, errors = GAME.parse_deal(form, progress)
    assert errors == []
    assert facts["captured"][3] == row(0, 0, 0, 3, 4, 4)
    assert "Q" in {e.field for e in GAME.check_deal(progress, facts)}  # 3 of 4 Qs: refused


def test_parse_says_when_the_last_player_cannot_be_worked_out():
    progress = GAME.start(setup())
    form = {"7-0": "3", "7-1": "2", "other-0": "10"}
    _, errors = GAME.parse_deal(form, progress)
    assert [e.field for e in errors] == ["7-3"]


def test_parse_with_cards_aside_works_out_only_the_last_others():
    # 5 players: 10 cards each, 2 set aside unseen, so no rank is fixed; 50 cards are captured.
    captured = [row(1, 1, 1, 0, 0, 7), row(0, 2, 0, 1, 0, 7), row(2, 0, 0, 1, 1, 6),
                row(0, 1, 2, 0, 1, 6), row(0, 0, 1, 2, 1, 6)]
    progress = GAME.start(setup(5))
    form = sparse_form(captured) | {f"{k}-4": str(captured[4][k]) for k in "7AKQJ"}
    facts, errors = GAME.parse_deal(form, progress)
    assert errors == []
    assert facts["captured"] == captured
    assert GAME.check_deal(progress, facts) == []
