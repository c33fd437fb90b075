"""Calling time on a round (issue 33): "When the round clock ran out, the RWD and Lucky Cube
tables offered only 'Undo deal 1': no way to end a match with a result that counts."

Once a round table's time is up (its clock at zero, or the organiser called time for it), its
players end the match with the deals played in one tap, or the organiser ends every unfinished
table of the round in one action. The result follows each game's declared ruling (what decides
the match first, then the points), counts on the leaderboard, and is marked "ended at time" on
the table page, the hall, the player pages and every export; undoing it reopens the match. Once
every table of a round has a result the round is over: the clock stops and everyone is told.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from companion.night import round_time
from companion.night import service as night
from companion.players import service as players
from companion.tables import service as store
from companion.games import AT_TIME, GAMES, MatchSetup
from companion.store import nights as nights_store
from helpers import NIGHT_NAMES, join_night, text_of

NAMES = NIGHT_NAMES + ["Mo", "Ned", "Oz", "Pia"]  # 16: 3 + 2 + 3 + 4 + 4 at one table of each game
PLAYERS = {"rwd": 3, "miraiscope": 2, "lucky_cube": 3, "pair_quad": 4, "twin_shoot": 4}


def first_deal(game: str, n: int) -> dict[str, str]:
    """A valid first deal of each game as a phone's form sends it; none ends the match."""
    if game == "rwd":
        return {"chips-0": "0", "chips-1": "13", "chips-2": "4", "tricks-0": "3", "tricks-1": "14", "tricks-2": "0"}
    if game == "miraiscope":
        return {"queens-0": "2", "points-0": "11", "last_trick": "0"}
    if game == "lucky_cube":
        return {"die_holder": "1", "die_number": "4", "last_trick": "2"}
    if game == "pair_quad":
        tricks = -(-20 // n)
        return {f"{rank}-0": "4" for rank in "7AKQJ"} | {"other-0": str(tricks * n - 20)}
    return ({f"bid{w}-{s}": "C" for w in (1, 2) for s in range(n)}
            | {f"tricks-{s}": "1" for s in range(n - 1)} | {"open_bid": "none"})


def draw(client, conn, games: dict[str, int], minutes: str = "30") -> night.Round:
    data = {f"tables-{g}": str(count) for g, count in games.items()}
    assert client.post("/hall/rounds", data={**data, "minutes": minutes}).status_code == 303
    return night.night_rounds(conn)[-1]


def play_first_deal(phone, rt: night.RoundTable) -> None:
    game, n = rt.table.game.id, rt.table.setup.n
    response = phone.post(f"/t/{rt.table.token}/deals", data={"number": "1", **first_deal(game, n)})
    assert response.status_code == 303, text_of(response.get_data(as_text=True))[:400]


def expected_winners(table: store.Table) -> tuple[int, ...]:
    """The game's rule for a match ended at time, as its ruling says it: what decides the match
    (RWD's deal wins), then the points; equal on all of it shares the win."""
    match = table.game.replay(table.setup, list(table.deals))
    wins = [sum(e in d.score.winners for d in match.deals) for e in range(len(match.totals))]
    deciding = [(wins[e], total) if table.game.id == "rwd" else (total,) for e, total in enumerate(match.totals)]
    return tuple(e for e, key in enumerate(deciding) if key == max(deciding))


def reload(conn, rt: night.RoundTable) -> store.Table:
    return store.load(conn, rt.table.token)


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_table_ends_at_time_in_one_tap_once_the_organiser_calls_time(app, client, conn, game):
    phones = join_night(app, NAMES[:PLAYERS[game] * 2])
    r = draw(client, conn, {game: 2})
    rt = r.tables[0]
    phone = phones[night.player(conn, rt.player_ids[0]).name]
    play_first_deal(phone, rt)
    # Time is not up: the match goes on, and says why.
    refused = phone.post(f"/t/{rt.table.token}/end-at-time")
    assert refused.status_code == 409 and "not up yet" in text_of(refused.get_data(as_text=True))
    assert "End the match at time" not in phone.get(f"/t/{rt.table.token}").get_data(as_text=True)
    assert not reload(conn, rt).match().over

    # The organiser calls time for this table only: its page offers the one tap, the other's not.
    assert client.post(f"/hall/tables/{rt.table.id}/call-time").status_code == 303
    page = phone.get(f"/t/{rt.table.token}").get_data(as_text=True)
    assert "End the match at time" in page and f'data-ruling="{AT_TIME}"' in page
    assert "End the match at time" not in phone.get(f"/t/{r.tables[1].table.token}").get_data(as_text=True)

    assert phone.post(f"/t/{rt.table.token}/end-at-time").status_code == 303
    table = reload(conn, rt)
    match = table.match()
    assert match.over and match.at_time and table.finished and table.ended_at_time
    assert match.winners == expected_winners(table)
    assert match.next is None  # no deal after the end
    # Shown as ended at time, with the game's ruling, on the table page and the hall.
    page = phone.get(f"/t/{rt.table.token}").get_data(as_text=True)
    assert "Ended at time after 1 deal." in text_of(page) and f'data-ruling="{AT_TIME}"' in page
    assert "Undo the end at time" in page
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Finished · ended at time" in hall
    # It counts: its players are on the leaderboard, the winners first.
    board = {s.name: s for s in night.leaderboard(night.night_results(conn))}
    assert set(board) == set(table.setup.players)
    # Exports say so: the table's own JSON, the night's JSON and CSV.
    assert json.loads(phone.get(f"/t/{rt.table.token}/export.json").get_data(as_text=True))["ended_at_time"] is True
    own = list(csv.DictReader(io.StringIO(phone.get(f"/t/{rt.table.token}/export.csv").get_data(as_text=True)
                                          .lstrip("\ufeff"))))
    said = own[-1]["Ended at time"]  # the table's own CSV: the result on the last deal's row
    assert said.startswith("Ended at time after 1 deal.") and match.entrants[match.winners[0]] in said
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    assert [t["ended_at_time"] for t in doc["tables"]] == [True, False]
    rows = list(csv.DictReader(io.StringIO(client.get("/hall/export.csv").get_data(as_text=True).lstrip("\ufeff"))))
    assert {row["ended_at_time"] for row in rows if row["table"] == "R1 · Table 1"} == {"yes"}

    # Undoing the end at time reopens the match: it runs again and counts for nobody.
    assert phone.post(f"/t/{rt.table.token}/finish", data={"finished": "0"}).status_code == 303
    again = reload(conn, rt)
    assert not again.match().over and not again.ended_at_time and not again.match().at_time
    assert night.leaderboard(night.night_results(conn)) == ()


def test_the_round_clock_at_zero_lets_each_table_end_at_time(app, client, conn):
    phones = join_night(app, NAMES[:6])
    r = draw(client, conn, {"lucky_cube": 2}, minutes="10")
    rt = r.tables[0]
    phone = phones[night.player(conn, rt.player_ids[0]).name]
    play_first_deal(phone, rt)
    client.post("/hall/clock", data={"minutes": "10"})
    assert phone.post(f"/t/{rt.table.token}/end-at-time").status_code == 409
    # Ten minutes later (the clock started eleven minutes ago): time is up at every table.
    started = (datetime.now(timezone.utc) - timedelta(minutes=11)).isoformat(timespec="seconds")
    with store.write(conn):
        nights_store.set_clock(conn, r.id, 10, started)
    clock = phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
    assert "End the match at time" in clock and 'data-countdown="0"' in clock
    # At zero it says so at once (a page opened now read "Time left: 0:00" until its first tick).
    assert "Time! Finish the deal you are playing." in text_of(clock) and "Time left" not in text_of(clock)
    assert phone.post(f"/t/{rt.table.token}/end-at-time").status_code == 303
    assert reload(conn, rt).match().at_time


def test_rwd_at_time_ranks_deal_wins_before_points():
    """RWD first to 3: the most deal wins wins, then the points. Ann wins deal 1, Cy deal 2; Bo
    has the most points but no deal win: Cy (1 win, 2 points) beats Ann (1 win, -5), then Bo."""
    game = GAMES["rwd"]
    setup = MatchSetup("rwd", ("Ann", "Bo", "Cy"), {"first_start_player": 0})
    deals = [{"chips": [0, 13, 4], "tricks": [3, 14, 0]}, {"chips": [15, 2, 0], "tricks": [7, 4, 6]}]
    running = game.replay(setup, deals)
    assert not running.over and running.totals == (-5, 3, 2)
    ended = game.replay(setup, deals, at_time=True)
    assert ended.over and ended.at_time and ended.winners == (2,)
    assert ended.ranking() == [(1, 2), (2, 0), (3, 1)]
    assert AT_TIME in ended.outcome.rulings and str(ended.outcome.message) == "Ended at time after 2 deals. Winner: Cy."
    # Every game declares its rule for it, as a ruling.
    for each in GAMES.values():
        assert each.ruling(AT_TIME).text


def test_one_action_on_the_hall_ends_every_unfinished_table_and_the_round_is_over(app, client, conn):
    phones = join_night(app, NAMES)
    r = draw(client, conn, {game: 1 for game in PLAYERS})
    assert sorted(rt.table.game.id for rt in r.tables) == sorted(PLAYERS)
    for rt in r.tables:
        play_first_deal(phones[night.player(conn, rt.player_ids[0]).name], rt)
    client.post("/hall/clock", data={"minutes": "30"})
    assert "Call time for every unfinished table" in client.get("/hall").get_data(as_text=True)

    assert client.post("/hall/call-time", data={"end": "1"}).status_code == 303
    for rt in r.tables:
        table = reload(conn, rt)
        assert table.match().over and table.match().at_time, rt.table.game.id
        assert table.match().winners == expected_winners(table)
    # The round is over: the hall says so and offers the next draw, the clock stops everywhere.
    latest = night.night_rounds(conn)[-1]
    assert round_time.round_over(latest)
    hall = client.get("/hall").get_data(as_text=True)
    assert "Round 1 is over: every table has a result." in text_of(hall)
    assert 'class="hall-clock"' not in hall and 'href="#draw"' in hall
    rt = latest.tables[0]
    phone = phones[night.player(conn, rt.player_ids[0]).name]
    clock = phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
    assert "The round is over." in clock and "data-countdown" not in clock
    me = phone.get("/night/me").get_data(as_text=True)
    assert "The round is over." in me and "data-countdown" not in me
    assert len(night.leaderboard(night.night_results(conn))) == len(NAMES)
    # A player's page and history say it too (the season reads the stored results).
    pid = players.player_of_name(conn, reload(conn, rt).setup.players[0]).id
    assert "ended at time" in text_of(client.get(f"/players/{pid}").get_data(as_text=True))
    history = json.loads(client.get(f"/players/{pid}/history.json").get_data(as_text=True))
    assert [m["ended_at_time"] for m in history["matches"]] == [True]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/players/{pid}/history.csv").get_data(as_text=True)
                                          .lstrip("\ufeff"))))
    assert [row["ended_at_time"] for row in rows] == ["yes"]


def test_a_table_without_a_deal_is_left_running_and_said_so(app, client, conn):
    phones = join_night(app, NAMES[:6])
    r = draw(client, conn, {"rwd": 2})
    first, second = r.tables
    play_first_deal(phones[night.player(conn, first.player_ids[0]).name], first)
    page = client.post("/hall/call-time", data={"end": "1"})
    assert "has no deal played yet" in text_of(page.get_data(as_text=True))
    assert reload(conn, first).match().at_time and not reload(conn, second).match().over
    assert not round_time.round_over(night.night_rounds(conn)[-1])


def test_the_clock_stops_once_every_table_of_the_round_has_finished(app, client, conn):
    """"The clock kept counting (17:45) after every table of the round had finished.\""""
    phones = join_night(app, NAMES[:6])
    assert client.post("/hall/rounds", data={"tables-rwd": "2", "format-rwd-length": "1", "minutes": "30"}
                       ).status_code == 303
    client.post("/hall/clock", data={"minutes": "30"})
    r = night.night_rounds(conn)[-1]
    for rt in r.tables:  # one deal is the whole game: each table finishes by its rules
        play_first_deal(phones[night.player(conn, rt.player_ids[0]).name], rt)
    latest = night.night_rounds(conn)[-1]
    assert all(rt.table.match().over for rt in latest.tables)
    hall = client.get("/hall").get_data(as_text=True)
    assert 'class="hall-clock"' not in hall and "Round 1 is over" in text_of(hall)
    for rt in latest.tables:
        clock = round_time.table_clock(conn, rt.table)
        assert clock["seconds"] is None and clock["round_over"]


def test_calling_time_for_the_round_offers_each_table_the_tap_and_the_hall_ends_one(app, client, conn):
    phones = join_night(app, NAMES[:8])
    r = draw(client, conn, {"twin_shoot": 2})
    for rt in r.tables:
        play_first_deal(phones[night.player(conn, rt.player_ids[0]).name], rt)
    client.post("/hall/clock", data={"minutes": "30"})
    assert 'class="hall-clock" data-countdown="0"' not in client.get("/hall").get_data(as_text=True)
    assert client.post("/hall/call-time").status_code == 303  # time called, nothing ended yet
    # Time is up at every table still playing: the hall's and the screen's clocks say so, not
    # 29:19 counting on (seen in a night run as a new organiser).
    assert 'class="hall-clock" data-countdown="0"' in client.get("/hall").get_data(as_text=True)
    assert 'data-countdown="0"' in client.get("/hall/screen/live").get_data(as_text=True)
    for rt in r.tables:
        phone = phones[night.player(conn, rt.player_ids[1]).name]
        page = phone.get(f"/t/{rt.table.token}").get_data(as_text=True)
        assert "End the match at time" in page
        # ... also under the deal form, where a player typing a deal looks; and the clock's
        # own answer brings it there without a reload.
        note = page[page.index('id="time-up-note"'):]
        assert page.index('id="entry"') < page.index('id="time-up-note"') and "End the match at time" in note[:2000]
        clock = phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
        assert re.search(r'<hx-partial hx-target="#time-up-note"[^>]*>\s*<form[^>]*end-at-time', clock)
        assert not reload(conn, rt).match().over
    assert "End at time" in text_of(client.get("/hall").get_data(as_text=True))
    first, second = r.tables
    assert client.post(f"/hall/tables/{first.table.id}/end-at-time").status_code == 303
    assert reload(conn, first).match().at_time and not reload(conn, second).match().over
    # Once over, it can't be ended again; the other table's players end theirs.
    assert client.post(f"/hall/tables/{first.table.id}/end-at-time").status_code == 409
    phone = phones[night.player(conn, second.player_ids[0]).name]
    assert phone.post(f"/t/{second.table.token}/end-at-time").status_code == 303
    assert round_time.round_over(night.night_rounds(conn)[-1])


def test_more_time_after_time_is_up_gives_the_table_time_again(app, client, conn):
    """'5 more minutes for this table' after Call time (or after the clock reached zero): the
    hall said 'Table 1 has more time: 4:55' beside its 'End at time', and its phones still
    showed 0:00 with 'End the match at time' (a newcomer's first night, issue 40; issue 44's
    clock that contradicts itself). Now the table's time ends five minutes from now, time is no
    longer called for it, and the hall, the table's clock and its phones agree."""
    phones = join_night(app, NAMES[:6])
    r = draw(client, conn, {"rwd": 2}, minutes="10")  # two tables of three
    rt = r.tables[0]
    phone = phones[night.player(conn, rt.player_ids[0]).name]
    play_first_deal(phone, rt)
    client.post("/hall/clock", data={"minutes": "10"})
    assert client.post(f"/hall/tables/{rt.table.id}/call-time").status_code == 303
    assert "End the match at time" in phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)

    assert client.post(f"/hall/tables/{rt.table.id}/extend").status_code == 303
    clock = phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
    assert "End the match at time" not in clock
    left = int(clock.split('data-countdown="')[1].split('"')[0])
    assert 5 * 60 - 5 <= left <= 10 * 60  # its own end, five minutes past the round's, or more
    assert phone.post(f"/t/{rt.table.token}/end-at-time").status_code == 409  # its time is not up
    (r,) = night.night_rounds(conn)
    assert not r.tables[0].time_called and not round_time.round_time_is_up(r, r.tables[0])
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert re.search(r"Table \d+ has more time: \d+:\d\d", hall)

    # Long past the round's end (the clock started 20 minutes ago): five minutes from now.
    started = (datetime.now(timezone.utc) - timedelta(minutes=20)).isoformat(timespec="seconds")
    with store.write(conn):
        nights_store.set_clock(conn, r.id, 10, started)
        nights_store.extend_table(conn, rt.table.id, 0)
    assert "End the match at time" in phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
    assert client.post(f"/hall/tables/{rt.table.id}/extend").status_code == 303
    clock = phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
    left = int(clock.split('data-countdown="')[1].split('"')[0])
    assert 4 * 60 + 50 <= left <= 6 * 60 and "End the match at time" not in clock

    # Then Call time for every unfinished table: the hall no longer says it has more time.
    assert client.post("/hall/call-time").status_code == 303
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "has more time" not in hall
    assert "End the match at time" in phone.get(f"/t/{rt.table.token}/clock").get_data(as_text=True)
