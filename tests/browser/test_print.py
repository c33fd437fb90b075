"""Reference cards: /games/<id> prints as the card alone, on exactly one A4 or Letter page,
and the card reads on a phone without sideways scrolling.

PDFs and screenshots are kept in test-artifacts/ (print-<id>*.pdf, print-<id>.png,
reference-<id>-phone.png) for people to look at.
"""

from __future__ import annotations

import re

import pytest

GAME_IDS = ("rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot")

# One "/Type /Page" object per page; "/Type /Pages" is the page tree, not a page.
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_pages(data: bytes) -> int:
    return len(PAGE_OBJECT.findall(data))


def test_page_counter_ignores_the_page_tree():
    sample = b"<< /Type /Pages /Kids [3 0 R 4 0 R] >> << /Type /Page >> <</Type/Page/Parent 2 0 R>>"
    assert pdf_pages(sample) == 2


def open_card(page, live_server, game_id: str, lang: str = "en") -> None:
    if lang != "en":
        page.context.add_cookies([{"name": "lang", "value": lang, "url": live_server.url}])
    page.goto(live_server(f"/games/{game_id}"))
    page.wait_for_load_state("networkidle")


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_reference_card_prints_on_one_page(browser, live_server, artifacts_dir, game_id, lang):
    # A dark-mode phone must still print black on white.
    context = browser.new_context(viewport={"width": 1000, "height": 1300}, color_scheme="dark",
                                  locale="en-US")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        open_card(page, live_server, game_id, lang)
        suffix = "" if lang == "en" else f"-{lang}"

        page.emulate_media(media="print", color_scheme="dark")
        # Only the card is visible in print: no top bar, checklist, calculators or helpers.
        assert page.locator("article.reference").is_visible()
        assert page.locator("article.reference h2").first.is_visible()
        for hidden in (".topbar", "#setup", "#calculators", "#helpers", "main > header", "form"):
            for element in page.locator(hidden).all():
                assert not element.is_visible(), f"{hidden} shows in print"
        visible_outside = page.evaluate("""() => {
            const card = document.querySelector('article.reference');
            return [...document.body.querySelectorAll('*')].filter(el =>
                !el.contains(card) && !card.contains(el) && el.getClientRects().length > 0
            ).map(el => el.tagName + '.' + el.className);
        }""")
        assert visible_outside == [], visible_outside
        colours = page.evaluate("""() => {
            const s = getComputedStyle(document.querySelector('article.reference'));
            return [getComputedStyle(document.body).backgroundColor, s.color];
        }""")
        assert colours == ["rgb(255, 255, 255)", "rgb(0, 0, 0)"], colours
        page.screenshot(path=str(artifacts_dir / f"print-{game_id}{suffix}.png"), full_page=True)

        for paper in ("A4", "Letter"):
            pdf = page.pdf(format=paper, print_background=False)
            (artifacts_dir / f"print-{game_id}{suffix}-{paper.lower()}.pdf").write_bytes(pdf)
            assert pdf_pages(pdf) == 1, f"{game_id} ({lang}) prints on {pdf_pages(pdf)} {paper} pages"
        assert errors == []
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_reference_card_fits_a_phone(phone, live_server, artifacts_dir, game_id, lang):
    open_card(phone, live_server, game_id, lang)
    card = phone.locator("article.reference")
    card.scroll_into_view_if_needed()
    assert card.is_visible()
    suffix = "" if lang == "en" else f"-{lang}"
    card.screenshot(path=str(artifacts_dir / f"reference-{game_id}{suffix}-phone.png"))
    overflow = phone.evaluate("""() => ({
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        wide: [...document.querySelectorAll('article.reference *')]
            .filter(el => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map(el => el.tagName + '.' + el.className + ' ' + (el.textContent || '').slice(0, 30)),
        clipped: [...document.querySelectorAll('article.reference *')]
            .filter(el => !el.closest('.sr-only') && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
            .map(el => el.tagName + '.' + el.className + ' ' + (el.textContent || '').trim().slice(0, 30)),
    })""")
    assert overflow["page"] <= 0, f"the page scrolls sideways by {overflow['page']}px"
    assert overflow["wide"] == [], overflow["wide"]
    assert overflow["clipped"] == [], overflow["clipped"]  # e.g. a suit name wider than its cell
    if game_id == "twin_shoot":
        marks = phone.locator("article.reference .suit-table svg.suit")
        assert marks.count() == 6
        box = marks.first.bounding_box()
        assert box and box["width"] >= 12 and box["height"] >= 12  # the SVG marks really render
    assert phone.errors == []
