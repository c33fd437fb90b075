"""Two phones entering the same deal at the same moment, and the host laptop being killed
right after it acknowledged a deal: no deal is doubled, none acknowledged is lost."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from html import unescape
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


class Phone:
    """A cookie-keeping HTTP client, like one phone's browser without JavaScript."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict | None = None, timeout: float = 10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Accept-Encoding": "identity"}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read().decode("utf-8")
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name.strip()] = rest.split(";", 1)[0]
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()

    def csrf(self, path: str) -> str:
        status, _headers, html = self.request("GET", path)
        assert status == 200, (path, status)
        return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)

    def create_table(self, game: str, names: list[str]) -> str:
        token = self.csrf(f"/tables/new?game={game}&players={len(names)}")
        form = {"csrf_token": token, "game": game, "players": str(len(names)),
                **{f"name-{i}": name for i, name in enumerate(names)}}
        status, headers, body = self.request("POST", "/tables", form)
        assert status == 303, body[:500]
        return urllib.parse.urlsplit(headers["Location"]).path.rsplit("/", 1)[-1]


def rwd_form(csrf: str, number: int, chips, tricks) -> dict:
    form = {"csrf_token": csrf, "number": str(number)}
    form.update({f"chips-{i}": str(c) for i, c in enumerate(chips)})
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    return form


# --- the race ------------------------------------------------------------------------------

def test_two_phones_enter_the_same_deal_at_once(live_server):
    rounds = 20
    for round_ in range(rounds):
        a, b = Phone(live_server.port), Phone(live_server.port)
        token = a.create_table("rwd", [f"A{round_}", "B", "C"])
        forms = [rwd_form(a.csrf(f"/t/{token}"), 1, [0, 8, 9], [5, 6, 6]),
                 rwd_form(b.csrf(f"/t/{token}"), 1, [9, 8, 0], [6, 6, 5])]
        barrier = threading.Barrier(2)
        results: list = [None, None]

        def go(i: int, phone: Phone) -> None:
            barrier.wait()
            results[i] = phone.request("POST", f"/t/{token}/deals", forms[i])

        threads = [threading.Thread(target=go, args=(i, p)) for i, p in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        statuses = sorted(r[0] for r in results)
        assert statuses in ([200, 409], [303, 409]), statuses
        loser = next(r for r in results if r[0] == 409)
        assert "already entered from another phone" in unescape(loser[2])
        status, _h, body = a.request("GET", f"/t/{token}/export.json")
        doc = json.loads(body)
        assert len(doc["deals"]) == 1
        winner = 0 if results[0][0] != 409 else 1
        assert doc["deals"][0]["facts"]["chips"] == [int(forms[winner][f"chips-{i}"]) for i in range(3)]


# --- the crash -------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int, log: Path) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                                 "--port", str(port), "--db", str(db), "--no-qr"],
                                cwd=db.parent, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("server did not start within 15 s")


@posix_only
def test_acknowledged_deals_survive_sigkill(tmp_path):
    started = time.monotonic()
    db, log = tmp_path / "crash.sqlite", tmp_path / "serve.log"
    port = free_port()
    proc = start_server(db, port, log)
    # Each player wins two deals: the match (first to 3) never ends.
    deals = [([0, 8, 9], [5, 6, 6]), ([9, 8, 0], [6, 6, 5]), ([8, 0, 9], [6, 5, 6])] * 2
    acknowledged: list[tuple] = []
    token = None
    try:
        phone = Phone(port)
        token = phone.create_table("rwd", ["山田", "🎲", "Cy"])
        for number, (chips, tricks) in enumerate(deals, start=1):
            form = rwd_form(phone.csrf(f"/t/{token}"), number, chips, tricks)
            status, _headers, body = phone.request("POST", f"/t/{token}/deals", form)
            assert status == 303, (number, re.findall(r'role="alert">([^<]*)<', body))
            acknowledged.append((chips, tricks))
            os.kill(proc.pid, signal.SIGKILL)  # right after the acknowledgement
            proc.wait(10)
            port = free_port()
            proc = start_server(db, port, log)
            phone = Phone(port)  # a new server means a new session (the secret key may differ)
            status, _h, body = phone.request("GET", f"/t/{token}/export.json")
            assert status == 200
            stored = [(d["facts"]["chips"], d["facts"]["tricks"]) for d in json.loads(body)["deals"]]
            assert stored == [(list(c), list(t)) for c, t in acknowledged]
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
    assert len(acknowledged) == len(deals)
    assert time.monotonic() - started < 60
