"""A database damaged while the app runs (issue 13 item 10): the app's message, and what was
typed given back, whether the error comes from a form route or another, or from pages
overwritten on disk. Moved from test_hardening.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from companion.tables import service as store
from helpers import create_table as create_via_form


def test_a_database_damaged_while_running_keeps_what_was_typed(client, monkeypatch):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])

    def damaged(*_args, **_kw):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(store, "enter_deal", damaged)  # the write the view calls
    typed = {"number": "1", "chips-0": "1", "chips-1": "4", "chips-2": "4", "chips-3": "4",
             "tricks-0": "7", "tricks-1": "2", "tricks-2": "2", "tricks-3": "2"}
    response = client.post(f"/t/{token}/deals", data=typed)
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    assert "damaged" in html and 'value="7"' in html


def test_a_database_error_outside_a_form_route_gives_the_form_back(client, monkeypatch):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])

    def damaged(*_args, **_kw):
        raise sqlite3.DatabaseError("file is not a database")

    monkeypatch.setattr(store, "finish_match", damaged)  # the write the view calls
    response = client.post(f"/t/{token}/finish", data={"finished": "1"})
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    assert "damaged" in html and 'name="finished" value="1"' in html and f"/t/{token}/finish" in html


def test_a_file_damaged_on_disk_while_running_gives_the_deal_back(app, client):
    """Not a simulation: the database's pages are overwritten under the running app."""
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    path = Path(app.config["DATABASE"])
    checkpoint = sqlite3.connect(path)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the main file
    checkpoint.close()
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.seek(4096)  # keep the header page: SQLite opens the file, then finds it malformed
        fh.write(b"\xff" * (size - 4096))
    typed = {"number": "1", "chips-0": "1", "chips-1": "4", "chips-2": "4", "chips-3": "4",
             "tricks-0": "7", "tricks-1": "2", "tricks-2": "2", "tricks-3": "2"}
    response = client.post(f"/t/{token}/deals", data=typed)
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    # Overwritten in place by another program: the server notices the file is no longer as it left
    # it (issue 32 item 9: a backup copied over it is the same case) before SQLite reads a page.
    assert "database file was deleted or replaced" in html
    assert all(f'name="{k}" value="{v}"' in html for k, v in typed.items())  # ready to send again
