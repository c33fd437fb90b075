"""Every page in English and in Japanese on a phone (390x844, headless Chromium): the page
is in the chosen language and no text overflows its box. Screenshots are kept as
test-artifacts/i18n-<page>-<lang>.png for people to look at."""

from __future__ import annotations

import pytest

from tests.browser.pages import settled

from companion.games import GAMES
import table_writes

pytestmark = pytest.mark.browser

PHONE_WIDTH = 390
LANGS = ("en", "ja")
# Long and mixed names, the way people really type them at a table.
NAMES = ["山田 太郎", "ジョナサン・ウィリアムズ", "🎲 Dice", "Bartholomew Maximilian", "佐藤花子", "Bo"]

# A first deal for each game, as its deal form would post it (see tests/browser/test_tables_browser.py).
FIRST_DEAL = {
    "rwd": {"chips-0": "2", "chips-1": "7", "chips-2": "8", "tricks-0": "5", "tricks-1": "6", "tricks-2": "6"},
    "miraiscope": {"queens-0": "2", "points-0": "10", "last_trick": "0"},
    "lucky_cube": {"die_holder": "0", "die_number": "6", "last_trick": "2"},
    "pair_quad": {"7-0": "4", "A-1": "4", "K-2": "4", "Q-2": "4", "J-2": "4", "other-3": "32"},
    "twin_shoot": {"bid1-0": "C", "bid2-0": "D", "tricks-0": "3", "bid1-1": "C", "bid2-1": "D", "tricks-1": "3",
                   "bid1-2": "D", "bid2-2": "D", "tricks-2": "2", "bid1-3": "D", "bid2-3": "D", "tricks-3": "2"},
}

# Elements with visible text whose content is wider than their box. Boxes that scroll on
# purpose (overflow-x: auto/scroll), deliberate ellipses and screen-reader-only text are not
# overflow.
OVERFLOW_JS = """() => {
  const bad = [];
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  for (const el of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || style.display === 'inline' ||
        style.display === 'contents') continue;
    if (['svg', 'path', 'canvas', 'img', 'video', 'code', 'pre', 'script', 'style'].includes(el.tagName.toLowerCase())) continue;
    if (el.closest('svg')) continue;
    if (!el.innerText || !el.innerText.trim()) continue;
    if (el.clientWidth <= 2) continue;  // visually hidden (screen-reader only) text
    if (style.clip !== 'auto' || style.clipPath !== 'none') continue;
    if (['auto', 'scroll'].includes(style.overflowX)) continue;
    if (style.textOverflow === 'ellipsis') continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      bad.push(`${describe(el)}: scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}: ` +
               JSON.stringify(el.innerText.trim().slice(0, 80)));
    }
  }
  return bad;
}"""


def _make_tables(live_server) -> dict[str, str]:
    """One table per game (fewest players it allows), with a first deal when the game takes it."""
    from companion.store import get_db
    from companion.games import MatchSetup
    from companion.tables.forms import option_values

    paths = {}
    with live_server.app.app_context():
        for game in GAMES.values():
            n = min(game.players)
            options = option_values(game, {})
            token = table_writes.create(get_db(), game.id, NAMES[:n], options)
            progress = game.start(MatchSetup(game.id, tuple(NAMES[:n]), dict(options)))
            facts, errors = game.parse_deal(FIRST_DEAL[game.id], progress)
            if not errors and not game.validate(progress, facts):
                table_writes.add_deal(get_db(), token, 1, facts)
            paths[game.id] = f"/t/{token}"
    return paths


@pytest.fixture
def pages(live_server) -> dict[str, str]:
    found = {"home": "/"}
    found.update({f"game-{game_id}": f"/games/{game_id}" for game_id in GAMES})
    found.update({f"table-{game_id}": path for game_id, path in _make_tables(live_server).items()})
    return found


def _open_in(phone, live_server, path: str, lang: str) -> None:
    """Choose the language with the switch (a cookie), then load the page."""
    response = phone.goto(live_server(f"/lang/{lang}?next={path}"))
    assert response is not None and response.status == 200, path
    settled(phone)
    assert phone.locator("html").get_attribute("lang") == lang, path


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_fits_a_phone_in_each_language(lang, live_server, phone, pages, artifacts_dir):
    problems = []
    for name, path in pages.items():
        _open_in(phone, live_server, path, lang)
        # Open every collapsible part so its text is measured too.
        phone.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        phone.screenshot(path=str(artifacts_dir / f"i18n-{name}-{lang}.png"), full_page=True)
        width = phone.evaluate("document.documentElement.scrollWidth")
        if width > PHONE_WIDTH:
            problems.append(f"{name} ({lang}): the page is {width}px wide on a {PHONE_WIDTH}px phone")
        problems.extend(f"{name} ({lang}): {line}" for line in phone.evaluate(OVERFLOW_JS))
        title = phone.locator("h1").first.inner_text() if phone.locator("h1").count() else ""
        if name.startswith("game-"):
            game = GAMES[name.removeprefix("game-")]
            expected = game.name_ja if lang == "ja" else game.name_en
            if expected not in title:
                problems.append(f"{name} ({lang}): heading {title!r} lacks {expected!r}")
    assert not problems, "\n".join(problems)
    assert phone.errors == []


def test_a_japanese_font_is_installed():
    """Without a CJK font Chromium draws Japanese as boxes and the screenshots above lie.
    .ci/run installs fonts-noto-cjk together with Chromium."""
    import os
    import shutil
    import subprocess

    if not shutil.which("fc-list"):
        if os.environ.get("CI") == "true":
            pytest.fail("fc-list (fontconfig) is missing, so no font can be found")
        pytest.skip("fontconfig is not installed")
    fonts = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True,
                           timeout=30).stdout
    assert fonts.strip(), "no Japanese font installed: apt-get install fonts-noto-cjk"
