"""Which device a request comes from, and whether it is the organiser's: one function each of
the WSGI environ (issue 41), imported by the serving layer (each device's share of streams and
turns, the link guard) and by the pages (the organiser's pages, names and tables per device)
alike, without Flask. Every per-device rule and every organiser check asks these and nothing else.

Today a device is its source address and the organiser is the laptop's own browser. A club
server behind a proxy, or one with a passcode, changes the bodies here and nothing else.
"""

from __future__ import annotations

from typing import Callable

from .lan import is_own_request

# The laptop's own browser reaching its own server. Other loopback addresses (127.0.0.2…) are
# other devices, as the tests and benchmarks use them: one attacker's many addresses buy none of
# the laptop's rights (its connection reserve, its pages first, the organiser's pages).
LAPTOP_ADDRESSES = ("127.0.0.1", "::1")


def is_laptop_address(address: str) -> bool:
    """Is ``address`` the laptop's own (``::ffff:127.0.0.1`` too: a dual-stack listener's view)?
    For the server's accept, before there is a request; a request asks :func:`is_organiser`."""
    if address[:7].lower() == "::ffff:":
        address = address[7:]
    return address in LAPTOP_ADDRESSES


def device_of(environ: dict) -> str:
    """The device a request comes from, as every per-device rule counts it: its source address."""
    return environ.get("REMOTE_ADDR") or ""


def is_organiser(environ: dict, join_host: Callable[[], str | None] | None) -> bool:
    """A request from the organiser: the laptop's own browser, from its own address and naming
    itself in Host (a page that rebinds its DNS name to 127.0.0.1 names itself otherwise:
    companion/lan.py). ``join_host``: the laptop's address as phones were given it."""
    device = device_of(environ)
    return is_laptop_address(device) and is_own_request(device, environ.get("HTTP_HOST", ""), join_host)
