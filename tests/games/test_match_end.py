"""No deal after the end of the match (issue 24), in every game: held-out cases worked by hand
from the posts for every end condition, whether a deal is added, replayed or reached through a
correction, and a property: no replayed match ever has a deal after it was over."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.tables import service as store
from companion.games import GAMES, InvalidDeal, MatchSetup
from companion.games import DealRecord
from helpers import migrated_connection, stored_table
import table_writes

OVER = "The match is over"


def after_end(game, progress) -> bool | None:
    """True when the match is over and its end allows no further deal (not a tie-break)."""
    outcome = game.outcome(progress, False)
    return True if outcome.over and not outcome.more_deals_allowed else None


def refused_after_end(game_id, setup, deals):
    """The replay of ``deals`` refuses its last deal for coming after the end of the match."""
    with pytest.raises(InvalidDeal) as caught:
        GAMES[game_id].replay(setup, deals)
    assert caught.value.number == len(deals)
    assert [e.field for e in caught.value.errors] == ["deal"]
    assert OVER in str(caught.value.errors[0].message)


# --------------------------------------------------------------------------
# Miraiscope: over after a deal in which a player has 60; a tie allows one tie-break deal

MIRAI = MatchSetup("miraiscope", ("A", "B"), {"first_dealer": 0})


def mirai(queens_a, ones_a, last):
    """A Miraiscope deal from A's captures; B has the rest (35 points in all)."""
    return {"queens": [queens_a, 4 - queens_a], "points": [ones_a, 20 - ones_a], "last_trick": last}


A15_B20 = mirai(2, 9, 1)     # A 6 + 9 = 15, B 6 + 11 + 3 = 20
A17_B18 = mirai(2, 11, 1)    # A 17, B 18
A18_B17 = mirai(2, 12, 1)    # A 6 + 12 = 18, B 6 + 8 + 3 = 17
A20_B15 = mirai(2, 11, 0)    # A 6 + 11 + 3 = 20, B 15


def test_miraiscope_refuses_a_fifth_deal_after_b_won_80_to_60():
    # The case: B reaches 80 to A's 60 after four deals, never 60 before.
    deals = [A17_B18, A17_B18, A18_B17, mirai(0, 8, 1)]  # A 8, B 12 + 12 + 3 = 27
    match = GAMES["miraiscope"].replay(MIRAI, deals)
    assert match.totals == (60, 80) and match.over and match.winners == (1,)
    assert match.next is None
    refused_after_end("miraiscope", MIRAI, deals + [A20_B15])


def test_miraiscope_ends_on_the_deal_that_reaches_60_even_if_the_other_passes_it():
    deals = [A15_B20, A15_B20, A20_B15]  # A 50, B 55
    match = GAMES["miraiscope"].replay(MIRAI, deals)
    assert match.totals == (50, 55) and not match.over
    deals.append(A15_B20)
    match = GAMES["miraiscope"].replay(MIRAI, deals)
    assert match.totals == (65, 75) and match.over and match.winners == (1,)
    refused_after_end("miraiscope", MIRAI, deals + [A15_B20])


def test_miraiscope_keeps_its_tie_break_deal_and_refuses_the_one_after():
    tied = [A17_B18, A17_B18, A18_B17, A18_B17]  # 70 / 70
    match = GAMES["miraiscope"].replay(MIRAI, tied)
    assert match.totals == (70, 70) and match.over and match.outcome.more_deals_allowed
    assert match.next is not None and match.next.number == 5
    broken = GAMES["miraiscope"].replay(MIRAI, tied + [A15_B20])
    assert broken.totals == (85, 90) and broken.over and broken.winners == (1,)
    assert broken.next is None and "tie_at_end" in broken.outcome.rulings
    refused_after_end("miraiscope", MIRAI, tied + [A15_B20, A20_B15])


def test_miraiscope_accepted_tie_takes_no_more_deals_at_the_table(conn):
    token = table_writes.create(conn, "miraiscope", ["A", "B"], {"first_dealer": 0})
    for number, facts in enumerate([A17_B18, A17_B18, A18_B17, A18_B17], start=1):
        table_writes.add_deal(conn, token, number, facts)
    table_writes.set_finished(conn, token, True)  # the players accept the shared win
    with pytest.raises(store.Refused):
        table_writes.add_deal(conn, token, 5, A15_B20)
    assert len(store.load(conn, token).deals) == 4


# --------------------------------------------------------------------------
# Twin Shoot: over after the deal in which a team reaches 100

TWIN = MatchSetup("twin_shoot", ("Ann", "Bob", "Cy", "Dee"), {"first_team": 0})
BID = {0: ["D", "D"], 2: ["H", "D"], 3: ["C", "D"]}


def twin(bids, tricks, open_bid=None):
    return {"bids": [BID[b] for b in bids], "tricks": list(tricks), "open_bid": open_bid}


EVEN = twin([3, 2, 3, 2], [3, 2, 3, 2])      # both teams twin-shoot with 5 tricks: 35 each
MISS = twin([0, 0, 0, 0], [3, 2, 3, 2])      # nobody hits a bid: 5 each
TEAM0 = twin([3, 2, 0, 0], [3, 2, 3, 2])     # team 0 35, team 1 5


def test_twin_shoot_refuses_a_deal_after_a_team_reached_100():
    deals = [TEAM0, TEAM0, TEAM0]
    match = GAMES["twin_shoot"].replay(TWIN, deals)
    assert match.totals == (105, 15) and match.over and match.winners == (0,)
    refused_after_end("twin_shoot", TWIN, deals + [MISS])


def test_twin_shoot_shared_win_at_100_is_the_end_too():
    match = GAMES["twin_shoot"].replay(TWIN, [EVEN, EVEN, EVEN])
    assert match.totals == (105, 105) and match.over and match.winners == (0, 1)
    refused_after_end("twin_shoot", TWIN, [EVEN, EVEN, EVEN, MISS])


def test_twin_shoot_exactly_100_ends_the_match():
    # Team 0: 35 + 35 + 30 (no tricks of its own but both bid 0: 0 + 10 + 10 + 10) = 100.
    exact = twin([0, 0, 0, 0], [0, 0, 5, 5])  # team 1 takes all 10 tricks, bids missed: 10
    match = GAMES["twin_shoot"].replay(TWIN, [EVEN, EVEN, exact])
    assert match.totals == (100, 80) and match.over and match.winners == (0,)
    refused_after_end("twin_shoot", TWIN, [EVEN, EVEN, exact, MISS])


# --------------------------------------------------------------------------
# RWD: first to 3 deal wins, shared on the same deal, or one deal as the whole game

RWD = MatchSetup("rwd", ("Ann", "Bo", "Cy"), {"first_start_player": 0})
ANN = {"chips": [4, 5, 8], "tricks": [7, 7, 3]}    # Ann +3 alone
BO = {"chips": [5, 4, 8], "tricks": [5, 10, 2]}    # Bo +6 alone
SHARED = {"chips": [5, 5, 7], "tricks": [7, 7, 3]}  # Ann and Bo +2 with 5 chips each: shared


def test_rwd_refuses_a_deal_after_three_deal_wins():
    deals = [ANN, BO, ANN, ANN]
    match = GAMES["rwd"].replay(RWD, deals)
    assert match.over and match.winners == (0,)
    refused_after_end("rwd", RWD, deals + [BO])


def test_rwd_two_players_reaching_three_together_share_and_end_it():
    deals = [SHARED, {**SHARED, "start_player": 1}, {**SHARED, "start_player": 0}]
    match = GAMES["rwd"].replay(RWD, deals)
    assert match.over and match.winners == (0, 1)
    refused_after_end("rwd", RWD, deals + [{**ANN, "start_player": 0}])


def test_rwd_one_deal_game_takes_no_second_deal():
    one = replace(RWD, options={"first_start_player": 0, "length": 1})
    assert GAMES["rwd"].replay(one, [SHARED]).over
    refused_after_end("rwd", one, [SHARED, {**ANN, "start_player": 0}])


# --------------------------------------------------------------------------
# Lucky Cube: someone has 0 chips, someone 30, or N × 3 deals played

LUCKY = MatchSetup("lucky_cube", ("Ann", "Bob", "Cat"), {"first_dealer": 0})


def die(holder, number, last):
    return {"die_holder": holder, "die_number": number, "last_trick": last}


def test_lucky_cube_ends_at_30_chips():
    deals = [die(0, 6, 1), die(0, 6, 2), die(0, 3, 1)]  # Ann 15 + 6 + 6 + 3 = 30
    match = GAMES["lucky_cube"].replay(LUCKY, deals)
    assert match.totals == (30, 6, 9) and match.over and match.winners == (0,)
    refused_after_end("lucky_cube", LUCKY, deals + [die(1, 2, 0)])


def test_lucky_cube_ends_when_someone_has_no_chips():
    deals = [die(0, 6, 1), die(2, 6, 1), die(0, 3, 1)]  # Bob 15 − 6 − 6 − 3 = 0
    match = GAMES["lucky_cube"].replay(LUCKY, deals)
    assert match.totals == (24, 0, 21) and match.over and match.winners == (0,)
    refused_after_end("lucky_cube", LUCKY, deals + [die(1, 2, 0)])


def test_lucky_cube_ends_after_n_times_three_deals():
    game = GAMES["lucky_cube"]
    progress, deals = game.start(LUCKY), []
    for _ in range(9):  # 3 players: at most 9 deals; nobody takes the die: a draw each time
        deals.append(die(None, None, game.next_deal(progress).leader))
        progress = game.add_deal(progress, deals[-1])
    match = game.conclude(progress)
    assert match.totals == (15, 15, 15) and match.over and match.winners == (0, 1, 2)
    refused_after_end("lucky_cube", LUCKY, deals + [die(None, None, game.next_deal(progress).leader)])


# --------------------------------------------------------------------------
# Pair & Quad: a planned number of deals, or open-ended until "Finish match"

PQ = MatchSetup("pair_quad", ("Ann", "Bob", "Cat", "Dan"), {"first_dealer": 0, "deals": 2})


def row(seven=0, ace=0, king=0, queen=0, jack=0, other=0):
    return {"7": seven, "A": ace, "K": king, "Q": queen, "J": jack, "other": other}


PQ_DEAL = {"captured": [row(4, 0, 0, 0, 0, 12), row(0, 4, 0, 0, 0, 8), row(0, 0, 4, 0, 0, 8),
                        row(0, 0, 0, 4, 4, 4)]}  # Ann +20 +12 alone on top


def test_pair_quad_planned_length_refuses_one_more():
    match = GAMES["pair_quad"].replay(PQ, [PQ_DEAL, PQ_DEAL])
    assert match.over and match.winners == (0,) and match.next is None
    refused_after_end("pair_quad", PQ, [PQ_DEAL, PQ_DEAL, PQ_DEAL])


def test_pair_quad_open_ended_finished_at_the_table_takes_no_more(conn):
    token = table_writes.create(conn, "pair_quad", ["Ann", "Bob", "Cat", "Dan"], {"first_dealer": 0})
    table_writes.add_deal(conn, token, 1, PQ_DEAL)
    table_writes.set_finished(conn, token, True)
    with pytest.raises(store.Refused):
        table_writes.add_deal(conn, token, 2, PQ_DEAL)


# --------------------------------------------------------------------------
# Corrections around the end (store level)


@pytest.fixture
def conn(tmp_path):
    yield from migrated_connection(tmp_path)


def table_with(conn, game_id, setup, deals):
    return stored_table(conn, game_id, setup.players, dict(setup.options), deals)


def correct(conn, token, number, facts):
    old = store.load(conn, token).deals[number - 1]
    return table_writes.edit_deal(conn, token, number, facts, store.fingerprint(old))


def refusal(caught) -> str:
    assert [e.field for e in caught.value.errors] == [store.AFTER_END]
    return str(caught.value.errors[0].message)


def test_miraiscope_correction_that_breaks_the_tie_earlier_refuses_the_tie_break_deal(conn):
    # The case: tied 70/70 after deal 4, then a tie-break deal 5. Deal 1 is corrected so
    # that B leads 75-65 after deal 4: the match now ends there and deal 5 would follow its end.
    deals = [A17_B18, A17_B18, A18_B17, A18_B17, A20_B15]
    token = table_with(conn, "miraiscope", MIRAI, deals)
    with pytest.raises(store.Refused) as caught:
        correct(conn, token, 1, mirai(2, 9, 1))  # A 15, B 20 instead of 17 / 18
    message = refusal(caught)
    assert "ends after deal 4" in message and "deal 5" in message
    assert store.load(conn, token).deals == tuple(deals)  # nothing written


def test_twin_shoot_correction_that_reaches_100_earlier_names_the_deals_after(conn):
    deals = [MISS, EVEN, EVEN, EVEN]  # 5 + 35 × 3 = 110 each after deal 4
    token = table_with(conn, "twin_shoot", TWIN, deals)
    with pytest.raises(store.Refused) as caught:
        correct(conn, token, 1, EVEN)  # 105 each after deal 3
    message = refusal(caught)
    assert "ends after deal 3" in message and "deal 4" in message
    assert store.load(conn, token).deals == tuple(deals)


def test_rwd_correction_that_gives_three_wins_earlier_names_two_later_deals(conn):
    deals = [BO, ANN, ANN, BO, ANN]
    token = table_with(conn, "rwd", RWD, deals)  # Ann's third win on deal 5
    with pytest.raises(store.Refused) as caught:
        correct(conn, token, 1, ANN)  # Ann wins deals 1, 2, 3
    message = refusal(caught)
    assert "ends after deal 3" in message and "deals 4 to 5" in message
    assert store.load(conn, token).deals == tuple(deals)


def test_lucky_cube_correction_that_empties_a_player_earlier_is_refused(conn):
    deals = [die(0, 6, 1), die(2, 6, 1), die(0, 2, 1)]  # Bob 15 − 6 − 6 − 2 = 1
    token = table_with(conn, "lucky_cube", LUCKY, deals)
    assert not store.load(conn, token).match().over  # Bob has 1 chip left
    table_writes.add_deal(conn, token, 4, die(2, 2, 0))
    with pytest.raises(store.Refused) as caught:
        correct(conn, token, 3, die(0, 3, 1))  # Bob now has 0 after deal 3
    assert "ends after deal 3" in refusal(caught)


def test_correction_that_moves_the_end_later_keeps_every_deal(conn):
    # The other way round is allowed: the match runs on after a correction and takes more deals.
    deals = [TEAM0, TEAM0, TEAM0]  # team 0 reaches 105 on deal 3
    token = table_with(conn, "twin_shoot", TWIN, deals)
    table = correct(conn, token, 1, MISS)  # 5 + 35 + 35 = 75: not over any more
    assert not table.match().over and len(table.deals) == 3
    table_writes.add_deal(conn, token, 4, TEAM0)
    assert store.load(conn, token).match().over


def test_correction_preview_says_the_same_as_save(conn):
    deals = [MISS, EVEN, EVEN, EVEN]
    token = table_with(conn, "twin_shoot", TWIN, deals)
    with pytest.raises(store.Refused) as caught:
        store.corrected_deals(store.load(conn, token), 1, EVEN)
    assert "deal 4" in refusal(caught)


# --------------------------------------------------------------------------
# Property: no replayed match ever has a deal after it was over


def forced(game, progress, facts):
    """The match with ``facts`` added without any check (what a stored table could hold)."""
    score = game.score_deal(progress, facts)
    totals = tuple(t + p for t, p in zip(progress.totals, score.points))
    record = DealRecord(len(progress.deals) + 1, dict(facts), game.next_deal(progress), score, totals)
    return replace(progress, deals=progress.deals + (record,), totals=totals)


def compositions(total, parts):
    """Lists of ``parts`` whole numbers adding up to ``total``."""
    return st.lists(st.integers(0, total), min_size=parts - 1, max_size=parts - 1).map(
        lambda cuts: [b - a for a, b in zip([0] + sorted(cuts), sorted(cuts) + [total])])


@st.composite
def deal_for(draw, game_id, progress):
    game = GAMES[game_id]
    n = progress.setup.n
    if game_id == "miraiscope":
        return mirai(draw(st.integers(0, 4)), draw(st.integers(0, 20)), draw(st.integers(0, 1)))
    if game_id == "rwd":
        facts = {"chips": draw(compositions(17, 3)), "tricks": draw(compositions(17, 3))}
    elif game_id == "twin_shoot":
        bids = [draw(st.sampled_from(list(BID.values()))) for _ in range(n)]
        facts = {"bids": bids, "tricks": draw(compositions(10, n)), "open_bid": None}
        eligible = game.open_bid_team(progress)
        if eligible is not None and draw(st.booleans()):
            facts["open_bid"] = eligible
    elif game_id == "lucky_cube":
        holder = draw(st.integers(0, n - 1))
        last = draw(st.sampled_from([s for s in range(n) if s != holder]))
        facts = die(holder, draw(st.integers(2, 6)), last)
    else:  # pair_quad, 4 players: 13 tricks of 4 cards, each won by someone
        cards = [key for key, count in (("7", 4), ("A", 4), ("K", 4), ("Q", 4), ("J", 4),
                                         ("other", 32)) for _ in range(count)]
        cards = draw(st.permutations(cards))
        captured = [row() for _ in range(n)]
        for trick in range(13):
            winner = draw(st.integers(0, n - 1))
            for card in cards[4 * trick:4 * trick + 4]:
                captured[winner][card] += 1
        facts = {"captured": captured}
    choice = game.next_deal(progress).choice
    if choice is not None:
        facts[choice.key] = draw(st.sampled_from(choice.options))
    return facts


SETUPS = {"miraiscope": MIRAI, "twin_shoot": TWIN, "rwd": RWD, "lucky_cube": LUCKY, "pair_quad": PQ}


@st.composite
def played(draw):
    """A game and deals as a phone might store them, some perhaps after the end."""
    game_id = draw(st.sampled_from(sorted(SETUPS)))
    game, setup = GAMES[game_id], SETUPS[game_id]
    progress, deals = game.start(setup), []
    for _ in range(draw(st.integers(1, 12))):
        facts = draw(deal_for(game_id, progress))
        deals.append(facts)
        progress = forced(game, progress, facts)
    return game_id, setup, deals


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played())
def test_no_replayed_match_has_a_deal_after_it_was_over(case):
    game_id, setup, deals = case
    game = GAMES[game_id]
    try:
        match = game.replay(setup, deals)
    except InvalidDeal as refused:
        # Refused only for a real reason; if it is the end, the deals before it did end it.
        progress = game.start(setup)
        for facts in deals[:refused.number - 1]:
            progress = game.add_deal(progress, facts)
        if any(OVER in str(e.message) for e in refused.errors):
            assert after_end(game, progress) is not None
        return
    progress = game.start(setup)
    for facts in match.deals:
        assert after_end(game, progress) is None, f"deal {len(progress.deals) + 1} after the end"
        progress = game.add_deal(progress, facts.facts)
