"""Strangers on the Wi-Fi trying table links at random are slowed to a stop: after too many
unknown links, a device gets 429 for every table link (so it can't learn which exist),
until its misses age out. Phones with real links and the laptop itself are never affected."""

from __future__ import annotations

import secrets

import pytest

STRANGER = {"REMOTE_ADDR": "192.168.1.66"}
PLAYER = {"REMOTE_ADDR": "192.168.1.23"}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def guard(app):
    guard = app.extensions["link_guard"]
    guard.clock = Clock()
    return guard


def make_table(client, device=PLAYER) -> str:
    response = client.post("/tables", data={"game": "rwd", "players": "3", "name-0": "A", "name-1": "B",
                                            "name-2": "C"}, environ_base=device)
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[-1]


def test_guessing_is_cut_off_then_forgiven(app, client, guard):
    token = make_table(client)
    assert client.get(f"/t/{token}", environ_base=STRANGER).status_code == 200  # a real link works
    for _ in range(guard.limit):
        guess = secrets.token_urlsafe(16)
        assert client.get(f"/t/{guess}", environ_base=STRANGER).status_code == 404
    # Now every table link is refused for this device, the real one too, and the live check.
    for path in (f"/t/{secrets.token_urlsafe(16)}", f"/t/{token}", f"/t/{token}/live?rev=0",
                 f"/t/{token}/export.json"):
        response = client.get(path, environ_base=STRANGER)
        assert response.status_code == 429, path
        assert "Too many wrong table links" in response.get_data(as_text=True)
        assert response.headers["Retry-After"] == "60"
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert client.post(f"/t/{token}/undo", data={"number": "1"}, environ_base=STRANGER).status_code == 429
    # Other devices carry on, and the stranger can still read the rules.
    assert client.get(f"/t/{token}", environ_base=PLAYER).status_code == 200
    assert client.get("/games/rwd", environ_base=STRANGER).status_code == 200
    # A minute later the misses have aged out.
    guard.clock.now += guard.window + 1
    assert client.get(f"/t/{token}", environ_base=STRANGER).status_code == 200


def test_a_few_wrong_links_are_harmless(client, guard):
    token = make_table(client)
    for _ in range(guard.limit - 1):
        client.get(f"/t/{secrets.token_urlsafe(16)}/live?rev=3", environ_base=PLAYER)
    assert client.get(f"/t/{token}", environ_base=PLAYER).status_code == 200


def test_the_laptop_itself_is_trusted(client, guard):
    token = make_table(client)
    for _ in range(guard.limit + 5):
        assert client.get(f"/t/{secrets.token_urlsafe(16)}").status_code == 404  # test client is 127.0.0.1
    assert client.get(f"/t/{token}").status_code == 200


def test_tokens_are_128_bit_and_unpredictable(client):
    # From 50 phones: one device may open only a few tables a minute (the creation limit).
    tokens = {make_table(client, {"REMOTE_ADDR": f"192.168.1.{100 + n}"}) for n in range(50)}
    assert len(tokens) == 50
    for token in tokens:
        assert len(token) == 22  # token_urlsafe(16): 16 random bytes from the OS CSPRNG
