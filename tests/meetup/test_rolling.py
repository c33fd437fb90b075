"""Rolling tables' pure choice (issue 47): which free players start the next table, at which game
and room table (companion.meetup.rolling)."""

from __future__ import annotations

import time

from companion.meetup import rolling, seating
from companion.meetup.rolling import Free


def table(game, *players):
    return (seating.Seating(game, tuple(players)),)


def test_copies_in_use_are_not_free():
    assert rolling.free_copies({"rwd": 2, "lucky_cube": 1}, ["rwd", "lucky_cube"]) == {"rwd": 1}


def test_no_table_without_a_free_copy_a_free_room_table_or_enough_players():
    four = [Free(n) for n in range(4)]
    assert rolling.next_table(four, [], {}) is None
    assert rolling.next_table(four, [], {"rwd": 1}, room_free=[]) is None
    assert rolling.next_table(four[:2], [], {"rwd": 1}) is None  # RWD needs three
    start = rolling.next_table(four, [], {"rwd": 1}, room_free=[7, 8])
    assert start.game == "rwd" and sorted(start.players) == [0, 1, 2, 3] and start.room_table == 7


def test_the_table_mixes_players_who_have_not_met():
    # 0-3 just finished together; 4-7 finished together elsewhere: a table of four mixes them.
    history = [table("rwd", 0, 1, 2, 3), table("lucky_cube", 4, 5, 6, 7)]
    free = [Free(n, tables=1) for n in range(8)]
    start = rolling.next_table(free, history, {"rwd": 1})
    inside = set(start.players)
    assert len(inside) == 4 and len(inside & {0, 1, 2, 3}) == 2


def test_who_played_fewer_tables_is_seated_first():
    free = [Free(0, tables=2), Free(1, tables=2), Free(2, tables=1), Free(3, tables=1), Free(4, tables=1),
            Free(5, tables=1)]
    start = rolling.next_table(free, [], {"rwd": 1})
    assert set(start.players) == {2, 3, 4, 5}


def test_every_game_in_turn_prefers_a_game_the_players_have_not_played():
    history = [table("rwd", 0, 1, 2, 3)]
    free = [Free(n, tables=1) for n in range(4)]
    start = rolling.next_table(free, history, {"rwd": 1, "lucky_cube": 1}, every_game=True)
    assert start.game == "lucky_cube"


def test_a_third_meeting_waits_while_another_table_plays_and_starts_when_none_does():
    history = [table("rwd", 0, 1, 2, 3), table("lucky_cube", 0, 1, 2, 3)]
    free = [Free(n, tables=2) for n in range(4)]
    assert rolling.next_table(free, history, {"rwd": 1}, others_playing=True) is None
    assert rolling.next_table(free, history, {"rwd": 1}, others_playing=False) is not None


def test_never_together_pair_is_kept_apart_where_the_free_players_allow():
    free = [Free(n) for n in range(5)]
    start = rolling.next_table(free, [], {"rwd": 1, "lucky_cube": 1}, never=[(0, 1)])
    assert not {0, 1} <= set(start.players)


def test_a_player_who_keeps_a_room_table_is_seated_there_and_waits_while_it_is_busy():
    free = [Free(0, room_table=3), Free(1), Free(2), Free(3), Free(4)]
    start = rolling.next_table(free, [], {"rwd": 1}, room_free=[1, 3])
    assert start.room_table == 3 and 0 in start.players
    busy = rolling.next_table(free, [], {"rwd": 1}, room_free=[1, 2])
    assert busy.room_table == 1 and 0 not in busy.players


def test_newcomers_sit_with_someone_who_knows_the_game():
    free = [Free(n) for n in range(8)]
    knows = {0: {"rwd"}, 1: {"rwd"}}
    start = rolling.next_table(free, [], {"rwd": 1}, experience=knows)
    assert {0, 1} & set(start.players)


def test_forty_free_players_choose_quickly():
    free = [Free(n) for n in range(40)]
    began = time.process_time()
    start = rolling.next_table(free, [], {"rwd": 3, "lucky_cube": 3, "twin_shoot": 2}, every_game=True)
    assert start is not None and len(start.players) == 4
    assert time.process_time() - began < 5  # a generous bound: a hang, not a speed figure


def test_the_same_group_again_waits_for_another_table_to_finish():
    history = [table("rwd", 0, 1, 2, 3)]
    free = [Free(n, tables=1) for n in range(4)]
    assert rolling.next_table(free, history, {"rwd": 1}, others_playing=True) is None
    assert set(rolling.next_table(free, history, {"rwd": 1}).players) == {0, 1, 2, 3}


def test_a_players_request_decides_the_game_of_their_table():
    # Four free players, a free copy of RWD and one of Lucky Cube: with no request, RWD (offered
    # first); Ann (0) asking for Lucky Cube makes it Lucky Cube.
    free = [Free(n) for n in range(4)]
    copies = {"rwd": 1, "lucky_cube": 1}
    assert rolling.next_table(free, [], copies).game == "rwd"
    assert rolling.next_table(free, [], copies, requests={0: ("lucky_cube", False)}).game == "lucky_cube"


def test_a_requester_is_seated_at_the_one_free_copy_of_their_game():
    # Five free, one copy of Pair & Quad (four players): the requester is one of the four.
    free = [Free(n) for n in range(5)]
    for asker in range(5):
        start = rolling.next_table(free, [], {"pair_quad": 1}, requests={asker: ("pair_quad", False)})
        assert asker in start.players


def test_the_requesters_are_seated_at_the_tables_of_their_games():
    # Eight free, one copy each of RWD and Lucky Cube; two ask for each game: every table seated
    # in turn (the service's loop) meets all four requests.
    free = [Free(n) for n in range(8)]
    requests = {0: ("lucky_cube", False), 1: ("rwd", False), 2: ("lucky_cube", False), 3: ("rwd", False)}
    copies = {"rwd": 1, "lucky_cube": 1}
    first = rolling.next_table(free, [], copies, requests=requests)
    rest = [p for p in free if p.id not in first.players]
    second = rolling.next_table(rest, [table(first.game, *first.players)], {g: n for g, n in copies.items()
                                                                           if g != first.game}, requests=requests)
    game_of = {p: t.game for t in (first, second) for p in t.players}
    assert {p: game_of[p] for p in requests} == {p: game for p, (game, _learn) in requests.items()}


def test_a_learner_sits_beside_someone_who_knows_the_game():
    # Ann (0) asks to learn Lucky Cube; only Hal (7) has played it: the Lucky Cube table seats both.
    free = [Free(n) for n in range(8)]
    start = rolling.next_table(free, [], {"lucky_cube": 1}, requests={0: ("lucky_cube", True)}, known={7: {"lucky_cube"}})
    assert {0, 7} <= set(start.players)
    # Tonight's tables teach too: Cy (2) played Lucky Cube earlier tonight.
    history = [table("lucky_cube", 2, 8, 9, 10)]
    start = rolling.next_table([Free(n, tables=1) for n in range(8)], history, {"lucky_cube": 1},
                               requests={0: ("lucky_cube", True)}, known={})
    assert {0, 2} <= set(start.players)


def test_a_request_never_seats_a_never_together_pair_nor_a_third_meeting():
    free = [Free(n) for n in range(4)]
    start = rolling.next_table(free + [Free(4)], [], {"rwd": 1}, requests={0: ("rwd", False), 1: ("rwd", False)},
                               never=[(0, 1)])
    assert not {0, 1} <= set(start.players)
    history = [table("lucky_cube", 0, 1, 8, 9), table("twin_shoot", 0, 1, 10, 11)]
    start = rolling.next_table(free + [Free(4)], history, {"rwd": 1},
                               requests={0: ("rwd", False), 1: ("rwd", False)})
    assert not {0, 1} <= set(start.players)
