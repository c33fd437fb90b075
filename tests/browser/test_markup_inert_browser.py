"""Hostile markup typed into the app stays text, in real Chromium.

Player names (and the other things people type: a refused form's echo, a corrected deal's
fields, the calculators' card codes) carry script, event handlers, an htmx trigger and
template syntax. On every page that shows them — in English and Japanese, before and after
htmx swaps them in — nothing may run, no element may be created from them, no request may
go to their "x", and the names must read exactly as typed.

CSP alone would stop the scripts; these checks look for the markup itself (elements,
inline handlers, requests, CSP violation reports), so escaping is what is tested.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

import pytest

pytestmark = pytest.mark.browser

HOSTILE = {
    "lucky_cube": [
        "<script>window.__pwned=1</script>",
        '<img src=x onerror="window.__pwned=1">',
        '"><svg onload=window.__pwned=1>',
        "{{7*7}}",
        "javascript:window.__pwned=1",
    ],
    "twin_shoot": [
        "'><img src=x onerror=window.__pwned=1>",
        "<b hx-get=x hx-trigger=load>htmx</b>",
        "</textarea><svg onload=window.__pwned=1>",
        "%(name)s {name} ${7*7} &amp;",
    ],
}
# Typed where a form takes free text (card codes, a tampered number field).
TYPED = '"><img src=x onerror=window.__pwned=1>'

# Runs in every document before its own scripts: CSP reports raised by any markup.
REPORT_CSP = """
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspReports = window.__cspReports || [];
  window.__cspReports.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
}, true);
"""

STATE = """() => {
  const all = [...document.querySelectorAll('*')];
  const attr = (el, name) => el.getAttribute(name) || '';
  return {
    pwned: typeof window.__pwned,
    csp: window.__cspReports || [],
    lang: document.documentElement.lang,
    handlers: all.filter(el => [...el.attributes].some(a => a.name.toLowerCase().startsWith('on')))
                 .map(el => el.outerHTML.slice(0, 160)),
    inlineScripts: [...document.scripts].filter(s => !s.src).map(s => s.outerHTML.slice(0, 160)),
    foreignScripts: [...document.scripts]
                      .filter(s => s.src && new URL(s.src, location.href).origin !== location.origin)
                                         .map(s => s.src),
    jsUrls: all.filter(el => ['href', 'src', 'action', 'formaction', 'xlink:href']
                 .some(n => /^\\s*javascript:/i.test(attr(el, n)))).map(el => el.outerHTML.slice(0, 160)),
    injected: [...document.querySelectorAll(
        'img[src="x"], svg[onload], iframe, object, embed, [hx-get="x"], [hx-trigger="load"], textarea')]
              .map(el => el.outerHTML.slice(0, 160)),
    text: document.body.innerText,
  };
}"""


class Watch:
    """What a page did that it should not: requests to "x", off-site requests, CSP errors."""

    def __init__(self, page, live_server):
        self.page = page
        self.origin = live_server.url.rstrip("/")
        self.requests: list[str] = []
        page.add_init_script(REPORT_CSP)
        page.on("request", lambda request: self.requests.append(request.url))

    def check(self, where: str, names=(), values=()) -> dict:
        """Assert the current document is clean; ``names`` must read literally in its text,
        ``values`` literally in some form field."""
        page = self.page
        page.wait_for_load_state("load")  # images (an injected <img src=x>) have been tried
        page.wait_for_timeout(150)        # and their error handlers had their turn
        state = page.evaluate(STATE)
        assert state["pwned"] == "undefined", f"{where}: script from typed text ran"
        for key in ("handlers", "inlineScripts", "foreignScripts", "jsUrls", "injected"):
            assert state[key] == [], f"{where}: {key} built from typed text: {state[key]}"
        assert state["csp"] == [], f"{where}: CSP violations: {state['csp']}"
        csp_console = [e for e in page.errors if "Content Security Policy" in e or "Refused to" in e]
        assert csp_console == [], f"{where}: {csp_console}"
        to_x = [u for u in self.requests if urlsplit(u).path.rstrip("/").rsplit("/", 1)[-1] == "x"]
        assert to_x == [], f"{where}: requests to x: {to_x}"
        off_site = [u for u in self.requests if not u.startswith(self.origin) and not u.startswith("data:")]
        assert off_site == [], f"{where}: requests off this server: {off_site}"
        for name in names:
            assert name in state["text"], f"{where}: {name!r} is not shown as typed"
            assert page.get_by_text(name, exact=False).count() >= 1, f"{where}: no element reads {name!r}"
        if values:
            fields = page.evaluate("() => [...document.querySelectorAll('input, textarea')].map(e => e.value)")
            for value in values:
                assert value in fields, f"{where}: no form field holds {value!r} as typed"
        return state


# --- entering a deal by tapping (the htmx path) ------------------------------------------------------

def tap_choice(page, name: str, value) -> None:
    page.locator(f'#entry label:has(input[name="{name}"][value="{value}"])').tap()


def tap_step(page, field: str, value: int) -> None:
    """One tap on the value in a number's tap row."""
    page.locator(f'#entry #f-{field} label:has(input[value="{value}"])').tap()


def enter_deal(page, game: str) -> None:
    if game == "lucky_cube":  # seat 1 holds the die at 6; seat 4 won the last trick
        tap_choice(page, "die_holder", 0)
        tap_choice(page, "die_number", 6)
        tap_choice(page, "last_trick", 3)
    else:  # team 1 bids 3 + 3 and takes 3 + 3; team 2 misses
        for seat, (first, second, tricks) in enumerate([("C", "D", 3), ("C", "D", 3),
                                                        ("D", "D", 2), ("D", "D", 2)]):
            tap_choice(page, f"bid1-{seat}", first)
            tap_choice(page, f"bid2-{seat}", second)
            tap_step(page, f"tricks-{seat}", tricks)


def entrants(game: str, names: list[str]) -> list[str]:
    """What the scoresheet lists: players, or Twin Shoot's teams "A & B"."""
    if game == "twin_shoot":
        return [f"{names[i]} & {names[i + 1]}" for i in range(0, len(names), 2)]
    return names


# --- the test -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", list(HOSTILE))
def test_hostile_names_and_typed_text_stay_inert(game, live_server, phone, laptop):
    names = HOSTILE[game]
    shown = entrants(game, names)
    watch = Watch(phone, live_server)
    board = Watch(laptop, live_server)
    dialogs: list[str] = []
    for page in (phone, laptop):
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    # The new-table form refuses a name given twice and says so, quoting it: still text.
    phone.goto(live_server(f"/tables/new?game={game}&players={len(names)}"))
    for seat, name in enumerate(names):
        phone.locator(f"#f-name-{seat}").fill(name)
    phone.locator(f"#f-name-{len(names) - 1}").fill(names[0].upper())  # same name, other case
    # A plain form post: wait for the answer's document, not the form's own (already loaded).
    with phone.expect_navigation(wait_until="load"):
        phone.get_by_role("button", name="Open the table").tap()
    watch.check("refused new-table form", names=[names[0].upper()], values=names[:-1] + [names[0].upper()])

    phone.locator(f"#f-name-{len(names) - 1}").fill(names[-1])
    phone.get_by_role("button", name="Open the table").tap()
    phone.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]{16,}$"))
    table = urlsplit(phone.url).path
    watch.check("table page", names=names)

    laptop.goto(live_server(table + "/host"))
    before = laptop.locator("#live .deal-count").inner_text()
    board.check("host view", names=shown)
    laptop.goto(live_server("/"))
    board.check("home page (the host's recent tables)", names=names)
    laptop.goto(live_server(table + "/host"))

    # The as-you-type preview swaps names in; then the htmx save swaps the form and the sheet.
    enter_deal(phone, game)
    preview = phone.locator("#entry .score-preview")
    preview.wait_for()
    watch.check("preview swapped in", names=shown)
    assert all(name in preview.inner_text() for name in shown)
    with phone.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as saved:
        phone.locator("#entry button[type=submit]").tap()
    assert saved.value.status == 200, "the deal was not saved on the htmx path"
    assert saved.value.request.headers.get("hx-request") == "true"
    phone.wait_for_function("() => document.querySelector('#entry h2')?.textContent.includes('2')")
    assert phone.url.endswith(table), "the save navigated instead of swapping"
    watch.check("table page after the htmx save", names=shown)
    swapped_sheet, swapped_form = phone.locator("#live").inner_text(), phone.locator("#entry").inner_text()
    assert all(name in swapped_sheet for name in shown), swapped_sheet
    assert all(name in swapped_form for name in names), swapped_form
    assert phone.locator("#live table.standings td.total").count() == len(shown)

    # The big screen learns of the deal by polling and swaps its board.
    laptop.wait_for_function("(before) => document.querySelector('#live .deal-count')?.textContent !== before",
                             arg=before)
    board.check("host view after the poll swap", names=shown)
    assert all(name in laptop.locator("#live").inner_text() for name in shown)

    # The no-JavaScript correction form, and what it echoes when a field holds markup.
    phone.goto(live_server(table + "/deals/1/edit"))
    watch.check("edit page", names=names)
    field = "die_number" if game == "lucky_cube" else "tricks-0"
    phone.evaluate("""([field, value]) => {
        const form = document.querySelector('#entry');
        form.querySelectorAll(`[name="${field}"]`).forEach(e => e.remove());
        const input = document.createElement('input');
        input.type = 'hidden'; input.name = field; input.value = value;
        form.appendChild(input);
    }""", [field, TYPED])
    with phone.expect_response(lambda r: "/deals/1" in r.url and r.request.method == "POST") as refused:
        phone.locator("#entry button[type=submit]").tap()
    assert refused.value.status == 422
    # The outbox shows the refusal page in place of the form once its body has arrived.
    phone.locator("main").get_by_text(TYPED[:12]).first.wait_for()
    # The refusal quotes the field back ("… is not a whole number"): as text.
    watch.check("refused correction", names=names + [TYPED[:12]])

    phone.goto(live_server(table + "/log"))
    watch.check("change log")

    # The calculators' free-text card codes: swapped in by htmx, then reflected by the plain GET.
    phone.goto(live_server(f"/games/{game}?players={len(names)}"))
    boxes = phone.locator("form.calc input[type=text]")
    if boxes.count():
        box = boxes.first
        with phone.expect_response(lambda r: "/calc/" in r.url):
            box.fill(TYPED)
        phone.wait_for_timeout(100)
        watch.check("calculator result swapped in", names=[TYPED[:6]])  # "“\"><img” is not a card"
        query = box.evaluate("e => new URLSearchParams(new FormData(e.form)).toString()")
        phone.goto(live_server(f"/games/{game}?{query}"))
        watch.check("calculator page reflecting the card codes", values=[TYPED])

    # The same pages in Japanese.
    for path, expected, page, watcher in [(table, names, phone, watch), (table + "/host", shown, laptop, board),
                                          (table + "/deals/1/edit", names, phone, watch),
                                          (table + "/log", (), phone, watch)]:
        page.goto(live_server(f"/lang/ja?next={quote(path)}"))
        state = watcher.check(f"{path} in Japanese", names=expected)
        assert state["lang"] == "ja"

    assert dialogs == []
    # The only console errors: Chromium noting the two refused forms' 422 answers.
    errors = [e for e in phone.errors + laptop.errors if "the server responded with a status of 422" not in e]
    assert errors == [], errors
    assert len(phone.errors) == 2


def test_the_checks_see_markup_that_does_get_in(live_server, phone):
    """The detectors work: markup really inserted into a page is reported."""
    watch = Watch(phone, live_server)
    phone.goto(live_server("/"))
    watch.check("home page")
    phone.evaluate("""() => document.body.insertAdjacentHTML('beforeend',
        '<img src=x onerror="window.__pwned=1">')""")
    phone.wait_for_timeout(300)
    with pytest.raises(AssertionError, match="built from typed text|CSP violations|requests to x"):
        watch.check("home page with an injected image")
    state = phone.evaluate(STATE)
    assert state["handlers"] and state["injected"] and state["csp"]
    assert any(urlsplit(u).path.endswith("/x") for u in watch.requests)
    assert state["pwned"] == "undefined"  # CSP did block the handler: escaping is the first wall
