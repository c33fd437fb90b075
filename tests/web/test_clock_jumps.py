"""The laptop's clock jumps (issue 23, item 7): a phone's session and the CSRF token in its open
form keep working after the clock goes back D seconds or forward 32 days; nothing typed is lost.

Time is faked where the signatures read it (itsdangerous' signer calls ``time.time()``), never by
changing the machine's clock. Each phone signs its session at the real time, then the laptop's
clock jumps and the phone sends the form it already has."""

from __future__ import annotations

import json
import time as real_time
import types

import itsdangerous.timed
import pytest

from helpers import csrf_of

DAY = 24 * 3600


def jump(monkeypatch, seconds: float) -> None:
    """From now on the signer reads a clock ``seconds`` off the real one."""
    fake = types.SimpleNamespace(time=lambda: real_time.time() + seconds)
    monkeypatch.setattr(itsdangerous.timed, "time", fake)


def deal_form(csrf: str, number: int) -> dict:
    # RWD, three players: chips and tricks of one deal (a rotating winner: the match goes on)
    chips = [[0, 8, 9], [9, 8, 0], [8, 0, 9]][(number - 1) % 3]
    tricks = [[5, 6, 6], [6, 6, 5], [6, 5, 6]][(number - 1) % 3]
    form = {"csrf_token": csrf, "number": str(number)}
    form.update({f"chips-{i}": str(c) for i, c in enumerate(chips)})
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    return form


def new_table(client) -> str:
    page = client.get("/tables/new?game=rwd&players=3")
    created = client.post("/tables", data={"csrf_token": csrf_of(page.get_data(as_text=True)), "game": "rwd",
                                           "players": "3", "name-0": "Ann", "name-1": "Bo", "name-2": "Cy"})
    assert created.status_code == 303, created.get_data(as_text=True)[:300]
    return created.headers["Location"].rsplit("/", 1)[-1]


def stored_deals(client, token: str) -> int:
    return len(json.loads(client.get(f"/t/{token}/export.json").get_data(as_text=True))["deals"])


@pytest.mark.parametrize("seconds", [-60, -3600, -2 * DAY, 32 * DAY, 400 * DAY])
def test_an_open_form_is_saved_after_the_clock_jumps(csrf_app, monkeypatch, seconds):
    phone = csrf_app.test_client()
    token = new_table(phone)
    form = deal_form(csrf_of(phone.get(f"/t/{token}").get_data(as_text=True)), 1)  # session signed now
    jump(monkeypatch, seconds)
    saved = phone.post(f"/t/{token}/deals", data=form)
    assert saved.status_code == 303, (seconds, saved.status_code, saved.get_data(as_text=True)[:300])
    assert stored_deals(phone, token) == 1
    # and the next deal, from the page as it is now served (signed at the jumped time)
    form = deal_form(csrf_of(phone.get(f"/t/{token}").get_data(as_text=True)), 2)
    assert phone.post(f"/t/{token}/deals", data=form).status_code == 303
    assert stored_deals(phone, token) == 2


def test_a_clock_jumping_back_and_forth_between_a_phones_requests(csrf_app, monkeypatch):
    phone = csrf_app.test_client()
    jump(monkeypatch, 3600)  # the phone's session begins an hour "ahead"...
    token = new_table(phone)
    form = deal_form(csrf_of(phone.get(f"/t/{token}").get_data(as_text=True)), 1)
    jump(monkeypatch, 0)  # ...then the laptop syncs its clock (back an hour)
    assert phone.post(f"/t/{token}/deals", data=form).status_code == 303
    assert stored_deals(phone, token) == 1


def test_a_joined_phone_stays_joined_when_the_clock_jumps(csrf_app, monkeypatch):
    phone = csrf_app.test_client()
    page = phone.get("/night").get_data(as_text=True)
    joined = phone.post("/night/join", data={"csrf_token": csrf_of(page), "name": "Ann"})
    assert joined.status_code == 303 and joined.headers["Location"].endswith("/night/me")
    cookie = joined.headers["Set-Cookie"]
    # How long the session lasts is told in seconds from now (the phone's clock counts them)
    assert "Max-Age=" in cookie, cookie
    for seconds in (-600, 32 * DAY):
        jump(monkeypatch, seconds)
        me = phone.get("/night/me")
        assert me.status_code == 200, (seconds, me.status_code, me.headers.get("Location"))
        assert "Ann" in me.get_data(as_text=True)


def test_the_session_is_still_signed(csrf_app, monkeypatch):
    """No clock is checked, but the signature is: an edited or forged session is a new, empty one
    (its CSRF token then fails: 400, nothing stored)."""
    phone = csrf_app.test_client()
    token = new_table(phone)
    form = deal_form(csrf_of(phone.get(f"/t/{token}").get_data(as_text=True)), 1)
    cookie = phone.get_cookie("session")
    assert cookie is not None
    payload, _, signature = cookie.value.rpartition(".")
    forged = payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:]
    phone.set_cookie("session", forged)
    jump(monkeypatch, 32 * DAY)
    refused = phone.post(f"/t/{token}/deals", data=form)
    assert refused.status_code == 400
    assert stored_deals(phone, token) == 0
