"""`companion serve` as a real process: starts, answers, prints, stops cleanly."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from markupsafe import escape

from companion import cli, lan
from companion.games import GAMES
from companion.qr import qr_terminal

REPO_ROOT = Path(__file__).resolve().parent.parent
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is POSIX")


# --- helpers ---------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
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

    def __init__(self, tmp_path: Path, *args: str, port: int | None = None):
        self.port = port or free_port()
        self.db = tmp_path / "serve.sqlite"
        self.out_path, self.err_path = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
        self.args = [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                     "--port", str(self.port), "--db", str(self.db), *args]
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(self.args, cwd=tmp_path, env=serve_env(), stdout=out,
                                         stderr=err, stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/"

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

    def start(*args: str, port: int | None = None) -> Served:
        server = Served(tmp_path, *args, port=port)
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
