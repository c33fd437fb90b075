"""`companion serve` as a real process: starts, answers, prints, stops cleanly."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from markupsafe import escape

from companion import cli, lan
from companion.games import GAMES
from companion.qr import qr_terminal

REPO_ROOT = Path(__file__).resolve().parents[2]
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is POSIX")


# --- helpers ---------------------------------------------------------------------------------

def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing holds on ``host``. For ``::`` the probe is itself a dual-stack wildcard
    socket: a port free on 127.0.0.1 can still be held on 127.0.0.2 or ::1 (other tests'
    clients), and then a wildcard bind fails with "address in use"."""
    if host == "::":
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind(("::", 0))
            return s.getsockname()[1]
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def serve_env() -> dict[str, str]:
    env = dict(os.environ)
    # Importable from any cwd even without `pip install -e` (which CI does anyway).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


class Served:
    """A `companion serve` subprocess with its output in files."""

    def __init__(self, tmp_path: Path, *args: str, port: int | None = None, host: str = "127.0.0.1"):
        self.port = port or free_port(host)
        self.db = tmp_path / "serve.sqlite"
        self.out_path, self.err_path = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
        self.args = [sys.executable, "-m", "companion.cli", "serve", "--host", host,
                     "--port", str(self.port), "--db", str(self.db), *args]
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(self.args, cwd=tmp_path, env=serve_env(), stdout=out,
                                         stderr=err, stdin=subprocess.DEVNULL)
        shown = "[::1]" if host == "::" else host
        self.url = f"http://{shown}:{self.port}/"

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(encoding="utf-8")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8")

    def wait_until_up(self, timeout: float = 15.0) -> tuple[int, str]:
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"serve exited with {self.proc.returncode}\n{self.stdout}\n{self.stderr}")
            try:
                with urllib.request.urlopen(self.url, timeout=3) as response:
                    return response.status, response.read().decode("utf-8")
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail(f"serve did not answer within {timeout} s\n{self.stdout}\n{self.stderr}")
                time.sleep(0.1)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture
def served(tmp_path):
    started: list[Served] = []

    def start(*args: str, port: int | None = None, host: str = "127.0.0.1") -> Served:
        server = Served(tmp_path, *args, port=port, host=host)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def terminal_qr_image(text: str, scale: int = 8):
    """Draw the block-character QR that `serve` prints (qrcode's print_ascii, inverted:
    the characters are the light modules, for a light-on-dark terminal)."""
    from PIL import Image, ImageDraw

    blocks = "█▀▄"
    lines = [line.rstrip("\n") for line in text.splitlines()
             if line.strip() and set(line) <= set(blocks + " \u00a0")]
    assert len(lines) >= 10, "no QR block in the output"
    width = max(len(line) for line in lines)
    image = Image.new("L", ((width + 8) * scale, (len(lines) * 2 + 8) * scale), 0)
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        for col, char in enumerate(line):
            x, y = (col + 4) * scale, (row * 2 + 4) * scale
            if char in "█▀":
                draw.rectangle([x, y, x + scale - 1, y + scale - 1], fill=255)
            if char in "█▄":
                draw.rectangle([x, y + scale, x + scale - 1, y + 2 * scale - 1], fill=255)
    return image


# --- the real process ------------------------------------------------------------------------

@posix_only
def test_serve_answers_and_stops_on_sigterm(served):
    server = served("--no-qr")
    status, html = server.wait_until_up()
    assert status == 200
    assert "Table Companion" in html
    for game in GAMES.values():
        assert str(escape(game.name_en)) in html
    assert http_status(server.url + "games/no-such-game") == 404
    assert http_status(server.url + "healthz") == 200

    out = server.stdout
    assert server.url in out
    assert "phones cannot reach" in out and "127.0.0.1" in out
    assert str(server.db) in out
    assert "█" not in out and "▀" not in out, "--no-qr still drew the QR"
    assert server.db.exists(), "the --db file is created on first run"

    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(10) == 0
    assert "Stopped" in server.stdout
    assert "Traceback" not in server.stderr


@posix_only
def test_serve_stops_on_ctrl_c(served):
    server = served("--no-qr")
    server.wait_until_up()
    server.proc.send_signal(signal.SIGINT)
    assert server.proc.wait(10) == 0
    assert "Stopped" in server.stdout
    assert "Traceback" not in server.stderr + server.stdout
    assert "KeyboardInterrupt" not in server.stderr  # gevent's hub would print it on every Ctrl+C


@posix_only
def test_serve_on_loopback_draws_no_qr_phones_could_not_use(served):
    server = served()
    server.wait_until_up()
    out = server.stdout
    assert "█" not in out and "▀" not in out and "▄" not in out
    assert "scan" not in out and "Phones on the same Wi-Fi" not in out
    assert f"Only this laptop can open it: {server.url}" in out
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(10) == 0


def test_start_message_draws_a_scannable_qr_of_the_join_address(qr_decode):
    url = "http://192.168.1.20:8000/"
    out = cli.start_message(url=url, warning=None, laptop="http://127.0.0.1:8000/",
                            database="/data/companion.sqlite", moved_from=None, draw_qr=True)
    assert f"scan this code or open {url}" in out
    assert qr_decode(terminal_qr_image(out)) == [url]


@pytest.mark.slow
def test_port_in_use_is_a_clear_error(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--db", str(tmp_path / "p.sqlite"), "--no-qr"],
            cwd=tmp_path, env=serve_env(), capture_output=True, text=True, encoding="utf-8", timeout=30)
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert str(port) in result.stderr and "in use" in result.stderr
    assert "Traceback" not in output


@pytest.mark.slow
def test_unusable_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    garbage = b"definitely not sqlite " * 400
    bad.write_bytes(garbage)
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(free_port()),
         "--db", str(bad), "--no-qr"],
        cwd=tmp_path, env=serve_env(), capture_output=True, text=True, encoding="utf-8", timeout=30)
    assert result.returncode == 2
    assert str(bad) in result.stderr and "Traceback" not in result.stdout + result.stderr
    assert bad.read_bytes() == garbage


@pytest.mark.parametrize("port", ["0", "70000", "-1"])
def test_bad_port_is_a_usage_error(port, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["serve", "--port", port])
    assert exit_info.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert cli.main([]) == 0
    assert "serve" in capsys.readouterr().out


@pytest.mark.slow
def test_console_script_is_installed():
    script = shutil.which("companion", path=str(Path(sys.executable).parent))
    if script is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the `companion` console script is missing (pip install -e '.[test]')")
        pytest.skip("package not installed: no `companion` script beside this python")
    result = subprocess.run([script, "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "--port" in result.stdout


# --- join_url --------------------------------------------------------------------------------

def test_join_url_loopback_warns():
    url, warning = cli.join_url("127.0.0.1", 8000)
    assert url == "http://127.0.0.1:8000/"
    assert warning and "phones cannot reach" in warning and "127.0.0.1" in warning


def test_join_url_localhost_warns():
    url, warning = cli.join_url("localhost", 8123)
    assert url == "http://localhost:8123/" and warning


def test_join_url_ipv6_loopback_is_bracketed():
    url, warning = cli.join_url("::1", 8000)
    assert url == "http://[::1]:8000/" and warning


def test_join_url_specific_lan_address_is_used_as_is():
    assert cli.join_url("192.168.1.20", 8080) == ("http://192.168.1.20:8080/", None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", ""])
def test_join_url_wildcard_uses_lan_address(monkeypatch, host):
    monkeypatch.setattr(lan, "lan_address", lambda adapters=None: "192.168.1.20")
    assert cli.join_url(host, 8000) == ("http://192.168.1.20:8000/", None)


def test_join_url_wildcard_without_network_warns(monkeypatch):
    monkeypatch.setattr(lan, "lan_address", lambda adapters=None: None)
    url, warning = cli.join_url("0.0.0.0", 8000)
    assert url == "http://127.0.0.1:8000/"
    assert warning and "Wi-Fi" in warning


def test_terminal_qr_decodes(qr_decode):
    url = "http://192.168.1.20:8000/"
    assert qr_decode(terminal_qr_image(qr_terminal(url))) == [url]
    assert re.fullmatch(r"[█▀▄ \u00a0\n]+", qr_terminal(url))


# --- push: event streams through the real server (issue 12) -----------------------------------

from helpers import Phone, enter_deals  # noqa: E402


class Stream:
    """One phone's event stream, read as hx-sse does: "changed" events, their ids, and a
    reconnect that sends the last id seen as Last-Event-ID."""

    def __init__(self, port: int, token: str, rev: int):
        self.port, self.token, self.rev = port, token, rev
        self.last_id: str | None = None
        self.sock: socket.socket | None = None
        self.buffer = b""

    def connect(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)  # the server is starting again
        extra = f"Last-Event-ID: {self.last_id}\r\n" if self.last_id is not None else ""
        sock.sendall(f"GET /t/{self.token}/events?rev={self.rev}&form=1 HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                     f"Accept: text/event-stream\r\n{extra}\r\n".encode())
        self.sock, self.buffer = sock, b""
        status = self.line()
        assert b" 200 " in status, status
        while self.line() not in (b"", b"\r\n"):
            pass

    def line(self) -> bytes:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("stream closed")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"

    def next_change(self, timeout: float = 10) -> int:
        """The revision of the next "changed" event (ids of other messages are remembered)."""
        self.sock.settimeout(timeout)
        event = None
        while True:
            line = self.line().rstrip(b"\r\n")
            if line.startswith(b"id: "):
                self.last_id = line[4:].decode()
            elif line.startswith(b"event: "):
                event = line[7:]
            elif line == b"" and event == b"changed":
                return int(self.last_id)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


def fetch_live(phone: Phone, token: str, rev: int) -> tuple[int, str]:
    """What the live region fetches on "changed": its partial, with the revision it is at."""
    status, _headers, body = phone.request("GET", f"/t/{token}/live?rev={rev}&form=1")
    assert status == 200, (status, body[:300])
    return int(re.search(r'data-rev="(\d+)"', body).group(1)), body


@posix_only
def test_streaming_phones_reconnect_after_sigkill_and_catch_up_with_nothing_missed(server_process):
    token = Phone(server_process.port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phones = [Stream(server_process.port, token, 0) for _ in range(3)]
    for phone in phones:
        phone.connect()
    enter_deals(server_process.port, token, [1])
    assert [phone.next_change() for phone in phones] == [1, 1, 1]

    port = server_process.port
    server_process.kill()  # mid-stream, no clean-up
    for phone in phones:
        with pytest.raises((ConnectionError, OSError)):
            phone.next_change(timeout=5)
    server_process.start(port=port)  # the phones' address again
    enter_deals(port, token, [2, 3])  # two deals before any phone is back

    for phone in phones:
        phone.connect()  # as hx-sse does: same URL, Last-Event-ID: 1
        assert phone.last_id == "1"
        assert phone.next_change(timeout=5) == 3  # at once, not at the next change
        rev, body = fetch_live(Phone(port), token, 1)
        assert rev == 3
        assert all(f'id="deal-{n}"' in body for n in (1, 2, 3)), "a deal missed on reconnect"
        phone.close()


def test_phone_that_missed_several_changes_shows_the_current_state_on_reconnect(server_process):
    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone = Stream(port, token, 0)
    phone.connect()
    enter_deals(port, token, [1])
    assert phone.next_change() == 1
    phone.close()  # Wi-Fi lost, phone asleep, page in the background
    enter_deals(port, token, [2, 3, 4])
    undoer = Phone(port)
    status, _h, _b = undoer.request("POST", f"/t/{token}/undo", {"csrf_token": undoer.csrf(f"/t/{token}"), "number": "4"})
    assert status in (200, 303)

    phone.connect()
    assert phone.next_change(timeout=5) == 5  # 3 deals and an undo later
    rev, body = fetch_live(Phone(port), token, 1)
    assert rev == 5
    assert 'id="deal-3"' in body and 'id="deal-4"' not in body  # the current state, not a replay
    # and a phone that is already current is told nothing until the next change
    current = Stream(port, token, 5)
    current.connect()
    with pytest.raises(TimeoutError):
        current.next_change(timeout=1.5)
    enter_deals(port, token, [4])
    assert current.next_change() == 6


# --- one device can't take the server away (issue 13, connection level) ----------------------

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="other devices are other loopback addresses (127.0.0.2…), as on Linux")


def from_device(address: str, port: int) -> socket.socket:
    """A connection from another "device": a source address elsewhere in 127/8."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((address, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """The server has closed this connection (after whatever answer it sent, e.g. a 400)."""
    sock.settimeout(0.01)
    try:
        while sock.recv(4096):
            pass
        return True
    except (TimeoutError, BlockingIOError):
        return False
    except OSError:
        return True


def timed_poll(phone: Phone, token: str, rev: int) -> float:
    start = time.perf_counter()
    status, _h, _b = phone.request("GET", f"/t/{token}/live?rev={rev}&form=1", timeout=5)
    assert status == 204
    return time.perf_counter() - start


@linux_only
def test_a_flood_of_idle_connections_from_one_device_leaves_the_others_served(server_process):
    server_process.stop()
    server_process.start(args=("--per-device", "64", "--header-timeout", "3"))
    port = server_process.port
    phone = Phone(port)
    token = phone.create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    flood = []
    try:
        for _ in range(600):  # ten times what a device may hold
            flood.append(from_device("127.0.0.2", port))
        slowest = max(timed_poll(phone, token, 0) for _ in range(20))
        assert slowest < 1.0, f"another phone's poll took {slowest:.3f} s during the flood"
        time.sleep(0.5)
        refused = sum(closed_by_server(s) for s in flood)
        assert refused >= 600 - 64, f"only {refused} of 600 closed: the per-device cap did not hold"
        time.sleep(3.5)  # the 64 it kept never sent a request: closed at the header timeout
        assert sum(closed_by_server(s) for s in flood) == 600
        assert timed_poll(phone, token, 0) < 1.0
    finally:
        for s in flood:
            s.close()
    log = server_process.log.read_text(errors="replace")
    assert log.count("more than 64 connections at once") == 1, "the flood is logged once, not per connection"
    assert "Traceback" not in log


@linux_only
def test_slow_clients_are_timed_out_and_logged_once(server_process):
    server_process.stop()
    server_process.start(args=("--header-timeout", "2"))
    port = server_process.port
    phone = Phone(port)
    token = phone.create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    slow = [from_device("127.0.0.3", port) for _ in range(40)]
    try:
        for s in slow:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        polls = []
        while time.monotonic() - started < 3.5:  # a header line every 0.5 s, never the blank line
            for s in slow:
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass
            polls.append(timed_poll(phone, token, 0))
            time.sleep(0.5)
        assert max(polls) < 1.0
        assert all(closed_by_server(s) for s in slow), "a slow client outlived the header timeout"
    finally:
        for s in slow:
            s.close()
    log = server_process.log.read_text(errors="replace")
    mentions = [line for line in log.splitlines() if "127.0.0.3" in line]
    assert 1 <= len(mentions) <= 3, mentions  # once per kind of trouble, not once per connection
    assert "Traceback" not in log


def test_a_300_mb_post_is_refused_from_its_headers(server_process):
    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sent = [0]

    def send_body() -> None:
        block = b"x" * (1 << 20)
        try:
            while sent[0] < 300 << 20:
                sock.sendall(block)
                sent[0] += len(block)
        except OSError:
            pass  # the server closed the connection: it stopped reading

    started = time.perf_counter()
    sock.sendall(f"POST /t/{token}/deals HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {300 << 20}\r\n\r\n".encode())
    sender = threading.Thread(target=send_body, daemon=True)
    sender.start()
    status = sock.recv(64)
    refused_after = time.perf_counter() - started
    assert status.startswith(b"HTTP/1.1 413"), status
    assert refused_after < 2.0, refused_after
    sender.join(15)
    assert not sender.is_alive(), "the server kept reading the body"
    assert sent[0] < 100 << 20, f"{sent[0] >> 20} MB were taken in before the connection closed"
    sock.close()
    print(f"300 MB POST refused after {refused_after * 1000:.1f} ms; {sent[0] >> 20} MB sent before the close")


@pytest.mark.slow
@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6 on this machine")
def test_host_double_colon_serves_ipv4_and_ipv6(served):
    """`--host ::` listens on both, so the IPv4 address printed and drawn as the QR code works."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("IPv6 loopback unavailable")
    server = served("--no-qr", host="::")
    status, _page = server.wait_until_up()  # on ::1; says why if serve exited or stayed silent
    assert status == 200
    assert http_status(f"http://127.0.0.1:{server.port}/healthz") == 200  # and over IPv4
