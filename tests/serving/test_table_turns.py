"""One heavy table can't starve the others (issue 13 item 4): table turns bound each table alone,
a busy table answers 503 keeping what was typed, and a waiting greenlet yields under gevent.
Moved from test_hardening.py."""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path

import pytest

from helpers import create_table as create_via_form


@pytest.mark.slow
def test_table_slots_bound_each_table_alone():
    from companion.serving.turns import TableSlots
    slots = TableSlots(per_table=2, max_waiting=1, wait=0.2)
    assert slots.acquire("heavy") and slots.acquire("heavy")
    assert slots.acquire("other")  # another table is never held up by the heavy one
    results = []
    waiter = threading.Thread(target=lambda: results.append(slots.acquire("heavy")))
    waiter.start()
    threading.Event().wait(0.05)
    assert slots.acquire("heavy") is False  # the one waiting place is taken: refused at once
    slots.release("heavy")  # a turn frees up: the waiter gets it
    waiter.join()
    assert results == [True]
    assert slots.acquire("heavy") is False  # 2 running again; waits 0.2 s, then refused
    for key in ("heavy", "heavy", "other"):
        slots.release(key)
    assert slots.running == {} and slots.waiting == {}


def test_a_busy_table_answers_503_keeping_what_was_typed(app, client):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    other = create_via_form(client, "rwd", ["Ed", "Flo", "Gus", "Hal"])
    slots = app.extensions["table_turns"].slots
    slots.max_waiting, slots.wait = 0, 0
    slots.acquire(token), slots.acquire(token)  # two requests of this table are running
    try:
        page = client.get(f"/t/{token}")
        assert page.status_code == 503 and page.headers["Retry-After"] == "2"
        assert "very busy" in page.get_data(as_text=True)
        typed = client.post(f"/t/{token}/deals", data={"number": "1", "chips-0": "7"})
        assert typed.status_code == 503 and 'name="chips-0" value="7"' in typed.get_data(as_text=True)
        htmx = client.post(f"/t/{token}/deals", data={"number": "1"}, headers={"HX-Request": "true"})
        assert htmx.status_code == 503 and htmx.headers["HX-Reswap"] == "beforeend"
        assert "<html" not in htmx.get_data(as_text=True)
        assert client.get(f"/t/{token}/live?rev=999").status_code == 204  # the poll: ask again later
        with client.get(f"/t/{other}") as served:  # every other table is served
            assert served.status_code == 200
    finally:
        slots.release(token), slots.release(token)
    with client.get(f"/t/{token}") as served:
        assert served.status_code == 200
    assert slots.running == {}  # the turn is given back once the answer was sent


GEVENT_TURNS = """
from gevent import monkey; monkey.patch_all()
import gevent
from companion.serving.turns import TableSlots
slots = TableSlots(per_table=2, max_waiting=1, wait=2.0)
order = []
def hold(name):
    assert slots.acquire("heavy"); order.append("got " + name); gevent.sleep(0.2); slots.release("heavy")
def wait_turn():
    order.append("waiter " + str(slots.acquire("heavy"))); slots.release("heavy")
def other():
    order.append("other " + str(slots.acquire("other"))); slots.release("other")
def refused():
    gevent.sleep(0.05); order.append("refused " + str(slots.acquire("heavy")))
gevent.joinall([gevent.spawn(hold, "a"), gevent.spawn(hold, "b"), gevent.spawn(wait_turn),
                gevent.spawn(other), gevent.spawn(refused)])
print(order)
"""


@pytest.mark.slow
def test_table_turns_work_under_gevent():
    """push may serve with gevent: a waiting greenlet must yield, not block the hub."""
    import subprocess
    pytest.importorskip("gevent")
    result = subprocess.run([sys.executable, "-c", GEVENT_TURNS], capture_output=True, text=True, timeout=60,
                            cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 0, result.stderr
    order = ast.literal_eval(result.stdout.strip())
    assert order[:2] == ["got a", "got b"]
    assert "other True" in order and "refused False" in order
    assert order.index("other True") < order.index("waiter True")  # the other table never waited
    assert order[-1] == "waiter True"
