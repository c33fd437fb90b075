"""The club's PostgreSQL stops mid-night and comes back (issue 46), on a real phone (headless
Chromium from its own loopback address) and a real `companion serve --workers 2` on a throw-away
PostgreSQL:
a deal saved meanwhile gets the table page's own refusal ("The club's database isn't
answering…") and is kept in the phone's outbox; /readyz says 503; once PostgreSQL is back the
outbox sends it by itself, the deal is stored exactly once, nothing answers 5xx, /readyz 200."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from helpers import Phone
from store.test_postgres_servers import serve, stop
from tests.browser.test_outbox_browser import (NOT_SENT, STREAM_OPEN, deal, facts_of, open_table, outbox_item,
                                               stored, tap_save, type_deal, wait_stored)

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # real servers, PostgreSQL, a mounted disk

AWAY = "The club's database isn't answering, so this was not saved."


def ready(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_a_deal_saved_while_postgresql_is_stopped_is_kept_and_arrives_once_when_it_is_back(
        postgres_server, postgres_database, phone, tmp_path, artifacts_dir):
    server, port = serve(postgres_database, tmp_path / "serve.log", "--workers", "2")  # each worker reconnects
    try:
        token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
        open_table(phone, port, token)
        phone.wait_for_function(STREAM_OPEN)
        type_deal(phone, deal(1))  # mid-night: a deal already stored
        tap_save(phone)
        wait_stored(port, token, 1, within=10)
        expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")
        assert ready(port) == 200

        postgres_server.stop_serving()
        try:
            assert ready(port) == 503
            type_deal(phone, deal(2))
            tap_save(phone)
            item = outbox_item(phone, 2)
            expect(item).to_contain_text(NOT_SENT.format(n=2), timeout=10000)
            expect(item).to_contain_text(AWAY)  # the table page's own refusal, in the outbox
            expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")  # entry goes on
            expect(phone.locator("main#main")).to_have_count(1)  # no second page swapped into this one
            phone.screenshot(path=str(artifacts_dir / "postgres-outage-kept.png"), full_page=True)
            assert ready(port) == 503
        finally:
            postgres_server.start_serving()
        back, back_at_ms = time.monotonic(), time.time() * 1000
        failures: list[str] = []

        def failed(answer) -> None:  # a 5xx to a request the phone sent once PostgreSQL was back
            sent_at = answer.request.timing["startTime"]
            if answer.status >= 500 and sent_at >= back_at_ms:
                failures.append(f"{answer.status} {answer.url} sent {sent_at - back_at_ms:.0f} ms after")

        phone.on("response", failed)

        took = wait_stored(port, token, 2, within=20)  # no tap: the outbox sends it by itself
        expect(outbox_item(phone, 2)).to_have_count(0, timeout=10000)
        phone.wait_for_selector("#deal-2", timeout=10000)
        print(f"PostgreSQL back -> deal 2 stored: {took:.2f} s")
        deadline = time.monotonic() + 20
        while ready(port) != 200:  # the change relay listens again within a few seconds
            assert time.monotonic() < deadline, "/readyz never said ready again"
            time.sleep(0.1)
        assert phone.evaluate("window.tableOutbox.all()") == []  # nothing left to send again
        assert [d["facts"] for d in stored(port, token)] == [facts_of(deal(1)), facts_of(deal(2))]  # exactly once
        assert failures == [], failures
        assert time.monotonic() - back < 60
        log = (tmp_path / "serve.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]
    finally:
        stop(server)


KEPT = "The host laptop could not save this: its disk may be full or its database read-only."


def test_a_deal_saved_on_a_full_disk_is_kept_and_arrives_once_when_there_is_room(tmp_path, request, phone,
                                                                                  artifacts_dir):
    """SQLite's counterpart (issue 46: "the same outbox behaviour for SQLite on a full disk"):
    `companion serve` with its database on a small filesystem of its own (tmpfs, mounted here),
    filled to its last byte mid-night. A phone's deal is refused in the table page's own words and
    kept in its outbox; once there is room again it is sent by itself and stored once."""
    from helpers import ServerProcess
    from store.test_start_full_filesystem import fill, mounted

    disk = mounted("tmpfs", tmp_path, request)
    server = ServerProcess(disk / "club.sqlite", tmp_path / "serve.log")
    server.start()
    try:
        port = server.port
        token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
        open_table(phone, port, token)
        phone.wait_for_function(STREAM_OPEN)
        type_deal(phone, deal(1))
        tap_save(phone)
        wait_stored(port, token, 1, within=10)
        expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")

        filler = fill(disk)
        type_deal(phone, deal(2))
        tap_save(phone)
        item = outbox_item(phone, 2)
        expect(item).to_contain_text(NOT_SENT.format(n=2), timeout=10000)
        expect(item).to_contain_text(KEPT)
        expect(item).to_contain_text("kept on this phone and sent by itself")
        expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")
        expect(phone.locator("main#main")).to_have_count(1)
        phone.screenshot(path=str(artifacts_dir / "full-disk-kept.png"), full_page=True)
        assert len(stored(port, token)) == 1

        filler.unlink()  # room again
        failures: list[str] = []
        phone.on("response", lambda answer: failures.append(f"{answer.status} {answer.url}")
                 if answer.status >= 500 else None)
        wait_stored(port, token, 2, within=20)  # no tap
        expect(outbox_item(phone, 2)).to_have_count(0, timeout=10000)
        phone.wait_for_selector("#deal-2", timeout=10000)
        assert phone.evaluate("window.tableOutbox.all()") == []
        assert [d["facts"] for d in stored(port, token)] == [facts_of(deal(1)), facts_of(deal(2))]
        assert failures == [], failures
    finally:
        server.stop()
