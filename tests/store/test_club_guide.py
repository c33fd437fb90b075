"""The club-server guide's setup commands run as written, in a fresh clone and a fresh HOME
(issue 46): docs/club-server.md's "Setting it up" block, line by line, with bash. Only what a
test may not do is changed, each named below: the two `sudo -u postgres` lines become the same
statements on the tests' throw-away PostgreSQL (a role with a password, a database it owns),
`localhost` in the URL becomes that server's socket folder (and PASSWORD the role's), and serve listens on loopback."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import REPO_ROOT, Phone, free_port
from tests.test_quickstart import ON_CI, fresh_machine_env, pep668_python, stop, wait_for_page

GUIDE = REPO_ROOT / "docs" / "club-server.md"
PASSWORD = "Club-pw-9x"  # for the guide's placeholder PASSWORD: the role is made with it


def setup_block() -> list[str]:
    section = GUIDE.read_text(encoding="utf-8").split("## Setting it up", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_setup_block_is_what_this_test_runs():
    """The lines the test replaces are the guide's: a new line in the guide fails here first."""
    lines = setup_block()
    assert lines[0] == "sudo apt-get install postgresql"
    assert lines[1] == "sudo -u postgres createuser --pwprompt club"
    assert lines[2] == "sudo -u postgres createdb --owner club season"
    assert all(not line.startswith("sudo ") for line in lines[3:]), lines
    assert "postgresql://club:PASSWORD@localhost/season" in "\n".join(lines)
    assert lines[-1].startswith("python3 run.py serve --db-file ")


@pytest.mark.slow
def test_the_club_guides_setup_runs_as_written_in_a_fresh_clone(tmp_path, postgres_server):
    python = pep668_python()
    git = shutil.which("git")
    if python is None or git is None:
        message = "needs Debian's python3 (PEP 668) and git"
        pytest.fail(message) if ON_CI else pytest.skip(message)
    lines = setup_block()
    database = f"season{os.getpid()}"
    # The two sudo lines, on the throw-away server (apt-get's package is .ci/run's business).
    postgres_server.admin("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'club') THEN"
                          f" CREATE ROLE club LOGIN PASSWORD '{PASSWORD}'; END IF; END $$",
                          f"CREATE DATABASE {database} OWNER club")
    clone, home = tmp_path / "clone", tmp_path / "home"
    home.mkdir()
    subprocess.run([git, "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True, timeout=120,
                   capture_output=True)
    env = fresh_machine_env(home)
    url = f"postgresql://club:{PASSWORD}@/{database}?host={postgres_server.folder}"
    port = free_port()
    *setup, serve = [line.replace("postgresql://club:PASSWORD@localhost/season", url) for line in lines[3:]]
    for line in setup:
        done = subprocess.run(["bash", "-c", line], cwd=clone, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
    assert (home / ".companion-db").read_text().strip() == url
    assert oct((home / ".companion-db").stat().st_mode & 0o777) == "0o600"
    output = tmp_path / "serve.txt"
    with open(output, "wb") as out:
        proc = subprocess.Popen(["bash", "-c", f"{serve} --host 127.0.0.1 --port {port} --no-qr"], cwd=clone,
                                env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        assert wait_for_page(f"http://127.0.0.1:{port}/readyz", proc, output, timeout=240)
        token = Phone(port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        assert token
    finally:
        stop(proc)
    said = output.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in said and PASSWORD not in said, said
    import psycopg

    with psycopg.connect(postgres_server.url(database)) as conn:  # the table is in the club's database
        assert conn.execute("SELECT count(*) FROM tables WHERE token = %s", (token,)).fetchone()[0] == 1
