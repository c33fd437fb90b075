"""Two phones entering the same deal at the same moment, and the host laptop being killed
right after it acknowledged a deal: no deal is doubled, none acknowledged is lost."""

from __future__ import annotations

import http.client
import json
import random
import re
import sys
import threading
import time
from html import unescape

import pytest
from helpers import Phone, rwd_form

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


# --- the race ------------------------------------------------------------------------------

@pytest.mark.slow
def test_two_phones_enter_the_same_deal_at_once(live_server):
    rounds = 20
    for round_ in range(rounds):
        a, b = Phone(live_server.port), Phone(live_server.port)
        token = a.create_table("rwd", [f"A{round_}", "B", "C"])
        forms = [rwd_form(a.csrf(f"/t/{token}"), 1, [0, 8, 9], [5, 6, 6]),
                 rwd_form(b.csrf(f"/t/{token}"), 1, [9, 8, 0], [6, 6, 5])]
        barrier = threading.Barrier(2)
        results: list = [None, None]

        def go(i: int, phone: Phone) -> None:
            barrier.wait()
            results[i] = phone.request("POST", f"/t/{token}/deals", forms[i])

        threads = [threading.Thread(target=go, args=(i, p)) for i, p in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        statuses = sorted(r[0] for r in results)
        assert statuses in ([200, 409], [303, 409]), statuses
        loser = next(r for r in results if r[0] == 409)
        assert "already entered from another phone" in unescape(loser[2])
        status, _h, body = a.request("GET", f"/t/{token}/export.json")
        doc = json.loads(body)
        assert len(doc["deals"]) == 1
        winner = 0 if results[0][0] != 409 else 1
        assert doc["deals"][0]["facts"]["chips"] == [int(forms[winner][f"chips-{i}"]) for i in range(3)]


# --- the crash -------------------------------------------------------------------------------

@posix_only
def test_acknowledged_deals_survive_sigkill(server_process):
    # Each player wins two deals: the match (first to 3) never ends.
    deals = [([0, 8, 9], [5, 6, 6]), ([9, 8, 0], [6, 6, 5]), ([8, 0, 9], [6, 5, 6])] * 2
    acknowledged: list[tuple] = []
    phone = Phone(server_process.port)
    token = phone.create_table("rwd", ["山田", "🎲", "Cy"])
    for number, (chips, tricks) in enumerate(deals, start=1):
        form = rwd_form(phone.csrf(f"/t/{token}"), number, chips, tricks)
        status, _headers, body = phone.request("POST", f"/t/{token}/deals", form)
        assert status == 303, (number, re.findall(r'role="alert">([^<]*)<', body))
        acknowledged.append((chips, tricks))
        server_process.kill()  # right after the acknowledgement
        server_process.start()
        phone = Phone(server_process.port)  # a new server means a new session (the secret key may differ)
        status, _h, body = phone.request("GET", f"/t/{token}/export.json")
        assert status == 200
        stored = [(d["facts"]["chips"], d["facts"]["tricks"]) for d in json.loads(body)["deals"]]
        assert stored == [(list(c), list(t)) for c, t in acknowledged]
    assert len(acknowledged) == len(deals)


# --- twenty phones, a thousand deals, the laptop killed at random ---------------------------

CLIENTS, DEALS_EACH, DEALS_PER_TABLE = 20, 50, 8  # 20 x 50 = 1,000 deals
KILL_EVERY = (30, 120)  # acknowledged deals between two kills: 8 to 33 kills in a run
LAST_RESORT_S = 120  # how long a client waits for a killed server to be back (a start takes 1-10 s)


def planned_deal(table_index: int, number: int) -> tuple[list[int], list[int]]:
    """Deal ``number`` of a client's table: the winner rotates (no one reaches the 3 wins that end
    an RWD match within 8 deals) and consecutive deals differ, so a doubled deal would show."""
    winner = (number + table_index) % 4
    chips = [4, 3, 3, 3]
    tricks = [4, 3, 3, 3]
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return chips, tricks


@posix_only
@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the phones are other loopback addresses (127.0.0.10…), as on Linux")
def test_thousand_deals_from_twenty_phones_survive_random_kills(server_process):
    rng = random.Random(20261122)
    done = threading.Event()
    failures: list[str] = []
    acknowledged: list[tuple[str, int, list, list]] = []  # (token, number, chips, tricks) that got a 303
    tables: dict[str, int] = {}  # token -> the client's table index (for its plan)
    lock = threading.Lock()
    kills = 0

    def address(index: int) -> str:
        return f"127.0.0.{10 + index}"  # twenty phones are twenty devices (the fair share is per device)

    def with_retries(action, source: str):
        """Run ``action(phone)`` until it is answered. A server that is down is waited for (the
        killer's start() sets ``up`` once the new one's port answers), however long a loaded machine
        takes to start it; only a server that stays up and keeps failing the same request fails."""
        failed_while_up = 0
        while True:
            generation = server_process.starts
            try:
                return action(Phone(server_process.port, source))
            except (OSError, http.client.HTTPException) as exc:
                error = exc
            # Last resort only: a start takes seconds, a killer that never restarts it forever.
            if not server_process.up.wait(LAST_RESORT_S):
                raise AssertionError(f"the server was not restarted within {LAST_RESORT_S} s: {error!r}")
            if server_process.starts == generation:  # the same server, up all along: its failure
                failed_while_up += 1
                if failed_while_up >= 50:
                    raise AssertionError(f"a running server failed one request 50 times: {error!r}")
                time.sleep(0.02)

    def client(index: int) -> None:
        stored = 0
        table_index = 0
        try:
            while stored < DEALS_EACH:
                # A new table (creation may be cut off by a kill: then just create another).
                token = with_retries(lambda p: p.create_table("rwd", [f"P{index}", "B", "C", "D"]), address(index))
                with lock:
                    tables[token] = table_index
                number, phone, csrf = 1, Phone(server_process.port, address(index)), None
                while number <= DEALS_PER_TABLE and stored < DEALS_EACH:
                    chips, tricks = planned_deal(table_index, number)
                    phone.port = server_process.port  # it moves to a new port after each restart
                    try:
                        csrf = csrf or phone.csrf(f"/t/{token}")
                        status, _h, body = phone.request("POST", f"/t/{token}/deals",
                                                         rwd_form(csrf, number, chips, tricks))
                    except (OSError, http.client.HTTPException, AssertionError):
                        status = None  # killed mid-request: did it land? Ask the table.
                    if status == 400:  # the security check failed: fetch a fresh form, as a phone would
                        csrf = None
                        continue
                    if status == 303:
                        with lock:
                            acknowledged.append((token, number, chips, tricks))
                    elif status not in (None, 409):  # 409: our own earlier, cut-off attempt landed
                        raise AssertionError(f"deal {number}: {status} {re.findall(r'role=.alert.>([^<]*)<', body)}")
                    if status != 303:
                        _s, _h, body = with_retries(lambda p: p.request("GET", f"/t/{token}/export.json"),
                                                    address(index))
                        if len(json.loads(body)["deals"]) < number:
                            continue  # not stored: enter it again
                    number += 1
                    stored += 1
                table_index += 1
        except BaseException as exc:  # report from the thread
            failures.append(f"client {index}: {exc!r}")

    def killer() -> None:
        nonlocal kills
        # After a random count of acknowledged deals, not a random time: twenty phones always have
        # requests in flight, so each kill cuts some off, and a slow (loaded) machine still stores
        # deals between two kills instead of being killed before it answers anyone.
        next_kill = rng.randint(*KILL_EVERY)
        while not done.wait(0.01):
            with lock:
                progress = len(acknowledged)
            if progress >= next_kill:
                server_process.kill()
                kills += 1
                server_process.start()
                next_kill = progress + rng.randint(*KILL_EVERY)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    chaos = threading.Thread(target=killer)
    for t in threads:
        t.start()
    chaos.start()
    for t in threads:
        t.join()  # each client ends by itself: its deals stored, or its failure reported
    done.set()
    chaos.join()
    assert not failures, failures[:5]
    assert kills >= 3, "the server was hardly killed: the test proves little"

    # Every table holds exactly its client's plan, in order, with nothing doubled or lost.
    phone = Phone(server_process.port)
    total = 0
    stored_by_table = {}
    for token, table_index in tables.items():
        status, _h, body = phone.request("GET", f"/t/{token}/export.json")
        assert status == 200
        deals = json.loads(body)["deals"]
        assert len(deals) <= DEALS_PER_TABLE
        for record in deals:
            chips, tricks = planned_deal(table_index, record["number"])
            assert (record["facts"]["chips"], record["facts"]["tricks"]) == (chips, tricks), (token, record["number"])
        stored_by_table[token] = deals
        total += len(deals)
    for token, number, chips, tricks in acknowledged:
        assert number <= len(stored_by_table[token]), f"acknowledged deal {number} of {token} was lost"
    assert total == CLIENTS * DEALS_EACH
    assert len(acknowledged) >= total * 0.8  # most entries were acknowledged, not found afterwards
