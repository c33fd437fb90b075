"""What the rules engine says (issue 24): Pair & Quad's notes and history on who deals, RWD's
card-taken-last calculator asks to choose, an empty Pair & Quad calculator scores 0, Twin Shoot's
first-leader ruling. Moved from test_issue24_pages.py."""

from __future__ import annotations

from companion.games import GAMES, MatchSetup


PQ_TIE = {"captured": [{"7": 0, "A": 0, "K": 0, "Q": 0, "J": 0, "other": 12},
                       {"7": 0, "A": 0, "K": 0, "Q": 0, "J": 0, "other": 12},
                       {"7": 2, "A": 2, "K": 2, "Q": 2, "J": 2, "other": 2},
                       {"7": 2, "A": 2, "K": 2, "Q": 2, "J": 2, "other": 6}]}


def test_pair_quad_last_deal_of_a_fixed_match_does_not_ask_who_deals_next():
    setup = MatchSetup("pair_quad", ("Eri", "Fay", "Gus", "Hal"), {"first_dealer": 0, "deals": 1})
    match = GAMES["pair_quad"].replay(setup, [PQ_TIE])
    assert match.over and match.next is None
    notes = " ".join(str(n) for n in match.deals[0].score.notes)
    assert "deals next" not in notes and "Eri and Fay tie for the top score." in notes.replace(", ", " and ")
    assert "tied_top" not in match.deals[0].score.rulings
    # Not the last deal: the table still chooses.
    longer = GAMES["pair_quad"].replay(setup.__class__("pair_quad", setup.players,
                                                        {"first_dealer": 0, "deals": 2}), [PQ_TIE])
    assert "deals next" in " ".join(str(n) for n in longer.deals[0].score.notes)


def test_pair_quad_history_says_who_was_chosen_to_deal():
    setup = MatchSetup("pair_quad", ("Eri", "Fay", "Gus", "Hal"), {"first_dealer": 0})
    match = GAMES["pair_quad"].replay(setup, [PQ_TIE, {**PQ_TIE, "dealer": 1}])
    said = " ".join(str(line) for line in match.deals[1].before.lines)
    assert "who deals next?" not in said and "Fay was chosen to deal" in said
    assert match.deals[1].before.dealer == 1


def test_card_taken_last_is_chosen_not_typed():
    calc = GAMES["rwd"].calculators[1]
    result = calc.run({"rf-cards": "QS 10H 3D", "rf-last": ""}, 3)
    said = " ".join(str(e) for e in result.errors)
    assert "enter a number" not in said and "choose" in said


def test_pair_quad_calculator_with_nothing_entered_scores_zero():
    result = GAMES["pair_quad"].calculators[0].run({}, 4)
    assert str(result.prompt).startswith("Score: 0")


def test_twin_shoot_first_leader_ruling_keeps_only_what_the_app_adds():
    ruling = GAMES["twin_shoot"].ruling("first_team")
    assert "right-side players pick" not in str(ruling.text)
    assert "share the win" not in str(GAMES["twin_shoot"].ruling("match_end").text)

