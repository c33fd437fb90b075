"""Issue 44's "Must show" night, whole, against a real server: 16 players over three rounds of
RWD at the room's tables.

Three Chromium phones (en, ja, en; each from its own 127.0.0.x, and each refused the laptop's
/hall: checked as its context closes) and 13 HTTP phones (tests/helpers.Phone, each from its own
127.0.200.x) join from /night; the laptop (127.0.0.1) sets the room's tables ("1-6"), prints the
room's cards (each card's QR code decodes to the link printed under it) and has one player keep
table 5 for the night. Round 1 is drawn and drawn again before any deal (the same tables and
cards, a new seed); two players arrive late (unseated in round 1, seated by round 2's draw); one
player says on their phone they leave after this match and their table is ended at time from the
hall; a table still playing when round 2 is drawn is left playing, then finishes; in round 2 a
player leaves mid-match and a substitute takes the seat from the next deal, and at another table
the wrong person was seated: after two deals the right one takes the seat from the start; round
2's clock is paused, every table gets +5 min, and it resumes. In round 3 a Chromium phone opens
its table's printed card and lands on round 3's table there, and one phone saves a deal while
offline, stored when it is back. The kept player sits at table 5 in all three rounds, and every
table keeps its room label all night.

At the end every leaderboard line (the night's JSON) equals the player's own My night total
(/night/me/summary, each on their own phone) and the count this test makes from the deals it
entered: each match replayed by the rules engine (companion.games), place points by hand.

Screenshots in test-artifacts/ (room-night-*.png): the phones at 390 px (en and ja), the hall at
1280 px.
"""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from companion.games import GAMES, MatchSetup
from helpers import Phone, decode_qr, rwd_form
from tests.browser.pages import LAPTOP, PHONE, TIMEOUT_MS, put, save_shown, settled, wait_until
from .conftest import new_phone_context

pytestmark = pytest.mark.browser

CHROMIUM_PLAYERS = (("Aiko", "en-US"), ("Kenji", "ja-JP"), ("Mia", "en-US"))
EARLY = ("Ben", "Chiyo", "Dan", "Emi", "Fumi", "Goro", "Hana", "Ivo", "Jun", "Kai", "Lena")
LATE = ("Nao", "Oto")
KEEPER = "Fumi"  # keeps room table 5 for the night (mobility)
KEPT_LABEL = "Table 5"
ROOM_LABELS = [f"Table {n}" for n in range(1, 7)]


# --- the deals, and the count this test makes of them ------------------------------------------

def deal_facts(n: int, winner: int) -> dict:
    """A valid RWD deal at a table of ``n`` that seat ``winner`` wins alone: every other seat gives
    it 0, 1, 2, 1 … second-half tricks (so the others' points differ and nobody ties the winner)."""
    tricks_each = 52 // n
    chips = [tricks_each // n] * n
    chips[-1] += tricks_each - n * (tricks_each // n)
    tricks = list(chips)
    for k, seat in enumerate(s for s in range(n) if s != winner):
        give = (0, 1, 2, 1)[k]
        tricks[seat] -= give
        tricks[winner] += give
    return {"chips": chips, "tricks": tricks}


def place_points_by_hand(places: list[int]) -> list[Fraction]:
    """Per seat: (players below + ½ × others tied) / (players − 1)."""
    others = len(places) - 1
    return [Fraction(2 * sum(q > p for q in places) + sum(q == p for q in places) - 1, 2 * others)
            for p in places]


class Ledger:
    """What this test entered, per table: who holds each seat, the deals, ended at time or not."""

    def __init__(self):
        self.tables: dict[str, dict] = {}

    def table(self, token: str, names: list[str], options: dict) -> dict:
        return self.tables.setdefault(token, {"names": list(names), "deals": [], "at_time": False,
                                              "options": dict(options)})

    def expected(self) -> tuple[dict[str, Fraction], dict[str, int]]:
        """Each player's place points and finished tables, from the rules engine's ranking."""
        points: dict[str, Fraction] = {}
        tables: dict[str, int] = {}
        for entry in self.tables.values():
            setup = MatchSetup("rwd", tuple(entry["names"]), entry["options"])
            match = GAMES["rwd"].replay(setup, entry["deals"], at_time=entry["at_time"])
            assert match.over, entry
            places = [0] * len(entry["names"])
            for place, seat in match.ranking():
                places[seat] = place
            for name, share in zip(entry["names"], place_points_by_hand(places)):
                points[name] = points.get(name, Fraction(0)) + share
                tables[name] = tables.get(name, 0) + 1
        return points, tables


_GLYPHS = {"½": Fraction(1, 2), "⅓": Fraction(1, 3), "⅔": Fraction(2, 3), "¼": Fraction(1, 4),
           "¾": Fraction(3, 4), "⅙": Fraction(1, 6), "⅚": Fraction(5, 6), "⅕": Fraction(1, 5),
           "⅖": Fraction(2, 5), "⅗": Fraction(3, 5), "⅘": Fraction(4, 5), "⅛": Fraction(1, 8),
           "⅜": Fraction(3, 8), "⅝": Fraction(5, 8), "⅞": Fraction(7, 8)}
_SUP, _SUB = "⁰¹²³⁴⁵⁶⁷⁸⁹", "₀₁₂₃₄₅₆₇₈₉"


def read_fraction(text: str) -> Fraction:
    """"2⅚", "½", "4¹⁄₁₂", "3" as printed on My night, read back."""
    text = text.strip()
    found = re.fullmatch(r"(\d*)(.*)", text)
    whole, part = Fraction(int(found.group(1) or 0)), found.group(2)
    if not part:
        return whole
    if part in _GLYPHS:
        return whole + _GLYPHS[part]
    top, _, bottom = part.partition("\u2044")
    return whole + Fraction(int("".join(str(_SUP.index(c)) for c in top)),
                            int("".join(str(_SUB.index(c)) for c in bottom)))



# --- the night, as the laptop and the phones drive it ------------------------------------------

class Night:
    def __init__(self, server, browser, artifacts_dir):
        self.server, self.port = server, server.port
        self.browser, self.artifacts = browser, artifacts_dir
        self.laptop = Phone(self.port, "127.0.0.1")  # the organiser's own requests: the hall's forms
        self.http: dict[str, Phone] = {}  # name -> that player's phone (HTTP)
        self.pages: dict[str, object] = {}  # name -> that player's Chromium page
        self.contexts: list = []
        self.csrf: dict[int, str] = {}
        self.ledger = Ledger()
        self.saved_by: dict[str, list[str]] = {}  # Chromium player -> how each of its deals went ("online", "offline")

    # the laptop
    def hall_csrf(self) -> str:
        status, _h, page = self.laptop.request("GET", "/hall")
        assert status == 200, status
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def hall_post(self, path: str, form: dict | None = None, status: int = 303) -> tuple[dict, str]:
        got, headers, body = self.laptop.request("POST", path, {"csrf_token": self.hall_csrf(), **(form or {})})
        assert got == status, (path, form, got, re.findall(r'class="field-error[^"]*"[^>]*>([^<]+)', body) or body[-600:])
        return headers, body

    def hall_html(self) -> str:
        status, _h, page = self.laptop.request("GET", "/hall")
        assert status == 200
        return page

    def export(self) -> dict:
        status, _h, body = self.laptop.request("GET", "/hall/export.json")
        assert status == 200
        return json.loads(body)

    def table_doc(self, token: str) -> dict:
        status, _h, body = self.laptop.request("GET", f"/t/{token}/export.json")
        assert status == 200
        return json.loads(body)

    def table_ids(self) -> dict[str, int]:
        """Token -> table id, from the hall's board (each table's item and its Open link)."""
        found = {}
        for table_id, item in re.findall(r'id="hall-table-(\d+)">(.*?)</li>', self.hall_html(), re.S):
            token = re.search(r'href="/t/([A-Za-z0-9_-]+)', item).group(1)
            found[token] = int(table_id)
        return found

    # the players
    def join_http(self, name: str, source: str) -> None:
        phone = Phone(self.port, source)
        status, _h, page = phone.request("GET", "/night")
        assert status == 200
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        status, headers, body = phone.request("POST", "/night/join", {"csrf_token": token, "name": name})
        assert status == 303 and headers["Location"].endswith("/night/me"), (status, body[-300:])
        self.http[name] = phone

    def join_chromium(self, name: str, locale: str):
        context = new_phone_context(self.browser, **dict(PHONE, locale=locale))
        self.contexts.append(context)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error, page=page: page.errors.append(str(error)))
        page.goto(self.server("/night"))
        page.locator("#join-form #f-name").fill(name)
        page.locator("#join-form button[type=submit]").tap()
        page.wait_for_url(re.compile(r"/night/me$"))
        expect(page.locator(".me-name")).to_have_text(name)
        self.pages[name] = page
        return page

    def away(self, name: str, away: str) -> None:
        phone = self.http[name]
        status, _h, page = phone.request("GET", "/night/me")
        assert status == 200
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        status, headers, _b = phone.request("POST", "/night/me/away", {"csrf_token": token, "away": away})
        assert status == 303 and headers["Location"].endswith("/night/me#me-away")

    # a round and its tables
    def draw(self, tables: int, unfinished: str | None = None, status: int = 303) -> str:
        form = {"draw": "1", "tables-rwd": str(tables), "format-rwd-length": "3", "by": "mix", "minutes": "30"}
        if unfinished:
            form["unfinished"] = unfinished
        return self.hall_post("/hall/rounds", form, status)[1]

    def seating(self, number: int) -> list[dict]:
        """Round ``number``'s tables from the night's JSON: label, token, players in seat order."""
        doc = self.export()
        (found,) = [r for r in doc["rounds"] if r["number"] == number]
        return [{"label": t["label"], "token": t["token"], "names": [s["name"] for s in t["seats"]]}
                for t in found["tables"]]

    def start(self, table: dict) -> dict:
        options = self.table_doc(table["token"])["options"]
        return self.ledger.table(table["token"], table["names"], options)

    def play(self, table: dict, winners: list[int], by_chromium: tuple[str, ...] = (),
             offline: str | None = None) -> None:
        """The next deals at ``table``, won in turn by ``winners`` (seats): the first ones saved by
        the Chromium pages of ``by_chromium`` (``offline``'s with its phone offline), the rest by
        an HTTP player of the table, each through the table's form."""
        entry = self.ledger.tables[table["token"]]
        n = len(entry["names"])
        for k, winner in enumerate(winners):
            number = len(entry["deals"]) + 1
            facts = deal_facts(n, winner)
            if k < len(by_chromium):
                page = self.pages[by_chromium[k]]
                if by_chromium[k] == offline:
                    self.save_offline(page, table["token"], number, facts)
                else:
                    self.save_on_page(page, table["token"], number, facts)
                self.saved_by.setdefault(by_chromium[k], []).append("offline" if by_chromium[k] == offline else "online")
            else:
                scorer = next(self.http[name] for name in entry["names"] if name in self.http)
                if id(scorer) not in self.csrf:
                    self.csrf[id(scorer)] = scorer.csrf(f"/t/{table['token']}")
                status, _h, body = scorer.request("POST", f"/t/{table['token']}/deals",
                                                  rwd_form(self.csrf[id(scorer)], number, facts["chips"],
                                                           facts["tricks"]))
                assert status == 303, body[-400:]
            entry["deals"].append(facts)
        assert len(self.table_doc(table["token"])["deals"]) == len(entry["deals"])

    def open_my_table(self, name: str, token: str) -> None:
        """The player's Chromium phone opens its table from My night ("Open my table")."""
        page = self.pages[name]
        if not page.url.endswith("/night/me"):
            page.goto(self.server("/night/me"))
        expect(page.locator("#open-my-table")).to_have_attribute("href", f"/t/{token}")
        page.locator("#open-my-table").tap()
        page.wait_for_url(re.compile(rf"/t/{token}$"))
        settled(page)

    def type_deal(self, page, token: str, number: int, facts: dict) -> None:
        if not page.url.endswith(f"/t/{token}"):
            page.goto(self.server(f"/t/{token}"))
            settled(page)
        expect(page.locator("#entry input[name=number]")).to_have_value(str(number))
        for i, (chips, tricks) in enumerate(zip(facts["chips"], facts["tricks"])):
            put(page, f"chips-{i}", chips)
            put(page, f"tricks-{i}", tricks)

    def save_on_page(self, page, token: str, number: int, facts: dict) -> None:
        self.type_deal(page, token, number, facts)
        save_shown(page)
        expect(page.locator(f"#deal-{number}")).to_be_visible()

    def save_offline(self, page, token: str, number: int, facts: dict) -> None:
        """The phone is offline when its player taps Save: the deal waits in its outbox, shown,
        and goes through by itself once the phone is back (stored once)."""
        page.context.set_offline(True)
        self.type_deal(page, token, number, facts)
        page.locator("#entry button[type=submit]").tap()
        expect(page.locator(f"#outbox .outbox-item[data-kind=deal][data-number='{number}']")).to_be_visible()
        expect(page.locator("#reach-bar")).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        self.shot(page, "phone-table-offline-390", full=False)
        assert len(self.table_doc(token)["deals"]) == number - 1  # not sent: the phone is offline
        page.context.set_offline(False)
        wait_until(lambda: len(self.table_doc(token)["deals"]) == number, f"deal {number} stored once back online",
                   within=15.0)
        expect(page.locator(f"#deal-{number}")).to_be_visible()
        expect(page.locator("#outbox .outbox-item")).to_have_count(0)

    def summary_total(self, name: str) -> Fraction:
        """The total of the player's My night, read on their own phone."""
        if name in self.pages:
            page = self.pages[name]
            page.goto(self.server("/night/me/summary"))
            return read_fraction(page.locator("#summary .how.total .pp").inner_text())
        status, _h, body = self.http[name].request("GET", "/night/me/summary")
        assert status == 200, (name, status)
        return read_fraction(re.search(r'<td class="how total"><strong class="pp">([^<]+)</strong>', body).group(1))

    def shot(self, page, name: str, full: bool = True) -> None:
        page.screenshot(path=str(self.artifacts / f"room-night-{name}.png"), full_page=full)


def where_is(tables: list[dict], name: str) -> dict | None:
    return next((t for t in tables if name in t["names"]), None)


def test_a_night_of_sixteen_at_the_rooms_tables(browser, live_server_factory, artifacts_dir, monkeypatch):
    from companion.night import service as night_service

    seeds = iter(f"night16-{n}" for n in range(1, 100))

    class FixedSeeds:  # the hall's draw form takes no seed: each draw's (and redraw's) is fixed here, in turn
        @staticmethod
        def token_hex(_n: int) -> str:
            return next(seeds)

    monkeypatch.setattr(night_service, "secrets", FixedSeeds)
    # waitress holds a thread per open event stream (three phones and the laptop hold several)
    server = live_server_factory(threads=64)
    night = Night(server, browser, artifacts_dir)
    laptop_context = browser.new_context(**LAPTOP)
    laptop_context.set_default_timeout(TIMEOUT_MS)
    hall = laptop_context.new_page()
    try:
        play_the_night(night, hall)
    finally:
        for context in night.contexts:
            context.close()  # each phone's GET /hall must have been 403 (tests/browser/conftest.py)
        laptop_context.close()


def play_the_night(night: Night, hall) -> None:
    server = night.server
    # --- before round 1: the room's tables, their cards, the players, one kept table ---------
    night.hall_post("/hall/room", {"room": "1-6"})
    for name, locale in CHROMIUM_PLAYERS:
        night.join_chromium(name, locale)
    for k, name in enumerate(EARLY):
        night.join_http(name, f"127.0.200.{k + 2}")
    ids = {p["name"]: p["id"] for p in night.export()["roster"]}
    assert len(ids) == 14

    hall.goto(server("/hall/cards"))
    cards = hall.locator(".table-card")
    assert cards.count() == 6
    room_ids, card_paths = {}, {}
    for i in range(6):
        card = cards.nth(i)
        label, link = card.locator(".tc-label").inner_text(), card.locator(".tc-url").inner_text()
        assert decode_qr(card.locator(".tc-qr").screenshot()) == [link]  # the code is the printed link
        path = urlsplit(link).path
        room_ids[label] = int(re.fullmatch(r"/room/(\d+)", path).group(1))
        card_paths[label] = path
    assert list(room_ids) == ROOM_LABELS
    night.shot(hall, "cards-1280")
    night.hall_post("/hall/keep-table", {"player": str(ids[KEEPER]), "room_table": str(room_ids[KEPT_LABEL])})

    # --- round 1: drawn, drawn again before any deal -----------------------------------------
    night.draw(4)
    first = night.seating(1)
    night.hall_post("/hall/redraw")
    doc = night.export()
    redrawn = night.seating(1)
    assert [(t["label"], t["token"]) for t in redrawn] == [(t["label"], t["token"]) for t in first]  # same tables, cards
    assert [t["names"] for t in redrawn] != [t["names"] for t in first]  # new seats (seeds fixed above)
    assert len(doc["rounds"]) == 1
    assert sorted(n for t in redrawn for n in t["names"]) == sorted(ids)
    assert {t["label"] for t in redrawn} <= set(ROOM_LABELS)
    assert where_is(redrawn, KEEPER)["label"] == KEPT_LABEL
    labels = {t["token"]: t["label"] for t in redrawn}  # every table's room label, kept all night

    # Two players arrive late: not seated in round 1, named on the hall.
    for k, name in enumerate(LATE):
        night.join_http(name, f"127.0.201.{k + 2}")
    assert "Without a seat this round: Nao, Oto." in re.sub(r"\s+", " ", night.hall_html())

    night.hall_post("/hall/clock/start")

    # Each Chromium phone sees its table on My night (no reload: pushed) and opens it.
    for name, locale in CHROMIUM_PLAYERS:
        page = night.pages[name]
        table = where_is(redrawn, name)
        link = page.locator("#open-my-table")
        expect(link).to_have_attribute("href", f"/t/{table['token']}")
        if locale.startswith("en"):
            expect(page.locator(".me-where")).to_contain_text(
                f"{table['label']} · RWD (Rewind) · seat {table['names'].index(name) + 1}")
        else:
            expect(page.locator(".me-round")).to_have_text("第1ラウンド")
            expect(page.locator(".me-where")).to_contain_text(
                f"テーブル{table['label'].removeprefix('Table ')} · RWD(リワインド) · {table['names'].index(name) + 1}番席")
        night.shot(page, f"phone-me-390-{name.lower()}-{locale[:2]}")

    # Round 1's tables: the kept player's finishes by the rules, a leaver's is ended at time, one
    # runs long into round 2, the rest finish by the rules.
    keeper_table = where_is(redrawn, KEEPER)
    others = [t for t in redrawn if t is not keeper_table]
    long_table = next((t for t in others if len(t["names"]) == 4), others[0])
    rest = [t for t in others if t is not long_table]
    at_time_table = next(t for t in rest if any(n in EARLY and n != KEEPER for n in t["names"]))
    leaver = next(n for n in at_time_table["names"] if n in EARLY and n != KEEPER)
    for table in redrawn:
        night.start(table)

    def chromium_at(table: dict) -> tuple[str, ...]:
        """The Chromium players of ``table``, each having opened it from My night: they save its
        first deals on their phones."""
        names = tuple(n for n in table["names"] if n in night.pages)
        for name in names:
            night.open_my_table(name, table["token"])
        return names

    night.play(long_table, [0], by_chromium=chromium_at(long_table)[:1])
    night.away(leaver, "leaving")  # said on their phone: they leave after this match
    night.play(at_time_table, [0, 1], by_chromium=chromium_at(at_time_table))
    for table in [t for t in redrawn if t not in (long_table, at_time_table)]:
        night.play(table, [1, 2, 1, 1], by_chromium=chromium_at(table))
    ids_of = night.table_ids()
    at_time_id = ids_of[at_time_table["token"]]
    night.hall_post(f"/hall/tables/{at_time_id}/call-time")
    night.hall_post(f"/hall/tables/{at_time_id}/end-at-time")
    night.ledger.tables[at_time_table["token"]]["at_time"] = True
    assert night.table_doc(at_time_table["token"])["ended_at_time"] is True

    # The leaver's night to keep, read on their phone while they are still on tonight's list. The
    # next draw takes them off it, and from then on their phone no longer opens My night
    # (/night/me/summary answers 303 to /night, though the leaderboard keeps their line): a
    # product bug written down with this test's commit, not asserted either way here.
    kept_summaries = {leaver: night.summary_total(leaver)}

    # --- round 2: a table still playing is left playing ----------------------------------------
    refused = night.draw(3, status=422)
    room_number = long_table["label"].removeprefix("Table ")  # named by its room label: "table 3"
    assert f"Still playing: Table {room_number}. Choose below" in re.sub(r"\s+", " ", refused)
    night.draw(3, unfinished="leave")
    doc = night.export()
    second = night.seating(2)
    seated2 = {n for t in second for n in t["names"]}
    assert leaver not in seated2 and [p["left"] for p in doc["roster"] if p["name"] == leaver] == [True]
    assert not seated2 & set(long_table["names"])  # they sit this draw out
    assert set(LATE) <= seated2  # the late arrivals sit in round 2's draw
    assert where_is(second, KEEPER)["label"] == KEPT_LABEL
    assert long_table["label"] not in {t["label"] for t in second}  # its room table is busy
    assert {t["label"] for t in second} <= set(ROOM_LABELS)
    labels.update({t["token"]: t["label"] for t in second})
    for table in second:
        night.start(table)

    # The clock: started, paused, +5 min for every table (the one left playing too), resumed.
    night.hall_post("/hall/clock/start")
    night.hall_post("/hall/clock/pause", {"action": "pause"})
    assert "Round 2 is paused at" in night.hall_html()
    night.hall_post("/hall/clock/more")
    night.hall_post("/hall/clock/pause", {"action": "resume"})
    assert "Round 2 ends in" in night.hall_html()
    (round2,) = [r for r in night.export()["rounds"] if r["number"] == 2]
    assert [t["extra_minutes"] for t in round2["tables"]] == [5] * len(second)
    (round1,) = [r for r in night.export()["rounds"] if r["number"] == 1]
    assert [t["extra_minutes"] for t in round1["tables"] if t["token"] == long_table["token"]] == [5]  # left playing

    # A phone of round 2 reads the paused clock; the hall at 1280 px, paused.
    for name, locale in CHROMIUM_PLAYERS:
        if where_is(second, name) and locale.startswith("en"):
            page = night.pages[name]
            page.goto(server("/night/me"))
            expect(page.locator(".me-clock")).to_contain_text("Round 2 ends in")
            break
    night.hall_post("/hall/clock/pause", {"action": "pause"})
    if where_is(second, name) and locale.startswith("en"):
        expect(page.locator(".me-clock")).to_contain_text("Round 2 is paused at")
        night.shot(page, "phone-me-paused-390-en")
    hall.goto(server("/hall"))
    expect(hall.locator(".hall-clock-line")).to_contain_text("Round 2 is paused at")
    night.shot(hall, "hall-round2-paused-1280", full=False)
    night.hall_post("/hall/clock/pause", {"action": "resume"})

    # The table left playing finishes in round 2 (seat 1 takes its 3rd deal win): its players are free.
    night.play(long_table, [0, 0])
    assert night.table_doc(long_table["token"])["over"] is True
    free = [n for n in long_table["names"] if n in night.http]
    assert len(free) >= 2, long_table  # the fixed seeds seat two HTTP players there
    substitute, right_one = free[0], free[1]

    # Someone leaves mid-match: after deal 1 a substitute takes the seat, from the next deal.
    ids = {p["name"]: p["id"] for p in night.export()["roster"]}
    table_ids = night.table_ids()
    sub_table = next(t for t in second if any(n in EARLY and n != KEEPER for n in t["names"]))
    goner = next(n for n in sub_table["names"] if n in EARLY and n != KEEPER)
    reseat_table = next(t for t in second if t is not sub_table and any(
        n in night.http and n != KEEPER for n in t["names"]))
    wrong_one = next(n for n in reseat_table["names"] if n in night.http and n != KEEPER)
    third = next(t for t in second if t not in (sub_table, reseat_table))

    night.play(sub_table, [0], by_chromium=chromium_at(sub_table)[:1])
    night.away(goner, "leaving")
    seat = sub_table["names"].index(goner)
    night.hall_post("/hall/seat-change", {"seat": f"{table_ids[sub_table['token']]}:{seat}",
                                          "player": str(ids[substitute]), "when": "now"})
    night.ledger.tables[sub_table["token"]]["names"][seat] = substitute
    night.play(sub_table, [1, 1, 1])

    # The wrong person was seated: after two deals the right one takes the seat from the start.
    night.play(reseat_table, [2, 2], by_chromium=chromium_at(reseat_table))
    seat = reseat_table["names"].index(wrong_one)
    night.hall_post("/hall/seat-change", {"seat": f"{table_ids[reseat_table['token']]}:{seat}",
                                          "player": str(ids[right_one]), "when": "start"})
    night.ledger.tables[reseat_table["token"]]["names"][seat] = right_one
    night.play(reseat_table, [0, 0, 0])

    night.play(third, [1, 2, 1, 1], by_chromium=chromium_at(third))
    hall.goto(server("/hall"))
    expect(hall.locator(".hall-round-over")).to_contain_text("Round 2 is over")

    status, _h, body = night.http[goner].request("GET", "/night/me/summary")
    assert f"you left after deal 1; {substitute} took your seat." in re.sub(r"\s+", " ", body)
    kept_summaries[goner] = night.summary_total(goner)  # before the next draw takes them off the list

    # --- round 3: everyone still on the list; a printed card leads to round 3's table --------
    night.draw(4)
    doc = night.export()
    assert {p["name"] for p in doc["roster"] if p["left"]} == {leaver, goner}
    third_round = night.seating(3)
    assert sorted(n for t in third_round for n in t["names"]) == sorted(
        n for n in ids if n not in (leaver, goner))
    assert where_is(third_round, KEEPER)["label"] == KEPT_LABEL
    assert {t["label"] for t in third_round} <= set(ROOM_LABELS)
    labels.update({t["token"]: t["label"] for t in third_round})
    for table in third_round:
        night.start(table)
    night.hall_post("/hall/clock/start")

    scanner = CHROMIUM_PLAYERS[0][0]
    mine = where_is(third_round, scanner)
    page = night.pages[scanner]
    page.goto(server(card_paths[mine["label"]]))  # the card on the table, printed before round 1
    page.wait_for_url(re.compile(rf"/t/{mine['token']}$"))
    settled(page)
    expect(page.locator("#round-clock")).to_contain_text(f"{mine['label']} · Round 3")
    night.shot(page, "phone-table-from-card-390-en")

    offline = CHROMIUM_PLAYERS[2][0]
    for table in third_round:
        names = tuple(n for n in table["names"] if n in night.pages)
        for name in names:
            if name != scanner:
                night.open_my_table(name, table["token"])
        night.play(table, [0, 1, 0, 0] if table is mine else [2, 2, 2], by_chromium=names, offline=offline)
        for name in names:
            if name in ("Kenji",):
                night.shot(night.pages[name], "phone-table-390-ja")

    # --- the night's end: every table kept its room label, and every line adds up -------------
    doc = night.export()
    assert {t["token"]: t["label"] for r in doc["rounds"] for t in r["tables"]} == labels
    # Where tables of several rounds are listed, each is named with its round ("R2 · Table 1").
    round_of = {t["token"]: r["number"] for r in doc["rounds"] for t in r["tables"]}
    assert {t["token"]: t["label"] for t in doc["tables"]} == {
        token: f"R{round_of[token]} · {label}" for token, label in labels.items()}
    assert all(t["over"] for t in doc["tables"])
    kept = [t["label"] for r in doc["rounds"] for t in r["tables"]
            if KEEPER in [s["name"] for s in t["seats"]]]
    assert kept == [KEPT_LABEL] * 3

    # The night's CSV says who held each changed seat at each deal.
    status, _h, body = night.laptop.request("GET", "/hall/export.csv")
    assert status == 200
    rows = list(csv.DictReader(io.StringIO(body.removeprefix("\ufeff"))))

    def players_at(table: dict) -> list[set[str]]:
        found = [r for r in rows if r["round"] == "2" and r["table"] == f"R2 · {table['label']}"]
        return [{r["player"] for r in found if r["deal"] == str(n)} for n in range(1, 10) if
                any(r["deal"] == str(n) for r in found)]

    held = players_at(sub_table)
    assert goner in held[0] and substitute not in held[0]
    assert all(substitute in deal and goner not in deal for deal in held[1:]) and len(held) == 4
    held = players_at(reseat_table)
    assert all(right_one in deal and wrong_one not in deal for deal in held) and len(held) == 5

    points, tables = night.ledger.expected()
    board = {line["name"]: line for line in doc["leaderboard"]}
    for name, line in board.items():
        assert Fraction(line["place_points_exact"]) == points[name], name
        assert line["tables"] == tables[name], name
        mine = kept_summaries[name] if name in kept_summaries else night.summary_total(name)
        assert mine == points[name], name
    assert set(board) == set(points)

    for name, locale in CHROMIUM_PLAYERS:
        page = night.pages[name]
        page.goto(server("/night/me/summary"))
        if locale.startswith("en"):  # each match named by its room table, as on the hall
            expect(page.locator("#summary")).to_contain_text(f"Round 1 · {where_is(redrawn, name)['label']}")
            expect(page.locator("#summary")).to_contain_text(f"Round 3 · {where_is(third_round, name)['label']}")
        night.shot(page, f"phone-summary-390-{name.lower()}-{locale[:2]}")
        page.goto(server("/night/me"))
        night.shot(page, f"phone-me-end-390-{name.lower()}-{locale[:2]}")
    hall.goto(server("/hall"))
    assert hall.evaluate("document.documentElement.scrollWidth") <= 1280
    night.shot(hall, "hall-end-1280", full=False)
    night.shot(hall, "hall-end-1280-full")
    for name in night.pages:
        assert night.pages[name].errors == [], name
    assert set(night.saved_by) == set(night.pages)  # every Chromium phone saved deals on its table page
    assert sum(ways.count("offline") for ways in night.saved_by.values()) == 1
