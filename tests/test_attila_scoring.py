"""Rulebook §4 (scoring): examples (a) to (e), the trigger, the order of peoples and the
2-player gap rule (§7)."""

from __future__ import annotations

import pytest

from tests.attila_helpers import (
    B,
    G,
    P,
    do,
    first,
    fresh,
    frontier,
    inland,
    kinds,
    pid,
    put,
    qid,
    resolve,
    set_hands,
)

F, V, S, H = P("F"), P("V"), P("S"), P("H")
WHITE, RED, GREEN, YELLOW = 0, 1, 2, 3


def franks_five_in_three(players: int = 4, options=None):
    """The rulebook's board: 5 Frank stones in 3 provinces (one of them pacified)."""
    state = fresh(players, options=options)
    a, b, c = inland()[:3]
    put(state, a, F, 2)
    put(state, b, F, 2)
    put(state, c, F, 1)
    state.pacified[c] = B.first_century  # stones in pacified provinces count too
    return state


def score(state, people=F) -> dict[int, int]:
    return G.rules.score_people(state, people)


def test_example_a_and_b_first_and_second() -> None:
    state = franks_five_in_three()
    state.influence[WHITE][F] = 7
    state.influence[RED][F] = 4
    state.influence[GREEN][F] = 2  # third place scores nothing
    assert score(state) == {WHITE: 5, RED: 3}


def test_example_c_tie_for_first_no_second_place() -> None:
    state = franks_five_in_three()
    state.influence[WHITE][F] = 6
    state.influence[GREEN][F] = 6
    state.influence[RED][F] = 3
    assert score(state) == {WHITE: 4, GREEN: 4}


def test_tie_for_first_rounds_up() -> None:
    state = franks_five_in_three()
    for seat in (WHITE, RED, GREEN):
        state.influence[seat][F] = 5
    assert score(state) == {WHITE: 3, RED: 3, GREEN: 3}  # 8 / 3 rounded up


def test_example_d_tie_for_second() -> None:
    state = franks_five_in_three()
    state.influence[WHITE][F] = 9
    state.influence[RED][F] = 3
    state.influence[GREEN][F] = 3
    state.influence[YELLOW][F] = 1
    assert score(state) == {WHITE: 5, RED: 2, GREEN: 2}


def test_example_e_only_one_player() -> None:
    state = franks_five_in_three()
    state.influence[WHITE][F] = 1
    assert score(state) == {WHITE: 8}


def test_people_without_counters_or_stones() -> None:
    state = franks_five_in_three()
    assert score(state) == {}
    state.influence[WHITE][V] = 5
    state.influence[RED][V] = 2
    assert score(state, V) == {WHITE: 0, RED: 0}


@pytest.mark.parametrize(
    "leader, second, gap, voided",
    [(10, 7, 3, True), (10, 8, 3, False), (10, 8, 2, True), (10, 9, 2, False), (10, 5, 3, True)],
)
def test_two_player_gap_rule(leader: int, second: int, gap: int, voided: bool) -> None:
    state = franks_five_in_three(2, {"TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE": gap})
    state.influence[0][F] = leader
    state.influence[1][F] = second
    assert score(state) == ({0: 5} if voided else {0: 5, 1: 3})


def test_two_player_default_gap_is_three() -> None:
    assert G.new_state(2, "x").options["TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE"] == 3


def test_two_player_tie_and_single_counter() -> None:
    state = franks_five_in_three(2)
    state.influence[0][F] = 4
    state.influence[1][F] = 4
    assert score(state) == {0: 4, 1: 4}
    state.influence[1][F] = 0
    assert score(state) == {0: 8}


def test_gap_rule_only_with_two_players() -> None:
    state = franks_five_in_three(3)
    state.influence[0][F] = 20
    state.influence[1][F] = 1
    assert score(state) == {0: 5, 1: 3}


# -- the trigger ------------------------------------------------------------------------------


def conflict_turn(state, tiles_left):
    """Seat 0 sets a 5th stone (Vandals) in a frontier province; everybody passes."""
    state.tiles_left = list(tiles_left)
    t = frontier()[0]
    put(state, t, S, 4)
    set_hands(state, {0: [V] * 6})
    events = do(state, 0, f"V {qid(t)}", "inf")
    for seat in state.conflict.order:
        events += do(state, seat, "pass")
    return events + resolve(state)


def test_scoring_when_last_tile_of_a_century_is_taken() -> None:
    state = franks_five_in_three(3)
    state.influence[WHITE][F] = 7
    state.influence[RED][F] = 4
    events = conflict_turn(state, B.tiles_by_century)  # the 4th century holds 1 tile
    scored = [e for e in events if e.kind == "scored"]
    assert len(scored) == 1
    assert scored[0].data["scoring"] == "century"
    assert scored[0].data["century"] == B.first_century
    assert [line["people"] for line in scored[0].data["peoples"]] == B.raw["scoring_order"]["order"]
    # Franks: white 5, red 3; white's Vandal counter scores nothing (the Vandals left)
    franks = next(line for line in scored[0].data["peoples"] if line["people"] == pid(F))
    assert franks["points"] == {str(WHITE): 5, str(RED): 3}
    assert state.scores[WHITE] == 5
    assert state.scores[RED] == 3


def test_no_scoring_while_the_century_field_holds_tiles() -> None:
    state = franks_five_in_three(3)
    state.influence[WHITE][F] = 7
    tiles = list(B.tiles_by_century)
    tiles[0] = 0  # 5th century: two tiles, only one is taken
    events = conflict_turn(state, tiles)
    assert "province_pacified" in kinds(events)
    assert "scored" not in kinds(events)
    assert state.scores == [0, 0, 0]


def test_scoring_order_is_franks_to_vandals() -> None:
    assert [p.id for p in B.peoples] == B.raw["scoring_order"]["order"]
    assert [p.name_de for p in B.peoples] == [
        "Franken",
        "Hunnen",
        "Goten",
        "Sachsen",
        "Teutonen",
        "Vandalen",
    ]


def test_scores_add_up_and_scoring_event_reports_totals() -> None:
    state = franks_five_in_three(3)
    state.influence[WHITE][F] = 7
    state.influence[RED][F] = 4
    state.scores = [10, 20, 30]
    events = conflict_turn(state, B.tiles_by_century)
    scored = first(events, "scored")
    assert scored.data["scores"] == state.scores
    assert state.scores[RED] == 23 and state.scores[GREEN] == 30
