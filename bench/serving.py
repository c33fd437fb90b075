"""`companion serve` for the benchmarks: on loopback only, with a throw-away database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def server_env() -> dict[str, str]:
    """This checkout's companion, whether or not it is installed; output unbuffered for the log."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def serve_command(port: int, db: Path | str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "companion.cli", "serve", "--host", HOST, "--port", str(port),
            "--db", str(db), "--no-qr", *extra]


def start_server(tmp: Path, *extra: str, db: str | None = None) -> tuple[subprocess.Popen, int]:
    """Start a server with its database and log in ``tmp``; returns once it accepts connections.
    ``extra``: more `serve` options (e.g. "--per-device", "10000" when every phone is this machine);
    ``db``: a PostgreSQL URL instead of the SQLite file ``tmp/x.sqlite``."""
    port = free_port()
    with open(tmp / "serve.log", "wb") as log:
        proc = subprocess.Popen(serve_command(port, db or tmp / "x.sqlite", *extra), cwd=tmp, env=server_env(), stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited: " + (tmp / "serve.log").read_text(errors="replace")[-2000:])
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return proc, port
        except OSError:
            time.sleep(0.05)
    stop_server(proc)
    raise RuntimeError("server did not start within 20 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def add_checkout_option(parser) -> None:
    """``--checkout DIR``: serve another source tree instead (for a before/after figure)."""
    parser.add_argument("--checkout", type=Path, default=None, help="serve this source tree instead")


def use_checkout(checkout: Path | None) -> None:
    """Serve ``checkout`` (``--checkout``) instead of this tree, when one was given."""
    global ROOT
    if checkout is not None:
        ROOT = checkout.resolve()


# --- which server: measured -------------------------------------------------------------------
#
#     python3 bench/serving.py --compare --streams 300
#
# One table, --streams phones holding its event stream, then one deal: how many streams heard
# "changed" within 2 s, how long the last one took, and the server's memory, for
# `companion serve` (gevent) and for the same app under waitress with the 16 threads
# `serve` used before. waitress gives each streaming response a thread until it ends, so the
# 17th phone's stream waits for a thread that never frees.

WAITRESS = ("import sys\nfrom waitress import serve\nfrom companion import create_app\n"
            "serve(create_app({'DATABASE': sys.argv[1]}), host='127.0.0.1', port=int(sys.argv[2]), threads=16,"
            " connection_limit=2000, channel_timeout=30)\n")


def compare(streams: int) -> None:
    import asyncio
    import tempfile

    from load import Conn, deal_form, new_table, rss_mb

    async def measure(port: int, proc) -> dict:
        setup = Conn(port)
        token, csrf = await new_table(setup, "W")
        conns = []

        async def hold() -> float | None:
            reader, writer = await asyncio.open_connection(HOST, port)
            conns.append(writer)
            writer.write(f"GET /t/{token}/events?rev=0 HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode())
            await writer.drain()
            try:
                while True:
                    line = await asyncio.wait_for(reader.readline(), 8)
                    if line.startswith(b"event: changed"):
                        return time.perf_counter()
                    if not line:
                        return None
            except asyncio.TimeoutError:
                return None

        waiting = [asyncio.create_task(hold()) for _ in range(streams)]
        await asyncio.sleep(2)
        memory = rss_mb(proc.pid)
        start = time.perf_counter()
        try:  # the same phone's session saves a deal on the watched table
            status, _ = await asyncio.wait_for(
                Conn.request(setup, "POST", f"/t/{token}/deals", deal_form(csrf, 1, 1)), 10)
        except asyncio.TimeoutError:
            status = "no answer within 10 s"
        saved_ms = round((time.perf_counter() - start) * 1000, 1)
        heard = [t for t in await asyncio.gather(*waiting) if t is not None]
        for w in conns:
            w.close()
        return {"status": status, "saved_ms": saved_ms, "heard": len(heard), "of": streams,
                "last_ms": round((max(heard) - start) * 1000, 1) if heard else None, "rss_mb": round(memory, 1)}

    for name in ("gevent (companion serve)", "waitress, 16 threads"):
        tmp = Path(tempfile.mkdtemp())
        if name.startswith("gevent"):
            proc, port = start_server(tmp, "--per-device", "100000")
        else:
            port = free_port()
            proc = subprocess.Popen([sys.executable, "-c", WAITRESS, str(tmp / "x.sqlite"), str(port)], cwd=tmp,
                                    env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(2.5)
        try:
            result = asyncio.run(measure(port, proc))
        finally:
            stop_server(proc)
        print(f"{name}: deal answered {result['status']} after {result['saved_ms']} ms; {result['heard']} of "
              f"{result['of']} streams heard it within 8 s (last after {result['last_ms']} ms); "
              f"server RSS {result['rss_mb']} MB", flush=True)


# --- one device's idle connections ------------------------------------------------------------
#
#     python3 bench/serving.py --idle-flood
#
# One "device" (source address 127.0.0.2; Linux routes all of 127/8 to loopback) opens more
# and more idle connections; another phone (127.0.0.1) polls its table meanwhile. Reported:
# the poll's p99 at each step, and the largest count with p99 <= 100 ms. Run with the
# per-device cap lifted (what a whole venue of phones could hold) and with the default cap.


def idle_flood(steps: list[int], per_device: int) -> None:
    import asyncio
    import tempfile

    from load import Conn, new_table, pct

    def server_sockets(pid: int) -> str:
        try:
            return str(sum(os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
                           for fd in os.listdir(f"/proc/{pid}/fd")))
        except OSError:
            return "?"

    async def measure(port: int) -> None:
        phone = Conn(port)
        token, _csrf = await new_table(phone, "F")
        held: list = []
        best = 0
        for target in steps:
            while len(held) < target:
                try:
                    sock = socket.socket()
                    sock.setblocking(False)
                    sock.bind(("127.0.0.2", 0))
                    try:
                        sock.connect(("127.0.0.1", port))
                    except BlockingIOError:
                        pass
                    held.append(sock)
                except OSError as exc:
                    print(f"  client stopped at {len(held)} connections: {exc}")
                    target = len(held)
                    break
                if len(held) % 500 == 0:
                    await asyncio.sleep(0)  # let the server accept
            await asyncio.sleep(1.0)
            times = []
            for _ in range(50):
                start = time.perf_counter()
                status, _ = await phone.request("GET", f"/t/{token}/live?rev=0&form=1")
                times.append(time.perf_counter() - start)
                assert status == 204, status
                await asyncio.sleep(0.02)
            p99 = pct(times, 99)
            print(f"  {len(held):>6} idle connections from one device ({server_sockets(proc.pid)} sockets open "
                  f"in the server): another phone's poll p50 {pct(times, 50):.1f} ms, p99 {p99:.1f} ms", flush=True)
            if p99 <= 100:
                best = len(held)
            else:
                break
        print(f"largest count with the poll p99 <= 100 ms: {best} (per-device cap {per_device})")
        for sock in held:
            sock.close()

    tmp = Path(tempfile.mkdtemp())
    proc, port = start_server(tmp, "--per-device", str(per_device), "--header-timeout", "600")
    try:
        asyncio.run(measure(port))
    finally:
        stop_server(proc)
        log = (tmp / "serve.log").read_text(errors="replace")
        print(f"server log: {len(log.splitlines())} lines; flood lines: "
              f"{sum('127.0.0.2' in line for line in log.splitlines())}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Compare servers for held event streams.")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--idle-flood", action="store_true")
    parser.add_argument("--per-device", type=int, default=100000, help="idle flood: the server's per-device cap")
    options = parser.parse_args()
    if options.compare:
        compare(options.streams)
    if options.idle_flood:
        try:
            import resource
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ImportError, ValueError, OSError):
            pass
        idle_flood([500, 1000, 2000, 4000, 8000, 16000], options.per_device)
