"""Requests for one name are one line (issue 44 item 3): 400 addresses asking for one owned name
put 400 lines on the hall (215 KB, 54-111 ms a render), and two requests looked the same ("Another
phone asks to be Ann (at 20:12)" twice). Now one entry per name: how many phones ask, the latest
five with what tells them apart (browser and system, address, when), each its own Allow, and
"Refuse all"."""

from __future__ import annotations

import re

from companion.night import claims
from helpers import text_of
from table_writes import done

ANDROID_CHROME = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.0.0 Mobile Safari/537.36")
IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                 "Version/17.5 Mobile/15E148 Safari/604.1")


def test_four_hundred_phones_asking_for_one_name_are_one_entry(client, conn):
    ann = done(claims.join_as(conn, "owner", "10.0.0.1", name="Ann"))
    for n in range(400):
        done(claims.join_as(conn, f"asker-{n}", f"10.1.{n // 250}.{n % 250 + 1}", name="ann",
                            user_agent=IPHONE_SAFARI if n % 2 else ANDROID_CHROME))
    board = client.get("/hall/board").get_data(as_text=True)
    assert len(board) < 60_000  # was 215 KB
    text = text_of(board)
    assert "Ann: 400 phones ask" in text and "and 395 more, older" in text
    assert len(re.findall(r'action="/hall/claims/\d+"', board)) == 5  # the latest five, each its own Allow
    assert "Safari on iPhone" in text and "Chrome on Android" in text and "10.1.1.150" in text
    refused = client.post(f"/hall/claims/refuse-all/{ann.id}")
    assert refused.status_code == 303 and claims.waiting(conn) == []
    assert "phones ask" not in text_of(client.get("/hall/board").get_data(as_text=True))


def test_a_made_up_user_agent_tells_nothing_and_breaks_nothing(client, conn):
    done(claims.join_as(conn, "owner", "10.0.0.1", name="Bo"))
    done(claims.join_as(conn, "asker", "10.0.0.2", name="Bo", user_agent="<script>x</script>" * 50))
    board = client.get("/hall/board").get_data(as_text=True)
    assert "Bo: 1 phone asks" in text_of(board) and "<script>x" not in board
