"""The skeleton every feature stands on: app factory, pages, assets, headers and the join QR.
Once test_foundation.py (its database tests are in tests/store/test_migration.py, its language
switch's in tests/web/test_language_switch.py)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from markupsafe import escape

from companion import create_app
from companion.games import GAMES

FIXED_GAME_IDS = ("rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot")


# --- helpers ---------------------------------------------------------------------------------

class _Assets(HTMLParser):
    """Collects src/href of script, link and img, and the text of a.join-url."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.assets: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.join_urls: list[str] = []
        self._in_join = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "link", "img", "source", "iframe"):
            for name in ("src", "href", "srcset"):
                if attrs.get(name):
                    self.assets.append((tag, name, attrs[name]))
        if tag == "a" and "join-url" in (attrs.get("class") or "").split():
            self._in_join = True
            self.join_urls.append("")

    def handle_endtag(self, tag):
        if tag == "a":
            self._in_join = False

    def handle_data(self, data):
        if self._in_join:
            self.join_urls[-1] += data


def parse(html: str) -> _Assets:
    parser = _Assets()
    parser.feed(html)
    parser.close()
    return parser


def pages() -> list[str]:
    return ["/", *[f"/games/{game_id}" for game_id in GAMES], "/no-such-page"]


def svg_to_image(svg: str, scale: int = 10):
    """Rasterise the SVG qrcode's SvgPathFillImage makes: a viewBox in modules and one
    path of axis-aligned rectangles ("Mx,yHx1Vy1Hxz"), on a white background."""
    from PIL import Image, ImageDraw

    view_box = re.search(r'viewBox="([\d.\s-]+)"', svg)
    assert view_box, "the QR SVG has no viewBox"
    _x, _y, width, height = (float(v) for v in view_box.group(1).split())
    path = re.search(r'<path\b[^>]*\sd="([^"]+)"', svg)
    assert path, "the QR SVG has no path"
    d = path.group(1)
    number = r"(-?\d+(?:\.\d+)?)"
    rect = re.compile(rf"M{number},{number}H{number}V{number}H{number}z")
    rects = rect.findall(d)
    assert rects and rect.sub("", d).strip() == "", f"unexpected path commands: {d[:80]}"
    image = Image.new("L", (round(width * scale), round(height * scale)), 255)
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1, _x0 in rects:
        x0, y0, x1, y1 = (float(v) * scale for v in (x0, y0, x1, y1))
        draw.rectangle([x0, y0, x1 - 1, y1 - 1], fill=0)
    return image


# --- app factory and pages -------------------------------------------------------------------

def test_factory_uses_given_config(app, tmp_path):
    assert app.config["TESTING"] is True
    assert app.config["DATABASE"] == str(tmp_path / "t.sqlite")
    assert (tmp_path / "t.sqlite").exists(), "create_app migrates the database up front"
    assert {"home", "games", "tables"} <= set(app.blueprints)


def test_factory_makes_independent_apps(tmp_path):
    one = create_app({"DATABASE": str(tmp_path / "a.sqlite"), "SECRET_KEY": "x"})
    two = create_app({"DATABASE": str(tmp_path / "b.sqlite"), "SECRET_KEY": "y"})
    assert one is not two and one.config["DATABASE"] != two.config["DATABASE"]


def test_home_answers(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "Table Companion" in html
    for game in GAMES.values():
        assert f'href="/games/{game.id}"' in html
        assert str(escape(game.name_en)) in html


@pytest.mark.parametrize("game_id", FIXED_GAME_IDS)
def test_game_page_exists_exactly_for_registered_games(client, game_id):
    response = client.get(f"/games/{game_id}")
    if game_id in GAMES:
        assert response.status_code == 200
        heading = re.search(r"<h1\b[^>]*>(.*?)</h1>", response.get_data(as_text=True), re.S).group(1)
        assert str(escape(GAMES[game_id].name_en)) in heading  # what the home page's link promised
    else:  # not written yet: an honest 404, never a crash
        assert response.status_code == 404


@pytest.mark.parametrize("path", ["/games/no-such-game", "/games/", "/nothing-here", "/games/RWD"])
def test_unknown_pages_are_404_with_a_page(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "Table Companion" in response.get_data(as_text=True)


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.get_data(as_text=True) == "ok"


@pytest.mark.parametrize("path", pages())
def test_no_third_party_assets(client, path):
    html = client.get(path).get_data(as_text=True)
    assets = parse(html).assets
    assert assets, "expected the page to load its own CSS and JS"
    for tag, attribute, value in assets:
        value = value.strip()
        assert not re.match(r"^(?:[a-z][a-z0-9+.-]*:)?//", value, re.I), \
            f"{path}: <{tag} {attribute}={value!r}> loads from another host"


@pytest.mark.parametrize("path", pages())
def test_every_local_asset_is_served(client, path):
    html = client.get(path).get_data(as_text=True)
    for tag, attribute, value in parse(html).assets:
        if value.startswith("data:"):
            continue
        response = client.get(urlsplit(value).path)
        assert response.status_code == 200, f"{path}: <{tag} {attribute}={value!r}> is {response.status_code}"


def test_htmx_is_vendored_with_its_licence(client, app):
    response = client.get("/static/vendor/htmx-4.0.1.min.js")
    assert response.status_code == 200
    assert response.mimetype in ("text/javascript", "application/javascript")
    assert b"htmx" in response.data and len(response.data) > 10_000
    vendor = __import__("pathlib").Path(app.static_folder) / "vendor"
    licences = [p for p in vendor.iterdir() if p.name.startswith("htmx-4.0.1") and "licen" in p.name.lower()]
    assert licences, "the htmx licence must sit beside the vendored file"
    licence = client.get(f"/static/vendor/{licences[0].name}")
    assert licence.status_code == 200 and b"BSD" in licence.data
    assert "/static/vendor/htmx-4.0.1.min.js" in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/", "/games/rwd", "/no-such-page", "/static/app.css"])
def test_security_headers(client, path):
    headers = client.get(path).headers
    csp = headers.get("Content-Security-Policy", "")
    assert "default-src 'self'" in csp
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src", 1)[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp
    assert headers.get("X-Content-Type-Options") == "nosniff"
    assert headers.get("Referrer-Policy") == "no-referrer"
    assert headers.get("X-Frame-Options") == "DENY"


def test_text_responses_are_gzipped_when_asked(client):
    plain = client.get("/")
    zipped = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers.get("Content-Encoding") == "gzip"
    import gzip
    assert gzip.decompress(zipped.data) == plain.data
    assert "Accept-Encoding" in zipped.headers.get("Vary", "")


@pytest.mark.parametrize("path", ["/static/vendor/htmx-4.0.1.min.js", "/static/app.css", "/static/app.js"])
def test_static_files_are_gzipped_too_but_never_a_range(client, path):
    """A phone's first visit is mostly htmx and CSS: they must travel compressed."""
    import gzip
    plain = client.get(path)
    for _ in range(2):  # the second answer comes from the compressed copy kept in memory
        zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert zipped.status_code == 200
        assert zipped.headers.get("Content-Encoding") == "gzip"
        assert gzip.decompress(zipped.data) == plain.data
        assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(plain.data) / 2
    partial = client.get(path, headers={"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
    assert partial.status_code == 206 and "Content-Encoding" not in partial.headers
    assert partial.data == plain.data[:100]


# --- the join QR -----------------------------------------------------------------------------

def test_home_qr_svg_decodes_to_the_printed_url(client, qr_decode):
    html = client.get("/").get_data(as_text=True)
    join_urls = [u.strip() for u in parse(html).join_urls]
    assert len(join_urls) == 1 and join_urls[0].startswith("http://")
    svg = re.search(r'<svg\b[^>]*class="qr"[^>]*>.*?</svg>', html, re.S)
    assert svg, "no inline QR svg on the home page"
    assert qr_decode(svg_to_image(svg.group(0))) == [join_urls[0]]


def test_configured_join_url_is_drawn(tmp_path, qr_decode):
    app = create_app({"DATABASE": str(tmp_path / "q.sqlite"), "SECRET_KEY": "x",
                      "JOIN_URL": "http://192.168.1.20:8000/"})
    html = app.test_client().get("/").get_data(as_text=True)
    assert [u.strip() for u in parse(html).join_urls] == ["http://192.168.1.20:8000/"]
    svg = re.search(r'<svg\b[^>]*class="qr"[^>]*>.*?</svg>', html, re.S).group(0)
    assert qr_decode(svg_to_image(svg)) == ["http://192.168.1.20:8000/"]
    assert 'class="warning"' not in html


def test_loopback_join_url_warns(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "q.sqlite"), "SECRET_KEY": "x",
                      "JOIN_URL": "http://127.0.0.1:8000/"})
    html = app.test_client().get("/").get_data(as_text=True)
    assert 'class="warning"' in html
