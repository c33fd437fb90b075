"""`companion serve` under a service manager (issue 46: docs/systemd/companion.service is
Type=notify): READY=1 reaches $NOTIFY_SOCKET only once the season is loaded and the port
answers, so systemd starts what waits for it (a proxy, the backup timer's first run) at the
right moment. A READY sent at the process's start would arrive while nothing listens yet (the
app, the database and the season take a second or more): this test would see the port closed."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO_ROOT, Phone, free_port

pytestmark = [pytest.mark.slow,  # starts `companion serve`
              pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="unix datagram sockets")]


def start(tmp_path: Path, notify: str, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", NOTIFY_SOCKET=notify,
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    with open(tmp_path / "serve.log", "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                                 "--port", str(port), "--db", str(tmp_path / "scores.sqlite"), "--no-qr"],
                                env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)


@pytest.mark.parametrize("named", ["file", "abstract"])
def test_ready_comes_once_the_season_is_loaded_and_the_port_answers(tmp_path, named):
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if named == "abstract":  # systemd's own way: "@name" in NOTIFY_SOCKET, "\0name" on the socket
        name = f"companion-test-{secrets.token_hex(6)}"
        listening.bind("\0" + name)
        notify = "@" + name
    else:
        notify = str(tmp_path / "notify")
        listening.bind(notify)
    port = free_port()
    proc = start(tmp_path, notify, port)
    try:
        listening.settimeout(90)
        started = time.monotonic()
        try:
            message = listening.recv(4096)  # the first message: nothing comes before READY
        except TimeoutError:
            raise AssertionError((tmp_path / "serve.log").read_text(errors="replace")[-2000:]) from None
        # At once: no retry, no wait. Sent at the start, READY would find the port closed.
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        status, _headers, body = Phone(port).request_once("GET", "/readyz")
        assert message == b"READY=1"
        assert (status, body) == (200, "ready")
        assert "is running." in (tmp_path / "serve.log").read_text()  # said once the season was loaded
        assert time.monotonic() - started < 90
    finally:
        stop(proc)
        listening.close()
    assert proc.returncode == 0


def test_without_a_notify_socket_nothing_is_sent_and_an_unreachable_one_is_no_trouble(tmp_path):
    from companion import systemd

    assert systemd.notify("READY=1", environ={}) is False
    assert systemd.notify("READY=1", environ={"NOTIFY_SOCKET": str(tmp_path / "nobody")}) is False
