"""Issue 32 (a security review from the Wi-Fi), against the real `companion serve`; devices are
127.0.0.x source addresses (the laptop itself is 127.0.0.1), as in the other serve tests.

1. A finished match can't be rewritten by a phone that walked the players' pages: they link to a
   read-only record, and a phone that first opens the table's link after the match ended reads
   it and changes nothing (403); the table's own phone still can.
2. Another phone asking for a name on tonight's list waits for the organiser, who allows it on
   the laptop; the name (and its table) then moves to the new phone.
3. A player the organiser removed stays removed until the organiser adds them.
4. One device joins at most four names; the organiser removes many names in one action.
"""

from __future__ import annotations

import json
import re
import sys
import urllib.parse

import pytest

from companion.night.claims import MAX_NAMES_PER_DEVICE
from helpers import text_of
from helpers import Phone, rwd_form

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="other devices are other loopback addresses (127.0.0.2…), as on Linux")

TOKEN_LINK = re.compile(r'/t/([A-Za-z0-9_-]{16,64})')


def csrf_from(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def one_deal_table(phone: Phone, names: list[str]) -> str:
    """An RWD table of one deal (the whole match), opened from ``phone``."""
    csrf = phone.csrf(f"/tables/new?game=rwd&players={len(names)}")
    form = {"csrf_token": csrf, "game": "rwd", "players": str(len(names)), "length": "1",
            **{f"name-{i}": name for i, name in enumerate(names)}}
    status, headers, body = phone.request("POST", "/tables", form)
    assert status == 303, body[:500]
    return urllib.parse.urlsplit(headers["Location"]).path.rsplit("/", 1)[-1]


def table_json(phone: Phone, token: str) -> dict:
    status, _h, body = phone.request("GET", f"/t/{token}/export.json")
    assert status == 200
    return json.loads(body)


def test_a_finished_match_stays_with_its_table(server_process):
    port = server_process.port
    laptop, at_table, stranger = Phone(port), Phone(port, "127.0.0.2"), Phone(port, "127.0.0.5")
    token = one_deal_table(at_table, ["Ann", "Bo", "Cy"])
    page = at_table.request("GET", f"/t/{token}")[2]  # the table's phone has it open while it runs
    status, _h, body = at_table.request("POST", f"/t/{token}/deals", rwd_form(csrf_from(page), 1, [0, 8, 9], [5, 6, 6]))
    assert status == 303, body[:500]
    assert table_json(laptop, token)["over"] is True
    # A phone's table is a side table: the organiser counts it (issue 43), so the players' pages list it.
    hall = laptop.request("GET", "/hall")[2]
    (added,) = re.findall(r'action="(/hall/tables/\d+/add)"', hall)
    assert laptop.request("POST", added, {"csrf_token": csrf_from(hall)})[0] == 303

    # The stranger walks every player's page and the season table: no table's link anywhere,
    # a read-only record of the match instead.
    seen, records = "", set()
    for path in ["/season"] + [f"/players/{pid}" for pid in range(1, 8)]:
        status, _h, body = stranger.request("GET", path)
        assert status in (200, 404), (path, status)
        seen += body
        records |= set(re.findall(r'href="(/matches/\d+)"', body))
    assert token not in seen and not TOKEN_LINK.search(seen)
    assert records, "the players' pages link to the match's record"
    for record in records:
        status, _h, body = stranger.request("GET", record)
        assert status == 200
        assert token not in body and 'method="post"' not in body.replace('action="/lang', "")
        assert "Ann" in text_of(body) and "Deal" in text_of(body)

    # With the link anyway (read over a shoulder), the stranger reads the match and changes nothing.
    status, _h, page = stranger.request("GET", f"/t/{token}")
    assert status == 200
    assert "Undo deal 1" not in page and "Correct deal 1" not in page and f"/t/{token}/undo" not in page
    assert "had ended when this phone first opened it" in text_of(page)
    assert 'method="post"' not in page  # no form at all: not even Rematch
    csrf = stranger.csrf("/tables/new?game=rwd&players=3")  # the session's token, from any form
    for path, form in ((f"/t/{token}/undo", {"number": "1"}), (f"/t/{token}/finish", {"finished": "0"}),
                       (f"/t/{token}/deals/1", {"was": "x", **rwd_form("", 1, [9, 8, 0], [6, 6, 5])})):
        status, _h, body = stranger.request("POST", path, {**form, "csrf_token": csrf})
        assert status == 403, (path, status, body[:300])
        assert "had ended when this phone first opened it" in text_of(body)
    assert stranger.request("GET", f"/t/{token}/deals/1/edit")[0] == 403
    after = table_json(laptop, token)
    assert after["over"] is True and len(after["deals"]) == 1 and after["deals"][0]["facts"]["chips"] == [0, 8, 9]

    # The table's own phone may still undo a mistake (within 30 minutes of the end), as may the laptop.
    status, _h, page = at_table.request("GET", f"/t/{token}")
    assert "Undo deal 1" in page
    status, _h, _body = at_table.request("POST", f"/t/{token}/undo", {"number": "1", "csrf_token": csrf_from(page)})
    assert status == 303
    assert table_json(laptop, token)["deals"] == []


def join(phone: Phone, **form: str) -> tuple[int, str]:
    """A phone joins tonight (``name=`` typed or ``player=`` tapped); (status, where it is sent)."""
    status, headers, body = phone.request("POST", "/night/join", {"csrf_token": csrf_of_night(phone), **form})
    return status, headers.get("Location", body)


def csrf_of_night(phone: Phone) -> str:
    status, _h, body = phone.request("GET", "/night")
    assert status in (200, 303)
    if status == 303:
        body = phone.request("GET", "/night/me")[2]
    return csrf_from(body)


def laptop_post(laptop: Phone, path: str, form: dict) -> tuple[int, dict, str]:
    csrf = csrf_from(laptop.request("GET", "/hall")[2])
    return laptop.request("POST", path, {"csrf_token": csrf, **form})


def roster(laptop: Phone) -> dict[str, dict]:
    status, _h, body = laptop.request("GET", "/hall/export.json")
    assert status == 200
    return {p["name"]: p for p in json.loads(body)["roster"]}


def test_a_name_on_tonights_list_stays_with_its_phone(server_process):
    port = server_process.port
    laptop, ann_phone, stranger = Phone(port), Phone(port, "127.0.0.2"), Phone(port, "127.0.0.5")
    assert join(ann_phone, name="Ann")[1].endswith("/night/me")
    for name in ("Bo", "Cy"):
        assert laptop_post(laptop, "/hall/players", {"name": name})[0] == 303
    assert laptop_post(laptop, "/hall/rounds", {"draw": "1", "offer-rwd": "1"})[0] == 303
    ann_page = ann_phone.request("GET", "/night/me")[2]
    (ann_table,) = set(TOKEN_LINK.findall(ann_page))  # her table, one tap away
    ann = roster(laptop)["Ann"]

    # The stranger taps her name, then types it: asked to wait, never given her page or table.
    assert f'value="{ann["id"]}"' in stranger.request("GET", "/night")[2]
    for form in ({"player": str(ann["id"])}, {"name": "ann"}):
        status, where = join(stranger, **form)
        assert status == 303 and where.endswith("/night"), (status, where)
        status, _h, page = stranger.request("GET", "/night")
        assert status == 200 and "Waiting for the organiser" in text_of(page)
        assert ann_table not in page
        me = stranger.request("GET", "/night/me")
        assert me[0] == 303 and ann_table not in me[2]
    assert ann_table not in stranger.request("GET", "/night/me/summary")[2]
    assert "Ann" in text_of(ann_phone.request("GET", "/night/me")[2])  # still hers

    # The organiser sees the request on the laptop and allows it (Ann's phone died, say).
    hall = laptop.request("GET", "/hall")[2]
    assert "Ann: 1 phone asks" in text_of(hall)
    (answer,) = re.findall(r'action="(/hall/claims/\d+)"', hall)
    assert stranger.request("POST", answer, {"csrf_token": csrf_of_night(stranger), "action": "allow"})[0] == 403
    assert laptop_post(laptop, answer, {"action": "allow"})[0] == 303
    assert stranger.request("GET", "/night")[1]["Location"].endswith("/night/me")
    page = stranger.request("GET", "/night/me")[2]
    assert "Ann" in text_of(page) and ann_table in page
    assert ann_phone.request("GET", "/night/me")[0] == 303  # the old phone is no longer Ann's


def test_a_removed_player_stays_removed_until_the_organiser_adds_them(server_process):
    port = server_process.port
    laptop, bob_phone, other = Phone(port), Phone(port, "127.0.0.2"), Phone(port, "127.0.0.6")
    assert join(bob_phone, name="Bob")[1].endswith("/night/me")
    bob = roster(laptop)["Bob"]
    assert laptop_post(laptop, f"/hall/players/{bob['id']}", {"action": "remove"})[0] == 303
    for phone, form in ((other, {"player": str(bob["id"])}), (other, {"name": "bob"}), (bob_phone, {"name": "Bob"})):
        status, _h, body = phone.request("POST", "/night/join", {"csrf_token": csrf_of_night(phone), **form})
        assert status == 422, (form, status)
        assert "The organiser took “Bob” off tonight's list" in text_of(body)
        assert roster(laptop)["Bob"]["left"] is True
    assert other.request("GET", "/night/me")[0] == 303
    # The organiser adds him again: back, and his own phone is his again.
    assert laptop_post(laptop, "/hall/players", {"name": "Bob"})[0] == 303
    assert roster(laptop)["Bob"] == dict(bob, left=False)
    assert "Bob" in text_of(bob_phone.request("GET", "/night/me")[2])


def test_one_device_joins_a_few_names_and_the_organiser_removes_many_at_once(server_process):
    port = server_process.port
    laptop = Phone(port)
    outcomes = []
    for n in range(30):  # one device, as fast as it can; a fresh cookie jar every time
        flooder = Phone(port, "127.0.0.9")
        status, _h, body = flooder.request("POST", "/night/join", {"csrf_token": csrf_of_night(flooder),
                                                                   "name": f"Bot {n}"})
        outcomes.append(status)
        if status != 303:
            assert f"This phone has already joined {MAX_NAMES_PER_DEVICE} names tonight" in text_of(body)
    assert outcomes == [303] * MAX_NAMES_PER_DEVICE + [422] * (30 - MAX_NAMES_PER_DEVICE)
    assert len(roster(laptop)) == MAX_NAMES_PER_DEVICE
    # A real player still joins from their own phone.
    assert join(Phone(port, "127.0.0.10"), name="Dana")[1].endswith("/night/me")
    # The organiser ticks the four and removes them with one button.
    hall = laptop.request("GET", "/hall")[2]
    assert 'id="remove-many"' in hall
    bots = [p["id"] for name, p in roster(laptop).items() if name.startswith("Bot")]
    ticked = [("csrf_token", csrf_from(hall))] + [("player", str(i)) for i in bots]  # one field, many values
    assert laptop.request("POST", "/hall/players/remove", ticked)[0] == 303
    assert {name: p["left"] for name, p in roster(laptop).items()} == {
        **{f"Bot {n}": True for n in range(MAX_NAMES_PER_DEVICE)}, "Dana": False}

