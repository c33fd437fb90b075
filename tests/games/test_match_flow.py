"""Match flow across the five games (issue 11): the stakes each game states, standings in the
order that decides the match, RWD's length, "choose" wording, checks an empty choice no longer
hides, later choices settled after a correction, and rematches that continue the rotation."""

from __future__ import annotations

import pytest

from companion.games import GAMES, MatchSetup
from companion.games import Choice, Option
from companion.games.contract import FIRST_AMONG, first_among

RWD, MIRAI, CUBE, PQ, TWIN = (GAMES[g] for g in ("rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot"))


def rwd(chips, tricks, **extra):
    return {"chips": list(chips), "tricks": list(tricks), **extra}


# 3 players, 17 tricks each half; points = tricks - chips.
ANN = rwd([4, 5, 8], [7, 7, 3])      # Ann +3, Bo +2, Cy -5: Ann alone
BO_BIG = rwd([0, 9, 8], [0, 17, 0])  # Ann 0, Bo +8, Cy -8: Bo alone, by a lot
SHARED = rwd([5, 5, 7], [7, 7, 3])   # Ann and Bo +2, 5 chips each: shared
CY = rwd([8, 5, 4], [3, 7, 7])       # Cy +3 alone
ZERO = rwd([6, 6, 5], [6, 6, 5])     # everyone 0: a draw

THREE = ("Ann", "Bo", "Cy")


def rwd_setup(**options):
    return MatchSetup("rwd", THREE, {"first_start_player": 0, **options})


def row(*counts):
    """One Pair & Quad player's captured cards: 7, A, K, Q, J and other."""
    return dict(zip(("7", "A", "K", "Q", "J", "other"), counts))


def texts(items) -> list[str]:
    return [str(item) for item in items]


# --------------------------------------------------------------------------- stakes


def test_rwd_stakes_show_deal_wins_beside_the_points():
    match = RWD.replay(rwd_setup(), [ANN, BO_BIG, ANN])
    stakes = match.stakes
    assert str(stakes.headline) == "First to 3 deal wins takes the match"
    [tally] = stakes.tallies
    assert str(tally.label) == "Deal wins" and tally.values == (2, 1, 0) and tally.goal == 3
    assert texts(stakes.lines) == ["One deal win from the match: Ann."]
    assert not match.over


def test_rwd_ranking_follows_deal_wins_not_points():
    # Bo has the most points (+10 against Ann's +6) but one deal win to Ann's two.
    match = RWD.replay(rwd_setup(), [ANN, BO_BIG, ANN])
    assert match.totals[1] > match.totals[0]
    assert match.ranking() == [(1, 0), (2, 1), (3, 2)]
    # Equal deal wins share a place (points decide no match); the higher total is listed first.
    level = RWD.replay(rwd_setup(), [CY, SHARED, {**SHARED, "start_player": 0}])
    assert level.stakes.tallies[0].values == (2, 2, 1) and level.totals == (-1, 6, -5)
    assert level.ranking() == [(1, 1), (1, 0), (3, 2)]


def test_rwd_co_winners_share_first_place_whatever_their_points():
    # Issue 11: "a player co-won the match while 2nd on points". Cy wins deal 1 (Ann -5), then
    # Ann and Bo share three deals and reach 3 wins together: Ann 1 point, Bo 8.
    match = RWD.replay(rwd_setup(), [CY, SHARED, {**SHARED, "start_player": 0},
                                     {**SHARED, "start_player": 1}])
    assert match.over and match.winners == (0, 1) and match.totals == (1, 8, -9)
    assert match.ranking() == [(1, 1), (1, 0), (3, 2)]
    assert "shared_win" in match.outcome.rulings
    # The deals whose start player the table chose show that ruling too.
    assert [("start_after_tie" in d.score.rulings) for d in match.deals] == [False, False, True, True]


def test_rwd_one_deal_is_the_whole_game():
    setup = rwd_setup(length=1)
    assert RWD.check_options(setup) == []
    start = RWD.replay(setup, [])
    assert str(start.stakes.headline) == "One deal is the whole game: its winner wins."
    assert start.stakes.tallies == ()
    match = RWD.replay(setup, [ANN])
    assert match.over and match.winners == (0,) and match.next is None
    assert str(match.outcome.message) == "Ann wins the game."
    shared = RWD.replay(setup, [SHARED])
    assert shared.winners == (0, 1) and str(shared.outcome.message) == "Ann, Bo share the win."
    assert "shared_win" not in shared.deals[0].score.rulings  # no match to count wins towards
    draw = RWD.replay(setup, [ZERO])
    assert draw.over and draw.winners == () and "all_zero_draw" in draw.outcome.rulings
    errors = RWD.validate(_progress(RWD, setup, [ANN]), ANN)  # no second deal
    assert [e.field for e in errors] == ["deal"]


def test_rwd_length_must_be_one_of_its_choices():
    [length] = [o for o in RWD.options if o.key == "length"]
    assert length.kind == "choice" and length.default == 3
    assert [(v, str(label)) for v, label in length.choices] == [(3, "First to 3 deal wins"), (1, "One deal")]
    errors = RWD.check_options(rwd_setup(length=2))
    assert [e.field for e in errors] == ["length"]


def test_lucky_cube_stakes_count_deals_and_name_the_limits():
    setup = MatchSetup("lucky_cube", ("Ann", "Bo", "Cy", "Di"), {"first_dealer": 0})
    draw = {"die_holder": None, "die_number": None}
    deals = []
    for number in range(5):
        leader = (number + 1) % 4  # nobody takes the die only when the opener wins all six
        deals.append({**draw, "last_trick": leader})
    match = CUBE.replay(setup, deals)
    assert str(match.stakes.headline) == "Deal 6 of at most 12 · ends at 0 or 30 chips"
    assert str(match.stakes.total_label) == "Chips" and match.totals == (15, 15, 15, 15)
    for number in range(5, 12):
        deals.append({**draw, "last_trick": (number + 1) % 4})
    over = CUBE.replay(setup, deals)
    assert over.over
    assert str(over.stakes.headline) == "12 deals played of at most 12 · ends at 0 or 30 chips"


def test_lucky_cube_stakes_say_who_one_deal_can_take_to_0_or_30():
    setup = MatchSetup("lucky_cube", ("Ann", "Bo", "Cy", "Di"), {"first_dealer": 0})
    ann_holds_5 = {"die_holder": 0, "die_number": 5, "last_trick": 1}  # Bo pays Ann 5
    match = CUBE.replay(setup, [ann_holds_5])
    assert match.totals == (20, 10, 15, 15) and texts(match.stakes.lines) == []  # 6 moves at most
    match = CUBE.replay(setup, [ann_holds_5, ann_holds_5])
    assert match.totals == (25, 5, 15, 15)
    assert texts(match.stakes.lines) == ["This deal can end the match: Ann has 25 chips, Bo has 5 chips."]


def test_miraiscope_is_a_race_to_60():
    setup = MatchSetup("miraiscope", ("Ann", "Bo"), {"first_dealer": 0})
    match = MIRAI.replay(setup, [{"queens": [3, 1], "points": [12, 8], "last_trick": 0}])
    assert str(match.stakes.headline) == "Race to 60 points"
    assert texts(match.stakes.lines) == ["Ann: 36 points to go."]  # 9 + 12 + 3 = 24


def test_twin_shoot_race_to_100_says_who_may_open_bid():
    setup = MatchSetup("twin_shoot", ("Ann", "Bob", "Cy", "Dee"))
    start = TWIN.replay(setup, [])
    assert str(start.stakes.headline) == "Race to 100 points"
    assert texts(start.stakes.lines) == ["No team is alone in last place, so nobody may open-bid this deal."]
    behind = {"bids": [["D", "D"]] * 4, "tricks": [2, 1, 4, 3], "open_bid": None}  # totals (3, 7)
    match = TWIN.replay(setup, [behind])
    assert texts(match.stakes.lines) == ["Cy & Dee: 93 points to go.",
                                         "Ann & Bob is alone in last place and may open-bid this deal."]


def test_pair_quad_counts_deals_of_the_planned_total():
    deal = {"captured": [row(0, 0, 0, 0, 0, 16), row(0, 0, 0, 0, 0, 8), row(2, 2, 2, 2, 2, 2),
                         row(2, 2, 2, 2, 2, 6)]}
    four = ("Ann", "Bo", "Cy", "Di")
    planned = PQ.replay(MatchSetup("pair_quad", four, {"first_dealer": 0, "deals": 4}), [deal, deal])
    assert str(planned.stakes.headline) == "Deal 3 of 4"
    over = PQ.replay(MatchSetup("pair_quad", four, {"first_dealer": 0, "deals": 2}), [deal, deal])
    assert str(over.stakes.headline) == "2 of 2 deals played"
    open_ended = PQ.replay(MatchSetup("pair_quad", four, {"first_dealer": 0, "deals": 0}), [deal])
    assert str(open_ended.stakes.headline) == "Deal 2 · open-ended: finish the match when you like"
    finished = PQ.replay(MatchSetup("pair_quad", four, {"first_dealer": 0, "deals": 0}), [deal], finished=True)
    assert str(finished.stakes.headline) == "1 deal played"


def test_every_game_states_its_stakes_from_the_first_deal():
    for game, players in ((RWD, THREE), (MIRAI, ("A", "B")), (CUBE, THREE), (PQ, ("A", "B", "C", "D")),
                          (TWIN, ("A", "B", "C", "D"))):
        match = game.replay(MatchSetup(game.id, players), [])
        assert match.stakes.headline is not None, game.id
        assert [place for place, _ in match.ranking()] == [1] * len(match.entrants)


# --------------------------------------------------------------------------- wording and checks


def _progress(game, setup, deals):
    progress = game.start(setup)
    for facts in deals:
        progress = game.add_deal(progress, facts)
    return progress


def test_an_empty_choice_says_choose_and_hides_no_other_error():
    progress = _progress(RWD, rwd_setup(), [SHARED])
    form = {"chips-0": "5", "chips-1": "5", "chips-2": "5", "tricks-0": "7", "tricks-1": "7", "tricks-2": "3"}
    _, errors = RWD.parse_deal(form, progress)
    said = {e.field: str(e.message) for e in errors}
    assert said["start_player"] == "Start player: choose one of Ann, Bo."
    assert "enter a number" not in " ".join(said.values())
    assert "must add up to 17" in said["chips"]  # shown now, not after the choice is made
    # After a draw everyone may start: the message says "one of the players".
    _, errors = RWD.parse_deal(form, _progress(RWD, rwd_setup(), [ZERO]))
    assert str(errors[0].message) == "Start player: choose one of the players."


def test_a_seat_never_asks_for_a_number_or_a_zero_based_range():
    progress = CUBE.start(MatchSetup("lucky_cube", THREE, {"first_dealer": 0}))
    _, errors = CUBE.parse_deal({"trick-1": "1", "trick-2": "9", "trick-3": "x"}, progress)
    said = texts(e.message for e in errors)
    assert "Winner of trick 2: choose one of the players." in said
    assert "Winner of trick 3: choose one of the players." in said
    assert "Winner of trick 4: choose one of the players." in said
    _, errors = CUBE.parse_deal({"last_trick": "1", "die_number": "3"}, progress)
    assert texts(e.message for e in errors) == ["Die holder: choose one of the players, or nobody."]


def test_miraiscope_blank_second_player_and_a_wrong_first_row_names_the_real_problem():
    progress = MIRAI.start(MatchSetup("miraiscope", ("Ann", "Ben"), {"first_dealer": 0}))
    _, errors = MIRAI.parse_deal({"queens-0": "5", "points-0": "10", "last_trick": "0"}, progress)
    said = {e.field: str(e.message) for e in errors}
    assert list(said) == ["queens-0"] and "Ann" in said["queens-0"] and "0 to 4" in said["queens-0"]
    assert "Ben" not in " ".join(said.values())


# --------------------------------------------------------------------------- later choices


def test_settle_choices_keeps_fitting_answers_drops_stale_ones_and_asks_new_ones():
    setup = rwd_setup()
    # Deal 1 corrected from shared to Ann alone: deal 2's recorded start player is dropped.
    settled, needed, _ = RWD.settle_choices(setup, [ANN, {**CY, "start_player": 1}])
    assert needed == [] and settled[1] == CY
    # Deal 1 corrected to shared: deal 2 must now choose among Ann and Bo.
    settled, needed, answered = RWD.settle_choices(setup, [SHARED, CY])
    assert answered == []
    [(number, choice)] = needed
    assert number == 2 and isinstance(choice, Choice) and choice.options == (0, 1)
    settled, needed, answered = RWD.settle_choices(setup, [SHARED, CY], {2: "1"})
    assert needed == [] and settled[1] == {**CY, "start_player": 1}
    assert [n for n, _ in answered] == [2]
    # An answer outside the options is not taken.
    _, needed, _ = RWD.settle_choices(setup, [SHARED, CY], {2: 2})
    assert [n for n, _ in needed] == [2]


# --------------------------------------------------------------------------- rematch


@pytest.mark.parametrize("game, players, option", [
    (CUBE, THREE, "first_dealer"), (CUBE, ("A", "B", "C", "D", "E"), "first_dealer"),
    (MIRAI, ("A", "B"), "first_dealer")])
def test_rematch_deals_on_from_where_the_match_stopped(game, players, option):
    setup = MatchSetup(game.id, players, {option: 1})
    progress = game.start(setup)
    played = 2 if game is CUBE else 3
    for _ in range(played):
        upcoming = game.next_deal(progress)
        facts = ({"die_holder": None, "die_number": None, "last_trick": upcoming.leader}
                 if game is CUBE else {"queens": [2, 2], "points": [10, 10], "last_trick": 0})
        progress = game.add_deal(progress, facts)
    match = game.conclude(progress)
    options = game.rematch_options(match)
    rematch = game.replay(MatchSetup(game.id, players, options), [])
    assert rematch.next.dealer == game.next_deal(progress).dealer == (1 + played) % len(players)
    assert rematch.next.dealer != 1  # not the first dealer again


def test_twin_shoot_rematch_leads_with_the_next_team():
    setup = MatchSetup("twin_shoot", ("A", "B", "C", "D", "E", "F"), {"first_team": 0})
    deal = {"bids": [["D", "D"]] * 6, "tricks": [2, 1, 4, 3, 0, 0], "open_bid": None}
    match = TWIN.replay(setup, [deal, {**deal, "tricks": [0, 0, 2, 1, 4, 3]}])
    options = TWIN.rematch_options(match)
    assert options["first_team"] == 2
    first = TWIN.replay(MatchSetup("twin_shoot", setup.players, options), []).next
    assert first.detail.team == 2 and first.detail.side == "right"


def test_rwd_rematch_starts_with_the_last_winner_or_asks_among_the_sharers():
    won = RWD.replay(rwd_setup(), [ANN, BO_BIG, CY, {**ANN}, {**BO_BIG}, {**CY}, ANN])
    assert won.over
    options = RWD.rematch_options(won)
    assert options["first_start_player"] == 0 and FIRST_AMONG not in options
    assert options["length"] == 3 if "length" in won.setup.options else True
    single = RWD.replay(rwd_setup(length=1), [SHARED])
    options = RWD.rematch_options(single)
    assert options["length"] == 1 and first_among(MatchSetup("rwd", THREE, options)) == (0, 1)
    first = RWD.replay(MatchSetup("rwd", THREE, options), []).next
    assert first.number == 1 and first.choice.options == (0, 1) and first.choice.ruling == "start_after_tie"
    drawn = RWD.rematch_options(RWD.replay(rwd_setup(length=1), [ZERO]))
    first = RWD.replay(MatchSetup("rwd", THREE, drawn), []).next
    assert first.choice.options == (0, 1, 2) and "draw" in str(first.choice.question)


def test_pair_quad_rematch_is_dealt_by_the_last_top_scorer():
    bo_tops = {"captured": [row(0, 0, 0, 0, 0, 8), row(0, 0, 0, 0, 0, 16), row(2, 2, 2, 2, 2, 2),
                            row(2, 2, 2, 2, 2, 6)]}
    four = ("Ann", "Bo", "Cy", "Di")
    match = PQ.replay(MatchSetup("pair_quad", four, {"first_dealer": 0, "deals": 1}), [bo_tops])
    options = PQ.rematch_options(match)
    assert options == {"first_dealer": 1, "deals": 1}
    assert PQ.replay(MatchSetup("pair_quad", four, options), []).next.dealer == 1


def test_choice_option_is_checked_by_the_base_class():
    from companion.games import Game
    from companion.games.text import T

    class Toy(Game):
        id = "toy_choice"
        players = (2,)
        options = (Option("speed", T("Speed"), "choice", default=2, choices=((1, T("Slow")), (2, T("Fast")))),)

    assert Toy().check_options(MatchSetup("toy_choice", ("A", "B"), {})) == []
    assert Toy().check_options(MatchSetup("toy_choice", ("A", "B"), {"speed": 1})) == []
    [error] = Toy().check_options(MatchSetup("toy_choice", ("A", "B"), {"speed": 3}))
    assert str(error.message) == "Speed: choose one of the options."


def test_twin_shoot_open_bid_is_chosen_not_typed():
    progress = TWIN.start(MatchSetup("twin_shoot", ("Ann", "Bob", "Cy", "Dee")))
    _, errors = TWIN.parse_deal({"open_bid": "5"}, progress)
    said = {e.field: str(e.message) for e in errors}
    assert said["open_bid"] == "Open bid: choose one of the teams, or nobody."


def test_one_unreadable_column_hides_no_mistake_in_another():
    progress = RWD.start(rwd_setup())
    form = {"chips-1": "5", "chips-2": "5", "tricks-0": "9", "tricks-1": "9", "tricks-2": "9"}
    _, errors = RWD.parse_deal(form, progress)
    said = {e.field: str(e.message) for e in errors}
    assert set(said) == {"chips-0", "tricks"}  # chips-0 is blank; the tricks add up to 27, not 17
    assert "add up to 17" in said["tricks"]
    # Miraiscope: the last trick not chosen yet, and the Qs typed for both add up to 6.
    progress = MIRAI.start(MatchSetup("miraiscope", ("Ann", "Ben"), {"first_dealer": 0}))
    _, errors = MIRAI.parse_deal({"queens-0": "3", "queens-1": "3", "points-0": "10"}, progress)
    said = {e.field: str(e.message) for e in errors}
    assert said["last_trick"] == "Winner of the last trick: choose one of the players."
    assert "add up to 4" in said["queens"] and "points" not in said and "points-1" not in said
