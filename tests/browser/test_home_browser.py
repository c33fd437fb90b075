"""The home page in a real browser, at phone and laptop sizes."""

from __future__ import annotations

import pytest

from companion.games import GAMES

pytestmark = pytest.mark.browser


def join_url_text(page) -> str:
    return page.locator("a.join-url").inner_text().strip()


def test_home_on_a_phone(live_server, phone, artifacts_dir, qr_decode):
    response = phone.goto(live_server.url)
    assert response is not None and response.status == 200
    phone.wait_for_load_state("networkidle")

    qr = phone.locator("svg.qr")
    assert qr.count() == 1
    qr.scroll_into_view_if_needed()
    assert qr.is_visible()
    box = qr.bounding_box()
    assert box and box["width"] >= 120 and box["height"] >= 120, f"QR too small to scan: {box}"

    links = phone.locator("a.game-link")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs == [f"/games/{game_id}" for game_id in GAMES]
    for game in GAMES.values():
        assert phone.get_by_role("link", name=game.name_en).count() >= 1, game.name_en

    phone.screenshot(path=str(artifacts_dir / "home-phone.png"), full_page=True)

    url = join_url_text(phone)
    assert url.startswith("http://") and url.endswith(f":{live_server.port}/")
    assert qr_decode(qr.screenshot()) == [url]

    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px wide)"
    assert phone.errors == []


def test_home_on_a_laptop(live_server, laptop, artifacts_dir, qr_decode):
    assert laptop.goto(live_server.url).status == 200
    laptop.wait_for_load_state("networkidle")
    laptop.screenshot(path=str(artifacts_dir / "home-laptop.png"), full_page=True)
    qr = laptop.locator("svg.qr")
    assert qr_decode(qr.screenshot()) == [join_url_text(laptop)]
    assert laptop.locator("a.game-link").count() == len(GAMES)
    width = laptop.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280
    assert laptop.errors == []


def test_qr_still_decodes_in_dark_mode(live_server, browser, qr_decode):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="en-US", color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(live_server.url)
        assert qr_decode(page.locator("svg.qr").screenshot()) == [join_url_text(page)]
    finally:
        context.close()
