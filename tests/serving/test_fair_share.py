"""A fair share per device (issue 23 item 1): the app's work is handed out in turns, round-robin
by device; a device over its share is answered 503 with Retry-After while every other device
is served. The turns alone, and against the real `companion serve` (gevent) on loopback."""

from __future__ import annotations

import socket
import threading
import time

from companion.serving.fair import Turns
from helpers import Phone  # noqa: E402


def wait_until(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.005)


def test_the_device_whose_last_turn_is_oldest_goes_next():
    turns = Turns(running=1, per_device=1, max_waiting=3, wait=5.0)
    assert turns.enter("A")  # uncontended: at once
    order: list[str] = []

    def ask(device: str) -> None:
        if turns.enter(device):
            order.append(device)
            turns.leave(device)

    waiting = [threading.Thread(target=ask, args=("A",)) for _ in range(3)]
    for thread in waiting:
        thread.start()
    wait_until(lambda: len(turns.lines.get("A", ())) == 3)
    assert turns.enter("A") is False  # a fourth in A's line: over its share, refused at once
    late = threading.Thread(target=ask, args=("B",))
    late.start()  # B asks after all of A's
    wait_until(lambda: "B" in turns.lines)
    turns.leave("A")
    for thread in waiting + [late]:
        thread.join(10)
    assert order == ["B", "A", "A", "A"]  # B had no turn yet: it goes before A's next
    assert turns.held == 0 and turns.active == {} and not turns.lines


def test_a_waiting_request_that_waits_too_long_is_refused():
    turns = Turns(running=1, per_device=1, max_waiting=8, wait=0.2)
    assert turns.enter("A")
    started = time.monotonic()
    assert turns.enter("B") is False  # A keeps the only turn past B's wait
    assert 0.15 < time.monotonic() - started < 5
    assert not turns.lines
    turns.leave("A")
    assert turns.enter("B")
    turns.leave("B")


def send_at_once(port: int, source: str, path: str, count: int) -> list[bytes]:
    """``count`` connections from ``source`` each send one request before any answer is read."""
    socks = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        socks.append(sock)
    for sock in socks:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    answers = []
    for sock in socks:
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
        answers.append(got)
        sock.close()
    return answers


def test_a_device_over_its_share_is_refused_and_others_are_served(server_process):
    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    other = Phone(port).create_table("rwd", ["Eve", "Fay", "Gus", "Hal"])
    statuses: list[int] = []
    stop = threading.Event()

    def another_phone() -> None:  # another device, meanwhile: never refused
        phone = Phone(port)
        for _ in range(200):
            if stop.is_set():
                break
            statuses.append(phone.request("GET", f"/t/{other}")[0])

    watcher = threading.Thread(target=another_phone)
    watcher.start()
    try:
        answers = send_at_once(port, "127.0.0.2", f"/t/{token}?all=1", 48)
    finally:
        stop.set()
        watcher.join(60)
    refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
    served = [a for a in answers if a.startswith(b"HTTP/1.1 200")]
    assert refused and served and len(refused) + len(served) == 48, [a[:40] for a in answers]
    assert all(b"\r\nRetry-After: 2\r\n" in a for a in refused)
    assert statuses and set(statuses) == {200}, statuses
    # Said in the terminal once (a minute) for the device, however many were refused.
    log = server_process.log.read_text(errors="replace")
    said = [line for line in log.splitlines() if "fair share" in line]
    assert len(said) == 1 and said[0].startswith("companion: 127.0.0.2: "), said
    assert "Traceback" not in log
