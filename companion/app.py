"""The Flask app factory. Imported only when the app is wanted (``companion.create_app``),
so ``companion.games`` works as a library without Flask installed."""

from __future__ import annotations

import os
import secrets
import site
import sys
from pathlib import Path
from typing import Any, Mapping

from flask import Flask

from .store.backup import copy_database, is_companion_database  # noqa: F401  (cli and tests use app.copy_database)

PACKAGE_DIR = Path(__file__).resolve().parent
APP_DIR_NAME = "table-companion"  # the distribution's name, so the folder says whose it is
DATABASE_NAME = "companion.sqlite"
SECRET_KEY_NAME = "secret_key"


def _resource_dir(name: str) -> str:
    """templates/ and static/ live at the repo's top level; a wheel carries them inside the package."""
    inside = PACKAGE_DIR / name
    return str(inside if inside.is_dir() else PACKAGE_DIR.parent / name)


def data_dir() -> Path:
    """Where the scores live: the user's own data folder (~/.local/share/table-companion,
    ~/Library/Application Support/table-companion, %LOCALAPPDATA%\\table-companion), never the
    clone or a virtualenv, which people delete and rebuild."""
    from platformdirs import user_data_path

    return user_data_path(APP_DIR_NAME, appauthor=False, roaming=False)


def legacy_dirs(instance_path: str) -> list[Path]:
    """Where earlier versions kept companion.sqlite and secret_key: Flask's instance folder,
    which is <prefix>/var/companion-instance for an installed package (inside the virtualenv,
    or the Python's own prefix, or ~/.local for `pip install --user`) and ./instance in a
    development checkout. Distinct folders, in that order."""
    places = [Path(instance_path)]
    for prefix in (sys.prefix, sys.base_prefix, site.getuserbase()):
        places.append(Path(prefix) / "var" / "companion-instance")
    checkout = PACKAGE_DIR.parent
    if (checkout / "pyproject.toml").is_file():
        places += [checkout / "instance"] + [checkout / venv / "var" / "companion-instance"
                                             for venv in (".venv", "venv")]
    unique: list[Path] = []
    for place in places:
        if place.resolve() not in {known.resolve() for known in unique}:
            unique.append(place)
    return unique


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a folder we may not look into holds nothing we can move
        return False


def _is_companion_database(path: Path) -> bool:
    return is_companion_database(path)


def _last_written(database: Path) -> float:
    wal = database.with_name(database.name + "-wal")
    return max(database.stat().st_mtime, wal.stat().st_mtime if wal.exists() else 0)


def default_database(instance_path: str | None = None) -> tuple[str, str | None]:
    """The database in the data folder, and where it was moved from if an earlier version's
    database was found in its old place (the newest one, if several). The old file is
    renamed to <name>.moved, never deleted; others found are left as they are."""
    target = data_dir() / DATABASE_NAME
    if target.exists():
        return str(target), None
    if instance_path is None:  # the folder Flask gives the app (as create_app names it)
        instance_path = Flask("companion").instance_path
    found = [place / DATABASE_NAME for place in legacy_dirs(instance_path)
             if _is_file(place / DATABASE_NAME) and _is_companion_database(place / DATABASE_NAME)]
    if not found:
        return str(target), None
    source = max(found, key=_last_written)
    copy_database(source, target)
    try:
        os.replace(source, source.with_name(source.name + ".moved"))
    except FileNotFoundError:  # another process starting at the same moment moved it first
        pass
    except OSError:  # a folder we may read but not change: the old file simply stays
        return str(target), str(source)
    for leftover in ("-wal", "-shm"):  # already in the copy; stale without their main file
        try:
            source.with_name(source.name + leftover).unlink(missing_ok=True)
        except OSError:
            pass
    return str(target), str(source)


def _secret_key(instance_path: str, moved_from: str | None) -> str:
    """A per-installation key, made once (or taken over from an earlier version's instance
    folder, the one the database came from first): sessions and CSRF tokens survive
    restarts and upgrades."""
    path = data_dir() / SECRET_KEY_NAME
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    places = ([Path(moved_from).parent] if moved_from else []) + legacy_dirs(instance_path)
    key = ""
    for old in (place / SECRET_KEY_NAME for place in places if _is_file(place / SECRET_KEY_NAME)):
        try:
            key = old.read_text().strip()
            break
        except OSError:
            continue
    key = key or secrets.token_hex(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_text().strip()
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    # Named "companion", not this module, so the instance folder stays where it always was.
    app = Flask("companion", instance_relative_config=True,
                template_folder=_resource_dir("templates"), static_folder=_resource_dir("static"))
    app.config.update(
        DATABASE=None,  # default: companion.sqlite in the user's data folder (default_database)
        DATABASE_MOVED_FROM=None,  # set when an earlier version's database was moved there
        MAX_CONTENT_LENGTH=64 * 1024,  # a deal is a few hundred bytes; refuse absurd bodies early
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts an evening; tokens must not expire mid-game
        BABEL_DEFAULT_LOCALE="en",
        BABEL_TRANSLATION_DIRECTORIES=str(PACKAGE_DIR / "translations"),
        JOIN_URL=None,  # the address phones should open; set by `companion serve`
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    if config:
        app.config.update(config)
    if not app.config.get("DATABASE"):
        app.config["DATABASE"], app.config["DATABASE_MOVED_FROM"] = default_database(app.instance_path)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path, app.config["DATABASE_MOVED_FROM"])

    from . import store, web
    store.init_app(app)
    web.init_app(app)
    return app
