"""A non-editable install carries templates, static files and the catalog, and serves
from any directory (the foundation issue's "done when")."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds and installs the wheel, then serves from it

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_installed_wheel_serves_from_another_directory(tmp_path):
    pytest.importorskip("hatchling", reason="the build backend is in the test extra")
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-q", str(REPO), "-w", str(wheels)], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    target = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                              "--target", str(target), *map(str, wheels.glob("*.whl"))],
                             capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The installed copy comes first on the path, ahead of the repo's editable install.
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run([sys.executable, "-c", "import companion; print(companion.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)
    assert where.stdout.strip().startswith(str(target)), where.stdout + where.stderr

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                               "--port", str(port), "--db", str(tmp_path / "f.sqlite"), "--no-qr"],
                              cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(150):
            try:
                home = urllib.request.urlopen(base + "/", timeout=2).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the installed server never answered")
        for name in ("RWD", "Miraiscope", "Lucky Cube", "Pair &amp; Quad", "Twin Shoot"):
            assert name in home
        assert f"http://127.0.0.1:{port}/" in home
        htmx = urllib.request.urlopen(base + "/static/vendor/htmx-4.0.1.min.js", timeout=5)
        assert htmx.status == 200 and b"htmx" in htmx.read()
        japanese = urllib.request.Request(base + "/games/twin_shoot", headers={"Accept-Language": "ja"})
        assert "ツインシュート" in urllib.request.urlopen(japanese, timeout=5).read().decode()
    finally:
        server.terminate()
        server.wait(timeout=10)
