"""Game requests in the seating draw (issue 47): a player asks to play a game tonight, or to
learn it; the draw honours requests as a cost, below never together and no third meeting. A
learn request is met only beside someone who knows the game."""

from __future__ import annotations

import pytest

from companion.meetup.seating import Draw, Seating, draw_round, requests_met, third_meetings

ROSTER = list("ABCDEFGH")  # two tables of four
FOUR = ["lucky_cube", "rwd"]  # both seat four


def table_of(drawn: Draw, player: str) -> Seating:
    return next(t for t in drawn.tables if player in t.players)


def test_a_request_to_play_is_met():
    # Over 20 seeds, without a request, C sits at RWD about half the time; with one, always.
    plain = sum(table_of(draw_round(ROSTER, seed=s, offered=FOUR), "C").game == "rwd" for s in range(20))
    assert plain < 20
    for seed in range(20):
        drawn = draw_round(ROSTER, seed=seed, offered=FOUR, requests={"C": ("rwd", False)})
        assert table_of(drawn, "C").game == "rwd", seed
        assert (drawn.requests_asked, drawn.requests_met) == (1, 1)


def test_the_draw_plans_a_table_of_a_requested_game():
    # Four games on offer for two tables: a requested game gets a table.
    offered = ["lucky_cube", "rwd", "pair_quad", "twin_shoot"]
    for seed in range(20):
        drawn = draw_round(ROSTER, seed=seed, offered=offered, requests={"A": ("pair_quad", False)})
        assert table_of(drawn, "A").game == "pair_quad", seed


def test_requests_for_one_game_beyond_its_seats_are_met_as_far_as_they_go():
    wanted = {p: ("rwd", False) for p in "ABCDEF"}  # six want RWD; the plan gives it one table of four
    drawn = draw_round(ROSTER, seed=1, offered=FOUR, requests=wanted)
    at_rwd = [p for t in drawn.tables if t.game == "rwd" for p in t.players]
    assert drawn.requests_asked == 6 and drawn.requests_met == len(set(at_rwd) & set(wanted)) >= 4


def test_a_learn_request_is_met_beside_someone_who_knows_the_game():
    experience = {"A": ["rwd"], "B": ["rwd"]}  # only A and B ever played RWD
    for seed in range(20):
        drawn = draw_round(ROSTER, seed=seed, offered=["rwd"], experience=experience,
                           requests={"E": ("rwd", True)})
        here = table_of(drawn, "E")
        assert {"A", "B"} & set(here.players), seed
        assert drawn.requests_met == 1
    # Counting: E at an RWD table of newcomers only is a learn request not met.
    newcomers_only = Draw((Seating("rwd", tuple("EFGH")), Seating("rwd", tuple("ABCD"))))
    met, unmet = requests_met(newcomers_only.tables, {"E": ("rwd", True)}, experience=experience)
    assert not met and unmet == {"E"}


def test_a_learn_request_without_newcomers_looked_after_still_needs_someone_who_knows():
    # The wish "newcomers looked after" is off (no experience given): what the night played so
    # far still tells who knows the game. A, B played RWD in round 1; E asks to learn it.
    history = [Draw((Seating("rwd", tuple("ABCD")), Seating("lucky_cube", tuple("EFGH"))))]
    for seed in range(10):
        drawn = draw_round(ROSTER, history, seed=seed, offered=["rwd"], requests={"E": ("rwd", True)})
        assert set("ABCD") & set(table_of(drawn, "E").players), seed


def test_a_request_that_would_force_a_third_meeting_is_not_met():
    # A and B met in both earlier rounds at RWD; A asks for RWD, B is kept at the only RWD table
    # by his own request. Meeting A's request would seat A with B a third time: it stays unmet.
    players = list("ABCDEFGH")
    history = [Draw((Seating("rwd", tuple("ABCD")), Seating("lucky_cube", tuple("EFGH")))),
               Draw((Seating("rwd", tuple("ABEF")), Seating("lucky_cube", tuple("CDGH"))))]
    for seed in range(10):
        drawn = draw_round(players, history, seed=seed, chosen=["rwd", "lucky_cube"],
                           requests={"A": ("rwd", False), "B": ("rwd", False)})
        assert third_meetings([*history, drawn]) == 0, seed
        assert drawn.requests_met == 1 and drawn.requests_asked == 2


def test_a_request_never_seats_a_never_together_pair():
    for seed in range(10):
        drawn = draw_round(ROSTER, seed=seed, offered=FOUR, never=[("A", "B")],
                           requests={"A": ("rwd", False), "B": ("rwd", False)})
        assert table_of(drawn, "A") != table_of(drawn, "B"), seed


def test_a_met_request_that_seated_a_pair_again_is_named():
    # C and D shared RWD in round 1; both ask for RWD again at one RWD table and one Lucky Cube:
    # meeting both seats them together again, and the draw names them (a requester beside
    # someone they shared a table with tonight).
    history = [Draw((Seating("rwd", tuple("ABCD")), Seating("lucky_cube", tuple("EFGH"))))]
    drawn = draw_round(ROSTER, history, seed=2, chosen=["rwd", "lucky_cube"],
                       requests={"C": ("rwd", False), "D": ("rwd", False)})
    assert drawn.requests_met == 2
    assert set(drawn.request_repeats) == {"C", "D"}
    # A met request beside fresh tablemates only (the night's first round) is not named.
    fresh = draw_round(ROSTER, seed=2, chosen=["rwd", "lucky_cube"], requests={"E": ("rwd", False)})
    assert fresh.requests_met == 1 and fresh.request_repeats == ()


def test_no_requests_draw_the_same_as_before():
    for seed in range(5):
        assert draw_round(ROSTER, seed=seed, offered=FOUR) == draw_round(ROSTER, seed=seed, offered=FOUR, requests={})


def test_who_can_teach_is_known_without_the_newcomers_wish():
    # ``known`` tells who played RWD before tonight; no newcomer cost is asked for.
    known = {"A": ["rwd"]}
    for seed in range(10):
        drawn = draw_round(ROSTER, seed=seed, offered=["rwd"], known=known, requests={"E": ("rwd", True)})
        assert "A" in table_of(drawn, "E").players, seed
        assert drawn.requests_met == 1


def test_requests_with_every_other_wish():
    strength = {p: {"": 20.0 + i} for i, p in enumerate(ROSTER)}
    drawn = draw_round(ROSTER, seed=4, offered=FOUR, strength=strength, every_game=True, experience={"A": ["rwd"]},
                       known={"B": ["rwd"]}, requests={"C": ("rwd", True)})
    assert table_of(drawn, "C").game == "rwd" and drawn.requests_met == 1


def test_a_request_for_a_game_for_two_gets_a_table_of_two():
    # Eight players would sit at two tables of four; Miraiscope is for two: a table of two for it.
    offered = ["rwd", "lucky_cube", "miraiscope"]
    plain = draw_round(ROSTER, seed=1, offered=offered)
    assert [len(t.players) for t in plain.tables] == [4, 4]
    for seed in range(10):
        drawn = draw_round(ROSTER, seed=seed, offered=offered, requests={"A": ("miraiscope", False)})
        assert table_of(drawn, "A").game == "miraiscope" and drawn.requests_met == 1, seed
        assert sorted(len(t.players) for t in drawn.tables) == [2, 3, 3]


@pytest.mark.slow  # starts a Python process (the fast tier starts none)
def test_a_draw_in_its_own_process_meets_the_same_requests():
    # Under `companion serve` the search runs in a process of its own (draw_process): the
    # requests and who knows which game travel with the other inputs, the same draw comes back.
    from companion.meetup import draw_process

    options = dict(seed=3, offered=FOUR, requests={"C": ("rwd", True), "D": ("lucky_cube", False)},
                   known={"A": ["rwd"]}, every_game=True)
    draw_process.run_elsewhere(True)
    try:
        elsewhere = draw_process.draw_round(ROSTER, (), **options)
    finally:
        draw_process.run_elsewhere(False)
    assert elsewhere == draw_round(ROSTER, **options)
    assert elsewhere.requests_met == 2
