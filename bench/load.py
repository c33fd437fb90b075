"""Load test: N tables x 6 phones keeping their scoresheet live, plus a trickle of deal entries.

Starts `companion serve` on 127.0.0.1 (loopback only), creates the tables, then runs
simulated phones with a small asyncio HTTP/1.1 client (keep-alive, like a browser):

- every phone polls /t/<token>/live?rev=N every POLL seconds, as the page does;
- one phone per table enters a deal every ENTRY seconds on average (RWD, 4 players);
- a "probe" client hits /healthz (trivial endpoint) at the same rate as the entries.

Reports p50/p99 of the live check, of a deal entry and of the trivial endpoint, the
entry/trivial ratio (same server, same run), errors, and the server's memory.

    python3 bench/load.py --tables 100 --seconds 30 --runs 3
    python3 bench/load.py --knee            # find where p99 of the live check crosses 50 ms

Push mode (issue 12), what the pages do today:

    python3 bench/load.py --push --tables 256 --entry-every 30 --seconds 60 --runs 1
    python3 bench/load.py --push --knee      # where delivery p99 crosses 100 ms

- every phone holds its table's event stream (/t/<token>/events?rev=R), opened once, as the
  page's #live-stream (templates/_live_stream.html) is; on "changed" for a revision
  it does not show it fetches /t/<token>/live?rev=R&form=N on its keep-alive connection (its
  partial, as static/live.js has the page do), and keeps the stream; every 30 s it makes the
  fallback check (a 204);
- one phone per table (also streaming) enters a deal every ENTRY seconds on average;
- each phone records when each change reached it: delivery = the phone has the partial
  with that revision, measured from the moment the save's answer arrived (same clock).

Reports p50/p99 of deal entry, of one phone's delivery and of "all 6 phones of the table
have it", errors, missed deliveries, the server's memory, and what each change cost the
phones while measuring: partials fetched and streams opened per change and phone (the page's
target: 1 partial, 0 streams), and the fallback checks per phone and minute (the 30 s timer).

``--scrape-metrics`` (issue 46): a monitor at its own address, given to serve as --metrics-from, reads
/metrics every 2 s while the phones are measured; it fails unless every figure is in every scrape
and a phone is refused (403), and reports what moved: saves, pushes delivered per change, streams.

Every phone has its own loopback address (127.0.0.2 and up), as a venue's phones are devices
of their own to the laptop (the link guard trusts 127.0.0.1, the fair share counts per device).

The guard before touching serving, store or table pages (see docs/developing.md, "The load guard"):

    python3 bench/load.py --quick                  # 64 tables, 10 s, against the last commit, as ratios
    python3 bench/load.py --quick --checkout b3b6c79
    python3 bench/load.py --push --tables 64 --py-spy /tmp/server.raw   # where the server's time goes

Each run also times deal entries against /healthz on the idle server first ("quiet"),
where both pay the same HTTP cost, so that ratio shows the app's own work.

Behind a reverse proxy (issue 46), what a club's server does:

    python3 bench/load.py --push --tables 256 --runs 3 --via-nginx

runs the same load straight at the server and through Debian's nginx (the config of
docs/club-server.md, bench/nginx.py: it connects from its own loopback address, which the server
trusts with --trusted-proxy; the tables are opened on the laptop, straight), alternating, each run
in its own client process, and reports both with the proxy's cost as ratios (through nginx /
straight), nginx's own CPU per change beside the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import random
import shutil
import sqlite3
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import serving
from serving import HOST, start_server, stop_server
from nginx import Nginx

PHONES_PER_TABLE = 6
POLL_S = 0.7  # the polling mode's interval (pages polled this often before push)


def family(pid: int) -> list[int]:
    """``pid`` and its descendants (with ``--workers`` the server is a parent and its workers)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:
            pass
    return found


def rss_mb(pid: int) -> float:
    """The resident memory of the server: its process and any workers it started."""
    return sum(own_rss_mb(member) for member in family(pid))


def own_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Conn:
    """One keep-alive HTTP/1.1 connection (a phone's browser keeps one open)."""

    def __init__(self, port: int, source: str | None = None):
        self.port = port
        self.source = source  # the phone's own loopback address (None: the laptop's, 127.0.0.1)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.cookies: dict[str, str] = {}
        self.location = ""

    async def request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None):
        reused = self.writer is not None
        try:
            return await self._request(method, path, body, headers)
        except (ConnectionError, OSError):
            if not reused:
                raise
            # The server closed an idle keep-alive connection: a browser retries on a new one.
            self.close()
            self.writer = None
            return await self._request(method, path, body, headers)

    async def _request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                HOST, self.port, local_addr=(self.source, 0) if self.source else None)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}", "Accept-Encoding: gzip"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        for key, value in (headers or {}).items():
            lines.append(f"{key}: {value}")
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
            lines.append("Content-Type: application/x-www-form-urlencoded")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, close, gzipped = 0, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
            elif name == "location":
                self.location = value
            elif name == "connection" and value.lower() == "close":
                close = True
            elif name == "content-encoding" and value.lower() == "gzip":
                gzipped = True
        data = await self.reader.readexactly(length) if length else b""
        if close:
            self.writer.close()
            self.writer = None
        return status, gzip.decompress(data) if gzipped else data

    def close(self):
        if self.writer is not None:
            self.writer.close()


def phone_address(index: int) -> str:
    """Phone ``index``'s own source address: 127.0.0.2 and up (Linux routes all of 127/8 to
    loopback). Never 127.0.0.1: that is the laptop, which the server trusts and treats as one
    device (link guard, fair share), so phones from it would not be measured as phones."""
    return f"127.0.{index // 250}.{index % 250 + 2}"


def cpu_seconds(pid: int) -> float:
    """CPU time of the server: its process and any workers it started."""
    return sum(own_cpu_seconds(member) for member in family(pid))


def own_cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system), from /proc: what it cost, whatever else
    the machine was doing (latencies on a shared machine measure the others too)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))] * 1000


def deal_form(csrf: str, number: int, winner: int) -> bytes:
    """A valid 4-player RWD deal that ``winner`` wins outright."""
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    form = {"csrf_token": csrf, "number": str(number)}
    form.update({f"chips-{s}": str(c) for s, c in enumerate(chips)})
    form.update({f"tricks-{s}": str(t) for s, t in enumerate(tricks)})
    return urllib.parse.urlencode(form).encode()


async def new_table(conn: "Conn", name: str) -> tuple[str, str]:
    """Create a 4-player RWD table through the real form; returns (token, csrf)."""
    status, body = await conn.request("GET", "/tables/new?game=rwd&players=4")
    csrf = re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
    form = {"csrf_token": csrf, "game": "rwd", "players": "4", **{f"name-{s}": f"{name}{s}" for s in range(4)}}
    status, _ = await conn.request("POST", "/tables", urllib.parse.urlencode(form).encode())
    assert status == 303, status
    return conn.location.rsplit("/", 1)[-1], csrf


def table_tokens(db: str) -> list[str]:
    """Every table's token, in opening order, read from the run's database (either backend)."""
    if not db.startswith("postgresql://"):
        return [token for (token,) in sqlite3.connect(db).execute("SELECT token FROM tables ORDER BY id")]
    import psycopg

    with psycopg.connect(db) as conn:
        return [token for (token,) in conn.execute("SELECT token FROM tables ORDER BY id")]


async def open_tables(port: int, db: str, count: int, laptop_port: int | None = None) -> list[dict]:
    """Create ``count`` tables through the real forms (with CSRF), then one phone per table with
    the table's CSRF token and revision as its page shows them. Tokens come from the database:
    the home page lists only the 12 newest. ``laptop_port``: where the laptop opens them, when
    the phones' ``port`` is a proxy's (there the laptop would be one more phone, limited)."""
    setup = Conn(laptop_port or port)
    for t in range(count):
        await new_table(setup, f"T{t}-")
    setup.close()
    tables = []
    for number, token in enumerate(table_tokens(str(db))):
        conn = Conn(port, phone_address(number * PHONES_PER_TABLE))  # the table's first phone
        _status, body = await conn.request("GET", f"/t/{token}")
        csrf = re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
        rev = int(re.search(rb'data-rev="(\d+)"', body).group(1))
        tables.append({"token": token, "csrf": csrf, "conn": conn, "rev": rev, "number": 1,
                       "phones": [phone_address(number * PHONES_PER_TABLE + k) for k in range(PHONES_PER_TABLE)]})
    return tables


BACKEND = {"db": None, "workers": 1, "serve": [], "nginx": False}  # --db (a PostgreSQL URL), --workers, more
# options, through nginx: venue()
NGINX_BIND = "127.0.200.1"  # nginx connects to the server from here (no phone's: phone_address)

# --scrape-metrics (issue 46): a monitor at an address of its own (given to serve as --metrics-from,
# never a phone's: phone_address) reads /metrics every SCRAPE_EVERY_S while the phones are measured.
MONITOR = "127.0.200.9"
SCRAPE_EVERY_S = 2.0
FIGURES = ("companion_requests_total", "companion_deal_save_seconds_count", "companion_deliveries_total",
           "companion_open_streams", "companion_refusals_total")


@contextlib.contextmanager
def fresh_database(tmp: Path):
    """The run's database: a new SQLite file in ``tmp``, or with ``--db postgresql://…`` a new
    database on that server (created for the run, dropped after), so every run starts empty."""
    url = BACKEND["db"]
    if not url:
        yield str(tmp / "x.sqlite")
        return
    import psycopg

    name = f"companion_bench_{os.getpid()}_{int(time.time() * 1000) % 10**9}"
    parts = urllib.parse.urlsplit(url)
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urllib.parse.urlunsplit(parts._replace(path="/" + name))
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.asynccontextmanager
async def venue(count: int):
    """A fresh ``companion serve`` with ``count`` tables open, one phone connection each
    (see :func:`open_tables`): yields (server, port, tables); closes them and stops it after."""
    tmp = Path(tempfile.mkdtemp())
    with fresh_database(tmp) as db:
        # Every phone here is this machine: lift the per-device cap that a real venue keeps.
        extra = ["--per-device", "100000"] + (["--workers", str(BACKEND["workers"])] if BACKEND["workers"] > 1 else [])
        extra += BACKEND["serve"]
        if BACKEND["nginx"]:
            extra += ["--trusted-proxy", NGINX_BIND]
        server, port = start_server(tmp, *extra, db=db if BACKEND["db"] else None)
        proxy = None
        try:
            laptop_port = port
            if BACKEND["nginx"]:
                # Each phone holds a stream and a keep-alive connection: room for 1,536 phones and more.
                proxy = Nginx(tmp / "nginx", port, NGINX_BIND, worker_connections=16384).start()
                server.proxy = proxy.proc  # its CPU is measured beside the server's
                port = proxy.port
            tables = await open_tables(port, db, count, laptop_port)
            yield server, port, tables
            for t in tables:
                t["conn"].close()
        finally:
            if proxy is not None:
                proxy.stop()
            stop_server(server)


async def quiet_ratio(port: int, entries: int) -> dict:
    """Before the crowd arrives: a deal entry, then a trivial request, alternately, on an
    otherwise idle server. Both pay the same HTTP cost, so the ratio shows the app's own."""
    conn, probe = Conn(port), Conn(port)
    probe.cookies = conn.cookies  # the same phone asks both: its browser sends its cookie to each
    entry, trivial, live = [], [], []
    token, csrf, number = None, "", 1
    for i in range(entries):
        if token is None or number > 8:  # RWD ends at three deal wins: a fresh table every 8 deals
            token, csrf = await new_table(conn, f"Q{i}-")
            number = 1
        body = deal_form(csrf, number, number % 4)
        start = time.perf_counter()
        status, _ = await conn.request("POST", f"/t/{token}/deals", body)
        entry.append(time.perf_counter() - start)
        if status != 303:
            raise RuntimeError(f"quiet entry answered {status}")
        start = time.perf_counter()
        status, _ = await probe.request("GET", "/healthz")
        trivial.append(time.perf_counter() - start)
        start = time.perf_counter()  # another phone at the table: nothing new since this deal
        status, _ = await probe.request("GET", f"/t/{token}/live?rev={number}&form={number + 1}")
        live.append(time.perf_counter() - start)
        if status != 204:
            raise RuntimeError(f"quiet live check answered {status}")
        number += 1
    conn.close()
    probe.close()
    e, t, v = pct(entry, 50), pct(trivial, 50), pct(live, 50)
    return {"quiet_entry_p50_ms": round(e, 2), "quiet_trivial_p50_ms": round(t, 2),
            "quiet_live_p50_ms": round(v, 2),
            "quiet_entry_to_trivial_p50": round(e / t, 2), "quiet_live_to_trivial_p50": round(v / t, 2)}


async def run(args) -> dict:
    async with venue(args.tables) as (server, port, tables):
        quiet = await quiet_ratio(port, args.quiet_entries) if args.quiet_entries else {}

        stats = {"live": [], "entry": [], "trivial": [], "errors": 0, "conflicts": 0, "changed": 0}
        deadline = time.perf_counter() + args.seconds
        deals = [([4, 4, 3, 2], [6, 3, 2, 2]), ([3, 3, 3, 4], [4, 4, 4, 1]), ([1, 5, 4, 3], [3, 3, 3, 4])]

        async def phone(table: dict, index: int):
            conn = Conn(port, table["phones"][index + 1])
            rev = table["rev"]
            await asyncio.sleep(random.random() * POLL_S)  # phones don't poll in lockstep
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                try:
                    status, body = await conn.request("GET", f"/t/{table['token']}/live?rev={rev}&form=1")
                    elapsed = time.perf_counter() - start
                    if status == 204:
                        stats["live"].append(elapsed)
                    elif status == 200:
                        stats["changed"] += 1
                        rev = int(re.search(rb'data-rev="(\d+)"', body).group(1)) if b"data-rev" in body else rev
                    else:
                        stats["errors"] += 1
                except Exception:
                    stats["errors"] += 1
                    conn = Conn(port, table["phones"][index + 1])
                await asyncio.sleep(max(0.0, POLL_S - (time.perf_counter() - start)))
            conn.close()

        async def enterer(table: dict):
            conn = table["conn"]
            while True:
                wait = random.expovariate(1 / args.entry_every)
                if time.perf_counter() + wait >= deadline:  # don't sleep past the end of the run
                    break
                await asyncio.sleep(wait)
                chips, tricks = random.choice(deals)
                form = {"csrf_token": table["csrf"], "number": str(table["number"])}
                form.update({f"chips-{s}": str(c) for s, c in enumerate(chips)})
                form.update({f"tricks-{s}": str(t) for s, t in enumerate(tricks)})
                start = time.perf_counter()
                try:
                    status, _ = await conn.request("POST", f"/t/{table['token']}/deals",
                                                   urllib.parse.urlencode(form).encode())
                except Exception:
                    stats["errors"] += 1
                    continue
                elapsed = time.perf_counter() - start
                if status == 303:
                    stats["entry"].append(elapsed)
                    table["number"] += 1
                elif status in (409, 422):  # a match won (3 deal wins) refuses more deals: start again
                    stats["conflicts"] += 1
                    break
                else:
                    stats["errors"] += 1

        async def trivial():
            conn = Conn(port)
            rate = args.tables / args.entry_every
            while time.perf_counter() < deadline:
                await asyncio.sleep(min(random.expovariate(rate), max(0.0, deadline - time.perf_counter())))
                start = time.perf_counter()
                try:
                    status, _ = await conn.request("GET", "/healthz")
                    if status == 200:
                        stats["trivial"].append(time.perf_counter() - start)
                    else:
                        stats["errors"] += 1
                except Exception:
                    stats["errors"] += 1
                    conn = Conn(port)

        tasks = [phone(t, i) for t in tables for i in range(PHONES_PER_TABLE - 1)]
        tasks += [enterer(t) for t in tables] + [trivial()]
        await asyncio.gather(*tasks)
        memory = rss_mb(server.pid)
    entry_p50, trivial_p50 = pct(stats["entry"], 50), pct(stats["trivial"], 50)
    return {
        "tables": args.tables, "phones": args.tables * PHONES_PER_TABLE, "seconds": args.seconds,
        "live_checks": len(stats["live"]), "live_p50_ms": round(pct(stats["live"], 50), 2),
        "live_p99_ms": round(pct(stats["live"], 99), 2),
        "entries": len(stats["entry"]), "entry_p50_ms": round(entry_p50, 2),
        "entry_p99_ms": round(pct(stats["entry"], 99), 2),
        "trivial_p50_ms": round(trivial_p50, 2), "trivial_p99_ms": round(pct(stats["trivial"], 99), 2),
        "entry_to_trivial_p50": round(entry_p50 / trivial_p50, 2) if trivial_p50 else None,
        "live_to_trivial_p50": round(pct(stats["live"], 50) / trivial_p50, 2) if trivial_p50 else None,
        "updates_seen": stats["changed"], "matches_ended": stats["conflicts"], "errors": stats["errors"],
        "server_rss_mb": round(memory, 1),
        **quiet,
    }


# --- push mode ------------------------------------------------------------------------------

FALLBACK_POLL_S = 30.0  # templates/tables/_live_attrs.html: "every 30s"


async def open_stream(port: int, token: str, rev: int, form: int, source: str | None = None):
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0) if source else None)
    writer.write((f"GET /t/{token}/events?rev={rev}&form={form} HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                  "Accept: text/html, text/event-stream\r\n\r\n").encode())
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        writer.close()
        raise ConnectionError(f"stream answered {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return reader, writer


async def next_change(reader) -> int:
    """The revision in the next "changed" event (chunked framing lines are skipped)."""
    while True:
        line = await reader.readline()
        if not line:
            raise ConnectionError("stream closed")
        if line.startswith(b"event: changed"):
            line = await reader.readline()
            return int(line.split(b":", 1)[1])


def figures(text: str) -> dict[str, float]:
    """One scrape's samples, summed by name and the labels that matter here."""
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            keys = [sample.name] + [f"{sample.name}{{{k}={v}}}" for k, v in sample.labels.items()
                                    if k in ("status", "reason", "page", "event")]
            for key in keys:
                found[key] = found.get(key, 0.0) + sample.value
    return found


async def scrape_metrics(port: int, until: asyncio.Event) -> dict:
    """--scrape-metrics: /metrics as a monitor reads it, every SCRAPE_EVERY_S until ``until``, then once
    more: each scrape's time, the figures missing from any, and what moved between the first and the last."""
    phone = Conn(port, phone_address(0))
    refused_phone = (await phone.request("GET", "/metrics"))[0]
    phone.close()
    conn = Conn(port, MONITOR)
    times, scrapes, missing, errors, streams = [], [], set(), 0, []
    while True:
        start = time.perf_counter()
        status, body = await conn.request("GET", "/metrics")
        times.append(time.perf_counter() - start)
        if status != 200:
            errors += 1
        else:
            found = figures(body.decode())
            missing |= {name for name in FIGURES if name not in found}
            streams.append(found.get("companion_open_streams", 0.0))
            scrapes.append(found)
        if until.is_set():
            break
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(until.wait(), SCRAPE_EVERY_S)
    conn.close()
    first, last = scrapes[0] if scrapes else {}, scrapes[-1] if scrapes else {}

    def moved(name: str) -> float:
        return round(last.get(name, 0.0) - first.get(name, 0.0), 3)

    saves = moved("companion_deal_save_seconds_count")
    return {"scrapes": len(times), "scrape_errors": errors, "phone_got": refused_phone,
            "scrape_p50_ms": round(pct(times, 50), 2), "scrape_max_ms": round(max(times) * 1000, 2),
            "missing": sorted(missing), "requests": moved("companion_requests_total"),
            "requests_by_status": {key.split("=", 1)[1].rstrip("}"): moved(key) for key in sorted(last)
                                   if key.startswith("companion_requests_total{status=") and moved(key)},
            "saves": saves,
            "save_mean_ms": round(moved("companion_deal_save_seconds_sum") * 1000 / saves, 2) if saves else None,
            "deliveries_changed": moved("companion_deliveries_total{event=changed}"),
            "open_streams_max": max(streams, default=0.0),
            "refusals": {key.split("=", 1)[1].rstrip("}"): moved(key) for key in sorted(last)
                         if key.startswith("companion_refusals_total{reason=") and moved(key)}}


async def run_push(args) -> dict:
    stats = {"entry": [], "one": [], "event": [], "errors": 0, "error_kinds": {}, "missed": 0, "ended": 0,
             "fetches": 0, "streams": 0, "measured_fetches": 0, "measured_streams": 0, "measured_checks": 0,
             "confirm": []}
    answered: dict[tuple[str, int], float] = {}  # (token, revision) -> when the save's answer came
    reached: dict[tuple[str, int], list[float]] = {}  # -> when each phone had it

    def error(kind: str) -> None:
        stats["errors"] += 1
        stats["error_kinds"][kind] = stats["error_kinds"].get(kind, 0) + 1

    async with venue(args.tables) as (server, port, tables):
        measuring = asyncio.Event()
        connected = 0
        deadline = [float("inf")]

        async def phone(table: dict, source: str, ramp: float):
            nonlocal connected
            token, rev, form = table["token"], table["rev"], 1
            conn = Conn(port, source)
            await asyncio.sleep(ramp)
            stream = None
            next_poll = time.perf_counter() + random.random() * FALLBACK_POLL_S
            counted = False
            while time.perf_counter() < deadline[0]:
                try:
                    if stream is None:
                        stream = await open_stream(port, token, rev, form, source)
                        stats["streams"] += 1
                        stats["measured_streams"] += measuring.is_set()
                        if not counted:
                            counted = True
                            connected += 1
                    wait = max(0.05, min(next_poll, deadline[0]) - time.perf_counter())
                    try:
                        announced = await asyncio.wait_for(next_change(stream[0]), wait)
                    except asyncio.TimeoutError:
                        if time.perf_counter() >= next_poll:
                            next_poll += FALLBACK_POLL_S
                            stats["measured_checks"] += measuring.is_set()
                            status, _ = await conn.request("GET", f"/t/{token}/live?rev={rev}&form={form}")
                            if status not in (200, 204):
                                error(f"fallback check {status}")
                        continue
                    if announced <= rev:  # already shown (static/live.js fetches nothing)
                        continue
                    heard = time.perf_counter()
                    status, body = await conn.request("GET", f"/t/{token}/live?rev={rev}&form={form}",
                                                      headers={"HX-Request": "true"})
                    got = time.perf_counter()
                    stats["fetches"] += 1
                    stats["measured_fetches"] += measuring.is_set()
                    if status != 200:
                        error(f"fetch {status}")
                        continue
                    new = int(re.search(rb'data-rev="(\d+)"', body).group(1))
                    for r in range(rev + 1, new + 1):
                        reached.setdefault((token, r), []).append(got)
                        if measuring.is_set() and (token, r) in answered:
                            stats["event"].append(heard - answered[(token, r)])
                    rev, form = new, new + 1  # the stream stays open (it is not in the swapped region)
                except (ConnectionError, OSError, ValueError, AttributeError) as exc:
                    error(type(exc).__name__)
                    if stream is not None:
                        stream[1].close()
                        stream = None
                    await asyncio.sleep(0.5)
            if stream is not None:
                stream[1].close()
            conn.close()

        async def enterer(table: dict):
            conn = table["conn"]
            confirmer = None
            if getattr(args, "confirm", False):
                # Issue 45: the tables (opened on the laptop: the night's) ask another seat to
                # confirm each deal, the hall's default; the table's second phone confirms.
                confirmer = Conn(port, table["phones"][1])
                _status, page = await confirmer.request("GET", f"/t/{table['token']}")
                confirmer_csrf = re.search(rb'name="csrf_token" value="([^"]+)"', page).group(1).decode()
            await measuring.wait()
            while True:
                wait = random.expovariate(1 / args.entry_every)
                if time.perf_counter() + wait >= deadline[0] - 1.0:  # leave a second to deliver
                    break
                await asyncio.sleep(wait)
                # The winner rotates: 8 deals before anyone has the 3 deal wins that end a match.
                body = deal_form(table["csrf"], table["number"], table["number"] % 4)
                start = time.perf_counter()
                try:
                    status, _ = await conn.request("POST", f"/t/{table['token']}/deals", body)
                except Exception:
                    error("entry")
                    continue
                done = time.perf_counter()
                if status == 303:
                    stats["entry"].append(done - start)
                    table["number"] += 1
                    table["rev"] += 1  # one save, one revision
                    answered[(table["token"], table["rev"])] = done
                elif status in (409, 422):  # the match was won: this table is done
                    stats["ended"] += 1
                    break
                else:
                    error(f"entry {status}")
                    continue
                if confirmer is not None:  # the second phone confirms it: a change of its own
                    # A player reads the deal and taps Confirm a few seconds later.
                    pause = random.uniform(1.0, 4.0)
                    if time.perf_counter() + pause >= deadline[0] - 1.0:
                        break
                    await asyncio.sleep(pause)
                    body = urllib.parse.urlencode({"csrf_token": confirmer_csrf,
                                                   "item": f"deal-{table['number'] - 1}"}).encode()
                    start = time.perf_counter()
                    try:
                        status, _ = await confirmer.request("POST", f"/t/{table['token']}/confirm", body)
                    except Exception:
                        error("confirm")
                        continue
                    done = time.perf_counter()
                    if status == 303:
                        stats["confirm"].append(done - start)
                        table["rev"] += 1
                        answered[(table["token"], table["rev"])] = done
                    else:
                        error(f"confirm {status}")
            if confirmer is not None:
                confirmer.close()

        ramp = args.ramp
        tasks = [asyncio.create_task(phone(t, t["phones"][k], ramp * (n * PHONES_PER_TABLE + k)
                                           / (len(tables) * PHONES_PER_TABLE)))
                 for n, t in enumerate(tables) for k in range(PHONES_PER_TABLE)]
        tasks += [asyncio.create_task(enterer(t)) for t in tables]
        started = time.perf_counter()
        while connected < len(tables) * PHONES_PER_TABLE and time.perf_counter() - started < ramp + 60:
            await asyncio.sleep(0.2)
        stats["connected"] = connected
        stats["rss_idle_mb"] = rss_mb(server.pid)
        deadline[0] = time.perf_counter() + args.seconds
        measuring.set()
        scraped = asyncio.Event()
        scraper = asyncio.create_task(scrape_metrics(port, scraped)) if getattr(args, "scrape_metrics", False) else None
        proxy = getattr(server, "proxy", None)
        proxy_before = own_cpu_seconds(proxy.pid) if proxy is not None else None
        cpu_before = cpu_seconds(server.pid)
        profiler = profile(server.pid, args.py_spy, args.seconds) if getattr(args, "py_spy", None) else None
        await asyncio.gather(*tasks)
        cpu = cpu_seconds(server.pid) - cpu_before
        proxy_cpu = own_cpu_seconds(proxy.pid) - proxy_before if proxy is not None else None
        memory = rss_mb(server.pid)
        if profiler is not None:
            profiler.wait()
        scraped.set()
        metrics = await scraper if scraper is not None else None
    everyone = []
    for key, when in answered.items():
        got = reached.get(key, [])
        if len(got) < PHONES_PER_TABLE:
            stats["missed"] += 1
            continue
        everyone.append(max(got) - when)
        stats["one"] += [g - when for g in got]
    return {
        "tables": args.tables, "phones": args.tables * PHONES_PER_TABLE, "streaming": stats["connected"],
        "seconds": args.seconds, "entries": len(stats["entry"]),
        "entry_p50_ms": round(pct(stats["entry"], 50), 2), "entry_p99_ms": round(pct(stats["entry"], 99), 2),
        **({"confirms": len(stats["confirm"]), "confirm_p50_ms": round(pct(stats["confirm"], 50), 2),
            "confirm_p99_ms": round(pct(stats["confirm"], 99), 2)} if stats["confirm"] else {}),
        "event_p50_ms": round(pct(stats["event"], 50), 2), "event_p99_ms": round(pct(stats["event"], 99), 2),
        "delivery_one_p50_ms": round(pct(stats["one"], 50), 2),
        "delivery_one_p99_ms": round(pct(stats["one"], 99), 2),
        "delivery_all6_p50_ms": round(pct(everyone, 50), 2), "delivery_all6_p99_ms": round(pct(everyone, 99), 2),
        "delivery_all6_max_ms": round(max(everyone) * 1000, 2) if everyone else None,
        "changes": len(answered), "missed": stats["missed"], "errors": stats["errors"],
        "error_kinds": stats["error_kinds"], "matches_ended": stats["ended"],
        "partials_fetched": stats["fetches"], "streams_opened": stats["streams"],
        # while measuring, per change and watching phone (the page's target: 1, 0)
        "partials_per_phone_change": per_phone_change(stats["measured_fetches"], answered, args.tables),
        "streams_per_phone_change": per_phone_change(stats["measured_streams"], answered, args.tables),
        # the region's 30 s timer, whatever changes: not a cost of a change
        "fallback_checks_per_phone_min": round(stats["measured_checks"] / (args.tables * PHONES_PER_TABLE)
                                               / (args.seconds / 60), 2),
        "server_rss_idle_mb": round(stats["rss_idle_mb"], 1), "server_rss_mb": round(memory, 1),
        # the server's CPU time while measuring, per change (saving it, telling and serving six phones)
        "server_cpu_ms_per_change": round(cpu * 1000 / len(answered), 2) if answered else None,
        # --scrape-metrics: what /metrics said while measuring (each change: a save, 6 phones told)
        **({"metrics": {**metrics, "deliveries_per_change": round(metrics["deliveries_changed"] / len(answered), 2)
                        if answered else None}} if metrics is not None else {}),
        # nginx's, with --via-nginx: what the proxy costs the machine beside the server
        **({"nginx_cpu_ms_per_change": round(proxy_cpu * 1000 / len(answered), 2) if answered else None}
           if proxy_cpu is not None else {}),
    }


def profile(pid: int, out: str, seconds: float) -> subprocess.Popen:
    """py-spy (``pip install py-spy``) sampling the server while the phones are measured, as
    collapsed stacks in ``out`` (each line: frames;… count), for finding where the time goes."""
    return subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--duration", str(int(seconds) - 1),
                             "--rate", "100", "--format", "raw", "--output", out, "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def per_phone_change(count: int, changes: dict, tables: int) -> float | None:
    """``count`` requests over every (change, phone of its table) pair."""
    return round(count / (len(changes) * PHONES_PER_TABLE), 3) if changes else None


def push_verdict(result: dict) -> str:
    # issue 31's targets at 1,536 phones, one process, SQLite (a quiet machine: see --quick for ratios)
    ok = (result["entry_p99_ms"] <= 25 and result["delivery_all6_p99_ms"] <= 50 and result["errors"] == 0
          and result["missed"] == 0 and result["server_rss_mb"] <= 150)
    return (f"targets: entry p99 <= 25 ms ({result['entry_p99_ms']}), delivery to all 6 phones p99 <= 50 ms "
            f"({result['delivery_all6_p99_ms']}), 0 errors ({result['errors']}), 0 missed ({result['missed']}), "
            f"RSS <= 150 MB ({result['server_rss_mb']}): {'PASS' if ok else 'FAIL'}")


def metrics_verdict(result: dict) -> str:
    """--scrape-metrics: every figure in every scrape, none refused to the monitor, 403 to a phone."""
    found = result["metrics"]
    ok = not found["missing"] and found["scrape_errors"] == 0 and found["phone_got"] == 403 and found["scrapes"] > 1
    return (f"metrics: {found['scrapes']} scrapes (p50 {found['scrape_p50_ms']} ms), every figure present "
            f"(missing: {found['missing'] or 'none'}), a phone answered {found['phone_got']}: {'PASS' if ok else 'FAIL'}")


def raise_client_file_limit() -> None:
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def median_of(results: list[dict]) -> dict:
    """Each figure's median over the runs (ratios stay per run: take the median of those)."""
    merged = {}
    for key, value in results[0].items():
        values = [r[key] for r in results if isinstance(r.get(key), (int, float))]
        merged[key] = round(statistics.median(values), 2) if len(values) == len(results) else value
    return merged


def verdict(result: dict) -> str:
    ok = result["live_p99_ms"] <= 50 and result["errors"] == 0 and result["server_rss_mb"] <= 100
    return (f"target p99 <= 50 ms, 0 errors, <= 100 MB: {'PASS' if ok else 'FAIL'}; "
            f"entry/trivial p50 under load {result['entry_to_trivial_p50']}, "
            f"idle {result.get('quiet_entry_to_trivial_p50')} (target <= 2); "
            f"live/trivial p50 under load {result['live_to_trivial_p50']}, "
            f"idle {result.get('quiet_live_to_trivial_p50')} (target about 1)")


# --- the guard: this tree against the last commit, alternating --------------------------------
#
#     python3 bench/load.py --quick                 # 64 tables, 10 s, against HEAD (the last commit)
#     python3 bench/load.py --quick --checkout main # ... against another revision
#
# Each round runs the same push benchmark against a server from REV's tree (a temporary git
# worktree) and against this tree, one after the other, so both see the same machine load;
# each run in its own client process, base first in odd rounds and this tree first in even ones;
# the figures are reported side by side with their ratio (this tree / REV: "× 1.8" is 80 %
# slower). Ratios, not absolute figures, are the guard: a shared or busy machine moves both.

GUARDED = ("entry_p50_ms", "entry_p99_ms", "delivery_all6_p50_ms", "delivery_all6_p99_ms", "errors", "missed",
           "server_rss_mb", "server_cpu_ms_per_change")


@contextlib.contextmanager
def worktree(rev: str):
    """A temporary git worktree of ``rev`` (of this checkout's repository), removed after."""
    base = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    tree = base / "tree"
    git = ["git", "-C", str(serving.ROOT)]
    subprocess.run(git + ["worktree", "add", "--detach", str(tree), rev], check=True, capture_output=True)
    try:
        yield tree
    finally:
        subprocess.run(git + ["worktree", "remove", "--force", str(tree)], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def load_average() -> str:
    try:
        return "load %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load ?"


def ratio(mine, theirs) -> str:
    if not isinstance(mine, (int, float)) or not isinstance(theirs, (int, float)):
        return ""
    if theirs == 0:
        return "× 1.0" if mine == 0 else "× ∞"
    return f"× {mine / theirs:.2f}"


def one_run(args, tree: Path, backend: tuple[str | None, int] | None = None, via_nginx: bool = False) -> dict:
    """One push run against a server from ``tree``, in a fresh client process: a second run in
    the same process was measured slower than the first, whichever tree it served."""
    command = [sys.executable, str(Path(__file__).resolve()), "--push", "--runs", "1", "--json",
               "--tables", str(args.tables), "--seconds", str(args.seconds), "--ramp", str(args.ramp),
               "--entry-every", str(args.entry_every), "--serve-tree", str(tree)]
    if getattr(args, "confirm", False):  # both trees must have confirming (issue 45) to compare so
        command.append("--confirm")
    if backend is not None:
        db, workers = backend
        command += (["--db", db] if db else []) + ["--workers", str(workers)]
    if via_nginx:
        command.append("--nginx-run")
    if getattr(args, "scrape_metrics", False) and getattr(args, "via_nginx", False):  # both sides this tree
        command.append("--scrape-metrics")
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare_with(args, rev: str) -> None:
    """``args.runs`` rounds, each a run against ``rev``'s tree and one against this one."""
    here = serving.ROOT
    mine, theirs = [], []
    with worktree(rev) as tree:
        for number in range(1, args.runs + 1):
            order = (("base", tree, theirs), ("this", here, mine))
            for side, root, results in order if number % 2 else order[::-1]:  # ABBA: neither always first
                before = load_average()
                results.append(one_run(args, root))
                shown = {k: results[-1][k] for k in GUARDED}
                print(f"round {number} {side:>4} ({before}): {json.dumps(shown)}", flush=True)
    a, b = median_of(mine), median_of(theirs)
    print(f"\nmedian of {args.runs} rounds, this tree against {rev}, {args.tables * PHONES_PER_TABLE} phones, "
          f"{args.seconds:g} s ({load_average()} now):")
    for key in GUARDED:
        print(f"  {key:<22} {b[key]!s:>9} -> {a[key]!s:>9}   {ratio(a[key], b[key])}")


def compare_backends(args) -> None:
    """Issue 35: ``args.runs`` rounds, each a run on SQLite with one worker and one on the
    PostgreSQL server ``--db`` with ``--workers``, alternating; medians side by side."""
    here = serving.ROOT
    sqlite_side, postgres_side = [], []
    order = (("sqlite/1", (None, 1), sqlite_side), (f"pg/{args.workers}", (args.db, args.workers), postgres_side))
    for number in range(1, args.runs + 1):
        for side, backend, results in order if number % 2 else order[::-1]:
            before = load_average()
            results.append(one_run(args, here, backend))
            shown = {k: results[-1][k] for k in GUARDED}
            print(f"round {number} {side:>8} ({before}): {json.dumps(shown)}", flush=True)
    a, b = median_of(postgres_side), median_of(sqlite_side)
    print(f"\nmedian of {args.runs} rounds, PostgreSQL with {args.workers} workers against SQLite with one, "
          f"{args.tables * PHONES_PER_TABLE} phones, {args.seconds:g} s ({load_average()} now):")
    for key in GUARDED:
        print(f"  {key:<22} {b[key]!s:>9} -> {a[key]!s:>9}   {ratio(a[key], b[key])}")


def compare_proxy(args) -> None:
    """Issue 46: ``args.runs`` rounds, each a run straight at the server and one through nginx
    (bench/nginx.py, docs/club-server.md's config), alternating; medians side by side, the
    proxy's cost as ratios (nginx / straight)."""
    here = serving.ROOT
    straight, proxied = [], []
    order = (("straight", False, straight), ("nginx", True, proxied))
    for number in range(1, args.runs + 1):
        for side, via, results in order if number % 2 else order[::-1]:
            before = load_average()
            # The same backend both ways: only the proxy differs.
            results.append(one_run(args, here, (args.db, args.workers), via_nginx=via))
            shown = {k: results[-1].get(k) for k in GUARDED + ("nginx_cpu_ms_per_change",) if k in results[-1]}
            print(f"round {number} {side:>8} ({before}): {json.dumps(shown)}", flush=True)
    a, b = median_of(proxied), median_of(straight)
    print(f"\nmedian of {args.runs} rounds, through nginx against straight, {args.tables * PHONES_PER_TABLE} phones, "
          f"{args.seconds:g} s ({load_average()} now):")
    for key in GUARDED + ("streaming",):
        print(f"  {key:<26} {b[key]!s:>9} -> {a[key]!s:>9}   {ratio(a[key], b[key])}")
    print(f"  {'nginx_cpu_ms_per_change':<26} {'':>9}    {a.get('nginx_cpu_ms_per_change')!s:>9}   "
          f"(server {a['server_cpu_ms_per_change']}: nginx / server "
          f"{ratio(a.get('nginx_cpu_ms_per_change'), a['server_cpu_ms_per_change']).lstrip('× ')})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--runs", type=int, default=3, help="report the median of this many runs")
    parser.add_argument("--entry-every", type=float, default=20.0, help="mean seconds between deals per table")
    parser.add_argument("--quiet-entries", type=int, default=300,
                        help="entries timed against /healthz on the idle server first (0 to skip)")
    parser.add_argument("--knee", action="store_true", help="step the table count up until live p99 > 50 ms")
    parser.add_argument("--push", action="store_true", help="phones hold event streams (what pages do now)")
    parser.add_argument("--ramp", type=float, default=15.0, help="push: seconds over which the phones join")
    parser.add_argument("--confirm", action="store_true",
                        help="push: a second phone of each table confirms every deal 1-4 s after it is saved (issue 45: "
                             "the night's tables ask by default); confirm p50/p99, its delivery in the delivery figures")
    parser.add_argument("--quick", action="store_true",
                        help="the guard before touching serving, store or the table pages: push, 64 tables, "
                             "10 s, 2 rounds against --checkout (default HEAD), figures as ratios")
    parser.add_argument("--checkout", metavar="REV", default=None,
                        help="push: also run against git revision REV (a temporary worktree), alternating, "
                             "and report this tree's figures as ratios to REV's")
    parser.add_argument("--py-spy", metavar="FILE", default=None,
                        help="push: sample the server with py-spy while measuring (collapsed stacks)")
    parser.add_argument("--db", metavar="URL", default=None,
                        help="push: serve from a PostgreSQL server (postgresql://user@host/db: each run creates "
                             "and drops its own database there) instead of a SQLite file")
    parser.add_argument("--workers", type=int, default=1, help="push: `companion serve --workers N`")
    parser.add_argument("--beside-sqlite", action="store_true",
                        help="push, with --db: alternate runs on SQLite with one worker and report both (issue 35)")
    parser.add_argument("--scrape-metrics", action="store_true",
                        help=f"push: a monitor at {MONITOR} (--metrics-from) reads /metrics every {SCRAPE_EVERY_S:g} s "
                             "while measuring; fails unless every figure is there and a phone gets 403 (issue 46)")
    parser.add_argument("--via-nginx", action="store_true",
                        help="push: alternate runs straight and through nginx (docs/club-server.md's config), "
                             "and report the proxy's cost as ratios (issue 46)")
    parser.add_argument("--nginx-run", action="store_true", help=argparse.SUPPRESS)  # one run through nginx
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one run's figures, for --checkout
    parser.add_argument("--serve-tree", type=Path, default=None, help=argparse.SUPPRESS)  # the tree to serve
    args = parser.parse_args()
    BACKEND.update(db=args.db, workers=args.workers, nginx=args.nginx_run)
    if args.scrape_metrics:
        args.push = True
        BACKEND["serve"] = ["--metrics-from", MONITOR]
    raise_client_file_limit()
    if args.serve_tree is not None:
        serving.ROOT = args.serve_tree.resolve()
    if args.confirm:
        args.push = True
    if args.json:
        print(json.dumps(asyncio.run(run_push(args))))
        return
    if args.quick:
        args.push = True
        defaults = parser.parse_args([])
        if args.tables == defaults.tables:
            args.tables = 64
        if args.seconds == defaults.seconds:
            args.seconds = 10
        if args.runs == defaults.runs:
            args.runs = 2
        if args.ramp == defaults.ramp:
            args.ramp = 3
        args.checkout = args.checkout or "HEAD"
    if args.via_nginx:
        args.push = True
        compare_proxy(args)
        return
    if args.beside_sqlite:
        if not args.db:
            parser.error("--beside-sqlite needs --db postgresql://…")
        args.push = True
        compare_backends(args)
        return
    if args.checkout:
        args.push = True
        compare_with(args, args.checkout)
        return
    if args.push:
        if args.knee:
            below = None
            for tables in (64, 128, 192, 256, 320, 384, 448, 512):
                args.tables = tables
                result = asyncio.run(run_push(args))
                print(json.dumps({k: result[k] for k in ("phones", "streaming", "entry_p99_ms", "delivery_all6_p99_ms",
                                                         "errors", "missed", "server_rss_mb")}), flush=True)
                if result["delivery_all6_p99_ms"] > 100 or result["errors"] or result["missed"]:
                    where = f"between {below} and {result['phones']}" if below else f"below {result['phones']}"
                    print(f"knee (push): delivery p99 crosses 100 ms {where} phones")
                    return
                below = result["phones"]
            print(f"knee (push): not reached up to {below} phones")
            return
        results = []
        for number in range(1, args.runs + 1):
            before = load_average()
            results.append(asyncio.run(run_push(args)))
            print(f"run {number} ({before} before, {load_average()} after): " + json.dumps(results[-1], indent=2),
                  flush=True)
            print(push_verdict(results[-1]))
            if "metrics" in results[-1]:
                print(metrics_verdict(results[-1]))
        if args.runs > 1:
            result = median_of(results)
            print(f"median of {args.runs} runs: " + json.dumps({k: result[k] for k in GUARDED}))
            print(push_verdict(result))
        return
    if args.knee:
        args.quiet_entries = 0
        below = None
        for tables in (50, 100, 125, 150, 175, 200, 250, 300, 400, 500):
            args.tables = tables
            result = median_of([asyncio.run(run(args)) for _ in range(args.runs)])
            print(json.dumps({k: result[k] for k in ("phones", "live_p99_ms", "entry_p99_ms", "errors",
                                                     "server_rss_mb")}), flush=True)
            if result["live_p99_ms"] > 50 or result["errors"]:
                where = f"between {below} and {tables * PHONES_PER_TABLE}" if below else f"below {tables * 6}"
                print(f"knee: p99 of the live check crosses 50 ms {where} phones")
                return
            below = tables * PHONES_PER_TABLE
        print(f"knee: not reached up to {below} phones")
        return
    results = []
    for number in range(1, args.runs + 1):
        results.append(asyncio.run(run(args)))
        print(f"run {number}: " + json.dumps(results[-1]), flush=True)
    result = median_of(results)
    print("median of", args.runs, "runs:", json.dumps(result, indent=2))
    print(verdict(result))


if __name__ == "__main__":
    main()
