"""A full disk or a read-only database: every change is refused with a clear message, the
form keeps what was typed, and nothing acknowledged before is lost.

Both faults are real SQLite refusals on the connection the app uses: ``PRAGMA
max_page_count`` pinned to the current size makes the next page SQLite needs fail with
"database or disk is full", and ``PRAGMA query_only`` gives "attempt to write a readonly
database". (The test client runs requests on this thread, which keeps one connection.)
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from html import unescape

import pytest

from companion.store import get_db
from helpers import rwd_rotating_deal_form as deal

NOT_SAVED = "could not save this"


def create(client, names=("Ann", "Bob", "Cy", "Di")) -> str:
    data = {"game": "rwd", "players": str(len(names)), **{f"name-{i}": n for i, n in enumerate(names)}}
    response = client.post("/tables", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    return response.headers["Location"].rsplit("/", 1)[-1]


def stored(client, token: str) -> dict:
    response = client.get(f"/t/{token}/export.json")
    assert response.status_code == 200
    return json.loads(response.get_data(as_text=True))


def revision(app, token: str) -> int:
    with app.app_context():
        return get_db().execute("SELECT revision FROM tables WHERE token = ?", (token,)).fetchone()[0]


@contextmanager
def fault(app, kind: str):
    """Make this thread's database connection refuse writes the way a full or read-only disk does."""
    with app.app_context():
        conn = get_db()
        if kind == "full":
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        else:
            conn.execute("PRAGMA query_only = 1")
    try:
        yield
    finally:
        with app.app_context():
            conn = get_db()
            conn.execute("PRAGMA query_only = 0")
            conn.execute("PRAGMA max_page_count = 1073741823")


def refused_with_message(response, status: int = 503) -> str:
    body = unescape(response.get_data(as_text=True))
    assert response.status_code == status, body[:500]
    assert NOT_SAVED in body
    assert "Traceback" not in body
    return body


@pytest.mark.parametrize("kind", ["full", "readonly"])
def test_deal_entry_refused_keeps_form_and_loses_nothing(app, client, kind):
    # Several tables, entered in turn: RWD ends at three deal wins, and a full disk refuses
    # only once SQLite needs a new page, which may take a few dozen deals.
    tokens = [create(client, names=(f"A{t}", "Bob", "Cy", "Di")) for t in range(6)]
    acknowledged = {token: [] for token in tokens}
    for token in tokens:
        form = deal(1)
        assert client.post(f"/t/{token}/deals", data=form).status_code == 303
        acknowledged[token].append(form)
    rev = revision(app, tokens[0])

    refused = None
    with fault(app, kind):
        for number in range(2, 9):
            for token in tokens:
                form = deal(number)
                response = client.post(f"/t/{token}/deals", data=form)
                if response.status_code == 303:
                    acknowledged[token].append(form)
                    continue
                refused = (token, form, response)
                break
            if refused:
                break
        assert refused is not None, "the fault never refused a write"
        token, form, response = refused
        body = refused_with_message(response)
        # Everything typed is still in the form, next to the message.
        for field, value in form.items():
            if field != "number":
                assert re.search(rf'name="{field}"[^>]*value="{value}"', body), field
        # The tables still read fine: phones keep seeing the scores.
        assert client.get(f"/t/{token}").status_code == 200
        assert client.get(f"/t/{tokens[0]}/live?rev={rev}").status_code in (200, 204)

    # Every acknowledged deal is there, in order, and nothing half-saved.
    for each in tokens:
        facts = [d["facts"] for d in stored(client, each)["deals"]]
        assert [f["chips"] for f in facts] == [[int(f[f"chips-{i}"]) for i in range(4)] for f in acknowledged[each]]
        assert [f["tricks"] for f in facts] == [[int(f[f"tricks-{i}"]) for i in range(4)] for f in acknowledged[each]]
    # Once there is room again, the same entry goes through.
    assert client.post(f"/t/{token}/deals", data=form).status_code == 303
    assert len(stored(client, token)["deals"]) == len(acknowledged[token]) + 1


@pytest.mark.parametrize("kind", ["full", "readonly"])
def test_every_other_change_is_refused_cleanly(app, client, kind):
    token = create(client)
    for number in (1, 2):
        assert client.post(f"/t/{token}/deals", data=deal(number)).status_code == 303
    before = stored(client, token)
    rev = revision(app, token)
    edited = deal(2) | {"chips-0": "5", "chips-1": "2"}

    with fault(app, kind):
        responses = {
            "create": client.post("/tables", data={"game": "rwd", "players": "3", "name-0": "Eve",
                                                   "name-1": "Fay", "name-2": "Gus"}),
            "edit": client.post(f"/t/{token}/deals/2", data=edited | {"was": _was(client, token, 2)}),
            "undo": client.post(f"/t/{token}/undo", data={"number": "2"}),
        }
        if kind == "readonly":
            # Read-only refuses every write, whatever its size.
            body = refused_with_message(responses["create"])
            assert 'value="Eve"' in body and 'value="Gus"' in body  # the names typed are kept
            body = refused_with_message(responses["edit"])
            assert 'name="chips-0"' in body and re.search(r'name="chips-0"[^>]*value="5"', body)
            refused_with_message(responses["undo"])
            assert revision(app, token) == rev
        else:
            for name, response in responses.items():
                # A full disk may still fit a small change; either it is saved, or refused clearly.
                assert response.status_code in (303, 503), (name, response.status_code)
                if response.status_code == 503:
                    refused_with_message(response)

    if kind == "readonly":
        assert stored(client, token)["deals"] == before["deals"]


def _was(client, token: str, number: int) -> str:
    page = client.get(f"/t/{token}/deals/{number}/edit").get_data(as_text=True)
    return re.search(r'name="was" value="([^"]+)"', page).group(1)


@pytest.mark.parametrize("kind", ["full", "readonly"])
def test_a_save_the_outbox_keeps_is_refused_in_the_pages_frame_and_stored_once_when_resent(app, client, kind):
    """Issue 46: as when the club's database is away, a full or read-only disk refuses a phone's
    Save (htmx, carrying its write id) with the sentence alone, swapped nowhere (HX-Reswap: none),
    and Retry-After: the outbox keeps the deal and sends it again by itself (static/outbox.js). It
    swapped the form back with the values, and the outbox dropped the deal."""
    token = create(client)
    for number in range(1, 4):  # a few deals: a full disk refuses once SQLite needs a new page
        assert client.post(f"/t/{token}/deals", data=deal(number)).status_code == 303
    refused, number = None, 4
    with fault(app, kind):
        for _ in range(60):
            if refused is not None:
                break
            form = dict(deal(number), write_id=f"w-{number}")
            answer = client.post(f"/t/{token}/deals", data=form, headers={"HX-Request": "true"})
            if answer.status_code == 200:  # saved: the entry's answer for the page
                number += 1
                if number > 8:  # the rotating winner ends no match within 8 deals
                    token, number = create(client), 1
                continue
            refused = answer
    assert refused is not None, "the fault never refused a write"
    body = refused.get_data(as_text=True)
    assert refused.status_code == 503 and refused.headers["HX-Reswap"] == "none"
    assert refused.headers["Retry-After"] == "5" and "<main" not in body and "Traceback" not in body
    assert "kept on this phone and sent by itself" in body
    stored_before = len(stored(client, token)["deals"])
    for _ in range(2):  # the outbox sends it again, and again (its answer lost): stored once
        assert client.post(f"/t/{token}/deals", data=form, headers={"HX-Request": "true"}).status_code == 200
    assert len(stored(client, token)["deals"]) == stored_before + 1
