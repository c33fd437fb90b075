"""Names that look blank are refused; names that look alike across alphabets are warned about
(issue 23, item 8). companion/names.py: clean_name, name_key, skeleton, look_alike."""

from __future__ import annotations

import unicodedata

import pytest

from companion.names import clean_name, look_alike, name_key, skeleton
from helpers import text_of

BLANK_NAMES = {
    "combining marks only": "\u0301\u0308\u0327",
    "Hangul filler": "\u3164",
    "halfwidth Hangul filler": "\uffa0",
    "Hangul choseong and jungseong fillers": "\u115f\u1160",
    "Braille blank": "\u2800\u2800",
    "40 bismillah ligatures": "\ufdfd" * 40,
    "fillers between spaces and zero-widths": " \u3164 \u200b\uffa0 ",
    "punctuation only": "-- .",
}


@pytest.mark.parametrize("raw", BLANK_NAMES.values(), ids=BLANK_NAMES.keys())
def test_a_name_with_nothing_to_read_cleans_to_nothing(raw):
    assert clean_name(raw) == "" and name_key(raw) == ""


@pytest.mark.parametrize("name", ["Ann", "山田", "🎲", "★", "3", "José", "Ｒｅｎé", "Zoë-Marie", "ㅎ", "Ω"])
def test_ordinary_names_are_kept(name):
    assert clean_name(name) == unicodedata.normalize("NFC", " ".join(name.split()))


def test_name_key_means_what_it_meant():
    assert name_key("Ann") == name_key("ＡＮＮ") == name_key(" ann ") == "ann"
    assert name_key(unicodedata.normalize("NFD", "René")) == name_key("René")
    assert name_key("Ann") != name_key("\u0410nn")  # a Cyrillic A is another name (only warned about)


def test_look_alike_across_alphabets():
    assert skeleton("\u0410nn") == skeleton("Ann") == "ann"  # Cyrillic capital A
    assert look_alike(["Ann", "Bo", "\u0410nn"]) == [(0, 2)]
    assert look_alike(["\u0420\u0435ter", "Peter"]) == [(0, 1)]  # Cyrillic Р, е
    assert look_alike(["\u03a1eter", "Peter"]) == [(0, 1)]  # Greek Rho
    assert look_alike(["Ann", "ann", "Bo"]) == []  # one name: refused as such, not a look-alike
    assert look_alike(["Ann", "Anna", "Bo", "山田"]) == []
    assert look_alike(["вob", "Bob"]) == []  # a small Cyrillic ve doesn't look like b


def new_table(client, names, game="rwd"):
    return client.post("/tables", data={"game": game, "players": str(len(names)),
                                        **{f"name-{i}": n for i, n in enumerate(names)}})


@pytest.mark.parametrize("raw", ["\u3164", "\u2800", "\ufdfd" * 40, "\u0301\u0301"])
def test_a_blank_name_is_refused_by_its_field_and_the_rest_kept(client, raw):
    refused = new_table(client, ["Ann", raw, "Cy"])
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    assert "Seat 2: this name has only invisible characters; enter letters someone can read." in text_of(page)
    assert 'id="f-name-1"' in page and 'aria-invalid="true"' in page.split('id="f-name-1"')[1].split(">")[0]
    assert 'value="Ann"' in page and 'value="Cy"' in page


def test_a_blank_name_is_refused_on_the_nights_list(client):
    refused = client.post("/hall/players", data={"name": "\u3164\u3164"})
    assert refused.status_code == 422
    assert "This name has only invisible characters" in text_of(refused.get_data(as_text=True))


def test_the_table_page_warns_when_two_names_look_alike(client):
    created = new_table(client, ["Ann", "\u0410nn", "Cy"])
    assert created.status_code == 303  # warned, never refused
    page = text_of(client.get(created.headers["Location"]).get_data(as_text=True))
    assert ("Seats 1 and 2: “Ann” and “\u0410nn” look alike but are written with letters of different "
            "alphabets. Make sure everyone can tell them apart.") in page
    plain = new_table(client, ["Ann", "Bo", "Cy"])
    assert "look alike" not in client.get(plain.headers["Location"]).get_data(as_text=True)
    client.set_cookie("lang", "ja")
    ja = text_of(client.get(created.headers["Location"]).get_data(as_text=True))
    assert "1番席と2番席" in ja and "look alike" not in ja


def test_look_alike_reads_each_name_once_however_many_there_are(monkeypatch):
    """A night of 200 names: the hall warns of look-alikes without comparing every pair's
    skeletons (99,500 of them made a 200-name hall take 200 ms to render)."""
    from companion import names

    shaped = []
    original = names.skeleton
    monkeypatch.setattr(names, "skeleton", lambda name: shaped.append(name) or original(name))
    roster = [f"P{n}" for n in range(1, 201)] + ["Аnn", "Ann"]  # Cyrillic А, then Latin
    assert names.look_alike(roster) == [(200, 201)]
    assert len(shaped) == len(roster)
