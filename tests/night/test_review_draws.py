"""Review each draw before it is shown (issue 44): a hall setting, off by default and kept for
later draws. A round drawn with it on is held: the hall shows its seats (to swap players or draw
it again), while the phones, the screen for the room and the room's printed cards show nothing
of it until the organiser presses "Start round N", which shows it and starts its clock."""

from __future__ import annotations

import re

from companion.night import service as night
from helpers import join_night, text_of

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]


def page(client, path: str) -> str:
    return text_of(client.get(path).get_data(as_text=True))


def test_a_draw_held_for_review_shows_only_on_the_hall_until_its_round_starts(app, client, conn):
    phones = join_night(app, EIGHT)
    assert client.post("/hall/room", data={"room": "1-4"}).status_code == 303
    card = "/" + re.findall(r'<p class="tc-url">([^<]+)</p>', client.get("/hall/cards").get_data(as_text=True))[0] \
        .split("/", 3)[3]
    assert 'name="review" value="1">' in client.get("/hall").get_data(as_text=True)  # off by default
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "2", "review": "1"}).status_code == 303
    (held,) = night.night_rounds(conn)
    assert held.held
    hall = page(client, "/hall")
    assert "Only this hall shows round 1: check the seats" in hall and "Start round 1" in hall
    mine = page(phones["Ann"], "/night/me")
    assert "Round 1 is drawn: the organiser is checking it." in mine and "Open my table" not in mine
    assert "No table for you yet" not in mine  # one thing said, not two
    screen = page(client, "/hall/screen")
    assert "who sits where" not in screen and "Join tonight" in screen  # still the welcome
    assert "Nothing is played at Table 1 yet" in page(client, card)
    # Fixed before anyone sees it: drawn again, still held.
    assert client.post("/hall/redraw").status_code == 303
    assert night.night_rounds(conn)[-1].held
    assert client.post("/hall/clock/start").status_code == 303  # "Start round 1": shown (no clock)
    (shown,) = night.night_rounds(conn)
    assert not shown.held and shown.clock_from is None
    assert "Open my table" in page(phones["Ann"], "/night/me")
    assert "Round 1: who sits where" in page(client, "/hall/screen")
    assert client.get(card).headers["Location"].endswith(f"/t/{shown.tables[0].table.token}")
    assert "Only this hall shows" not in page(client, "/hall")


def test_the_setting_is_kept_and_start_round_starts_a_held_rounds_clock(app, client, conn):
    phones = join_night(app, EIGHT)
    assert night.review_draws(conn) is False
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "2", "review": "1",
                                              "minutes": "30"}).status_code == 303
    assert night.review_draws(conn) is True
    hall = client.get("/hall").get_data(as_text=True)
    assert re.search(r'name="review" value="1" checked>', hall)  # the next draw's form keeps it
    assert "Start round 1 (30 min)" in text_of(hall)
    assert client.post("/hall/clock/start").status_code == 303
    (r,) = night.night_rounds(conn)
    assert not r.held and r.clock_from is not None and "Round 1 ends in" in page(phones["Bo"], "/night/me")
    # Unticked on the next draw: shown at once, and kept so.
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "2", "unfinished": "leave"}).status_code == 303
    assert not night.night_rounds(conn)[-1].held and night.review_draws(conn) is False
    assert "Round 2" in page(phones["Bo"], "/night/me")
