"""Loopback trust needs a loopback Host (issue 13 item 6, DNS rebinding): only a Host naming the
laptop is trusted, a rebound name gets no table list and no trust from the link guard. Moved
from test_hardening.py."""

from __future__ import annotations

import pytest

from helpers import create_table as create_via_form


@pytest.mark.parametrize("host, trusted", [
    ("localhost", True), ("localhost:8000", True), ("127.0.0.1:8000", True), ("[::1]:8000", True),
    ("127.0.0.1", True), ("LOCALHOST.:8000", True), ("192.168.1.5:8000", True),  # the join address
    ("rebind.attacker.example", False), ("rebind.attacker.example:8000", False), ("localhost.attacker.example", False),
    ("192.168.1.6:8000", False), ("", False), ("[::1", False),
])
def test_only_a_host_naming_the_laptop_is_trusted(host, trusted):
    from companion import lan
    assert lan.is_own_request("127.0.0.1", host, lambda: "192.168.1.5") is trusted
    assert lan.is_own_request("192.168.1.23", host, lambda: "192.168.1.5") is False  # never from the LAN


def test_dns_rebinding_gets_no_table_list(client):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    assert token in client.get("/", headers={"Host": "127.0.0.1:8000"}).get_data(as_text=True)
    assert token in client.get("/", headers={"Host": "[::1]:8000"}).get_data(as_text=True)
    rebound = client.get("/", headers={"Host": "rebind.attacker.example:8000"})
    assert rebound.status_code == 200 and token not in rebound.get_data(as_text=True)


def test_dns_rebinding_is_not_trusted_by_the_link_guard(app, client):
    import secrets
    guard = app.extensions["link_guard"]
    for _ in range(guard.limit):
        client.get(f"/t/{secrets.token_urlsafe(16)}", headers={"Host": "rebind.attacker.example"})
    assert client.get(f"/t/{secrets.token_urlsafe(16)}",
                      headers={"Host": "rebind.attacker.example"}).status_code == 429
    assert client.get(f"/t/{secrets.token_urlsafe(16)}").status_code == 404  # the laptop itself: trusted
