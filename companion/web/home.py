"""Home page (games, join QR, recent tables for the host), language switch, health checks, metrics."""

from __future__ import annotations

from flask import Blueprint, current_app, make_response, redirect, render_template, request
from flask_babel import gettext

from .. import metrics as counts
from ..store import StorageError, get_db, ping
from ..store import tables as table_rows
from ..qr import qr_svg
from .host import is_host_request, join_url, own_join_host
from .language import LANGUAGES, remember
from .times import local_time

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    url, warning = join_url()
    recent = None
    if is_host_request():
        # The laptop's own clock, as the change log shows it (stored times are UTC).
        recent = [dict(row, updated_local=local_time(row["updated_at"], "%Y-%m-%d %H:%M"))
                  for row in table_rows.recent_tables(get_db(), 12)]
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
        remember(response, code)
    return response


@bp.get("/healthz")
def healthz():
    """The trivial endpoint benchmarks compare against: the process lives."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}


@bp.get("/readyz")
def readyz():
    """Whether this server can do its work (issue 46: a proxy or a club's monitor asks): the
    database answers, and where other servers share it, the change relay listens. 503 with
    Retry-After and the reason, else 200."""
    plain = {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}
    try:
        ping(get_db())
    except StorageError as exc:
        return f"the database does not answer: {type(exc).__name__}", 503, {**plain, "Retry-After": "5"}
    relay = current_app.extensions.get("change_relay")
    if relay is not None and not relay.listening:
        return "the change relay is not listening", 503, {**plain, "Retry-After": "5"}
    return "ready", 200, plain


@bp.get("/metrics")
def metrics():
    """Prometheus' text (companion/metrics.py): for the organiser, or a monitor at an address
    given with ``--metrics-from`` (METRICS_FROM); 403 for everyone else (a phone learns nothing
    of the room's traffic)."""
    peers = counts.allowed_peers(current_app.config.get("METRICS_FROM") or ())
    if not counts.may_read(request.environ, lambda: own_join_host(current_app.config), peers):
        message = gettext("These figures are for the organiser's laptop and the club's monitor only.")
        return render_template("error.html", message=message), 403
    body, content_type = counts.exposition()
    return body, 200, {"Content-Type": content_type, "Cache-Control": "no-store"}
