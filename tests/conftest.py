"""Shared fixtures: the app with a throw-away database, test clients, a real
waitress server on loopback, and a QR decoder."""

from __future__ import annotations

import io
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import pytest
from flask import Flask

from companion import create_app

REPO_ROOT = Path(__file__).resolve().parent.parent


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

    def start(config: Mapping[str, Any] | None = None, *, threads: int = 8) -> LiveServer:
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
