"""One device asking for a heavy page or preview again and again costs one rendering per table
revision (issue 23 item 1): the table page (``?all=1`` of a long match) and the as-you-type
previews (a correction replays the whole match) are kept per revision, language and what was
typed; each phone still gets its own CSRF token, and a change is rendered anew."""

from __future__ import annotations

import re
from html import unescape

import flask

from companion.tables import views as web_tables
from helpers import create_rwd_table
from helpers import rwd_deal_form as rwd_deal

NAMES = ["Ann", "Bob", "Cy", "Di"]
TOKEN_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_pages_and_previews_render_once_per_revision(csrf_app, monkeypatch):
    web_tables.LIVE_PAGES.entries.clear()
    phones = [csrf_app.test_client() for _ in range(2)]
    token = create_rwd_table(phones[0], NAMES)
    renders: list[str] = []
    monkeypatch.setattr(web_tables, "render_template",
                        lambda *a, **kw: renders.append(a[0]) or flask.render_template(*a, **kw))

    pages = [phone.get(f"/t/{token}?all=1") for phone in phones for _ in range(3)]
    assert [p.status_code for p in pages] == [200] * 6
    assert renders == ["tables/show.html"]  # six asks, one rendering
    own = [{unescape(t) for t in TOKEN_FIELD.findall(p.get_data(as_text=True))} for p in pages]
    # A signed token carries the second it was signed in (itsdangerous): two pages of one phone
    # a second apart differ there, so a phone's token is compared by what it signs.
    signed = [{t.split(".")[0] for t in tokens} for tokens in own]
    assert signed[0] == signed[1] != signed[3]  # each phone (session) its own token, as ever
    assert "\x00" not in pages[0].get_data(as_text=True)

    renders.clear()
    csrf = next(iter(own[0]))
    checks = [phones[0].post(f"/t/{token}/preview", data={"csrf_token": csrf, **rwd_deal(1, 0)}) for _ in range(4)]
    assert {c.status_code for c in checks} == {200}
    assert renders == ["tables/_preview.html"]  # the same typed deal, checked once
    other = phones[0].post(f"/t/{token}/preview", data={"csrf_token": csrf, **rwd_deal(1, 1)})
    assert other.status_code == 200 and renders == ["tables/_preview.html"] * 2  # other values: checked

    saved = phones[0].post(f"/t/{token}/deals", data={"csrf_token": csrf, **rwd_deal(1, 0)})
    assert saved.status_code == 303
    renders.clear()
    assert phones[1].get(f"/t/{token}?all=1").status_code == 200
    assert phones[0].post(f"/t/{token}/deals/1/preview",
                          data={"csrf_token": csrf, **rwd_deal(1, 2)}).status_code == 200
    assert phones[0].post(f"/t/{token}/deals/1/preview",
                          data={"csrf_token": csrf, **rwd_deal(1, 2)}).status_code == 200
    # A new revision: the page again, the correction's preview once for two asks.
    assert renders == ["tables/show.html", "tables/_preview.html"]
