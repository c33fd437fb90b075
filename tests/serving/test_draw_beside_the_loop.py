"""A long draw never freezes the room (issue 42): the seating search of `companion serve` runs in
a process of its own (companion/meetup/draw_process.py), so while it searches, the server answers
everyone else. 200 players with one kept apart from all 199 others (no seating satisfies it: the
search runs to its end, about 2 s here) on the real server: a phone's page is answered, several
times, while the laptop's draw is still under way. (Before: the search ran on the server's one
loop, and every phone's page waited for it.)"""

from __future__ import annotations

import threading
import time

import pytest

from companion.meetup import draw_process, seating
from companion.night import service as night
from companion.store import connect
from helpers import Phone
from table_writes import done


def test_a_phones_page_is_answered_while_a_long_draw_searches(server_process):
    port = server_process.port
    conn = connect(str(server_process.db))
    try:
        ids = {f"P{n}": done(night.join(conn, f"P{n}")).id for n in range(1, 201)}
    finally:
        conn.close()
    table = Phone(port, "127.0.0.40").create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    laptop = Phone(port)
    csrf = laptop.csrf("/hall")
    form = {"csrf_token": csrf, "draw": "1", "offer-rwd": "1", "offer-lucky_cube": "1",
            "never": [f"{ids['P1']}-{ids[f'P{n}']}" for n in range(2, 201)]}
    drawn: dict = {}

    def draw() -> None:
        drawn["start"] = time.monotonic()
        drawn["answer"] = laptop.request("POST", "/hall/rounds", form, timeout=60)
        drawn["end"] = time.monotonic()

    drawing = threading.Thread(target=draw)
    drawing.start()
    phone = Phone(port, "127.0.0.41")
    answered = []  # (asked, answered, status) of the phone's page while the draw runs
    while drawing.is_alive():
        asked = time.monotonic()
        status = phone.request_once("GET", f"/t/{table}", timeout=5)[0]
        answered.append((asked, time.monotonic(), status))
        time.sleep(0.05)
    drawing.join()
    assert drawn["answer"][0] == 303, drawn["answer"][0]  # drawn (P1 sits with someone: it can't not)
    during = [(a, b, s) for a, b, s in answered if drawn["start"] < a and b < drawn["end"]]
    took = drawn["end"] - drawn["start"]
    print(f"draw {took:.2f} s, {len(during)} pages answered during it")
    assert len(during) >= 3 and all(s == 200 for _, _, s in during), (drawn["end"] - drawn["start"], answered)


@pytest.mark.slow  # starts a Python process
def test_the_draw_is_the_same_in_a_process_of_its_own():
    roster = list(range(1, 31))
    apart = [(1, n) for n in range(2, 8)]
    here = seating.draw_round(roster, [], never=apart, seed="same", offered=["rwd", "twin_shoot"])
    draw_process.run_elsewhere(True)
    try:
        there = draw_process.draw_round(roster, [], never=apart, seed="same", offered=["rwd", "twin_shoot"])
        try:
            draw_process.draw_round([1], [], seed=1, chosen=["rwd"])
            raise AssertionError("one player can't be seated at an RWD table")
        except seating.SeatingError as refused:
            assert "can't seat exactly 1 players" in str(refused.message)
    finally:
        draw_process.run_elsewhere(False)
    assert there == here
