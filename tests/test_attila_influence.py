"""Rulebook §2 (taking influence or waiving it) and the NEW_COUNTER_ENTRY option."""

from __future__ import annotations

import pytest

from engine.attila.actions import TakeInfluence, Waive
from tests.attila_helpers import B, G, P, do, first, fresh, frontier, qid, set_hands

V, S = P("V"), P("S")
CENTURIES = range(len(B.tiles_by_century))


def in_century(state, index: int) -> None:
    """Empty every century field below ``index`` (as if those tiles were placed)."""
    for i in range(index):
        state.tiles_left[i] = 0


@pytest.mark.parametrize("century", CENTURIES)
def test_new_counter_lands_on_field_n(century: int) -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    in_century(state, century)
    steps = B.influence_steps[century]
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.influence[0][V] == steps  # entering counts as the first step
    assert all(state.influence[0][p] == 0 for p in range(len(B.peoples)) if p != V)
    assert state.influence[1][V] == 0


@pytest.mark.parametrize("century", CENTURIES)
def test_existing_counter_moves_by_century_steps(century: int) -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    in_century(state, century)
    state.influence[0][V] = 5
    events = do(state, 0, f"V {qid(frontier()[0])}", "inf")
    steps = B.influence_steps[century]
    assert state.influence[0][V] == 5 + steps
    raised = first(events, "influence_raised")
    assert raised.data["steps"] == steps and raised.data["field"] == 5 + steps


def test_steps_follow_the_data_1_2_3_4() -> None:
    assert list(B.influence_steps) == [
        B.raw["constants"]["influence_steps_by_century"][c]
        for c in sorted(B.raw["constants"]["influence_steps_by_century"], key=int)
    ]
    assert list(B.influence_steps) == sorted(B.influence_steps)


def test_century_is_the_lowest_field_with_a_tile() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    # 4th century empty, one tile left on the 5th: 5th-century steps
    state.tiles_left[0] = 0
    state.tiles_left[1] = 1
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.influence[0][V] == B.influence_steps[1]


def test_all_fields_empty_uses_last_century_steps() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    state.tiles_left = [0] * len(state.tiles_left)
    state.influence[0][V] = 3
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.influence[0][V] == 3 + B.influence_steps[-1]


def test_entry_consumes_all_steps_option() -> None:
    state = fresh(options={"NEW_COUNTER_ENTRY": "entry_consumes_all_steps"})
    set_hands(state, {0: [V] * 6})
    in_century(state, len(B.tiles_by_century) - 1)
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.influence[0][V] == 1
    # the next stone moves the counter by the full step count
    state2 = fresh(options={"NEW_COUNTER_ENTRY": "entry_consumes_all_steps"})
    set_hands(state2, {0: [V] * 6})
    in_century(state2, len(B.tiles_by_century) - 1)
    state2.influence[0][V] = 1
    do(state2, 0, f"V {qid(frontier()[0])}", "inf")
    assert state2.influence[0][V] == 1 + B.influence_steps[-1]


def test_influence_capped_at_top_and_ends_game_after_the_turn() -> None:
    top = B.influence_top
    assert top == 22
    state = fresh()
    set_hands(state, {0: [V] * 6})
    in_century(state, len(B.tiles_by_century) - 1)
    state.influence[0][V] = top - 1
    deck_before = len(state.deck)
    events = do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.influence[0][V] == top
    assert G.is_over(state)
    assert "influence_top" in state.result["reasons"]
    # the turn was finished first: the hand was refilled, then the final scoring
    assert len(state.hands[0]) == B.hand_size and len(state.deck) == deck_before - 1
    names = [e.kind for e in events]
    assert names.index("turn_ended") < names.index("scored") < names.index("game_ended")
    assert first(events, "scored").data["scoring"] == "final"


def test_influence_below_top_does_not_end_game() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    state.influence[0][V] = B.influence_top - 2
    do(state, 0, f"V {qid(frontier()[0])}", "inf")
    assert state.influence[0][V] == B.influence_top - 1
    assert not G.is_over(state) and state.active == 1


def test_waive_sets_second_stone_without_influence() -> None:
    state = fresh()
    set_hands(state, {0: [V, V, S, S, S, S]})
    a, b = frontier()[0], frontier()[1]
    events = do(state, 0, f"V {qid(a)}", f"waive {qid(b)}")
    assert state.stones[a][V] == 1 and state.stones[b][V] == 1
    assert state.supply[V] == B.stones_per_people - 2
    assert all(f == 0 for track in state.influence for f in track)
    assert state.discard == [V]  # one card for two stones
    assert "influence_raised" not in [e.kind for e in events]
    assert state.active == 1  # the turn ended


def test_waived_stone_follows_placement_rules() -> None:
    """The second stone may go next to the first one, even off the frontier."""
    state = fresh()
    set_hands(state, {0: [V] * 6})
    a = frontier()[0]
    inland_next = [q for q in G.board.provinces if not q.frontier]
    target = next(q.index for q in inland_next if B.neighbours[q.index] >> a & 1)
    do(state, 0, f"V {qid(a)}")
    assert Waive(target) in G.legal_actions(state, 0)
    do(state, 0, f"waive {qid(target)}")
    assert state.stones[target][V] == 1


def test_no_second_stone_when_supply_is_empty_after_the_first_stone() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    a = frontier()[0]
    for q in [q for q in range(len(B.provinces)) if q != a]:
        n = min(3, state.supply[V] - 1)
        if n <= 0:
            break
        state.stones[q][V] += n
        state.supply[V] -= n
    assert state.supply[V] == 1
    do(state, 0, f"V {qid(a)}")
    legal = G.legal_actions(state, 0)
    assert TakeInfluence() in legal and Waive() in legal  # waiving alone stays possible
    assert not any(isinstance(x, Waive) and x.province is not None for x in legal)


def frank_supply_emptied_by_f_bel():
    """Every Frank but one is on the board (never in or next to BEL); seat 0 plays `F BEL`,
    which sets the last one: the Frank supply is empty at the influence decision."""
    state = fresh()
    F = P("F")
    bel = B.province("BEL").index
    spare = [q for q in range(len(B.provinces)) if q != bel and not B.neighbours[q] >> bel & 1]
    left = B.stones_per_people - 1
    for q in spare:
        n = min(3, left)
        state.stones[q][F] += n
        state.supply[F] -= n
        left -= n
    assert not left
    set_hands(state, {0: [F] * 6})
    do(state, 0, "F BEL")
    assert state.supply[F] == 0 and state.step == "influence"
    return state


def test_waive_without_a_second_stone_when_the_supply_is_empty() -> None:
    """§2: "Dann *darf* er … einen zweiten Spielstein setzen": waiving does not oblige a
    second stone. After `F BEL` set the last Frank, `waive` is still offered (e.g. to stay
    off field 22 or out of a tie) and sets nothing."""
    state = frank_supply_emptied_by_f_bel()
    assert Waive() in G.legal_actions(state, 0)
    events = do(state, 0, "waive")
    assert "influence_waived" in [e.kind for e in events]
    assert "influence_raised" not in [e.kind for e in events]
    assert "stone_placed" not in [e.kind for e in events]
    assert all(f == 0 for track in state.influence for f in track)
    assert G.is_over(state)  # the empty Frank supply ends the game after this turn
    assert state.result["reasons"] == ["supply_empty"]


def test_waive_without_a_second_stone_is_offered_beside_the_second_stones() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    a = frontier()[0]
    do(state, 0, f"V {qid(a)}")
    legal = G.legal_actions(state, 0)
    assert legal[:2] == [TakeInfluence(), Waive()]  # `inf` stays the first (deadline default)
    assert any(isinstance(x, Waive) and x.province is not None for x in legal)
    do(state, 0, "waive")
    assert state.stones[a][V] == 1 and state.supply[V] == B.stones_per_people - 1
    assert state.influence[0][V] == 0 and state.active == 1
