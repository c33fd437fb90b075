"""A throw-away PostgreSQL server for the tests: initdb and pg_ctl in a temporary folder,
listening on a unix socket in that folder only (no TCP port at all), stopped and deleted at
the end of the session. As root (CI runs as root) it runs as the ``postgres`` user Debian's
package creates (initdb refuses root), through ``runuser``.

Each test gets its own database, copied from a migrated template (``CREATE DATABASE … TEMPLATE``:
a few milliseconds), so tests never see each other's tables."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

# Debian's own programs first: /usr/local/bin may hold wrappers or links of another version.
SEARCH = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True)


def find_bin() -> Path | None:
    """The folder holding initdb, pg_ctl, pg_dump and pg_restore, or None."""
    for folder in [*SEARCH, *(os.environ.get("PATH", "").split(os.pathsep))]:
        if folder and all(os.access(os.path.join(folder, p), os.X_OK) for p in ("initdb", "pg_ctl", "pg_dump")):
            return Path(folder)
    return None


def missing_reason() -> str | None:
    """Why PostgreSQL tests can't run here (None: they can)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'table-companion[postgres]')"
    if find_bin() is None:
        return "PostgreSQL's programs (initdb, pg_ctl) are not installed (Debian: apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    return None


class ThrowawayPostgres:
    def __init__(self, max_connections: int = 200):
        self.max_connections = max_connections
        self.bin = find_bin()
        self.folder = Path(tempfile.mkdtemp(prefix="companion-pg-"))
        self.data = self.folder / "data"
        self.as_root = os.geteuid() == 0
        self.numbers = itertools.count(1)
        if self.as_root:
            account = pwd.getpwnam("postgres")
            os.chown(self.folder, account.pw_uid, account.pw_gid)

    def _run(self, *argv: str) -> None:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        # cwd: a folder the postgres user may enter (it can't read root's working directory)
        result = subprocess.run(command, cwd=self.folder, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")

    def start(self) -> "ThrowawayPostgres":
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync",
                  "--locale=C")
        # No TCP at all; durability off (a test server): fsync, full pages and synchronous commit.
        options = (f"-c listen_addresses='' -c unix_socket_directories={self.folder} -c fsync=off"
                   " -c synchronous_commit=off -c full_page_writes=off"
                   f" -c max_connections={self.max_connections}")
        self.options = options
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "-t", "60",
                  "start")
        return self

    def restart(self) -> None:
        """Stop the server (its connections end, as at a club's restart) and start it again on
        the same data (issue 46: a database that goes away and comes back)."""
        self.stop_serving()
        self.start_serving()

    def stop_serving(self) -> None:
        """Stop the server, keeping its data (start_serving starts it again)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def start_serving(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-o", self.options, "-l", str(self.folder / "log"), "-w",
                  "-t", "60", "start")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.folder}"

    def admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def new_database(self, template: str | None = None) -> str:
        """A new empty database (a copy of ``template``, if given); returns its URL."""
        name = f"t{os.getpid()}_{next(self.numbers)}"
        self.admin(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        return self.url(name)

    def empty(self, url: str) -> None:
        """Empty every table of the database at ``url`` but the schema's version."""
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            names = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
                " AND tablename != 'companion_schema'")]
            conn.execute(f"TRUNCATE {', '.join(names)} RESTART IDENTITY CASCADE")

    def drop_database(self, url: str) -> None:
        """Drop the database at ``url`` (made by new_database), closing its connections."""
        from urllib.parse import urlsplit

        self.admin(f"DROP DATABASE {urlsplit(url).path.lstrip('/')} WITH (FORCE)")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
