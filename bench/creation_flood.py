"""One device floods table creation; then how heavy is the hall? (issue 23, item 4)

Starts `companion serve` on loopback (a throw-away database). The laptop (127.0.0.1) opens
``--tables`` tables and plays a deal at each (the night so far). Then for ``--seconds`` one
device (127.0.0.2) opens tables through the real new-table form (with its CSRF token) as fast
as ``--loops`` keep-alive connections can, while the projector (the laptop) asks the hall
board every second and another phone (127.0.0.3) loads its table's page every 200 ms.

Reports the tables the flood opened and how it was answered, the other phone's page times
during the flood, and afterwards the hall board's render time (median and p90 of 20, the
laptop asking with no signature, so it renders every time) and the weight of the board and the
hall page. Target: the board renders in <= 100 ms after the flood. Loopback only; bounded in
time (about --seconds + 30 s).

    python3 bench/creation_flood.py
    python3 bench/creation_flood.py --checkout DIR   # another checkout, for a before/after figure
    python3 bench/creation_flood.py --devices 8 --play   # 8 devices, each table played: the board's bound
"""

from __future__ import annotations

import argparse
import http.client
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import serving  # noqa: E402

FLOODER, PHONE = "127.0.0.2", "127.0.0.3"


class Device:
    """One keep-alive connection from a given source address, keeping cookies."""

    def __init__(self, port: int, source: str = serving.HOST):
        self.port, self.source = port, source
        self.conn: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict | None = None) -> tuple[int, dict, bytes]:
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(serving.HOST, self.port, timeout=30,
                                                       source_address=(self.source, 0))
            headers = {"Host": f"{serving.HOST}:{self.port}"}
            body = None
            if form is not None:
                body = urllib.parse.urlencode(form).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            if self.cookies:
                headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt == 2:
                    return 0, {}, b""
                continue
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key.strip()] = rest.split(";", 1)[0]
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return response.status, dict(response.getheaders()), data
        return 0, {}, b""

    def csrf(self, path: str) -> str:
        _status, _h, page = self.request("GET", path)
        return re.search(rb'name="csrf_token" value="([^"]+)"', page).group(1).decode()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def table_form(device: Device, names: list[str]) -> dict:
    return {"csrf_token": device.csrf(f"/tables/new?game=rwd&players={len(names)}"), "game": "rwd",
            "players": str(len(names)), **{f"name-{i}": n for i, n in enumerate(names)}}


def open_and_play(laptop: Device, n: int) -> str:
    status, headers, _ = laptop.request("POST", "/tables", table_form(laptop, [f"T{n}a", f"T{n}b", f"T{n}c", f"T{n}d"]))
    assert status == 303, status
    token = headers["Location"].rsplit("/", 1)[-1]
    form = {"csrf_token": laptop.csrf(f"/t/{token}"), "number": "1",
            **{f"chips-{i}": str(c) for i, c in enumerate([4, 3, 3, 3])},
            **{f"tricks-{i}": str(t) for i, t in enumerate([6, 2, 3, 2])}}
    status, _h, _ = laptop.request("POST", f"/t/{token}/deals", form)
    assert status == 303, status
    return token


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def ms(value: float) -> float:
    return round(value * 1000, 1)


def run(args, port: int, db: Path) -> dict:
    laptop = Device(port)
    tokens = [open_and_play(laptop, n) for n in range(args.tables)]
    stop = threading.Event()
    answers: Counter = Counter()
    phone_times: list[float] = []
    board_times: list[float] = []

    def flood(loop: int) -> None:
        device = Device(port, FLOODER if args.devices == 1 else f"127.0.1.{2 + loop % args.devices}")
        form = table_form(device, ["X", "Y", "Z", "W"])
        while not stop.is_set():
            status, headers, _ = device.request("POST", "/tables", form)
            answers[status] += 1
            if status == 303 and args.play:  # and plays a deal there: a table of the night
                token = headers["Location"].rsplit("/", 1)[-1]
                deal = {"csrf_token": device.csrf(f"/t/{token}"), "number": "1",
                        **{f"chips-{i}": str(c) for i, c in enumerate([4, 3, 3, 3])},
                        **{f"tricks-{i}": str(t) for i, t in enumerate([6, 2, 3, 2])}}
                answers[f"deal {device.request('POST', f'/t/{token}/deals', deal)[0]}"] += 1
        device.close()

    def phone() -> None:
        device = Device(port, PHONE)
        while not stop.is_set():
            start = time.perf_counter()
            device.request("GET", f"/t/{tokens[0]}")
            phone_times.append(time.perf_counter() - start)
            stop.wait(0.2)

    def projector() -> None:
        device = Device(port)
        while not stop.is_set():
            start = time.perf_counter()
            device.request("GET", "/hall/board")
            board_times.append(time.perf_counter() - start)
            stop.wait(1.0)

    threads = [threading.Thread(target=flood, args=(loop,)) for loop in range(args.loops)]
    threads += [threading.Thread(target=phone), threading.Thread(target=projector)]
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in threads:
        thread.join(60)
    opened = sqlite3.connect(db).execute("SELECT count(*) FROM tables").fetchone()[0] - args.tables
    # After the flood: the board as the projector renders it (no signature: rendered each time).
    after: list[float] = []
    size = 0
    for _ in range(20):
        start = time.perf_counter()
        status, _h, body = laptop.request("GET", "/hall/board")
        after.append(time.perf_counter() - start)
        assert status == 200, status
        size = len(body)
    status, _h, hall = laptop.request("GET", "/hall")
    return {
        "flood": {"seconds": args.seconds, "loops": args.loops, "tables_opened": opened,
                  "devices": args.devices, "play": args.play,
                  "answers": dict(sorted(answers.items(), key=str))},
        "other_phone_page_during_flood": {"n": len(phone_times), "p50_ms": ms(statistics.median(phone_times)),
                                          "p99_ms": ms(percentile(phone_times, 99))},
        "projector_board_during_flood": {"n": len(board_times), "p50_ms": ms(statistics.median(board_times)),
                                         "max_ms": ms(max(board_times))},
        "board_after": {"median_ms": ms(statistics.median(after)), "p90_ms": ms(percentile(after, 90)),
                        "bytes": size, "tables_shown": body.count(b'id="hall-table-')},
        "hall_page_bytes": len(hall) if status == 200 else f"status {status}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--loops", type=int, default=8, help="the flooding device's connections")
    parser.add_argument("--tables", type=int, default=8, help="tables the laptop opens and plays first")
    parser.add_argument("--devices", type=int, default=1,
                        help="flood from this many devices (127.0.1.2…; the loops shared among them)")
    parser.add_argument("--play", action="store_true", help="play a deal at each table opened (tables of the night)")
    serving.add_checkout_option(parser)
    args = parser.parse_args()
    serving.use_checkout(args.checkout)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        proc, port = serving.start_server(tmp_path)
        try:
            result = run(args, port, tmp_path / "x.sqlite")
        finally:
            serving.stop_server(proc)
    print(f"server: {serving.ROOT}")
    for key, value in result.items():
        print(f"{key}: {value}")
    median = result["board_after"]["median_ms"]
    ok = median <= 100
    print(f"target: the hall board renders in <= 100 ms after a {args.seconds:g} s creation flood "
          f"({median} ms): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
