"""A table's writes return what happened (issue 30): the outcome, with the table as read inside
the write's transaction, so a page answers from that one read; the deal form is read in one
place (the service) for a new deal and a correction alike."""

from __future__ import annotations

import pytest

from companion.store import connect
from companion.store import tables as table_rows
from companion.tables import service
from helpers import rwd_rotating_deal_form as rwd_deal
import table_writes

NAMES = ["Ann", "Bob", "Cy", "Di"]


def open_table(client) -> str:
    made = client.post("/tables", data={"game": "rwd", "players": "4", **{f"name-{i}": n for i, n in enumerate(NAMES)}})
    return made.headers["Location"].rsplit("/", 1)[-1]


@pytest.fixture
def loads(monkeypatch):
    """How many times the table is read from the store (every read of a table goes through load_table)."""
    counted = []
    real = table_rows.load_table

    def counting(conn, token):
        counted.append(token)
        return real(conn, token)

    monkeypatch.setattr(table_rows, "load_table", counting)
    return counted


@pytest.mark.parametrize("case", ["saved", "same deal again", "another deal first", "refused", "sent again"])
def test_entering_a_deal_reads_the_table_once(client, loads, case):
    token = open_table(client)
    client.post(f"/t/{token}/deals", data=rwd_deal(1) | {"write_id": "w1"})
    typed = {"saved": rwd_deal(2), "same deal again": rwd_deal(1), "another deal first": rwd_deal(2) | {"number": "1"},
             "refused": rwd_deal(2) | {"chips-0": "9"}, "sent again": rwd_deal(1) | {"write_id": "w1"}}[case]
    loads.clear()
    answer = client.post(f"/t/{token}/deals", data=typed)
    assert answer.status_code == {"saved": 303, "same deal again": 303, "another deal first": 409,
                                  "refused": 422, "sent again": 303}[case]
    assert len(loads) == 1, loads


def test_what_entering_a_deal_returns(app):
    conn = connect(app.config["DATABASE"])
    token = table_writes.create(conn, "rwd", NAMES, {"first_start_player": 0})
    first = service.enter_deal(conn, token, 1, form=rwd_deal(1), write_id="w1")
    assert first.outcome is service.Outcome.SAVED and first.saved and first.number == 1
    assert len(first.table.deals) == 1 and first.table.revision == service.load(conn, token).revision

    again = service.enter_deal(conn, token, 1, form=rwd_deal(1), write_id="w1")
    assert again.outcome is service.Outcome.REPEATED and again.saved and again.number == 1
    assert again.recorded == {"action": "add", "number": 1}

    same = service.enter_deal(conn, token, 1, form=rwd_deal(1))
    assert same.outcome is service.Outcome.SAME and same.saved and same.collides

    other = service.enter_deal(conn, token, 1, form=rwd_deal(2) | {"number": "1"})
    assert other.outcome is service.Outcome.CONFLICT and not other.saved and other.collides
    assert other.mine is not None and other.mine.points != first.table.match().deals[0].score.points

    late = service.enter_deal(conn, token, 5, form=rwd_deal(5))
    assert late.outcome is service.Outcome.CONFLICT and not late.collides and late.table.deals == first.table.deals

    wrong = service.enter_deal(conn, token, 2, form=rwd_deal(2) | {"chips-0": "9"})
    assert wrong.outcome is service.Outcome.REFUSED and [e.field for e in wrong.errors] == ["chips"]
    assert wrong.table.deals == first.table.deals  # nothing written
    assert service.enter_deal(conn, "no-such-table-token", 1, form=rwd_deal(1)).outcome is service.Outcome.NO_TABLE
    # The raising form of the same write, for scripts: the store's errors as before.
    with pytest.raises(service.Conflict):
        table_writes.add_deal(conn, token, 1, form=rwd_deal(2) | {"number": "1"})
    with pytest.raises(service.Repeated):
        table_writes.add_deal(conn, token, 1, form=rwd_deal(1), write_id="w1")
    conn.close()


def test_a_correction_is_read_from_its_form_as_a_new_deal_is(app):
    conn = connect(app.config["DATABASE"])
    token = table_writes.create(conn, "rwd", NAMES, {"first_start_player": 0})
    table = table_writes.add_deal(conn, token, 1, form=rwd_deal(1))
    was = service.fingerprint(table.deals[0])
    bad = rwd_deal(1) | {"chips-0": "9"}  # chips adding up to 18
    refused = service.correct_deal(conn, token, 1, form=bad, was=was)
    assert refused.outcome is service.Outcome.REFUSED and refused.table.deals == table.deals
    # Read by the one reader a new deal goes through too (service.read_deal), in the same words.
    assert refused.errors == tuple(service.enter_deal(conn, token, 2, form=bad | {"number": "2"}).errors)
    assert [e.field for e in refused.errors] == ["chips"]
    fixed = service.correct_deal(conn, token, 1, form=rwd_deal(2) | {"number": "1"}, was=was, write_id="c1")
    assert fixed.outcome is service.Outcome.SAVED and fixed.table.deals[0] != table.deals[0]
    stale = service.correct_deal(conn, token, 1, form=rwd_deal(3), was=was)
    assert stale.outcome is service.Outcome.CONFLICT and stale.collides
    assert service.correct_deal(conn, token, 1, form=rwd_deal(3), was=was, write_id="c1").outcome \
        is service.Outcome.REPEATED
    undone = service.undo_deal(conn, token, 1)
    assert undone.outcome is service.Outcome.SAVED and undone.undone == fixed.table.deals[0] and not undone.table.deals
    gone = service.correct_deal(conn, token, 1, form=rwd_deal(1), was=was)
    assert gone.outcome is service.Outcome.CONFLICT and not gone.collides
    conn.close()
