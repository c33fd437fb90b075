"""Who is asking, and the address phones are given: the laptop itself (the organiser) or a
phone, and the join URL every page with a QR code shows."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app, render_template, request
from flask_babel import gettext

from .. import lan
from ..devices import device_of, is_organiser, via_proxy


def join_url() -> tuple[str, str | None]:
    """The URL phones should open, and a warning when it only works on this laptop."""
    configured = current_app.config.get("PUBLIC_URL") or current_app.config.get("JOIN_URL")
    if configured:
        url = configured
    else:
        # Development server: phones use the LAN address on the port this page came in on.
        url = request.host_url
        here = urlsplit(url)
        if lan.is_loopback(here.hostname or ""):
            address = lan.lan_address()
            if address:
                url = f"http://{address}{':' + str(here.port) if here.port else ''}/"
    host = urlsplit(url).hostname or ""
    warning = None
    if lan.is_loopback(host):
        warning = gettext("This address works only on the laptop itself. Start Table Companion again without "
                          "“--host 127.0.0.1” (it listens on the network by default) so phones can join.")
    return url, warning


def own_join_host(config) -> str | None:
    """The laptop's own address as phones were given it (never taken from the request). Not
    ``--public-url``'s name: a proxy in front that nobody said to trust (no --trusted-proxy)
    connects from 127.0.0.1 with that Host, and its phones must not be the organiser."""
    configured = config.get("JOIN_URL")
    return urlsplit(configured).hostname if configured else lan.lan_address()


def is_host_request() -> bool:
    """Requests from the laptop itself may see every table and open the organiser's pages: its
    own browser, from its own address (127.0.0.1, ::1) and naming itself in Host. Other loopback
    addresses (127.0.0.2…) are other devices, as in the tests and benches (issue 32)."""
    return is_organiser(request.environ, lambda: own_join_host(current_app.config))


def phone_address() -> str | None:
    """The address a phone's per-night shares count by (names it holds, side tables it opened);
    None for the laptop, which is never counted."""
    return None if is_host_request() else device_of(request.environ)


def organiser_only(message: str):
    """The answer to an organiser's page asked for by someone who isn't the organiser: through a
    trusted proxy, the passcode's sign-in form (the organiser is not at the server there:
    companion/web/organiser_signin.py); else the 403 page saying ``message``."""
    if via_proxy(request.environ):
        from .organiser_signin import sign_in_page

        return sign_in_page(request.full_path.rstrip("?") if request.method == "GET" else None, status=403)
    return render_template("error.html", message=message), 403
