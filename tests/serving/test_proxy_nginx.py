"""Issue 46: a club's server behind a real nginx (Debian's), started by the test in a temporary
folder with the config docs/club-server.md gives (bench/nginx.py reads it from there), connecting
to `companion serve` from its own loopback address (``proxy_bind``), on SQLite and on PostgreSQL.
Phones are other loopback addresses (127.0.0.x) reaching nginx.

- phones keep their own limits (4 event streams, 4 names a night), not one set for the room;
- no Host header gets a phone the hall, not even from 127.0.0.1, nor claiming 127.0.0.1;
- the organiser gets it with the passcode printed at start, not after 12 hours or a new night;
  with `--workers 2`, a worker started after the sign-in accepts the cookie too;
- an event stream passes unbuffered: a saved deal reaches a phone's stream at once;
- the QR codes carry `--public-url`.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest
from itsdangerous import URLSafeSerializer

from bench.nginx import Nginx
from companion.night.claims import MAX_NAMES_PER_DEVICE
from companion.serving.limits import STREAMS
from companion.web import organiser_signin
from helpers import REPO_ROOT, Phone, free_port, rwd_form, text_of

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="other devices are other loopback addresses (127.0.0.2…), as on Linux")]

PROXY = "127.0.0.250"  # nginx connects to the companion from here (proxy_bind)
PUBLIC = "http://club.test:8443/"


class Club:
    """`companion serve` behind nginx: ``port`` is nginx's, ``passcode`` the one printed at start."""

    def __init__(self, tmp: Path, database: str, secret, *extra: str, proxy: str = PROXY):
        self.tmp, self.database, self.secret_of = tmp, database, secret
        self.log = tmp / "serve.log"
        env = dict(os.environ, PYTHONUNBUFFERED="1", XDG_DATA_HOME=str(tmp / "data"),
                   PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
        for name in ("COMPANION_TRUSTED_PROXY", "COMPANION_ORGANISER_PASSCODE", "COMPANION_PUBLIC_URL"):
            env.pop(name, None)
        self.upstream = free_port()
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(self.upstream),
                 "--db", database, "--no-qr", "--trusted-proxy", proxy, "--public-url", PUBLIC, *extra],
                cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.nginx = Nginx(tmp / "nginx", self.upstream, proxy).start()
        self.port = self.nginx.port
        deadline = time.monotonic() + 90
        while "this passcode: " not in self.log.read_text(errors="replace"):
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text(errors="replace")
            time.sleep(0.05)
        self.passcode = re.search(r"this passcode: (\S+)", self.log.read_text()).group(1)
        while Phone(self.port, "127.0.0.2").request_once("GET", "/healthz")[0] != 200:
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text(errors="replace")
            time.sleep(0.1)

    def secret(self) -> str:
        return self.secret_of(self)

    def stop(self) -> None:
        self.nginx.stop()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def sqlite_secret(club: Club) -> str:
    return (club.tmp / "data" / "table-companion" / "secret_key").read_text().strip()


def postgres_secret(club: Club) -> str:
    from companion.store import postgres

    return postgres.shared_secret(club.database)


@pytest.fixture(params=["sqlite", "postgresql"])
def club(request, tmp_path):
    if request.param == "postgresql":
        database, secret = request.getfixturevalue("postgres_database"), postgres_secret
    else:
        database, secret = str(tmp_path / "club.sqlite"), sqlite_secret
    # --per-device 6: nginx's connections carry every phone, more than one device may hold (the
    # limits test holds 8 streams through it): the proxy is never capped as one device.
    served = Club(tmp_path, database, secret, "--per-device", "6")
    yield served
    served.stop()


class Browser(Phone):
    """A phone through nginx, sending the Host (and any other headers) it likes."""

    def __init__(self, port: int, source: str, host: str = "club.test:8443", **headers: str):
        super().__init__(port, source)
        self.headers = {"Host": host, **headers}

    def request_once(self, method: str, path: str, form: dict | None = None, timeout: float = 10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(self.source, 0))
        headers = {"Accept-Encoding": "identity", **self.headers}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form, doseq=True).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Content-Length"] = str(len(body))
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in headers.items():
                conn.putheader(name, value)
            conn.endheaders(body)
            response = conn.getresponse()
            data = response.read().decode("utf-8")
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name.strip()] = rest.split(";", 1)[0]
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()


def csrf_from(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def open_stream(port: int, source: str, token: str, rev: int = 0, timeout: float = 10) -> tuple[socket.socket, int]:
    """A table's event stream through nginx from ``source``: the socket and the answer's status."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    sock.sendall(f"GET /t/{token}/events?rev={rev}&form=1 HTTP/1.1\r\nHost: club.test\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    status = b""
    while b"\r\n" not in status:
        chunk = sock.recv(1)
        if not chunk:
            break
        status += chunk
    return sock, int(status.split()[1])


def read_until(sock: socket.socket, wanted: bytes, timeout: float) -> bytes:
    sock.settimeout(timeout)
    seen = b""
    while wanted not in seen:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError(f"stream closed before {wanted!r}: {seen[-300:]!r}")
        seen += chunk
    return seen


def sign_in(browser: Browser, passcode: str) -> tuple[int, dict, str]:
    page = browser.request("GET", "/organiser/sign-in?next=/hall")[2]
    return browser.request("POST", "/organiser/sign-in", {"csrf_token": csrf_from(page), "next": "/hall",
                                                          "passcode": passcode})


def test_phones_through_nginx_keep_their_own_limits(club):
    opener = Browser(club.port, "127.0.0.2")
    token = opener.create_table("rwd", ["Ann", "Bo", "Cy"])
    held = []
    try:
        for phone in ("127.0.0.3", "127.0.0.4"):  # each phone its own share, not the proxy's one
            for _ in range(STREAMS):
                sock, status = open_stream(club.port, phone, token)
                held.append(sock)
                assert status == 200, phone
            sock, status = open_stream(club.port, phone, token)
            held.append(sock)
            assert status == 429, phone
    finally:
        for sock in held:
            sock.close()
    for phone in ("127.0.0.5", "127.0.0.6"):
        outcomes = []
        for n in range(MAX_NAMES_PER_DEVICE + 1):  # a fresh cookie jar each time: only the address is the same
            joiner = Browser(club.port, phone)
            status, _h, body = joiner.request("GET", "/night")
            status, _h, body = joiner.request("POST", "/night/join", {"csrf_token": csrf_from(body),
                                                                       "name": f"{phone} {n}"})
            outcomes.append(status)
        assert outcomes == [303] * MAX_NAMES_PER_DEVICE + [422], phone
    # What a phone writes in X-Forwarded-For itself counts for nothing: nginx adds its address last.
    liar = Browser(club.port, "127.0.0.6", **{"X-Forwarded-For": "127.0.0.7"})
    body = liar.request("GET", "/night")[2]
    assert liar.request("POST", "/night/join", {"csrf_token": csrf_from(body), "name": "Liar"})[0] == 422


@pytest.mark.parametrize("source", ["127.0.0.1", "127.0.0.8"])
def test_no_host_header_gets_a_phone_the_hall(club, source):
    hosts = ["127.0.0.1", "127.0.0.1:%d" % club.upstream, "localhost", "[::1]", "club.test:8443", "club.test",
             "192.168.1.5:8000"]
    for host in hosts:
        for claim in ({}, {"X-Forwarded-For": "127.0.0.1"}, {"Forwarded": "for=127.0.0.1"}):
            phone = Browser(club.port, source, host=host, **claim)
            for path in ("/hall", "/hall/screen", "/players"):
                status, _h, body = phone.request("GET", path)
                assert status == 403 and 'name="passcode"' in body, (host, claim, path, status)
    status, _h, body = Browser(club.port, source, host="localhost").request("GET", "/")
    assert status == 200 and "/hall" not in re.sub(r'name="next" value="[^"]*"', "", body)  # no table list either


def test_the_organiser_gets_the_hall_with_the_passcode_until_it_expires(club):
    organiser = Browser(club.port, "127.0.0.9")
    status, _h, body = sign_in(organiser, club.passcode[:-1] + ("x" if club.passcode[-1] != "x" else "y"))
    assert status == 403 and 'id="err-passcode"' in body and "That is not the passcode" in text_of(body)
    assert organiser.request("GET", "/hall")[0] == 403
    status, headers, _body = sign_in(organiser, club.passcode.upper())
    assert status == 303 and headers["Location"] == "/hall"
    status, _h, hall = organiser.request("GET", "/hall")
    assert status == 200 and 'name="passcode"' not in hall
    # The same sign-in, made 12 hours ago (or a minute less), with the server's own secret.
    signer = URLSafeSerializer(club.secret(), salt=organiser_signin._SALT)
    issued = signer.loads(organiser.cookies[organiser_signin.COOKIE])
    for age, status in ((12 * 3600 - 60, 200), (12 * 3600 + 60, 403)):
        organiser.cookies[organiser_signin.COOKIE] = signer.dumps(dict(issued, at=int(time.time()) - age))
        assert organiser.request("GET", "/hall")[0] == status, age
    # A new night ends it.
    assert sign_in(organiser, club.passcode)[0] == 303
    page = organiser.request("GET", "/hall/new-night")[2]
    assert organiser.request("POST", "/hall/nights", {"csrf_token": csrf_from(page), "unfinished": "keep"})[0] == 303
    status, _h, body = organiser.request("GET", "/hall")
    assert status == 403 and 'name="passcode"' in body


def test_event_streams_pass_unbuffered_through_nginx(club):
    player = Browser(club.port, "127.0.0.11")
    token = player.create_table("rwd", ["Ann", "Bo", "Cy"])
    sock, status = open_stream(club.port, "127.0.0.12", token)
    try:
        assert status == 200
        opening = read_until(sock, b"event: hello", 10)
        assert b"x-accel-buffering: no" not in opening.lower()  # nginx took it, as its own instruction
        csrf = csrf_from(player.request("GET", f"/t/{token}")[2])
        status, _h, body = player.request("POST", f"/t/{token}/deals", rwd_form(csrf, 1, [0, 8, 9], [5, 6, 6]))
        assert status == 303, body[:300]
        saved = time.monotonic()
        read_until(sock, b"event: changed", 5)
        assert time.monotonic() - saved < 2, "a pushed change waited in nginx's buffer"
    finally:
        sock.close()


def test_the_qr_codes_carry_the_public_url(club, qr_decode):
    from web.test_app import svg_to_image

    phone = Browser(club.port, "127.0.0.13")
    home = phone.request("GET", "/")[2]
    svg = re.search(r'<svg\b[^>]*class="qr"[^>]*>.*?</svg>', home, re.S).group(0)
    assert qr_decode(svg_to_image(svg)) == [PUBLIC]
    token = phone.create_table("rwd", ["Ann", "Bo", "Cy"])
    page = phone.request("GET", f"/t/{token}")[2]
    svg = re.search(r'<svg\b[^>]*class="qr"[^>]*>.*?</svg>', page, re.S).group(0)
    assert qr_decode(svg_to_image(svg)) == [f"{PUBLIC}t/{token}"]
    assert f"open {PUBLIC}" in club.log.read_text()


def test_every_worker_accepts_the_organisers_sign_in(postgres_database, tmp_path):
    club = Club(tmp_path, postgres_database, postgres_secret, "--workers", "2")
    try:
        organiser = Browser(club.port, "127.0.0.14")
        assert sign_in(organiser, club.passcode)[0] == 303
        workers = [int(p) for p in Path(f"/proc/{club.proc.pid}/task/{club.proc.pid}/children").read_text().split()]
        assert len(workers) == 2
        for worker in workers:  # the workers that saw the sign-in are gone; new ones take their place
            os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while club.log.read_text().count("in its place") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        for _ in range(6):  # on fresh connections: whichever worker takes them
            status, _h, body = organiser.request("GET", "/hall")
            assert status == 200 and 'name="passcode"' not in body
        assert Browser(club.port, "127.0.0.15").request("GET", "/hall")[0] == 403
    finally:
        club.stop()


def test_a_proxy_on_the_laptops_own_address_gets_none_of_its_rights(tmp_path):
    """nginx on the server itself connects from 127.0.0.1, the laptop's own address: its phones
    are still phones (their own limits, no hall by Host), and its connections no laptop's."""
    club = Club(tmp_path, str(tmp_path / "club.sqlite"), sqlite_secret, "--per-device", "6", proxy="127.0.0.1")
    try:
        for host in ("localhost", "127.0.0.1", f"127.0.0.1:{club.upstream}"):
            status, _h, body = Browser(club.port, "127.0.0.1", host=host).request("GET", "/hall")
            assert status == 403 and 'name="passcode"' in body, host
        token = Browser(club.port, "127.0.0.16").create_table("rwd", ["Ann", "Bo", "Cy"])
        held = []
        try:
            for _ in range(STREAMS):
                sock, status = open_stream(club.port, "127.0.0.1", token)
                held.append(sock)
                assert status == 200
            sock, status = open_stream(club.port, "127.0.0.1", token)
            held.append(sock)
            assert status == 429  # a phone at 127.0.0.1 behind the proxy: counted as one
            sock, status = open_stream(club.port, "127.0.0.17", token)
            held.append(sock)
            assert status == 200
        finally:
            for sock in held:
                sock.close()
        organiser = Browser(club.port, "127.0.0.1", host="localhost")
        assert sign_in(organiser, club.passcode)[0] == 303
        assert organiser.request("GET", "/hall")[0] == 200
    finally:
        club.stop()
