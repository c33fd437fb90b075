"""After a change, every phone at the table asks for the same new state at once: the live
answer is rendered and compressed once per revision and language, and every phone gets the
same bytes (the serving layer sends them without Flask). So it carries no CSRF token: its
forms use the page's own (<meta name="csrf-token">, sent as X-CSRFToken), and each phone's
Undo and Save keep working with its own token and no other. A full page (the no-JavaScript
path) still carries the phone's own token in every form."""

from __future__ import annotations

import gzip
import re
from html import unescape

import flask

from companion.tables import views as web_tables
from helpers import create_rwd_table
from helpers import rwd_deal_form as rwd_deal

NAMES = ["Ann", "Bob", "Cy", "Di"]
TOKEN_FIELD = re.compile(r'name="csrf_token" value="([^"]*)"')
META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
HEADERS = re.compile(r"""hx-headers:inherited='\{"X-CSRFToken": "([^"]+)"\}'""")


def test_phones_share_one_rendering_and_use_their_pages_tokens(csrf_app, monkeypatch):
    web_tables.LIVE_PAGES.entries.clear()
    phones = [csrf_app.test_client() for _ in range(3)]
    token = create_rwd_table(phones[0], NAMES)
    own = []
    for phone in phones:  # each phone opens the table: its session gets its own CSRF token
        page = phone.get(f"/t/{token}").get_data(as_text=True)
        fields = {unescape(t) for t in TOKEN_FIELD.findall(page)}
        assert len(fields) == 1 and "" not in fields  # every form of the full page: this phone's token
        assert {unescape(META.search(page).group(1)), unescape(HEADERS.search(page).group(1))} == fields
        own.append(fields.pop())
    assert len(set(own)) == 3

    saved = phones[0].post(f"/t/{token}/deals", data={"csrf_token": own[0], **rwd_deal(1, 0)})
    assert saved.status_code == 303

    renders = []
    monkeypatch.setattr(web_tables, "render_template",
                        lambda *a, **kw: renders.append(a[0]) or flask.render_template(*a, **kw))
    partials = csrf_app.extensions["shared_partials"]
    served = partials.served
    answers = [phone.get(f"/t/{token}/live?rev=0&form=1", headers={"Accept-Encoding": "gzip"}) for phone in phones]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert renders == ["tables/_live_response.html"]  # once, for three phones
    assert partials.served == served + 2  # the other two without Flask
    bodies = [a.get_data() for a in answers]
    assert len(set(bodies)) == 1  # the same bytes for every phone: compressed once
    assert all(a.headers["Content-Encoding"] == "gzip" for a in answers)
    text = gzip.decompress(bodies[0]).decode()
    assert "Undo deal 1" in text and "\x00" not in text
    assert set(TOKEN_FIELD.findall(text)) == {""}  # its forms carry no token of anyone's
    assert not any(t in text for t in own)
    assert all("Set-Cookie" not in a.headers for a in answers)

    # Each phone sends its page's token as htmx does (the form's field is empty): accepted for
    # its own session only.
    for phone, mine in zip(phones, own):
        preview = phone.post(f"/t/{token}/preview", data={"csrf_token": "", **rwd_deal(2, 1)},
                             headers={"X-CSRFToken": mine})
        assert preview.status_code == 200
    other = phones[1].post(f"/t/{token}/preview", data={"csrf_token": "", **rwd_deal(2, 1)},
                           headers={"X-CSRFToken": own[2]})
    assert other.status_code == 400
    assert phones[1].post(f"/t/{token}/preview", data={"csrf_token": "", **rwd_deal(2, 1)}).status_code == 400
    # The third phone undoes from the shared partial's form, with its page's token.
    undone = phones[2].post(f"/t/{token}/undo", data={"csrf_token": "", "number": "1"}, headers={"X-CSRFToken": own[2]})
    assert undone.status_code == 303

    # A new revision is rendered anew; other languages are rendered for themselves.
    renders.clear()
    phones[0].set_cookie("lang", "ja")
    ja = phones[0].get(f"/t/{token}/live?rev=0&form=1")
    en = phones[1].get(f"/t/{token}/live?rev=0&form=1")
    assert [ja.status_code, en.status_code] == [200, 200]
    assert renders == ["tables/_live_response.html", "tables/_live_response.html"]
    assert phones[2].get(f"/t/{token}/live?rev=0&form=1").get_data() == en.get_data()  # en, from memory
    assert renders == ["tables/_live_response.html", "tables/_live_response.html"]
    assert ja.get_data() != en.get_data()


def test_a_shown_whole_table_is_not_shared_with_the_recent_deals(csrf_app, monkeypatch):
    """``?all=1`` (every deal) and the default (the recent ones) are different answers."""
    monkeypatch.setattr(web_tables, "HISTORY_RECENT", 2)
    phone = csrf_app.test_client()
    token = create_rwd_table(phone, NAMES)
    csrf = unescape(TOKEN_FIELD.search(phone.get(f"/t/{token}").get_data(as_text=True)).group(1))
    for number in range(1, 4):
        assert phone.post(f"/t/{token}/deals", data={"csrf_token": csrf, **rwd_deal(number, number % 4)}).status_code == 303
    recent = phone.get(f"/t/{token}/live?rev=0&form=1").get_data(as_text=True)
    whole = phone.get(f"/t/{token}/live?rev=0&form=1&all=1").get_data(as_text=True)
    assert 'id="deal-1"' in whole and 'id="deal-1"' not in recent


def test_phones_asking_at_once_wait_for_the_one_rendering(csrf_app, monkeypatch):
    """The stream tells a table's phones at the same moment: while the first phone's request
    renders the partial, the others wait for its bytes instead of each going through Flask."""
    import threading

    phone = csrf_app.test_client()
    token = create_rwd_table(phone, NAMES)
    csrf = unescape(TOKEN_FIELD.search(phone.get(f"/t/{token}").get_data(as_text=True)).group(1))
    assert phone.post(f"/t/{token}/deals", data={"csrf_token": csrf, **rwd_deal(1, 0)}).status_code == 303
    rendering, release, renders, flask_requests = threading.Event(), threading.Event(), [], []

    def slow_render(*a, **kw):
        renders.append(a[0])
        rendering.set()
        release.wait(5)
        return flask.render_template(*a, **kw)

    monkeypatch.setattr(web_tables, "render_template", slow_render)
    answers: dict[int, bytes] = {}

    def ask(index: int) -> None:
        answers[index] = csrf_app.test_client().get(f"/t/{token}/live?rev=0&form=2").get_data()

    first = threading.Thread(target=ask, args=(0,))
    first.start()
    assert rendering.wait(5)
    others = [threading.Thread(target=ask, args=(i,)) for i in (1, 2)]
    with flask.request_started.connected_to(lambda sender, **_: flask_requests.append(1), csrf_app):
        for t in others:
            t.start()
        [waited_on] = csrf_app.extensions["shared_partials"].rendering.values()
        for _ in range(500):  # both others are waiting for the first's rendering (not yet in Flask)
            if len(waited_on._cond._waiters) == 2:
                break
            threading.Event().wait(0.01)
        assert len(waited_on._cond._waiters) == 2
        release.set()
        for t in [first, *others]:
            t.join(10)
    assert renders == ["tables/_live_response.html"]
    assert flask_requests == []  # the two others never reached Flask
    assert len(answers) == 3 and len(set(answers.values())) == 1
