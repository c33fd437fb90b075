"""docs/systemd/ (issue 46, docs/club-server.md "Running as a service"): the units a club installs
are valid, and their commands do what the units promise.

- ``systemd-analyze verify`` on copies whose commands point at this checkout's
  ``.venv/bin/companion`` (the units say /opt/table-companion). It works offline, without
  systemd running as PID 1 (it isn't, here). It checks every directive and that each command's
  program exists; it does not look up ``User=`` (systemd 252: an unknown user passes), so the
  copies keep ``User=companion``. A directive it can't parse is only "ignoring"d, exit code 0:
  the test fails on any line it says.
- The ``ExecStart=`` lines, run as systemd would run them (its credentials folder, its state
  folder, a notify socket; on loopback and a free port instead of 0.0.0.0:8000): ``serve``
  says READY=1 from its main process (``NotifyAccess=main``) and answers /readyz and /metrics;
  SIGTERM (``KillSignal``, ``KillMode=mixed``) stops it and its workers within
  ``TimeoutStopSec``; the backup service leaves a dated dump and its clean-up runs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO_ROOT, Phone, free_port

UNITS = REPO_ROOT / "docs" / "systemd"
INSTALLED = "/opt/table-companion"


def companion_program() -> Path:
    """This checkout's .venv/bin/companion (CI's), else the one beside the Python running the tests."""
    own = REPO_ROOT / ".venv" / "bin" / "companion"
    return own if own.exists() else Path(sys.executable).parent / "companion"


def pointed_here(unit: Path, into: Path) -> Path:
    """A copy of ``unit`` in ``into`` whose commands and working folder are this checkout's."""
    text = unit.read_text(encoding="utf-8")
    text = text.replace(f"{INSTALLED}/.venv/bin/companion", str(companion_program()))
    text = text.replace(f"WorkingDirectory={INSTALLED}", f"WorkingDirectory={REPO_ROOT}")
    copy = into / unit.name
    copy.write_text(text, encoding="utf-8")
    return copy


def directives(unit: Path, key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in unit.read_text(encoding="utf-8").splitlines()
            if line.startswith(f"{key}=")]


def test_the_units_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI") == "true":
            pytest.fail("systemd-analyze is missing; CI must install systemd (.ci/run)", pytrace=False)
        pytest.skip("no systemd-analyze here")
    assert companion_program().exists(), companion_program()
    units = sorted(UNITS.glob("*.service")) + sorted(UNITS.glob("*.timer"))
    assert {u.name for u in units} == {"companion.service", "companion-backup.service", "companion-backup.timer"}
    copies = [pointed_here(unit, tmp_path) for unit in units]
    for copy in copies:
        assert str(companion_program()) in copy.read_text() or copy.suffix == ".timer", copy
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *map(str, copies)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stdout + done.stderr


def test_the_check_sees_a_directive_it_cannot_parse(tmp_path):
    """systemd-analyze exits 0 on a directive it ignores: the test above reads what it says."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here")
    unit = pointed_here(UNITS / "companion.service", tmp_path)
    unit.write_text(unit.read_text().replace("Restart=on-failure", "Restart=sometimes"))
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "Failed to parse service restart specifier" in done.stderr


def as_systemd_runs(command: str, credentials: Path, state: Path, port: int) -> list[str]:
    """An ExecStart= line as systemd would run it here: %S, ${CREDENTIALS_DIRECTORY}, this checkout's
    program; loopback and a free port (tests never listen beyond loopback)."""
    command = command.replace("${CREDENTIALS_DIRECTORY}", str(credentials)).replace("%S", str(state))
    command = command.replace(f"{INSTALLED}/.venv/bin/companion", str(companion_program()))
    command = re.sub(r"--host \S+", "--host 127.0.0.1", command)
    command = re.sub(r"--port \d+", f"--port {port}", command)
    return shlex.split(command)


@pytest.mark.slow  # starts `companion serve --workers 2` and `companion backup`
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux")
def test_the_units_commands_serve_and_back_up_as_systemd_runs_them(postgres_database, tmp_path):
    credentials, state = tmp_path / "credentials", tmp_path / "state"
    credentials.mkdir()
    (credentials / "db").write_text(postgres_database + "\n")  # LoadCredential=db:…
    for folder in directives(UNITS / "companion-backup.service", "StateDirectory")[0].split():
        (state / folder).mkdir(parents=True, exist_ok=True)  # StateDirectory=
    env = dict(os.environ, XDG_DATA_HOME=str(state), NOTIFY_SOCKET=str(tmp_path / "notify"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    env.pop("COMPANION_DB", None)
    unit = UNITS / "companion.service"
    assert directives(unit, "Type") == ["notify"] and directives(unit, "NotifyAccess") == ["main"]
    assert directives(unit, "Environment") == ["XDG_DATA_HOME=%S"]
    port = free_port()
    argv = as_systemd_runs(directives(unit, "ExecStart")[0], credentials, state, port)
    assert "postgresql://" not in " ".join(argv)  # no secret on the command line
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    notify.bind(str(tmp_path / "notify"))
    with open(tmp_path / "serve.log", "ab") as out:
        served = subprocess.Popen(argv, env=env, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL)
    try:
        notify.settimeout(int(directives(unit, "TimeoutStartSec")[0]))
        try:
            message, extra, _flags, _address = notify.recvmsg(4096, socket.CMSG_SPACE(12))
        except TimeoutError:
            raise AssertionError((tmp_path / "serve.log").read_text(errors="replace")[-2000:]) from None
        sender = next(struct.unpack("i", data[:4])[0] for level, kind, data in extra
                      if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS)
        assert message == b"READY=1" and sender == served.pid  # the main process: NotifyAccess=main
        assert Phone(port).request_once("GET", "/readyz")[0] == 200
        assert Phone(port).request_once("GET", "/metrics")[0] == 200  # --metrics-from 127.0.0.1: the laptop's own
        token = Phone(port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        assert token
    finally:
        served.send_signal(signal.SIGTERM)  # KillSignal=
        try:
            served.wait(int(directives(unit, "TimeoutStopSec")[0]))
        finally:
            if served.poll() is None:
                served.kill()
        notify.close()
    assert served.returncode == 0, (tmp_path / "serve.log").read_text(errors="replace")[-2000:]

    backup = UNITS / "companion-backup.service"
    env.pop("NOTIFY_SOCKET")
    done = subprocess.run(as_systemd_runs(directives(backup, "ExecStart")[0], credentials, state, port),
                          env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    dumps = list((state / "table-companion" / "backups").glob("companion-*.dump"))
    assert len(dumps) == 1 and dumps[0].stat().st_size > 0, done.stdout
    assert "Backed up 1 tables" in done.stdout
    assert f"restore {dumps[0]} --db-file {credentials / 'db'}" in done.stdout  # pastes, as systemd ran it
    cleanup = subprocess.run(as_systemd_runs(directives(backup, "ExecStartPost")[0], credentials, state, port),
                             capture_output=True, text=True, timeout=60)
    assert cleanup.returncode == 0, cleanup.stderr
    assert dumps[0].exists()  # a fresh one is kept (only those older than 60 days go)


def test_the_guide_shows_each_unit_as_it_is():
    """docs/club-server.md, "Running as a service", shows the units whole: the same text as the files."""
    guide = (REPO_ROOT / "docs" / "club-server.md").read_text(encoding="utf-8")
    for unit in sorted(UNITS.iterdir()):
        assert f"`docs/systemd/{unit.name}`:\n\n```ini\n{unit.read_text(encoding='utf-8')}```" in guide, unit.name
