"""Home page (games, join QR, recent tables for the host), language switch, health check."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, make_response, redirect, render_template, request
from flask_babel import gettext

from .. import lan
from ..store import get_db
from ..store import tables as store_tables
from ..qr import qr_svg
from . import LANG_COOKIE, LANGUAGES

bp = Blueprint("home", __name__)


def join_url() -> tuple[str, str | None]:
    """The URL phones should open, and a warning when it only works on this laptop."""
    configured = current_app.config.get("JOIN_URL")
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
    """The laptop's own address as phones were given it (never taken from the request)."""
    configured = config.get("JOIN_URL")
    return urlsplit(configured).hostname if configured else lan.lan_address()


def is_host_request() -> bool:
    """Requests from the laptop itself (loopback, naming itself in Host) may see every table."""
    return lan.is_own_request(request.remote_addr or "", request.host, lambda: own_join_host(current_app.config))


@bp.get("/")
def index():
    url, warning = join_url()
    recent = None
    if is_host_request():
        from .tables import local_time  # tables imports this module
        # The laptop's own clock, as the change log shows it (stored times are UTC).
        recent = [dict(row, updated_local=local_time(row["updated_at"], "%Y-%m-%d %H:%M"))
                  for row in store_tables.recent_tables(get_db(), 12)]
    return render_template("home.html", join_url=url, join_qr=qr_svg(url), join_warning=warning,
                           recent_tables=recent)


def safe_next(target: str | None) -> str:
    """Only same-site paths, so the switch can't be used to bounce people elsewhere."""
    if (not target or not target.startswith("/") or target.startswith("//") or "\\" in target
            or not target.isprintable()):  # a CR/LF would split the Location header
        return "/"
    return target


@bp.get("/lang/<code>")
def set_language(code: str):
    response = make_response(redirect(safe_next(request.args.get("next"))))
    if code in LANGUAGES:
        response.set_cookie(LANG_COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
    return response


@bp.get("/healthz")
def healthz():
    """The trivial endpoint benchmarks compare against."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}
