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
BUNDLES = {"site.js": ("live.js", "app.js", "taps.js", "outbox.js")}
_MINIFIED = BytesLRU(4 * 1024 * 1024)


def _own_file(filename: str) -> tuple[str, os.stat_result] | None:
    """(real path, stat) of one of our minifiable files in static/, else None (vendored, other
    kinds, missing, or outside static/)."""
    if os.path.splitext(filename)[1] not in MINIFIERS:
        return None
    path = safe_join(current_app.static_folder, filename)
    if path is None:
        return None
    real = os.path.realpath(path)
    if real.startswith(os.path.join(os.path.realpath(current_app.static_folder), "vendor", "")):
        return None
    try:
        info = os.stat(real)
    except OSError:
        return None
    return (real, info) if os.path.isfile(real) else None


def _parts(filename: str) -> list[tuple[str, os.stat_result]] | None:
    names = BUNDLES.get(filename, (filename,))
    found = [_own_file(name) for name in names]
    return None if any(part is None for part in found) else found


def version_key(filename: str) -> tuple | None:
    """What a static answer's bytes depend on: (real path, mtime, size) of each file it is made
    of; None for a file that is not there."""
    parts = _parts(filename)
    if parts is None:
        path = safe_join(current_app.static_folder, filename) if current_app.static_folder else None
        try:
            real = os.path.realpath(path) if path else None
            info = os.stat(real) if real else None
        except OSError:
            return None
        return (real, info.st_mtime_ns, info.st_size) if info else None
    return tuple((real, info.st_mtime_ns, info.st_size) for real, info in parts)


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
    tag = hashlib.blake2b(repr(version_key(filename)).encode(), digest_size=8).hexdigest()
    return send_file(io.BytesIO(data), mimetype=MINIFIERS[os.path.splitext(filename)[1]][1], conditional=True,
                     etag=f"{tag}-min", last_modified=max(info.st_mtime for _real, info in parts),
                     max_age=current_app.get_send_file_max_age(filename))


def request_version_key() -> tuple | None:
    """:func:`version_key` of the static file this request was answered with."""
    filename = (request.view_args or {}).get("filename")
    return version_key(filename) if filename and current_app.static_folder else None


def init_app(app: Flask) -> None:
    app.view_functions["static"] = static_file
