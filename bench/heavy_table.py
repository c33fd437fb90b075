"""Does one heavy table starve the others? (issue 13, item 4)

Starts `companion serve` on loopback with a database holding one heavy table (an RWD match
of 100 drawn deals, the deal cap) and one ordinary table. ``--loops`` threads load the heavy
table's page as fast as they can for ``--seconds``; meanwhile one phone of the ordinary table
polls it every 100 ms the way phones do (the live check, answered 204 when nothing changed)
and loads its page once a second. Reports that phone's latencies (p50 / p99 / max) alone and
under the hammering, and the ratio, all measured in one run.

    python bench/heavy_table.py                 # this checkout
    python bench/heavy_table.py --checkout DIR  # another checkout (e.g. `git archive` of an
                                                # earlier commit), for a before/after figure

Loopback only; bounded in time (about 2 × --seconds + start-up).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import serving  # noqa: E402
from companion import db, tables as store  # noqa: E402
from companion.games import GAMES  # noqa: E402

HEAVY_DEALS = 100


def draw_facts(game, progress) -> dict:
    form = {f"chips-{i}": c for i, c in enumerate(["4", "3", "3", "3"])}
    form.update({f"tricks-{i}": c for i, c in enumerate(["4", "3", "3", "3"])})
    upcoming = game.next_deal(progress)
    if upcoming.choice:
        form[upcoming.choice.key] = str(upcoming.choice.options[0])
    facts, errors = game.parse_deal(form, progress)
    assert not errors, errors
    return facts


def build_database(path: Path) -> tuple[str, str, int]:
    """(heavy token, light token, light revision)."""
    db.migrate(str(path))
    conn = db.connect(str(path))
    game = GAMES["rwd"]
    heavy = store.create(conn, "rwd", ["Aiko", "Ben", "Chiyo", "Daisuke"], {})
    progress = store.load(conn, heavy).progress()
    stamp = store.now()
    with store.write(conn):  # straight in: the cap may refuse entries through the store
        table_id = conn.execute("SELECT id FROM tables WHERE token = ?", (heavy,)).fetchone()[0]
        for number in range(1, HEAVY_DEALS + 1):
            facts = draw_facts(game, progress)
            progress = game.add_deal(progress, facts)
            conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                         (table_id, number, store.facts_json(facts), stamp, stamp))
        conn.execute("UPDATE tables SET revision = ? WHERE id = ?", (HEAVY_DEALS, table_id))
    light = store.create(conn, "rwd", ["Emi", "Fumio", "Goro", "Hana"], {})
    revision = store.revision(conn, light)
    conn.close()
    return heavy, light, revision


class Phone:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection(serving.HOST, port, timeout=30)

    def get(self, path: str) -> tuple[int, float, int]:
        start = time.perf_counter()
        try:
            self.conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
            response = self.conn.getresponse()
            body = response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            self.conn.close()
            status, body = 0, b""
        return status, (time.perf_counter() - start) * 1000, len(body)


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    if not ordered:
        return {"n": 0}
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"n": len(ordered), "p50": statistics.median(ordered), "p99": p99, "max": ordered[-1]}


def watch(port: int, light: str, revision: int, seconds: float) -> tuple[dict, dict, dict]:
    """The ordinary table's phone: live polls every 100 ms, its page every second."""
    phone = Phone(port)
    polls, pages, statuses = [], [], {}
    end = time.monotonic() + seconds
    next_page = time.monotonic()
    while time.monotonic() < end:
        status, ms, _ = phone.get(f"/t/{light}/live?rev={revision}")
        polls.append(ms)
        statuses[status] = statuses.get(status, 0) + 1
        if time.monotonic() >= next_page:
            status, ms, _ = phone.get(f"/t/{light}")
            pages.append(ms)
            statuses[f"page {status}"] = statuses.get(f"page {status}", 0) + 1
            next_page += 1.0
        time.sleep(0.1)
    return summary(polls), summary(pages), statuses


def hammer(port: int, heavy: str, stop: threading.Event, counts: dict, lock: threading.Lock) -> None:
    phone = Phone(port)
    while not stop.is_set():
        status, _ms, _size = phone.get(f"/t/{heavy}")
        with lock:
            counts[status] = counts.get(status, 0) + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loops", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--checkout", type=Path, default=None, help="serve this source tree instead")
    args = parser.parse_args()
    if args.checkout is not None:
        serving.ROOT = args.checkout.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        heavy, light, revision = build_database(tmp_path / "x.sqlite")
        proc, port = serving.start_server(tmp_path)
        try:
            Phone(port).get(f"/t/{heavy}")  # warm up: first replay, templates compiled
            Phone(port).get(f"/t/{light}")
            alone = watch(port, light, revision, args.seconds)
            stop, lock, counts = threading.Event(), threading.Lock(), {}
            loops = [threading.Thread(target=hammer, args=(port, heavy, stop, counts, lock), daemon=True)
                     for _ in range(args.loops)]
            for loop in loops:
                loop.start()
            time.sleep(0.5)
            loaded = watch(port, light, revision, args.seconds)
            stop.set()
            for loop in loops:
                loop.join(35)
        finally:
            serving.stop_server(proc)
    print(f"server: {serving.ROOT}")
    print(f"heavy table: {HEAVY_DEALS} deals; {args.loops} loops for {args.seconds:.0f} s; "
          f"heavy-table answers by status: {dict(sorted(counts.items(), key=str))}")
    for name, (polls, pages, statuses) in (("alone", alone), (f"{args.loops} loops", loaded)):
        print(f"other table, {name:>9}: live poll p50 {polls['p50']:.1f} ms, p99 {polls['p99']:.1f} ms, "
              f"max {polls['max']:.1f} ms (n={polls['n']}); page p50 {pages['p50']:.1f} ms, "
              f"p99 {pages['p99']:.1f} ms (n={pages['n']}); {statuses}")
    print(f"ratio under load / alone: live poll p99 × {loaded[0]['p99'] / alone[0]['p99']:.1f}, "
          f"page p99 × {loaded[1]['p99'] / alone[1]['p99']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
