"""The skeleton every feature stands on: app factory, pages, assets, headers,
the join QR, the database and the language switch."""

from __future__ import annotations

import re
import sqlite3
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from markupsafe import escape

from companion import create_app, store as storage
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
        assert str(escape(GAMES[game_id].name_en)) in response.get_data(as_text=True)
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


# --- database --------------------------------------------------------------------------------

def test_migration_creates_current_schema_with_wal_and_foreign_keys(app):
    path = app.config["DATABASE"]
    conn = storage.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == storage.SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"tables", "deals", "changes"} <= tables
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at) "
                         "VALUES (999, 1, '{}', 'x', 'x')")
    finally:
        conn.close()


def test_request_connections_enforce_foreign_keys(app):
    with app.app_context():
        assert storage.get_db().execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_migrate_is_idempotent(tmp_path):
    path = str(tmp_path / "again.sqlite")
    assert storage.migrate(path) == storage.SCHEMA_VERSION
    assert storage.migrate(path) == storage.SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {storage.SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(storage.DatabaseError, match="newer"):
        storage.migrate(str(path))
    with pytest.raises(storage.DatabaseError):
        create_app({"DATABASE": str(path), "SECRET_KEY": "x"})
    assert path.read_bytes() == before


def test_garbage_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "garbage.sqlite"
    garbage = bytes((i * 37 + 11) % 256 for i in range(8192))
    path.write_bytes(garbage)
    with pytest.raises(storage.DatabaseError, match="untouched"):
        storage.migrate(str(path))
    with pytest.raises(storage.DatabaseError):
        create_app({"DATABASE": str(path), "SECRET_KEY": "x"})
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["garbage.sqlite"]


def test_damaged_database_is_refused_and_left_untouched(tmp_path):
    """A real SQLite file whose pages were overwritten: refused before anything is written."""
    path = tmp_path / "damaged.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")
    conn.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO filler (body) VALUES (?)", [("x" * 200,) for _ in range(200)])
    conn.execute("CREATE INDEX filler_body ON filler(body)")
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 1024
    data[3 * 1024:6 * 1024] = b"\xa5" * 3 * 1024  # smash pages 4-6, keep the header
    path.write_bytes(bytes(data))
    with pytest.raises(storage.DatabaseError):
        storage.migrate(str(path))
    assert path.read_bytes() == bytes(data)


# --- language switch -------------------------------------------------------------------------

def test_language_switch_sets_cookie_and_comes_back(client):
    response = client.get("/lang/ja?next=/games/rwd")
    assert response.status_code in (302, 303)
    assert urlsplit(response.headers["Location"]).path == "/games/rwd"
    cookie = response.headers.get("Set-Cookie", "")
    assert cookie.startswith("lang=ja") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert '<html lang="ja"' in client.get("/").get_data(as_text=True)
    client.get("/lang/en")
    assert '<html lang="en"' in client.get("/").get_data(as_text=True)


def test_accept_language_picks_japanese(client):
    html = client.get("/", headers={"Accept-Language": "ja-JP,ja;q=0.9"}).get_data(as_text=True)
    assert '<html lang="ja"' in html


def test_unknown_language_sets_no_cookie(client):
    response = client.get("/lang/xx")
    assert response.status_code in (302, 303)
    assert "Set-Cookie" not in response.headers


@pytest.mark.parametrize("target", ["//evil.com", "https://evil.com/", "/\\evil.com", "\\\\evil.com",
                                    "http:evil.com", "", "evil.com"])
def test_language_switch_never_redirects_offsite(client, target):
    response = client.get("/lang/ja", query_string={"next": target})
    assert response.status_code in (302, 303)
    location = urlsplit(response.headers["Location"])
    assert location.netloc in ("", "localhost"), response.headers["Location"]
    assert location.path == "/"


def test_language_links_keep_the_page(client):
    html = client.get("/games/rwd" if "rwd" in GAMES else "/").get_data(as_text=True)
    assert "/lang/ja?next=" in html
