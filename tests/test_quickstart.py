"""From a fresh laptop to the first table in one command (issue 17): the README's Quick
start on a PEP 668 Python in a fresh clone and a fresh HOME; scores in the user's data
folder (an earlier version's database moved there, never lost); what `serve` says;
--open; `companion backup` while another connection writes; --version; run.py itself."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion import moving
from companion import cli, create_app
from companion.store import connect
from helpers import free_port

REPO_ROOT = Path(__file__).resolve().parent.parent
README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
ON_CI = os.environ.get("CI") == "true"
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX processes and paths")


def quick_start_commands() -> list[str]:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in quick.splitlines() if line.startswith("    ")]


def wait_for_page(url: str, proc: subprocess.Popen, output: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            pytest.fail(f"exited with {proc.returncode} before answering:\n{output.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(url, timeout=3) as response:
                return response.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                pytest.fail(f"no page at {url} within {timeout:.0f} s:\n{output.read_text(errors='replace')}")
            time.sleep(0.5)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the whole group (the shell, run.py and the server it became), then wait."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def pep668_python() -> str | None:
    """The system's own `python3` (first on a plain PATH) if it is an externally managed
    one (PEP 668: its stdlib folder holds EXTERNALLY-MANAGED), 3.11 or newer."""
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if python is None:
        return None
    probe = subprocess.run([python, "-c", "import sys, sysconfig; print(sys.version_info >= (3, 11)); "
                            "print(sysconfig.get_path('stdlib'))"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return None
    new_enough, stdlib = probe.stdout.split("\n")[:2]
    return python if new_enough == "True" and (Path(stdlib) / "EXTERNALLY-MANAGED").is_file() else None


def fresh_machine_env(home: Path) -> dict[str, str]:
    """A new user's environment: an empty HOME, the system PATH (no virtualenv), nothing of
    ours. Only how to reach a package index passes through (proxy, certificates, pip's own
    settings), as on a real machine."""
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "PYTHONUNBUFFERED": "1"}
    for name, value in os.environ.items():
        if name.startswith("PIP_") or name.lower() in ("http_proxy", "https_proxy", "no_proxy", "all_proxy") \
                or name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"):
            env[name] = value
    for config in (Path.home() / ".config" / "pip" / "pip.conf", Path.home() / ".pip" / "pip.conf"):
        if "PIP_CONFIG_FILE" not in env and config.is_file():
            env["PIP_CONFIG_FILE"] = str(config)  # the machine's configured index, if any
    return env


# --- the README's Quick start on a fresh machine -------------------------------------------------

@pytest.mark.slow
@posix_only
def test_readme_serve_command_on_a_pep668_python_in_a_fresh_clone_and_home(tmp_path):
    """The first Quick start command, exactly as the README writes it, run by bash with
    Debian's python3 in a `git clone` of this repository and an empty HOME. Only
    `--host 127.0.0.1 --port N` is appended: tests listen on loopback alone.
    (It clones the last commit: uncommitted edits are not in the clone.)"""
    python = pep668_python()
    if python is None:
        message = "no externally managed (PEP 668) python3 >= 3.11 on the system PATH"
        if ON_CI:
            pytest.fail(message + " (CI must have Debian's python3)")
        pytest.skip(message)
    git = shutil.which("git")
    if git is None:
        pytest.fail("git is needed to clone the repository") if ON_CI else pytest.skip("no git")
    serve_command = quick_start_commands()[0]
    assert serve_command.startswith("python3 "), "the test runs the README's command with the system python3"

    clone, home = tmp_path / "clone", tmp_path / "home"
    home.mkdir()
    subprocess.run([git, "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True, timeout=120,
                   capture_output=True)
    env = fresh_machine_env(home)
    port = free_port()
    output = tmp_path / "serve.txt"
    with open(output, "wb") as out:
        # bash runs a lone command in its own process: the signal below reaches the server.
        proc = subprocess.Popen(["bash", "-c", f"{serve_command} --host 127.0.0.1 --port {port}"],
                                cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        # First run: a virtualenv and every dependency from the package index; bounded.
        home_page = wait_for_page(f"http://127.0.0.1:{port}/", proc, output, timeout=480)
        assert "Table Companion" in home_page and "Lucky Cube" in home_page
        said = output.read_text(encoding="utf-8")
        data_dir = home / ".local" / "share" / "table-companion"
        database = data_dir / "companion.sqlite"
        assert database.is_file(), said
        assert f"Scores are saved in {database} (copy them any time: python3 run.py backup FILE)" in said
        assert (data_dir / "secret_key").is_file()
        assert f"Only this laptop can open it: http://127.0.0.1:{port}/" in said
        assert "scan" not in said and "█" not in said
    finally:
        stop(proc)
    said = output.read_text(encoding="utf-8")
    assert proc.returncode == 0 and "Stopped." in said, said
    assert "Traceback" not in said and "externally-managed" not in said
    # Nothing of the scores inside the clone or its virtualenv.
    assert not [p for p in clone.rglob("*") if p.name.startswith("companion.sqlite") or p.name == "secret_key"]
    assert not (clone / "instance").exists()
    assert not (home / ".local" / "lib").exists()  # nothing installed into the user's site either

    # Second run: no reinstall; backup and --version through the same run.py.
    started = time.monotonic()
    version = subprocess.run(["bash", "-c", "python3 run.py --version"], cwd=clone, env=env,
                             capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.strip() == f"companion {cli.version()}", version
    assert "installing" not in version.stdout + version.stderr
    assert time.monotonic() - started < 60
    copy = tmp_path / "copy.sqlite"
    backup = subprocess.run(["bash", "-c", f"python3 run.py backup {copy}"], cwd=clone, env=env,
                            capture_output=True, text=True, timeout=120)
    assert backup.returncode == 0, backup.stdout + backup.stderr
    assert f"from {database} to {copy}" in backup.stdout
    assert f"To use it: python3 run.py serve --db {copy}" in backup.stdout


def test_ci_runs_the_readme_test_command_and_fails_on_no_tests():
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    assert re.search(r"TEST_CMD='([^']*)'", ci).group(1) == quick_start_commands()[1] == "python3 run.py test"
    assert '"$status" -eq 5' in ci  # pytest's "no tests ran" is a failure
    assert "python3-venv" in ci  # Debian's python3 needs it to make the virtualenv


# --- the data folder -------------------------------------------------------------------------

def test_tests_never_touch_the_real_data_folder():
    """conftest.py gives the whole session a throw-away XDG_DATA_HOME."""
    real = Path.home() / ".local" / "share"
    assert not str(moving.data_dir()).startswith(str(real) + os.sep)
    assert moving.data_dir() == Path(os.environ["XDG_DATA_HOME"]) / "table-companion"


@pytest.fixture
def data_home(tmp_path, monkeypatch) -> Path:
    """A data folder of this test's own, and no earlier version's folder anywhere to be found."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(moving, "legacy_dirs", lambda instance_path: [])
    return tmp_path / "data" / "table-companion"


def test_without_db_the_scores_go_to_the_data_folder(data_home):
    app = create_app({"TESTING": True})
    assert app.config["DATABASE"] == str(data_home / "companion.sqlite")
    assert (data_home / "companion.sqlite").is_file() and (data_home / "secret_key").is_file()
    assert app.config["DATABASE_MOVED_FROM"] is None
    assert create_app({"TESTING": True}).config["SECRET_KEY"] == app.config["SECRET_KEY"]


def test_db_option_still_overrides(data_home, tmp_path):
    chosen = tmp_path / "elsewhere.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(chosen), "SECRET_KEY": "x"})
    assert app.config["DATABASE"] == str(chosen) and chosen.is_file()
    assert not (data_home / "companion.sqlite").exists()


def legacy_database(folder: Path, deals: int) -> tuple[Path, sqlite3.Connection]:
    """An earlier version's database with one table and ``deals`` deals, the last of them
    still only in the WAL (a connection holds it open, checkpointing off)."""
    path = folder / "companion.sqlite"
    create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "x"})
    conn = connect(str(path))
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("INSERT INTO tables (token, game, players, options, created_at, updated_at) "
                 "VALUES ('tok', 'rwd', '[\"A\",\"B\",\"C\"]', '{}', 'now', 'now')")
    for number in range(1, deals + 1):
        conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at) VALUES (1, ?, '{}', 'now', 'now')", (number,))
    assert (folder / "companion.sqlite-wal").stat().st_size > 0
    return path, conn


def test_an_earlier_versions_database_in_the_virtualenv_is_moved_never_lost(tmp_path, monkeypatch):
    """The old place: <prefix>/var/companion-instance inside the virtualenv (Flask's instance
    folder). The first start copies it into the data folder and keeps the old file."""
    venv = tmp_path / "venv"
    old_folder = venv / "var" / "companion-instance"
    old, writer = legacy_database(old_folder, deals=3)
    (old_folder / "secret_key").write_text("the-old-key")
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    new = tmp_path / "data" / "table-companion" / "companion.sqlite"
    try:
        app = create_app({"TESTING": True})
    finally:
        writer.close()
    assert app.config["DATABASE"] == str(new)
    assert app.config["DATABASE_MOVED_FROM"] == str(old)
    moved = connect(str(new))
    assert moved.execute("SELECT count(*) FROM deals").fetchone()[0] == 3  # the WAL's deal too
    assert moved.execute("SELECT token FROM tables").fetchone()[0] == "tok"
    moved.close()
    assert not old.exists() and (old_folder / "companion.sqlite.moved").is_file()  # kept, renamed
    assert app.config["SECRET_KEY"] == "the-old-key"  # phones' sessions survive the move
    # Later starts use the data folder and move nothing again.
    again = create_app({"TESTING": True})
    assert again.config["DATABASE"] == str(new) and again.config["DATABASE_MOVED_FROM"] is None
    out = cli.start_message(url="http://127.0.0.1:1/", warning="w", laptop="http://127.0.0.1:1/",
                            database=str(new), moved_from=str(old), draw_qr=False)
    assert f"Moved your scores from {old}" in out and f"{old}.moved" in out


def test_a_dev_checkouts_instance_database_is_found(tmp_path, monkeypatch):
    """./instance/companion.sqlite of a development checkout (Flask's instance folder there)."""
    old, writer = legacy_database(tmp_path / "checkout" / "instance", deals=1)
    writer.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path, moved_from = moving.default_database(str(tmp_path / "checkout" / "instance"))
    assert moved_from == str(old) and Path(path).is_file()
    assert Path(path).parent == tmp_path / "data" / "table-companion"


def test_an_old_folder_we_may_not_change_keeps_its_file_and_the_copy_is_used(tmp_path, monkeypatch):
    old, writer = legacy_database(tmp_path / "readonly" / "instance", deals=2)
    writer.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    real_replace = os.replace

    def refuse_old_folder(src, dst):
        if Path(src) == old:
            raise PermissionError(13, "Permission denied", str(src))
        return real_replace(src, dst)

    monkeypatch.setattr(moving.os, "replace", refuse_old_folder)
    path, moved_from = moving.default_database(str(old.parent))
    assert moved_from == str(old) and old.is_file()
    copy = connect(path)
    assert copy.execute("SELECT count(*) FROM deals").fetchone()[0] == 2
    copy.close()
    out = message(url="http://127.0.0.1:1/", warning="w", moved_from=str(old))
    assert "the old file was left where it was" in out


def test_another_programs_sqlite_file_in_the_old_place_is_left_alone(tmp_path, monkeypatch):
    folder = tmp_path / "instance"
    folder.mkdir()
    other = sqlite3.connect(folder / "companion.sqlite")
    other.execute("CREATE TABLE notes (x)")
    other.commit()
    other.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path, moved_from = moving.default_database(str(folder))
    assert moved_from is None and (folder / "companion.sqlite").is_file()


def test_legacy_places_cover_the_virtualenv_the_python_and_the_checkout():
    places = moving.legacy_dirs("/somewhere/instance")
    assert places[0] == Path("/somewhere/instance")
    assert Path(sys.prefix) / "var" / "companion-instance" in places
    assert REPO_ROOT / "instance" in places
    assert len({p.resolve() for p in places}) == len(places)


# --- what `serve` says ---------------------------------------------------------------------

LAN = "http://192.168.1.20:8000/"


def message(**changes) -> str:
    settings = dict(url=LAN, warning=None, laptop="http://127.0.0.1:8000/",
                    database="/data/companion.sqlite", moved_from=None, draw_qr=True)
    settings.update(changes)
    return cli.start_message(**settings)


def test_serve_message_on_the_network_says_where_phones_go_and_what_to_do(monkeypatch):
    monkeypatch.delenv("COMPANION_COMMAND", raising=False)
    out = message()
    assert f"Phones on the same Wi-Fi: scan this code or open {LAN}" in out
    assert "On this laptop: http://127.0.0.1:8000/" in out and "http://127.0.0.1:8000/hall" in out
    assert "Phones can't connect?" in out and "hotspot" in out and "firewall" in out
    assert "Scores are saved in /data/companion.sqlite (copy them any time: companion backup FILE)" in out
    assert "Only this laptop" not in out


def test_serve_message_without_qr_mentions_no_code():
    out = message(draw_qr=False)
    assert f"Phones on the same Wi-Fi: open {LAN}" in out
    assert "scan" not in out and "code" not in out.split("Phones can't")[0].replace("shows the code large", "")
    assert not set(out) & set("█▀▄")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_serve_message_on_loopback_never_sends_phones_there(host):
    url, warning = cli.join_url(host, 8000)
    out = message(url=url, warning=warning, laptop=cli.laptop_url(host, 8000))
    assert f"Only this laptop can open it: {url}" in out and "phones cannot reach" in out
    assert "Phones on the same Wi-Fi" not in out and "scan" not in out and not set(out) & set("█▀▄")


def test_serve_message_without_network(monkeypatch):
    monkeypatch.setattr(cli.lan, "lan_address", lambda adapters=None: None)
    url, warning = cli.join_url("0.0.0.0", 8000)
    out = message(url=url, warning=warning)
    assert "Only this laptop can open it: http://127.0.0.1:8000/" in out and "Wi-Fi" in out
    assert "scan" not in out and not set(out) & set("█▀▄")


def test_no_qr_where_the_output_cannot_carry_it():
    import io

    assert not cli.terminal_can_draw_qr(io.TextIOWrapper(io.BytesIO(), encoding="cp1252"))
    assert not cli.terminal_can_draw_qr(io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    assert cli.terminal_can_draw_qr(io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))


def test_laptop_url():
    assert cli.laptop_url("0.0.0.0", 8000) == "http://127.0.0.1:8000/"
    assert cli.laptop_url("::", 8000) == "http://[::1]:8000/"
    assert cli.laptop_url("192.168.1.20", 8000) == "http://192.168.1.20:8000/"
    assert cli.laptop_url("::1", 8000) == "http://[::1]:8000/"


# --- --open ------------------------------------------------------------------------------------

def serve_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    env.update(PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8", XDG_DATA_HOME=str(tmp_path / "data"))
    env.update(extra)
    return env


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("page, path", [("", ""), ("hall", "hall")])
def test_open_shows_the_page_in_the_laptops_browser(tmp_path, page, path):
    """--open goes through the webbrowser module; $BROWSER points it at a recorder script
    here, so no real browser starts."""
    opened = tmp_path / "opened.txt"
    recorder = tmp_path / "browser"
    recorder.write_text(f"#!{sys.executable}\nimport sys\nopen({str(opened)!r}, 'w').write(sys.argv[1])\n")
    recorder.chmod(0o755)
    port = free_port()
    args = [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--db", str(tmp_path / "o.sqlite"), "--open"] + ([page] if page else [])
    out = tmp_path / "out.txt"
    with open(out, "wb") as fh:
        proc = subprocess.Popen(args, env=serve_env(tmp_path, BROWSER=str(recorder)), stdout=fh,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_page(f"http://127.0.0.1:{port}/", proc, out, timeout=20)
        deadline = time.monotonic() + 10
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert opened.read_text() == f"http://127.0.0.1:{port}/{path}"
        assert f"Opening http://127.0.0.1:{port}/{path} in this laptop's browser." in out.read_text()
    finally:
        stop(proc)


def test_open_without_a_graphical_browser_says_so(monkeypatch, capsys):
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    launched = []
    monkeypatch.setattr(cli.webbrowser, "open", lambda url: launched.append(url))
    cli.open_in_browser("http://127.0.0.1:8000/")
    assert launched == []
    assert "open http://127.0.0.1:8000/ yourself" in capsys.readouterr().out


def test_open_says_when_the_browser_did_not_open(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(cli.webbrowser, "open", lambda url: False)
    cli.open_in_browser("http://127.0.0.1:8000/")
    for thread in threading.enumerate():
        if thread.name == "open-browser":
            thread.join(5)
    assert "Couldn't open a browser: open http://127.0.0.1:8000/ yourself." in capsys.readouterr().out


# --- backup and --version ----------------------------------------------------------------------

def test_backup_while_another_connection_writes_has_every_committed_deal(tmp_path, capsys):
    db = tmp_path / "live.sqlite"
    create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "x"})
    setup = connect(str(db))
    setup.execute("INSERT INTO tables (token, game, players, options, created_at, updated_at) "
                  "VALUES ('tok', 'rwd', '[]', '{}', 'now', 'now')")
    setup.close()
    committed = [0]
    done = threading.Event()

    def writer() -> None:  # like a server saving deal after deal, one transaction each
        conn = connect(str(db))
        number = 0
        while not done.is_set() and number < 100_000:
            number += 1
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at) VALUES (1, ?, '{\"x\": 1}', 'now', 'now')", (number,))
            conn.execute("UPDATE tables SET revision = ? WHERE id = 1", (number,))
            conn.execute("COMMIT")
            committed[0] = number
        conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while committed[0] < 50:
            time.sleep(0.01)
        for attempt in range(3):
            before = committed[0]
            copy = tmp_path / f"copy{attempt}.sqlite"
            assert cli.main(["backup", str(copy), "--db", str(db)]) == 0
            after = committed[0]
            check = sqlite3.connect(copy)
            assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            numbers = [row[0] for row in check.execute("SELECT number FROM deals ORDER BY number")]
            revision = check.execute("SELECT revision FROM tables").fetchone()[0]
            assert check.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one self-contained file
            check.close()
            # One committed state: every deal committed before it began, no gaps, and the
            # table row from the same transaction as the last deal.
            assert before <= len(numbers) <= after + 1
            assert numbers == list(range(1, len(numbers) + 1)) and revision == len(numbers)
            assert not (tmp_path / f"copy{attempt}.sqlite-wal").exists()
    finally:
        done.set()
        thread.join(30)
    assert f"to {tmp_path / 'copy2.sqlite'}" in capsys.readouterr().out


def test_backup_into_a_folder_makes_a_dated_file(tmp_path, capsys):
    db = tmp_path / "s.sqlite"
    create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "x"})
    folder = tmp_path / "backups"
    folder.mkdir()
    assert cli.main(["backup", str(folder), "--db", str(db)]) == 0
    made = list(folder.glob("companion-*.sqlite"))
    assert len(made) == 1 and "Backed up 0 tables (0 deals)" in capsys.readouterr().out


def test_backup_refusals_are_clear(tmp_path, capsys):
    missing = tmp_path / "none.sqlite"
    assert cli.main(["backup", str(tmp_path / "c.sqlite"), "--db", str(missing)]) == 1
    assert "no scores yet" in capsys.readouterr().err and not missing.exists()

    db = tmp_path / "s.sqlite"
    create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "x"})
    existing = tmp_path / "existing.sqlite"
    existing.write_bytes(b"keep me")
    assert cli.main(["backup", str(existing), "--db", str(db)]) == 1
    assert "already exists" in capsys.readouterr().err and existing.read_bytes() == b"keep me"

    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    assert cli.main(["backup", str(tmp_path / "c.sqlite"), "--db", str(other)]) == 2
    assert "not Table Companion's" in capsys.readouterr().err and not (tmp_path / "c.sqlite").exists()


def test_backup_uses_the_data_folder_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(moving, "legacy_dirs", lambda instance_path: [])
    create_app({"TESTING": True})
    assert cli.main(["backup", str(tmp_path / "c.sqlite")]) == 0
    assert f"from {tmp_path / 'data' / 'table-companion' / 'companion.sqlite'}" in capsys.readouterr().out


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    import tomllib

    expected = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert capsys.readouterr().out.strip() == f"companion {expected}"


# --- run.py --------------------------------------------------------------------------------------

@pytest.fixture
def run_py():
    spec = importlib.util.spec_from_file_location("run_py", REPO_ROOT / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_run_py_without_a_command_prints_usage(run_py, capsys):
    assert run_py.main([]) == 2
    out = capsys.readouterr().out
    assert "python3 run.py" in out and "py run.py" in out and "serve" in out and "test" in out


def test_run_py_explains_a_missing_venv_module(run_py, tmp_path, monkeypatch, capsys):
    """Debian and Ubuntu without python3-venv: a clear next step, and no half-made .venv."""
    monkeypatch.setattr(run_py, "VENV", str(tmp_path / ".venv"))

    def fake_run(args, **kwargs):
        (tmp_path / ".venv").mkdir(exist_ok=True)
        return subprocess.CompletedProcess(args, 1, stdout="The virtual environment was not created "
                                           "successfully because ensurepip is not available.")

    monkeypatch.setattr(run_py.subprocess, "run", fake_run)
    with pytest.raises(SystemExit) as exit_info:
        run_py.make_venv()
    assert exit_info.value.code == 1
    assert "sudo apt install python3-venv" in capsys.readouterr().err
    assert not (tmp_path / ".venv").exists()


def test_run_py_installs_again_only_when_needed(run_py, tmp_path, monkeypatch):
    monkeypatch.setattr(run_py, "STAMP", str(tmp_path / "stamp.json"))
    calls = []
    monkeypatch.setattr(run_py.subprocess, "run",
                        lambda args, **kw: calls.append(args) or subprocess.CompletedProcess(args, 0))
    run_py.install("test")
    run_py.install("test")
    run_py.install("")  # the test extra includes everything serving needs
    assert len(calls) == 1 and calls[0][-1].endswith("[test]") and "--editable" in calls[0]
    monkeypatch.setattr(run_py, "wanted_install", lambda extras: {"pyproject": "changed", "extras": extras})
    run_py.install("")
    assert len(calls) == 2 and calls[1][-1] == run_py.ROOT
