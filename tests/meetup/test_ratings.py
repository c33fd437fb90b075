"""Ratings across nights (issue 36, companion/meetup/ratings.py): openskill's Plackett-Luce from
each ended match's places, replayed in the order the matches finished then by table; teams as
teams, ties as ties (no tie broken, no change averaged); a merge re-rates everyone it touches.

The expected figures are worked here step by step with the Weng-Lin Plackett-Luce formulas
(Algorithm 4 of Weng & Lin 2011, as openskill 6.2 states them), not by calling the library."""

from __future__ import annotations

import math
import random

import pytest

from companion.meetup.ratings import FRESH, MODEL, rate, replay_order
from companion.meetup.season import MatchRecord

MU, SIGMA, BETA, TAU, KAPPA = 25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300, 0.0001


def pl_step(ratings: dict, teams: list[list[str]], places: list[int]) -> None:
    """One match by the formulas: τ added to every σ; team μ and σ² summed; c² = Σ(σ²_i + β²);
    for each team i and each team q ranked no better: p = e^(μ_i/c) / Σ_{r(s) ≥ r(q)} e^(μ_s/c),
    Ω_i += ([q = i] − p) / A_q and Δ_i += p(1 − p) / A_q (A_q: teams sharing q's rank); then
    Ω_i ×= σ²_i / c, Δ_i ×= γ σ²_i / c² with γ = σ_i / c; each player μ += σ²/σ²_i Ω_i and
    σ ×= √max(1 − σ²/σ²_i Δ_i, κ)."""
    before = {p: (ratings.get(p, (MU, SIGMA, 0))[0], math.sqrt(ratings.get(p, (MU, SIGMA, 0))[1] ** 2 + TAU ** 2))
              for team in teams for p in team}
    mu = [sum(before[p][0] for p in team) for team in teams]
    s2 = [sum(before[p][1] ** 2 for p in team) for team in teams]
    c = math.sqrt(sum(v + BETA ** 2 for v in s2))
    k = range(len(teams))
    sum_q = [sum(math.exp(mu[s] / c) for s in k if places[s] >= places[q]) for q in k]
    a = [sum(1 for s in k if places[s] == places[q]) for q in k]
    for i in k:
        omega = delta = 0.0
        for q in k:
            if places[q] <= places[i]:
                p = math.exp(mu[i] / c) / sum_q[q]
                omega += ((1 if q == i else 0) - p) / a[q]
                delta += p * (1 - p) / a[q]
        omega *= s2[i] / c
        delta *= (math.sqrt(s2[i]) / c) * s2[i] / c ** 2
        for player in teams[i]:
            m, s = before[player]
            ratings[player] = (m + s ** 2 / s2[i] * omega, s * math.sqrt(max(1 - s ** 2 / s2[i] * delta, KAPPA)),
                               ratings.get(player, (MU, SIGMA, 0))[2] + 1)


def record(night, at, game, table, ids, places, entrants=()):
    return MatchRecord(night, game, table, tuple(ids), tuple(places), (0,) * len(ids), tuple(entrants), tuple(ids),
                       f"{night}T{at}:00+00:00")


# Two nights. Ann, Bob, Cy, Di, Eve, John; "Jon" is John typed otherwise on night 2 (merged later).
TWIN = record("2026-11-01", "19:00", "twin_shoot", "1", ["ann", "bob", "cy", "di"], [1, 2, 1, 2], [0, 1, 0, 1])
TIE = record("2026-11-01", "19:40", "lucky_cube", "2", ["ann", "bob", "eve"], [1, 1, 3])
RWD = record("2026-11-08", "19:30", "rwd", "1", ["ann", "jon", "eve", "di"], [2, 1, 4, 3])
CUBE = record("2026-11-08", "19:30", "lucky_cube", "2", ["cy", "bob", "john"], [3, 1, 2])  # same moment: table order
NIGHTS = [TWIN, TIE, RWD, CUBE]


def teams_of(r: MatchRecord, rename=None) -> tuple[list[list[str]], list[int]]:
    rename = rename or {}
    teams: dict[int, list[str]] = {}
    places: dict[int, int] = {}
    for player, team, place in zip(r.keys, r.teams, r.places):
        teams.setdefault(team, []).append(rename.get(player, player))
        places[team] = place
    order = sorted(teams)
    return [teams[t] for t in order], [places[t] for t in order]


def by_hand(records, rename=None, game=None) -> dict:
    ratings: dict = {}
    for r in records:  # already in finishing order
        if game is None or r.game == game:
            pl_step(ratings, *teams_of(r, rename))
    return ratings


def assert_same(found, expected: dict) -> None:
    assert set(found) == set(expected)
    for player, (mu, sigma, matches) in expected.items():
        got = found[player]
        assert got.mu == pytest.approx(mu, abs=1e-9) and got.sigma == pytest.approx(sigma, abs=1e-9), player
        assert got.matches == matches, player


def test_a_first_team_match_moves_each_partner_by_the_hand_worked_figure():
    # Two teams of two fresh players: p = ½, so each winner gains σ²/(2c) with σ² = (25/3)² + τ²,
    # c = √(2·2σ² + 2β²) = √312.5278 = 17.6784: +1.96429 (and each loser the same down).
    ratings = rate([TWIN]).overall
    sigma2 = SIGMA ** 2 + TAU ** 2
    gain = sigma2 / (2 * math.sqrt(4 * sigma2 + 2 * BETA ** 2))
    assert gain == pytest.approx(1.96429, abs=1e-5)
    for winner in ("ann", "cy"):
        assert ratings[winner].mu == pytest.approx(MU + gain, abs=1e-9)
    for loser in ("bob", "di"):
        assert ratings[loser].mu == pytest.approx(MU - gain, abs=1e-9)
    assert ratings["ann"].sigma == ratings["cy"].sigma < SIGMA  # one match: surer
    assert ratings["ann"].matches == 1


def test_two_nights_overall_and_per_game_match_the_formulas_step_by_step():
    found = rate(NIGHTS)
    assert_same(found.overall, by_hand(NIGHTS))
    for game in ("twin_shoot", "lucky_cube", "rwd"):
        assert_same(found.by_game[game], by_hand(NIGHTS, game=game))
    assert found.overall["ann"].matches == 3 and found.by_game["lucky_cube"]["ann"].matches == 1
    # Shown as μ − 3σ; a player never seen has the fresh rating (shown 0).
    ann = found.of("ann")
    assert ann.shown == pytest.approx(ann.mu - 3 * ann.sigma)
    assert found.of("nobody") == FRESH and FRESH.shown == pytest.approx(0)
    # The draw's rating for a game: that game's, else overall.
    assert found.for_game("john", "lucky_cube") == found.by_game["lucky_cube"]["john"]
    assert found.for_game("john", "rwd") == found.overall["john"]


def test_the_replay_follows_the_finishing_order_whatever_order_the_records_come_in():
    shuffled = NIGHTS[:]
    random.Random(4).shuffle(shuffled)
    assert [r.table for r in replay_order([CUBE, RWD])] == ["2", "1"]  # same moment: the given order
    assert replay_order(shuffled)[:2] == [TWIN, TIE]
    # Matches finishing at the same moment are replayed in table order (the records' own order).
    assert rate(NIGHTS).overall == rate([TWIN, TIE, RWD, CUBE]).overall
    assert rate([RWD, TWIN, TIE, CUBE]).overall == rate(NIGHTS).overall
    # A match that finished later is replayed later: the order is part of the rule.
    later = MatchRecord(TIE.night, TIE.game, TIE.table, TIE.players, TIE.places, TIE.scores, TIE.entrants, TIE.ids,
                        "2026-11-01T23:59:00+00:00")
    assert replay_order([later, RWD, CUBE, TWIN]) == [TWIN, later, RWD, CUBE]
    moved = MatchRecord("2026-11-09", TIE.game, TIE.table, TIE.players, TIE.places, TIE.scores, TIE.entrants, TIE.ids,
                        "2026-11-09T19:00:00+00:00")
    assert rate([TWIN, moved, RWD, CUBE]).overall != rate(NIGHTS).overall
    assert_same(rate([TWIN, moved, RWD, CUBE]).overall, by_hand([TWIN, RWD, CUBE, moved]))


def test_a_tie_is_a_tie_neither_broken_nor_averaged():
    found = rate([TWIN, TIE]).overall
    expected = by_hand([TWIN, TIE])
    assert_same(found, expected)
    after_twin = rate([TWIN]).overall
    ann_gain = found["ann"].mu - after_twin["ann"].mu
    bob_gain = found["bob"].mu - after_twin["bob"].mu
    # Ann (a winner before) and Bob (a loser before) share first place: both gain, and by
    # different amounts (their ratings before differ; nothing averages them).
    assert ann_gain > 0 and bob_gain > 0 and ann_gain != pytest.approx(bob_gain)
    # Equal players tied move equally. The model's tie rule (docs/organiser.md, "Ratings"): two tied for
    # first each gain what a clear second gains, and the player below them loses less than a
    # clear third; the same match with the tie broken by seat is rated otherwise.
    level = record("2026-11-01", "19:00", "lucky_cube", "1", ["x", "y", "z"], [1, 1, 3])
    tied = rate([level]).overall
    assert tied["x"] == tied["y"]
    broken = rate([record("2026-11-01", "19:00", "lucky_cube", "1", ["x", "y", "z"], [1, 2, 3])]).overall
    assert broken["x"].mu > tied["x"].mu > MU
    assert tied["x"].mu == pytest.approx(broken["y"].mu, abs=1e-12)
    assert broken["z"].mu < tied["z"].mu < MU
    assert_same(tied, by_hand([level]))


def test_a_merge_rerates_everyone_it_touches():
    merged = [MatchRecord(r.night, r.game, r.table, r.players, r.places, r.scores, r.entrants,
                          tuple("john" if k == "jon" else k for k in r.keys), r.at) for r in NIGHTS]
    before, after = rate(NIGHTS).overall, rate(merged).overall
    assert "jon" not in after and after["john"].matches == 2
    assert_same(after, by_hand(NIGHTS, rename={"jon": "john"}))
    # John carries his rating from the RWD table into the Lucky Cube table: Cy and Bob, who met
    # him there, are re-rated too; Ann, Eve and Di (at the RWD table with him) are not changed:
    # his rating before that table is the same fresh one either way.
    for touched in ("john", "cy", "bob"):
        assert after[touched] != before[touched], touched
    for same in ("ann", "eve", "di"):
        assert after[same] == before[same], same


def test_the_same_results_give_the_same_ratings():
    assert rate(NIGHTS) == rate(list(NIGHTS))
    assert MODEL.mu == MU and MODEL.sigma == pytest.approx(SIGMA) and MODEL.beta == pytest.approx(BETA)


def test_a_kept_replay_gives_exactly_the_figures_of_a_replay_from_nothing():
    from companion.meetup.ratings import carry_on
    replay = carry_on(None, [TWIN, TIE])
    assert carry_on(replay, NIGHTS) is replay and replay.ratings() == rate(NIGHTS)
    # A correction to an earlier match (its places changed): rewound to it, everyone after re-rated.
    corrected = MatchRecord(TIE.night, TIE.game, TIE.table, TIE.players, (1, 2, 3), TIE.scores, TIE.entrants,
                            TIE.ids, TIE.at)
    assert carry_on(replay, [TWIN, corrected, RWD, CUBE]).ratings() == rate([TWIN, corrected, RWD, CUBE])
    # A merge (ids changed in two matches), a match taken away, the first match gone: always the same.
    merged = [MatchRecord(r.night, r.game, r.table, r.players, r.places, r.scores, r.entrants,
                          tuple("john" if k == "jon" else k for k in r.keys), r.at) for r in NIGHTS]
    for records in (merged, [TWIN, TIE, CUBE], [TIE, RWD, CUBE], NIGHTS, [], NIGHTS):
        assert carry_on(replay, records).ratings() == rate(records)
    # Random edits of a longer season: the kept replay never drifts from a replay from nothing.
    rng = random.Random(7)
    people = [f"p{i}" for i in range(9)]
    season = [record(f"2026-12-{1 + i // 4:02d}", f"{19 + i % 4}:00", rng.choice(["rwd", "lucky_cube"]), str(i % 4),
                     rng.sample(people, 4), rng.sample([1, 2, 3, 4], 4)) for i in range(40)]
    kept = None
    for _ in range(25):
        i = rng.randrange(len(season))
        r = season[i]
        season[i] = MatchRecord(r.night, r.game, r.table, r.players, tuple(rng.sample(r.places, 4)), r.scores,
                                r.entrants, r.ids, r.at)
        kept = carry_on(kept, season)
        assert kept.ratings() == rate(season)
    # The ratings handed out earlier don't change with later matches.
    first = carry_on(None, [TWIN])
    early = first.ratings()
    assert carry_on(first, [TWIN, TIE]) is first
    assert early == rate([TWIN]) != first.ratings()
