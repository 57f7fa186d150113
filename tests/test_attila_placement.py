"""Rulebook §1 (playing a card and setting a stone) and §8 (sea arrows, pacified provinces,
no 6th stone), plus the 5th-stone-without-tile option."""

from __future__ import annotations

import pytest

from engine.attila.actions import Play, Waive
from engine.core import IllegalAction
from tests.attila_helpers import (
    CAPACITY,
    PROVINCES,
    B,
    G,
    P,
    do,
    fresh,
    frontier,
    inland,
    land_neighbours,
    neighbours,
    norm,
    put,
    qid,
    resolve,
    sea_pairs,
    set_hands,
    total_in,
)

V, S, F = P("V"), P("S"), P("F")


def plays_for(state, people: int) -> set[int]:
    return {
        a.province
        for a in G.legal_actions(state, state.active)
        if isinstance(a, Play) and a.people == people
    }


def waives(state) -> set[int]:
    return {a.province for a in G.legal_actions(state, state.active) if isinstance(a, Waive)}


def assert_illegal(state, seat: int, text: str, code: str) -> None:
    before = norm(G.dump(state))
    with pytest.raises(IllegalAction) as error:
        G.apply(state, seat, G.parse(text))
    assert error.value.code == code
    assert norm(G.dump(state)) == before, "an illegal action must leave the state untouched"


def test_board_data_is_consistent() -> None:
    assert len(frontier()) == B.raw["constants"]["frontier_provinces"]
    for q in PROVINCES:
        assert q not in neighbours(q)
        for n in neighbours(q):
            assert q in neighbours(n), "adjacency must be symmetric"


def test_first_stone_of_a_people_only_on_the_frontier() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    assert plays_for(state, V) == set(frontier())
    for q in inland():
        assert_illegal(state, 0, f"V {qid(q)}", "illegal-province")
    do(state, 0, f"V {qid(frontier()[0])}")
    assert state.stones[frontier()[0]][V] == 1


@pytest.mark.parametrize("source", inland())
def test_later_stones_frontier_own_province_or_adjacent(source: int) -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    put(state, source, V)
    expected = set(frontier()) | {source} | neighbours(source)
    assert plays_for(state, V) == expected
    for q in set(PROVINCES) - expected:
        assert_illegal(state, 0, f"V {qid(q)}", "illegal-province")
    # another people's stones do not open the way for the Vandals
    state2 = fresh()
    set_hands(state2, {0: [V] * 6})
    put(state2, source, S)
    assert plays_for(state2, V) == set(frontier())


def test_sea_arrows_make_provinces_adjacent() -> None:
    pairs = [(a, b) for a, b in sea_pairs() if b not in land_neighbours(a)]
    assert pairs, "the data has sea arrows"
    for a, b in pairs:
        for src, dst in ((a, b), (b, a)):
            state = fresh()
            set_hands(state, {0: [V] * 6})
            put(state, src, V)
            assert dst in plays_for(state, V), f"{qid(src)} -> {qid(dst)} by sea"
            do(state, 0, f"V {qid(dst)}")
            assert state.stones[dst][V] == 1


def test_pacified_province_is_a_source_but_never_a_target() -> None:
    source = next(q for q in inland() if set(neighbours(q)) - set(frontier()))
    state = fresh()
    set_hands(state, {0: [V] * 6})
    put(state, source, V, 2)
    state.pacified[source] = 4
    legal = plays_for(state, V)
    assert source not in legal
    assert neighbours(source) <= legal
    assert_illegal(state, 0, f"V {qid(source)}", "illegal-province")
    # a pacified frontier province is closed even for a first stone
    state = fresh()
    set_hands(state, {0: [V] * 6})
    closed = frontier()[0]
    state.pacified[closed] = 4
    assert plays_for(state, V) == set(frontier()) - {closed}
    assert_illegal(state, 0, f"V {qid(closed)}", "illegal-province")


def test_placing_moves_card_to_discard_and_stone_from_supply() -> None:
    state = fresh()
    set_hands(state, {0: [V, V, S, S, F, F]})
    q = frontier()[1]
    events = do(state, 0, f"V {qid(q)}")
    assert state.hands[0] == sorted([V, S, S, F, F])
    assert state.discard == [V]
    assert state.supply[V] == B.stones_per_people - 1
    assert state.step == "influence"
    assert [e.kind for e in events] == ["card_played", "stone_placed"]


def test_card_not_in_hand_and_supply_empty() -> None:
    state = fresh()
    set_hands(state, {0: [S] * 6})
    assert_illegal(state, 0, f"V {qid(frontier()[0])}", "card-not-in-hand")
    state = fresh()
    set_hands(state, {0: [V, V, S, S, S, S]})
    # all Vandal stones on the board, none in supply
    spots = [q for q in inland()]
    left = B.stones_per_people
    for q in spots:
        n = min(CAPACITY - 1, left)
        put(state, q, V, n)
        left -= n
        if not left:
            break
    assert state.supply[V] == 0
    assert not plays_for(state, V)
    assert_illegal(state, 0, f"V {qid(frontier()[0])}", "supply-empty")


def fill(state, q: int, n: int = CAPACITY) -> None:
    """Fill province q with n stones of Saxons and Franks."""
    put(state, q, S, n // 2)
    put(state, q, F, n - n // 2)


def test_fifth_stone_allowed_while_a_tile_is_left() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    q = frontier()[0]
    fill(state, q)
    assert q in plays_for(state, V)
    do(state, 0, f"V {qid(q)}")
    assert total_in(state, q) == CAPACITY + 1
    assert state.queued == [q]


def test_never_a_sixth_stone_by_waiving_influence() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    q = frontier()[0]
    fill(state, q)
    do(state, 0, f"V {qid(q)}")
    assert q not in waives(state)
    assert_illegal(state, 0, f"waive {qid(q)}", "illegal-province")
    # a second stone elsewhere is fine
    other = frontier()[1]
    assert other in waives(state)


def test_never_a_sixth_stone_with_a_double_turn() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6, 1: [S] * 6, 2: [F] * 6})
    q = frontier()[0]
    put(state, q, V, 3)
    put(state, q, S, 1)
    do(state, 0, "double", f"V {qid(q)}", "inf")
    assert state.step == "conflict_cards"
    do(state, 0, "pass")
    do(state, 1, "pass")
    do(state, 2, "pass")
    resolve(state)
    # the second card of the double turn: the province is pacified (Vandals stayed in it)
    assert state.step == "play_card" and state.active == 0
    assert state.stones[q][V] == 4 and state.pacified[q]
    assert q not in plays_for(state, V)
    assert_illegal(state, 0, f"V {qid(q)}", "illegal-province")


def test_fifth_stone_forbidden_without_a_pacification_tile() -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    q = frontier()[0]
    fill(state, q)
    state.tiles_left = [0] * len(state.tiles_left)
    assert q not in plays_for(state, V)
    assert_illegal(state, 0, f"V {qid(q)}", "illegal-province")
    # a province with room is still fine
    assert frontier()[1] in plays_for(state, V)


@pytest.mark.parametrize("tiles, allowed", [(1, False), (2, True)])
def test_fifth_stone_rule_counts_conflicts_already_queued(tiles: int, allowed: bool) -> None:
    state = fresh()
    set_hands(state, {0: [V] * 6})
    a, b = frontier()[0], frontier()[1]
    fill(state, a)
    fill(state, b)
    state.tiles_left = [0] * len(state.tiles_left)
    state.tiles_left[-1] = tiles
    do(state, 0, f"V {qid(a)}")  # claims one tile for its conflict
    assert (b in waives(state)) is allowed
    if allowed:
        do(state, 0, f"waive {qid(b)}")
        assert state.step == "conflict_cards" and state.queued == [b]
    else:
        assert_illegal(state, 0, f"waive {qid(b)}", "illegal-province")
