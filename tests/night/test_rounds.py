"""Seating draws per round (issue 25): the organiser draws, the round's tables are created with
the roster seated in the drawn order, the hall lists who sits where, each phone sees its own
table; the next draw mixes using the earlier rounds; a swap before a round starts is one action;
the round clock with a table's extension."""

from __future__ import annotations

import re
from itertools import combinations

from companion.night import round_time
from companion.night import service as night
from companion.tables import service as store
from companion.meetup import seating
from companion.games import GAMES
from helpers import NIGHT_NAMES, text_of
from helpers import join_night as join_all
import table_writes
from table_writes import done

NAMES = NIGHT_NAMES


def pairs(rounds):
    seen = {}
    for r in rounds:
        for rt in r.tables:
            for a, b in combinations(sorted(rt.player_ids), 2):
                seen[(a, b)] = seen.get((a, b), 0) + 1
    return seen


def test_a_drawn_round_seats_everyone_once_at_tables_created_seated(app, client, conn):
    phones = join_all(app)
    response = client.post("/hall/rounds", data={"tables-rwd": "3"})
    assert response.status_code == 303
    (r,) = night.night_rounds(conn)
    people = {p.id: p.name for p in night.roster(conn)}
    seated = [p for rt in r.tables for p in rt.player_ids]
    assert sorted(seated) == sorted(people) and len(r.tables) == 3
    for rt in r.tables:
        # The table itself holds the drawn players, in the drawn seat order, ready to play.
        assert rt.table.seated and rt.table.game.id == "rwd"
        assert list(rt.table.setup.players) == [people[p] for p in rt.player_ids]
    # The hall's big list: "Ann → Table 3 · RWD (Rewind) · seat 2" for everyone.
    hall = text_of(client.get("/hall").get_data(as_text=True))
    for rt in r.tables:
        for seat, pid in enumerate(rt.player_ids, start=1):
            assert f"{people[pid]} → Table {rt.number} · " in hall
            assert f"{people[pid]} → Table {rt.number} · {rt.table.game.name_en} · seat {seat}" in hall
    # Each phone sees its own table with one tap to open it.
    for rt in r.tables:
        for seat, pid in enumerate(rt.player_ids, start=1):
            page = phones[people[pid]].get("/night/me").get_data(as_text=True)
            assert f"Table {rt.number} · {rt.table.game.name_en} · seat {seat}" in text_of(page)
            assert f'href="/t/{rt.table.token}"' in page


def test_auto_filled_tables_fit_the_roster(app, client, conn):
    join_all(app, NAMES + ["Mo", "Ned", "Oz", "Pia", "Quin"])  # 17 players: 4 + 4 + 4 + 5
    assert client.post("/hall/rounds", data={f"offer-{g}": "1" for g in ("rwd", "lucky_cube", "twin_shoot")}
                       ).status_code == 303
    (r,) = night.night_rounds(conn)
    assert sorted(len(rt.player_ids) for rt in r.tables) == [4, 4, 4, 5]
    for rt in r.tables:
        assert rt.table.game.check_players(len(rt.player_ids)) is None


def test_the_second_round_repeats_only_the_pairs_the_counts_force(app, client, conn):
    join_all(app)
    client.post("/hall/rounds", data={"tables-rwd": "3"})
    client.post("/hall/rounds", data={"tables-rwd": "3"})
    first, second = night.night_rounds(conn)
    assert second.number == 2
    # 12 players at three tables of 4 twice: each new table takes 4 players from 3 earlier tables,
    # so at least one pair per table meets again (3 in all), and the draw gets exactly that.
    assert seating.repeated_pairs([first.seating(), second.seating()]) == 3
    assert max(pairs([first, second]).values()) == 2
    for rt in second.tables:
        earlier = [next(i for i, t in enumerate(first.tables) if p in t.player_ids) for p in rt.player_ids]
        assert sorted(earlier.count(i) for i in range(3)) == [1, 1, 2]


def test_a_roster_that_cannot_be_seated_is_refused_next_to_the_games(app, client, conn):
    join_all(app, NAMES[:5])
    response = client.post("/hall/rounds", data={"tables-rwd": "3"})
    assert response.status_code == 422
    assert "can't seat exactly 5 players" in text_of(response.get_data(as_text=True))
    assert 'id="err-games"' in response.get_data(as_text=True)
    assert night.night_rounds(conn) == []
    none = client.post("/hall/rounds", data={})
    assert none.status_code == 422 and "Tick at least one game" in text_of(none.get_data(as_text=True))


def test_late_arrival_and_leaver_are_handled_by_the_next_draw(app, client, conn):
    join_all(app, NAMES[:8])
    client.post("/hall/rounds", data={"tables-rwd": "2"})
    leaver = night.roster(conn)[0]
    client.post(f"/hall/players/{leaver.id}", data={"action": "remove"})
    join_all(app, ["Zed"])
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    second = night.night_rounds(conn)[-1]
    seated = {p for rt in second.tables for p in rt.player_ids}
    assert leaver.id not in seated and {p.id for p in night.roster(conn)} == seated


def test_a_swap_before_the_round_starts_is_one_action(app, client, conn):
    join_all(app)
    client.post("/hall/rounds", data={"tables-rwd": "3"})
    (r,) = night.night_rounds(conn)
    a, b = r.tables[0].player_ids[0], r.tables[1].player_ids[2]
    assert client.post("/hall/swap", data={"a": str(a), "b": str(b)}).status_code == 303
    (after,) = night.night_rounds(conn)
    assert after.tables[0].player_ids[0] == b and after.tables[1].player_ids[2] == a
    names = {p.id: p.name for p in night.roster(conn)}
    assert after.tables[0].table.setup.players[0] == names[b]
    assert after.tables[1].table.setup.players[2] == names[a]
    assert after.tables[0].table.token == r.tables[0].table.token  # the same tables, same links
    # A late arrival takes someone's seat; the one replaced is left out of this round.
    late = done(night.join(conn, "Zed"))
    assert client.post("/hall/swap", data={"a": str(a), "b": str(late.id)}).status_code == 303
    (after,) = night.night_rounds(conn)
    assert after.table_of(late.id) is not None and after.table_of(a) is None
    # Once a table has a deal its seating is its own: the swap is refused, nothing changes.
    token = after.tables[0].table.token
    table_writes.add_deal(conn, token, 1, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
    x, y = after.tables[0].player_ids[1], after.tables[2].player_ids[1]
    refused = client.post("/hall/swap", data={"a": str(x), "b": str(y)})
    assert refused.status_code == 409 and "has started" in text_of(refused.get_data(as_text=True))
    assert night.night_rounds(conn)[0].tables[0].player_ids == after.tables[0].player_ids


def test_the_round_clock_counts_down_and_one_table_gets_more_time(app, client, conn):
    phones = join_all(app)
    client.post("/hall/rounds", data={"tables-rwd": "3", "minutes": "20"})
    (r,) = night.night_rounds(conn)
    assert r.minutes == 20 and r.seconds_left() is None  # not started yet
    assert client.post("/hall/clock", data={"minutes": "20"}).status_code == 303
    (r,) = night.night_rounds(conn)
    assert 19 * 60 < r.seconds_left() <= 20 * 60
    hall = client.get("/hall").get_data(as_text=True)
    assert 'class="hall-clock" data-countdown="' in hall
    rt = r.tables[0]
    assert client.post(f"/hall/tables/{rt.table.id}/extend").status_code == 303
    (r,) = night.night_rounds(conn)
    assert r.seconds_left(r.tables[0]) - r.seconds_left() >= 5 * 60 - 2
    names = {p.id: p.name for p in night.roster(conn)}
    page = phones[names[r.tables[0].player_ids[0]]].get("/night/me").get_data(as_text=True)
    assert 'data-countdown="' in page and "Finish the deal you are playing" in page
    left = int(page.split('data-countdown="')[1].split('"')[0])
    assert left > 24 * 60
    assert round_time.table_clock(conn, r.tables[0].table)["seconds"] > 24 * 60
    bad = client.post("/hall/clock", data={"minutes": "999"})
    assert bad.status_code == 422 and "1 to 240 minutes" in text_of(bad.get_data(as_text=True))


def test_a_round_tables_page_shows_the_clock_and_says_finish_the_deal(app, client, conn):
    phones = join_all(app)
    client.post("/hall/rounds", data={"tables-rwd": "3", "minutes": "1"})
    (r,) = night.night_rounds(conn)
    token = r.tables[1].table.token
    page = phones["Ann"].get(f"/t/{token}").get_data(as_text=True)
    assert 'id="round-clock"' in page and "hidden" in page.split('id="round-clock"')[1].split(">")[0]
    client.post("/hall/clock", data={"minutes": "1"})
    clock = phones["Ann"].get(f"/t/{token}/clock").get_data(as_text=True)
    assert "Table 2 · Round 1 ends in" in text_of(clock)  # issue 44: labelled, the table first
    assert "Time! Finish the deal you are playing." in clock and "night.js" not in clock
    left = int(clock.split('data-countdown="')[1].split('"')[0])
    assert 50 <= left <= 60
    # A table outside the rounds has no clock at all.
    other = client.post("/tables", data={"game": "rwd", "players": "3", "name-0": "X", "name-1": "Y", "name-2": "Z"})
    assert 'id="round-clock"' not in client.get(other.headers["Location"]).get_data(as_text=True)


def test_a_round_tables_clock_names_it_as_the_hall_board_does(app, client, conn):
    """After a table prepared before the draw, the round's first table is the night's Table 2:
    its clock says so, not its number within the round (which would send a player to another)."""
    phones = join_all(app)
    assert client.post("/hall/prepare", data={"game": "rwd", "players": "4", "count": "1",
                                              "label": ""}).status_code in (200, 303)
    client.post("/hall/rounds", data={"tables-rwd": "3", "minutes": "20"})
    client.post("/hall/clock", data={"minutes": "20"})
    (r,) = night.night_rounds(conn)
    first = r.tables[0].table
    assert first.seq == 2
    clock = text_of(phones["Ann"].get(f"/t/{first.token}/clock").get_data(as_text=True))
    assert "Table 2 · Round 1 ends in" in clock
    assert f"Table {first.seq}" in text_of(client.get("/hall").get_data(as_text=True))


def checked_offers(page: str) -> set[str]:
    return set(re.findall(r'name="offer-(\w+)" value="1" checked', page))


def field_value(page: str, name: str) -> str:
    return re.search(rf'name="{name}"[^>]*?value="([^"]*)"', page, re.S).group(1)


def test_a_refused_form_keeps_the_draws_choices(app, client, conn):
    join_all(app, NAMES[:5])
    every = set(GAMES)  # every game starts ticked (a sixth too)
    assert checked_offers(client.get("/hall").get_data(as_text=True)) == every
    # Another form's refusal leaves the draw's games all ticked, as on a fresh page.
    page = client.post("/hall/players", data={"name": ""}).get_data(as_text=True)
    assert checked_offers(page) == every
    # A refused draw comes back with exactly what was chosen.
    page = client.post("/hall/rounds", data={"draw": "1", "offer-rwd": "1", "tables-lucky_cube": "7",
                                             "minutes": "30"}).get_data(as_text=True)
    assert checked_offers(page) == {"rwd"}
    assert field_value(page, "tables-lucky_cube") == "7" and field_value(page, "minutes") == "30"


def test_the_clock_part_asks_again_only_every_few_seconds(app, client, conn):
    """The page's clock asks once on load; the answer must not (an answer triggered by its own
    "load" would ask again the moment it is swapped in, forever)."""
    join_all(app, NAMES[:4])
    client.post("/hall/rounds", data={"tables-rwd": "1", "minutes": "10"})
    client.post("/hall/clock", data={"minutes": "10"})
    (r,) = night.night_rounds(conn)
    token = r.tables[0].table.token
    page = client.get(f"/t/{token}").get_data(as_text=True)
    assert 'hx-trigger="load, changed, every 15s"' in page  # "changed": the table moved (static/live.js)
    part = client.get(f"/t/{token}/clock").get_data(as_text=True)
    assert 'hx-trigger="changed, every 15s"' in part and "load" not in part
