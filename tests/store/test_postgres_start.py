"""A start that can't reach its PostgreSQL database (issue 46): stopped, refusing the password,
out of connections. The terminal gets one line saying so and the command ends with a non-zero
code, never a traceback (`serve`, `serve --workers 2`, `backup`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import REPO_ROOT, free_port

pytest.importorskip("psycopg")
pytestmark = pytest.mark.slow  # runs `companion` as the organiser types it: a Python process

NOWHERE = "postgresql://postgres@/companion?host=/nonexistent-companion-socket"


def run(*args: str) -> subprocess.CompletedProcess:
    """`companion ARGS` as the organiser types it (serve patches the process for gevent: never here)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def one_line_refusal(ended: subprocess.CompletedProcess) -> str:
    said = ended.stderr
    assert ended.returncode != 0, ended.stdout
    lines = said.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: "), said
    assert "Traceback" not in said
    return lines[0]


@pytest.mark.parametrize("command", [["serve"], ["serve", "--workers", "2"], ["backup", "BACKUP"]])
def test_a_database_that_does_not_answer_is_one_line_and_no_traceback(command, tmp_path):
    command = [str(tmp_path / "b.dump") if part == "BACKUP" else part for part in command]
    if command[0] == "serve":
        command += ["--no-qr", "--host", "127.0.0.1", "--port", str(free_port())]
    said = one_line_refusal(run(*command, "--db", NOWHERE))
    assert "could not connect to the PostgreSQL database" in said and "No such file or directory" in said
    assert "not a Table Companion database" not in said  # not answering is not "another program's"


@pytest.fixture
def full_postgres():
    """A PostgreSQL server whose every connection is taken (max_connections 5, all held here)."""
    import psycopg

    from store.throwaway_postgres import ThrowawayPostgres, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL tests can't run: {reason}; CI must install it (.ci/run)", pytrace=False)
        pytest.skip(f"no PostgreSQL here: {reason}")
    server = ThrowawayPostgres(max_connections=5).start()
    try:
        url = server.new_database()
        from companion.store import migrate

        migrate(url)
        held = []
        try:
            while True:
                held.append(psycopg.connect(url, autocommit=True))
        except psycopg.OperationalError as exc:
            assert "too many clients" in str(exc)
        yield url
        for conn in held:
            conn.close()
    finally:
        server.stop()


@pytest.mark.parametrize("command", [["serve"], ["serve", "--workers", "2"], ["backup", "BACKUP"]])
def test_a_database_out_of_connections_is_one_line_and_no_traceback(command, full_postgres, tmp_path):
    command = [str(tmp_path / "b.dump") if part == "BACKUP" else part for part in command]
    if command[0] == "serve":
        command += ["--no-qr", "--host", "127.0.0.1", "--port", str(free_port())]
    said = one_line_refusal(run(*command, "--db", full_postgres))
    assert "too many clients" in said, said


def test_the_servers_lock_on_a_database_that_does_not_answer_is_a_one_line_store_error():
    """`serve` takes its lock after the database migrated: PostgreSQL gone or out of connections
    meanwhile left a traceback (ServerLock.acquire raised psycopg's two-line error untranslated
    into serve). It is a DatabaseError now, which serve says in one line."""
    from companion.store import DatabaseError, postgres

    with pytest.raises(DatabaseError) as refused:
        postgres.ServerLock(NOWHERE).acquire()
    assert "\n" not in str(refused.value) and "could not connect" in str(refused.value)


@pytest.fixture
def password_postgres():
    """A PostgreSQL server where the role ``club`` must give its password (scram) on the socket."""
    from store.throwaway_postgres import ThrowawayPostgres, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL tests can't run: {reason}; CI must install it (.ci/run)", pytrace=False)
        pytest.skip(f"no PostgreSQL here: {reason}")
    server = ThrowawayPostgres().start()
    try:
        url = server.new_database()
        from urllib.parse import urlsplit

        server.admin("CREATE ROLE club LOGIN PASSWORD 'right-one'",
                     f"ALTER DATABASE {urlsplit(url).path.lstrip('/')} OWNER TO club")
        rules = server.data / "pg_hba.conf"
        rules.write_text("local all club scram-sha-256\n" + rules.read_text())
        server._run("pg_ctl", "-D", str(server.data), "reload")
        yield url.replace("postgresql://postgres@", "postgresql://club:wrong-one@")
    finally:
        server.stop()


@pytest.mark.parametrize("command", [["serve"], ["serve", "--workers", "2"], ["backup", "BACKUP"]])
def test_a_wrong_password_is_one_line_and_no_traceback(command, password_postgres, tmp_path):
    command = [str(tmp_path / "b.dump") if part == "BACKUP" else part for part in command]
    if command[0] == "serve":
        command += ["--no-qr", "--host", "127.0.0.1", "--port", str(free_port())]
    env = dict(os.environ, COMPANION_DB=password_postgres,  # never typed in --db: no warning line
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
    ended = subprocess.run([sys.executable, "-m", "companion.cli", *command], env=env, capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
    said = one_line_refusal(ended)
    assert "password authentication failed" in said and "wrong-one" not in said, said
