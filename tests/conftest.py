"""Shared fixtures: the app with a throw-away database, test clients, a real
waitress server on loopback, and a QR decoder."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import pytest
from flask import Flask

from companion import create_app

REPO_ROOT = Path(__file__).resolve().parent.parent

# No test touches the real user's data folder (scores, secret key): platformdirs, in this
# process and in every server it starts, is given a throw-away one (Linux: XDG_DATA_HOME).
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="companion-test-data-")


def _config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    config = {"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"), "SECRET_KEY": "test",
              "WTF_CSRF_ENABLED": False}
    config.update(extra)
    return config


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    """The app with its own empty database and CSRF checks off (for plain form tests)."""
    return create_app(_config(tmp_path))


@pytest.fixture
def client(app: Flask):
    return app.test_client()


@pytest.fixture
def csrf_app(tmp_path: Path) -> Flask:
    """Same as ``app`` but with CSRF protection on, as in production."""
    return create_app(_config(tmp_path, WTF_CSRF_ENABLED=True))


@pytest.fixture
def csrf_client(csrf_app: Flask):
    return csrf_app.test_client()


# --- a real server ---------------------------------------------------------------------------

@dataclass
class LiveServer:
    url: str  # "http://127.0.0.1:<port>/" (trailing slash)
    app: Flask
    port: int
    host: str = "127.0.0.1"

    def __call__(self, path: str = "/") -> str:
        """Absolute URL of ``path`` on this server."""
        return self.url.rstrip("/") + "/" + path.lstrip("/")


class _ServerThread:
    """waitress in a background thread, bound to loopback on an ephemeral port."""

    def __init__(self, app: Flask, threads: int = 8):
        from waitress import create_server

        # Loopback only: tests never open a port other machines could reach.
        self.server = create_server(app, host="127.0.0.1", port=0, threads=threads,
                                    channel_timeout=30, ident="companion-test",
                                    expose_tracebacks=False)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, name=f"live-server-{self.port}",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        from waitress import wasyncore

        server = self.server

        def close_everything() -> None:  # runs inside the server's own loop thread
            wasyncore.close_all(server._map)

        try:
            server.trigger.pull_trigger(close_everything)
        except OSError:
            pass  # trigger already closed: the loop has ended
        self.thread.join(10)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        if self.thread.is_alive():  # pragma: no cover - only on a hung request
            raise RuntimeError("live server did not stop within 10 s")


def _wait_until_up(url: str, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=2) as response:
                response.read()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture
def live_server_factory(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start a real server running ``create_app(config)``; call with extra config.

    The database is per test (under ``tmp_path``). CSRF is on and TESTING off, as in
    production. Every server started is stopped at the end of the test.
    """
    started: list[_ServerThread] = []

    # waitress holds a thread per open event stream (each table page holds one): room for
    # several phones and their reconnects (`companion serve` itself uses gevent, no threads).
    def start(config: Mapping[str, Any] | None = None, *, threads: int = 32) -> LiveServer:
        settings = {"DATABASE": str(tmp_path / f"live{len(started)}.sqlite"), "SECRET_KEY": "test"}
        settings.update(config or {})
        flask_app = create_app(settings)
        runner = _ServerThread(flask_app, threads=threads)
        runner.start()
        started.append(runner)
        url = f"http://127.0.0.1:{runner.port}/"
        _wait_until_up(url)
        return LiveServer(url=url, app=flask_app, port=runner.port)

    yield start
    for runner in reversed(started):
        runner.stop()


@pytest.fixture
def live_server(live_server_factory) -> LiveServer:
    """The real app under waitress on 127.0.0.1:<ephemeral>, with its own database.

    ``live_server.url`` ends with "/", ``live_server("/games/rwd")`` builds a URL,
    ``live_server.app`` is the Flask app (for ``app_context()`` and DB checks).
    """
    return live_server_factory()


# --- QR decoding -----------------------------------------------------------------------------

def decode_qr(image) -> list[str]:
    """Texts of every QR code zxing-cpp finds in a PIL image or PNG bytes."""
    import zxingcpp
    from PIL import Image

    if isinstance(image, (bytes, bytearray)):
        image = Image.open(io.BytesIO(image))
    image = image.convert("L")
    return [result.text for result in zxingcpp.read_barcodes(image)
            if result.format == zxingcpp.BarcodeFormat.QRCode]


@pytest.fixture
def qr_decode() -> Callable[[Any], list[str]]:
    """``qr_decode(png_bytes_or_PIL_image)`` -> list of decoded QR texts.

    zxing-cpp and Pillow are test requirements: a missing one fails, never skips."""
    return decode_qr


# --- `companion serve` as a separate process, to kill -9 ----------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`python -m companion.cli serve` on loopback with its own database file.

    ``kill()`` is SIGKILL (no clean-up at all), ``start()`` starts it again on a fresh
    port (``port`` changes) or on ``start(port=...)``, so phones reconnect to the same address;
    ``args`` are more `serve` options. ``stop()`` ends it politely. Output goes to ``log``.
    """

    def __init__(self, db: Path, log: Path):
        self.db, self.log = db, log
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.starts = 0

    def start(self, timeout: float = 15, *, port: int | None = None, args: tuple[str, ...] = ()) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
        env["PYTHONUNBUFFERED"] = "1"
        port = port or free_port()
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--db", str(self.db), "--no-qr", *args],
                cwd=self.db.parent, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    self.port = port
                    self.starts += 1
                    return
            except OSError:
                time.sleep(0.02)
        self.proc.kill()
        raise AssertionError(f"server did not start within {timeout} s")

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[ServerProcess]:
    """A started `companion serve` process (see ServerProcess); always stopped afterwards."""
    server = ServerProcess(tmp_path / "served.sqlite", tmp_path / "serve.log")
    server.start()
    yield server
    server.stop()
