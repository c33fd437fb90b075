"""Rolling tables (issue 47): a night run without rounds. The organiser sets the games on offer
(copies, minutes per game) and a closing time; a table starts as soon as enough players are
free, a copy is free and a room table is free, seated among the free players only; each table's
clock is its own; the leaderboard ranks by place points per match. On both backends."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta, timezone

import pytest

from companion.night import rolling
from companion.night import service as night
from companion.store import connect
from companion.tables import service as tables
from helpers import join_night, rwd_deal_form, text_of
import table_writes
from table_writes import done

TWELVE = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"]


def playing(conn) -> list[night.RoundTable]:
    return rolling.playing(night.night_rounds(conn))


def seated_once(conn) -> None:
    """Nobody sits at two tables that play."""
    ids = [pid for rt in playing(conn) for pid in rt.player_ids]
    assert len(ids) == len(set(ids)), ids


def names_at(rt: night.RoundTable) -> set[str]:
    return set(rt.table.setup.players)


def win_at(n: int, winner: int) -> dict:
    """A valid RWD deal at a table of ``n`` that seat ``winner`` wins alone."""
    each = 52 // n
    chips = [each // n] * n
    chips[-1] += each - n * (each // n)
    tricks = list(chips)
    for k, seat in enumerate(s for s in range(n) if s != winner):
        give = (0, 1, 2, 1)[k]
        tricks[seat] -= give
        tricks[winner] += give
    return {"chips": chips, "tricks": tricks}


def play_to_the_end(conn, rt: night.RoundTable, winner: int = 0) -> None:
    table = tables.load(conn, rt.table.token)
    while not table.match().over:
        table = table_writes.add_deal(conn, rt.table.token, len(table.deals) + 1,
                                      win_at(len(table.setup.players), winner))


def test_rolling_is_chosen_before_the_first_draw_and_bad_settings_are_said_beside_their_fields(conn):
    bad = rolling.set_rolling(conn, {"rwd": 0})
    assert not bad.saved and [e.field for e in bad.errors] == ["copies"]
    bad = rolling.set_rolling(conn, {"rwd": 2}, {"rwd": 999}, "25:99")
    assert {e.field for e in bad.errors} == {"minutes-rwd", "closing"}
    assert rolling.settings(conn) is None
    for name in TWELVE[:4]:
        done(night.join(conn, name))
    done(night.draw_round(conn, chosen=["rwd"]))
    late = rolling.set_rolling(conn, {"rwd": 2})
    assert not late.saved and "rolling tables are chosen before the first draw" in str(late.errors[0].message)



def test_a_rolling_night_draws_no_round(client, conn):
    for name in TWELVE[:8]:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 1}))
    refused = client.post("/hall/rounds", data={"tables-rwd": "2"})
    assert refused.status_code == 422 and "Tonight runs as rolling tables" in text_of(refused.get_data(as_text=True))
    assert len(night.night_rounds(conn)) == 1
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Draw round" not in hall and "who sits where" not in hall and "Seat the free players now" in hall


def test_the_halls_board_and_list_speak_of_tables_not_rounds(client, conn):
    """Each rolling table is stored as a round of its own: the hall named them "Round 1 · Table 1",
    "Round 2 · Table 2", and said "not seated this round" of everyone but the last table's."""
    for name in TWELVE + ["Mo", "Ned", "Oz"]:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 2}))
    seated = {name for rt in playing(conn) for name in names_at(rt)}
    free = 15 - len(seated)
    assert len(playing(conn)) == 2 and free > 0
    page = client.get("/hall").get_data(as_text=True)
    hall = text_of(page)
    assert "Round 1" not in hall and "Round 2" not in hall
    assert "not seated this round" not in hall
    assert hall.count("waiting for a table") == free  # no copy of RWD is free for them


def test_who_waits_reads_as_japanese_on_the_hall_and_the_screen(client, conn):
    """Japanese asides in full-width brackets and names joined with 、 (a native reading of the
    rolling pages: "待機中：Ann (次のテーブルは休み)" and "Ann, Bob" were English typography)."""
    for name in TWELVE + ["Mo", "Ned", "Oz"]:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 2}))
    waiting = rolling.waiting(conn)
    done(night.set_away(conn, waiting[0].id, night.SIT_OUT))
    client.get("/lang/ja?next=/hall")
    for path in ("/hall", "/hall/screen"):
        page = text_of(client.get(path).get_data(as_text=True))
        assert re.search(f"{waiting[0].name} ?（", page) and f"{waiting[0].name} (" not in page, path
    hall = text_of(client.get("/hall").get_data(as_text=True))
    seated = rolling.playing(night.night_rounds(conn))[0].table.setup.players
    assert "、".join(seated) in hall and ", ".join(seated) not in hall


def test_tables_start_at_once_mixed_with_their_own_clocks(conn, monkeypatch):
    monkeypatch.setattr(tables, "now", lambda: "2026-11-29T19:00:00+00:00")
    for name in TWELVE:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 2, "lucky_cube": 1}, {"rwd": 25, "lucky_cube": 40}))
    started = playing(conn)
    assert len(started) == 3 and sorted(rt.table.game.id for rt in started) == ["lucky_cube", "rwd", "rwd"]
    seated_once(conn)
    rounds = night.night_rounds(conn)
    assert all(r.rolling and r.clock_from == "2026-11-29T19:00:00+00:00" for r in rounds)
    assert {r.tables[0].table.game.id: r.minutes for r in rounds} == {"rwd": 25, "lucky_cube": 40}
    # Each table is announced until its first deal: "Table 1 is free: … → RWD".
    names = {p.id: p.name for p in night.roster(conn)}
    assert len(rolling.announcements(rounds, names)) == 3
    assert rolling.fill(conn).value == []  # nobody free, no copy free: nothing more, however often asked


def test_a_finished_table_frees_its_players_who_are_seated_mixed_when_another_finishes(conn, monkeypatch):
    for name in TWELVE:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 3}))
    first, second, third = playing(conn)
    table_writes.play_until_over(conn, first.table.token, 0)
    # Only the four who just played together are free: they wait for another table to finish.
    assert rolling.fill(conn).value == []
    assert {p.name for p in rolling.waiting(conn)} == names_at(first)
    table_writes.play_until_over(conn, second.table.token, 1)
    seated = rolling.fill(conn).value
    assert len(seated) == 2 and rolling.waiting(conn) == []
    for table in seated:  # each new table mixes two of each finished one
        assert len(set(table.names) & names_at(first)) == 2
    seated_once(conn)
    # The leaderboard counts each finished match once.
    results = night.night_results(conn)
    assert sorted(s.tables for s in rolling.leaderboard(conn, results)) == [1] * 8


def test_two_tables_finishing_at_once_seat_nobody_twice(app, conn):
    for name in TWELVE:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 3}))
    first, second, _third = playing(conn)
    for rt in (first, second):  # every deal but the last
        table = tables.load(conn, rt.table.token)
        while len(table.deals) < 2:
            table = table_writes.add_deal(conn, rt.table.token, len(table.deals) + 1, table_writes.rwd_win(0))
    barrier = threading.Barrier(2)
    answers, failures = [], []

    def finish(token: str) -> None:
        own = connect(app.config["DATABASE"])
        try:
            barrier.wait()
            table_writes.add_deal(own, token, 3, table_writes.rwd_win(0))
            barrier.wait()  # both finished before either seats: each fill sees eight free players
            answers.append(rolling.fill(own).value)
        except Exception as error:  # noqa: BLE001  (reported below, with the thread's error)
            failures.append(error)
        finally:
            own.close()

    threads = [threading.Thread(target=finish, args=(rt.table.token,)) for rt in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    assert sorted(len(found) for found in answers) == [0, 2]  # one seated both tables, the other found none
    assert len(playing(conn)) == 3
    seated_once(conn)


def test_sit_out_the_next_table_and_leaving(conn):
    for name in TWELVE[:10]:
        done(night.join(conn, name))
    ids = {p.name: p.id for p in night.roster(conn)}
    done(night.set_away(conn, ids["Ann"], night.SIT_OUT))
    done(night.set_away(conn, ids["Bob"], night.LEAVING))
    done(rolling.set_rolling(conn, {"rwd": 2}))
    seated = {name for rt in playing(conn) for name in names_at(rt)}
    assert len(seated) == 8 and not {"Ann", "Bob"} & seated
    # Ann sat out the next table: she waits, and plays at the one after. Bob left after his match.
    assert night.player(conn, ids["Ann"]).sit_out_round is None
    assert night.player(conn, ids["Bob"]).left
    assert [p.name for p in rolling.waiting(conn)] == ["Ann"]
    for rt in playing(conn):
        play_to_the_end(conn, rt)
    rolling.fill(conn)
    assert "Ann" in {name for rt in playing(conn) for name in names_at(rt)}
    assert sorted(len(rt.player_ids) for rt in playing(conn)) == [4, 5]


def test_a_fixed_table_player_keeps_their_room_table(client, conn):
    assert client.post("/hall/room", data={"room": "1-4"}).status_code == 303
    for name in TWELVE[:8]:
        done(night.join(conn, name))
    ids = {p.name: p.id for p in night.roster(conn)}
    kept = night.room(conn)[2]
    done(night.keep_at_table(conn, ids["Hal"], kept.id))
    done(rolling.set_rolling(conn, {"rwd": 3}))
    hal = next(rt for rt in playing(conn) if "Hal" in names_at(rt))
    assert hal.table.room_table == kept.id and hal.table.label == "3"
    others = [rt for rt in playing(conn) if rt is not hal]
    for rt in playing(conn):
        play_to_the_end(conn, rt)
    rolling.fill(conn)
    again = next(rt for rt in playing(conn) if "Hal" in names_at(rt))
    assert again.table.room_table == kept.id and others


def test_closing_time_stops_new_tables(conn, monkeypatch):
    clock = {"now": datetime(2026, 11, 29, 21, 0, tzinfo=timezone.utc)}
    monkeypatch.setattr(tables, "now", lambda: clock["now"].isoformat(timespec="seconds"))
    for name in TWELVE[:8]:
        done(night.join(conn, name))
    closing = (clock["now"] + timedelta(minutes=30)).astimezone().strftime("%H:%M")
    done(rolling.set_rolling(conn, {"rwd": 1}, closing=closing))
    (first,) = playing(conn)
    clock["now"] += timedelta(minutes=31)
    table_writes.play_until_over(conn, first.table.token, 0)
    assert rolling.fill(conn).value == [] and playing(conn) == []
    assert len(rolling.waiting(conn)) == 8


@pytest.mark.confirming
def test_a_disputed_table_frees_its_players_when_settled_or_let_go(app, client, conn):
    phones = join_night(app, TWELVE[:8])
    assert client.post("/hall/rolling", data={"copies-rwd": "1"}).status_code == 303
    (rt,) = playing(conn)
    token = rt.table.token
    seat = {name: phones[name] for name in rt.table.setup.players}
    a, c = seat[rt.table.setup.players[0]], seat[rt.table.setup.players[2]]
    for number in (1, 2, 3):
        assert a.post(f"/t/{token}/deals", data=rwd_deal_form(number, 0)).status_code == 303
    assert c.post(f"/t/{token}/deals/3/dispute", data=rwd_deal_form(3, 2)).status_code == 303
    assert tables.load(conn, token).match().over and playing(conn) == [rt for rt in playing(conn)]
    assert len(playing(conn)) == 1  # the dispute holds its players: not free
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Let them go" in hall
    assert client.post(f"/hall/tables/{rt.table.id}/release").status_code == 303
    # Let go: the eight are free, and a table (one copy) starts at once among them.
    (next_table,) = playing(conn)
    assert next_table.table.token != token


def test_a_phone_ending_its_match_seats_the_next_table_and_the_clock_is_per_table(app, client, conn, monkeypatch):
    monkeypatch.setattr(tables, "now", lambda: "2026-11-29T19:00:00+00:00")
    phones = join_night(app, TWELVE[:8])
    assert client.post("/hall/rolling", data={"copies-rwd": "2", "minutes-rwd": "20"}).status_code == 303
    first, second = playing(conn)
    # Pause one table's clock, give the other five minutes more, call time at a third.
    assert client.post(f"/hall/tables/{first.table.id}/pause").status_code == 303
    assert client.post(f"/hall/tables/{second.table.id}/extend").status_code == 303
    rounds = {r.tables[0].table.id: r for r in night.night_rounds(conn)}
    assert rounds[first.table.id].paused_at and not rounds[second.table.id].paused_at
    assert rounds[second.table.id].tables[0].extra_minutes == 5
    assert client.post(f"/hall/tables/{first.table.id}/pause", data={"action": "resume"}).status_code == 303
    assert client.post(f"/hall/tables/{first.table.id}/call-time").status_code == 303
    assert night.night_rounds(conn)[0].tables[0].time_called
    # The table's own page shows its own clock, never a round's.
    page = text_of(phones[second.table.setup.players[0]].get(f"/t/{second.table.token}").get_data(as_text=True))
    assert "Your table's time ends in" in page and "Round" not in page.split("Your table's time")[0][-40:]
    # Both tables played to their end from their phones: the last deal's request seats the next tables.
    for rt in (first, second):
        phone = phones[rt.table.setup.players[0]]
        for number in (1, 2, 3):
            assert phone.post(f"/t/{rt.table.token}/deals", data=rwd_deal_form(number, 0)).status_code == 303
    assert len(playing(conn)) == 2 and {rt.table.id for rt in playing(conn)}.isdisjoint({first.table.id, second.table.id})
    # The screen and the phones say where to go.
    announced = rolling.announcements(night.night_rounds(conn), {p.id: p.name for p in night.roster(conn)})
    screen = text_of(client.get("/hall/screen").get_data(as_text=True))
    mine = announced[0]
    assert f"{tables.load(conn, mine.table.token).seq}" and "is free:" in screen and "Standings" in screen
    me = text_of(phones[mine.names[0]].get("/night/me").get_data(as_text=True))
    assert "is free:" in me and all(name in me for name in mine.names)
    assert "per match" in me.split("Tonight's leaderboard")[1]  # their line says their place points per match
    board = text_of(client.get("/hall").get_data(as_text=True))
    assert "Per match" in board and "Sits out the next table" in board


def test_the_rolling_leaderboard_ranks_by_points_per_match_then_matches():
    from companion.meetup.points import Standing
    from fractions import Fraction

    many = Standing(1, "ann", "Ann", 3, (1, 1, 1), 1.5, 0.5, Fraction(3, 2))
    few = Standing(2, "bob", "Bob", 1, (0, 1), 2 / 3, 2 / 3, Fraction(2, 3))
    same = Standing(3, "cy", "Cy", 2, (0, 2), 1.0, 0.5, Fraction(1))
    ranked = rolling.rank_per_match([many, few, same])
    assert [(s.name, s.rank) for s in ranked] == [("Bob", 1), ("Ann", 2), ("Cy", 3)]


def test_a_request_decides_the_table_and_is_closed_once_met(conn):
    from companion.night import game_requests

    for name in TWELVE[:8]:
        done(night.join(conn, name))
    ids = {p.name: p.id for p in night.roster(conn)}
    done(game_requests.ask(conn, ids["Ann"], "lucky_cube"))
    done(game_requests.ask(conn, ids["Bob"], "twin_shoot"))  # not on offer tonight: waits
    done(rolling.set_rolling(conn, {"rwd": 1, "lucky_cube": 1}))
    ann = next(rt for rt in playing(conn) if "Ann" in names_at(rt))
    assert ann.table.game.id == "lucky_cube"
    assert list(game_requests.open_requests(conn)) == [ids["Bob"]]


def test_a_learn_request_is_seated_beside_someone_who_played_the_game(conn):
    from companion.night import game_requests

    for name in TWELVE[:8]:
        done(night.join(conn, name))
    # Hal alone of tonight's list has finished an RWD match (on the laptop, before the tables roll).
    table_writes.finished_match(conn, ["Hal", "Xan", "Yul", "Zed"])
    ids = {p.name: p.id for p in night.roster(conn)}
    done(game_requests.ask(conn, ids["Ann"], "rwd", learn=True))
    done(rolling.set_rolling(conn, {"rwd": 1, "lucky_cube": 1}))
    ann = next(rt for rt in playing(conn) if "Ann" in names_at(rt))
    assert ann.table.game.id == "rwd" and "Hal" in names_at(ann)
    assert game_requests.open_requests(conn) == {}


def test_a_request_waits_for_a_table_of_its_game_while_the_copy_is_in_use(conn):
    from companion.night import game_requests

    for name in TWELVE[:8]:
        done(night.join(conn, name))
    done(rolling.set_rolling(conn, {"rwd": 1, "lucky_cube": 1}))
    rwd, lucky = sorted(playing(conn), key=lambda rt: rt.table.game.id != "rwd")
    asker = next(p for p in night.roster(conn) if p.id in rwd.player_ids)
    done(game_requests.ask(conn, asker.id, "lucky_cube"))  # asked while at the RWD table
    play_to_the_end(conn, rwd)
    assert rolling.fill(conn).value == [] and len(game_requests.open_requests(conn)) == 1
    done(rolling.release(conn, lucky.table.id))  # the organiser lets the Lucky Cube table go: eight free
    again = next(rt for rt in playing(conn) if asker.id in rt.player_ids)
    assert again.table.game.id == "lucky_cube" and game_requests.open_requests(conn) == {}


def test_the_hall_lists_the_waiting_requests_and_a_phone_asks_in_rolling_mode(app, client, conn):
    import re

    phones = join_night(app, TWELVE[:8])
    assert client.post("/hall/rolling", data={"copies-rwd": "1"}).status_code == 303
    (rt,) = playing(conn)
    waiter = next(name for name in TWELVE[:8] if name not in names_at(rt))
    # My night's request card, in rolling tables as before a draw: a big button per game.
    page = phones[waiter].get("/night/me").get_data(as_text=True)
    card = re.search(r'<div class="card me-request" id="me-request">.*?</form>\s*</div>', page, re.S).group(0)
    assert 'name="want" value="learn:lucky_cube"' in card and 'name="want" value="play:rwd"' in card
    # ... speaking of the next table, not of a draw (there is none in rolling tables)
    assert "A game for your next table" in text_of(card) and "draw" not in text_of(card)
    assert phones[waiter].post("/night/me/request", data={"want": "learn:lucky_cube"}).status_code == 303
    assert "Your request: learn Lucky Cube." in text_of(phones[waiter].get("/night/me").get_data(as_text=True))
    # The hall's rolling card lists it (the draw form, hidden in rolling tables, used to be its only place).
    hall = client.get("/hall").get_data(as_text=True)
    rolling_card = hall.split('id="rolling"', 1)[1].split("</section>", 1)[0]
    assert f"Requests for the next tables: {waiter}: learn Lucky Cube" in text_of(rolling_card)
