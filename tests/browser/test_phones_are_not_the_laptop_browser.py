"""A phone is never the laptop (issue 41; the developers' guide): every Chromium phone of these
tests reaches the server from its own loopback address (127.0.0.2, 127.0.0.3 …; bench/chromium.py's
LoopbackPhone, a SOCKS5 proxy per browser context) and is refused the laptop's hall, while the
laptop's own browser (127.0.0.1) is the organiser. Closing a phone's context checks /hall again."""

from __future__ import annotations

from .conftest import hall_refused, new_phone_context
from .pages import PHONE


def test_a_phone_reaches_the_server_from_its_own_address_and_is_refused_the_hall(phone, phone2, laptop, live_server):
    phone.goto(live_server("/hall"))
    assert "The hall view opens only on the host laptop." in phone.locator("body").inner_text()
    laptop.goto(live_server("/hall"))
    assert laptop.locator("#board, #seating, h1").count() > 0
    base = live_server("")
    statuses = {page: page.context.request.get(f"{base}/hall", max_redirects=0).status for page in (phone, phone2, laptop)}
    assert statuses == {phone: 403, phone2: 403, laptop: 200}
    # Two phones are two devices, neither of them the laptop.
    assert phone.context._companion_phone.loopback.address != phone2.context._companion_phone.loopback.address


def test_the_check_on_closing_tells_a_laptop_from_a_phone(browser, laptop, live_server):
    base = live_server("")
    laptop.goto(base + "/")
    assert hall_refused(laptop.context, {base}) == {base: 200}  # what the check would reject
    context = new_phone_context(browser, **PHONE)
    try:
        context.new_page().goto(base + "/")
        assert hall_refused(context, {base}) == {base: 403}
    finally:
        context.close()
