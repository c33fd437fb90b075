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


def serve_command(port: int, db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "companion.cli", "serve", "--host", HOST, "--port", str(port),
            "--db", str(db), "--no-qr", *extra]


def start_server(tmp: Path, *extra: str) -> tuple[subprocess.Popen, int]:
    """Start a server with its database and log in ``tmp``; returns once it accepts connections.
    ``extra``: more `serve` options (e.g. "--per-device", "10000" when every phone is this machine)."""
    port = free_port()
    with open(tmp / "serve.log", "wb") as log:
        proc = subprocess.Popen(serve_command(port, tmp / "x.sqlite", *extra), cwd=tmp, env=server_env(), stdout=log,
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
        token, csrf = await new_table(Conn(port), "W")
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
        poster = Conn(port)
        poster.cookies = {}
        token2, csrf2 = token, csrf
        start = time.perf_counter()
        conn = Conn(port)
        _t, csrf_new = await new_table(conn, "X")  # a session with a CSRF token, then the deal on the watched table
        status, body = await conn.request("GET", f"/t/{token2}")
        import re as _re
        csrf_page = _re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
        start = time.perf_counter()
        status, _ = await conn.request("POST", f"/t/{token2}/deals", deal_form(csrf_page, 1, 1))
        heard = [t for t in await asyncio.gather(*waiting) if t is not None]
        for w in conns:
            w.close()
        return {"status": status, "heard": len(heard), "of": streams,
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
        print(f"{name}: {result['heard']} of {result['of']} streams heard the deal within 8 s"
              f" (last after {result['last_ms']} ms); server RSS {result['rss_mb']} MB", flush=True)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Compare servers for held event streams.")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--streams", type=int, default=300)
    options = parser.parse_args()
    if options.compare:
        compare(options.streams)
