"""Cookies and caching (issue 13 item 10): the session cookie is SameSite=Lax and HttpOnly;
table pages, the log, the edit page and exports are never stored by a cache. Moved from
test_hardening.py."""

from __future__ import annotations

from helpers import create_table as create_via_form


def test_session_cookie_is_samesite_lax(csrf_client):
    response = csrf_client.get("/tables/new?game=rwd")
    cookies = [v for k, v in response.headers.items() if k == "Set-Cookie" and v.startswith("session=")]
    assert cookies and "SameSite=Lax" in cookies[0] and "HttpOnly" in cookies[0]


def test_table_pages_log_edit_and_exports_are_not_stored(client):

    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    saved = client.post(f"/t/{token}/deals", data={"number": "1", "chips-0": "1", "chips-1": "4", "chips-2": "4",
                                                    "chips-3": "4", "tricks-0": "7", "tricks-1": "2",
                                                    "tricks-2": "2", "tricks-3": "2"})
    assert saved.status_code == 303
    for path in ("", "/host", "/log", "/deals/1/edit", "/export.csv", "/export.json", "/live"):
        response = client.get(f"/t/{token}{path}")
        assert response.status_code == 200, path
        assert response.headers.get("Cache-Control") == "no-store", path
    assert client.get("/").headers.get("Cache-Control") == "no-store"  # lists tables on the laptop
    assert "no-store" not in client.get("/static/app.css").headers.get("Cache-Control", "")
