"""Issue 32's rules, in-process (the real-server tests are tests/test_trust_serve.py):

- who may change a finished match, and until when (companion.tables.access);
- the read-only record of a match the players' pages link to;
- names on tonight's list belong to their phones (companion.night.claims): waiting requests, the
  organiser's answers, removed names, a device's limit, removing many names at once.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from companion import store
from companion.night import claims
from companion.night import service as night
from companion.tables import access
from companion.tables import service as tables
from helpers import text_of
import table_writes
from table_writes import done

T0 = datetime(2026, 11, 27, 20, 0, tzinfo=timezone.utc)
DEAL = {"number": "1", "chips-0": "0", "chips-1": "8", "chips-2": "9", "tricks-0": "5", "tricks-1": "6",
        "tricks-2": "6"}


def phone(app, n: int):
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": f"127.0.9.{n}"})
    return client


# --------------------------------------------------------------------------
# The rule (no database)


@pytest.mark.parametrize("laptop, opened, round_is_open, minutes_ago, reason", [
    (True, False, None, 600, None),          # the laptop, at any time
    (False, False, None, 1, "late"),         # first opened after the end: read only
    (False, True, None, 29, None),           # the table's phone, within 30 minutes
    (False, True, None, 31, "window"),       # ... not after
    (False, True, True, 300, None),          # a drawn table: until its round closes
    (False, True, False, 1, "round"),
    (False, False, True, 1, "late"),         # the round being open gives a latecomer nothing
])
def test_who_may_change_a_finished_match(laptop, opened, round_is_open, minutes_ago, reason):
    lock = access.decide(over=True, laptop=laptop, opened_before_end=opened, round_is_open=round_is_open,
                         ended=T0 - timedelta(minutes=minutes_ago), now=T0)
    assert (lock.reason if lock else None) == reason


def test_a_running_match_is_anyones_with_the_link():
    assert access.decide(over=False, laptop=False, opened_before_end=False, round_is_open=False,
                         ended=None, now=T0) is None


class FakeTable:
    def __init__(self, token: str, over: bool):
        self.token, self.seated, self._over = token, True, over

    def match(self):
        return type("M", (), {"over": self._over})()


def test_a_session_remembers_the_tables_it_opened_while_they_ran_and_only_a_few():
    session: dict = {}
    access.remember(session, FakeTable("ended", over=True), T0)
    assert session == {}  # opened after the end: nothing to remember
    for n in range(access.MAX_REMEMBERED + 5):
        access.remember(session, FakeTable(f"t{n:02}", over=False), T0 + timedelta(minutes=n))
    opened = session[access.SESSION_KEY]
    assert len(opened) == access.MAX_REMEMBERED and "t00" not in opened and f"t{access.MAX_REMEMBERED + 4:02}" in opened
    access.remember(session, FakeTable("t10", over=False), T0 + timedelta(days=1))
    assert opened["t10"] == session[access.SESSION_KEY]["t10"]  # the first opening counts


# --------------------------------------------------------------------------
# Through the pages


def one_deal_match(conn) -> str:
    return table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy"], {"first_start_player": 0, "length": 1}, numbered=True)


def test_the_tables_phone_may_change_it_a_latecomer_reads_it(app, conn, client):
    token = one_deal_match(conn)
    at_table, late = phone(app, 10), phone(app, 11)
    assert at_table.get(f"/t/{token}").status_code == 200
    assert at_table.post(f"/t/{token}/deals", data=DEAL).status_code == 303
    assert tables.load(conn, token).match().over

    page = late.get(f"/t/{token}").get_data(as_text=True)
    assert "Undo deal 1" not in page and "Correct deal 1" not in page and "Reopen" not in page
    assert "had ended when this phone first opened it" in text_of(page)
    refused = late.post(f"/t/{token}/undo", data={"number": "1"})
    assert refused.status_code == 403 and "had ended when this phone first opened it" in text_of(refused.get_data(as_text=True))
    assert late.get(f"/t/{token}/deals/1/edit").status_code == 403
    typed = {"was": tables.fingerprint(tables.load(conn, token).deals[0]), **DEAL, "chips-0": "9", "chips-2": "0"}
    correction = late.post(f"/t/{token}/deals/1", data=typed)
    assert correction.status_code == 403
    kept = correction.get_data(as_text=True)
    assert 'value="9"' in kept and "Save the correction" not in kept  # what was typed stays; no Save
    assert late.post(f"/t/{token}/finish", data={"finished": "0"}).status_code == 403
    assert len(tables.load(conn, token).deals) == 1

    # The table's phone sees the buttons (the shared rendering is per kind of device) and may undo.
    page = at_table.get(f"/t/{token}").get_data(as_text=True)
    assert "Undo deal 1" in page and "Correct deal 1" in page
    assert "Undo deal 1" not in late.get(f"/t/{token}").get_data(as_text=True)
    assert at_table.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 303
    assert tables.load(conn, token).deals == ()


def test_a_latecomer_gets_no_link_to_the_rematch(app, conn):
    token = one_deal_match(conn)
    at_table, late = phone(app, 15), phone(app, 16)
    at_table.get(f"/t/{token}")
    at_table.post(f"/t/{token}/deals", data=DEAL)
    assert late.post(f"/t/{token}/rematch").status_code == 403  # starts none
    assert tables.load(conn, token).rematch_token is None
    assert at_table.post(f"/t/{token}/rematch").status_code == 303
    rematch = tables.load(conn, token).rematch_token
    assert rematch in at_table.get(f"/t/{token}").get_data(as_text=True)
    for path in (f"/t/{token}", f"/t/{token}/log", f"/t/{token}/live?form=0"):
        assert rematch not in late.get(path).get_data(as_text=True), path


def test_the_laptop_may_change_a_finished_match_at_any_time(app, conn, client, monkeypatch):
    token = one_deal_match(conn)
    table_writes.add_deal(conn, token, 1, form=DEAL)
    monkeypatch.setattr(access, "now_utc", lambda: datetime.now(timezone.utc) + timedelta(days=3))
    assert "Undo deal 1" in client.get(f"/t/{token}").get_data(as_text=True)
    assert client.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 303


def test_the_tables_phone_may_change_it_for_30_minutes(app, conn, monkeypatch):
    token = one_deal_match(conn)
    at_table = phone(app, 12)
    at_table.get(f"/t/{token}")
    at_table.post(f"/t/{token}/deals", data=DEAL)
    monkeypatch.setattr(access, "now_utc", lambda: datetime.now(timezone.utc) + timedelta(minutes=31))
    page = at_table.get(f"/t/{token}").get_data(as_text=True)
    assert "Undo deal 1" not in page and "ended more than 30 minutes ago" in text_of(page)
    assert at_table.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 403
    live = at_table.get(f"/t/{token}/live?form=0").get_data(as_text=True)
    assert "Undo deal 1" not in live


def test_a_drawn_tables_phone_may_change_it_until_the_round_closes(app, conn, client):
    for name in ("Ann", "Bo", "Cy"):
        done(night.join(conn, name))
    drawn = done(night.draw_round(conn, chosen=["rwd"], formats={"rwd": {"length": 1}}, seed="t"))
    token = drawn.tables[0].table.token
    at_table = phone(app, 13)
    at_table.get(f"/t/{token}")
    assert at_table.post(f"/t/{token}/deals", data=DEAL).status_code == 303
    assert "Undo deal 1" in at_table.get(f"/t/{token}").get_data(as_text=True)
    done(night.draw_round(conn, chosen=["rwd"], seed="u"))  # the next round: this one closes
    page = at_table.get(f"/t/{token}").get_data(as_text=True)
    assert "Undo deal 1" not in page and "round is over" in text_of(page)
    assert at_table.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 403


def test_the_players_pages_link_to_a_read_only_record(app, conn, client):
    token = one_deal_match(conn)
    table_writes.add_deal(conn, token, 1, form=DEAL)
    table = tables.load(conn, token)
    page = phone(app, 14).get("/players/1").get_data(as_text=True)
    assert f'href="/matches/{table.id}"' in page and token not in page
    record = phone(app, 14).get(f"/matches/{table.id}")
    html = record.get_data(as_text=True)
    assert record.status_code == 200 and token not in html and "<form" not in html.split("<main")[1]
    text = text_of(html)
    assert "Ann" in text and "wins the match" in text and "+" in text
    running = one_deal_match(conn)
    assert phone(app, 14).get(f"/matches/{tables.load(conn, running).id}").status_code == 404
    assert phone(app, 14).get("/matches/999").status_code == 404


# --------------------------------------------------------------------------
# Names and their phones (companion.night.claims)


def test_a_name_is_its_phones(conn):
    ann = done(claims.join_as(conn, "phone-a", "127.0.9.2", name="Ann"))
    assert isinstance(ann, night.Player)
    assert done(claims.join_as(conn, "phone-a", "127.0.9.2", name="ＡＮＮ")) == ann  # the same phone: at once
    assert done(claims.join_as(conn, "phone-a", "127.0.9.99", player_id=ann.id)) == ann
    asked = done(claims.join_as(conn, "phone-b", "127.0.9.3", player_id=ann.id))
    assert isinstance(asked, claims.Waiting) and asked.name == "Ann"
    assert claims.owns(conn, ann.id, "phone-a") and not claims.owns(conn, ann.id, "phone-b")
    again = done(claims.join_as(conn, "phone-b", "127.0.9.3", name="ann"))  # asking again replaces the request
    assert [c["id"] for entry in claims.waiting(conn) for c in entry["shown"]] == [again.claim_id]
    for n in range(5):  # new cookies from the same device: still one request on the laptop
        last = done(claims.join_as(conn, f"phone-b{n}", "127.0.9.3", name="Ann"))
    assert [c["id"] for entry in claims.waiting(conn) for c in entry["shown"]] == [last.claim_id]
    again = done(claims.join_as(conn, "phone-b", "127.0.9.3", name="ann"))
    done(claims.answer(conn, again.claim_id, allow=True))
    assert claims.owns(conn, ann.id, "phone-b") and not claims.owns(conn, ann.id, "phone-a")
    assert claims.claim_of(conn, again.claim_id, "phone-b")["state"] == "allowed"
    assert claims.claim_of(conn, again.claim_id, "phone-a") is None  # another phone's request
    refused = done(claims.join_as(conn, "phone-a", "127.0.9.2", name="Ann"))
    done(claims.answer(conn, refused.claim_id, allow=False))
    assert claims.owns(conn, ann.id, "phone-b") and claims.waiting(conn) == []


def test_a_name_the_organiser_added_is_the_first_phones(conn):
    bo = done(night.join(conn, "Bo"))
    assert done(claims.join_as(conn, "phone-c", "127.0.9.4", player_id=bo.id)) == bo
    assert isinstance(done(claims.join_as(conn, "phone-d", "127.0.9.5", player_id=bo.id)), claims.Waiting)


def test_a_removed_name_stays_removed_until_the_organiser_adds_it(conn):
    cy = done(claims.join_as(conn, "phone-e", "127.0.9.6", name="Cy"))
    done(night.set_left(conn, cy.id))
    for device, asked in (("phone-e", {"name": "cy"}), ("phone-f", {"player_id": cy.id})):
        with pytest.raises(tables.Refused, match="off tonight's list"):
            done(claims.join_as(conn, device, "127.0.9.7", **asked))
    done(night.join(conn, "Cy"))  # the organiser's Add
    assert done(claims.join_as(conn, "phone-e", "127.0.9.6", name="Cy")).id == cy.id


def test_one_device_joins_a_few_names_the_laptop_any(conn):
    for n in range(claims.MAX_NAMES_PER_DEVICE):
        done(claims.join_as(conn, f"cookie-{n}", "127.0.9.8", name=f"Kid {n}"))  # new cookies: the same device
    with pytest.raises(tables.Refused, match=f"already joined {claims.MAX_NAMES_PER_DEVICE} names"):
        done(claims.join_as(conn, "cookie-x", "127.0.9.8", name="One more"))
    assert done(claims.join_as(conn, "kid-0", "127.0.9.9", name="Other family")).name == "Other family"
    for n in range(10):
        done(claims.join_as(conn, "laptop", None, name=f"Guest {n}"))  # None: the laptop, not limited
    assert len(night.roster(conn)) == claims.MAX_NAMES_PER_DEVICE + 11


def test_one_device_holds_a_few_names_counting_the_organisers_it_takes(conn):
    """Issue 44 item 3: one device tapped each of the 20 names the organiser added before
    arrivals and owned all 20. The organiser's names it takes count in its share as the ones it
    types, with new cookies or not; a name it gives up no longer counts."""
    added = [done(night.join(conn, f"Guest {n}")) for n in range(20)]  # the organiser's, before arrivals
    for n in range(claims.MAX_NAMES_PER_DEVICE):
        done(claims.join_as(conn, f"cookie-{n}", "127.0.9.10", player_id=added[n].id))
    with pytest.raises(tables.Refused, match=f"already joined {claims.MAX_NAMES_PER_DEVICE} names"):
        done(claims.join_as(conn, "cookie-x", "127.0.9.10", player_id=added[10].id))
    with pytest.raises(tables.Refused, match=f"already joined {claims.MAX_NAMES_PER_DEVICE} names"):
        done(claims.join_as(conn, "cookie-y", "127.0.9.10", name="Typed"))  # typed and taken share it
    done(claims.give_up(conn, added[0].id, "cookie-0"))  # Guest 0 is nobody's again (the organiser's name)
    assert done(claims.join_as(conn, "cookie-x", "127.0.9.10", player_id=added[10].id)).id == added[10].id
    assert done(claims.join_as(conn, "phone-9", "127.0.9.11", player_id=added[11].id)).id == added[11].id


def test_removing_many_names_in_one_action(app, conn, client):
    ids = [done(night.join(conn, name)).id for name in ("A1", "A2", "A3", "Keep")]
    hall = client.get("/hall").get_data(as_text=True)
    assert hall.count('form="remove-many"') == 4 and "Remove the ticked names" in hall
    assert client.post("/hall/players/remove", data={"player": [str(i) for i in ids[:3]]}).status_code == 303
    assert [(p.name, p.left) for p in night.roster(conn, with_left=True)] == [
        ("A1", True), ("A2", True), ("A3", True), ("Keep", False)]
    nothing = client.post("/hall/players/remove", data={})
    assert nothing.status_code == 422 and "Tick the names to remove first." in text_of(nothing.get_data(as_text=True))
    assert phone(app, 20).post("/hall/players/remove", data={"player": str(ids[3])}).status_code == 403
    assert not night.player(conn, ids[3]).left


def test_the_asking_phone_waits_and_gets_the_name_once_allowed(app, conn, client):
    ann_phone, other = phone(app, 21), phone(app, 22)
    ann_phone.post("/night/join", data={"name": "Ann"})
    assert other.post("/night/join", data={"name": "ann"}).headers["Location"].endswith("/night")
    waiting = other.get("/night")
    assert waiting.status_code == 200 and "Waiting for the organiser" in text_of(waiting.get_data(as_text=True))
    hall = client.get("/hall").get_data(as_text=True)
    assert "Ann: 1 phone asks" in text_of(hall)
    board = client.get("/hall/board").get_data(as_text=True)  # the live part shows it too
    answer = re.search(r'action="(/hall/claims/\d+)"', board).group(1)
    assert phone(app, 23).post(answer, data={"action": "allow"}).status_code == 403  # only the laptop
    assert client.post(answer, data={"action": "refuse"}).status_code == 303
    refused = other.get("/night")
    assert refused.status_code == 200 and "did not give you “Ann”" in text_of(refused.get_data(as_text=True))
    # Asked again and allowed: the name moves to this phone; the old one is asked to join.
    other.post("/night/join", data={"name": "Ann"})
    answer = re.search(r'action="(/hall/claims/\d+)"', client.get("/hall").get_data(as_text=True)).group(1)
    assert client.post(answer, data={"action": "allow"}).status_code == 303
    assert other.get("/night").headers["Location"].endswith("/night/me")
    assert "Ann" in text_of(other.get("/night/me").get_data(as_text=True))
    assert ann_phone.get("/night/me").status_code == 303
    # A phone that is a player and asks for another phone's name waits for that name.
    kid = phone(app, 25)
    kid.post("/night/join", data={"name": "Kid"})
    assert kid.post("/night/join", data={"name": "Ann"}).headers["Location"].endswith("/night")
    assert "Waiting for the organiser" in text_of(kid.get("/night").get_data(as_text=True))
    # Stopping the wait forgets the request on the phone.
    ann_phone.post("/night/join", data={"name": "Ann"})
    assert ann_phone.post("/night/claim/cancel").status_code == 303
    assert "Waiting for the organiser" not in text_of(ann_phone.get("/night").get_data(as_text=True))


def test_a_phone_from_before_names_had_owners_keeps_its_player(app, conn):
    """A roster upgraded mid-night: names without an owner stay the phone's that had them."""
    ann_phone = phone(app, 24)
    ann_phone.post("/night/join", data={"name": "Ann"})
    with store.write(conn):
        conn.execute("UPDATE night_players SET owner = NULL")
    with ann_phone.session_transaction() as session:
        session.pop("device")
    assert ann_phone.get("/night/me").status_code == 200


def test_a_change_reads_the_table_once_inside_its_write(app, conn, monkeypatch):
    """QA run: the trust check is asked inside the write's transaction, of the table that
    transaction read (it was: the view read the table, checked, then the service read it again),
    so nothing can change between the check and the write, and a refused change reads once."""
    from companion.store import tables as table_rows

    token = one_deal_match(conn)
    at_table, late = phone(app, 17), phone(app, 18)
    at_table.get(f"/t/{token}")
    assert at_table.post(f"/t/{token}/deals", data=DEAL).status_code == 303
    late.get(f"/t/{token}")
    typed = {"was": tables.fingerprint(tables.load(conn, token).deals[0]), **DEAL, "chips-0": "9", "chips-2": "0"}
    reads: list[bool] = []  # per read of the table: inside a write transaction?
    load_table = table_rows.load_table

    def counted(db, *args, **kwargs):
        reads.append(db.in_transaction)
        return load_table(db, *args, **kwargs)

    monkeypatch.setattr(table_rows, "load_table", counted)
    for path, form in ((f"/t/{token}/undo", {"number": "1"}), (f"/t/{token}/finish", {"finished": "0"}),
                       (f"/t/{token}/deals/1", typed)):
        reads.clear()
        assert late.post(path, data=form).status_code == 403, path
        assert reads == [True], (path, reads)  # one read, the write's own: refused there
    reads.clear()
    assert at_table.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 303
    assert reads == [True, True], reads  # the write's one read (check and undo), and the table after it
    assert tables.load(conn, token).deals == ()
