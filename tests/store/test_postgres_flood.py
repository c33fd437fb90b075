"""A flood of live asks can't take the club's database from anyone else (issue 46). PostgreSQL
has a fixed number of connections for every laptop, worker and backup on it; phones asking
laptop A's live URLs from 8 addresses over many connections held up to 99 of its 100, so laptop B
could not start ("too many clients") and `companion backup` failed in 2 of 4 runs. Each server
process now holds at most --db-connections of them (companion/store/connection.py's pool)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time

import pytest

from helpers import REPO_ROOT, Phone, enter_deals
from store.test_postgres_servers import serve, stop
from store.throwaway_postgres import ThrowawayPostgres, missing_reason

pytestmark = pytest.mark.slow  # its own PostgreSQL server and three `companion serve` processes

MAX_CONNECTIONS = 20
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 10)]  # 8 phones' addresses (127.0.0.1 is the laptop)
CONNECTIONS = 30  # per address


@pytest.fixture(scope="module")
def small_postgres():
    reason = missing_reason()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL tests can't run: {reason}; CI must install it (.ci/run)", pytrace=False)
        pytest.skip(f"no PostgreSQL here: {reason}")
    server = ThrowawayPostgres(max_connections=MAX_CONNECTIONS).start()
    try:
        yield server
    finally:
        server.stop()


class Flood:
    """Phones asking one table's live URL as fast as they are answered: ``CONNECTIONS`` keep-alive
    connections from each of ``ADDRESSES``, in a thread of their own (an asyncio loop)."""

    def __init__(self, port: int, token: str):
        self.port, self.token = port, token
        self.answers: dict[int, int] = {}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self.run()), daemon=True)

    def __enter__(self) -> "Flood":
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.stopping.set()
        self.thread.join(30)

    def answered(self) -> int:
        return sum(self.answers.values())

    async def run(self) -> None:
        await asyncio.gather(*(self.asker(source) for source in ADDRESSES for _ in range(CONNECTIONS)))

    async def asker(self, source: str) -> None:
        ask = (f"GET /t/{self.token}/live?rev=0 HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n").encode()
        writer = None
        while not self.stopping.is_set():
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(source, 0))
                writer.write(ask)
                status = int((await asyncio.wait_for(reader.readline(), 15)).split()[1])
                length = 0
                while (line := await asyncio.wait_for(reader.readline(), 15)) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await asyncio.wait_for(reader.readexactly(length), 15)
                self.answers[status] = self.answers.get(status, 0) + 1
            except (OSError, ValueError, IndexError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                self.answers[0] = self.answers.get(0, 0) + 1
                if writer is not None:
                    writer.close()
                writer = None
                await asyncio.sleep(0.05)
        if writer is not None:
            writer.close()


def backup(url: str, target) -> subprocess.CompletedProcess:
    env = dict(os.environ, COMPANION_DB=url,
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-m", "companion.cli", "backup", str(target)], env=env,
                          capture_output=True, text=True, timeout=120)


def connections_to(server: ThrowawayPostgres, url: str) -> int:
    import psycopg
    from urllib.parse import urlsplit

    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                            (urlsplit(url).path.lstrip("/"),)).fetchone()[0]


def test_a_flood_of_live_asks_on_one_laptop_leaves_the_database_to_another_laptop_and_to_backups(small_postgres,
                                                                                                  tmp_path):
    from companion.store import migrate

    url = small_postgres.new_database()
    migrate(url)
    # 3 connections a process (and its lock's and change relay's): laptop A's two workers, laptop B,
    # a backup and this test's look at pg_stat_activity fit in 20.
    laptop_a, port_a = serve(url, tmp_path / "a.log", "--workers", "2", "--db-connections", "3")
    laptop_b = None
    try:
        token = Phone(port_a).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        with Flood(port_a, token) as flood:
            deadline = time.monotonic() + 30
            while flood.answered() < 2000:  # the flood is on: its asks reach both workers
                assert time.monotonic() < deadline, flood.answers
                time.sleep(0.1)
            laptop_b, port_b = serve(url, tmp_path / "b.log", "--db-connections", "3")  # starts and serves
            enter_deals(port_b, token, [1])
            status, _headers, body = Phone(port_b, "127.0.0.20").request("GET", f"/t/{token}/export.json")
            assert status == 200 and body.count('"number"') == 1
            for number in range(3):
                made = backup(url, tmp_path / f"during-{number}.dump")
                assert made.returncode == 0, made.stderr
            assert connections_to(small_postgres, url) <= MAX_CONNECTIONS - 1
            assert flood.answers.get(500, 0) == 0, flood.answers
            print(f"the flood's answers by status while B started and 3 backups ran: {flood.answers}")
    finally:
        if laptop_b is not None:
            stop(laptop_b)
        stop(laptop_a)
    log = (tmp_path / "a.log").read_text(errors="replace")
    assert "Traceback" not in log and "too many clients" not in log, log[-3000:]
