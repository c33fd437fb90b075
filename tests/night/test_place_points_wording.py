"""'1 place point', never '1 place points' (QA saw 'Place 1 of 3 · 1 place points'); fractions
and other counts stay plural, and Japanese has one form."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("value, english", [(1, "1 place point"), (1.0, "1 place point"),
                                            (0.5, "0.5 place points"), (0, "0 place points"),
                                            (2, "2 place points"), (2 / 3, "0.67 place points")])
def test_place_points_agree_with_their_number(app, value, english):
    place_points_text = app.jinja_env.globals["place_points_text"]
    with app.test_request_context("/"):
        assert place_points_text(value) == english
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        assert place_points_text(value) == "順位点" + english.split()[0]
