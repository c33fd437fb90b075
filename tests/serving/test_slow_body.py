"""A body dripped into a table's form can't lock the table (issue 23 item 2), against the
real `companion serve`: a table's turns are taken only once a request's body is fully read,
and a body that falls behind the minimum rate is answered 408 and closed."""

from __future__ import annotations

import socket
import time

from helpers import Phone  # noqa: E402


def drip_open(port: int, token: str, source: str) -> socket.socket:
    """A POST to the table's deals with a 60,000-byte Content-Length and one byte of body."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"POST /t/{token}/deals HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 60000\r\n\r\nn").encode())
    return sock


def test_a_dripped_body_holds_no_turn_and_is_cut_off(server_process):
    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    drips = [drip_open(port, token, "127.0.0.5"), drip_open(port, token, "127.0.0.6")]
    try:
        time.sleep(0.5)  # both are in: on the old server each now holds one of the table's 2 turns
        for _ in range(3):  # the table's page, from another phone, at once
            started = time.monotonic()
            status, _headers, html = Phone(port).request("GET", f"/t/{token}", timeout=10)
            took = time.monotonic() - started
            assert status == 200, html[:300]
            assert took < 2.0, took
        # A byte every few seconds is far below the minimum rate: answered 408 and closed
        # within the grace period and a little (bounded wait).
        for sock in drips:
            sock.settimeout(15)
            answer = b""
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                try:
                    sock.sendall(b"x")
                except OSError:
                    break
                try:
                    sock.settimeout(3)
                    chunk = sock.recv(4096)
                except socket.timeout:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                answer += chunk
                if b"\r\n\r\n" in answer:
                    break
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    finally:
        for sock in drips:
            sock.close()
    log = server_process.log.read_text(errors="replace")
    assert "slower than" in log and "Traceback" not in log, log[-2000:]
    # A normal deal (a whole body at once) is saved as ever.
    phone = Phone(port)
    csrf = phone.csrf(f"/t/{token}")
    from helpers import rwd_deal_post as rwd_deal
    status, _h, body = phone.request("POST", f"/t/{token}/deals", rwd_deal(csrf, 1))
    assert status == 303, body[:300]
