"""Which device a request comes from, and whether it is the organiser's: one function each of
the WSGI environ (issue 41), imported by the serving layer (each device's share of streams and
turns, the link guard) and by the pages (the organiser's pages, names and tables per device)
alike, without Flask. Every per-device rule and every organiser check asks these and nothing else.

A device is its source address; the organiser is the laptop's own browser. Behind a reverse
proxy (a club's server, issue 46) the source address is the proxy's: a request whose peer is
one of the *trusted proxies* (``serve --trusted-proxy``) is the device the proxy names in the
last ``X-Forwarded-For`` entry it added (or RFC 7239 ``Forwarded: for=``), and is never the
organiser's by its address or Host (a proxy on the same machine connects from 127.0.0.1 and
passes any Host on): the organiser there is the browser holding the passcode's sign-in
(companion/web/organiser_signin.py). :class:`Devices`, the outermost WSGI layer, puts the trusted
addresses and that sign-in check in each request's environ, where these functions read them.
"""

from __future__ import annotations

import ipaddress
from typing import Callable, Iterable

from .lan import is_own_request

# The laptop's own browser reaching its own server. Other loopback addresses (127.0.0.2…) are
# other devices, as the tests and benchmarks use them: one attacker's many addresses buy none of
# the laptop's rights (its connection reserve, its pages first, the organiser's pages).
LAPTOP_ADDRESSES = ("127.0.0.1", "::1")

PROXIES_KEY = "companion.trusted_proxies"  # the trusted proxies' addresses (a frozenset), set by Devices
SIGNED_IN_KEY = "companion.signed_in"  # environ -> bool: the organiser's sign-in holds (behind a proxy)
_DEVICE_KEY = "companion.device"  # the device, found once per request
_ORGANISER_KEY = "companion.organiser_signed_in"  # the sign-in's answer, asked once per request
MAX_DEVICE = 64  # characters of a forwarded name kept (an address is at most 45)


def plain_address(address: str) -> str:
    """An IPv4 address as itself: a dual-stack listener sees ``::ffff:a.b.c.d``."""
    if address[:7].lower() == "::ffff:" and "." in address:
        return address[7:]
    return address


def _address(value: str) -> str:
    """An IP address written as REMOTE_ADDR shows it (ValueError if ``value`` is none)."""
    found = ipaddress.ip_address(value)
    mapped = getattr(found, "ipv4_mapped", None)
    return str(mapped or found)


def is_laptop_address(address: str) -> bool:
    """Is ``address`` the laptop's own (``::ffff:127.0.0.1`` too: a dual-stack listener's view)?
    For the server's accept, before there is a request; a request asks :func:`is_organiser`."""
    return plain_address(address) in LAPTOP_ADDRESSES


def trusted_addresses(values: Iterable[str]) -> frozenset[str]:
    """The trusted proxies' addresses, each as a request's REMOTE_ADDR shows it (``::1``, not
    ``[::1]``; ``::ffff:127.0.0.9`` as 127.0.0.9). A value that is no IP address is refused
    (ValueError): a proxy is trusted by its address, never by a name resolved later."""
    found = set()
    for value in values:
        value = value.strip().strip("[]")
        if value:
            found.add(_address(value))
    return frozenset(found)


def is_trusted_proxy(address: str, trusted: frozenset[str]) -> bool:
    """Is a connection from ``address`` one of the trusted proxies' (for the server's accept)?"""
    return bool(trusted) and plain_address(address) in trusted


def via_proxy(environ: dict) -> bool:
    """Did this request reach us through a trusted proxy (its peer is one)?"""
    return is_trusted_proxy(environ.get("REMOTE_ADDR") or "", environ.get(PROXIES_KEY) or frozenset())


def _forwarded_node(value: str) -> str:
    """An address as a forwarding header names it, as REMOTE_ADDR would (no port, no brackets,
    no quotes); a name that is no address (RFC 7239's "unknown", "_hidden") kept as it is."""
    value = value.strip().strip('"').strip()
    if value.startswith("["):  # [2001:db8::1]:4711
        value = value[1:value.find("]")] if "]" in value else value[1:]
    elif value.count(":") == 1:  # 192.0.2.60:4711
        value = value.split(":", 1)[0]
    try:
        return _address(value)
    except ValueError:
        return value[:MAX_DEVICE]


def forwarded_for(environ: dict) -> list[str]:
    """The clients a request passed through, oldest first, as the proxies wrote them:
    ``X-Forwarded-For`` (nginx's $proxy_add_x_forwarded_for), else RFC 7239 ``Forwarded``'s
    ``for=``. X-Forwarded-For wins when both came: the documented nginx config sets it, and a
    phone's own ``Forwarded`` header, passed on unchanged, must not name its device."""
    header = environ.get("HTTP_X_FORWARDED_FOR")
    if header:
        return [_forwarded_node(part) for part in header.split(",") if part.strip()]
    found = []
    for element in (environ.get("HTTP_FORWARDED") or "").split(","):
        for pair in element.split(";"):
            name, _, value = pair.partition("=")
            if name.strip().lower() == "for" and value.strip():
                found.append(_forwarded_node(value))
    return found


def device_of(environ: dict) -> str:
    """The device a request comes from, as every per-device rule counts it: its source address,
    or, through a trusted proxy, the client that proxy names (the last entry it added; entries
    added by trusted proxies before it are passed over). A trusted proxy that names no client
    is one device, under its own address."""
    found = environ.get(_DEVICE_KEY)
    if found is None:
        peer = plain_address(environ.get("REMOTE_ADDR") or "")
        found = peer
        if via_proxy(environ):
            trusted = environ[PROXIES_KEY]
            chain = forwarded_for(environ)
            while chain and chain[-1] in trusted and len(chain) > 1:
                chain.pop()  # a trusted proxy in front of this one: the client is the entry before
            if chain and chain[-1]:
                found = chain[-1]
        environ[_DEVICE_KEY] = found
    return found


def is_organiser(environ: dict, join_host: Callable[[], str | None] | None) -> bool:
    """A request from the organiser: the laptop's own browser, from its own address and naming
    itself in Host (a page that rebinds its DNS name to 127.0.0.1 names itself otherwise:
    companion/lan.py). ``join_host``: the laptop's address as phones were given it. Through a
    trusted proxy, never by address or Host: only with the organiser's sign-in."""
    if via_proxy(environ):
        answer = environ.get(_ORGANISER_KEY)
        if answer is None:
            signed_in = environ.get(SIGNED_IN_KEY)
            answer = environ[_ORGANISER_KEY] = bool(signed_in and signed_in(environ))
        return answer
    device = plain_address(environ.get("REMOTE_ADDR") or "")
    return is_laptop_address(device) and is_own_request(device, environ.get("HTTP_HOST", ""), join_host)


class Devices:
    """The outermost WSGI layer: tells the functions above, per request, which peers are trusted
    proxies and how a proxied request proves it is the organiser's (``signed_in``)."""

    def __init__(self, app: Callable, trusted: frozenset[str], signed_in: Callable[[dict], bool]):
        self.app = app
        self.trusted = trusted
        self.signed_in = signed_in

    def __call__(self, environ: dict, start_response):
        environ[PROXIES_KEY] = self.trusted
        environ[SIGNED_IN_KEY] = self.signed_in
        return self.app(environ, start_response)
