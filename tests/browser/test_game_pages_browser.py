"""The game pages on a phone (390x844): tapping a calculator updates its result in place."""

from __future__ import annotations

import pytest
from .conftest import new_phone_context

pytestmark = pytest.mark.browser


def open_game(phone, live_server, game_id: str, query: str = ""):
    phone.goto(live_server(f"/games/{game_id}{query}"))
    phone.wait_for_function("() => window.htmx !== undefined")
    # Mark the page: a full reload would lose this.
    phone.evaluate("() => { window.__noReload = true; }")


def no_reload(phone) -> None:
    assert phone.evaluate("() => window.__noReload === true"), "the page reloaded"


def tap_step(phone, field: str, times: int = 1, direction: str = "1") -> None:
    for _ in range(times):
        phone.locator(f'button.step[data-for="f-{field}"][data-step="{direction}"]').tap()


def expect_result(phone, name: str, text: str) -> None:
    phone.locator(f"#{name}-result").filter(has_text=text).wait_for()


def test_pair_quad(phone, live_server, artifacts_dir):
    open_game(phone, live_server, "pair_quad")
    tap_step(phone, "pq-7", 2)
    tap_step(phone, "pq-A", 2)
    tap_step(phone, "pq-K", 2)
    tap_step(phone, "pq-J", 1)
    phone.locator("#f-pq-other").fill("9")
    expect_result(phone, "pq", "Score: +8")
    tap_step(phone, "pq-J", 1, "-1")
    expect_result(phone, "pq", "Score: +9")
    no_reload(phone)
    phone.locator("#calc-pq").scroll_into_view_if_needed()
    phone.screenshot(path=str(artifacts_dir / "game-pair_quad-phone.png"))
    assert phone.errors == []


def test_twin_shoot(phone, live_server, artifacts_dir):
    open_game(phone, live_server, "twin_shoot")
    phone.locator('#calc-tb label.suit-chip:has(input[name="tb-1"][value="X"])').tap()
    phone.locator('#calc-tb label.suit-chip:has(input[name="tb-2"][value="H"])').tap()
    expect_result(phone, "tb", "Bid: 6 tricks")
    tap_step(phone, "ts-bid1", 4)
    tap_step(phone, "ts-bid2", 3)
    tap_step(phone, "ts-tricks1", 4)
    tap_step(phone, "ts-tricks2", 3)
    expect_result(phone, "ts", "The team scores 37.")
    phone.locator('#calc-ts input[name="ts-open"]').tap()
    expect_result(phone, "ts", "The team scores 67.")
    tap_step(phone, "ts-tricks2", 1, "-1")
    expect_result(phone, "ts", "every other team scores +30")
    # The card keypad: a rank, then a suit, per card; only the 4-player deck's ranks (A–7).
    pad = phone.locator('.keypad[data-for="f-tt-cards"]')
    assert pad.is_visible()
    assert pad.locator("[data-rank]").all_inner_texts() == ["A", "K", "Q", "J", "10", "9", "8", "7"]
    phone.locator("#f-tt-cards").fill("")
    for card in ("QL", "9L", "QC", "8X", "AH"):
        pad.locator(f'[data-rank="{card[:-1]}"]').tap()
        pad.locator(f'[data-suit="{card[-1]}"]').tap()
    assert phone.locator("#f-tt-cards").input_value() == "QL 9L QC 8X AH"
    pad.locator('[data-key="back"]').tap()  # one card too many: take it back
    assert phone.locator("#f-tt-cards").input_value() == "QL 9L QC 8X"
    pad.locator('[data-suit="S"]').tap()  # a suit without a rank adds nothing
    assert phone.locator("#f-tt-cards").input_value() == "QL 9L QC 8X"
    expect_result(phone, "tt", "Player 1 wins the trick with QL.")
    tap_step(phone, "tl-deal", 3)
    expect_result(phone, "tl", "Deal 3: Player 2")
    no_reload(phone)
    phone.locator("#calc-ts").scroll_into_view_if_needed()
    phone.screenshot(path=str(artifacts_dir / "game-twin_shoot-phone.png"))
    assert phone.errors == []


def test_lucky_cube(phone, live_server, artifacts_dir):
    open_game(phone, live_server, "lucky_cube", "?players=3")
    phone.locator('#calc-lp label.chip:has(input[name="lp-holder"][value="1"])').tap()
    phone.locator('#calc-lp label.chip:has(input[name="lp-number"][value="4"])').tap()
    phone.locator('#calc-lp label.chip:has(input[name="lp-last"][value="0"])').tap()
    expect_result(phone, "lp", "Player 1 pays 4 chips to Player 2.")
    for trick, seat in enumerate([1, 2, 2], start=1):
        phone.locator(f'#calc-lt label.chip:has(input[name="lt-{trick}"][value="{seat}"])').tap()
    expect_result(phone, "lt", "Player 2 has the die, showing 2.")
    for trick in (4, 5, 6):
        phone.locator(f'#calc-lt label.chip:has(input[name="lt-{trick}"][value="2"])').tap()
    expect_result(phone, "lt", "Player 3 won the last trick and pays 2 chips to Player 2.")
    no_reload(phone)
    phone.locator("#lt-result").scroll_into_view_if_needed()
    phone.screenshot(path=str(artifacts_dir / "game-lucky_cube-phone.png"))
    assert phone.errors == []


def test_rwd(phone, live_server, artifacts_dir):
    open_game(phone, live_server, "rwd", "?players=3")
    for seat, (chips, tricks) in enumerate([(4, 6), (4, 3), (9, 8)]):
        phone.locator(f"#f-rd-chips-{seat}").fill(str(chips))
        phone.locator(f"#f-rd-tricks-{seat}").fill(str(tricks))
    expect_result(phone, "rd", "Player 1: +2")
    tap_step(phone, "rd-chips-2")  # 18 chips: the sum check answers at once
    expect_result(phone, "rd", "must add up to 17")
    phone.locator("#f-rf-cards").fill("QH 2S AH")
    phone.locator('#calc-rf label.chip:has(input[name="rf-last"][value="3"])').tap()
    expect_result(phone, "rf", "Card 2, 2S, wins the trick.")
    no_reload(phone)
    phone.locator("#calc-rd").scroll_into_view_if_needed()
    phone.screenshot(path=str(artifacts_dir / "game-rwd-phone.png"))
    # The setup checklist ticks survive a reload on this phone; "Clear ticks" clears them.
    phone.locator('input[data-tick="tick:rwd:3:0"]').check()
    phone.reload()
    assert phone.locator('input[data-tick="tick:rwd:3:0"]').is_checked()
    phone.locator("[data-reset-ticks]").tap()
    assert not phone.locator('input[data-tick="tick:rwd:3:0"]').is_checked()
    assert phone.errors == []


def test_miraiscope(phone, live_server, artifacts_dir):
    open_game(phone, live_server, "miraiscope")
    tap_step(phone, "mi-queens-0", 3)
    phone.locator("#f-mi-points-0").fill("12")
    phone.locator('#calc-mi label.chip:has(input[name="mi-last_trick"][value="0"])').tap()
    expect_result(phone, "mi", "Player 1 24, Player 2 11")
    expect_result(phone, "mi", "Together 35 points")
    phone.locator("#f-mt-cards").fill("QS 10S AS 5H")
    expect_result(phone, "mt", "The leader wins with AS")
    no_reload(phone)
    phone.locator("#calc-mi").scroll_into_view_if_needed()
    phone.screenshot(path=str(artifacts_dir / "game-miraiscope-phone.png"))
    assert phone.errors == []


def test_forms_work_without_javascript(browser, live_server):
    context = new_phone_context(browser, java_script_enabled=False, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(live_server("/games/pair_quad"))
        page.locator("#f-pq-7").fill("4")
        page.locator("#calc-pq button[type=submit]:not([form])").click()  # Work it out (Clear submits its own form)
        page.wait_for_url("**/games/pair_quad?*pq-7=4*")
        assert "Score: +20" in page.locator("#pq-result").inner_text()
    finally:
        context.close()
