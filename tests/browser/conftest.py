"""Headless Debian Chromium driven by Playwright (sync API).

Missing Chromium or Playwright skips these tests on a developer's machine, but
fails them under CI (CI=true): browser tests must never silently skip there.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from urllib.parse import urlsplit
from pathlib import Path
from typing import Iterator

import pytest

from bench.chromium import LoopbackPhone, phone_context
from .pages import LAPTOP, PHONE, TIMEOUT_MS

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
REPO_ROOT = Path(__file__).resolve().parents[2]

SETTLE_MS = 5_000


def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_collection_modifyitems(config, items):
    """Everything in tests/browser is a browser test, marked or not."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def _playwright() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[test]')")
    if not os.access(CHROMIUM, os.X_OK):
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as playwright:
        with _contexts_close_settled():
            yield playwright


@contextmanager
def _contexts_close_settled() -> Iterator[None]:
    """Every ``BrowserContext.close()`` first waits until its pages have stopped navigating.

    Why: Chromium acknowledges closing a page whose navigation is committing without closing it,
    and Playwright then waits forever (microsoft/playwright#42068, #42366; seen here with
    Playwright 1.65 and Chromium 156). Our pages reload themselves after a write (the outbox, the
    live table), so a test ending right after a tap hung about one run in three in teardown.
    Leaving for about:blank first does not help: that is a navigation too, and the close raced
    its commit. So wait instead for a page that has loaded and stayed put for a moment.
    """
    from playwright.sync_api import BrowserContext, Error

    original = BrowserContext.close

    def settle(page) -> None:
        moves = []

        def moved(event) -> None:  # a navigation started (its request) or committed (its frame)
            if getattr(event, "frame", event) == page.main_frame:
                if not hasattr(event, "is_navigation_request") or event.is_navigation_request():
                    moves.append(event)

        page.on("request", moved)
        page.on("framenavigated", moved)
        try:
            for _ in range(20):
                page.wait_for_load_state("load", timeout=SETTLE_MS)
                moves.clear()
                page.wait_for_timeout(250)  # no script involved: works with JavaScript off too
                if not moves:
                    return
        except Error:
            pass  # the page is gone or stuck: the close is all that is left
        finally:
            if not page.is_closed():
                page.remove_listener("request", moved)
                page.remove_listener("framenavigated", moved)

    def close(self, *args, **kwargs):
        for page in list(self.pages):
            settle(page)
        phone = getattr(self, "_companion_phone", None)
        if phone is None:
            return original(self, *args, **kwargs)
        try:
            refused = hall_refused(self, phone.origins)
        finally:
            original(self, *args, **kwargs)  # its proxy closes with it (bench/chromium.py phone_context)
        assert all(status == 403 for status in refused.values()), \
            f"a phone from {phone.loopback.address} was answered /hall as the laptop: {refused}"

    BrowserContext.close = close
    try:
        yield
    finally:
        BrowserContext.close = original


@pytest.fixture(scope="session")
def browser(_playwright):
    """One headless Chromium for the whole session; every test gets fresh contexts."""
    try:
        instance = _playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                               args=CHROMIUM_ARGS)
    except Exception as exc:  # playwright.Error: the binary would not start
        unavailable(f"Chromium failed to start: {exc}")
    yield instance
    instance.close()


class PageErrors(list):
    """Console errors and uncaught exceptions a page produced (CSP violations included)."""


class _Phone:
    def __init__(self, loopback: LoopbackPhone):
        self.loopback = loopback
        self.origins: set[str] = set()  # the servers the phone's pages asked


def new_phone_context(browser, **options):
    """A browser context that is a phone, never the laptop: it reaches the server from its own
    loopback address (127.0.0.2, 127.0.0.3 …, through bench/chromium.py's LoopbackPhone), so
    the server treats it as a phone on the Wi-Fi. Closing it checks that every server its pages
    used refused it the laptop's hall (GET /hall: 403)."""
    context = phone_context(browser, **options)
    phone = _Phone(context.loopback)
    context.on("request", lambda request: phone.origins.add(origin_of(request.url)))
    context._companion_phone = phone
    return context


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


def hall_refused(context, origins: set[str]) -> dict[str, int]:
    """GET /hall of each server ``context``'s pages used, as that phone: the status of each that
    still answers (a test may have stopped its server: that one is left out)."""
    from playwright.sync_api import Error

    found = {}
    for origin in sorted(filter(None, origins)):
        try:
            found[origin] = context.request.get(f"{origin}/hall", timeout=5_000, max_redirects=0).status
        except Error:
            continue  # the server is gone (killed by the test, or stopped)
    return found


def _open(browser, options: dict, phone: bool = True) -> Iterator[object]:
    context = new_phone_context(browser, **options) if phone else browser.new_context(**options)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors = PageErrors()
    page.on("console", lambda message: errors.append(f"console: {message.text}")
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.errors = errors  # read it in a test: assert page.errors == []
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def phone(browser):
    """A phone's page (390x844 @2x, touch, en-US), from its own loopback address (never the
    laptop: :func:`new_phone_context`). ``page.errors`` lists console errors and uncaught exceptions."""
    yield from _open(browser, PHONE)


@pytest.fixture
def phone2(browser):
    """A second, independent phone (its own cookies and storage)."""
    yield from _open(browser, PHONE)


@pytest.fixture
def laptop(browser):
    """A page in a 1280x800 laptop context: the organiser's own browser (127.0.0.1)."""
    yield from _open(browser, LAPTOP, phone=False)


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """test-artifacts/ at the repo root; screenshots are kept there for people to look at."""
    path = REPO_ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path
