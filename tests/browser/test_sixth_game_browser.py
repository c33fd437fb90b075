"""The toy sixth game in Chromium (issue 16): its calculator answers as you tap, and two
phones keep one scoresheet, with nothing in the app written for it."""

from __future__ import annotations

import re

import pytest

from tests.browser.pages import settled

from companion.games import register, unregister
from tests import toy_game

pytestmark = pytest.mark.browser


@pytest.fixture
def toy():
    register(toy_game.GAME, templates=toy_game.TEMPLATES)
    yield toy_game.GAME
    unregister(toy_game.GAME.id)


def tap(page, scope: str, name: str, value) -> None:
    page.locator(f'{scope} label:has(input[name="{name}"][value="{value}"])').tap()


def standings(page) -> list[str]:
    return [t.strip() for t in page.locator("#live table.standings td.total").all_inner_texts()]


def enter_deal(page, called: list[int], taken: list[int]) -> None:
    for seat, (c, t) in enumerate(zip(called, taken)):
        tap(page, "#entry", f"called-{seat}", c)
        tap(page, "#entry", f"taken-{seat}", t)
    with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST"):
        page.locator("#entry button[type=submit]").tap()


def test_toy_game_on_two_phones(toy, live_server, phone, phone2, artifacts_dir):
    phone.goto(live_server("/"))
    phone.get_by_role("link", name=re.compile("Toy Tricks")).first.tap()
    phone.wait_for_url(re.compile(r"/games/toy_tricks$"))
    phone.wait_for_function("() => window.htmx !== undefined")
    phone.evaluate("() => { window.__noReload = true; }")
    tap(phone, "#calc-tp", "tp-called", 2)
    tap(phone, "#calc-tp", "tp-taken", 2)
    phone.locator("#tp-result").filter(has_text="You score 12.").wait_for()
    tap(phone, "#calc-tp", "tp-taken", 3)
    phone.locator("#tp-result").filter(has_text="You score 3.").wait_for()
    assert phone.evaluate("() => window.__noReload === true"), "the page reloaded"
    phone.locator("#calc-tp").scroll_into_view_if_needed()
    phone.screenshot(path=str(artifacts_dir / "game-toy_tricks-phone.png"))

    phone.goto(live_server("/tables/new?game=toy_tricks&players=3"))
    for seat, name in enumerate(["Ann", "山田", "Bo"]):
        phone.locator(f"#f-name-{seat}").fill(name)
    phone.get_by_role("button", name="Open the table").tap()
    phone.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]{16,}$"))
    phone2.goto(phone.url)
    settled(phone2)

    enter_deal(phone, [2, 1, 3], [2, 1, 2])
    # Both phones show deal 1 (the answer to a Save comes before htmx has put it on the page).
    for page in (phone, phone2):
        page.wait_for_function("() => document.querySelector('#entry h2')?.textContent.includes('2')")
    assert standings(phone2) == standings(phone) and sorted(standings(phone)) == ["11", "12", "2"]
    enter_deal(phone2, [0, 0, 5], [0, 0, 5])
    phone.wait_for_function("() => document.querySelector('#entry h2')?.textContent.includes('3')")
    assert sorted(standings(phone), key=int) == ["17", "21", "22"]
    phone.screenshot(path=str(artifacts_dir / "table-toy_tricks-phone.png"), full_page=True)
    assert phone.errors == [] and phone2.errors == []
