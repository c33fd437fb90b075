"""Issue 47's "Must show": a night of rolling tables on the real server, 12 players, three games.

Two Chromium phones (en, ja; each from its own 127.0.0.x, each refused the laptop's /hall as its
context closes) and ten HTTP phones (tests/helpers.Phone, each from its own 127.0.200.x) join
from /night; the laptop (127.0.0.1) sets the room's tables ("1-4"), has one player keep table 4
(mobility) and runs the night as rolling tables: one copy each of RWD, Lucky Cube and Twin Shoot,
minutes per game, a closing time. The three tables start at once; the tables end at different
times (RWD from its phones' deal forms; the others after a deal saved with tests/table_writes.py,
ended at time from a phone once the hall called time for that table): the first table's four wait (the same four again would start
nothing new), the second's end seats two mixed tables at once, with nobody at two tables, each
with its own clock (one paused from the hall). The phones say "Table N is free: … → game" in
their language. At closing time no new table starts. The leaderboard ranks by place points per
match, then matches, and every finished match counts once.

A request met: a Chromium phone at a table that ends before the last one taps "I'd like to
learn …" (the other game of the two tables that end first) before its table finishes; the
hall's rolling card lists it, the next table that phone is seated at is that game, beside
someone who played it, and its request card then shows none. (Lucky Cube ends second, or Twin
Shoot when both Chromium phones sit at Lucky Cube.)
The screen for the room at 1920×1080 is kept in test-artifacts/rolling-night-screen-*.png.
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from companion.store import connect
from helpers import Phone, rwd_form
from tests.browser.pages import LAPTOP, PHONE, TIMEOUT_MS
import table_writes
from .conftest import new_phone_context

pytestmark = pytest.mark.browser

CHROMIUM = (("Aiko", "en-US"), ("Kenji", "ja-JP"))
HTTP = ("Ben", "Chiyo", "Dan", "Emi", "Fumi", "Goro", "Hana", "Ivo", "Jun", "Kai")
KEEPER = "Fumi"  # keeps room table 4 all night
LUCKY_DEAL = {"die_holder": None, "die_number": None, "last_trick": 1}
TWIN_DEAL = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"]], "tricks": [4, 3, 2, 1], "open_bid": None}
DEALS = {"lucky_cube": LUCKY_DEAL, "twin_shoot": TWIN_DEAL}  # one deal, then the match ends at time


def rwd_win(n: int, winner: int) -> dict:
    each = 52 // n
    chips = [each // n] * n
    chips[-1] += each - n * (each // n)
    tricks = list(chips)
    for k, seat in enumerate(s for s in range(n) if s != winner):
        give = (0, 1, 2, 1)[k]
        tricks[seat] -= give
        tricks[winner] += give
    return {"chips": chips, "tricks": tricks}


def wait_until(check, what: str, within: float = 15.0):
    deadline = time.monotonic() + within
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {within} s: {what}"
        time.sleep(0.05)


class RollingNight:
    def __init__(self, server, browser):
        self.server, self.port, self.browser = server, server.port, browser
        self.laptop = Phone(self.port, "127.0.0.1")
        self.http: dict[str, Phone] = {}
        self.pages: dict[str, object] = {}
        self.contexts: list = []

    def csrf(self, phone: Phone, path: str) -> str:
        status, _h, page = phone.request("GET", path)
        assert status == 200, (path, status)
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def hall_post(self, path: str, form: dict | None = None, status: int = 303) -> str:
        got, _h, body = self.laptop.request("POST", path, {"csrf_token": self.csrf(self.laptop, "/hall"), **(form or {})})
        assert got == status, (path, got, re.findall(r'class="field-error[^"]*"[^>]*>([^<]+)', body) or body[-500:])
        return body

    def export(self) -> dict:
        status, _h, body = self.laptop.request("GET", "/hall/export.json")
        assert status == 200
        return json.loads(body)

    def hall_text(self) -> str:
        status, _h, body = self.laptop.request("GET", "/hall")
        assert status == 200
        return body

    def join_http(self, name: str, n: int) -> None:
        phone = Phone(self.port, f"127.0.200.{n}")
        status, headers, _b = phone.request("POST", "/night/join", {"csrf_token": self.csrf(phone, "/night"),
                                                                      "name": name})
        assert status == 303 and headers["Location"].endswith("/night/me")
        self.http[name] = phone

    def join_chromium(self, name: str, locale: str) -> None:
        context = new_phone_context(self.browser, **dict(PHONE, locale=locale))
        self.contexts.append(context)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.goto(self.server("/night"))
        page.locator("#join-form #f-name").fill(name)
        page.locator("#join-form button[type=submit]").tap()
        page.wait_for_url(re.compile(r"/night/me$"))
        self.pages[name] = page

    def tables(self) -> list[dict]:
        """Every rolling table so far (a round of one table each): label, token, game, names."""
        return [{"label": t["label"], "token": t["token"], "game": t["game"], "names": [s["name"] for s in t["seats"]],
                 "number": r["number"]} for r in self.export()["rounds"] for t in r["tables"]]

    def phone_of(self, table: dict) -> Phone:
        return next(self.http[name] for name in table["names"] if name in self.http)

    def end_rwd(self, table: dict) -> None:
        """RWD to its end from a player's phone: seat 1 wins three deals (3 wins end the match)."""
        phone = self.phone_of(table)
        token = self.csrf(phone, f"/t/{table['token']}")
        n = len(table["names"])
        for number in (1, 2, 3):
            facts = rwd_win(n, 0)
            status, _h, body = phone.request("POST", f"/t/{table['token']}/deals",
                                             rwd_form(token, number, facts["chips"], facts["tricks"]))
            assert status == 303, body[-400:]

    def table_id(self, table: dict) -> int:
        """A playing table's id, from the hall's list of rolling tables (by its label)."""
        found = dict((label, int(i)) for i, label in
                     re.findall(r'id="rolling-table-(\d+)"><strong>([^<]+)</strong>', self.hall_text()))
        return found[table["label"]]

    def end_at_time(self, table: dict, facts: dict) -> None:
        """One deal saved (tests/table_writes.py, on the server's database); the organiser calls
        time for this one table, and a player's phone ends the match at time: the phone's write
        is what frees the table's players."""
        conn = connect(self.server.app.config["DATABASE"])
        try:
            table_writes.add_deal(conn, table["token"], 1, facts)
        finally:
            conn.close()
        self.hall_post(f"/hall/tables/{self.table_id(table)}/call-time")
        phone = self.phone_of(table)
        status, _h, body = phone.request("POST", f"/t/{table['token']}/end-at-time",
                                         {"csrf_token": self.csrf(phone, f"/t/{table['token']}")})
        assert status == 303, re.findall(r'role="alert"[^>]*>(.*?)</', body, re.S) or body[:3000]


def test_a_rolling_night_of_twelve(browser, live_server_factory, artifacts_dir):
    server = live_server_factory(threads=64)
    night = RollingNight(server, browser)
    screen_context = browser.new_context(**dict(LAPTOP, viewport={"width": 1920, "height": 1080}))
    screen_context.set_default_timeout(TIMEOUT_MS)
    screen = screen_context.new_page()
    try:
        play(night, screen, artifacts_dir)
    finally:
        for context in night.contexts:
            context.close()  # each phone's GET /hall must have been 403 (tests/browser/conftest.py)
        screen_context.close()


def play(night: RollingNight, screen, artifacts_dir) -> None:
    night.hall_post("/hall/room", {"room": "1-4"})
    for name, locale in CHROMIUM:
        night.join_chromium(name, locale)
    for n, name in enumerate(HTTP, start=10):
        night.join_http(name, n)
    ids = {line["name"]: line["id"] for line in night.export()["roster"]}
    room = dict(re.findall(r'<option value="(\d+)">(Table \d)</option>', night.hall_text()))
    keep = next(value for value, label in room.items() if label == "Table 4")
    night.hall_post("/hall/keep-table", {"player": str(ids[KEEPER]), "room_table": keep})
    screen.goto(night.server("/hall/screen"))
    # The room before anyone sits: the screen and the hall offer both ways of running the night.
    assert "Run tonight as rolling tables" in night.hall_text()
    closing = (datetime.now() + timedelta(hours=3)).strftime("%H:%M")
    night.hall_post("/hall/rolling", {"copies-rwd": "1", "copies-lucky_cube": "1", "copies-twin_shoot": "1",
                                      "minutes-rwd": "30", "minutes-lucky_cube": "45", "minutes-twin_shoot": "50",
                                      "closing": closing})

    # --- three tables at once, Fumi at table 4 ------------------------------------------------
    first = night.tables()
    assert sorted(t["game"] for t in first) == ["lucky_cube", "rwd", "twin_shoot"]
    assert sorted(len(t["names"]) for t in first) == [4, 4, 4]
    assert next(t for t in first if KEEPER in t["names"])["label"] == "Table 4"
    seated = [name for t in first for name in t["names"]]
    assert sorted(seated) == sorted([n for n, _l in CHROMIUM] + list(HTTP))
    # Each phone says where to go, in its language: "Table 2 is free: … → RWD" / 「テーブル2が空きました：…」.
    aiko = night.pages["Aiko"]
    mine = next(t for t in first if "Aiko" in t["names"])
    expect(aiko.locator(".me-free")).to_contain_text(f"{mine['label']} is free:")
    expect(aiko.locator(".me-free")).to_contain_text(", ".join(mine["names"]))
    kenji = night.pages["Kenji"]
    his = next(t for t in first if "Kenji" in t["names"])
    expect(kenji.locator(".me-free")).to_contain_text(f"テーブル{his['label'].removeprefix('Table ')}が空きました：")
    expect(kenji.locator(".me-free")).to_contain_text("、".join(his["names"]))
    expect(screen.locator(".screen-announce li")).to_have_count(3)
    screen.screenshot(path=str(artifacts_dir / "rolling-night-screen-start-1920.png"))

    # --- a request, tapped on a phone before its table finishes ------------------------------
    # RWD ends first, then Lucky Cube (Twin Shoot if no Chromium phone sits at RWD or Lucky Cube).
    at = {name: next(t for t in first if name in t["names"]) for name, _l in CHROMIUM}
    then = "lucky_cube" if any(t["game"] in ("rwd", "lucky_cube") for t in at.values()) else "twin_shoot"
    asker = next(name for name, _l in CHROMIUM if at[name]["game"] in ("rwd", then))
    wanted = then if at[asker]["game"] == "rwd" else "rwd"
    card = night.pages[asker].locator("#me-request")
    expect(card.locator(".me-request-now")).to_have_count(0)
    card.locator(f'button[name="want"][value="learn:{wanted}"]').tap()
    expect(card.locator(".me-request-now")).to_be_visible()
    card.screenshot(path=str(artifacts_dir / "rolling-night-phone-request.png"))
    assert re.search(rf"Requests for the next tables: .*{asker}: learn", night.hall_text())

    # --- the RWD table ends first: its four wait, as the same four would only meet again -------
    rwd = next(t for t in first if t["game"] == "rwd")
    night.end_rwd(rwd)
    assert len(night.tables()) == 3
    waiting = re.search(r'id="rolling-waiting">(.*?)</p>', night.hall_text(), re.S).group(1)
    assert all(name in waiting for name in rwd["names"])
    expect(screen.locator(".screen-waiting")).to_contain_text(rwd["names"][0])

    # --- Lucky Cube (or Twin Shoot) ends next: eight free, two mixed tables start at once ------------------
    next_ended = next(t for t in first if t["game"] == then)
    night.end_at_time(next_ended, dict(DEALS[then]))
    second = wait_until(lambda: (found := night.tables()) and len(found) == 5 and found, "two tables seated")[3:]
    assert sorted(t["game"] for t in second) == sorted([then, "rwd"])
    for table in second:  # each mixes the two finished tables' players
        assert len(set(table["names"]) & set(rwd["names"])) == 2 and len(set(table["names"]) & set(next_ended["names"])) == 2
    # The request is met: the asker's next table is the game they asked to learn, beside someone
    # who just played it; their card shows no request any more, and the hall lists none.
    met = next(t for t in second if asker in t["names"])
    teachers = rwd["names"] if wanted == "rwd" else next_ended["names"]
    assert met["game"] == wanted and set(met["names"]) & set(teachers) - {asker}
    expect(card.locator(".me-request-now")).to_have_count(0)
    assert "Requests for the next tables" not in night.hall_text()
    night.pages[asker].screenshot(path=str(artifacts_dir / "rolling-night-phone-request-met.png"), full_page=True)
    last = next(t for t in first if t["game"] not in ("rwd", then))
    busy = [name for t in second + [last] for name in t["names"]]
    assert len(busy) == len(set(busy)) == 12
    keeper = next((t for t in second if KEEPER in t["names"]), None)
    assert keeper is None or keeper["label"] == "Table 4"
    # One table's clock paused from the hall; the others run on.
    table_ids = dict(re.findall(r'id="rolling-table-(\d+)"><strong>([^<]+)</strong>', night.hall_text()))
    paused_id = next(i for i, label in table_ids.items() if label == second[0]["label"])
    night.hall_post(f"/hall/tables/{paused_id}/pause")
    expect(screen.locator(".screen-table-clock", has_text="Paused")).to_have_count(1)
    expect(screen.locator(".screen-playing .screen-table")).to_have_count(3)
    screen.screenshot(path=str(artifacts_dir / "rolling-night-screen-1920.png"))
    hall = screen.context.new_page()  # the laptop's hall, as the organiser sees it now
    hall.goto(night.server("/hall#rolling"))
    expect(hall.locator("#rolling .rolling-tables li")).to_have_count(3)
    hall.locator("#rolling").screenshot(path=str(artifacts_dir / "rolling-night-hall.png"))
    hall.close()
    kenji.goto(night.server("/night/me"))
    kenji.screenshot(path=str(artifacts_dir / "rolling-night-phone-ja-390.png"), full_page=True)

    # --- closing time: no new table after it; the tables playing finish -----------------------
    now = datetime.now().strftime("%H:%M")
    night.hall_post("/hall/rolling", {"copies-rwd": "1", "copies-lucky_cube": "1", "copies-twin_shoot": "1",
                                      "minutes-rwd": "30", "minutes-lucky_cube": "45", "minutes-twin_shoot": "50",
                                      "closing": now})
    night.end_at_time(last, dict(DEALS[last["game"]]))
    for table in second:
        if table["game"] == "rwd":
            night.end_rwd(table)
        else:
            night.end_at_time(table, dict(DEALS[table["game"]]))
    assert len(night.tables()) == 5  # nothing started after closing
    expect(screen.locator(".screen-sub")).to_contain_text("No new table starts tonight")
    expect(screen.locator(".screen-waiting bdi")).to_have_count(12)

    # --- the leaderboard: per match, then matches; each match once -----------------------------
    doc = night.export()
    lines = doc["leaderboard"]
    assert sum(line["tables"] for line in lines) == 5 * 4
    per_match = [(line["place_points"] / line["tables"], line["tables"]) for line in lines]
    assert per_match == sorted(per_match, key=lambda pair: (-pair[0], -pair[1]))
    expect(screen.locator(".screen-standings tbody tr")).to_have_count(12)
    screen.screenshot(path=str(artifacts_dir / "rolling-night-screen-end-1920.png"))
