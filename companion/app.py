"""The Flask app factory. Imported only when the app is wanted (``companion.create_app``),
so ``companion.games`` works as a library without Flask installed."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Mapping

from flask import Flask

PACKAGE_DIR = Path(__file__).resolve().parent


def _resource_dir(name: str) -> str:
    """templates/ and static/ live at the repo's top level; a wheel carries them inside the package."""
    inside = PACKAGE_DIR / name
    return str(inside if inside.is_dir() else PACKAGE_DIR.parent / name)


def _secret_key(instance_path: str) -> str:
    """A per-installation key, made once: sessions and CSRF tokens survive restarts."""
    path = Path(instance_path) / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_hex(32)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        return key


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    # Named "companion", not this module, so the instance folder stays where it always was.
    app = Flask("companion", instance_relative_config=True,
                template_folder=_resource_dir("templates"), static_folder=_resource_dir("static"))
    app.config.update(
        DATABASE=os.path.join(app.instance_path, "companion.sqlite"),
        MAX_CONTENT_LENGTH=64 * 1024,  # a deal is a few hundred bytes; refuse absurd bodies early
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts an evening; tokens must not expire mid-game
        BABEL_DEFAULT_LOCALE="en",
        BABEL_TRANSLATION_DIRECTORIES=str(PACKAGE_DIR / "translations"),
        JOIN_URL=None,  # the address phones should open; set by `companion serve`
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    if config:
        app.config.update(config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)

    from . import db, web
    db.init_app(app)
    web.init_app(app)
    return app
