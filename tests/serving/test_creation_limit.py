"""Table creation limited per device, and a hall bounded however many tables a night has
(issue 23, item 4: one device opened 15,946 tables in 20 s; the hall board then took 2.6 s a
render and weighed 12 MB).

- a device may open 10 tables at once, then one every 3 s; past that the form answers 429 with
  Retry-After, says so by the button and keeps every name typed; other devices and the laptop
  are unaffected (against the real `companion serve`, devices as 127.0.0.x addresses);
- the night's tables are the organiser's (prepared, drawn), rematches, and tables once played:
  a table a phone opened and never played is not on the hall board;
- past 48 tables the board shows the 48 most recently changed, and pages to the rest."""

from __future__ import annotations

import re
import sys
import time
import urllib.parse
from html import unescape

import pytest

from companion.night import service as night
from companion.tables import service as store
from companion.serving.limits import DeviceLimits, Rate
from helpers import rwd_facts
from helpers import Phone  # noqa: E402
import table_writes

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="other devices are other loopback addresses (127.0.0.2…), as on Linux")


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_one_every_few_seconds_per_device():
    clock = FakeClock()
    limits = DeviceLimits({"tables": Rate(burst=10, per_s=1 / 3.0)}, clock=clock)

    class limit:  # noqa: N801  (the rule's own view of the one map)
        take = staticmethod(lambda device: limits.take(device, "tables"))

    assert [limit.take("A") for _ in range(10)] == [0] * 10
    assert limit.take("A") == 3  # the eleventh at once: wait 3 s
    assert limit.take("B") == 0  # another device: its own bucket
    clock.now += 2.0
    assert limit.take("A") == 1  # 2 of the 3 s gone
    clock.now += 1.0
    assert limit.take("A") == 0 and limit.take("A") == 3
    clock.now += 3600
    assert [limit.take("A") for _ in range(10)] == [0] * 10  # a full burst again, never more
    assert limit.take("A") > 0


def test_forgets_the_oldest_devices_past_its_bound():
    limits = DeviceLimits({"tables": Rate(burst=1, per_s=1 / 60.0)}, devices=100, clock=FakeClock())
    for n in range(1000):
        assert limits.take(f"10.0.{n // 256}.{n % 256}", "tables") == 0
    assert len(limits.seen) == 100


def create_form(phone: Phone, names: list[str]) -> dict:
    status, _h, page = phone.request_once("GET", f"/tables/new?game=rwd&players={len(names)}")
    assert status == 200
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    return {"csrf_token": csrf, "game": "rwd", "players": str(len(names)),
            **{f"name-{i}": name for i, name in enumerate(names)}}


@linux_only
def test_one_device_opening_tables_fast_is_told_to_wait_and_keeps_what_it_typed(server_process):
    flooder = Phone(server_process.port, "127.0.0.2")
    form = create_form(flooder, ["Ann", "Bo", "Cy"])
    statuses = []
    for _ in range(30):  # bounded: 30 tries, the limit must show well before
        status, headers, body = flooder.request_once("POST", "/tables", form)
        statuses.append(status)
        if status != 303:
            break
    assert statuses[:10] == [303] * 10, statuses
    assert status == 429, statuses
    wait = int(headers["Retry-After"])
    assert 1 <= wait <= 3
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).split())
    assert "This device opened many tables in a short time." in text
    assert f"Wait {wait} second" in text
    for name in ("Ann", "Bo", "Cy"):  # nothing typed lost
        assert f'value="{name}"' in body
    # Another phone, and the laptop itself, open theirs at once.
    other = Phone(server_process.port, "127.0.0.3")
    assert other.request_once("POST", "/tables", create_form(other, ["Di", "Ed", "Flo"]))[0] == 303
    laptop = Phone(server_process.port)
    assert laptop.request_once("POST", "/tables", create_form(laptop, ["Gus", "Hal", "Ivy"]))[0] == 303
    # Once the wait is over, the same form opens the table.
    time.sleep(wait)
    status, headers, _ = flooder.request_once("POST", "/tables", form)
    assert status == 303, status
    assert flooder.request_once("POST", "/tables", form)[0] == 429  # and only one


@linux_only
def test_a_flood_leaves_the_hall_board_as_it_was(server_process):
    """Ten seconds of one device opening tables as fast as it can: a dozen or so opened, none of
    them on the hall board (never played), which still answers at once."""
    laptop = Phone(server_process.port)
    before = laptop.request_once("GET", "/hall/board")
    assert before[0] == 200
    flooder = Phone(server_process.port, "127.0.0.2")
    form = create_form(flooder, ["X", "Y", "Z"])
    opened, refused = 0, 0
    deadline = time.monotonic() + 10
    for _ in range(2000):  # bounded in count and time
        if time.monotonic() > deadline:
            break
        status = flooder.request_once("POST", "/tables", form)[0]
        opened += status == 303
        refused += status == 429
        assert status in (303, 429)
    assert 10 <= opened <= 10 + 10 // 3 + 1, opened
    assert refused > 0
    after = laptop.request_once("GET", "/hall/board")
    assert after[0] == 200
    assert after[2].count('class="hall-table') == before[2].count('class="hall-table') == 0


def rwd_table(conn, names, numbered: bool = False) -> str:
    """An RWD table a phone opens (``numbered``: the laptop, so one of tonight's at once)."""
    return table_writes.create(conn, "rwd", names, {}, numbered=numbered)


def play(conn, token: str) -> None:
    table = store.load(conn, token)
    table_writes.add_deal(conn, token, 1, rwd_facts(table.progress()))


def board_tables(client, path="/hall/board") -> list[str]:
    return re.findall(r'id="hall-table-(\d+)"', client.get(path).get_data(as_text=True))


def test_the_nights_tables_are_the_organisers_and_those_played(client, conn):
    phone_table = rwd_table(conn, ["Ann", "Bo", "Cy", "Di"])
    assert board_tables(client) == []  # opened by a phone, never played: not the night's
    assert client.post("/hall/prepare", data={"game": "rwd", "players": "4", "count": "2"}).status_code == 303
    prepared = board_tables(client)
    assert len(prepared) == 2  # the organiser's: shown while waiting for players
    play(conn, phone_table)
    # Played, a phone's table is a side table (issue 33): tonight's once the organiser adds it.
    table_id = store.load(conn, phone_table).id
    assert len(board_tables(client)) == 2 and len(night.night_tables(conn)) == 2
    assert client.post(f"/hall/tables/{table_id}/add").status_code == 303
    shown = board_tables(client)
    assert str(table_id) in shown and len(shown) == 3
    assert len(night.night_tables(conn)) == 3
    # ...and it is in the night's exports
    assert "Ann" in client.get("/hall/export.csv").get_data(as_text=True)


def test_the_board_shows_the_48_most_recently_changed_and_pages_to_the_rest(client, conn):
    tokens = []
    for n in range(60):
        tokens.append(rwd_table(conn, [f"A{n}", f"B{n}", f"C{n}", f"D{n}"], numbered=True))
        play(conn, tokens[-1])
    ids = [store.load(conn, t).id for t in tokens]
    first = client.get("/hall/board").get_data(as_text=True)
    shown = [int(i) for i in re.findall(r'id="hall-table-(\d+)"', first)]
    assert shown == ids[12:]  # the 48 most recently changed, in the order they were opened
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", first)).split())
    assert "Page 1 of 2: 48 of tonight's 60 tables, the most recently changed first." in text
    assert "/hall?page=2#board" in first
    second = [int(i) for i in re.findall(r'id="hall-table-(\d+)"', client.get("/hall?page=2").get_data(as_text=True))]
    assert second == ids[:12]
    # the board's own refresh keeps its page
    assert 'hx-get="/hall/board?rev=' in client.get("/hall?page=2").get_data(as_text=True).replace("&amp;", "&")
    assert "page=2" in re.search(r'hx-get="(/hall/board[^"]*)"', client.get("/hall?page=2").get_data(as_text=True)).group(1)
    # A deal at an early table brings it to page 1 (the store's order of changes, not the clock)
    table = store.load(conn, tokens[0])
    table_writes.add_deal(conn, tokens[0], 2, rwd_facts(table.progress()))
    shown = [int(i) for i in re.findall(r'id="hall-table-(\d+)"', client.get("/hall/board").get_data(as_text=True))]
    assert ids[0] in shown and ids[12] not in shown and len(shown) == 48
    # a page past the last is the last; a silly one the first
    assert len(board_tables(client, "/hall?page=99")) == 12
    assert len(board_tables(client, "/hall?page=x")) == 48
    # the hall page's weight no longer grows with the night
    assert len(client.get("/hall").get_data()) < 400_000


def test_a_refused_form_does_not_count(client):
    """Fixing a refused name (an empty seat) twenty times over costs none of the ten tables."""
    device = {"REMOTE_ADDR": "127.0.0.7"}
    bad = {"game": "rwd", "players": "3", "name-0": "Ann", "name-1": "", "name-2": "Cy"}
    for _ in range(20):
        assert client.post("/tables", data=bad, environ_base=device).status_code == 422
    good = dict(bad, **{"name-1": "Bo"})
    assert [client.post("/tables", data=good, environ_base=device).status_code for _ in range(11)] == [303] * 10 + [429]
