"""The game pages in Japanese (issue 24): ?lang=ja opens them in Japanese and is remembered; their
words are the ones checked against the posts. Moved from test_issue24_pages.py."""

from __future__ import annotations

import re

from helpers import text_of


def test_lang_query_opens_japanese_and_is_remembered(client):
    response = client.get("/games/miraiscope?lang=ja")
    html = response.get_data(as_text=True)
    assert 'lang="ja"' in html and "ミライスコープ" in html
    assert "lang=ja" in response.headers.get("Set-Cookie", "")  # remembered, as the switch does
    assert 'lang="ja"' in client.get("/games/rwd").get_data(as_text=True)


def test_the_words_in_japanese(client):
    client.set_cookie("lang", "ja")
    mirai = text_of(client.get("/games/miraiscope").get_data(as_text=True))
    assert "自分の札は見えません" not in mirai and "自分のオープンデッキ" in mirai
    assert "ラストトリック" in mirai and "9・10" in mirai
    twin = text_of(client.get("/games/twin_shoot").get_data(as_text=True))
    assert "勝利を分かち合います" in twin
    for game in ("rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot"):
        page = client.get(f"/games/{game}").get_data(as_text=True)
        assert "原典の読み方" not in page and "それも同じなら同点優勝" not in page
        assert "同点優勝で終える" not in page
        assert not re.search(r"。 <span class=\"see-ruling\">", page)
        assert "逆回りに" not in page and "点数の変動なし" not in page and "数ゲーム繰り返し" not in page
        assert "0点分より少なくはなりません" not in page

