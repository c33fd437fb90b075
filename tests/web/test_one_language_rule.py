"""One rule picks a page's language (companion/web/language.py), for the Flask pages and for
the pages the serving layer answers by itself: ?lang= first, then the cookie, then
Accept-Language (issue 30: the serving copy ignored ?lang=)."""

from __future__ import annotations

import pytest

from companion.serving.pages import environ_language


@pytest.mark.parametrize("environ, expected", [
    ({"QUERY_STRING": "lang=ja", "HTTP_ACCEPT_LANGUAGE": "en"}, "ja"),  # a printed QR card's link
    ({"QUERY_STRING": "lang=ja", "HTTP_COOKIE": "lang=en"}, "ja"),
    ({"QUERY_STRING": "rev=3&lang=ja"}, "ja"),
    ({"QUERY_STRING": "lang=xx", "HTTP_COOKIE": "lang=ja"}, "ja"),  # not one of ours: the cookie
    ({"HTTP_COOKIE": "lang=ja", "HTTP_ACCEPT_LANGUAGE": "en"}, "ja"),
    ({"HTTP_ACCEPT_LANGUAGE": "ja,en;q=0.5"}, "ja"),
    ({"HTTP_COOKIE": "lang=\"broken", "HTTP_ACCEPT_LANGUAGE": "x;;q=="}, "en"),
    ({}, "en"),
])
def test_the_serving_layer_picks_the_language_as_the_pages_do(app, environ, expected):
    assert environ_language(environ) == expected
    query = environ.get("QUERY_STRING", "")
    headers = {k[5:].replace("_", "-").title(): v for k, v in environ.items() if k.startswith("HTTP_")}
    with app.test_request_context("/?" + query, headers=headers):
        from companion.web.language import select_locale
        assert select_locale() == expected
