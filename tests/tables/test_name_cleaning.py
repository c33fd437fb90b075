"""Names (issue 13 items 7 and 8): stored without control, invisible or bidi characters; names
that look the same refused; exports keep every entrant even with equal names. Moved from
test_hardening.py."""

from __future__ import annotations

import json

import pytest

from companion import store as storage
from companion.tables import service as store
from companion.games import GAMES
from helpers import create_table as create_via_form


@pytest.mark.parametrize("raw, stored", [
    ("Ann\x00", "Ann"), ("\x07Bo", "Bo"), ("Ann\u200b", "Ann"), ("Rene\u0301", "René"),
    ("  Ann   Bo ", "Ann Bo"), ("\u202eevil", "evil"), ("a\u2066b\u2069", "ab"), ("山田\u3000花子", "山田 花子"),
])
def test_names_are_stored_clean(raw, stored):
    names, errors = store.check_names([raw, "Zed"])
    assert not errors and names[0] == stored


@pytest.mark.parametrize("first, second", [
    ("Ann", "Ann\u200b"), ("René", "Rene\u0301"), ("Ann", "ＡＮＮ"), ("ann", "ANN"), ("Ann", "An\u00adn"),
])
def test_names_that_look_the_same_are_refused(first, second):
    _names, errors = store.check_names([first, second])
    assert [e.field for e in errors] == ["name-1"]


@pytest.mark.parametrize("raw", ["\u200b", "\x00\x07", "\u202e", "\u200d\u200c"])
def test_a_name_of_only_invisible_characters_is_refused_with_its_own_message(client, raw):
    response = client.post("/tables", data={"game": "rwd", "players": "4", "name-0": raw, "name-1": "Bo",
                                            "name-2": "Cy", "name-3": "Di"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "only invisible characters" in html
    assert 'value="Bo"' in html  # what was typed is kept


def test_twin_shoot_teams_with_the_same_name_are_refused(client):
    data = {"game": "twin_shoot", "players": "4", "name-0": "A & B", "name-1": "C", "name-2": "A",
            "name-3": "B & C"}
    response = client.post("/tables", data=data)
    assert response.status_code == 422
    assert "same name as team 1" in response.get_data(as_text=True)
    _names, errors = store.check_names(["A & B", "C", "A", "B & C"], GAMES["twin_shoot"])
    assert [e.field for e in errors] == ["name-2"]
    assert not store.check_names(["A & B", "C", "A", "D"], GAMES["twin_shoot"])[1]


def test_exports_keep_every_entrant_even_with_equal_names(client, app):
    """A table stored before names were checked may hold two teams of one name: none drops out."""
    token = create_via_form(client, "twin_shoot", ["A & B", "C", "A", "D"])
    with app.app_context():
        conn = storage.connect(app.config["DATABASE"])
        conn.execute("UPDATE tables SET players = ? WHERE token = ?",
                     (json.dumps(["A & B", "C", "A", "B & C"]), token))
        conn.close()
    doc = json.loads(client.get(f"/t/{token}/export.json").get_data(as_text=True))
    assert [t["name"] for t in doc["totals"]] == ["A & B & C", "A & B & C"]
    csv_text = client.get(f"/t/{token}/export.csv").get_data(as_text=True)
    header = csv_text.lstrip("\ufeff").splitlines()[0].split(",")
    assert len(header) == len(set(header))
