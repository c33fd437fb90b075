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
