"""Where the scores live, and moving an earlier version's files there.

The database and the secret key live in the user's own data folder (never the clone or a
virtualenv). Earlier versions kept them in Flask's instance folder; the first start of this
version copies the newest database found there and renames the old file to <name>.moved
(never deletes it), and takes the old secret key along so sessions survive the upgrade.
"""

from __future__ import annotations

import os
import secrets
import site
import sys
from pathlib import Path

from .store.backup import copy_database, is_companion_database

PACKAGE_DIR = Path(__file__).resolve().parent
APP_DIR_NAME = "table-companion"  # the distribution's name, so the folder says whose it is
DATABASE_NAME = "companion.sqlite"
SECRET_KEY_NAME = "secret_key"


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
        from flask import Flask

        instance_path = Flask("companion").instance_path
    found = [place / DATABASE_NAME for place in legacy_dirs(instance_path)
             if _is_file(place / DATABASE_NAME) and is_companion_database(place / DATABASE_NAME)]
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


def secret_key(instance_path: str, moved_from: str | None) -> str:
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
