"""A player's page and the season table in Chromium (issue 26), at a phone's 390 px, a tablet's
768, a laptop's 1280 and a projector's 1920 px, in English and Japanese: the three hand-worked nights of
tests/players/test_players.py stored as real tables. Nothing may overflow sideways; the chart is drawn;
the figures are the hand-worked ones. Screenshots: test-artifacts/players-*.png."""

from __future__ import annotations

import pytest

from companion import store
from companion.players import service as players
from helpers import NightClock as Clock
from helpers import three_nights
from .conftest import new_phone_context

WIDTHS = {"phone": dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                        has_touch=True),
          "tablet": dict(viewport={"width": 768, "height": 1024}),
          "laptop": dict(viewport={"width": 1280, "height": 800}),
          "projector": dict(viewport={"width": 1920, "height": 1080})}
LANGS = {"en": dict(locale="en-US"), "ja": dict(locale="ja-JP")}


@pytest.fixture
def season_server(live_server, monkeypatch):
    conn = store.connect(live_server.app.config["DATABASE"])
    try:
        three_nights(conn, Clock(monkeypatch))
        ann = players.player_of_name(conn, "Ann").id
    finally:
        conn.close()
    return live_server, ann


def overflow(page) -> int:
    """How far the page is wider than the window (0: nothing scrolls sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", WIDTHS)
def test_a_players_page_and_the_season_table(browser, season_server, artifacts_dir, width, lang):
    server, ann = season_server
    context = new_phone_context(browser, **WIDTHS[width], **LANGS[lang])
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(server(f"/players/{ann}"))
        assert page.locator("h1").inner_text() == "Ann"
        figures = page.locator(".figures")
        assert figures.locator("dd").all_inner_texts() == ["3", "6", "3", "0.514", "3.08"]
        if lang == "ja":
            assert "対戦数" in figures.inner_text() and "1対戦あたりの順位点" in figures.inner_text()
            assert page.get_by_role("heading", name="対戦成績").is_visible()
        else:
            assert page.get_by_role("heading", name="Head to head").is_visible()
        chart = page.locator("svg.pp-chart")
        assert chart.is_visible() and chart.locator("circle.dot").count() == 3
        box = chart.bounding_box()
        assert box["width"] > 300 and box["width"] <= WIDTHS[width]["viewport"]["width"]
        assert overflow(page) <= 0
        page.screenshot(path=str(artifacts_dir / f"players-player-{width}-{lang}.png"), full_page=True)

        page.goto(server("/season?min=4"))
        rows = page.locator("table.season tbody tr")
        assert rows.count() == 5
        firsts = [r.split("\t")[:3] for r in rows.all_inner_texts()]
        # Cy, below the minimum of 4, is ranked after the others and marked (issue 34).
        assert [f[:2] for f in firsts] == [["1", "Di"], ["2", "Bo"], ["3", "Ann"], ["4", "Ed"], ["5*", "Cy"]]
        assert [f[2] for f in firsts] == ["0.625", "0.567", "0.514", "0.396", "0.333"]
        assert page.locator("table.season tr.below-minimum").count() == 1
        # Every column of the ranked table is in view, wins included (nothing scrolled away on a phone).
        wins = page.locator("table.season thead th").nth(4).bounding_box()
        assert wins["x"] + wins["width"] <= WIDTHS[width]["viewport"]["width"]
        heading = "シーズン順位表" if lang == "ja" else "Season table"
        assert page.get_by_role("heading", level=1).inner_text() == heading
        assert overflow(page) <= 0
        page.screenshot(path=str(artifacts_dir / f"players-season-{width}-{lang}.png"), full_page=True)
        # A game's table: a chip, then the page narrows to it.
        page.get_by_role("link", name="ミライスコープ" if lang == "ja" else "Miraiscope").first.click()
        page.wait_for_url("**game=miraiscope**")
        assert page.locator(".leaders tbody tr").count() == 1
        # Printed: the filters, buttons and page header are left out, the table kept.
        page.emulate_media(media="print")
        assert not page.locator(".season-filters").is_visible() and not page.locator(".topbar").is_visible()
        assert page.locator("h1").is_visible()
        assert errors == []
    finally:
        context.close()
