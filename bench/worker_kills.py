"""A worker killed while phones write (issue 35): `companion serve --workers 2` on PostgreSQL;
one worker is SIGKILLed ``--kills`` times (20) while ``--phones`` phones (20) save deals, each
phone at its own table, from its own loopback address (127.0.0.2 and up).

A phone does what the outbox does: it sends deal N until the laptop answers it (a connection
refused, reset or cut is tried again at once, with the same values: the same deal twice is
stored once), then deal N+1; a table takes 8 deals (RWD, winners in turn, so none ends), then
the phone opens a new one. After the run every table's stored deals are read back: each
acknowledged deal must be stored exactly once (no gap, no double), and every phone must be
answered again within 5 s of each failure (the parent starts a new worker at once).

    python3 bench/worker_kills.py --db postgresql://user@/postgres?host=/run/postgresql
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import BACKEND, Conn, deal_form, family, fresh_database, load_average, new_table, phone_address  # noqa: E402
from serving import start_server, stop_server  # noqa: E402

DEALS_PER_TABLE = 8


async def phone(port: int, index: int, until: list[float], acked: dict[str, int], outages: list[float],
                errors: list[str]) -> None:
    conn = Conn(port, phone_address(index))
    token, csrf, number, failing_since = None, "", 0, None
    while time.perf_counter() < until[0]:
        try:
            if token is None or number == DEALS_PER_TABLE:
                token, csrf = await new_table(conn, f"P{index}-")
                acked.setdefault(token, 0)
                number = 0
            status, _ = await conn.request("POST", f"/t/{token}/deals", deal_form(csrf, number + 1, (number + 1) % 4))
        except (ConnectionError, OSError, asyncio.IncompleteReadError, AssertionError):
            conn.close()
            conn.writer = None
            failing_since = failing_since or time.perf_counter()
            await asyncio.sleep(0.05)
            continue
        if failing_since is not None:
            outages.append(time.perf_counter() - failing_since)
            failing_since = None
        if status in (200, 303):
            number += 1
            acked[token] = number
        elif status == 503:  # not saved (the store busy or the worker going): the outbox retries
            await asyncio.sleep(0.1)
        else:
            errors.append(f"deal answered {status}")
            token = None
        await asyncio.sleep(0.02)
    conn.close()


async def run(port: int, parent: int, phones: int, kills: int, every: float) -> dict:
    acked: dict[str, int] = {}
    outages: list[float] = []
    errors: list[str] = []
    until = [float("inf")]
    tasks = [asyncio.create_task(phone(port, i, until, acked, outages, errors)) for i in range(phones)]
    await asyncio.sleep(2)
    killed = []
    for _ in range(kills):
        workers = [pid for pid in family(parent) if pid != parent]
        if workers:
            victim = workers[len(killed) % len(workers)]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
        await asyncio.sleep(every)
    await asyncio.sleep(3)
    until[0] = time.perf_counter()
    await asyncio.gather(*tasks)
    return {"acked": acked, "outages": outages, "errors": errors, "killed": len(killed)}


def stored_deals(db: str) -> dict[str, list[int]]:
    import psycopg

    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT t.token, d.number FROM deals d JOIN tables t ON t.id = d.table_id"
                            " ORDER BY t.token, d.number").fetchall()
    found: dict[str, list[int]] = {}
    for token, number in rows:
        found.setdefault(token, []).append(number)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, metavar="URL", help="a PostgreSQL server (postgresql://…)")
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between two kills")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    BACKEND.update(db=args.db, workers=args.workers)
    tmp = Path(tempfile.mkdtemp())
    before = load_average()
    with fresh_database(tmp) as db:
        server, port = start_server(tmp, "--per-device", "100000", "--workers", str(args.workers), db=db)
        try:
            time.sleep(1)  # the workers up
            result = asyncio.run(run(port, server.pid, args.phones, args.kills, args.every))
        finally:
            stop_server(server)
        stored = stored_deals(db)
    acked = result["acked"]
    lost = {t: (n, stored.get(t, [])) for t, n in acked.items() if stored.get(t, [])[:n] != list(range(1, n + 1))}
    doubled = {t: numbers for t, numbers in stored.items() if len(numbers) != len(set(numbers))}
    outages = sorted(result["outages"])
    report = {"workers_killed": result["killed"], "deals_acknowledged": sum(acked.values()),
              "deals_stored": sum(len(v) for v in stored.values()), "acknowledged_but_not_stored_once": len(lost),
              "doubled": len(doubled), "outages": len(outages),
              "longest_outage_s": round(outages[-1], 2) if outages else 0.0,
              "other_errors": sorted(set(result["errors"]))[:5]}
    print(f"{args.phones} phones, {args.kills} kills of one of {args.workers} workers ({before} before, "
          f"{load_average()} after):")
    print(json.dumps(report, indent=2))
    ok = not lost and not doubled and (not outages or outages[-1] <= 5) and result["killed"] == args.kills
    print("target: every acknowledged deal stored once, phones back within 5 s: " + ("PASS" if ok else "FAIL"))


if __name__ == "__main__":
    main()
