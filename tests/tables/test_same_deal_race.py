"""Two phones without JavaScript save the same deal at the same moment (issue 32, item 10): plain
form posts from two sessions against the real server, 50 times, each phone first in turn. The
deal is stored once; the phone whose post came second lands on the table told that the deal was
already recorded with the same values; both land on an empty form for the next deal. (The same
race with JavaScript: tests/browser/test_same_deal_race_browser.py.)"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.parse
from html import unescape

import pytest

from helpers import Phone

RACES = 50
DEALS_PER_TABLE = 8  # the winner rotates among 4 players: no match ends within 8 deals
NAMES = ["Ann", "Ben", "Cho", "Dai"]
SAME = "It was already recorded with these same values"


def deal(number: int) -> dict[str, str]:
    """A valid 4-player RWD deal won by seat ``number % 4``."""
    winner = number % 4
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return {**{f"chips-{i}": str(c) for i, c in enumerate(chips)},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}}


def entry_form(html: str) -> str:
    found = re.search(r'<form id="entry".*?</form>', html, re.S)
    return found.group(0) if found else ""


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


@pytest.mark.slow  # 50 races against a real server: about 10 s
def test_two_phones_posting_the_same_deal_store_it_once_every_time(live_server):
    port = live_server.port
    problems: list[str] = []
    phones, token, number, pages = [], None, DEALS_PER_TABLE + 1, []
    started = time.monotonic()
    for race in range(RACES):
        if number > DEALS_PER_TABLE:
            phones = [Phone(port), Phone(port)]
            token, number = phones[0].create_table("rwd", NAMES), 1
            pages = [phone.request("GET", f"/t/{token}")[2] for phone in phones]
        order = (0, 1) if race % 2 == 0 else (1, 0)
        # Each phone posts the form its page shows (its own session's token, deal ``number``).
        forms = [{"csrf_token": csrf_of(page), "number": re.search(
            r'name="number" value="(\d+)"', entry_form(page)).group(1), **deal(number)} for page in pages]
        answers: list = [None, None]
        barrier = threading.Barrier(2)

        def post(i: int) -> None:
            barrier.wait()
            if i == order[1]:
                time.sleep(0.001 * (race % 5))  # the other phone a few ms later (or at once)
            answers[i] = phones[i].request("POST", f"/t/{token}/deals", forms[i])

        threads = [threading.Thread(target=post, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        where = f"race {race} (deal {number}, phone {order[0]} first)"
        # Each phone follows its answer, as a browser does.
        pages = []
        for i, (status, headers, body) in enumerate(answers):
            if status != 303:
                problems.append(f"{where}: phone {i} answered {status}: {unescape(body)[:200]}")
                pages.append(body)
                continue
            path = urllib.parse.urlsplit(headers["Location"]).path
            pages.append(phones[i].request("GET", path)[2])
        stored = len(json.loads(phones[0].request("GET", f"/t/{token}/export.json")[2])["deals"])
        if stored != number:
            problems.append(f"{where}: {stored} deals stored")
        told = [SAME in unescape(page) for page in pages]
        if sorted(told) != [False, True]:
            problems.append(f"{where}: told 'already recorded': {told}")
        for i, page in enumerate(pages):
            form = entry_form(page)
            if f"Enter deal {stored + 1}" not in form or " checked" in form.replace('value="" checked', ""):
                problems.append(f"{where}: phone {i}'s next form is not an empty deal {stored + 1}")
        number = stored + 1
    print(f"{RACES} races without JavaScript in {time.monotonic() - started:.1f} s")
    assert problems == [], problems
