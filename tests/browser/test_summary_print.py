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
import table_writes
from tests.browser.pages import PHONE, TIMEOUT_MS
from .conftest import new_phone_context
from table_writes import done

NAMES = ["Annabelle", "Bartholomew", "Chiyo", "Daisuke", "Emi", "Fumiko"]
TWIN_4 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"]], "tricks": [4, 3, 2, 1], "open_bid": None}
TWIN_6 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"], ["D", "D"], ["D", "D"]],
          "tricks": [4, 3, 2, 1, 0, 0], "open_bid": None}
RWD_THIRD_WINS = {"chips": [8, 5, 4], "tricks": [3, 7, 7]}
RWD_SHARED = {"chips": [5, 5, 7], "tricks": [7, 7, 3]}
RWD_SHARED_WIN = [RWD_THIRD_WINS, RWD_SHARED, {**RWD_SHARED, "start_player": 0}, {**RWD_SHARED, "start_player": 1}]
RWD_FOUR_IN_ORDER = {"chips": [1, 3, 4, 5], "tricks": [7, 3, 2, 1]}
LUCKY_LEVEL = [{"die_holder": None, "die_number": None, "last_trick": (number + 1) % 4} for number in range(12)]


def play(conn, game, names, options, deals, numbered=True) -> str:
    token = table_writes.create(conn, game, names, options, numbered=numbered)
    for number, facts in enumerate(deals, 1):
        table_writes.add_deal(conn, token, number, facts)
    return token


def six_matches(conn, names) -> None:
    """Six of every kind: both Twin Shoot sizes, a shared win, a third of four, a match ended at
    time, a level table; and a side table."""
    for name in names:
        done(night.join(conn, name))
    a, b, c, d, e, f = names
    play(conn, "twin_shoot", [c, d, e, f, a, b], {}, [TWIN_6] * 3)
    play(conn, "twin_shoot", [a, b, c, d], {}, [TWIN_4] * 3)
    play(conn, "rwd", [a, b, c], {"first_start_player": 0}, RWD_SHARED_WIN)
    play(conn, "rwd", [b, c, a, d], {"length": 1, "first_start_player": 0}, [RWD_FOUR_IN_ORDER])
    at_time = play(conn, "rwd", [c, b, a], {"first_start_player": 0}, [RWD_THIRD_WINS])
    assert store.finish_match(conn, at_time, True, time_up=lambda table: True).table.ended_at_time
    play(conn, "lucky_cube", [d, e, f, a], {"first_dealer": 0}, LUCKY_LEVEL)
    play(conn, "rwd", [a, c, e], {"length": 1, "first_start_player": 0}, [RWD_THIRD_WINS], numbered=False)


def six_long_matches(conn, names) -> None:
    """The longest rows: six Twin Shoot matches at six, every name long (a team's name and score
    ran 477 px wide on a 390 px phone, and the night onto a second A4 page)."""
    for name in names:
        done(night.join(conn, name))
    a, b, c, d, e, f = names
    for order in ([c, d, e, f, a, b], [a, b, c, d, e, f], [e, f, a, b, c, d], [c, d, a, b, e, f],
                  [a, b, e, f, c, d], [e, f, c, d, a, b]):
        play(conn, "twin_shoot", order, {}, [TWIN_6] * 3)
    play(conn, "rwd", [a, c, e], {"length": 1, "first_start_player": 0}, [RWD_THIRD_WINS], numbered=False)


LONG_NAMES = ["Annabelle Fujimoto-Richardson", "Bartholomew Tanaka-Smithfield", "Chiyo Watanabe-Lee of Kyoto",
              "Daisuke Yamamoto the Great", "Emiko Kobayashi from Osaka", "Fumiko Nakamura-Oppenheimer"]
NIGHTS = {"mixed": (six_matches, NAMES), "long": (six_long_matches, LONG_NAMES)}


def pdf_pages(path) -> int:
    """Pages of a PDF as poppler's pdfinfo counts them."""
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


@pytest.mark.browser
@pytest.mark.parametrize("kind", list(NIGHTS))
def test_a_night_of_six_matches_prints_on_one_a4_page(browser, live_server, artifacts_dir, kind):
    assert shutil.which("pdfinfo"), "pdfinfo (poppler-utils) counts the PDF's pages"
    conn = connect(live_server.app.config["DATABASE"])
    context = new_phone_context(browser, **PHONE)
    night_of, names = NIGHTS[kind]
    prefix = "summary" if kind == "mixed" else f"summary-{kind}"
    try:
        night_of(conn, names)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(live_server("/night"))
        page.get_by_role("button", name=names[0]).tap()  # tonight's list: tap your name
        page.wait_for_url("**/night/me")
        for lang in ("en", "ja"):
            page.goto(live_server(f"/night/me/summary?lang={lang}"))
            assert page.locator(".summary-table").first.locator("tbody tr").count() == 6
            assert page.locator(".summary-side tbody tr").count() == 1
            for width in (390, 1280):
                page.set_viewport_size({"width": width, "height": 900})
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (lang, width)
                page.screenshot(path=str(artifacts_dir / f"{prefix}-{lang}-{width}.png"), full_page=True)
            page.emulate_media(media="print")
            assert not page.locator(".topbar").is_visible() and not page.locator("a", has_text="Back").is_visible()
            # A4 less the 12 mm margins is 186 mm, 703 CSS px: no cell's text runs out of its cell
            # (a "shared 1st of 3 players: ¾" once lost its fraction past the paper's edge).
            page.set_viewport_size({"width": 703, "height": 900})
            clipped = page.evaluate("""() => [...document.querySelectorAll('.summary-table td, .summary-table th')]
                .filter(cell => cell.scrollWidth > cell.clientWidth + 1).map(cell => cell.textContent.trim())""")
            assert clipped == [], (lang, clipped)
            for paper in ("A4", "Letter"):
                pdf = artifacts_dir / f"{prefix}-{lang}-{paper.lower()}.pdf"
                pdf.write_bytes(page.pdf(format=paper, print_background=False))
                assert pdf_pages(pdf) == 1, f"the summary ({lang}) prints on {pdf_pages(pdf)} {paper} pages"
            printed = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
            assert ("Total of 6 finished matches" if lang == "en" else "合計（終わった6対戦）") in printed
            page.emulate_media(media="screen")
        assert errors == []
        assert names[0] in text_of(page.content())
    finally:
        context.close()
        conn.close()
