"""The paper pads (issue 45) in Chromium: a round of an RWD table of five and a Twin Shoot table
of six prints on A4 portrait, one page per table, in English and in Japanese; no header or grid
cell runs out of its box, and each page's QR code scans to its table. PDFs and each page as PNG
are kept in test-artifacts/ (pad-<lang>.pdf, pad-<lang>-<page>.png) for people to look at."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from companion.night import service as night
from companion.store import connect
from helpers import decode_qr
from tests.browser.pages import TIMEOUT_MS
from table_writes import done

NAMES = ["Annabelle Fujimoto", "Bartholomew", "Chiyo", "Daisuke", "Emi", "Fumiko", "Goro", "Hana", "Ichiro",
         "Jun", "Kei"]
JOIN = "http://192.168.1.20:8000/"


def pdf_info(path) -> dict[str, str]:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return {key.strip(): value.strip() for key, _, value in (line.partition(":") for line in info.splitlines())}


@pytest.mark.browser
def test_the_pads_print_one_a4_page_per_table_in_both_languages(browser, live_server_factory, artifacts_dir):
    assert shutil.which("pdfinfo") and shutil.which("pdftoppm"), "poppler-utils reads the printed pads"
    server = live_server_factory({"JOIN_URL": JOIN})
    conn = connect(server.app.config["DATABASE"])
    for name in NAMES:
        done(night.join(conn, name))
    drawn = done(night.draw_round(conn, chosen=[("rwd", 5), ("twin_shoot", 6)], seed="pad"))
    tokens = [rt.table.token for rt in drawn.tables]
    context = browser.new_context(viewport={"width": 1000, "height": 1300}, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for lang in ("en", "ja"):
            page.goto(server(f"/hall/pad?lang={lang}"))
            assert page.locator("article.pad-page").count() == 2
            for article, rt in zip(page.locator("article.pad-page").all(), drawn.tables):
                game = rt.table.game.name_en if lang == "en" else rt.table.game.name_ja
                assert game in article.locator(".pad-game").inner_text()
            page.emulate_media(media="print")
            assert not page.locator(".topbar").is_visible() and not page.locator(".pads-head").is_visible()
            # A4 less the 8 mm margins is 194 mm, 733 CSS px: nothing runs out of its cell.
            page.set_viewport_size({"width": 733, "height": 1000})
            clipped = page.evaluate("""() => [...document.querySelectorAll(
                    '.pad-grid th, .pad-grid td, .pad-seats li, .pad-label')]
                .filter(el => el.scrollWidth > el.clientWidth + 1).map(el => el.textContent.trim())""")
            assert clipped == [], (lang, clipped)
            pdf = artifacts_dir / f"pad-{lang}.pdf"
            pdf.write_bytes(page.pdf(format="A4", print_background=False))
            info = pdf_info(pdf)
            assert info["Pages"] == "2", f"the pads ({lang}) print on {info['Pages']} pages, one per table"
            assert info["Page size"].startswith("595.") and "842" in info["Page size"], info["Page size"]  # A4 portrait
            printed = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
            pages = ["".join(text.split()) for text in printed.split("\f")]  # CJK comes out spaced
            for text, rt in zip(pages, drawn.tables):
                if lang == "en":  # Japanese comes out of pdftotext in pieces, out of order
                    assert "".join(rt.table.game.name_en.split()) in text, text
                assert all("".join(name.split()) in text for name in rt.table.setup.players), (lang, text)
            stem = artifacts_dir / f"pad-{lang}"
            subprocess.run(["pdftoppm", "-png", "-r", "110", str(pdf), str(stem)], check=True)
            pngs = sorted(artifacts_dir.glob(f"pad-{lang}-*.png"))
            assert len(pngs) == 2
            for png, token in zip(pngs, tokens):
                assert decode_qr(png.read_bytes()) == [f"{JOIN}t/{token}"], png
            page.emulate_media(media="screen")
            page.set_viewport_size({"width": 1000, "height": 1300})
        assert errors == []
    finally:
        context.close()
        conn.close()
