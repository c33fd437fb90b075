"""Our own scripts and style sheets are served minified (companion/web/static.py); vendored
files as they ship; the minified copy follows the file when it changes."""

from __future__ import annotations

import os
import re
from pathlib import Path

from companion.web.static import BUNDLES


def test_our_scripts_and_styles_are_served_minified(client, app):
    static = Path(app.static_folder)
    for name in ("app.js", "outbox.js", "app.css"):
        source = (static / name).read_text(encoding="utf-8")
        served = client.get(f"/static/{name}")
        assert served.status_code == 200
        body = served.get_data(as_text=True)
        assert len(body) < 0.8 * len(source), name
        assert "/*" not in body and "\n  " not in body, name  # no comments, no indentation
    assert client.get("/static/app.js").mimetype == "text/javascript"
    assert client.get("/static/app.css").mimetype == "text/css"
    # The code is the code: a function name and a string of outbox.js are still there.
    outbox = client.get("/static/outbox.js").get_data(as_text=True)
    assert "function showPage(" in outbox and '"form.use-mine"' in outbox


def test_every_page_loads_its_own_scripts_as_one_file_in_their_order(client, app):
    page = client.get("/").get_data(as_text=True)
    own = [src for src in re.findall(r'<script src="([^"]+)"', page) if "/vendor/" not in src]
    assert own == ["/static/site.js"]
    bundle = client.get("/static/site.js")
    assert bundle.status_code == 200 and bundle.mimetype == "text/javascript"
    body = bundle.get_data(as_text=True)
    parts = [client.get(f"/static/{name}").get_data(as_text=True) for name in BUNDLES["site.js"]]
    assert body == ";\n".join(parts)  # each file minified, in the order the tags had
    assert 'data-words=' in page.split('src="/static/site.js"', 1)[1].split(">", 1)[0]  # the outbox's words


def test_vendored_files_are_served_as_they_ship(client, app):
    vendor = next((Path(app.static_folder) / "vendor").glob("htmx-*.min.js"))
    assert client.get(f"/static/vendor/{vendor.name}").data == vendor.read_bytes()
    assert client.get(f"/static/x/../vendor/{vendor.name}").data == vendor.read_bytes()


def test_a_browser_that_has_it_gets_304_and_a_range_is_a_range(client):
    first = client.get("/static/taps.js")
    again = client.get("/static/taps.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    part = client.get("/static/taps.js", headers={"Range": "bytes=0-49"})
    assert part.status_code == 206 and part.data == first.data[:50]


def test_a_changed_file_is_minified_again(app, tmp_path):
    (tmp_path / "x.js").write_text("// one\nvar a = 1;\n", encoding="utf-8")
    app.static_folder = str(tmp_path)
    client = app.test_client()
    assert client.get("/static/x.js").get_data(as_text=True) == "var a=1;"
    (tmp_path / "x.js").write_text("// two\nvar a = 22;\n", encoding="utf-8")
    os.utime(tmp_path / "x.js", ns=(1, 1))  # another version, whatever the clock's resolution
    assert client.get("/static/x.js").get_data(as_text=True) == "var a=22;"
    assert client.get("/static/missing.js").status_code == 404
