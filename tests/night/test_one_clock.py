"""One clock, controlled (issue 44, items 4 and 5). The draw's minutes never start the clock by
themselves: "Start round N" does, at the top of the hall. The organiser pauses and resumes it,
gives one table or every table 5 more minutes, and calls time; the hall, the screen for the room
and each table's phones read one function of the stored state, so with time frozen they show
the same seconds at every step (before, the hall said "Time!" beside "Table 8 has more time:
23:12" while table 8's phones said time was up)."""

from __future__ import annotations

import re

from companion.night import service as night
from helpers import join_night, text_of

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]


class FrozenClock:
    """The writes' clock (tables.service.now), which the round clock reads too, set by hand."""

    def __init__(self, monkeypatch, hhmmss: str = "19:00:00"):
        from companion.tables import service as tables
        self.stamp = f"2026-11-29T{hhmmss}+00:00"
        monkeypatch.setattr(tables, "now", lambda: self.stamp)

    def at(self, hhmmss: str) -> None:
        self.stamp = f"2026-11-29T{hhmmss}+00:00"


def seconds_of(text: str) -> int:
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


def hall_clock(client) -> int | None:
    found = re.search(r'class="hall-clock"[^>]*>(\d+:\d\d)<', client.get("/hall").get_data(as_text=True))
    return None if found is None else seconds_of(found.group(1))


def screen_clock(client) -> int | None:
    found = re.search(r'class="screen-clock"[^>]*>(\d+:\d\d)<', client.get("/hall/screen/live").get_data(as_text=True))
    return None if found is None else seconds_of(found.group(1))


def phone_clock(phone, token: str) -> int | None:
    """A table's phone: its clock's seconds (0 once its time is up), None without a clock."""
    html = phone.get(f"/t/{token}/clock").get_data(as_text=True)
    found = re.search(r'class="round-clock( time-up)?"[^>]*>([^<]*)<', html)
    if found is None:
        return None
    shown = found.group(2)
    return 0 if "Time!" in shown else seconds_of(shown)


def extended(client) -> dict[str, int]:
    """The hall's "Table N has more time: m:ss" lines."""
    return {label: seconds_of(left) for label, left in
            re.findall(r"(Table \d+) has more time: (\d+:\d\d)", text_of(client.get("/hall").get_data(as_text=True)))}


def test_the_hall_the_screen_and_the_phones_read_one_clock(app, client, conn, monkeypatch):
    clock = FrozenClock(monkeypatch)
    phones = join_night(app, EIGHT)
    assert client.post("/hall/rounds", data={"tables-rwd": "2", "minutes": "30"}).status_code == 303
    (r,) = night.night_rounds(conn)
    one, two = r.tables
    phone_one = phones[night.player(conn, one.player_ids[0]).name]
    phone_two = phones[night.player(conn, two.player_ids[0]).name]
    # The draw's minutes don't start it: "Start round 1 (30 min)" does, near the top of the hall.
    assert hall_clock(client) is None and phone_clock(phone_one, one.table.token) is None
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Start round 1 (30 min)" in hall
    assert client.post("/hall/clock/start").status_code == 303
    assert hall_clock(client) == screen_clock(client) == phone_clock(phone_one, one.table.token) == 30 * 60
    assert "Round 1 ends in" in text_of(client.get("/hall").get_data(as_text=True))

    clock.at("19:10:00")
    assert client.post("/hall/clock/pause", data={"action": "pause"}).status_code == 303
    clock.at("19:20:00")  # paused: ten minutes later it still says 20:00 everywhere
    assert hall_clock(client) == screen_clock(client) == phone_clock(phone_one, one.table.token) == 20 * 60
    assert "Round 1 is paused at" in text_of(client.get("/hall").get_data(as_text=True))

    assert client.post(f"/hall/tables/{one.table.id}/extend").status_code == 303  # +5 for table one
    assert phone_clock(phone_one, one.table.token) == 25 * 60 == extended(client)[f"Table {one.table.seq}"]
    assert phone_clock(phone_two, two.table.token) == 20 * 60 == hall_clock(client) == screen_clock(client)
    assert client.post("/hall/clock/more").status_code == 303  # +5 for every table
    assert phone_clock(phone_one, one.table.token) == 30 * 60 == extended(client)[f"Table {one.table.seq}"]
    assert phone_clock(phone_two, two.table.token) == 25 * 60 == extended(client)[f"Table {two.table.seq}"]

    assert client.post("/hall/clock/pause", data={"action": "resume"}).status_code == 303
    clock.at("19:25:00")  # five minutes of play after resuming
    assert phone_clock(phone_two, two.table.token) == 20 * 60 == extended(client)[f"Table {two.table.seq}"]
    assert hall_clock(client) == screen_clock(client) == 15 * 60

    # Time called for every unfinished table: every view says time is up, no table "has more time".
    assert client.post("/hall/call-time").status_code == 303
    assert phone_clock(phone_one, one.table.token) == phone_clock(phone_two, two.table.token) == 0
    assert hall_clock(client) in (0, None) and extended(client) == {}
    assert "Time! Finish the deal you are playing." in client.get("/hall").get_data(as_text=True)


def test_starting_pausing_and_resuming_say_why_they_are_refused(client, conn, monkeypatch):
    FrozenClock(monkeypatch)
    for name in EIGHT[:4]:
        client.post("/hall/players", data={"name": name})
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303  # no minutes
    refused = client.post("/hall/clock/start")
    assert refused.status_code == 422 and "This round has no clock" in text_of(refused.get_data(as_text=True))
    refused = client.post("/hall/clock/pause", data={"action": "pause"})
    assert refused.status_code == 422 and "The clock is not running." in text_of(refused.get_data(as_text=True))
