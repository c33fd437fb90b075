"""The round clock in the browser (issue 44): the organiser's Start / Pause / +minutes sit in the
first 800 px of the hall at 1280×800; a phone at 390 px shows its table's whole label on the
clock line; and a phone that counts down to zero vibrates once (a spy on navigator.vibrate),
its table page saying time is up. The phone reaches the server from its own loopback address
(never the laptop: its GET /hall is 403, checked as its context closes)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from companion.night import service as night
from companion.store import connect, write
from companion.store import nights as night_rows
from table_writes import done
from .conftest import new_phone_context
from .pages import LAPTOP, PHONE, TIMEOUT_MS

SPY = "window.__vibrations = []; navigator.vibrate = function (p) { window.__vibrations.push(p); return true; };"


def test_the_clock_controls_the_label_and_one_vibration_at_zero(browser, live_server, artifacts_dir):
    conn = connect(live_server.app.config["DATABASE"])
    try:
        for name in ["Ann", "Bo", "Cy", "Di"]:
            done(night.join(conn, name))
        drawn = done(night.draw_round(conn, offered=["rwd"], seed="clock", minutes=1))
        token = drawn.tables[0].table.token
        laptop = browser.new_context(**LAPTOP)
        hall = laptop.new_page()
        hall.set_default_timeout(TIMEOUT_MS)
        hall.goto(live_server("/hall"))
        start = hall.get_by_role("button", name="Start round 1 (1 min)")
        box = start.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 800, box
        hall.screenshot(path=str(artifacts_dir / "clock-hall-1280.png"))
        start.click()
        hall.wait_for_url("**/hall#seating")
        for name in ("Pause the clock", "+5 min for every table"):
            box = hall.get_by_role("button", name=name).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 800, (name, box)
        laptop.close()

        # Three seconds left: the round began 57 s ago (as if started then).
        with write(conn):
            latest = night_rows.rounds(conn, night_rows.current_night(conn))[-1]
            began = datetime.now(timezone.utc) - timedelta(seconds=57)
            night_rows.set_clock(conn, latest["id"], 1, began.isoformat(timespec="seconds"))
        context = new_phone_context(browser, **PHONE)
        try:
            context.add_init_script(SPY)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(live_server(f"/t/{token}"))
            where = page.locator("#round-clock .clock-where")
            where.wait_for()
            assert where.inner_text() == f"Table {drawn.tables[0].table.seq}"
            assert page.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= 390",
                                 where.element_handle())
            page.locator("#round-clock .round-clock.time-up").wait_for(timeout=10_000)
            page.wait_for_timeout(1_500)  # a second tick at zero must not vibrate again
            assert page.evaluate("window.__vibrations.length") == 1
            assert "Time! Finish the deal you are playing." in page.locator("#round-clock").inner_text()
            page.screenshot(path=str(artifacts_dir / "clock-phone-390-time-up.png"))
        finally:
            context.close()
    finally:
        conn.close()
