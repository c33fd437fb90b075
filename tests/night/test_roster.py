"""A meetup night's roster (issue 25): players join by the night's link on their phone (once:
the phone remembers them), the same name typed twice is one player, and the organiser adds,
renames and removes players on the laptop only."""

from __future__ import annotations

import re

import pytest

from companion.night import service as night
from companion.store import connect
from helpers import text_of

PHONE = {"REMOTE_ADDR": "192.168.1.23"}


def phone(app, n=23):
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": f"192.168.1.{n}"})
    return client


def roster(app):
    conn = connect(app.config["DATABASE"])
    try:
        return night.roster(conn, with_left=True)
    finally:
        conn.close()


def test_a_phone_joins_once_and_is_remembered(app):
    ann = phone(app)
    page = ann.get("/night")
    assert page.status_code == 200 and 'name="name"' in page.get_data(as_text=True)
    joined = ann.post("/night/join", data={"name": "  Ann  "})
    assert joined.status_code == 303 and joined.headers["Location"].endswith("/night/me")
    # From then on the join link leads to her own page, and it names her.
    again = ann.get("/night")
    assert again.status_code == 303 and again.headers["Location"].endswith("/night/me")
    me = ann.get("/night/me")
    assert me.status_code == 200 and "Ann" in text_of(me.get_data(as_text=True))
    assert [p.name for p in roster(app)] == ["Ann"]


def test_the_same_name_typed_twice_is_one_player(app):
    ann = phone(app, 30)
    for typed in ["Ann", "ann", "ＡＮＮ", " Ann "]:
        joined = ann.post("/night/join", data={"name": typed})
        assert joined.status_code == 303 and joined.headers["Location"].endswith("/night/me")
    # Another phone typing it is the same name too: it waits for the organiser (issue 32).
    other = phone(app, 31).post("/night/join", data={"name": "ａｎｎ"})
    assert other.status_code == 303 and other.headers["Location"].endswith("/night")
    assert [p.name for p in roster(app)] == ["Ann"]


def test_picking_a_name_from_tonights_list(app, client):
    client.post("/hall/players", data={"name": "Bob"})  # the organiser's: the first phone to tap it
    other = phone(app, 41)
    page = other.get("/night").get_data(as_text=True)
    bob = roster(app)[0]
    assert f'name="player" value="{bob.id}"' in page and "Bob" in text_of(page)
    assert other.post("/night/join", data={"player": str(bob.id)}).status_code == 303
    assert "Bob" in text_of(other.get("/night/me").get_data(as_text=True))
    assert len(roster(app)) == 1


@pytest.mark.parametrize("typed, message", [("", "Enter a name."), ("\u200b\u200b", "invisible characters"),
                                            ("x" * 41, "at most 40 characters")])
def test_a_bad_name_is_refused_next_to_the_field(app, typed, message):
    response = phone(app).post("/night/join", data={"name": typed})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert message in page and 'id="err-name"' in page
    assert roster(app) == []


def test_the_organiser_adds_renames_and_removes(client, app):
    assert client.post("/hall/players", data={"name": "Cy"}).status_code == 303
    assert client.post("/hall/players", data={"name": "Di"}).status_code == 303
    cy, di = roster(app)
    assert client.post(f"/hall/players/{cy.id}", data={"name": "Cyril"}).status_code == 303
    # Renaming to a name already on the list is refused next to that player's field.
    refused = client.post(f"/hall/players/{di.id}", data={"name": "cyril"})
    assert refused.status_code == 422
    assert "“Cyril” is already on tonight's list." in text_of(refused.get_data(as_text=True))
    assert f'id="err-name-{di.id}"' in refused.get_data(as_text=True)
    assert client.post(f"/hall/players/{di.id}", data={"action": "remove"}).status_code == 303
    assert [(p.name, p.left) for p in roster(app)] == [("Cyril", False), ("Di", True)]
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Removed tonight: Di Put back on the list" in hall and "1 player tonight" in hall
    # Di scanning again does not put her back (issue 32); the organiser adding her does
    # (same player, same id).
    assert phone(app, 50).post("/night/join", data={"name": "di"}).status_code == 422
    assert client.post("/hall/players", data={"name": "di"}).status_code == 303
    assert [(p.id, p.left) for p in roster(app)] == [(cy.id, False), (di.id, False)]


def test_a_removed_player_phone_is_asked_again(app, client):
    ann = phone(app, 60)
    ann.post("/night/join", data={"name": "Ann"})
    who = roster(app)[0]
    client.post(f"/hall/players/{who.id}", data={"action": "remove"})
    assert ann.get("/night/me").headers["Location"].endswith("/night")


def test_a_removed_player_open_page_says_so_at_its_next_check(app, client):
    ann = phone(app, 62)
    ann.post("/night/join", data={"name": "Ann"})
    page = ann.get("/night/me").get_data(as_text=True)
    live = re.search(r'hx-get="([^"]+)"', page).group(1)
    assert ann.get(live).status_code == 204  # nothing changed
    client.post(f"/hall/players/{roster(app)[0].id}", data={"action": "remove"})
    answer = ann.get(live)
    part = answer.get_data(as_text=True)
    assert answer.status_code == 200 and 'id="me-live"' in part
    assert "not on tonight's list any more" in text_of(part)
    assert 'href="/night"' in part and "hx-get" not in part  # a way back; no more polling


def test_a_new_night_has_a_new_list(app, client):
    ann = phone(app, 61)
    ann.post("/night/join", data={"name": "Ann"})
    client.post("/hall/nights", data={"unfinished": "leave"})
    assert roster(app) == []
    assert ann.get("/night/me").status_code == 303  # asked to join tonight


def test_organiser_pages_are_laptop_only(app):
    other = phone(app, 70)
    for path, data in (("/hall/players", {"name": "X"}), ("/hall/rounds", {"offer-rwd": "1"}),
                       ("/hall/swap", {"a": "1", "b": "2"}), ("/hall/clock", {"minutes": "5"}),
                       ("/hall/players/1", {"action": "remove"})):
        assert other.post(path, data=data).status_code == 403, path
    assert roster(app) == []


def test_the_hall_shows_the_join_code_or_refuses_it_on_loopback(app, client):
    page = client.get("/hall").get_data(as_text=True)
    # The test client is served as "localhost": phones could not open that address.
    link = re.search(r'<p class="tc-url">([^<]+)</p>', page).group(1)
    if "127.0.0.1" in link or "localhost" in link:
        assert "works only on the laptop itself" in page and "<svg" not in page.split('id="join"')[1].split("</aside>")[0]
    app.config["JOIN_URL"] = "http://192.168.1.5:8000/"
    page = client.get("/hall").get_data(as_text=True)
    assert "http://192.168.1.5:8000/night" in page
    assert "<svg" in page.split('id="join"')[1].split("</aside>")[0]


def test_joining_with_the_security_check_on(csrf_app):
    from helpers import csrf_of
    phone = csrf_app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": "192.168.1.80"})
    assert phone.post("/night/join", data={"name": "Ann"}).status_code == 400  # no token: refused
    token = csrf_of(phone.get("/night").get_data(as_text=True))
    assert phone.post("/night/join", data={"name": "Ann", "csrf_token": token}).status_code == 303
    assert "Ann" in text_of(phone.get("/night/me").get_data(as_text=True))


def test_the_roster_warns_of_names_that_look_alike_across_alphabets(app, client):
    client.post("/hall/players", data={"name": "Ann"})
    client.post("/hall/players", data={"name": "Bob"})
    assert "look alike" not in text_of(client.get("/hall").get_data(as_text=True))
    phone(app, 63).post("/night/join", data={"name": "\u0410nn"})  # Cyrillic А: another player
    assert len(roster(app)) == 3
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "“Ann” and “\u0410nn” look alike but are written with letters of different alphabets" in hall
