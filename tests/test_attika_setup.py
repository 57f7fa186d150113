"""Attika setup by player count: map tiles, shrines, stacks, storage boards, cards, amphorae."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.attika.state import NO_MODE, TURN
from engine.core import IllegalAction
from tests.test_attika_data import (
    CONST,
    PER_PLAYER,
    TOTAL_CARDS,
    B,
    G,
    buildings_accounted,
    cards_accounted,
)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_map_tiles_and_shrines_by_player_count(players: int) -> None:
    state = G.new_state(players, "setup")
    layout = B.layouts[players]
    assert [(q, r) for _, q, r, _ in state.tiles] == list(layout.tile_centres)
    assert len(state.land) == (1 + len(B.directions)) * len(layout.tile_centres)
    assert state.shrines == list(layout.shrines)
    assert len(state.shrines) == CONST["shrines_by_players"][str(players)]
    placed = [t for t, *_ in state.tiles]
    assert len(set(placed)) == len(placed)
    assert sorted(placed + state.tile_pile) == list(range(len(B.tiles)))
    for tile, q, r, rotation in state.tiles:
        for hex_, kind in B.tile_hexes(tile, (q, r), rotation):
            assert state.land[hex_] == kind
    assert not state.occupant


@pytest.mark.parametrize("players", [2, 3, 4])
def test_stacks_and_storage_boards(players: int) -> None:
    state = G.new_state(players, "stacks")
    mains = {b.index for b in B.buildings if b.main}
    for seat in range(players):
        main_stack, *others = state.stacks[seat]
        assert len(state.stacks[seat]) == 1 + B.other_stacks
        # the top of every stack is already on the storage board
        assert len(main_stack) == B.main_stack - 1
        assert [len(s) for s in others] == [B.other_stack_size - 1] * B.other_stacks
        assert set(main_stack) < mains
        assert not any(set(s) & mains for s in others)
        board = state.boards[seat]
        assert len(board) == 1 + B.other_stacks
        assert sum(b in mains for b in board) == 1
        everything = board + [b for s in state.stacks[seat] for b in s]
        assert sorted(everything) == list(range(PER_PLAYER))
        assert buildings_accounted(state, seat) == PER_PLAYER
    assert state.amphora_supply == CONST["amphora_supply"]
    assert state.amphorae == [0] * players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_starting_cards_in_turn_order(players: int) -> None:
    state = G.new_state(players, "cards")
    start = state.start_seat
    for i in range(players):
        seat = (start + i) % players
        assert sum(state.hands[seat]) == CONST["starting_cards_in_turn_order"][i]
    assert cards_accounted(state) == TOTAL_CARDS
    assert state.discard == []
    all_cards = Counter(state.deck)
    for hand in state.hands:
        all_cards.update({k: n for k, n in enumerate(hand)})
    assert all_cards == Counter({r.index: r.cards for r in B.resources})


def test_first_decision_is_the_start_player_choosing() -> None:
    state = G.new_state(3, "first")
    [decision] = G.pending(state)
    assert (decision.seat, decision.kind, decision.step) == (state.start_seat, "move", TURN)
    assert state.mode == NO_MODE and state.turn == 1
    assert G.legal_actions(state, (state.start_seat + 1) % 3) == []


def test_setup_is_deterministic_from_the_seed() -> None:
    one, two = G.new_state(4, "same"), G.new_state(4, "same")
    assert G.dump(one) == G.dump(two)
    starts = {G.new_state(4, f"seed-{i}").start_seat for i in range(30)}
    assert len(starts) > 1
    boards = {str(G.new_state(2, f"seed-{i}").stacks) for i in range(10)}
    assert len(boards) == 10
    rotations = {G.new_state(2, f"seed-{i}").tiles[0][3] for i in range(30)}
    assert len(rotations) > 1


def test_options_fixed_rotation_and_host_chooses_start() -> None:
    state = G.new_state(
        3, "opts", {"INITIAL_TILE_ROTATION": "fixed_0", "START_PLAYER": "host_chooses"}
    )
    assert all(rotation == 0 for *_, rotation in state.tiles)
    assert state.start_seat == state.active == 0
    assert sum(state.hands[0]) == CONST["starting_cards_in_turn_order"][0]


@pytest.mark.parametrize("players", [1, 5])
def test_player_count_outside_two_to_four(players: int) -> None:
    with pytest.raises(IllegalAction) as error:
        G.new_state(players, "x")
    assert error.value.code == "bad-player-count"


def test_unknown_and_bad_options_are_refused() -> None:
    with pytest.raises(IllegalAction) as error:
        G.new_state(2, "x", {"NO_SUCH_OPTION": 1})
    assert error.value.code == "unknown-option"
    with pytest.raises(IllegalAction) as error:
        G.new_state(2, "x", {"DECK_EXHAUSTED": "burn"})
    assert error.value.code == "bad-option"
