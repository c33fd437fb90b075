"""A player's night to keep (issue 33) in Chromium: a night of six matches (Twin Shoot at six and
at four, a shared RWD win, a match ended at time, a level Lucky Cube) and a side table prints on
ONE A4 (and one Letter) page, in English and in Japanese, and reads on a 390 px phone and a 1280 px laptop without
sideways scrolling. PDFs and screenshots in test-artifacts/ (summary-*.pdf, summary-*.png)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from companion.night import service as night
from companion.store import connect
from companion.tables import service as store
from helpers import text_of
from tests.browser.pages import PHONE, TIMEOUT_MS

NAMES = ["Annabelle", "Bartholomew", "Chiyo", "Daisuke", "Emi", "Fumiko"]
A, B, C, D, E, F = NAMES
TWIN_4 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"]], "tricks": [4, 3, 2, 1], "open_bid": None}
TWIN_6 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"], ["D", "D"], ["D", "D"]],
          "tricks": [4, 3, 2, 1, 0, 0], "open_bid": None}
RWD_THIRD_WINS = {"chips": [8, 5, 4], "tricks": [3, 7, 7]}
RWD_SHARED = {"chips": [5, 5, 7], "tricks": [7, 7, 3]}
RWD_SHARED_WIN = [RWD_THIRD_WINS, RWD_SHARED, {**RWD_SHARED, "start_player": 0}, {**RWD_SHARED, "start_player": 1}]
RWD_FOUR_IN_ORDER = {"chips": [1, 3, 4, 5], "tricks": [7, 3, 2, 1]}
LUCKY_LEVEL = [{"die_holder": None, "die_number": None, "last_trick": (number + 1) % 4} for number in range(12)]


def play(conn, game, names, options, deals, numbered=True) -> str:
    token = store.create(conn, game, names, options, numbered=numbered)
    for number, facts in enumerate(deals, 1):
        store.add_deal(conn, token, number, facts)
    return token


def six_matches(conn) -> None:
    for name in NAMES:
        night.join(conn, name)
    play(conn, "twin_shoot", [C, D, E, F, A, B], {}, [TWIN_6] * 3)
    play(conn, "twin_shoot", [A, B, C, D], {}, [TWIN_4] * 3)
    play(conn, "rwd", [A, B, C], {"first_start_player": 0}, RWD_SHARED_WIN)
    play(conn, "rwd", [B, C, A, D], {"length": 1, "first_start_player": 0}, [RWD_FOUR_IN_ORDER])
    at_time = play(conn, "rwd", [C, B, A], {"first_start_player": 0}, [RWD_THIRD_WINS])
    assert store.finish_match(conn, at_time, True, time_up=lambda table: True).table.ended_at_time
    play(conn, "lucky_cube", [D, E, F, A], {"first_dealer": 0}, LUCKY_LEVEL)
    play(conn, "rwd", [A, C, E], {"length": 1, "first_start_player": 0}, [RWD_THIRD_WINS], numbered=False)


def pdf_pages(path) -> int:
    """Pages of a PDF as poppler's pdfinfo counts them."""
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


@pytest.mark.browser
def test_a_night_of_six_matches_prints_on_one_a4_page(browser, live_server, artifacts_dir):
    assert shutil.which("pdfinfo"), "pdfinfo (poppler-utils) counts the PDF's pages"
    conn = connect(live_server.app.config["DATABASE"])
    context = browser.new_context(**PHONE)
    try:
        six_matches(conn)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(live_server("/night"))
        page.get_by_role("button", name=A).tap()  # tonight's list: tap your name
        page.wait_for_url("**/night/me")
        for lang in ("en", "ja"):
            page.goto(live_server(f"/night/me/summary?lang={lang}"))
            assert page.locator(".summary-table").first.locator("tbody tr").count() == 6
            assert page.locator(".summary-side tbody tr").count() == 1
            for width in (390, 1280):
                page.set_viewport_size({"width": width, "height": 900})
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (lang, width)
                page.screenshot(path=str(artifacts_dir / f"summary-{lang}-{width}.png"), full_page=True)
            page.emulate_media(media="print")
            assert not page.locator(".topbar").is_visible() and not page.locator("a", has_text="Back").is_visible()
            for paper in ("A4", "Letter"):
                pdf = artifacts_dir / f"summary-{lang}-{paper.lower()}.pdf"
                pdf.write_bytes(page.pdf(format=paper, print_background=False))
                assert pdf_pages(pdf) == 1, f"the summary ({lang}) prints on {pdf_pages(pdf)} {paper} pages"
            printed = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
            assert ("Total of 6 finished matches" if lang == "en" else "終わった6対戦の合計") in printed
            page.emulate_media(media="screen")
        assert errors == []
        assert "Annabelle" in text_of(page.content())
    finally:
        context.close()
        conn.close()
