"""After a change, every phone at the table asks for the same new state at once: the live
answer is rendered once per revision and language, and each phone still gets its own
CSRF token, so its Undo and Save keep working."""

from __future__ import annotations

import re
from html import unescape

import flask

from companion.tables import views as web_tables
from helpers import create_rwd_table
from helpers import rwd_deal_form as rwd_deal

NAMES = ["Ann", "Bob", "Cy", "Di"]
TOKEN_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_phones_share_one_rendering_but_keep_their_own_tokens(csrf_app, monkeypatch):
    web_tables.LIVE_PAGES.entries.clear()
    phones = [csrf_app.test_client() for _ in range(3)]
    token = create_rwd_table(phones[0], NAMES)
    own = []
    for phone in phones:  # each phone opens the table: its session gets its own CSRF token
        own.append(unescape(TOKEN_FIELD.search(phone.get(f"/t/{token}").get_data(as_text=True)).group(1)))
    assert len(set(own)) == 3

    saved = phones[0].post(f"/t/{token}/deals", data={"csrf_token": own[0], **rwd_deal(1, 0)})
    assert saved.status_code == 303

    renders = []
    monkeypatch.setattr(web_tables, "render_template",
                        lambda *a, **kw: renders.append(a[0]) or flask.render_template(*a, **kw))
    answers = [phone.get(f"/t/{token}/live?rev=0&form=1") for phone in phones]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert renders == ["tables/_live_response.html"]  # once, for three phones
    texts = [a.get_data(as_text=True) for a in answers]
    assert all("Undo deal 1" in t for t in texts)
    assert "\x00" not in "".join(texts)
    for phone_token, text in zip(own, texts):
        tokens = {unescape(t) for t in TOKEN_FIELD.findall(text)}
        assert tokens, "the live answer carries the actions' forms"
        # Each phone's tokens are valid for its own session (signed tokens differ, same secret).
        phone = phones[own.index(phone_token)]
        for t in tokens:  # accepted by this phone's session (the preview changes nothing)
            assert phone.post(f"/t/{token}/preview", data={"csrf_token": t, **rwd_deal(2, 1)}).status_code == 200

    # The third phone undoes with the token its live answer gave it.
    undo_token = unescape(TOKEN_FIELD.search(texts[2]).group(1))
    assert phones[2].post(f"/t/{token}/undo", data={"csrf_token": undo_token, "number": "1"}).status_code == 303
    # A new revision is rendered anew; other languages are rendered for themselves.
    renders.clear()
    phones[0].set_cookie("lang", "ja")
    assert phones[0].get(f"/t/{token}/live?rev=0&form=1").status_code == 200
    assert phones[1].get(f"/t/{token}/live?rev=0&form=1").status_code == 200
    assert renders == ["tables/_live_response.html", "tables/_live_response.html"]
