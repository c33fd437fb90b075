"""/metrics of `companion serve --workers 2` (issue 46): one scrape, answered by whichever worker
the kernel hands it to, counts what both workers served; the streams open are both workers'
(and no longer a killed one's); a phone gets 403, a `--metrics-from` address 200. With a
service manager's NOTIFY_SOCKET, READY=1 comes once, from the parent (NotifyAccess=main), with
both workers serving."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from helpers import REPO_ROOT, Phone, free_port, raw, request_on_new_connection, status_of

pytestmark = [pytest.mark.slow,  # starts `companion serve` processes
              pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads worker ids from /proc (Linux)")]

MONITOR = "127.0.0.5"
REQUESTS = 120


def children(pid: int) -> set[int]:
    return {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


def notify_socket(path: Path) -> socket.socket:
    """A datagram socket as a service manager holds one, telling each sender's process id."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    sock.bind(str(path))
    return sock


def receive(sock: socket.socket, timeout: float) -> tuple[bytes, int]:
    """The next message and its sender's process id."""
    sock.settimeout(timeout)
    message, extra, _flags, _address = sock.recvmsg(4096, socket.CMSG_SPACE(12))
    pid = next(struct.unpack("i", data[:4])[0] for level, kind, data in extra
               if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS)
    return message, pid


def scrape(port: int, source: str = MONITOR) -> dict[tuple, float]:
    status, _headers, text = Phone(port, source).request_once("GET", "/metrics")
    assert status == 200, status
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: dict[tuple, float], name: str, **labels: str) -> float:
    wanted = set(labels.items())
    return sum(v for (n, found), v in samples.items() if n == name and wanted <= set(found))


def own_counts(folder: Path, pid: int, tmp_path: Path) -> dict[tuple, float]:
    """What one worker alone counted: its own counter file, read as a scrape of it alone would."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    alone = tmp_path / f"alone-{pid}"
    alone.mkdir()
    shutil.copy(folder / f"counter_{pid}.db", alone)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(alone))
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(generate_latest(registry).decode())
            for sample in family.samples}


def open_stream(port: int, token: str, source: str) -> socket.socket:
    """A phone's table stream, held open (its "hello" read)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    sock.sendall(f"GET /t/{token}/events?rev=0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    got = b""
    while b"event: hello" not in got:
        chunk = sock.recv(4096)
        assert chunk, got
        got += chunk
    return sock


def test_one_scrape_counts_both_workers_and_only_the_organiser_and_the_monitor_read_it(postgres_database,
                                                                                         tmp_path):
    listening = notify_socket(tmp_path / "notify")
    env = dict(os.environ, PYTHONUNBUFFERED="1", NOTIFY_SOCKET=str(tmp_path / "notify"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    port, log = free_port(), tmp_path / "workers.log"
    with open(log, "ab") as out:
        parent = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                                   "--port", str(port), "--db", postgres_database, "--no-qr", "--workers", "2",
                                   "--metrics-from", MONITOR],
                                  env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    streams: list[socket.socket] = []
    try:
        try:
            message, sender = receive(listening, 90)
        except TimeoutError:
            raise AssertionError(log.read_text(errors="replace")[-2000:]) from None
        # Ready: said once, by the parent (a worker's READY would need NotifyAccess=all), both
        # workers up and the port answering.
        assert message == b"READY=1" and sender == parent.pid
        workers = children(parent.pid)
        assert len(workers) == 2
        assert Phone(port).request_once("GET", "/readyz")[0] == 200
        folder = Path(next(line.split(b"=", 1)[1] for line in
                           Path(f"/proc/{min(workers)}/environ").read_bytes().split(b"\0")
                           if line.startswith(b"PROMETHEUS_MULTIPROC_DIR=")).decode())

        before = scrape(port)
        with ThreadPoolExecutor(8) as pool:  # each on a connection of its own: the kernel picks the worker
            statuses = list(pool.map(lambda _: request_on_new_connection(port, "127.0.0.1", "/healthz"),
                                     range(REQUESTS)))
        assert statuses == [200] * REQUESTS
        after = scrape(port)
        healthz = {"route": "/healthz", "method": "GET", "status": "200"}
        assert value(after, "companion_requests_total", **healthz) - \
            value(before, "companion_requests_total", **healthz) == REQUESTS
        each = {pid: value(own_counts(folder, pid, tmp_path), "companion_requests_total", **healthz)
                for pid in workers}
        assert all(count > 0 for count in each.values()), each  # both answered some...
        assert sum(each.values()) == value(after, "companion_requests_total", **healthz)  # ...one scrape has all

        # Streams open on both workers, summed; a killed worker's are no longer open.
        token = Phone(port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        streams = [open_stream(port, token, f"127.0.0.{10 + n}") for n in range(8)]
        assert value(scrape(port), "companion_open_streams", page="table") == 8
        killed = min(workers)
        os.kill(killed, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while killed in children(parent.pid) or len(children(parent.pid)) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        alive = []
        for sock in streams:  # the killed worker's streams ended with it
            sock.settimeout(0.5)
            try:
                alive.append(sock.recv(4096, socket.MSG_PEEK) != b"")
            except TimeoutError:
                alive.append(True)
            except ConnectionError:
                alive.append(False)
        assert 0 < sum(alive) < 8, alive  # the kernel gave each worker some
        assert value(scrape(port), "companion_open_streams", page="table") == sum(alive)

        # The server's own refusals, before any worker's app: counted as the app's answers are.
        assert status_of(raw(port, b"POST /tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n",
                             source="127.0.0.3")) == 413
        samples = scrape(port)
        assert value(samples, "companion_refusals_total", reason="large") == 1
        assert value(samples, "companion_requests_total", route="/tables", method="POST", status="413") == 1

        # Who may read it: the laptop itself and the monitor; a phone, or the monitor's neighbour, not.
        assert request_on_new_connection(port, "127.0.0.1", "/metrics") == 200
        assert request_on_new_connection(port, MONITOR, "/metrics") == 200
        assert request_on_new_connection(port, "127.0.0.2", "/metrics") == 403
        assert request_on_new_connection(port, "127.0.0.6", "/metrics") == 403
        listening.settimeout(0.5)
        with pytest.raises(TimeoutError):  # nothing more: the workers started again said READY to the parent
            listening.recv(4096)
    finally:
        for sock in streams:
            sock.close()
        if parent.poll() is None:
            parent.send_signal(signal.SIGTERM)
            parent.wait(20)
        listening.close()
    assert parent.returncode == 0
    assert not folder.exists(), "the metrics folder outlived the server"
