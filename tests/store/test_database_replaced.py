"""A deleted or replaced database file is noticed before a write is answered as saved (issue 23
item 3), and `companion restore FILE` puts a backup back safely: refused while a server runs on
the file, and what it replaces kept."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3 as sqlite  # the test reads the file directly, as a person with a SQLite tool would
import sys
import threading
import time
from html import unescape
from pathlib import Path

import pytest

from companion import cli, create_app, store
from helpers import Phone  # noqa: E402
from helpers import rwd_rotating_deal_form as rwd_deal

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="deleting an open file is POSIX")
REFUSED = "deleted or replaced"


def create(client) -> str:
    data = {"game": "rwd", "players": "4", **{f"name-{i}": n for i, n in enumerate(["Ann", "Bob", "Cy", "Di"])}}
    response = client.post("/tables", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)[:300]
    return response.headers["Location"].rsplit("/", 1)[-1]


def stored_deals(path: Path, token: str) -> int:
    conn = sqlite.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM deals JOIN tables ON tables.id = deals.table_id"
                            " WHERE token = ?", (token,)).fetchone()[0]
    finally:
        conn.close()


def remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def refused(response) -> str:
    body = unescape(response.get_data(as_text=True))
    assert response.status_code == 503, body[:500]
    assert REFUSED in body and "Traceback" not in body
    return body


@posix_only
def test_a_deleted_database_refuses_the_next_write_and_keeps_what_was_typed(tmp_path, caplog):
    db = tmp_path / "live.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=rwd_deal(1)).status_code == 303
    remove_database(db)
    form = rwd_deal(2)
    body = refused(client.post(f"/t/{token}/deals", data=form))
    for field, value in form.items():
        if field != "number":
            assert f'name="{field}"' in body and f'value="{value}"' in body, field
    assert "deleted or replaced while serving" in caplog.text  # said in the terminal too
    # No other write is answered as saved either, and no empty database took the file's place.
    assert client.post("/tables", data={"game": "rwd", "players": "4",
                                        **{f"name-{i}": n for i, n in enumerate("WXYZ")}}).status_code == 503
    assert client.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 503
    assert not db.exists()


@posix_only
def test_a_file_moved_over_the_database_while_serving_refuses_writes(tmp_path):
    db = tmp_path / "live.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=rwd_deal(1)).status_code == 303
    copy = tmp_path / "copy.sqlite"
    store.backup.copy_database(db, copy)
    assert client.post(f"/t/{token}/deals", data=rwd_deal(2)).status_code == 303
    os.replace(copy, db)  # "restoring" the backup over the live file, server still running
    refused(client.post(f"/t/{token}/deals", data=rwd_deal(3)))
    refused(client.post(f"/t/{token}/deals", data=rwd_deal(3)))  # and again: every change until restart
    assert stored_deals(db, token) < 3  # the refused deal is nowhere


def test_the_servers_own_checkpoints_are_not_taken_for_a_replacement(tmp_path):
    """SQLite writes the database file itself only when the server checkpoints (every
    CHECKPOINT_EVERY commits, between the checks): those writes are the server's own."""
    db = tmp_path / "live.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    before = db.stat().st_mtime_ns
    tokens = [create(client) for _ in range(store.connection.CHECKPOINT_EVERY + 5)]
    assert db.stat().st_mtime_ns != before  # checkpointed into the file
    assert store.connection.watches[str(db)].replaced is None
    assert client.post(f"/t/{tokens[-1]}/deals", data=rwd_deal(1)).status_code == 303
    assert stored_deals(db, tokens[-1]) == 1


@posix_only
def test_rm_while_serving_nothing_acknowledged_then_lost(server_process):
    """The real `companion serve`: after the file is removed, no write is acknowledged (303)."""
    phone = Phone(server_process.port)
    token = phone.create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
    csrf = phone.csrf(f"/t/{token}")
    deal = rwd_deal(1)
    status, _h, body = phone.request("POST", f"/t/{token}/deals", dict(deal, csrf_token=csrf))
    assert status == 303, body[:300]
    remove_database(server_process.db)
    acknowledged_after = []
    for number in (2, 3):
        status, _h, body = phone.request("POST", f"/t/{token}/deals", dict(rwd_deal(number), csrf_token=csrf))
        assert status == 503 and REFUSED in unescape(body), (status, body[:300])
        acknowledged_after += [number] if status == 303 else []
    status, _h, body = phone.request("POST", "/tables", {"csrf_token": csrf, "game": "rwd", "players": "3",
                                                         "name-0": "A", "name-1": "B", "name-2": "C"})
    assert status != 303, body[:300]
    assert acknowledged_after == []
    assert REFUSED in server_process.log.read_text(errors="replace")  # the terminal says it
    server_process.stop()
    server_process.start()  # a fresh, empty database: nothing it ever acknowledged is missing from it
    status, _h, _body = Phone(server_process.port).request("GET", f"/t/{token}")
    assert status == 404


# --- companion restore -------------------------------------------------------------------------

def make_database(path: Path, names=("Ann", "Bob", "Cy")) -> str:
    app = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    response = client.post("/tables", data={"game": "rwd", "players": str(len(names)),
                                            **{f"name-{i}": n for i, n in enumerate(names)}})
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[-1]


@posix_only
def test_restore_is_refused_while_a_server_runs_on_the_database(server_process, tmp_path, capsys):
    backup = tmp_path / "backup.sqlite"
    make_database(backup)
    token = Phone(server_process.port).create_table("rwd", ["Live", "Bob", "Cy"])
    before = server_process.db.read_bytes()
    assert cli.main(["restore", str(backup), "--db", str(server_process.db)]) == 1
    err = capsys.readouterr().err
    assert "running" in err and "stop it first" in err
    assert server_process.db.read_bytes() == before
    assert Phone(server_process.port).request("GET", f"/t/{token}")[0] == 200
    # Stopped: the restore goes through, the replaced scores are kept beside it, and the
    # server starts on the restored file.
    server_process.stop()
    assert cli.main(["restore", str(backup), "--db", str(server_process.db)]) == 0
    out = capsys.readouterr().out
    assert "Restored 1 tables" in out and "kept in" in out
    kept = [p for p in tmp_path.iterdir() if ".before-restore-" in p.name]
    assert len(kept) == 1 and stored_tables(kept[0]) == 1
    assert not Path(str(server_process.db) + "-wal").exists() or store.backup.counts(server_process.db)
    server_process.start()
    assert Phone(server_process.port).request("GET", f"/t/{token}")[0] == 404  # the live table: not in the backup


def stored_tables(path: Path) -> int:
    return store.backup.counts(path)[0]


def test_restore_puts_the_backup_in_place_and_removes_the_stale_wal(tmp_path, capsys):
    live, backup = tmp_path / "live.sqlite", tmp_path / "backup.sqlite"
    make_database(backup, ("Backup", "B", "C"))
    token = make_database(live, ("Live", "B", "C"))
    # A WAL file beside the live database, as a server killed mid-evening leaves it.
    conn = sqlite.connect(live)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE tables SET label = 'in the wal'")
    conn.commit()
    shutil.copy(Path(str(live) + "-wal"), tmp_path / "wal.copy")
    conn.close()
    shutil.copy(tmp_path / "wal.copy", Path(str(live) + "-wal"))
    assert cli.main(["restore", str(backup), "--db", str(live)]) == 0
    assert not Path(str(live) + "-wal").exists()
    check = sqlite.connect(live)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert [r[0] for r in check.execute("SELECT players FROM tables")] == ['["Backup", "B", "C"]']
    check.close()
    kept = next(p for p in tmp_path.iterdir() if ".before-restore-" in p.name)
    old = sqlite.connect(kept)
    assert old.execute("SELECT token, label FROM tables").fetchall() == [(token, "in the wal")]
    old.close()


def test_restore_refuses_what_is_not_a_backup(tmp_path, capsys):
    live = tmp_path / "live.sqlite"
    make_database(live)
    before = live.read_bytes()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database " * 100)
    assert cli.main(["restore", str(junk), "--db", str(live)]) == 1
    assert "not a Table Companion database" in capsys.readouterr().err
    assert cli.main(["restore", str(tmp_path / "missing.sqlite"), "--db", str(live)]) == 1
    assert live.read_bytes() == before


@posix_only
def test_a_second_server_on_the_same_database_is_refused(server_process):
    import subprocess

    from helpers import REPO_ROOT, free_port

    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    result = subprocess.run([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                             "--port", str(free_port()), "--db", str(server_process.db), "--no-qr"],
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "in use by another Table Companion" in result.stderr and "Traceback" not in result.stderr
    assert Phone(server_process.port).request("GET", "/")[0] == 200  # the first one serves on


# --- a backup put over the live file, however it is done (issue 32 item 9) ---------------------

PHONES = [f"127.0.0.{n}" for n in range(21, 25)]


def phones_at_tables(port: int, deals: int) -> list[tuple[Phone, str, str]]:
    """Four phones (four devices), each at its own table with ``deals`` deals entered."""
    seated = []
    for source in PHONES:
        phone = Phone(port, source)
        token = phone.create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
        seated.append((phone, token, phone.csrf(f"/t/{token}")))
    enter(seated, range(1, deals + 1))
    return seated


def enter(seated, numbers) -> None:
    for phone, token, csrf in seated:
        for number in numbers:
            status, _h, body = phone.request("POST", f"/t/{token}/deals", dict(rwd_deal(number), csrf_token=csrf))
            assert status == 303, body[:300]


def write_while(seated, replace, reads: bool = True) -> list[tuple[float, str, int, str]]:
    """Each phone enters its next deal again and again (a refused one is sent again, as the outbox
    does), reading its table page between saves, while ``replace()`` runs in the middle; then
    until every phone has been refused twice. Returns (start, what, status, body) of every request,
    and the time the replacement was done first."""
    done_at: list[float] = []
    sent: list[tuple[float, str, int, str]] = []
    lock = threading.Lock()
    stop = time.monotonic() + 30

    def phone_writes(phone: Phone, token: str, csrf: str) -> None:
        number, refused = stored_deals_seen(phone, token) + 1, 0
        while refused < 2 and time.monotonic() < stop:
            started = time.monotonic()
            status, _h, body = phone.request_once("POST", f"/t/{token}/deals", dict(rwd_deal(number), csrf_token=csrf))
            with lock:
                sent.append((started, f"{phone.source} deal {number}", status, body))
            if status == 303:
                number += 1
            elif done_at and started > done_at[0]:
                refused += 1
            if reads:
                started = time.monotonic()
                status, _h, body = phone.request_once("GET", f"/t/{token}")
                with lock:
                    sent.append((started, f"{phone.source} GET", status, body))

    threads = [threading.Thread(target=phone_writes, args=seat) for seat in seated]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # saves flowing
    replace()
    done_at.append(time.monotonic())
    for thread in threads:
        thread.join(40)
    return sent + [(done_at[0], "replaced", 0, "")]


def stored_deals_seen(phone: Phone, token: str) -> int:
    status, _h, body = phone.request("GET", f"/t/{token}")
    assert status == 200
    return len(re.findall(r'id="deal-(\d+)"', body))


def check_nothing_acknowledged_after(sent) -> None:
    replaced_at = next(started for started, what, _s, _b in sent if what == "replaced")
    after = [(what, status) for started, what, status, _b in sent if started > replaced_at and what != "replaced"]
    saved_after = [what for what, status in after if status == 303 and "deal" in what]
    assert saved_after == [], f"acknowledged after the file was replaced: {saved_after}"
    for source in PHONES:  # every phone was told, in words, that it was not saved
        told = [body for started, what, status, body in sent
                if started > replaced_at and what.startswith(f"{source} deal ") and status == 503]
        assert told and all(REFUSED in unescape(body) for body in told), source


@posix_only
def test_a_backup_copied_over_the_database_while_phones_write_is_never_acknowledged(server_process, tmp_path):
    """`cp backup.sqlite companion.sqlite` keeps the inode: the device+inode check can't see it.
    Before: 194 more deals acknowledged, the file malformed, the next start refused it."""
    db, backup = server_process.db, tmp_path / "backup.sqlite"
    seated = phones_at_tables(server_process.port, 2)
    assert cli.main(["backup", str(backup), "--db", str(db)]) == 0
    enter(seated, (3, 4))  # the live file is now ahead of the backup
    inode = db.stat().st_ino
    sent = write_while(seated, lambda: shutil.copyfile(backup, db))
    assert db.stat().st_ino == inode  # the same file, new bytes
    check_nothing_acknowledged_after(sent)
    phone, token, csrf = seated[0]
    form = rwd_deal(9)
    status, _h, body = phone.request_once("POST", f"/t/{token}/deals", dict(form, csrf_token=csrf))
    assert status == 503 and all(f'value="{value}"' in unescape(body) for value in form.values())  # kept
    server_process.stop()
    log = server_process.log.read_text(errors="replace")
    assert "NOT SAVED" in log and "Traceback" not in log, log[-3000:]
    # Nothing was written into the copy: not by a save, a read, or the stop.
    assert db.read_bytes() == backup.read_bytes()
    server_process.start()  # the backup is served, whole
    assert Phone(server_process.port).request("GET", f"/t/{token}")[0] == 200
    assert stored_deals(db, token) == 2
    check = sqlite.connect(db)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()


@posix_only
def test_a_backup_moved_over_the_database_is_never_written_even_by_a_read(server_process, tmp_path):
    """`mv backup companion.sqlite`: saves were refused, but a GET and a refused POST still wrote
    into the moved-in file (the old -wal merged into it and deleted)."""
    db, backup = server_process.db, tmp_path / "backup.sqlite"
    seated = phones_at_tables(server_process.port, 2)
    assert cli.main(["backup", str(backup), "--db", str(db)]) == 0
    enter(seated, (3, 4))
    kept = tmp_path / "kept.sqlite"
    shutil.copyfile(backup, kept)
    sent = write_while(seated, lambda: os.replace(backup, db))
    check_nothing_acknowledged_after(sent)
    server_process.stop()
    assert db.read_bytes() == kept.read_bytes()
    server_process.start()
    phone = Phone(server_process.port)
    assert phone.request("GET", f"/t/{seated[0][1]}")[0] == 200
    assert stored_deals(db, seated[0][1]) == 2


@posix_only
def test_a_foreign_or_damaged_file_moved_in_while_stopped_gets_a_message_at_start(server_process, tmp_path):
    """Stopped, then a file moved in: docs/trust.md's message at start, never a traceback."""
    token = Phone(server_process.port).create_table("rwd", ["Ann", "Bob", "Cy", "Di"])
    assert token
    server_process.stop()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8000)
    os.replace(junk, server_process.db)
    with pytest.raises(AssertionError) as exited:
        server_process.start()
    said = str(exited.value)
    assert "move it aside" in said and "Traceback" not in said, said


@posix_only
def test_a_backup_moved_in_beside_a_killed_servers_log_gets_a_message_at_start(server_process, tmp_path):
    """Killed (its -wal left beside the file), then a backup moved in: the old log read against
    the backup. Before: a raw StorageDamaged traceback at start. Now docs/trust.md's message, or a
    start on a sound file; never a traceback."""
    db, backup = server_process.db, tmp_path / "backup.sqlite"
    seated = phones_at_tables(server_process.port, 1)
    assert cli.main(["backup", str(backup), "--db", str(db)]) == 0
    enter(seated, range(2, 9))
    server_process.kill()
    assert Path(str(db) + "-wal").exists()
    os.replace(backup, db)
    try:
        server_process.start()
    except AssertionError as exited:
        said = str(exited.value)
        assert "move it aside" in said and "Traceback" not in said, said
    else:
        assert Phone(server_process.port).request("GET", "/")[0] == 200
        server_process.stop()
        check = sqlite.connect(db)
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        check.close()
