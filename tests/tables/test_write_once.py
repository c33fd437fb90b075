"""Exactly-once writes by identity (issue 22): a change sent with a ``write_id`` is stored at
most once, however often and however concurrently it is sent, and every resend is answered
as the first send was."""

from __future__ import annotations

import json
import re
import threading
from html import unescape

import pytest

from companion import store as storage
from companion.night import service as night
from companion.tables import service as store
from helpers import rwd_rotating_deal_form as rwd_deal
import table_writes
from table_writes import done

RWD = {"first_start_player": 0}
NAMES = ["Ann", "Bob", "Cy", "Di"]


def all_at_once(phone, count: int) -> None:
    """``phone(i)`` for i in 0 … count-1, each in its own thread, all started before any is waited for."""
    threads = [threading.Thread(target=phone, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "once.sqlite")
    storage.migrate(path)
    return path


def outcome_of(call):
    """What a caller was answered: the recorded outcome, whether it wrote or was a resend."""
    try:
        return ("wrote", call())
    except store.Repeated as repeated:
        return ("repeated", repeated.outcome)


# --- the store ---------------------------------------------------------------------------------

def test_a_resent_deal_is_stored_once_and_answered_with_the_first_outcome(db):
    conn = storage.connect(db)
    token = table_writes.create(conn, "rwd", NAMES, RWD)
    table = table_writes.add_deal(conn, token, 1, form=rwd_deal(1), write_id="phone-1:w1")
    assert len(table.deals) == 1
    revision = store.revision(conn, token)
    with pytest.raises(store.Repeated) as again:
        table_writes.add_deal(conn, token, 1, form=rwd_deal(1), write_id="phone-1:w1")
    assert again.value.outcome == {"action": "add", "number": 1}
    assert store.recorded_outcome(conn, token, "phone-1:w1") == {"action": "add", "number": 1}
    # Nothing was written the second time: no deal, no revision, no log entry.
    assert len(store.load(conn, token).deals) == 1
    assert store.revision(conn, token) == revision
    assert [c["action"] for c in store.changes(conn, store.load(conn, token).id)] == ["add", "create"]
    # Even sent for the next deal's number, the same write id is the same write.
    with pytest.raises(store.Repeated):
        table_writes.add_deal(conn, token, 2, form=rwd_deal(2), write_id="phone-1:w1")
    assert len(store.load(conn, token).deals) == 1
    # Another id is another write; no id behaves as before (a repeat is a conflict).
    table_writes.add_deal(conn, token, 2, form=rwd_deal(2), write_id="phone-1:w2")
    with pytest.raises(store.Conflict):
        table_writes.add_deal(conn, token, 2, form=rwd_deal(2))
    assert len(store.load(conn, token).deals) == 2


def test_every_kind_of_write_records_its_outcome(db):
    conn = storage.connect(db)
    token = table_writes.create(conn, "rwd", NAMES, RWD)
    table_writes.add_deal(conn, token, 1, form=rwd_deal(1), write_id="a")
    facts = store.load(conn, token).deals[0]
    changed = dict(facts, chips=[3, 4, 3, 3])
    table_writes.edit_deal(conn, token, 1, changed, store.fingerprint(facts), write_id="e")
    with pytest.raises(store.Refused):  # RWD ends by itself: nothing to finish, nothing recorded
        table_writes.set_finished(conn, token, True, write_id="f")
    assert store.recorded_outcome(conn, token, "f") is None
    table_writes.set_finished(conn, token, False, write_id="r")
    table_writes.add_deal(conn, token, 2, form=rwd_deal(2), write_id="a2")
    table_writes.undo_last(conn, token, 2, write_id="u")
    new = table_writes.rematch(conn, token, write_id="m")
    calls = {
        "e": lambda: table_writes.edit_deal(conn, token, 1, facts, store.fingerprint(changed), write_id="e"),
        "r": lambda: table_writes.set_finished(conn, token, False, write_id="r"),
        "u": lambda: table_writes.undo_last(conn, token, 1, write_id="u"),
        "m": lambda: table_writes.rematch(conn, token, write_id="m"),
    }
    expected = {"e": {"action": "edit", "number": 1}, "r": {"action": "reopen"},
                "u": {"action": "undo", "number": 2}, "m": {"action": "rematch", "token": new}}
    before = store.load(conn, token)
    for write_id, call in calls.items():
        assert outcome_of(call) == ("repeated", expected[write_id]), write_id
    after = store.load(conn, token)
    assert (after.deals, after.finished, after.revision) == (before.deals, before.finished, before.revision)
    assert after.deals[0] == changed  # the resent edit did not put the old facts back


def test_seating_a_prepared_table_is_once_by_write_id(db):
    conn = storage.connect(db)
    token = done(night.prepare(conn, "rwd", 4, 1))[0]
    table_writes.seat(conn, token, NAMES, RWD, write_id="s")
    with pytest.raises(store.Repeated) as again:
        table_writes.seat(conn, token, ["W", "X", "Y", "Z"], RWD, write_id="s")
    assert again.value.outcome == {"action": "seat"}
    assert store.load(conn, token).setup.players == tuple(NAMES)


def test_sixteen_threads_sending_the_same_write_id_store_one_deal_and_get_one_answer(db):
    conn = storage.connect(db)
    token = table_writes.create(conn, "rwd", NAMES, RWD)
    conn.close()
    barrier = threading.Barrier(16)
    answers: list = [None] * 16

    def phone(i: int) -> None:
        own = storage.connect(db)
        try:
            barrier.wait(10)
            result = outcome_of(lambda: table_writes.add_deal(own, token, 1, form=rwd_deal(1), write_id="same-id"))
            answers[i] = result if result[0] == "repeated" else \
                ("wrote", store.recorded_outcome(own, token, "same-id"))
        finally:
            own.close()

    all_at_once(phone, 16)
    assert [kind for kind, _ in answers].count("wrote") == 1
    assert {str(outcome) for _kind, outcome in answers} == {str({"action": "add", "number": 1})}
    conn = storage.connect(db)
    assert len(store.load(conn, token).deals) == 1
    assert storage.backup.counts(db) == (1, 1)
    import sqlite3  # tests may read the file directly; companion/ keeps SQLite inside its store

    raw = sqlite3.connect(db)
    assert raw.execute("SELECT count(*) FROM writes").fetchone()[0] == 1  # one recorded write
    raw.close()


def test_a_write_id_longer_than_64_characters_is_not_used():
    assert store.clean_write_id("x" * 64) == "x" * 64
    assert store.clean_write_id("x" * 65) is None
    assert store.clean_write_id("") is None and store.clean_write_id(None) is None
    assert store.clean_write_id("a\nb") is None


# --- the routes: a resend is answered as the first send ----------------------------------------

def create(client) -> str:
    data = {"game": "rwd", "players": "4", **{f"name-{i}": n for i, n in enumerate(NAMES)}}
    response = client.post("/tables", data=data)
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[-1]


def deals_of(client, token: str) -> list:
    return client.get(f"/t/{token}/export.json").get_json()["deals"]


@pytest.mark.parametrize("htmx", [False, True])
def test_a_resent_deal_form_is_answered_as_the_first_time(client, htmx):
    token = create(client)
    headers = {"HX-Request": "true"} if htmx else {}
    form = dict(rwd_deal(1), write_id="w-123")
    first = client.post(f"/t/{token}/deals", data=form, headers=headers)
    first_page = client.get(f"/t/{token}") if not htmx else None
    again = client.post(f"/t/{token}/deals", data=form, headers=headers)
    assert again.status_code == first.status_code == (200 if htmx else 303)
    assert again.headers.get("Location") == first.headers.get("Location")
    if htmx:
        assert "Deal 1 saved" in unescape(again.get_data(as_text=True))
        assert "already entered" not in again.get_data(as_text=True)
    else:
        # The same banner as the first time: "Deal 1 saved".
        assert "Deal 1 saved" in unescape(first_page.get_data(as_text=True))
        assert "Deal 1 saved" in unescape(client.get(f"/t/{token}").get_data(as_text=True))
    assert len(deals_of(client, token)) == 1
    # Resent after another deal was entered: still answered as deal 1, nothing added.
    assert client.post(f"/t/{token}/deals", data=rwd_deal(2)).status_code == 303
    third = client.post(f"/t/{token}/deals", data=form, headers=headers)
    assert third.status_code == first.status_code
    assert len(deals_of(client, token)) == 2


def test_resent_undo_finish_and_rematch_are_answered_as_the_first_time(client):
    token = create(client)
    for number in (1, 2):
        assert client.post(f"/t/{token}/deals", data=rwd_deal(number)).status_code == 303
    undo = {"number": "2", "write_id": "undo-1"}
    first = client.post(f"/t/{token}/undo", data=undo)
    again = client.post(f"/t/{token}/undo", data=undo)
    assert (first.status_code, first.headers["Location"]) == (again.status_code, again.headers["Location"]) \
        == (303, f"/t/{token}#entry-wrap")
    assert len(deals_of(client, token)) == 1  # deal 1 was not undone by the resend
    finish = {"finished": "0", "write_id": "fin-1"}  # reopen (RWD can't be finished by hand)
    first, again = client.post(f"/t/{token}/finish", data=finish), client.post(f"/t/{token}/finish", data=finish)
    assert first.headers["Location"] == again.headers["Location"] == f"/t/{token}#sheet"
    rematch = {"write_id": "re-1"}
    first, again = client.post(f"/t/{token}/rematch", data=rematch), client.post(f"/t/{token}/rematch", data=rematch)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"] != f"/t/{token}"


def test_a_resent_correction_does_not_undo_a_later_correction(client):
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=rwd_deal(1)).status_code == 303
    edit_page = client.get(f"/t/{token}/deals/1/edit").get_data(as_text=True)
    was = re.search(r'name="was" value="([^"]+)"', edit_page).group(1)
    first_fix = dict(rwd_deal(1), **{"chips-0": "3", "chips-1": "4"}, was=was, write_id="fix-1")
    first = client.post(f"/t/{token}/deals/1", data=first_fix)
    assert first.status_code == 303
    was2 = re.search(r'name="was" value="([^"]+)"',
                     client.get(f"/t/{token}/deals/1/edit").get_data(as_text=True)).group(1)
    second_fix = dict(rwd_deal(1), **{"chips-0": "2", "chips-1": "5"}, was=was2, write_id="fix-2")
    assert client.post(f"/t/{token}/deals/1", data=second_fix).status_code == 303
    again = client.post(f"/t/{token}/deals/1", data=first_fix)  # the first one's answer was lost
    assert (again.status_code, again.headers["Location"]) == (first.status_code, first.headers["Location"])
    assert deals_of(client, token)[0]["facts"]["chips"][:2] == [2, 5]


def test_without_a_write_id_a_double_post_behaves_as_before(client):
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=rwd_deal(1)).status_code == 303
    # The same deal again: recognised as the same (a double tap) and answered as saved.
    assert client.post(f"/t/{token}/deals", data=rwd_deal(1)).status_code == 303
    assert len(deals_of(client, token)) == 1


def test_a_resent_correction_is_answered_as_saved_even_after_the_deal_was_undone(client):
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=rwd_deal(1)).status_code == 303
    was = re.search(r'name="was" value="([^"]+)"',
                    client.get(f"/t/{token}/deals/1/edit").get_data(as_text=True)).group(1)
    fix = dict(rwd_deal(1), **{"chips-0": "3", "chips-1": "4"}, was=was, write_id="fix-1")
    first = client.post(f"/t/{token}/deals/1", data=fix)
    assert client.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 303
    again = client.post(f"/t/{token}/deals/1", data=fix)
    assert (again.status_code, again.headers["Location"]) == (first.status_code, first.headers["Location"])
    assert deals_of(client, token) == []


def test_sixteen_phones_posting_one_write_id_over_http_get_one_deal_and_one_answer(live_server):
    """Through a real server: sixteen connections (each its own device address, 127.0.0.2…)
    send the same deal with the same write id at once."""
    import http.client
    import urllib.parse

    from helpers import Phone

    browser = Phone(live_server.port)
    token = browser.create_table("rwd", NAMES)
    csrf = browser.csrf(f"/t/{token}")  # one phone's session, its request sent from 16 places
    cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    body = urllib.parse.urlencode(dict(rwd_deal(1), write_id="burst-1", csrf_token=csrf)).encode()
    barrier = threading.Barrier(16)
    answers: list = [None] * 16

    def phone(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=30,
                                          source_address=(f"127.0.0.{i + 2}", 0))
        try:
            barrier.wait(10)
            conn.request("POST", f"/t/{token}/deals", body=body,
                         headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
            response = conn.getresponse()
            response.read()
            answers[i] = (response.status, response.getheader("Location"))
        finally:
            conn.close()

    all_at_once(phone, 16)
    assert set(answers) == {(303, f"/t/{token}#entry-wrap")}, answers
    _status, _headers, doc = browser.request("GET", f"/t/{token}/export.json")
    assert len(json.loads(doc)["deals"]) == 1
