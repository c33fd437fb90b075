"""Two sides agree (issue 45) in Chromium, against a real server: a deal a phone saves at one of
the night's tables waits for a phone of another seat, and outside the table the match counts
only once it is confirmed.

One RWD table drawn on the hall for four players: three Chromium phones (en, ja, en; each from its
own 127.0.0.x, each refused the laptop's /hall as its context closes) and an HTTP phone
(tests/helpers.Phone) for the fourth; the laptop (127.0.0.1) draws, watches the hall and settles.

- a save on A shows on B under "to confirm" by push; A's own item says it saved it; the hall
  counts the match only once B confirms; "Confirm all N"; the Japanese phone's words;
- "That's not right" from C: the hall's disputes, the round held, the organiser's choice;
- a correction of a confirmed deal waits again; a confirm tapped offline goes through once;
- a table with one phone (the laptop confirms), a table typed in on the laptop (nothing waits);
- a side table whose phone asks for confirmation before its first deal.

Screenshots in test-artifacts/ (confirm-*.png): B's box at 390 px (en), the Japanese phone at
390 px, the hall's disputes at 1280 px.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from companion.store import connect
from companion.tables import service as tables
from helpers import Phone
from tests.browser.pages import ANSWER_SHOWN, LAPTOP, PHONE, TIMEOUT_MS, next_document, open_table, put, save_shown, settled, wait_until
from .conftest import new_phone_context

pytestmark = [pytest.mark.browser, pytest.mark.confirming]

PHONES = (("Aiko", "en-US"), ("Kenji", "ja-JP"), ("Mia", "en-US"))  # A, B (ja: C below), C
A, C_JA, B = "Aiko", "Kenji", "Mia"  # B confirms in English; the Japanese phone is C, who disputes
FOURTH = "Dan"


def facts(winner: int) -> dict:
    """A four-player RWD deal that seat ``winner`` wins (three such wins end the match)."""
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return {"chips": [3, 3, 3, 4], "tricks": tricks}



def touches(page) -> bool:
    return page.evaluate("matchMedia('(pointer: coarse)').matches || 'ontouchstart' in window")


def enter(page, name: str, value) -> None:
    """One deal field: ``put`` on a phone (a tap); on the laptop the same with a click."""
    if touches(page):
        put(page, name, value)
    elif page.locator(f'#entry input[type=radio][name="{name}"][value="{value}"]').count():
        page.locator(f'#entry label:has(> input[type=radio][name="{name}"][value="{value}"])').first.click()
    else:
        page.locator(f'#entry [name="{name}"]').fill(str(value))


class Night:
    """The laptop (HTTP for the hall's forms, a Chromium page to look at), the phones, one table."""

    def __init__(self, server, browser, artifacts):
        self.server, self.browser, self.artifacts = server, browser, artifacts
        self.laptop = Phone(server.port, "127.0.0.1")
        self.pages: dict[str, object] = {}
        self.contexts: list = []
        self.hall_context = None
        self.token = ""
        self.seats: list[str] = []

    # --- the laptop ------------------------------------------------------------------------
    def hall_post(self, path: str, form: dict, status: int = 303) -> str:
        got, _h, page = self.laptop.request("GET", "/hall")
        assert got == 200
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        got, _h, body = self.laptop.request("POST", path, {"csrf_token": csrf, **form})
        assert got == status, (path, got, body[-600:])
        return body

    def draw(self, status: int = 303) -> str:
        return self.hall_post("/hall/rounds", {"draw": "1", "tables-rwd": "1", "by": "mix"}, status)

    def export(self) -> dict:
        got, _h, body = self.laptop.request("GET", "/hall/export.json")
        assert got == 200
        return json.loads(body)

    def board(self) -> dict[str, str]:
        return {line["name"]: line["place_points_exact"] for line in self.export()["leaderboard"]}

    def seat_round(self, number: int) -> None:
        (found,) = [r for r in self.export()["rounds"] if r["number"] == number]
        (table,) = found["tables"]
        self.token, self.seats = table["token"], [s["name"] for s in table["seats"]]

    def hall_page(self):
        """The laptop's own Chromium (127.0.0.1), 1280 px."""
        if self.hall_context is None:
            self.hall_context = self.browser.new_context(**LAPTOP)
            self.hall_context.set_default_timeout(TIMEOUT_MS)
            page = self.hall_context.new_page()
            page.errors = []
            page.on("pageerror", lambda error: page.errors.append(str(error)))
        return self.hall_context.pages[0]

    def to_confirm(self, token: str | None = None) -> list[str]:
        conn = connect(self.server.app.config["DATABASE"])
        try:
            return [item.key for item in tables.load(conn, token or self.token).to_confirm()]
        finally:
            conn.close()

    def log(self, token: str | None = None) -> list[str]:
        conn = connect(self.server.app.config["DATABASE"])
        try:
            table = tables.load(conn, token or self.token)
            return [change["action"] for change in tables.changes(conn, table.id)]
        finally:
            conn.close()

    # --- the phones --------------------------------------------------------------------------
    def phone(self, name: str, locale: str = "en-US"):
        context = new_phone_context(self.browser, **dict(PHONE, locale=locale))
        self.contexts.append(context)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        self.pages[name] = page
        return page

    def join(self, name: str, locale: str = "en-US"):
        page = self.phone(name, locale)
        page.goto(self.server("/night"))
        page.locator("#join-form #f-name").fill(name)
        page.locator("#join-form button[type=submit]").tap()
        page.wait_for_url(re.compile(r"/night/me$"))
        expect(page.locator(".me-name")).to_have_text(name)
        return page

    def join_http(self, name: str, source: str) -> None:
        phone = Phone(self.server.port, source)
        got, _h, page = phone.request("GET", "/night")
        assert got == 200
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        got, headers, _b = phone.request("POST", "/night/join", {"csrf_token": csrf, "name": name})
        assert got == 303 and headers["Location"].endswith("/night/me")

    def open(self, page, token: str | None = None) -> None:
        page.goto(self.server(f"/t/{token or self.token}"))
        settled(page)

    def save(self, page, number: int, winner: int) -> None:
        """The deal typed on ``page``'s table form and saved (tapped on a phone, clicked on the laptop)."""
        expect(page.locator("#entry input[name=number]")).to_have_value(str(number))
        deal = facts(winner)
        for seat, (chips, tricks) in enumerate(zip(deal["chips"], deal["tricks"])):
            enter(page, f"chips-{seat}", chips)
            enter(page, f"tricks-{seat}", tricks)
        if touches(page):
            save_shown(page)
        else:
            wrap = page.locator("#entry-wrap").element_handle()
            with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as info:
                page.locator("#entry button[type=submit]").click()
            assert info.value.status == 200
            page.wait_for_function(ANSWER_SHOWN, arg=wrap)
        expect(page.locator(f"#deal-{number}")).to_be_visible()

    def close(self) -> None:
        for context in self.contexts:
            context.close()  # each phone's GET /hall must have been 403 (tests/browser/conftest.py)
        if self.hall_context is not None:
            self.hall_context.close()

    def shot(self, page, name: str, full: bool = True) -> None:
        page.screenshot(path=str(self.artifacts / f"confirm-{name}.png"), full_page=full)


@pytest.fixture
def night(live_server, browser, artifacts_dir):
    found = Night(live_server, browser, artifacts_dir)
    try:
        yield found
    finally:
        found.close()


def three_phones_at_one_table(night: Night) -> None:
    """A, the Japanese phone and B join from /night, the HTTP phone of the fourth player too; the
    laptop draws round 1 (one table of four) and the three Chromium phones open it."""
    for name, locale in PHONES:
        night.join(name, locale)
    night.join_http(FOURTH, "127.0.200.2")
    night.draw()
    night.seat_round(1)
    assert sorted(night.seats) == sorted([A, B, C_JA, FOURTH])
    for name in (A, B, C_JA):
        night.open(night.pages[name])


def into_view(locator) -> None:
    """Scrolled to the top of the screen, below the sticky top bar."""
    locator.evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 64)")


def box(page):
    return page.locator("#confirm-box")


def deal_item(page, label: str):
    """The item of the confirm box whose heading is ``label`` ("Deal 1", 「第1ディール」)."""
    return page.locator("#confirm-box li").filter(has=page.locator("strong", has_text=label))


def confirm_button(page, label: str, word: str = "Confirm"):
    return deal_item(page, label).get_by_role("button", name=word, exact=True)


# --- 1 and 2: a save waits for another seat; Confirm, Confirm all N ------------------------------

def test_a_save_waits_for_another_seat_and_counts_once_confirmed(night):
    three_phones_at_one_table(night)
    a, b, c = night.pages[A], night.pages[B], night.pages[C_JA]
    hall = night.hall_page()
    hall.goto(night.server("/hall"))
    for page in (b, c, hall):
        page.evaluate("window.__same_page = true")  # what follows comes by push, not a reload

    night.save(a, 1, winner=0)
    # B: the deal waits, shown by push, with Confirm and "That's not right".
    expect(box(b).locator("h2")).to_have_text("1 change to confirm")
    expect(confirm_button(b, "Deal 1")).to_be_visible()
    expect(deal_item(b, "Deal 1").get_by_role("link", name="That's not right")).to_be_visible()
    expect(deal_item(b, "Deal 1").locator(".mine-note")).to_be_hidden()
    # A: its own save says so; no Confirm to tap.
    expect(deal_item(a, "Deal 1").locator(".mine-note")).to_have_text(
        "Saved from this phone: a phone of another seat confirms it.")
    expect(deal_item(a, "Deal 1").get_by_role("button", name="Confirm", exact=True)).to_be_hidden()
    expect(deal_item(a, "Deal 1").get_by_role("link", name="That's not right")).to_be_hidden()
    # The Japanese phone, in its own words.
    expect(box(c).locator("h2")).to_have_text("確認待ち1件")
    expect(confirm_button(c, "第1ディール", "確認する")).to_be_visible()
    expect(deal_item(c, "第1ディール").get_by_role("link", name="内容が違う")).to_be_visible()

    night.save(a, 2, winner=0)
    expect(box(b).locator("h2")).to_have_text("2 changes to confirm")
    expect(box(b).get_by_role("button", name="Confirm all 2")).to_be_visible()
    expect(box(c).get_by_role("button", name="2件をすべて確認する")).to_be_visible()
    assert night.to_confirm() == ["deal-1", "deal-2"]
    for page in (b, c):
        assert page.evaluate("window.__same_page") is True
    into_view(box(b))
    night.shot(b, "phone-b-box-390-en", full=False)
    night.shot(b, "phone-b-390-en-full")
    into_view(box(c))
    night.shot(c, "phone-c-box-390-ja", full=False)
    for page, width in ((b, 390), (c, 390), (a, 390)):
        assert page.evaluate("document.documentElement.scrollWidth") <= width

    # 2. "Confirm all 2" on B: nothing waits; A's box goes by push.
    with next_document(b):
        box(b).get_by_role("button", name="Confirm all 2").tap()
    expect(box(b)).to_be_hidden()
    expect(box(a)).to_be_hidden()
    assert night.to_confirm() == []

    # 1. The deal that ends the match: over at the table, not counted outside it until B confirms.
    night.save(a, 3, winner=0)
    expect(box(b).locator("h2")).to_have_text("1 change to confirm")
    assert night.to_confirm() == ["deal-3"]
    assert night.board() == {}
    expect(hall.locator("#leaderboard")).to_contain_text("No finished tables yet")
    expect(hall.locator(".hall-to-confirm")).to_contain_text("1 change to confirm")
    with next_document(b):
        confirm_button(b, "Deal 3").tap()
    expect(box(b)).to_be_hidden()
    wait_until(lambda: len(night.board()) == 4, "the leaderboard counts the confirmed match")
    expect(hall.locator("#leaderboard tbody tr")).to_have_count(4)  # by push
    assert hall.evaluate("window.__same_page") is True
    assert night.log().count("confirm") == 2
    for page in (a, b, c, hall):
        assert page.errors == []


# --- 3: "That's not right" ------------------------------------------------------------------------

def test_a_dispute_goes_to_the_hall_holds_the_round_and_is_settled(night):
    three_phones_at_one_table(night)
    a, b, c = night.pages[A], night.pages[B], night.pages[C_JA]
    hall = night.hall_page()
    hall.goto(night.server("/hall"))
    hall.evaluate("window.__same_page = true")
    for number in (1, 2, 3):  # seat 1 wins three: over, as saved
        night.save(a, number, winner=0)
    expect(box(c).locator("h2")).to_have_text("確認待ち3件")

    # C (ja) says seat 2 won deal 3.
    deal_item(c, "第3ディール").get_by_role("link", name="内容が違う").tap()
    c.wait_for_url(re.compile(rf"/t/{night.token}/deals/3/dispute$"))
    expect(c.locator("h1")).to_have_text("第3ディール：あなたが見た内容")
    expect(c.get_by_role("button", name="両方を主催者に送る")).to_be_visible()
    theirs = facts(1)
    for seat, tricks in enumerate(theirs["tricks"]):
        put(c, f"tricks-{seat}", tricks)
    with next_document(c):
        c.get_by_role("button", name="両方を主催者に送る").tap()
    c.wait_for_url(re.compile(rf"/t/{night.token}(#.*)?$"))
    expect(deal_item(c, "第3ディール").locator(".disputed")).to_have_text("第3ディールは主催者が裁定します。")
    expect(confirm_button(c, "第3ディール", "確認する")).to_have_count(0)

    # A and B, by push; the hall, by push.
    for page in (a, b):
        expect(deal_item(page, "Deal 3").locator(".disputed")).to_have_text("The organiser will settle deal 3.")
        expect(confirm_button(page, "Deal 3")).to_have_count(0)
    disputes = hall.locator("#disputes")
    expect(disputes.locator("h2")).to_have_text("1 dispute to settle")
    expect(disputes).to_contain_text("As another seat saw it")
    assert hall.evaluate("window.__same_page") is True
    expect(hall.locator(".hall-to-confirm")).to_contain_text("1 dispute")
    disputes.scroll_into_view_if_needed()
    night.shot(hall, "hall-disputes-1280", full=False)
    night.shot(hall, "hall-disputes-1280-full")
    into_view(box(c))
    night.shot(c, "phone-c-disputed-390-ja", full=False)
    assert hall.evaluate("document.documentElement.scrollWidth") <= 1280

    # The round is not over: the hall says nothing of it, and the next draw is refused, naming the table.
    expect(hall.locator(".hall-round-over")).to_have_count(0)
    refused = night.draw(status=422)
    assert "Settle first (Disputes, on the hall): Table 1, deal 3." in re.sub(r"\s+", " ", refused)
    assert night.board() == {}

    # The organiser takes the other seat's: deal 3 replaced and confirmed; the match plays on.
    with next_document(hall):
        disputes.get_by_role("button", name="Take the other seat's").click()
    expect(hall.locator("#disputes")).to_have_count(0)
    assert night.to_confirm() == ["deal-1", "deal-2"]
    for page, label in ((a, "Deal 3"), (b, "Deal 3"), (c, "第3ディール")):
        expect(deal_item(page, label)).to_have_count(0)  # by push
        expect(page.locator("#entry input[name=number]")).to_have_value("4")  # not over any more
    expect(box(b).locator("h2")).to_have_text("2 changes to confirm")
    for page in (a, b, c, hall):
        assert page.errors == []


# --- 4 and 5: a correction waits again; a confirm tapped offline ----------------------------------

def test_a_correction_waits_again_and_an_offline_confirm_goes_through_once(night):
    three_phones_at_one_table(night)
    a, b = night.pages[A], night.pages[B]
    night.save(a, 1, winner=0)
    with next_document(b):
        confirm_button(b, "Deal 1").tap()
    assert night.to_confirm() == []

    # 4. A corrects the confirmed deal 1 (seat 2 won it): it waits again; B confirms.
    a.locator("#deal-1 summary").tap()
    a.get_by_role("link", name="Correct deal 1").tap()
    a.wait_for_url(re.compile(r"/deals/1/edit$"))
    for seat, tricks in enumerate(facts(1)["tricks"]):
        put(a, f"tricks-{seat}", tricks)
    with next_document(a):
        a.get_by_role("button", name="Save the correction").tap()
    a.wait_for_url(re.compile(rf"/t/{night.token}(#.*)?$"))
    expect(deal_item(a, "Deal 1").locator(".mine-note")).to_be_visible()
    expect(box(b).locator("h2")).to_have_text("1 change to confirm")  # by push
    assert night.to_confirm() == ["deal-1"]
    with next_document(b):
        confirm_button(b, "Deal 1").tap()
    expect(box(b)).to_be_hidden()
    assert night.to_confirm() == []

    # 5. B is offline when it taps Confirm on deal 2: the tap waits in its outbox, then goes once.
    night.open(a)
    night.save(a, 2, winner=1)
    expect(confirm_button(b, "Deal 2")).to_be_visible()
    sent = []
    b.on("response", lambda r: sent.append(r.status) if r.url.endswith("/confirm") and r.request.method == "POST" else None)
    b.context.set_offline(True)
    confirm_button(b, "Deal 2").tap()
    outbox = b.locator("#outbox .outbox-item[data-kind=confirm]")
    expect(outbox).to_be_visible()
    expect(b.locator("#reach-bar")).to_be_visible()
    b.evaluate("window.scrollTo(0, 0)")
    night.shot(b, "phone-b-offline-confirm-390-en", full=False)
    assert night.to_confirm() == ["deal-2"] and sent == []
    b.context.set_offline(False)
    wait_until(lambda: night.to_confirm() == [], "deal 2 confirmed once B is back")
    expect(b.locator("#outbox .outbox-item")).to_have_count(0)
    expect(box(b)).to_be_hidden()
    expect(box(a)).to_be_hidden()
    assert sent == [200] or sent == [303], sent
    assert night.log().count("confirm") == 3  # deal 1, its correction, deal 2: each once
    for page in (a, b):
        assert page.errors == []


# --- 6 and 8: one phone at a table; a table typed in on the laptop --------------------------------

def test_the_laptop_confirms_a_one_phone_table_and_its_own_deals_need_nobody(night):
    a = night.join(A)
    for name in ("Ben", "Chiyo", FOURTH):  # on the laptop: they have no phone
        night.hall_post("/hall/players", {"name": name})
    night.draw()
    night.seat_round(1)
    night.open(a)
    for number in (1, 2, 3):
        night.save(a, number, winner=0)
    expect(deal_item(a, "Deal 3").locator(".mine-note")).to_be_visible()
    assert night.to_confirm() == ["deal-1", "deal-2", "deal-3"] and night.board() == {}

    # 6. The organiser opens the table on the laptop and confirms all three.
    laptop = night.hall_page()
    night.open(laptop)
    expect(box(laptop).locator("h2")).to_have_text("3 changes to confirm")
    expect(box(laptop).locator(".mine-note:visible")).to_have_count(0)
    with next_document(laptop):
        box(laptop).get_by_role("button", name="Confirm all 3").click()
    expect(box(laptop)).to_be_hidden()
    expect(box(a)).to_be_hidden()  # by push
    assert night.to_confirm() == []
    assert len(night.board()) == 4

    # 8. Round 2, typed in from the paper pad on the laptop's own table page: nothing waits.
    night.draw()
    night.seat_round(2)
    night.open(laptop)
    for number in (1, 2, 3):
        night.save(laptop, number, winner=1)
        assert night.to_confirm() == []
        expect(box(laptop)).to_be_hidden()
    tables_counted = {line["name"]: line["tables"] for line in night.export()["leaderboard"]}
    assert tables_counted == {name: 2 for name in (A, "Ben", "Chiyo", FOURTH)}
    assert night.log().count("confirm") == 0
    for page in (a, laptop):
        assert page.errors == []


# --- 7: a side table asks because a phone said so -----------------------------------------------

def test_a_side_table_asks_once_a_phone_turns_it_on_before_the_first_deal(night):
    x, y = night.phone("X"), night.phone("Y")
    url = open_table(x, night.server, "rwd", 4)
    night.token = url.rsplit("/", 1)[-1]
    night.open(y)  # the second phone has the table open before any deal
    expect(box(x)).to_contain_text("Deals count as soon as they are saved.")
    with next_document(x):
        box(x).get_by_role("button", name="Ask another seat to confirm each deal").tap()
    expect(box(x)).to_contain_text("Each deal a phone saves waits for a phone of another seat to confirm it.")
    expect(box(y).get_by_role("button", name="Stop asking")).to_be_visible()  # by push
    night.save(x, 1, winner=2)
    expect(deal_item(x, "Deal 1").locator(".mine-note")).to_be_visible()
    expect(box(x).get_by_role("button", name="Stop asking")).to_have_count(0)
    expect(confirm_button(y, "Deal 1")).to_be_visible()  # by push
    assert night.to_confirm() == ["deal-1"]
    with next_document(y):
        confirm_button(y, "Deal 1").tap()
    expect(box(y)).to_be_hidden()
    expect(box(x)).to_be_hidden()
    assert night.to_confirm() == []
    for page in (x, y):
        assert page.errors == []
