"""Game requests on a phone (issue 47): My night's "I'd like to play / learn …" buttons work
with htmx (the card alone changes, no page load) and as a plain form (JavaScript off: a page
load), each a big tap target; the phones are never the laptop (their own 127.0.0.x)."""

from __future__ import annotations

import pytest

from companion.night import game_requests
from companion.night import service as night
from companion.store import connect
from tests.browser.pages import PHONE, TIMEOUT_MS
from .conftest import new_phone_context

pytestmark = pytest.mark.browser


def join(page, live_server, name: str) -> None:
    page.goto(live_server("/night"))
    page.locator("#f-name").fill(name)
    with page.expect_navigation(wait_until="load"):
        page.locator("#f-name").press("Enter")
    page.locator("#me-request").wait_for()


def stored(live_server) -> dict[str, tuple[str, bool]]:
    conn = connect(live_server.app.config["DATABASE"])
    try:
        names = {p.id: p.name for p in night.roster(conn)}
        return {names[pid]: (r.game, r.learn) for pid, r in game_requests.open_requests(conn).items()}
    finally:
        conn.close()


def test_request_buttons_with_htmx_and_as_a_plain_form(browser, live_server, phone, artifacts_dir):
    join(phone, live_server, "Ann")
    card = phone.locator("#me-request")
    play = card.get_by_role("group", name="I'd like to play…")
    learn = card.get_by_role("group", name="I'd like to learn…")
    # Big tap targets: every game's button at least 44 px high.
    for button in play.get_by_role("button").all() + learn.get_by_role("button").all():
        assert button.bounding_box()["height"] >= 44
    # htmx: the card changes in place, no page load.
    phone.evaluate("window.__same_page = true")
    play.get_by_role("button", name="Lucky Cube").tap()
    card.get_by_text("Your request: play Lucky Cube.").wait_for()
    assert phone.evaluate("window.__same_page") is True
    assert stored(live_server) == {"Ann": ("lucky_cube", False)}
    # Changed with one more tap.
    phone.locator("#me-request").get_by_role("group", name="I'd like to learn…").get_by_role(
        "button", name="Twin Shoot").tap()
    phone.locator("#me-request").get_by_text("Your request: learn Twin Shoot.").wait_for()
    assert stored(live_server) == {"Ann": ("twin_shoot", True)}
    assert phone.locator('#me-request [aria-pressed="true"]').count() == 1
    phone.screenshot(path=str(artifacts_dir / "requests-phone.png"), full_page=True)
    assert phone.errors == []

    # A plain form: a phone with JavaScript off posts and lands back on My night at the card.
    context = new_phone_context(browser, **{**PHONE, "java_script_enabled": False})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        plain = context.new_page()
        plain.goto(live_server("/night"))
        plain.locator("#f-name").fill("Bo")
        with plain.expect_navigation(wait_until="load"):
            plain.get_by_role("button", name="Join").first.click()
        with plain.expect_navigation(wait_until="load"):
            plain.locator("#me-request").get_by_role("group", name="I'd like to play…").get_by_role(
                "button", name="Pair & Quad").click()
        assert plain.url.endswith("/night/me#me-request")
        plain.locator("#me-request").get_by_text("Your request: play Pair & Quad.").wait_for()
        assert stored(live_server) == {"Ann": ("twin_shoot", True), "Bo": ("pair_quad", False)}
        with plain.expect_navigation(wait_until="load"):
            plain.locator("#me-request").get_by_role("button", name="No request").click()
        assert stored(live_server) == {"Ann": ("twin_shoot", True)}
    finally:
        context.close()
