"""Our own scripts and style sheets, served minified, and the page's scripts as one file.

Comments and indentation are a third of their bytes even gzipped (app.js 4.5 → 2.8 KB,
outbox.js 9.8 → 6.7 KB), and every request costs a phone about a kilobyte of headers: a
phone's first load of a table is mostly these. So the files in static/ stay readable, each is
minified once per version (path, mtime, size) and kept in memory, and the scripts every page
loads travel as one bundle (``site.js``: the files of :data:`BUNDLES`, in order, as separate
<script defer> tags would run them). Vendored files (static/vendor/) are served as they ship.
"""

from __future__ import annotations

import hashlib
import io
import os

import rcssmin
import rjsmin
from flask import Flask, current_app, request, send_file
from werkzeug.security import safe_join

from ..lru import BytesLRU

MINIFIERS = {".js": (rjsmin.jsmin, "text/javascript"), ".css": (rcssmin.cssmin, "text/css")}
# Every page's own scripts (templates/base.html), in the order they run. Each is an IIFE, so
# one file behaves as the separate files did.
BUNDLES = {"site.js": ("csrf.js", "live.js", "drafts.js", "app.js", "taps.js", "outbox_queue.js", "outbox.js")}
_MINIFIED = BytesLRU(4 * 1024 * 1024)


def _found(filename: str) -> tuple[str, os.stat_result] | None:
    """(real path, stat) of a file in static/, or None (missing, or outside static/)."""
    path = safe_join(current_app.static_folder, filename) if current_app.static_folder else None
    if path is None:
        return None
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except (OSError, ValueError):  # ValueError: a NUL byte in the path ("/static/%00app.js")
        return None
    return (real, info) if os.path.isfile(real) else None


def _own_file(filename: str) -> tuple[str, os.stat_result] | None:
    """:func:`_found` for one of our minifiable files; None for vendored files and other kinds."""
    if os.path.splitext(filename)[1] not in MINIFIERS:
        return None
    found = _found(filename)
    vendor = os.path.join(os.path.realpath(current_app.static_folder), "vendor", "")
    return None if found is None or found[0].startswith(vendor) else found


def _parts(filename: str) -> list[tuple[str, os.stat_result]] | None:
    """The files a bundle or one of our own files is made of; None for anything else."""
    found = [_own_file(name) for name in BUNDLES.get(filename, (filename,))]
    return None if any(part is None for part in found) else found


def _key(parts: list[tuple[str, os.stat_result]]) -> tuple:
    return tuple((real, info.st_mtime_ns, info.st_size) for real, info in parts)


def version_key(filename: str) -> tuple | None:
    """What a static answer's bytes depend on: (real path, mtime, size) of each file it is made
    of; None for a file that is not there."""
    parts = _parts(filename)
    if parts is None:
        found = _found(filename)
        parts = [found] if found else None
    return _key(parts) if parts else None


def minified(real: str, info: os.stat_result) -> bytes:
    key = (real, info.st_mtime_ns, info.st_size)
    data = _MINIFIED.get(key)
    if data is None:
        with open(real, encoding="utf-8") as source:
            data = MINIFIERS[os.path.splitext(real)[1]][0](source.read()).encode("utf-8")
        _MINIFIED.put(key, data)
    return data


def static_file(filename: str):
    """The ``static`` endpoint: a bundle, or one of our .js/.css minified; anything else as
    Flask sends it (or its 404)."""
    parts = _parts(filename)
    if parts is None:
        return current_app.send_static_file(filename)
    data = b";\n".join(minified(real, info) for real, info in parts)
    tag = hashlib.blake2b(repr(_key(parts)).encode(), digest_size=8).hexdigest()
    return send_file(io.BytesIO(data), mimetype=MINIFIERS[os.path.splitext(filename)[1]][1], conditional=True,
                     etag=f"{tag}-min", last_modified=max(info.st_mtime for _real, info in parts),
                     max_age=current_app.get_send_file_max_age(filename))


def request_version_key() -> tuple | None:
    """:func:`version_key` of the static file this request was answered with."""
    filename = (request.view_args or {}).get("filename")
    return version_key(filename) if filename and current_app.static_folder else None


def init_app(app: Flask) -> None:
    app.view_functions["static"] = static_file
