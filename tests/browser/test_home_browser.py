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


def test_game_links_open_their_pages(live_server, phone):
    phone.goto(live_server.url)
    for game in GAMES.values():
        phone.locator(f'a.game-link[href="/games/{game.id}"]').click()
        phone.wait_for_url(live_server(f"/games/{game.id}"))
        assert game.name_en in phone.locator("h1").first.inner_text()
        phone.go_back()
    assert phone.errors == []


def test_language_switch_in_the_browser(live_server, phone, phone2):
    phone.goto(live_server.url)
    with phone.expect_navigation(wait_until="load"):  # the switch's redirect back here
        phone.locator('nav.lang a[hreflang="ja"]').click()
    assert phone.locator("html").get_attribute("lang") == "ja"
    assert phone.url == live_server.url
    phone.reload()
    assert phone.locator("html").get_attribute("lang") == "ja"
    # The other phone keeps its own language.
    phone2.goto(live_server.url)
    assert phone2.locator("html").get_attribute("lang") == "en"


def test_configured_join_url_is_drawn_and_decodes(live_server_factory, phone, qr_decode):
    server = live_server_factory({"JOIN_URL": "http://192.168.1.20:8000/"})
    phone.goto(server.url)
    assert join_url_text(phone) == "http://192.168.1.20:8000/"
    assert qr_decode(phone.locator("svg.qr").screenshot()) == ["http://192.168.1.20:8000/"]


def test_qr_still_decodes_in_dark_mode(live_server, browser, qr_decode):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="en-US", color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(live_server.url)
        assert qr_decode(page.locator("svg.qr").screenshot()) == [join_url_text(page)]
    finally:
        context.close()
