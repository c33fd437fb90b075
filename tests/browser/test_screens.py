"""Every screen at every width: no sideways scrolling, no control covered by another, no
clipped text, no word broken mid-word; axe-core finds no serious or critical violation, in
English and Japanese, light and dark.

One server, one browser and one context per language for the whole module: each page is
loaded once per language and re-laid out at each width (set_viewport_size), so the run stays
short enough for CI. Screenshots go to test-artifacts/screens/: of a page at a width where a
check found a problem, and of every page and width with SCREENSHOTS=all (they were half of
this module's time, for pictures nobody looked at when every check passed).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from companion.app import create_app
from companion.store import get_db
import table_writes
from .conftest import new_phone_context

pytestmark = pytest.mark.browser

WIDTHS = [(360, 640), (390, 844), (768, 1024), (1024, 768), (1280, 800), (1920, 1080)]
LANGS = ["en", "ja"]
NAMES = ["Aiko", "Bartholomew Featherstone", "千代子", "Daisuke", "Emi", "Fumi"]

# One valid first deal per game, as a phone sends it (the last player's values left on auto).
def first_deal(game: str, n: int) -> dict[str, str]:
    if game == "rwd":
        t = 52 // n
        form = {f"chips-{s}": str(t // n) for s in range(n - 1)}
        form |= {f"tricks-{s}": str(t // n) for s in range(n - 1)}
        form["chips-0"] = str(t // n - 1)  # Aiko wins the deal
        return form
    if game == "miraiscope":
        return {"queens-0": "2", "points-0": "11", "last_trick": "0"}
    if game == "lucky_cube":
        return {f"trick-{k}": str(k % n) for k in range(1, 7)}
    if game == "pair_quad":
        # Aiko takes every ranked card in the fewest tricks; the last player the other cards.
        tricks = -(-20 // n)
        return {f"{rank}-0": "4" for rank in "7AKQJ"} | {"other-0": str(tricks * n - 20)}
    return ({f"bid{w}-{s}": "C" for w in (1, 2) for s in range(n)}
            | {f"tricks-{s}": "1" for s in range(n - 1)} | {"open_bid": "none"})


TABLES = [("rwd", 3), ("rwd", 4), ("rwd", 5), ("miraiscope", 2), ("lucky_cube", 3),
          ("lucky_cube", 4), ("lucky_cube", 5), ("pair_quad", 3), ("pair_quad", 4),
          ("pair_quad", 5), ("pair_quad", 6), ("twin_shoot", 4), ("twin_shoot", 6)]
GAMES = ["rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot"]


def page_paths(tokens: dict[tuple[str, int], str]) -> dict[str, str]:
    """Every page a player can reach, by a short name."""
    paths = {"home": "/"}
    paths |= {f"game-{g}": f"/games/{g}" for g in GAMES}
    paths |= {f"new-{g}": f"/tables/new?game={g}" for g in GAMES}
    paths["new-pair_quad-6"] = "/tables/new?game=pair_quad&players=6"
    for (game, n), token in tokens.items():
        paths[f"table-{game}-{n}p"] = f"/t/{token}"
    for game in GAMES:  # one table per game for the pages below the table page
        n = next(n for g, n in TABLES if g == game and n in (2, 4))
        token = tokens[(game, n)]
        paths[f"correct-{game}"] = f"/t/{token}/deals/1/edit"
        paths[f"host-{game}"] = f"/t/{token}/host"
    paths["log"] = f"/t/{tokens[('rwd', 4)]}/log"
    paths |= {"hall": "/hall", "hall-cards": "/hall/cards", "hall-new-night": "/hall/new-night"}
    paths["error-404"] = "/t/no-such-table-here-at-all"
    paths["error-game"] = "/games/no-such-game"
    return paths


# --- fixtures (module-wide: one server, one browser context per language) ----------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from waitress import create_server

    db = tmp_path_factory.mktemp("screens") / "screens.sqlite"
    app = create_app({"DATABASE": str(db), "SECRET_KEY": "test"})
    tokens = {}
    with app.app_context():
        conn = get_db()
        for game, n in TABLES:
            token = table_writes.create(conn, game, NAMES[:n], {})
            table_writes.add_deal(conn, token, 1, form=first_deal(game, n))
            tokens[(game, n)] = token
        fresh = table_writes.create(conn, "rwd", NAMES[:4], {})  # no deal yet: for the keyboard test
        fresh_pq = table_writes.create(conn, "pair_quad", NAMES[:4], {})
        fresh_ts = table_writes.create(conn, "twin_shoot", NAMES[:4], {})
    # 32 threads: each open table page holds one for its event stream.
    httpd = create_server(app, host="127.0.0.1", port=0, threads=32, ident="screens")
    thread = threading.Thread(target=httpd.run, daemon=True)
    thread.start()
    paths = page_paths(tokens)
    paths["fresh-rwd-4p"] = f"/t/{fresh}"  # not in the parametrized list: they get deals
    paths["fresh-pair_quad-4p"] = f"/t/{fresh_pq}"
    paths["fresh-twin_shoot-4p"] = f"/t/{fresh_ts}"
    yield f"http://127.0.0.1:{httpd.effective_port}", paths
    httpd.close()


@pytest.fixture(scope="module")
def lang_pages(browser, server):
    base, _ = server
    pages, contexts = {}, []
    for lang in LANGS:
        context = new_phone_context(browser, viewport={"width": 390, "height": 844},
                                      locale="ja-JP" if lang == "ja" else "en-US")
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(f"{base}/lang/{lang}?next=/")
        pages[lang] = page
        contexts.append(context)
    yield pages
    for context in contexts:
        context.close()


SCREENS_DIR = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"
EVERY_SCREENSHOT = os.environ.get("SCREENSHOTS") == "all"

# Run in the page: what is wrong with the layout at the current width.
LAYOUT_PROBLEMS = r"""() => {
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) {
    const wide = [...document.body.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > doc.clientWidth + 1)
      .map(e => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '')).slice(-3);
    problems.push(`scrolls sideways: ${doc.scrollWidth}px content in ${doc.clientWidth}px (${wide.join(', ')})`);
  }
  const visible = (el) => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !el.closest('[hidden], details:not([open]) > :not(summary)');
  };
  const describe = (el) => {
    const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.name ? '[name=' + el.name + ']' : ''} "${text}"`;
  };
  // Controls: each input's label (or the control itself) must be on top at its own centre.
  const controls = [...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea, main button, main a[href], main summary, header a, header button')];
  const saved = scrollY;
  for (const control of controls) {
    const target = (control.labels && control.labels.length) ? control.labels[0] : control;
    if (!visible(target) || target.closest('.sr-only')) continue;
    // A link that wraps is several boxes: aim at its first one.
    const box = (el) => (getComputedStyle(el).display === 'inline' && el.getClientRects()[0]) || el.getBoundingClientRect();
    const r0 = box(target);
    const pageY = r0.top + scrollY + r0.height / 2;
    window.scrollTo(0, pageY - innerHeight / 2);
    const r = box(target);
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || x >= innerWidth) { problems.push(`off screen: ${describe(control)}`); continue; }
    const hit = document.elementFromPoint(x, y);
    const ok = hit && (target.contains(hit) || control.contains(hit));
    if (!ok) problems.push(`covered: ${describe(control)} lies under ${hit ? describe(hit) + (hit.className ? '.' + String(hit.className).split(' ')[0] : '') : 'nothing'}`);
  }
  window.scrollTo(0, saved);
  // Clipped text: a box that hides what it holds.
  for (const el of document.querySelectorAll('main *, header *')) {
    const s = getComputedStyle(el);
    if (!visible(el) || el.closest('.sr-only') || el.tagName === 'svg' || el.closest('svg')) continue;
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) continue;
    const clipsX = s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
    const clipsY = s.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 0;
    const scrolls = ['auto', 'scroll'].includes(s.overflowX) || ['auto', 'scroll'].includes(s.overflowY);
    if ((clipsX || clipsY) && !scrolls && el.textContent.trim())
      problems.push(`clipped text: ${describe(el)}`);
  }
  // Labels, headings and keys must not break inside a word (a squeezed box does).
  for (const el of document.querySelectorAll('main a, main button, main summary, main label, main legend, main th, header a, .chip span, .tap span, .seg')) {
    const text = el.textContent.trim();
    if (!visible(el) || !text || text.length > 60) continue;
    if (el.childNodes.length !== 1 || el.firstChild.nodeType !== Node.TEXT_NODE) continue;
    // Where the lines break: inside a word means between two letters of one script (Latin,
    // digits, katakana); Japanese may break between phrases (word-break: auto-phrase).
    const node = el.firstChild, range = document.createRange();
    const script = (c) => /[A-Za-z0-9]/.test(c) ? 'latin' : /[\u30A1-\u30FA\u30FC-\u30FF]/.test(c) ? 'katakana' : null;
    let lastTop = null;
    for (let i = 0; i < text.length && node.length > i; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rect = [...range.getClientRects()].find(r => r.width > 0);
      if (!rect) continue;
      const top = Math.round(rect.top);
      if (lastTop !== null && top > lastTop + 2 && script(node.data[i - 1]) && script(node.data[i - 1]) === script(node.data[i])) {
        problems.push(`breaks mid-word: ${describe(el)} at "${node.data.slice(0, i)}|${node.data.slice(i)}"`);
        break;
      }
      lastTop = top;
    }
  }
  return problems;
}"""


def axe_serious(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:4])
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def pytest_generate_tests(metafunc):
    if "screen" in metafunc.fixturenames:
        # The page names are fixed by TABLES and GAMES; tokens are filled in by the server fixture.
        names = list(page_paths({key: "x" for key in TABLES}))
        metafunc.parametrize("screen", names)


@pytest.mark.parametrize("lang", LANGS)
def test_screen_fits_every_width_and_passes_axe(lang, screen, server, lang_pages):
    base, paths = server
    page = lang_pages[lang]
    response = page.goto(base + paths[screen])
    assert response is not None and (response.status < 500), f"{screen}: HTTP {response.status}"
    page.wait_for_load_state("load")
    SCREENS_DIR.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(30)  # one layout pass after the resize
        found = [f"{width}px: {p}" for p in page.evaluate(LAYOUT_PROBLEMS)]
        problems += found
        if found or EVERY_SCREENSHOT:
            page.screenshot(path=str(SCREENS_DIR / f"{screen}-{lang}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        problems += [f"axe {scheme}: {p}" for p in axe_serious(page)]
    page.emulate_media(color_scheme="light")
    assert not problems, f"{screen} ({lang}):\n" + "\n".join(problems)


# --- keyboard ---------------------------------------------------------------------------------------

FOCUS_RING = """() => {
  const el = document.activeElement;
  // A visually hidden radio shows its focus on the key beside it (the label's span).
  const shown = (el.matches('input[type=radio], input[type=checkbox]') && el.nextElementSibling) || el;
  const s = getComputedStyle(shown);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none';
  return {ring, name: el.name || '', tag: el.tagName, type: el.type || '', text: (el.innerText || el.value || '').trim().slice(0, 30)};
}"""


def test_a_deal_entered_with_the_keyboard_alone_shows_a_focus_ring_everywhere(server, browser):
    """Tab through the table page: every stop shows a focus ring; the deal's tap rows are
    reached by Tab, a value chosen with the arrow keys, the deal saved with Enter."""
    base, paths = server
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(base + paths["fresh-rwd-4p"])
        page.wait_for_load_state("load")
        wanted = {"chips-0": 3, "chips-1": 4, "chips-2": 2, "tricks-0": 4, "tricks-1": 3, "tricks-2": 5}
        stops, no_ring, chosen = 0, [], set()
        while stops < 400:
            page.keyboard.press("Tab")
            stops += 1
            focus = page.evaluate(FOCUS_RING)
            if not focus["ring"]:
                no_ring.append(focus)
            if focus["name"] in wanted and focus["name"] not in chosen:
                for _ in range(wanted[focus["name"]]):  # from 0, one arrow per step
                    page.keyboard.press("ArrowRight")
                chosen.add(focus["name"])
            if focus["tag"] == "BUTTON" and focus["type"] == "submit" and "Save deal" in focus["text"] \
                    and chosen == set(wanted):
                break
        assert not no_ring, f"focus without a visible ring: {no_ring[:5]}"
        assert chosen == set(wanted), f"tap rows never reached by Tab: {set(wanted) - chosen}"
        checked = page.evaluate("() => Object.fromEntries([...new FormData(document.querySelector('#entry'))]"
                                ".filter(([k]) => /^(chips|tricks)-/.test(k)))")
        assert checked == {**{k: str(v) for k, v in wanted.items()}, "chips-3": "", "tricks-3": ""}
        # The worked-out last values are shown before saving.
        assert page.locator("#f-chips-3 output.derived-value").inner_text().strip() == "= 4"
        assert page.locator("#f-tricks-3 output.derived-value").inner_text().strip() == "= 1"
        with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as info:
            page.keyboard.press("Enter")
        assert info.value.status == 200
        page.wait_for_function("() => document.querySelector('#entry h2')?.textContent.includes('2')")
    finally:
        context.close()


def test_correction_page_shows_worked_out_values_as_auto_and_follows_changes(server, browser):
    """Deal 1 of the RWD table was saved with the last player on auto; correcting another
    player's chips moves the worked-out value with it."""
    base, paths = server
    context = new_phone_context(browser, viewport={"width": 390, "height": 844}, has_touch=True, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(base + paths["correct-rwd"])  # 4 players, 13 a half: chips 2 3 3 (5)
        page.locator("#entry").wait_for()
        page.wait_for_function("() => document.querySelector('#f-chips-3 output.derived-value')?.textContent")
        assert page.locator('#f-chips-3 .tap.auto input').is_checked()
        assert page.locator("#f-chips-3 output.derived-value").inner_text().strip() == "= 5"
        page.locator('#entry #f-chips-0 label:has(input[value="0"])').tap()
        assert page.locator("#f-chips-3 output.derived-value").inner_text().strip() == "= 7"
        assert page.locator('#f-chips-3 label.derived:has(input[value="7"])').count() == 1
        # Overwriting the worked-out value is one tap; "auto" brings it back.
        page.locator('#entry #f-chips-3 label:has(input[value="6"])').tap()
        assert page.locator('#f-chips-3 input[value="6"]').is_checked()
        page.locator('#entry #f-chips-3 label.auto').tap()
        assert page.locator('#f-chips-3 .tap.auto input').is_checked()
    finally:
        context.close()


def test_counts_by_tap_with_the_last_player_and_other_cards_worked_out(server, browser):
    """Pair & Quad, 4 players: blank counts are none, a tap on the tricks won fills in Other,
    the last player's ranks and other cards show as worked out, and the deal saves."""
    base, paths = server
    context = new_phone_context(browser, viewport={"width": 390, "height": 844}, has_touch=True, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(base + paths["fresh-pair_quad-4p"])
        page.locator("#entry").wait_for()
        tap = lambda name, value: page.locator(f'#entry #f-{name} label:has(input[value="{value}"])').tap()
        tap("7-0", 1)
        tap("A-0", 2)
        page.locator('#entry [data-other="f-other-0"] button[data-tricks="3"]').tap()
        assert page.locator("#f-other-0").input_value() == "9"  # 3 tricks x 4 cards - 3 ranked
        tap("7-1", 2)
        page.locator('#entry [data-other="f-other-1"] button[data-tricks="2"]').tap()
        assert page.locator("#f-other-1").input_value() == "6"
        # Daisuke (last): 7s 4 - 1 - 2 = 1, Aces 2, the rest 4; other cards 52 - 12 - 8 - 15 = 17.
        page.wait_for_function("() => document.querySelector('#f-other-3').placeholder.includes('17')")
        assert page.locator('#f-7-3 label.derived:has(input[value="1"])').count() == 1
        assert page.locator('#f-A-3 label.derived:has(input[value="2"])').count() == 1
        with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as info:
            page.locator("#entry button[type=submit]").tap()
        assert info.value.status == 200, page.locator("#entry").inner_text()[:500]
        page.wait_for_function("() => document.querySelector('#entry h2')?.textContent.includes('2')")
    finally:
        context.close()


def test_tap_rows_work_as_a_plain_form_without_javascript(server, browser):
    """No script at all: the keys are radio buttons, "auto" is sent blank and the rules work
    the last player's tricks out; the saved deal shows on the scoresheet."""
    base, paths = server
    context = new_phone_context(browser, viewport={"width": 390, "height": 844}, java_script_enabled=False,
                                  locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(base + paths["fresh-twin_shoot-4p"])
        for seat in range(4):
            for slot in ("bid1", "bid2"):
                page.locator(f'#entry label:has(input[name="{slot}-{seat}"][value="C"])').click()
        for seat, tricks in enumerate([3, 3, 2]):
            page.locator(f'#entry #f-tricks-{seat} label:has(input[value="{tricks}"])').click()
        assert page.locator("#f-tricks-3 .tap.auto input").is_checked()
        with page.expect_navigation(wait_until="load"):  # the post, its redirect, the table
            page.locator("#entry button[type=submit]").click()
        assert page.locator("#deal-1").count() == 1, page.locator("main").inner_text()[:400]
    finally:
        context.close()
