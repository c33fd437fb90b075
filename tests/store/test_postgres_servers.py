"""Several `companion serve` processes on one PostgreSQL database (issue 35): two laptops on two
loopback ports, each phone's change pushed to the other's phones; and `--workers N`, one port
answered by N processes, one that dies started again."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO_ROOT, Phone, enter_deals, free_port

pytestmark = pytest.mark.slow  # starts `companion serve` processes


def serve(url: str, log: Path, *args: str) -> tuple[subprocess.Popen, int]:
    """A started `companion serve --db url` on a free loopback port (waits until it answers)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    port = free_port()
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                                 "--port", str(port), "--db", url, "--no-qr", *args],
                                env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text(errors="replace")[-2000:]
        status, _headers, _body = Phone(port).request_once("GET", "/healthz") if answers(port) else (0, {}, "")
        if status == 200:
            return proc, port
        time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"server did not start: {log.read_text(errors='replace')[-2000:]}")


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def next_change(port: int, token: str, rev: int, opened, timeout: float = 15) -> int:
    """Open the table's event stream at ``port``, set ``opened`` once its "hello" came, and
    return the revision of its first "changed" event."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(f"GET /t/{token}/events?rev={rev}&form=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())
        buffer, last_id, event = b"", None, None
        while True:
            while b"\n" not in buffer:
                chunk = sock.recv(4096)
                if not chunk:
                    raise ConnectionError("stream closed")
                buffer += chunk
            line, _, buffer = buffer.partition(b"\n")
            line = line.rstrip(b"\r")
            if line.startswith(b"id: "):
                last_id = int(line[4:])
            elif line.startswith(b"event: "):
                event = line[7:]
            elif line == b"" and event == b"hello":
                opened.set()
            elif line == b"" and event == b"changed":
                return last_id


def children(pid: int) -> set[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return {int(p) for p in text.split()}


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads worker ids from /proc (Linux)")
def test_workers_answer_on_one_port_and_one_killed_is_started_again(postgres_database, tmp_path):
    parent, port = serve(postgres_database, tmp_path / "workers.log", "--workers", "2")
    try:
        deadline = time.monotonic() + 30
        while len(children(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        first = children(parent.pid)
        assert len(first) == 2
        token = Phone(port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        killed = min(first)
        os.kill(killed, signal.SIGKILL)
        deadline = time.monotonic() + 5  # the target: the killed worker's phones back within 5 s
        while time.monotonic() < deadline:
            now = children(parent.pid)
            if len(now) == 2 and killed not in now:
                break
            time.sleep(0.05)
        assert len(now) == 2 and killed not in now, now
        enter_deals(port, token, [1, 2, 3])  # whichever worker answers, each deal is stored once
        status, _headers, body = Phone(port).request("GET", f"/t/{token}/export.json")
        assert status == 200 and body.count('"number"') >= 3
        assert "started" in (tmp_path / "workers.log").read_text()
    finally:
        stop(parent)
    assert parent.returncode == 0
    time.sleep(0.5)
    assert not any(Path(f"/proc/{pid}").exists() and "companion" in Path(f"/proc/{pid}/cmdline").read_text()
                   for pid in first | now), "a worker outlived its parent"


def test_a_change_saved_on_one_laptop_is_pushed_to_the_phones_of_the_other(postgres_database, tmp_path):
    first, first_port = serve(postgres_database, tmp_path / "a.log")
    second, second_port = serve(postgres_database, tmp_path / "b.log")
    try:
        token = Phone(first_port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        # A phone of the second laptop watches the table the first one opened...
        import threading

        seen: list[int] = []
        opened = threading.Event()
        watching = threading.Thread(target=lambda: seen.append(next_change(second_port, token, 0, opened)))
        watching.start()
        assert opened.wait(15)  # its stream is open at revision 0: only a push can tell it of deal 1
        started = time.monotonic()
        enter_deals(first_port, token, [1])  # ...and a phone of the first enters a deal
        watching.join(15)
        assert seen == [1], seen
        assert time.monotonic() - started < 10
    finally:
        stop(first)
        stop(second)


SECRET = "s3cret-Not-For-ps"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads command lines from /proc (Linux)")
def test_no_password_on_any_command_line_or_in_the_log_of_workers_started_with_companion_db(postgres_database,
                                                                                            tmp_path):
    """Issue 46: `serve --workers 2` passed --db with its password to each worker's command line
    (another user's `ps` shows it). With COMPANION_DB the URL reaches the workers through their
    environment; the log and the printed backup command hold no password either."""
    with_password = postgres_database.replace("postgresql://postgres@", f"postgresql://postgres:{SECRET}@")
    assert SECRET in with_password  # the throwaway server trusts local users: the password is never checked
    env = dict(os.environ, PYTHONUNBUFFERED="1", COMPANION_DB=with_password,
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    port, log = free_port(), tmp_path / "secret.log"
    with open(log, "ab") as out:
        parent = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                                   "--port", str(port), "--no-qr", "--workers", "2"],
                                  env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(children(parent.pid)) < 2 and time.monotonic() < deadline:
            assert parent.poll() is None, log.read_text(errors="replace")[-2000:]
            time.sleep(0.1)
        while not (answers(port) and Phone(port).request_once("GET", "/healthz")[0] == 200):
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            time.sleep(0.1)
        token = Phone(port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        assert token
        # Nor in anything served: the laptop's pages (which name the database), a table and its
        # files, the health and metrics answers, whichever worker answers.
        laptop, phone = Phone(port), Phone(port, source="127.0.0.2")
        for path in ("/", "/hall", "/hall/screen", "/players", "/readyz", "/healthz", "/metrics", "/hall/export.csv",
                     f"/t/{token}", f"/t/{token}/export.json", f"/t/{token}/export.csv", "/hall/export.json"):
            for asker in (laptop, phone):
                _status, _headers, body = asker.request("GET", path)
                assert SECRET not in body, path
        for pid in {parent.pid} | children(parent.pid):
            assert SECRET not in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"), pid
        printed = log.read_text(errors="replace")
        assert SECRET not in printed
        # The backup command pastes: it names the database by the same COMPANION_DB, never "***".
        assert "companion backup FILE)" in printed
    finally:
        stop(parent)


def test_a_password_typed_in_db_is_warned_of_and_the_restore_command_pastes(postgres_database, tmp_path, capsys):
    """Issue 46: `companion backup` printed a restore command with the password as ***, which
    can't be pasted; now it names the database as it was given (--db-file, or the URL without
    its password, for PGPASSWORD or ~/.pgpass)."""
    from companion import cli

    with_password = postgres_database.replace("postgresql://postgres@", f"postgresql://postgres:{SECRET}@")
    assert cli.main(["backup", str(tmp_path / "a.dump"), "--db", with_password]) == 0
    said = capsys.readouterr()
    assert "can be read by every user of this machine" in said.err
    assert SECRET not in said.out
    restore = next(line for line in said.out.splitlines() if line.startswith("To put it back:"))
    assert postgres_database in restore and "PGPASSWORD" in restore and "***" not in restore
    first_restore = restore
    (tmp_path / "db.url").write_text(with_password + "\n")
    assert cli.main(["backup", str(tmp_path / "b.dump"), "--db-file", str(tmp_path / "db.url")]) == 0
    said = capsys.readouterr()
    assert said.err == "" and SECRET not in said.out
    restore = next(line for line in said.out.splitlines() if line.startswith("To put it back:"))
    assert restore.endswith(f"restore {tmp_path / 'b.dump'} --db-file {tmp_path / 'db.url'}")
    # Both printed commands run as printed (a shell, the console script on PATH): each puts its
    # copy back. The first relies on PGPASSWORD, as it says.
    shell = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                 PGPASSWORD=SECRET)
    shell.pop("COMPANION_DB", None)
    for line in (first_restore, restore):
        pasted = line.removeprefix("To put it back: ").split("  (with PGPASSWORD")[0]
        done = subprocess.run(["bash", "-c", pasted], env=shell, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Restored 0 tables" in done.stdout, (pasted, done.stdout, done.stderr)
    # The printed command, run as printed (its arguments), puts the backup back.
    args = restore.split("restore ", 1)[1].split()
    assert cli.main(["restore", *args]) == 0


def end_backends(url: str, like: str) -> int:
    """pg_terminate_backend of the connections to the database whose last statement is ``like``."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return len([row for row in conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid != pg_backend_pid() AND query LIKE %s", (like,)).fetchall() if row[0]])


@pytest.mark.parametrize("loss", ["sender ended", "listener ended", "quiet restart"])
def test_after_a_lost_relay_connection_the_next_change_reaches_the_other_laptops_phone_at_once(
        loss, postgres_server, postgres_database, tmp_path):
    """Issue 46: laptop A's NOTIFY-sending connection ended (pg_terminate_backend), laptop B's
    listening one ended, or PostgreSQL restarted while nobody asked: the next change saved on A
    reaches a phone of B within about a second. (A lost sender sends it again on a new connection;
    a listener back after a loss asks the database for everything its phones watch, so a change
    made while it was away is not missed.)"""
    import threading

    first, first_port = serve(postgres_database, tmp_path / "a.log")
    second, second_port = serve(postgres_database, tmp_path / "b.log")
    try:
        token = Phone(first_port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])  # A's sender now connected
        enter_deals(first_port, token, [1])
        seen: list[int] = []
        opened = threading.Event()
        watching = threading.Thread(target=lambda: seen.append(next_change(second_port, token, 1, opened)))
        watching.start()
        assert opened.wait(15)  # B's phone shows deal 1: only a push can tell it of deal 2
        if loss == "sender ended":
            assert end_backends(postgres_database, "SELECT pg_notify%") >= 1
        elif loss == "listener ended":
            assert end_backends(postgres_database, "LISTEN %") == 2  # both laptops': B's away for a second
        else:
            postgres_server.restart()
        enter_deals(first_port, token, [2])
        saved = time.monotonic()
        watching.join(15)
        heard = time.monotonic() - saved
        print(f"{loss}: B's phone heard deal 2 {heard:.2f} s after A saved it")
        assert seen == [2], seen
        assert heard < 2.5  # about a second (a listener waits a second before it listens again)
    finally:
        stop(first)
        stop(second)
    for log in ("a.log", "b.log"):
        said = (tmp_path / log).read_text(errors="replace")
        assert "Traceback" not in said, said[-3000:]
