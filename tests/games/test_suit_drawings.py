"""The suit drawings match the rules: the Leaf (Twin Shoot's bid value 5) has five points.
Moved from test_words.py."""

from __future__ import annotations

import re
from pathlib import Path

from companion.games import twin_shoot
from helpers import star_points as _tips


ROOT = Path(__file__).resolve().parents[2]


def test_leaf_drawing_has_as_many_points_as_its_bid_value():
    svg = (ROOT / "static" / "suits.svg").read_text(encoding="utf-8")
    leaf = re.search(r'<symbol id="suit-L"[^>]*><path d="([^"]+)"', svg).group(1)
    assert not re.search(r"[a-z]", leaf.replace("z", "")), "absolute coordinates only, so points can be counted"
    assert _tips(leaf) == twin_shoot.BID_VALUES["L"] == 5
