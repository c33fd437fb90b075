"""Issue 13 item 8 in Chromium: a name can't reorder its neighbours. Names are stored without
control or bidi characters, and every place a page shows a name isolates it (<bdi> or
``unicode-bidi: isolate`` on an element holding exactly that name): the table page, the
correction page, the change log, the host board and the laptop's list of recent tables."""

from __future__ import annotations

import pytest

from tests.browser.pages import settled

from companion import store as storage
from companion.tables import service as store
from helpers import rwd_facts  # tests/ is on sys.path (its conftest.py)
import table_writes

# One name with an unterminated right-to-left override (stored without it), Hebrew, Arabic.
RAW_NAMES = ["\u202eEvilyn", "שרה", "Qamar", "قمر"]
SHOWN = ["Evilyn", "שרה", "Qamar", "قمر"]

# Text nodes holding a name whose nearest isolating ancestor isn't exactly that name.
UNISOLATED = """(names) => {
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, option, template, [hidden]")) continue;
    if (!parent.getClientRects().length) continue;  // not shown
    for (const name of names) {
      if (!node.data.includes(name)) continue;
      let el = parent, ok = false;
      while (el && el !== document.body) {
        const bidi = getComputedStyle(el).unicodeBidi;
        if (el.tagName === "BDI" || bidi === "isolate" || bidi === "isolate-override" || bidi === "plaintext") {
          ok = el.textContent.trim() === name;
          break;
        }
        el = el.parentElement;
      }
      if (!ok) bad.push(`${name} in <${parent.tagName.toLowerCase()} class="${parent.className}">: ${parent.textContent.trim().slice(0, 80)}`);
    }
  }
  return bad;
}"""


def won_by(seat: int, progress) -> dict:
    chips, tricks = [4] * 4, [2] * 4
    chips[seat], tricks[seat] = 1, 7
    return rwd_facts(progress, chips, tricks)


@pytest.fixture
def rtl_table(live_server):
    conn = storage.connect(live_server.app.config["DATABASE"])
    token = table_writes.create(conn, "rwd", RAW_NAMES, {})
    table = store.load(conn, token)
    assert list(table.setup.players) == SHOWN  # stored clean: no override left to leak
    table_writes.add_deal(conn, token, 1, won_by(1, table.progress()))
    table = store.load(conn, token)
    table_writes.add_deal(conn, token, 2, rwd_facts(table.progress(), choice=1))  # deal 3 asks who starts: seat chips
    table = store.load(conn, token)
    table_writes.edit_deal(conn, token, 1, won_by(2, table.progress(upto=0)),
                    store.fingerprint(table.deals[0]))  # the log shows a correction too
    conn.close()
    return token


@pytest.mark.parametrize("path", ["", "/deals/1/edit", "/log", "/host"])
def test_every_name_on_a_table_page_is_isolated(live_server, phone, rtl_table, path, artifacts_dir):
    phone.goto(live_server(f"/t/{rtl_table}{path}"))
    settled(phone)
    assert phone.evaluate(UNISOLATED, SHOWN) == []
    body = phone.locator("body").inner_text()
    assert "\u202e" not in body and "Evilyn" in body
    shots = artifacts_dir / "harden"  # this checkout's, not a /tmp folder every checkout shares
    shots.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(shots / f"rtl-names{path.replace('/', '-') or '-table'}.png"), full_page=True)
    assert phone.errors == []


def test_recent_tables_on_the_laptop_isolate_names(live_server, laptop, rtl_table):
    laptop.goto(live_server("/"))
    assert laptop.locator(f"a[href$='{rtl_table}']").count() == 1
    assert laptop.evaluate(UNISOLATED, SHOWN) == []


def test_an_override_in_one_name_does_not_reverse_the_next(live_server, phone, rtl_table):
    """What players saw before: the standings read the later names backwards."""
    phone.goto(live_server(f"/t/{rtl_table}"))
    # Qamar (Latin) renders left to right: its first letter is left of its last.
    boxes = phone.evaluate("""() => {
      const bdi = [...document.querySelectorAll('bdi')].find(b => b.textContent === 'Qamar');
      const range = document.createRange();
      range.setStart(bdi.firstChild, 0); range.setEnd(bdi.firstChild, 1);
      const first = range.getBoundingClientRect().left;
      range.setStart(bdi.firstChild, 4); range.setEnd(bdi.firstChild, 5);
      return [first, range.getBoundingClientRect().left];
    }""")
    assert boxes[0] < boxes[1]
