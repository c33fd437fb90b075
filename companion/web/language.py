"""The page's language: one rule for the Flask pages and for the answers the serving layer
gives by itself (companion/serving/pages.py), so a phone reads every page in one language.

``?lang=ja`` first (a link or a printed QR card opens the page in that language, and the
language is then remembered), then the language switch's cookie, then the browser's
Accept-Language. Needs no app or request context: the serving layer asks with a WSGI environ.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie

LANGUAGES = ("en", "ja")
LANG_COOKIE = "lang"
REMEMBERED_FOR = 365 * 24 * 3600  # seconds: the language switch's choice lasts a year


def pick(asked: str | None, chosen: str | None, accept_language: str | None) -> str:
    """The language for ``?lang=`` (``asked``), the cookie's value (``chosen``) and the
    Accept-Language header, in that order; English when none names one of ours."""
    if asked in LANGUAGES:
        return asked
    if chosen in LANGUAGES:
        return chosen
    try:
        return parse_accept_header(accept_language or "", LanguageAccept).best_match(LANGUAGES, default="en")
    except Exception:  # a malformed header is as good as none
        return "en"


def cookie_language(cookie_header: str | None) -> str | None:
    """The language cookie's value in a raw Cookie header, or None. Read with werkzeug's parser,
    as Flask reads ``request.cookies``: the shared live answers (serving/live.py) are filed by the
    language the Flask view chose, and must be found by the same one."""
    if not cookie_header or LANG_COOKIE not in cookie_header:
        return None
    return parse_cookie(cookie_header).get(LANG_COOKIE)


def language(cookie_header: str, accept_language: str, query: str = "") -> str:
    """The language from raw headers (and the query string, if there is one)."""
    asked = parse_qs(query or "").get("lang", [None])[-1] if "lang=" in (query or "") else None
    return pick(asked, cookie_language(cookie_header), accept_language)


def environ_language(environ: dict) -> str:
    """The language of a WSGI request, as the Flask pages choose it."""
    return language(environ.get("HTTP_COOKIE", ""), environ.get("HTTP_ACCEPT_LANGUAGE", ""),
                    environ.get("QUERY_STRING", ""))


def select_locale() -> str:
    """Flask-Babel's locale selector: this request's language."""
    from flask import request

    return pick(request.args.get("lang"), request.cookies.get(LANG_COOKIE),
                request.headers.get("Accept-Language", ""))


def remember(response, code: str):
    """Keep ``code`` as this browser's language (the language switch's cookie)."""
    response.set_cookie(LANG_COOKIE, code, max_age=REMEMBERED_FOR, samesite="Lax", httponly=True)
    return response


def remember_language(response):
    """After a request: a page opened with ?lang=ja keeps that language on the next pages, as
    the language switch (/lang/<code>) does: the same cookie."""
    from flask import request

    asked = request.args.get("lang")
    if asked in LANGUAGES and request.cookies.get(LANG_COOKIE) != asked:
        remember(response, asked)
    return response
