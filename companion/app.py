"""The Flask app factory. Imported only when the app is wanted (``companion.create_app``),
so ``companion.games`` works as a library without Flask installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from flask import Flask

from .moving import default_database, secret_key

PACKAGE_DIR = Path(__file__).resolve().parent


def _resource_dir(name: str) -> str:
    """templates/ and static/ live at the repo's top level; a wheel carries them inside the package."""
    inside = PACKAGE_DIR / name
    return str(inside if inside.is_dir() else PACKAGE_DIR.parent / name)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    # Named "companion", not this module, so the instance folder stays where it always was.
    app = Flask("companion", instance_relative_config=True,
                template_folder=_resource_dir("templates"), static_folder=_resource_dir("static"))
    app.config.update(
        DATABASE=None,  # default: companion.sqlite in the user's data folder (moving.default_database)
        DATABASE_MOVED_FROM=None,  # set when an earlier version's database was moved there
        MAX_CONTENT_LENGTH=64 * 1024,  # a deal is a few hundred bytes; refuse absurd bodies early
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts an evening; tokens must not expire mid-game
        BABEL_DEFAULT_LOCALE="en",
        BABEL_TRANSLATION_DIRECTORIES=str(PACKAGE_DIR / "translations"),
        JOIN_URL=None,  # the address phones should open; set by `companion serve`
        PUBLIC_URL=None,  # serve --public-url: what phones are given instead (a proxy's address), never trusted
        TRUSTED_PROXIES=(),  # the reverse proxies' addresses (serve --trusted-proxy): companion/devices.py
        ORGANISER_PASSCODE=None,  # the organiser's sign-in behind them: companion/web/organiser_signin.py
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    if config:
        app.config.update(config)
    if not app.config.get("DATABASE"):
        app.config["DATABASE"], app.config["DATABASE_MOVED_FROM"] = default_database(app.instance_path)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(app.instance_path, app.config["DATABASE_MOVED_FROM"])

    from . import store, web
    store.init_app(app)
    web.init_app(app)
    register_features(app)
    return app


def register_features(app: Flask) -> None:
    """Each feature's blueprint, then the serving layers in front of Flask (companion/serving):
    link guard, event streams, the 204 "unchanged" answer, table turns. Their answers carry
    the same security headers as the pages."""
    from .night.claim_views import bp as name_claims  # issue 32: names on tonight's list belong to their phones
    from .night.views import bp as night_pages
    from .night.projector import bp as room_screen  # issue 33: the screen for the room
    from .players.views import bp as players_pages  # issue 26: players across nights, the season table
    from .serving import install
    from .serving.limits import device_limits
    from .tables.record import bp as match_records  # issue 32: who may change a finished match; its record
    from .tables.views import bp as table_pages
    from .web import CSP, FIXED_HEADERS, games, home, organiser_signin
    from .web.host import own_join_host

    for blueprint in (home.bp, games.bp, table_pages, match_records, night_pages, room_screen, name_claims,
                      players_pages):
        app.register_blueprint(blueprint)
    install(app, [("Content-Security-Policy", CSP)] + list(FIXED_HEADERS.items()),
            join_host=lambda: own_join_host(app.config))
    # Outermost: which device each request is, behind a trusted proxy too (issue 46).
    organiser_signin.install(app, lambda device, rule: device_limits(app).take(device, rule))
