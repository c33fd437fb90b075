"""Debian's nginx in front of `companion serve`, as docs/club-server.md ("Behind a reverse
proxy") sets it up: its config is read from that page, so the tests
(tests/serving/test_proxy_nginx.py), `bench/load.py --via-nginx` and the guide can't drift apart.

It runs as this user in a temporary folder of its own (its pid file, logs and temporary files
there; no master process, not a daemon), listens on a loopback port and connects to the
companion from its own loopback address (``proxy_bind``), as a proxy on another machine would:
the companion is told to trust that address (``--trusted-proxy``). Loopback only.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "club-server.md"
MARKER = "<!-- nginx config:"


def documented_config() -> str:
    """The nginx block that follows the marker comment in docs/club-server.md."""
    text = GUIDE.read_text(encoding="utf-8")
    found = re.search(re.escape(MARKER) + r".*?-->\s*```nginx\n(.*?)```", text, re.S)
    if found is None:
        raise AssertionError(f"{GUIDE} has no ```nginx block after {MARKER!r}")
    return found.group(1)


def replaced_once(text: str, old: str, new: str) -> str:
    """``text`` with its one ``old`` made ``new``: the guide's config changed shape if not one."""
    if text.count(old) != 1:
        raise AssertionError(f"docs/club-server.md's nginx config should have {old!r} once, "
                             f"has it {text.count(old)} times")
    return text.replace(old, new)


def site_config(listen_port: int, upstream_port: int, bind: str) -> str:
    """The guide's site on this machine's ports: nginx listens on 127.0.0.1:``listen_port``,
    reaches the companion on 127.0.0.1:``upstream_port`` from ``bind``."""
    site = documented_config()
    site = replaced_once(site, "server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream_port};")
    site = replaced_once(site, "listen 80;", f"listen 127.0.0.1:{listen_port};")
    return replaced_once(site, "proxy_pass http://companion;", f"proxy_pass http://companion;\n        proxy_bind {bind};")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """nginx serving the guide's site in ``folder`` (made if missing). ``start()`` returns once it
    answers; ``stop()`` ends it; ``port`` is where phones connect."""

    def __init__(self, folder: Path, upstream_port: int, bind: str, port: int | None = None,
                 worker_connections: int = 4096):
        self.folder = Path(folder)
        self.upstream_port, self.bind = upstream_port, bind
        self.port = port or free_port()
        self.worker_connections = worker_connections
        self.proc: subprocess.Popen | None = None

    def config(self) -> str:
        tmp = self.folder
        temp_paths = "\n".join(f"    {kind}_temp_path {tmp / kind};"
                               for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        return (f"daemon off;\nmaster_process off;\nworker_processes 1;\npid {tmp / 'nginx.pid'};\n"
                f"error_log {tmp / 'error.log'} warn;\nworker_rlimit_nofile {self.worker_connections * 3};\n"
                f"events {{ worker_connections {self.worker_connections}; }}\n"
                f"http {{\n    access_log off;\n{temp_paths}\n"
                + site_config(self.port, self.upstream_port, self.bind) + "}\n")

    def start(self, timeout: float = 20) -> "Nginx":
        program = shutil.which("nginx") or "/usr/sbin/nginx"  # Debian's nginx (.ci/run installs it)
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "nginx.conf").write_text(self.config(), encoding="utf-8")
        with open(self.folder / "nginx.out", "ab") as out:
            self.proc = subprocess.Popen([program, "-p", str(self.folder), "-e", str(self.folder / "error.log"),
                                          "-c", str(self.folder / "nginx.conf")],
                                         stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not start within {timeout} s: {self.log()}")

    def log(self) -> str:
        parts = [(self.folder / name) for name in ("nginx.out", "error.log")]
        return "\n".join(p.read_text(errors="replace")[-2000:] for p in parts if p.exists())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: nginx's fast shutdown
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
