"""The change log and the laptop's list of recent tables are ordered by the store's own
sequence, never by the wall clock (issue 23 item 7): a clock set back can't reorder them."""

from __future__ import annotations

import itertools
import re

from companion import store as storage
from companion.tables import service as store
from helpers import rwd_rotating_deal_form as rwd_deal
import table_writes

NAMES = ["Ann", "Bob", "Cy", "Di"]


def clock_going_back(monkeypatch) -> None:
    """Every change stamped an hour before the one before it (a laptop clock set back)."""
    hours = itertools.count()
    monkeypatch.setattr(store, "now", lambda: f"2026-11-24T{23 - next(hours):02d}:00:00+00:00")


def test_the_change_log_is_in_the_order_the_changes_were_made(tmp_path, monkeypatch):
    path = str(tmp_path / "clock.sqlite")
    storage.migrate(path)
    conn = storage.connect(path)
    clock_going_back(monkeypatch)
    token = table_writes.create(conn, "rwd", NAMES, {"first_start_player": 0})
    for number in (1, 2, 3):
        table_writes.add_deal(conn, token, number, form=rwd_deal(number))
    table_writes.undo_last(conn, token, 3)
    log = store.changes(conn, store.load(conn, token).id)
    assert [(c["action"], c["number"]) for c in log] == [("undo", 3), ("add", 3), ("add", 2), ("add", 1),
                                                         ("create", None)]
    assert [c["id"] for c in log] == sorted((c["id"] for c in log), reverse=True)
    assert log[0]["at"] < log[-1]["at"]  # the clock went back; the order did not


def test_the_laptops_recent_tables_follow_the_last_change_not_the_clock(app, client, monkeypatch):
    clock_going_back(monkeypatch)
    tokens = []
    for first in ("First", "Second", "Third"):
        response = client.post("/tables", data={"game": "rwd", "players": "4", "name-0": first,
                                                **{f"name-{i}": n for i, n in enumerate(NAMES) if i}})
        tokens.append(response.headers["Location"].rsplit("/", 1)[-1])
    # The first table changes last: it is the most recent, though its clock time is the earliest.
    assert client.post(f"/t/{tokens[0]}/deals", data=rwd_deal(1)).status_code == 303
    html = client.get("/").get_data(as_text=True)
    order = [m.group(1) for m in re.finditer(r"/t/([A-Za-z0-9_-]{22})", html)]
    seen = list(dict.fromkeys(t for t in order if t in tokens))
    assert seen == [tokens[0], tokens[2], tokens[1]]
