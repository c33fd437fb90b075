"""The language switch (the foundation issue): /lang/<code> sets a cookie and comes back to the
page, never off-site; Accept-Language picks Japanese; every page links the switch. Moved from
test_foundation.py."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from companion.games import GAMES


def test_language_switch_sets_cookie_and_comes_back(client):
    response = client.get("/lang/ja?next=/games/rwd")
    assert response.status_code in (302, 303)
    assert urlsplit(response.headers["Location"]).path == "/games/rwd"
    cookie = response.headers.get("Set-Cookie", "")
    assert cookie.startswith("lang=ja") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert '<html lang="ja"' in client.get("/").get_data(as_text=True)
    client.get("/lang/en")
    assert '<html lang="en"' in client.get("/").get_data(as_text=True)


def test_accept_language_picks_japanese(client):
    html = client.get("/", headers={"Accept-Language": "ja-JP,ja;q=0.9"}).get_data(as_text=True)
    assert '<html lang="ja"' in html


def test_unknown_language_sets_no_cookie(client):
    response = client.get("/lang/xx")
    assert response.status_code in (302, 303)
    assert "Set-Cookie" not in response.headers


@pytest.mark.parametrize("target", ["//evil.com", "https://evil.com/", "/\\evil.com", "\\\\evil.com",
                                    "http:evil.com", "", "evil.com"])
def test_language_switch_never_redirects_offsite(client, target):
    response = client.get("/lang/ja", query_string={"next": target})
    assert response.status_code in (302, 303)
    location = urlsplit(response.headers["Location"])
    assert location.netloc in ("", "localhost"), response.headers["Location"]
    assert location.path == "/"


def test_language_links_keep_the_page(client):
    html = client.get("/games/rwd" if "rwd" in GAMES else "/").get_data(as_text=True)
    assert "/lang/ja?next=" in html
    assert re.search(r'<nav class="lang"[^>]*>.*?<a [^>]*hreflang="ja"', html, re.S)  # the switch a phone taps
