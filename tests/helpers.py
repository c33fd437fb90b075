"""Helpers shared by the tests (imported by conftest.py; ``from helpers import text_of``).

tests/ is on sys.path (pytest puts the rootdir conftest's folder there), so any test file,
tests/browser/ and tests/games/ included, can import this module by name.
"""

from __future__ import annotations

import html as _html
import http.client
import io
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
import table_writes
from table_writes import done

REPO_ROOT = Path(__file__).resolve().parent.parent

_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_BDI = re.compile(r"</?bdi\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]+>")


def text_of(markup: str) -> str:
    """The text a reader sees in an HTML page or fragment: script and style bodies dropped,
    tags read as word breaks (except <bdi>, which isolates a name inline without a break),
    character references decoded, runs of whitespace (non-breaking spaces too) as one space."""
    markup = _SCRIPT_OR_STYLE.sub(" ", markup)
    markup = _BDI.sub("", markup)
    return " ".join(_html.unescape(_TAG.sub(" ", markup)).split())


def csrf_of(markup: str) -> str:
    """The CSRF token of the (first) form on a page; fails the test if there is none."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', markup)
    assert found, "the page has no CSRF token field"
    return found.group(1)


# --- the rules engine's facts and databases ---------------------------------------------------

def rwd_facts(progress, chips=(4, 3, 3, 3), tricks=(4, 3, 3, 3), choice: int = 0) -> dict:
    """One valid 4-player RWD deal (by default a draw, so the match never ends: a table of any
    length); an open choice (who starts after a draw) gets its ``choice``-th option."""
    from companion.games import GAMES

    game = GAMES["rwd"]
    form = {f"chips-{i}": str(c) for i, c in enumerate(chips)}
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    upcoming = game.next_deal(progress)
    if upcoming.choice:
        form[upcoming.choice.key] = str(upcoming.choice.options[choice])
    facts, errors = game.parse_deal(form, progress)
    assert not errors, errors
    return facts


def fresh_db(tmp_path) -> str:
    """A migrated empty database file under ``tmp_path``; its path."""
    from companion import store as storage

    path = str(tmp_path / "h.sqlite")
    storage.migrate(path)
    return path


# --- tables through the forms, as a phone makes them -------------------------------------------

def rwd_deal_form(number: int, winner: int) -> dict[str, str]:
    """The deal form of a four-player RWD table: chips 3 3 3 4, ``winner`` takes 7 tricks."""
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return {"number": str(number), **{f"chips-{i}": c for i, c in enumerate(["3", "3", "3", "4"])},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}}


def rwd_rotating_deal_form(number: int) -> dict:
    """A valid 4-player RWD deal as a form sends it; the winner rotates with ``number``, so the
    match doesn't end (3 wins) soon."""
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    winner = number % 4
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return {"number": str(number), **{f"chips-{i}": str(c) for i, c in enumerate(chips)},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}}


def create_rwd_table(phone, names) -> str:
    """``phone`` creates an RWD table for ``names`` through the new-table form (CSRF on); its token."""
    page = phone.get(f"/tables/new?game=rwd&players={len(names)}").get_data(as_text=True)
    made = phone.post("/tables", data={"csrf_token": csrf_of(page), "game": "rwd",
                                       "players": str(len(names)), **{f"name-{i}": n for i, n in enumerate(names)}})
    return made.headers["Location"].rsplit("/", 1)[-1]


# --- the night (issue 25) -------------------------------------------------------------------------

NIGHT_NAMES = "Ann Bob Cy Di Eve Fay Gus Hal Ivy Jo Kim Lu".split()


def join_night(app, names=NIGHT_NAMES) -> dict:
    """Each name joins the night from its own phone (192.168.1.10, .11, …); name → test client."""
    phones = {}
    for n, name in enumerate(names):
        phone = app.test_client()
        phone.environ_base.update({"REMOTE_ADDR": f"192.168.1.{10 + n}"})
        assert phone.post("/night/join", data={"name": name}).status_code == 303
        phones[name] = phone
    return phones


# --- tables at the store level (companion.tables, no Flask) ------------------------------------

def migrated_connection(tmp_path):
    """For a ``conn`` fixture: ``yield from migrated_connection(tmp_path)`` gives a connection to
    a new migrated database under ``tmp_path``, closed after the test."""
    from companion import store as storage

    path = str(tmp_path / "t.sqlite")
    storage.migrate(path)
    connection = storage.connect(path)
    yield connection
    connection.close()


def stored_table(conn, game_id, names, options, deals) -> str:
    """A new table of ``game_id`` with ``deals`` (facts, in order) added; its token."""
    token = table_writes.create(conn, game_id, list(names), options)
    for number, facts in enumerate(deals, start=1):
        table_writes.add_deal(conn, token, number, facts)
    return token


def fingerprint_of(conn, token, number):
    """The stored fingerprint of deal ``number`` (what an edit must say it replaces)."""
    from companion.tables import service as store

    return store.fingerprint(store.load(conn, token).deals[number - 1])


# --- pages as a reader sees them ------------------------------------------------------------------

def visible_page(client, path: str, lang: str = "en", **params) -> str:
    """The visible text of a page (``text_of``) a phone reading ``lang`` gets; fails unless 200."""
    response = client.get(path, query_string=params, headers={"Accept-Language": lang})
    assert response.status_code == 200, (path, response.status_code)
    return text_of(response.get_data(as_text=True))


def game_card(client, game: str, lang: str = "en") -> str:
    """The visible text of a game's reference card."""
    return visible_page(client, f"/games/{game}", lang)


def rendered(app, text, lang: str) -> str:
    """A rules-engine Text as a phone reading ``lang`` sees it."""
    from flask_babel import force_locale, get_translations, gettext

    with app.test_request_context("/"), force_locale(lang):
        return text.render(gettext, lambda one, many, n: get_translations().ungettext(one, many, n))


def star_points(path: str) -> int:
    """Points of a star-like SVG outline (absolute coordinates): vertices farther from the
    centre than both neighbours."""
    import math

    points = [tuple(map(float, pair)) for pair in re.findall(r"(-?[\d.]+)[ ,](-?[\d.]+)", path)]
    cx = sum(x for x, _ in points) / len(points)
    cy = sum(y for _, y in points) / len(points)
    radius = [math.hypot(x - cx, y - cy) for x, y in points]
    return sum(1 for i, r in enumerate(radius) if r > radius[i - 1] and r > radius[(i + 1) % len(radius)])


# --- tables through the forms (the Flask test client, CSRF off) -----------------------------

def create_table(client, game: str, names: list[str], **options) -> str:
    """A table made through the new-table form (CSRF off); its token."""
    data = {"game": game, "players": str(len(names))}
    data.update({f"name-{i}": name for i, name in enumerate(names)})
    data.update({k: str(v) for k, v in options.items()})
    response = client.post("/tables", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    location = response.headers["Location"]
    token = location.rstrip("/").rsplit("/", 1)[-1]
    assert re.fullmatch(r"[A-Za-z0-9_-]{16,64}", token)
    return token


def table_state(client, token: str) -> dict:
    """A table's JSON export."""
    import json

    response = client.get(f"/t/{token}/export.json")
    assert response.status_code == 200
    return json.loads(response.get_data(as_text=True))


def rwd_fields(chips, tricks, **extra) -> dict:
    """An RWD deal as form fields: chips-i and tricks-i, and ``extra``."""
    fields = {f"chips-{i}": c for i, c in enumerate(chips)}
    fields.update({f"tricks-{i}": t for i, t in enumerate(tricks)})
    fields.update(extra)
    return fields


def enter_facts(client, token, number, facts, game_id):
    """Enter deal ``number`` (rules facts, sent as the game's form fields); it must be accepted."""
    from companion.games import GAMES

    fields = GAMES[game_id].form_values(facts)
    response = client.post(f"/t/{token}/deals", data={"number": str(number), **fields})
    assert response.status_code in (200, 303), text_of(response.get_data(as_text=True))


# --- a phone against a real server (HTTP on loopback) -------------------------------------------

BUSY_RETRIES = 20  # a phone asked to come back later (503/429 + Retry-After) tries again, this often at most


class Phone:
    """A cookie-keeping HTTP client, like one phone's browser without JavaScript. ``source``:
    the phone's own address (each phone is a device of its own to the laptop's fair share:
    127.0.0.2, 127.0.0.3…). Asked to come back later (503 or 429 with Retry-After: the laptop's
    fair share or a table's turns refused it before the app ran it, so nothing was stored), it
    waits as long as it was told and sends the same request again, as a phone's outbox does."""

    def __init__(self, port: int, source: str = "127.0.0.1"):
        self.port = port
        self.source = source
        self.cookies: dict[str, str] = {}
        self.waited = 0  # requests answered "come back later" (then sent again)

    def request(self, method: str, path: str, form: dict | None = None, timeout: float = 10):
        for _ in range(BUSY_RETRIES):
            status, headers, data = self.request_once(method, path, form, timeout)
            retry = headers.get("Retry-After", "")
            if status not in (429, 503) or not retry.isdigit():
                return status, headers, data
            self.waited += 1
            time.sleep(min(int(retry), 10))
        return status, headers, data

    def request_once(self, method: str, path: str, form: dict | None = None, timeout: float = 10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(self.source, 0))
        headers = {"Accept-Encoding": "identity"}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form, doseq=True).encode()  # a list: the field's values
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read().decode("utf-8")
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name.strip()] = rest.split(";", 1)[0]
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()

    def csrf(self, path: str) -> str:
        status, _headers, html = self.request("GET", path)
        assert status == 200, (path, status)
        return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)

    def create_table(self, game: str, names: list[str]) -> str:
        token = self.csrf(f"/tables/new?game={game}&players={len(names)}")
        form = {"csrf_token": token, "game": game, "players": str(len(names)),
                **{f"name-{i}": name for i, name in enumerate(names)}}
        status, headers, body = self.request("POST", "/tables", form)
        assert status == 303, body[:500]
        return urllib.parse.urlsplit(headers["Location"]).path.rsplit("/", 1)[-1]


def rwd_form(csrf: str, number: int, chips, tricks) -> dict:
    form = {"csrf_token": csrf, "number": str(number)}
    form.update({f"chips-{i}": str(c) for i, c in enumerate(chips)})
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    return form


def rwd_deal_post(csrf: str, number: int) -> dict:
    """A valid 4-player RWD deal; the winner rotates, so no match ends within 8 deals."""
    winner = number % 4
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return rwd_form(csrf, number, chips, tricks)


def enter_deals(port: int, token: str, numbers) -> None:
    """Deals ``numbers`` (rwd_deal_post) entered on a real server, from one phone."""
    phone = Phone(port)
    csrf = phone.csrf(f"/t/{token}")
    for number in numbers:
        status, _h, body = phone.request("POST", f"/t/{token}/deals", rwd_deal_post(csrf, number))
        assert status == 303, body[:300]


def open_event_stream(app, path: str, query: str = "", address: str = "192.168.1.23"):
    """GET ``path`` (an event stream: /night/events, /players/events…) as the server hands it to
    ``app``, from a phone at ``address``: (``{"status", "headers"}``, the body's iterator)."""
    answered = {}

    def start_response(status, headers):
        answered.update(status=status, headers=dict(headers))

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "127.0.0.1",
               "SERVER_PORT": "80", "HTTP_HOST": "127.0.0.1", "REMOTE_ADDR": address, "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.BytesIO()}
    return answered, app.wsgi_app(environ, start_response)


def request_on_new_connection(port: int, source: str, path: str, timeout: float = 10) -> int:
    """GET ``path`` from ``source`` on a connection of its own: its status, or 0 when the server
    closed the connection before answering (closed at accept, or after a refusal). An answer that
    takes longer than ``timeout`` fails the test."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    except ConnectionError:  # reset, or closed with no status line (http.client.RemoteDisconnected)
        return 0
    finally:
        conn.close()


def raw(port: int, head: bytes, host: str = "127.0.0.1", source: str = "127.0.0.1",
        until: bytes = b"\r\n\r\n", timeout: float = 5.0) -> bytes:
    """Send ``head`` as is (any bytes in a header) and read the status line and headers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        if family == socket.AF_INET:
            sock.bind((source, 0))
        sock.connect((host, port))
        got = b""
        try:  # closed at accept (the server refused the connection): what came, maybe nothing
            sock.sendall(head)
            deadline = time.monotonic() + timeout
            while until not in got and time.monotonic() < deadline:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                got += chunk
        except (ConnectionResetError, BrokenPipeError):
            pass
        return got


def status_of(answer: bytes) -> int:
    match = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    assert match, answer[:200]
    return int(match.group(1))


# --- `companion serve` as a separate process, to kill -9 ----------------------------------------

def ephemeral_ports() -> tuple[int, int]:
    """The range the OS takes ports from for every outgoing connection and every bind to port 0."""
    try:
        low, high = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default; macOS and Windows start at 49152


_PORTS = random.Random()


def free_port() -> int:
    """A free port for a server started next, from *below* the OS's ephemeral range: a port from
    bind(("127.0.0.1", 0)) is free only until the server binds it, and meanwhile any outgoing
    connection of this machine may take it as its own (with every Chromium phone's proxy
    connections, a server then failed to start "port already in use", one run in a few).
    Below the range only another test's free_port can pick it: checked free, and at random."""
    low = min(ephemeral_ports()[0], 32768)
    for _ in range(200):
        port = _PORTS.randrange(max(1024, low - 12000), low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")


class ServerProcess:
    """`python -m companion.cli serve` on loopback with its own database file.

    ``kill()`` is SIGKILL (no clean-up at all), ``start()`` starts it again on a fresh
    port (``port`` changes) or on ``start(port=...)``, so phones reconnect to the same address;
    ``args`` are more `serve` options. ``stop()`` ends it politely. Output goes to ``log``.
    ``up`` is set while a started server's port answers and cleared just before a kill: a test
    waits on it (the server's own signal), not on a count of retries that a loaded machine outlasts.
    """

    def __init__(self, db: Path, log: Path):
        self.db, self.log = db, log
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.starts = 0
        self.up = threading.Event()

    # The deadline is a last resort: the loop ends as soon as the port answers, or the process exits.
    def start(self, timeout: float = 90, *, port: int | None = None, args: tuple[str, ...] = ()) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
        env["PYTHONUNBUFFERED"] = "1"
        port = port or free_port()
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--db", str(self.db), "--no-qr", *args],
                cwd=self.db.parent, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    self.port = port
                    self.starts += 1
                    self.up.set()
                    return
            except OSError:
                time.sleep(0.02)
        self.proc.kill()
        raise AssertionError(f"server did not start within {timeout} s")

    def kill(self) -> None:
        self.up.clear()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        self.up.clear()
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


# --- QR decoding ---------------------------------------------------------------------------------

def decode_qr(image) -> list[str]:
    """Texts of every QR code zxing-cpp finds in a PIL image or PNG bytes."""
    import zxingcpp
    from PIL import Image

    if isinstance(image, (bytes, bytearray)):
        image = Image.open(io.BytesIO(image))
    image = image.convert("L")
    return [result.text for result in zxingcpp.read_barcodes(image)
            if result.format == zxingcpp.BarcodeFormat.QRCode]


# --- the three hand-worked nights of tests/players/ (players, season, its browser test) -------------

N1, N2, N3, N4 = "2026-10-06", "2026-10-20", "2026-11-03", "2026-11-17"


def rwd(chips, tricks):
    return {"chips": list(chips), "tricks": list(tricks)}


RWD_SEAT0 = rwd([4, 5, 8], [7, 7, 3])     # 3 players: seat 0 +3, seat 1 +2, seat 2 -5; seat 0 wins the deal
RWD_SEAT1 = rwd([0, 9, 8], [0, 17, 0])    # seat 1 +8 wins; seat 0 0, seat 2 -8


def rwd4(winner):
    """4 players (13 a half): the winner 10 tricks and 1 chip (+9), the others 1 and 4 (-3)."""
    return rwd([1 if s == winner else 4 for s in range(4)], [10 if s == winner else 1 for s in range(4)])


def mirai(q0, p0, last):
    return {"queens": [q0, 4 - q0], "points": [p0, 20 - p0], "last_trick": last}


MIRAI_SEAT1 = [mirai(4, 20, 0), mirai(0, 0, 1), mirai(2, 10, 0), mirai(2, 10, 1), mirai(1, 9, 1)]  # 82 to 93
MIRAI_SEAT0 = [mirai(4, 20, 0), mirai(0, 0, 1), mirai(2, 10, 0), mirai(2, 10, 1), mirai(3, 12, 0)]  # 94 to 81


def lucky(holder, number, last):
    return {"die_holder": holder, "die_number": number, "last_trick": last}


# Seats 0 and 1 collect 2 each (17), seat 2 collects 1 from seat 3 and pays 2 (14), seat 3 pays 3 (12);
# then draws (the opening leader, seat k % 4 at deal k, wins all six) until the 12th deal ends it.
LUCKY = [lucky(0, 2, 3), lucky(2, 1, 3), lucky(1, 2, 2)] + [lucky(None, None, k % 4) for k in range(4, 13)]
# Twin Shoot: seats 3 & 4 (index 2, 3) bid and take 4 + 3 tricks three times: 111 to 9.
TWIN = {"bids": [["D", "D"], ["D", "D"], ["X", "D"], ["C", "D"]], "tricks": [2, 1, 4, 3], "open_bid": None}


class NightClock:
    """The domain's clock, set per table: each night has its own date."""

    def __init__(self, monkeypatch):
        self.stamp = f"{N1}T09:00:00+00:00"
        from companion.tables import service as tables

        monkeypatch.setattr(tables, "now", lambda: self.stamp)

    def at(self, day: str, hhmm: str) -> None:
        self.stamp = f"{day}T{hhmm}:00+00:00"


def play_table(conn, game, names, options, deals, counted: bool = True) -> str:
    """A table played deal by deal; its token. ``counted``: opened on the laptop, so its night
    counts it (the season reads counted matches only); else a phone's side table."""
    token = table_writes.create(conn, game, names, options, numbered=counted)
    for number, facts in enumerate(deals, 1):
        table_writes.add_deal(conn, token, number, facts)
    return token


def three_nights(conn, clock) -> dict[str, str]:
    """The hand-worked nights of tests/players/test_season_stats.py; returns each table's token."""
    from companion.night import service as night

    tokens = {}
    clock.at(N1, "09:00")
    done(night.start_night(conn))
    clock.at(N1, "19:30")
    # Ann 9 (3 + 0 + 3 + 3), Bo 14 (2 + 8 + 2 + 2), Cy -23: deal wins 3, 1, 0 -> places 1, 2, 3
    tokens["n1-rwd"] = play_table(conn, "rwd", ["Ann", "Bo", "Cy"], {"first_start_player": 0},
                                  [RWD_SEAT0, RWD_SEAT1, RWD_SEAT0, RWD_SEAT0])
    tokens["n1-mirai"] = play_table(conn, "miraiscope", ["Di", "Ed"], {"first_dealer": 0}, MIRAI_SEAT1)  # Ed 1st
    clock.at(N1, "20:30")
    tokens["n1-lucky"] = play_table(conn, "lucky_cube", ["Ann", "Di", "Bo", "Ed"], {"first_dealer": 0}, LUCKY)
    clock.at(N2, "09:00")
    done(night.start_night(conn))
    clock.at(N2, "19:30")
    tokens["n2-twin"] = play_table(conn, "twin_shoot", ["Ann", "Cy", "Bo", "Di"], {}, [TWIN] * 3)
    clock.at(N2, "21:00")
    # Bo wins all three deals (+3 each: 9); Ann +2 x 3 = 6 and Ed -15, no deal win each: level second
    tokens["n2-rwd"] = play_table(conn, "rwd", ["Ｂｏ", "Ann", "Ed"], {"first_start_player": 0}, [RWD_SEAT0] * 3)
    clock.at(N3, "09:00")
    done(night.start_night(conn))
    clock.at(N3, "19:00")
    # Deal wins Di, Ed, Di, Cy, Cy, Cy: Cy 3 (18), Di 2 (6), Ed 1 (-6), ann 0 (-18)
    tokens["n3-rwd"] = play_table(conn, "rwd", ["ann", "Cy", "Di", "Ed"], {"first_start_player": 0},
                                  [rwd4(2), rwd4(3), rwd4(2), rwd4(1), rwd4(1), rwd4(1)])
    clock.at(N3, "20:00")
    tokens["n3-mirai"] = play_table(conn, "miraiscope", ["Ann", "Bo"], {"first_dealer": 0}, MIRAI_SEAT0)  # Ann 94
    return tokens


# --- a night from before rounds kept how they were drawn (schema 8; PostgreSQL 1) ------------

OLD_ROUND_PLAYERS = ("Ann", "Bob", "Cy", "Di")


def insert_a_round_drawn_before_draws_were_kept(conn) -> None:
    """Tonight (night 1): four players and round 1, one Lucky Cube table, written with the
    columns a database from before rounds kept their draw has (``conn``: the store's connection
    to it, SQLite or PostgreSQL; each statement commits on its own)."""
    import json

    from companion.games import GAMES

    stamp = "2026-11-20T19:00:00+00:00"
    options = json.dumps({opt.key: opt.default for opt in GAMES["lucky_cube"].options})
    conn.execute("INSERT INTO nights (started_at, after_table) VALUES (?, 0)", (stamp,))
    for name in OLD_ROUND_PLAYERS:
        conn.execute("INSERT INTO night_players (night, name, key, added_at) VALUES (1, ?, ?, ?)",
                     (name, name.lower(), stamp))
    conn.execute("INSERT INTO tables (token, game, players, options, seq, created_at, updated_at)"
                 " VALUES ('oldround1', 'lucky_cube', ?, ?, 1, ?, ?)",
                 (json.dumps(list(OLD_ROUND_PLAYERS)), options, stamp, stamp))
    conn.execute("INSERT INTO night_rounds (night, number, drawn_at, seed, minutes) VALUES (1, 1, ?, 'old', NULL)",
                 (stamp,))
    conn.execute("INSERT INTO round_tables (round_id, table_id, number) VALUES (1, 1, 1)")
    for seat in range(len(OLD_ROUND_PLAYERS)):
        conn.execute("INSERT INTO round_seats (table_id, seat, player_id) VALUES (1, ?, ?)", (seat, seat + 1))


def check_the_old_round_reads_as_mixed(app) -> None:
    """The round :func:`insert_a_round_drawn_before_draws_were_kept` wrote, once the database is
    upgraded: drawn by mixing, with no wishes, in the store, the hall's form and line, the export."""
    import json

    from companion.night import service as night
    from companion.store import connect

    conn = connect(app.config["DATABASE"])
    try:
        (only,) = night.night_rounds(conn)
        assert only.draw == night.HowDrawn("mix", every_game=False, newcomers=False, never=())
        assert [rt.player_ids for rt in only.tables] == [(1, 2, 3, 4)]
    finally:
        conn.close()
    client = app.test_client()
    page = client.get("/hall").get_data(as_text=True)
    form = re.search(r'<form[^>]*id="draw".*?</form>', page, re.S).group(0)
    assert '<input type="radio" name="by" value="mix" checked>' in form
    assert '<input type="checkbox" name="every_game" value="1" >' in form
    assert '<input type="checkbox" name="newcomers" value="1" >' in form
    assert 'name="never" value=' not in form  # no pair kept apart
    assert '<p class="hint organiser hall-drawn">Drawn: Mix</p>' in page
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    assert [r["draw"] for r in doc["rounds"]] == [{"way": "mix", "every_game": False, "newcomers": False,
                                                   "never": []}]
