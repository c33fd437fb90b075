"""Many addresses, one attacker: does the room stay served? (issue 32 item 7)

Starts `companion serve` on loopback (its default limits) with one heavy table (an RWD match of
100 deals, bench/heavy_table.py's) and ``--tables`` ordinary ones. Every "device" is its own
loopback source address. Three phases, one after another:

1. alone: the other phones (127.0.0.10…, one per ordinary table: its live check every 200 ms,
   its page every 2 s) and the laptop (127.0.0.1: the hall every 200 ms), nothing else;
2. hammered: the same while ``--hammerers`` addresses (127.1.x.y) each ask the heavy table's
   heaviest page (``?all=1``) in a keep-alive loop, as fast as they are answered;
3. streams: the same while ``--addresses`` addresses (127.2.x.y) each try to hold
   ``--streams`` event streams open (spread over the ordinary tables); a stream the server
   closes is opened again a second later, a refused one after 1, 2, 4, 5, 5… s (as a page's
   hx-sse does);
4. live-many and live-one (issue 42): the same while 100 addresses x 4 keep-alive connections, then
   one address with 60, ask an ordinary table's "unchanged?" (its live URL, a 204) as fast as
   they are answered (bench/fair_share.py's floods);
5. draw (issue 42): the same while the laptop draws a round for ``--draw-players`` players
   on tonight's list with 500 never-together pairs no seating satisfies (the search runs to its
   end, seconds long): measured from the draw's POST until its answer.

Reports per phase the other phones' and the laptop's p50/p99 (answers that never came count as
their timeout), their statuses, and the load average at the phase's end; for phase 3 the streams
held at its end. Targets: other phones' p99 <= 250 ms while the hammerers hammer; the laptop's
hall p99 <= 250 ms while the addresses hold their streams; both <= 250 ms under each live flood
and while the draw runs. Loopback only; bounded in time
(about --alone + 2 x --seconds + 30 s).

    python3 bench/many_devices.py
    python3 bench/many_devices.py --checkout DIR   # another checkout, for a before/after figure
    python3 bench/many_devices.py --streams 8 --max-connections 2000   # the cap filled with fewer sockets
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import serving  # noqa: E402
from bench.fair_share import Conn, database_for, more_tables, summary  # noqa: E402
from bench.fair_share import hammer as flood  # noqa: E402

ASK_TIMEOUT_S = 10.0  # an answer not come by then counts as this long
# The attacking process's figures (shared memory): its streams, and its answers by status.
COUNTERS = ("open", "most open", "opened", "closed by the server", "refused",
            "answered 200", "answered 204", "answered 503", "answered 429", "answered 0")


def progress(phase: str, figures: dict) -> None:
    print(f"{phase}: {figures}", file=sys.stderr, flush=True)


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def address(block: int, n: int) -> str:
    """The n-th device of a block of addresses: 127.<block>.<n // 250>.<n % 250 + 1>."""
    return f"127.{block}.{n // 250}.{n % 250 + 1}"


def raise_open_files() -> None:
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def watchers(port: int, tokens: list[tuple[str, int]], stop: asyncio.Event) -> dict:
    """The other phones and the laptop, until ``stop``: their answer times and statuses."""
    phone_times: list[float] = []
    laptop_times: list[float] = []
    statuses: dict[str, int] = {}

    def note(kind: str, status: int, took: float, times: list[float]) -> None:
        times.append(took if status else max(took, ASK_TIMEOUT_S))
        statuses[f"{kind} {status}"] = statuses.get(f"{kind} {status}", 0) + 1

    async def phone(index: int, token: str, revision: int) -> None:
        conn = Conn(port, f"127.0.0.{10 + index}")
        next_page = time.perf_counter() + (index % 10) / 5
        while not stop.is_set():
            status, took = await conn.get(f"/t/{token}/live?rev={revision}", ASK_TIMEOUT_S)
            note("live", status, took, phone_times)
            if time.perf_counter() >= next_page:
                status, took = await conn.get(f"/t/{token}", ASK_TIMEOUT_S)
                note("page", status, took, phone_times)
                next_page += 2.0
            await asyncio.sleep(0.2)
        conn.close()

    async def laptop() -> None:
        conn = Conn(port, "127.0.0.1")
        while not stop.is_set():
            status, took = await conn.get("/hall", ASK_TIMEOUT_S)
            note("hall", status, took, laptop_times)
            await asyncio.sleep(0.2)
        conn.close()

    await asyncio.gather(laptop(), *(phone(i, t, r) for i, (t, r) in enumerate(tokens)))
    return {"others": summary(phone_times), "laptop_hall": summary(laptop_times),
            "statuses": dict(sorted(statuses.items()))}


async def measured(port: int, tokens: list[tuple[str, int]], seconds: float) -> dict:
    stop = asyncio.Event()
    watching = asyncio.create_task(watchers(port, tokens, stop))
    await asyncio.sleep(seconds)
    stop.set()
    result = await watching
    result["load_average"] = load_average()
    return result


async def hammer(port: int, heavy: str, devices: int, stop: asyncio.Event, counts: dict) -> None:
    async def loop(source: str) -> None:
        conn = Conn(port, source)
        while not stop.is_set():
            status, _ = await conn.get(f"/t/{heavy}?all=1", ASK_TIMEOUT_S)
            counts[status] = counts.get(status, 0) + 1
            if status in (0, 429, 503):
                await asyncio.sleep(0.05)  # refused or cut: a browser would not retry faster
        conn.close()

    await asyncio.gather(*(loop(address(1, n)) for n in range(devices)))


async def hold_streams(port: int, tokens: list[str], addresses: int, streams: int, stop: asyncio.Event,
                       held: dict) -> None:
    """Each address keeps trying to hold ``streams`` streams; ``held``: how many are open now,
    how many were opened and how many the server closed or refused."""
    async def one(source: str, token: str) -> None:
        failures = 0
        while not stop.is_set():
            writer = None
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(serving.HOST, port, local_addr=(source, 0)), ASK_TIMEOUT_S)
                writer.write(f"GET /t/{token}/events HTTP/1.1\r\nHost: {serving.HOST}:{port}\r\n\r\n".encode())
                first = await asyncio.wait_for(reader.readline(), ASK_TIMEOUT_S)
                if not first.startswith(b"HTTP/1.1 200"):
                    raise ConnectionError(first[:40])
                held["opened"] += 1
                held["open"] += 1
                failures = 0
                try:
                    while await reader.read(4096):
                        pass
                finally:
                    held["open"] -= 1
                held["closed by the server"] += 1
            except (OSError, asyncio.TimeoutError, ConnectionError, ValueError):
                held["refused"] += 1
                failures += 1
            finally:
                if writer is not None:
                    writer.close()
            # As a page's hx-sse: the stream's retry (1 s) after it ended, doubling after each
            # refusal up to reconnectMaxDelay (5 s, templates/base.html), +-30 %.
            await asyncio.sleep(min(2.0 ** max(0, failures - 1), 5.0) * random.uniform(0.7, 1.3))

    tasks = [asyncio.create_task(one(address(2, n), tokens[(n * streams + s) % len(tokens)]))
             for n in range(addresses) for s in range(streams)]
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def attack(kind: str, port: int, target, devices: int, streams: int, stop_flag, results) -> None:
    """In a process of its own (so the attackers' loops never delay the phones' measured
    requests): ``kind`` "hammer" or "streams", until ``stop_flag`` is set; figures to ``results``."""
    raise_open_files()

    async def main() -> None:
        stop = asyncio.Event()
        figures: dict = {}
        if kind == "hammer":
            figures["answers"] = {}
            attackers = asyncio.create_task(hammer(port, target, devices, stop, figures["answers"]))
        elif kind in ("live-many", "live-one"):  # target: the live URL; devices: addresses, or connections
            figures["answers"] = {}
            attackers = asyncio.create_task(flood(port, "", devices, stop, figures["answers"], attack=kind,
                                                  live=target, addresses=devices))
        else:
            figures.update({"open": 0, "opened": 0, "closed by the server": 0, "refused": 0, "most open": 0})
            attackers = asyncio.create_task(hold_streams(port, target, devices, streams, stop, figures))
        while not stop_flag.is_set():
            await asyncio.sleep(0.2)
            figures["most open"] = max(figures.get("most open", 0), figures.get("open", 0))
            flat = dict(figures, **{f"answered {k}": v for k, v in figures.get("answers", {}).items()})
            for n, name in enumerate(COUNTERS):  # shared memory: the parent reads them as they are
                results[n] = flat.get(name, 0)
        stop.set()
        try:
            await asyncio.wait_for(attackers, 20)
        except asyncio.TimeoutError:
            pass

    asyncio.run(main())


def attacking(kind: str, port: int, target, devices: int, streams: int = 0):
    """Start :func:`attack` in its own process; returns a function that stops it and gives its figures."""
    context = multiprocessing.get_context("spawn")
    stop_flag, results = context.Event(), context.Array("q", len(COUNTERS), lock=False)
    process = context.Process(target=attack, args=(kind, port, target, devices, streams, stop_flag, results))
    process.start()

    def stop() -> dict:
        figures = {name: results[n] for n, name in enumerate(COUNTERS) if results[n]}
        stop_flag.set()
        process.join(30)
        if process.is_alive():
            process.kill()
        return figures

    return stop


async def run(args, port: int, heavy: str, light: list[tuple[str, int]]) -> dict:
    light = light + await more_tables(port, args.tables - len(light))
    warm = Conn(port, "127.0.0.1")
    await warm.get(f"/t/{heavy}?all=1")  # first replay, templates compiled
    await warm.get("/hall")
    warm.close()
    result = {"alone": await measured(port, light, args.alone)}
    progress("alone", result["alone"])

    stop = attacking("hammer", port, heavy, args.hammerers)
    await asyncio.sleep(2.0)  # the process started, its loops going
    result["hammered"] = await measured(port, light, args.seconds)
    result["hammered"]["hammerers"] = stop()
    progress("hammered", result["hammered"])
    await asyncio.sleep(2.0)

    stop = attacking("streams", port, [t for t, _ in light], args.addresses, args.streams)
    await asyncio.sleep(args.ramp)  # the streams opened
    result["streams"] = await measured(port, light, args.seconds)
    result["streams"]["streams"] = stop()
    progress("streams", result["streams"])
    await asyncio.sleep(2.0)

    live = f"/t/{light[0][0]}/live?rev={light[0][1]}"
    for kind, devices in (("live-many", 100), ("live-one", 60)):
        stop = attacking(kind, port, live, devices)
        await asyncio.sleep(2.0)
        result[kind] = await measured(port, light, args.seconds)
        result[kind]["flood"] = stop()
        progress(kind, result[kind])
        await asyncio.sleep(3.0)  # the tarpitted asks answered, the flood's connections gone

    if args.draw_players:
        stop_watching = asyncio.Event()
        watching = asyncio.create_task(watchers(port, light, stop_watching))
        await asyncio.sleep(1.0)
        took, status = await asyncio.to_thread(draw_a_round, port, args.draw_players)
        stop_watching.set()
        result["draw"] = await watching
        result["draw"].update(draw_seconds=round(took, 2), draw_status=status, load_average=load_average())
        progress("draw", result["draw"])
    return result


def never_pairs(players: int, pairs: int = 500) -> list[str]:
    """``pairs`` never-together pairs among P1…P<players>: P1 with everyone, then P2…, so the
    early names can't all be parted and the search runs to its end. As both trees' forms take
    them: the first value as lines of names ("P1 + P2", the form before issue 44), then each pair
    picked by player id ("1-2"; P<n> is player n on a fresh database), which the older form
    never reads and the newer one reads alone (a line of names is no pair of ids to it)."""
    found = [(a, b) for a in range(1, players + 1) for b in range(a + 1, players + 1)][:pairs]
    return ["\n".join(f"P{a} + P{b}" for a, b in found)] + [f"{a}-{b}" for a, b in found]


def draw_a_round(port: int, players: int) -> tuple[float, int]:
    """The laptop's draw (its form, its session), as its hall posts it: (seconds, status)."""
    import http.client
    import re

    conn = http.client.HTTPConnection(serving.HOST, port, timeout=120, source_address=("127.0.0.1", 0))
    conn.request("GET", "/hall")
    response = conn.getresponse()
    page = response.read().decode()
    cookie = "; ".join(value.split(";", 1)[0] for key, value in response.getheaders() if key.lower() == "set-cookie")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    from urllib.parse import urlencode

    body = urlencode({"csrf_token": csrf, "draw": "1", "offer-rwd": "1", "offer-lucky_cube": "1",
                      "never": never_pairs(players)}, doseq=True)
    started = time.perf_counter()
    conn.request("POST", "/hall/rounds", body, {"Content-Type": "application/x-www-form-urlencoded",
                                                 "Cookie": cookie, "Host": f"{serving.HOST}:{port}"})
    response = conn.getresponse()
    response.read()
    took = time.perf_counter() - started
    conn.close()
    return took, response.status


def add_players(tree: Path, database: Path, players: int) -> None:
    """``players`` on tonight's list (P1…), written by the code of the tree to be served."""
    import subprocess

    script = ("import sys; sys.path[:0] = [sys.argv[1]]; from companion import store;"
              " from companion.night import service as night; conn = store.connect(sys.argv[2]);"
              " [night.join(conn, f'P{n}') for n in range(1, int(sys.argv[3]) + 1)]; conn.close()")
    subprocess.run([sys.executable, "-c", script, str(tree), str(database), str(players)], check=True, cwd=tree)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hammerers", type=int, default=64, help="addresses hammering the heavy page")
    parser.add_argument("--addresses", type=int, default=300, help="addresses holding streams")
    parser.add_argument("--streams", type=int, default=60, help="streams each of them tries to hold")
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds measured per phase")
    parser.add_argument("--alone", type=float, default=5.0, help="seconds of the phones alone first")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds the streams open before measuring")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--max-connections", type=int, default=0,
                        help="the server's cap on the phones' connections (0: its default, from the open-file "
                             "limit); a smaller cap lets fewer streams fill it")
    parser.add_argument("--draw-players", type=int, default=200,
                        help="players on tonight's list for the draw phase (0: no draw phase)")
    serving.add_checkout_option(parser)
    args = parser.parse_args()
    serving.use_checkout(args.checkout)
    raise_open_files()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        heavy, light, revision = database_for(serving.ROOT, tmp_path / "x.sqlite")
        if args.draw_players:
            add_players(serving.ROOT, tmp_path / "x.sqlite", args.draw_players)
        extra = ("--max-connections", str(args.max_connections)) if args.max_connections else ()
        proc, port = serving.start_server(tmp_path, *extra)
        try:
            result = asyncio.run(run(args, port, heavy, [(light, revision)]))
        finally:
            serving.stop_server(proc)
    print(f"server: {serving.ROOT}")
    for phase, figures in result.items():
        print(f"{phase}:")
        for key, value in figures.items():
            print(f"  {key}: {value}")
    others = result["hammered"]["others"].get("p99_ms", float("inf"))
    hall = result["streams"]["laptop_hall"].get("p99_ms", float("inf"))
    ok = others <= 250 and hall <= 250
    flooded = ""
    for kind in ("live-many", "live-one"):
        worst = max(result[kind]["others"].get("p99_ms", float("inf")), result[kind]["laptop_hall"].get("p99_ms", float("inf")))
        ok = ok and worst <= 250
        flooded += f"; other phones' and the laptop's p99 under {kind} <= 250 ms ({worst})"
    drawing = ""
    if "draw" in result:
        during = max(result["draw"]["others"].get("p99_ms", float("inf")),
                     result["draw"]["laptop_hall"].get("p99_ms", float("inf")))
        ok = ok and during <= 250 and result["draw"]["draw_status"] == 303
        drawing = (f"; other phones' and the laptop's p99 while a {result['draw']['draw_seconds']} s draw runs "
                   f"<= 250 ms ({during}, answered {result['draw']['draw_status']})")
    print(f"targets: other phones' p99 while {args.hammerers} addresses hammer <= 250 ms ({others}, load "
          f"{result['hammered']['load_average']}); the laptop's hall p99 while {args.addresses} addresses hold "
          f"their streams <= 250 ms ({hall}, load {result['streams']['load_average']}){flooded}{drawing}: "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
