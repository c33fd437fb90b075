"""Checks over the whole Japanese catalog (issue 15): no English game names, no comma-joined
names, Japanese punctuation, no stiff phrases, desu/masu, plural forms for counted nouns; and
that these checks can fail. Moved from test_words.py."""

from __future__ import annotations

import re

import pytest

from companion import catalog
from helpers import star_points as _tips


@pytest.fixture(scope="module")
def po():
    return catalog.load_po("ja")


ENGLISH_GAME_NAMES = re.compile(r"Rewind|Miraiscope|Lucky ?Cube|Pair ?& ?Quad|Twin ?Shoot", re.I)


# A count placeholder followed by a plural noun needs ngettext/Tn, unless the placeholder only
# ever holds a rules constant of 2 or more (deck sizes, player counts, tricks per deal...) or
# ends a sum or range ("{first} + {second} tricks", "{lo}–{hi} players").
PERSON = {"name", "names", "winner", "dealer", "leader", "player", "team", "teams_names", "who",
          "payer", "payee", "holder", "partner", "game", "field", "reason", "result"}


CONSTANT = {"deck", "n", "counts", "limit", "dealt", "hand", "stand", "rows", "open", "target",
            "max", "expected", "total", "teams", "tricks", "start", "bid_cards"}


PLURAL_NOUN = re.compile(r"(?<!\+ )(?<!or )(?<!–)(\{(\w+)\}|%\((\w+)\)[sd])\s+(?:more\s+|stock\s+|face-up\s+|deal\s+|other\s+)?"
                         r"(chips|cards|tricks|points|deals|players|teams|wins|hands|tables|characters)\b")


def _strings(message) -> list[str]:
    return list(message.string) if isinstance(message.string, (tuple, list)) else [message.string]


def test_no_english_game_name_in_japanese(po):
    bad = [(m.id, s) for m in po if m.id for s in _strings(m) if ENGLISH_GAME_NAMES.search(s or "")]
    assert not bad, bad


def test_no_comma_joined_names_in_japanese(po):
    bad = [(m.id, s) for m in po if m.id for s in _strings(m) if s and ", " in s]
    assert not bad, bad


def test_japanese_punctuation(po):
    """Full-width parentheses and 〜 for ranges beside Japanese text; placeholders aside."""
    bad = []
    for message in po:
        for s in _strings(message) if message.id else []:
            if not s or not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", s):
                continue
            bare = re.sub(r"%\(\w+\)[sd]|\{\w*\}", "", s)
            if "(" in bare or ")" in bare or re.search(r"\d–|–\d", bare):
                bad.append((message.id, s))
    assert not bad, bad


def test_stiff_or_literal_phrases_are_gone(po):
    # 勝利を分かち合う was on this list until issue 24: it is the Twin Shoot post's own phrase
    # (同点の場合は該当チーム同士で勝利を分かち合います), so shared wins now use it.
    stiff = ("真の勝者の座", "テーブル裁定", "数値を入力してください", "時刻はUTC",
             "プレイヤープレイヤー")
    bad = [(m.id, s) for m in po if m.id for s in _strings(m) for word in stiff if s and word in s]
    assert not bad, bad


def test_sentences_to_players_are_desu_masu(po):
    """A Japanese sentence ending in a plain verb (…する。…置く。…だ。) mixes registers."""
    plain = re.compile(r"(?:[るくすつぬむうぐぶ]|った|んだ|だ|である|ない)。$")
    polite = re.compile(r"(?:ます|です|ません|ました|でした|ください|ましょう)。$")
    bad = []
    for message in po:
        for s in _strings(message) if message.id else []:
            for sentence in re.findall(r"[^。！？]*。", s or ""):
                if plain.search(sentence) and not polite.search(sentence):
                    bad.append((message.id, sentence))
    assert not bad, bad


def test_counted_nouns_have_plural_forms(po):
    bad = []
    for message in po:
        if not message.id or isinstance(message.id, (tuple, list)):
            continue  # ngettext / Tn: has its plural
        for match in PLURAL_NOUN.finditer(message.id):
            name = match.group(2) or match.group(3)
            if name not in PERSON and name not in CONSTANT:
                bad.append((message.id, match.group(0)))
    assert not bad, "use ngettext (templates, web code) or Tn (rules engine):\n" + "\n".join(map(str, bad))


def test_the_checks_can_fail():
    """The catalog checks above really catch what they are for."""
    assert ENGLISH_GAME_NAMES.search("Twin Shootのプレイ人数は4/6人です")
    assert PLURAL_NOUN.search("%(payer)s pays %(amount)s chips").group(3) == "amount"
    assert PLURAL_NOUN.search("{aside} stock cards will be left over") is not None
    assert _tips("M12 2L14 8L22 8L16 12L19 20L12 16L5 20L8 12L2 8L10 8z") == 5
