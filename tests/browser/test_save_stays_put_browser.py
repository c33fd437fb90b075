"""The score check's answer never moves Save: it stands under the buttons, so the tap that
follows the last value's tap lands on Save however fast the check answers (it once appeared
above Save and pushed it ~60 px down, so a quick tap hit the check's text and saved nothing)."""

from __future__ import annotations

import pytest

from tests.browser.pages import open_table, put, save, settled

pytestmark = pytest.mark.browser

DEAL = {"chips-0": 2, "chips-1": 7, "tricks-0": 5, "tricks-1": 6}  # RWD 3p, the last player on auto


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_checks_answer_leaves_save_where_it_was(phone, live_server, lang):
    if lang == "ja":
        phone.goto(live_server("/lang/ja?next=/"))
    url = open_table(phone, live_server, "rwd", 3)
    first = list(DEAL.items())
    for name, value in first[:1]:
        put(phone, name, value)
    phone.locator("#entry .preview .to-go").wait_for()  # "n more values": the check has answered once
    before = box(phone, "#entry button[type=submit]")
    for name, value in first[1:]:
        put(phone, name, value)
    phone.locator("#entry .score-preview").wait_for()  # the whole deal's check: several lines
    assert box(phone, "#entry button[type=submit]") == before
    save(phone)
    # The correction page: its check answers under both buttons too.
    phone.goto(url + "/deals/1/edit")
    settled(phone)
    phone.locator("#preview-edit .score-preview").wait_for()  # values put back: checked at once
    save_button = box(phone, "#entry button[type=submit]")
    preview = box(phone, "#preview-edit")
    assert preview["y"] >= save_button["y"] + save_button["height"]
