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

Each run also times deal entries against /healthz on the idle server first ("quiet"),
where both pay the same HTTP cost, so that ratio shows the app's own work.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import sqlite3
import re
import statistics
import tempfile
import time
import urllib.parse
from pathlib import Path

from serving import HOST, start_server, stop_server

PHONES_PER_TABLE = 6
POLL_S = 0.7  # the page's polling interval (companion.web.tables.POLL_MS)


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Conn:
    """One keep-alive HTTP/1.1 connection (a phone's browser keeps one open)."""

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.cookies: dict[str, str] = {}
        self.location = ""

    async def request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
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
    tmp = Path(tempfile.mkdtemp())
    db = tmp / "x.sqlite"
    server, port = start_server(tmp)
    try:
        # Create the tables through the real forms (with CSRF), remembering each link.
        tables = []
        setup = Conn(port)
        for t in range(args.tables):
            status, body = await setup.request("GET", "/tables/new?game=rwd&players=4")
            csrf = re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
            form = {"csrf_token": csrf, "game": "rwd", "players": "4", "first_start_player": "0",
                    "name-0": f"A{t}", "name-1": f"B{t}", "name-2": f"C{t}", "name-3": f"D{t}"}
            status, _ = await setup.request("POST", "/tables", urllib.parse.urlencode(form).encode())
            assert status == 303, status
        # The home page lists only the 12 newest tables; read every token from the database.
        tokens = [r[0] for r in sqlite3.connect(db).execute("SELECT token FROM tables ORDER BY id")]
        setup.close()
        for token in tokens:
            conn = Conn(port)
            status, body = await conn.request("GET", f"/t/{token}")
            csrf = re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
            rev = int(re.search(rb'data-rev="(\d+)"', body).group(1))
            tables.append({"token": token, "csrf": csrf, "conn": conn, "rev": rev, "number": 1})

        quiet = await quiet_ratio(port, args.quiet_entries) if args.quiet_entries else {}

        stats = {"live": [], "entry": [], "trivial": [], "errors": 0, "conflicts": 0, "changed": 0}
        deadline = time.perf_counter() + args.seconds
        deals = [([4, 4, 3, 2], [6, 3, 2, 2]), ([3, 3, 3, 4], [4, 4, 4, 1]), ([1, 5, 4, 3], [3, 3, 3, 4])]

        async def phone(table: dict, index: int):
            conn = Conn(port)
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
                    conn = Conn(port)
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
        for t in tables:
            t["conn"].close()
    finally:
        stop_server(server)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--runs", type=int, default=3, help="report the median of this many runs")
    parser.add_argument("--entry-every", type=float, default=20.0, help="mean seconds between deals per table")
    parser.add_argument("--quiet-entries", type=int, default=300,
                        help="entries timed against /healthz on the idle server first (0 to skip)")
    parser.add_argument("--knee", action="store_true", help="step the table count up until live p99 > 50 ms")
    args = parser.parse_args()
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
