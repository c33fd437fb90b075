"""The pages the serving layer answers by itself, outside Flask (templates/serving/…): a table
that is busy, a table that is gone, too many wrong links, a body far too large.

They are rendered from templates through the app's Jinja environment and translated through
the catalog (messages.po) in the phone's language, chosen as Flask chooses it (the language
cookie, else Accept-Language). Refusing must cost next to nothing, so each fixed page is
rendered once per language and kept; only the busy page that gives back what was typed is
rendered per refusal.
"""

from __future__ import annotations

import threading
from typing import Iterable

from werkzeug.datastructures import LanguageAccept

from ..lru import BytesLRU
from werkzeug.http import parse_accept_header, parse_cookie

FIXED = ("busy_note", "gone", "too_many_links", "too_large", "too_slow")


def language(cookie_header: str, accept_language: str) -> str:
    """The page language for a request, as companion.web.select_locale picks it."""
    from ..web import LANG_COOKIE, LANGUAGES

    if cookie_header and LANG_COOKIE in cookie_header:
        # Read as Flask reads it (werkzeug's parser): the shared live answers (serving/live.py)
        # are filed by the language the Flask view chose, and must be found by the same one.
        chosen = parse_cookie(cookie_header).get(LANG_COOKIE)
        if chosen in LANGUAGES:
            return chosen
    try:
        return parse_accept_header(accept_language or "", LanguageAccept).best_match(LANGUAGES, default="en")
    except Exception:
        return "en"


def environ_language(environ: dict) -> str:
    return language(environ.get("HTTP_COOKIE", ""), environ.get("HTTP_ACCEPT_LANGUAGE", ""))


class Pages:
    def __init__(self, app):
        self.app = app
        self.fixed: dict[tuple[str, str], bytes] = {}
        self.busy_pages = BytesLRU(1024 * 1024)
        self.lock = threading.Lock()

    def render(self, name: str, lang: str, **context) -> bytes:
        from flask_babel import force_locale

        with self.app.app_context(), force_locale(lang):
            template = self.app.jinja_env.get_template(f"serving/{name}.html")
            return template.render(lang=lang, **context).encode()

    def page(self, name: str, lang: str) -> bytes:
        """One of the fixed pages (FIXED) in ``lang``, rendered once."""
        key = (name, lang)
        found = self.fixed.get(key)
        if found is None:
            with self.lock:
                found = self.fixed.get(key)
                if found is None:
                    found = self.fixed[key] = self.render(name, lang)
        return found

    def for_request(self, name: str, environ: dict) -> bytes:
        return self.page(name, environ_language(environ))

    def busy(self, environ: dict, path: str, typed: Iterable[tuple[str, str]]) -> bytes:
        """The refusal for a plain page or form: the message, and what was typed, ready to send
        again. Without a form (a page asked again and again) it is kept per language and path."""
        typed = list(typed)
        lang = environ_language(environ)
        if typed:
            return self.render("busy", lang, path=path, typed=typed)
        key = ("busy", lang, path)
        page = self.busy_pages.get(key)
        if page is None:
            page = self.render("busy", lang, path=path, typed=[])
            self.busy_pages.put(key, page)
        return page
