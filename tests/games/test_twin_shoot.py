"""Twin Shoot: worked examples, checks, match flow, helpers and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES, InvalidDeal, MatchSetup
from companion.games.twin_shoot import (BID_VALUES, TwinShootError, bid_value, decode_bid, deck,
                                        open_bid_eligible, opening_leader, play_order, resolve_trick)

GAME = GAMES["twin_shoot"]
FOUR = MatchSetup("twin_shoot", ("Ann", "Bob", "Cy", "Dee"))
SIX = MatchSetup("twin_shoot", ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay"))

# Bids by value, as two suit codes each.
BID = {0: ["D", "D"], 1: ["S", "D"], 2: ["H", "D"], 3: ["C", "D"], 4: ["X", "D"], 5: ["L", "D"],
       6: ["X", "H"], 7: ["L", "H"], 8: ["L", "C"], 9: ["L", "X"], 10: ["L", "L"]}


def facts(bids, tricks, open_bid=None):
    return {"bids": [BID[b] for b in bids], "tricks": list(tricks), "open_bid": open_bid}


def messages(errors):
    return " | ".join(str(e.message) for e in errors)


def progress_after(setup, deals):
    progress = GAME.start(setup)
    for f in deals:
        progress = GAME.add_deal(progress, f)
    return progress


# Team 0 misses both bids with 3 tricks; team 1 takes 7 and misses too: totals (3, 7).
BEHIND = facts([0, 0, 0, 0], [2, 1, 4, 3])


# --------------------------------------------------------------------------
# Declaration and setup


def test_declaration():
    assert GAME.name_ja == "ツインシュート"
    assert GAME.players == (4, 6) and GAME.teams
    assert "安藤慎吾" in str(GAME.credit)
    assert [o.key for o in GAME.options] == ["first_team"]
    assert {r.id for r in GAME.rulings} >= {"sides", "first_team", "dealer", "match_end"}
    # Who may open-bid is the designer's rule (the team alone in last place), not a ruling (issue 34).
    assert "open_bid" not in {r.id for r in GAME.rulings}
    assert GAME.entrants(SIX.players) == ("Ann & Bob", "Cy & Dee", "Eve & Fay")


@pytest.mark.parametrize("n, deck_size, removed, teams", [(4, 48, "2–6", 2), (6, 72, "2", 3)])
def test_setup_figures(n, deck_size, removed, teams):
    figures = {f.key: f.value for f in GAME.setup_figures(n)}
    assert figures["deck"] == deck_size == len(deck(n))
    assert str(figures["removed"]) == removed
    assert figures["teams"] == teams
    assert figures["dealt"] * n == deck_size
    assert figures["dealt"] - figures["bid_cards"] == figures["tricks"] == 10
    steps = " ".join(str(s) for s in GAME.setup_steps(n))
    assert f"{deck_size} cards" in steps and f"ranked {removed}." in steps


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_setup_refuses_other_counts(n):
    with pytest.raises(ValueError):
        GAME.setup_figures(n)
    with pytest.raises(Exception):
        GAME.start(MatchSetup("twin_shoot", tuple("ABCDEFGH"[:n])))


# --------------------------------------------------------------------------
# Worked examples


def test_bid_example_cross_plus_heart():
    assert bid_value("X", "H") == 6
    assert decode_bid("XH") == 6
    assert decode_bid(["cross", "Heart"]) == 6
    assert decode_bid("L L") == 10 and decode_bid("DD") == 0


def test_example_twin_shoot_37():
    score = GAME.score_deal(GAME.start(FOUR), facts([4, 3, 0, 0], [4, 3, 2, 1]))
    assert score.points[0] == 37
    labels = [(str(line.label), line.points) for line in score.breakdown[0]]
    assert labels == [("Trick points: 4 + 3 tricks", 7), ("Shoot bonus: Ann bid 4 and took 4", 10),
                      ("Shoot bonus: Bob bid 3 and took 3", 10),
                      ("Twin Shoot bonus: both partners hit their bids", 10)]
    assert score.points[1] == 3


def test_example_open_bid_67():
    progress = progress_after(FOUR, [BEHIND])
    f = facts([4, 3, 0, 0], [4, 3, 2, 1], open_bid=0)
    assert GAME.validate(progress, f) == []
    score = GAME.score_deal(progress, f)
    assert score.points == (67, 3)
    assert "open_bid" not in score.rulings  # the designer's rule, not a ruling
    assert any("Overhead Twin Shoot" in str(line.label) and line.points == 30 for line in score.breakdown[0])


def test_example_failed_open_bid_16_and_others_30():
    progress = progress_after(SIX, [facts([10] * 6, [0, 0, 3, 2, 3, 2])])
    f = facts([4, 3, 1, 1, 0, 0], [4, 2, 1, 1, 1, 1], open_bid=0)
    assert GAME.validate(progress, f) == []
    score = GAME.score_deal(progress, f)
    # Team 0: 6 + 10 = 16. Team 1: 2 tricks + 2 shoots + twin = 32, + 30. Team 2: 2 + 30.
    assert score.points == (16, 62, 32)
    assert any("failed open bid" in str(line.label) and line.points == 30 for line in score.breakdown[2])
    assert "open_bid" not in score.rulings  # the designer's rule, not a ruling


def test_single_shoot_has_no_twin_bonus():
    score = GAME.score_deal(GAME.start(FOUR), facts([4, 5, 0, 0], [4, 3, 2, 1]))
    assert score.points[0] == 17


# --------------------------------------------------------------------------
# Checks


def test_tricks_must_sum_to_ten():
    errors = GAME.check_deal(GAME.start(FOUR), facts([0] * 4, [3, 3, 3, 3]))
    assert [e.field for e in errors] == ["tricks"]
    assert "add up to 10 with 4 players; they add up to 12" in messages(errors)


def test_tricks_out_of_range_and_not_numbers():
    errors = GAME.check_deal(GAME.start(FOUR), facts([0] * 4, [11, -1, 0, 0]))
    assert {e.field for e in errors} == {"tricks-0", "tricks-1"}
    assert "Tricks taken by Ann must be from 0 to 10; it is 11." in messages(errors)
    errors = GAME.check_deal(GAME.start(FOUR), facts([0] * 4, [5, "5", True, 0]))
    assert {e.field for e in errors} == {"tricks-1", "tricks-2"}
    assert "whole number" in messages(errors)


def test_bid_must_be_two_of_the_six_suits():
    f = facts([0] * 4, [4, 3, 2, 1])
    f["bids"][1] = ["X", "Q"]
    f["bids"][2] = ["X"]
    errors = GAME.check_deal(GAME.start(FOUR), f)
    assert {e.field for e in errors} == {"bid2-1", "bid1-2"}
    assert "Bob's bid card 2 must be one of the six suits" in messages(errors)
    assert "Cy's bid must be exactly two suits" in messages(errors)


@pytest.mark.parametrize("bad", [None, "x", [], {"bids": 1}, {"bids": [[1, 2]] * 4, "tricks": "10"}])
def test_wrong_shapes_are_refused_not_raised(bad):
    errors = GAME.check_deal(GAME.start(FOUR), bad)
    assert errors
    assert any(e.field in ("bids", "tricks", "bid1-0") for e in errors)


def test_no_open_bid_on_first_deal():
    errors = GAME.check_deal(GAME.start(FOUR), facts([4, 3, 0, 0], [4, 3, 2, 1], open_bid=0))
    assert [e.field for e in errors] == ["open_bid"]
    assert "first deal" in messages(errors)


def test_open_bid_only_for_team_alone_in_last_place():
    progress = progress_after(FOUR, [BEHIND])  # totals (3, 7)
    errors = GAME.check_deal(progress, facts([0] * 4, [4, 3, 2, 1], open_bid=1))
    assert "Cy & Dee has 7 points and the lowest total is 3" in messages(errors)
    errors = GAME.check_deal(progress, facts([0] * 4, [4, 3, 2, 1], open_bid=2))
    assert "not one of the teams" in messages(errors)
    with pytest.raises(InvalidDeal):
        GAME.add_deal(progress, facts([0] * 4, [4, 3, 2, 1], open_bid=1))


def test_open_bid_refused_when_last_place_is_shared():
    progress = progress_after(SIX, [facts([10] * 6, [0, 2, 2, 0, 3, 3])])  # totals (2, 2, 6)
    assert progress.totals == (2, 2, 6)
    errors = GAME.check_deal(progress, facts([0] * 6, [0, 2, 2, 0, 3, 3], open_bid=0))
    assert "shares last place with 2 points" in messages(errors)


def test_open_bid_eligible():
    assert open_bid_eligible([0, 0]) is None
    assert open_bid_eligible([3, 7]) == 0
    assert open_bid_eligible([9, 4, 4]) is None
    assert open_bid_eligible([9, 4, 5]) == 1


# --------------------------------------------------------------------------
# parse_deal


def test_parse_deal_reads_a_form():
    form = {"bid1-0": "x", "bid2-0": "♥", "bid1-1": "C", "bid2-1": "D", "bid1-2": "leaf", "bid2-2": "D",
            "bid1-3": "S", "bid2-3": "D", "tricks-0": "6", "tricks-1": " 3", "tricks-2": "1",
            "tricks-3": "0", "open_bid": "none"}
    f, errors = GAME.parse_deal(form, GAME.start(FOUR))
    assert errors == []
    assert f == {"bids": [["X", "H"], ["C", "D"], ["L", "D"], ["S", "D"]], "tricks": [6, 3, 1, 0],
                 "open_bid": None}
    form["open_bid"] = "1"
    form["bid2-3"] = "Q"
    form["tricks-2"] = "lots"
    f, errors = GAME.parse_deal(form, GAME.start(FOUR))
    assert f["open_bid"] == 1
    # Besides what can't be read, the checks of what was read: no open bid on the first deal.
    assert {e.field for e in errors} == {"bid2-3", "tricks-2", "open_bid"}
    assert "“Q” is not a suit" in messages(errors)


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from(["bid1-0", "bid2-1", "tricks-0", "tricks-5", "open_bid", "x"]),
                       st.one_of(st.text(max_size=30), st.integers(), st.none(), st.booleans())))
def test_parse_deal_never_raises(form):
    f, errors = GAME.parse_deal(form, GAME.start(SIX))
    assert isinstance(errors, list)
    GAME.check_deal(GAME.start(SIX), f)


# --------------------------------------------------------------------------
# Match flow


def test_next_deal_schedule_four_players():
    progress = GAME.start(FOUR)
    upcoming = GAME.next_deal(progress)
    assert (upcoming.number, upcoming.detail.team, upcoming.leader, upcoming.detail.side, upcoming.detail.direction) == \
        (1, 0, 0, "right", "clockwise")
    assert upcoming.dealer is None
    text = " ".join(str(line) for line in upcoming.lines)
    assert "Any player outside Ann & Bob deals" in text and "Bob plays second" in text
    seen = []
    for _ in range(4):
        progress = GAME.add_deal(progress, facts([0] * 4, [3, 2, 3, 2]))
        upcoming = GAME.next_deal(progress)
        seen.append((upcoming.detail.team, upcoming.leader, upcoming.detail.side, upcoming.detail.direction))
    assert seen == [(1, 2, "right", "clockwise"), (0, 1, "left", "counter-clockwise"),
                    (1, 3, "left", "counter-clockwise"), (0, 0, "right", "clockwise")]
    assert "Ann plays second" in " ".join(str(line) for line in GAME.next_deal(
        progress_after(FOUR, [facts([0] * 4, [3, 2, 3, 2])] * 2)).lines)


def test_first_team_option_and_open_bid_line():
    setup = MatchSetup("twin_shoot", SIX.players, {"first_team": 2})
    upcoming = GAME.next_deal(GAME.start(setup))
    assert (upcoming.detail.team, upcoming.leader) == (2, 4)
    assert "nobody may open-bid" in " ".join(str(line) for line in upcoming.lines)
    progress = progress_after(setup, [facts([10] * 6, [0, 0, 3, 2, 3, 2])])
    upcoming = GAME.next_deal(progress)
    assert upcoming.detail.team == 0
    assert "Ann & Bob is alone in last place" in " ".join(str(line) for line in upcoming.lines)
    with pytest.raises(Exception):
        GAME.start(MatchSetup("twin_shoot", FOUR.players, {"first_team": 2}))


@settings(deadline=None)
@given(st.sampled_from([2, 3]), st.integers(0, 2), st.integers(1, 12))
def test_opening_leader_schedule(teams, first, cycles):
    first %= teams
    for cycle in range(cycles):
        schedule = [opening_leader(cycle * teams + i, first, teams) for i in range(teams)]
        assert sorted(team for team, _, _, _ in schedule) == list(range(teams))
        assert [team for team, _, _, _ in schedule][0] == first
        side = "right" if cycle % 2 == 0 else "left"
        for team, seat, s, direction in schedule:
            assert s == side
            assert seat == 2 * team + (s == "left")
            assert direction == ("clockwise" if s == "right" else "counter-clockwise")
            assert play_order(seat, 2 * teams)[1] == seat ^ 1  # the partner plays second


def test_opening_leader_errors():
    for args in [(0, 0, 4), (0, 3, 3), (-1, 0, 2)]:
        with pytest.raises(TwinShootError):
            opening_leader(*args)


def test_replay_whole_match_and_end():
    # Team 0 twin-shoots 4 and 3 each deal (37); team 1 misses (3 tricks).
    deal = facts([4, 3, 0, 0], [4, 3, 2, 1])
    match = GAME.replay(FOUR, [deal, deal])
    assert match.totals == (74, 6) and not match.over and match.next.number == 3
    match = GAME.replay(FOUR, [deal] * 3)
    assert match.totals == (111, 9)
    assert match.over and match.winners == (0,) and match.next is None
    assert "match_end" in match.outcome.rulings
    assert "Ann & Bob win with 111 points" in str(match.outcome.message)  # a team: "win" (issue 24)
    with pytest.raises(Exception):
        GAME.replay(FOUR, [{"bids": [], "tricks": [], "open_bid": None}])


def test_shared_win_and_highest_total_when_both_pass_100():
    # Each deal: both teams twin-shoot with 5 tricks (bids 3 and 2): 5 + 30 = 35 each.
    even = facts([3, 2, 3, 2], [3, 2, 3, 2])
    match = GAME.replay(FOUR, [even] * 3)
    assert match.totals == (105, 105) and match.over and match.winners == (0, 1)
    assert "share the win" in str(match.outcome.message) and "match_end" in match.outcome.rulings
    # Both teams pass 100 on the same deal, one higher: the higher total wins. (This was
    # [even, even, ahead, even] ending (140, 120): a 4th deal after the match ended at (105, 85),
    # which the rules now refuse, issue 24.)
    ahead = facts([3, 3, 2, 2], [3, 3, 2, 2])  # both twin-shoot: 6 + 30 vs 4 + 30
    match = GAME.replay(FOUR, [even, even, ahead])
    assert match.totals == (106, 104) and match.winners == (0,)


# --------------------------------------------------------------------------
# Trick resolver


def test_suit_follow_highest_rank_wins():
    result = resolve_trick(2, ["9H", "KH", "AH", "8X"], 4)
    assert result.seats == (2, 3, 0, 1) and result.direction == "clockwise"
    assert (result.follow, result.follow_index, result.winner) == ("suit", 1, 0)


def test_rank_follow_strongest_suit_wins_and_never_switches():
    result = resolve_trick(3, ["9H", "9S", "AH", "9L"], 4)
    assert result.seats == (3, 2, 1, 0) and result.direction == "counter-clockwise"
    assert (result.follow, result.follow_index, result.winner) == ("rank", 1, 0)


def test_partner_passes_the_choice_on_and_nobody_matches():
    result = resolve_trick(0, ["9H", "KL", "QH", "9D"], 4)
    assert (result.follow, result.follow_index, result.winner) == ("suit", 2, 2)
    result = resolve_trick(0, ["9H", "KL", "QS", "8D"], 4)
    assert (result.follow, result.follow_index, result.winner) == (None, None, 0)


def test_legality_with_hands():
    hands = [{"9H"}, {"KL", "QH"}, {"9S", "AH"}, {"8D", "AC"}]
    result = resolve_trick(0, ["9H", "KL", "9S", "8D"], 4, hands=hands)
    # Bob held QH but played KL; then Cy set a rank follow, Dee had no 9; Heart beats Spade.
    assert result.legal == (True, False, True, True)
    assert "QH could have been played" in str(result.reasons[1])
    assert result.follow == "rank" and result.winner == 0
    result = resolve_trick(0, ["9H", "QH", "9L", "8D"], 4, hands=[{"9H"}, {"QH"}, {"9L", "AH"}, {"8D"}])
    assert result.legal == (True, True, False, True) and result.winner == 1
    assert resolve_trick(0, ["9H", "KL", "9S", "8D"], 4).legal == (None,) * 4


@pytest.mark.parametrize("plays, n, hands", [
    (["9H", "9H", "AH", "8X"], 4, None),
    (["3H", "KH", "AH", "8X"], 4, None),
    (["9H", "KH", "AH"], 4, None),
    (["9H", "KH", "AH", "8X", "7L", "ZZ"], 6, None),
    (["9H", "KH", "AH", "8X"], 5, None),
    (["9H", "KH", "AH", "8X"], 4, [{"9H"}, {"KH", "AH"}, {"AH"}, {"8X"}]),
    (["9H", "KH", "AH", "8X"], 4, [{"9H", "7L"}, {"KH", "7L"}, {"AH"}, {"8X"}]),
])
def test_resolver_refuses_impossible_input(plays, n, hands):
    with pytest.raises(TwinShootError):
        resolve_trick(0, plays, n, hands=hands)


SUIT_ORDER = ["D", "S", "H", "C", "X", "L"]  # weakest first


def reference(leader, plays, n, hands):
    """Independent re-implementation straight from the digest's wording."""
    partner_left = leader % 2 == 0
    seats = [leader]
    while len(seats) < n:
        seats.append((seats[-1] + (1 if partner_left else n - 1)) % n)
    lead = plays[0]
    mode = None
    legal = [True]
    for i in range(1, n):
        card, hand = plays[i], hands[i] - {plays[i]}
        if mode is None:
            must = any(h.suit == lead.suit or h.rank == lead.rank for h in hand)
            legal.append(card.suit == lead.suit or card.rank == lead.rank or not must)
            if card.suit == lead.suit:
                mode = "suit"
            elif card.rank == lead.rank:
                mode = "rank"
        elif mode == "suit":
            legal.append(card.suit == lead.suit or all(h.suit != lead.suit for h in hand))
        else:
            legal.append(card.rank == lead.rank or all(h.rank != lead.rank for h in hand))
    if mode == "suit":
        win = max(range(n), key=lambda i: plays[i].rank if plays[i].suit == lead.suit else -1)
    elif mode == "rank":
        win = max(range(n), key=lambda i: SUIT_ORDER.index(plays[i].suit) if plays[i].rank == lead.rank else -1)
    else:
        win = 0
    return seats, mode, legal, seats[win]


def legal_choices(lead, mode, hand):
    if lead is None:
        return sorted(hand)
    if mode is None:
        match = [h for h in hand if h.suit == lead.suit or h.rank == lead.rank]
    elif mode == "suit":
        match = [h for h in hand if h.suit == lead.suit]
    else:
        match = [h for h in hand if h.rank == lead.rank]
    return sorted(match or hand)


@settings(deadline=None)
@given(st.sampled_from([4, 6]), st.integers(0, 5), st.randoms(use_true_random=False), st.booleans())
def test_resolver_matches_reference(n, leader, rnd, only_legal):
    leader %= n
    cards = list(deck(n))
    rnd.shuffle(cards)
    size = rnd.randint(1, 12)  # hands shrink as the deal goes on
    seats = play_order(leader, n)
    hands = [set(cards[12 * s: 12 * s + size]) for s in seats]
    plays, mode = [], None
    for hand in hands:
        lead = plays[0] if plays else None
        options = legal_choices(lead, mode, hand) if only_legal else sorted(hand)
        card = rnd.choice(options)
        if lead is not None and mode is None:
            mode = "suit" if card.suit == lead.suit else "rank" if card.rank == lead.rank else None
        plays.append(card)
    result = resolve_trick(leader, plays, n, hands=hands)
    ref_seats, ref_mode, ref_legal, ref_winner = reference(leader, plays, n, hands)
    assert result.seats == tuple(ref_seats)
    assert result.follow == ref_mode
    assert result.legal == tuple(ref_legal)
    assert result.winner == ref_winner
    if only_legal:
        assert all(result.legal)
    if result.follow is not None:
        assert plays[result.follow_index].suit == plays[0].suit or plays[result.follow_index].rank == plays[0].rank


# --------------------------------------------------------------------------
# Scoring invariants


@st.composite
def valid_deal(draw):
    n = draw(st.sampled_from([4, 6]))
    cuts = sorted(draw(st.lists(st.integers(0, 10), min_size=n - 1, max_size=n - 1)))
    tricks = [b - a for a, b in zip([0] + cuts, cuts + [10])]
    bids = [draw(st.lists(st.sampled_from(list(BID_VALUES)), min_size=2, max_size=2)) for _ in range(n)]
    return n, {"bids": bids, "tricks": tricks, "open_bid": None}


@settings(deadline=None)
@given(valid_deal())
def test_trick_points_sum_to_ten(deal):
    n, f = deal
    setup = FOUR if n == 4 else SIX
    progress = GAME.start(setup)
    assert GAME.check_deal(progress, f) == []
    score = GAME.score_deal(progress, f)
    trick_points = [line.points for lines in score.breakdown for line in lines
                    if str(line.label).startswith("Trick points")]
    assert sum(trick_points) == 10 and len(trick_points) == n // 2
    hits = [f["tricks"][s] == bid_value(*f["bids"][s]) for s in range(n)]
    for team in range(n // 2):
        both = hits[2 * team] and hits[2 * team + 1]
        expected = f["tricks"][2 * team] + f["tricks"][2 * team + 1] + 10 * sum(hits[2 * team:2 * team + 2]) + 10 * both
        assert score.points[team] == expected
        assert sum(line.points or 0 for line in score.breakdown[team]) == score.points[team]


def test_parse_works_out_the_last_players_tricks():
    # The ten tricks all have a winner: a blank last player takes the rest.
    from companion.games import MatchSetup
    progress = GAME.start(MatchSetup("twin_shoot", ("A", "B", "C", "D"), {}))
    form = {f"bid{w}-{s}": "C" for w in (1, 2) for s in range(4)}
    form |= {"tricks-0": "3", "tricks-1": "2", "tricks-2": "4", "tricks-3": ""}
    facts, errors = GAME.parse_deal(form, progress)
    assert errors == [] and facts["tricks"] == [3, 2, 4, 1]
    form |= {"tricks-0": "8"}
    _, errors = GAME.parse_deal(form, progress)
    assert [e.field for e in errors] == ["tricks-3"]
