"""A turn (rulebook: Il proprio turno, Aufdecken, Bauen, Rohstoffe nachziehen, Amphoren
einsetzen): two reveals or three builds, never mixed; unused actions become cards; amphorae
extend the turn or turn the remaining actions into cards."""

from __future__ import annotations

import pytest

from engine.attika.actions import Build, DrawCards, EndTurn, Reveal, SpendAmphora, Store
from engine.attika.state import BUILD, DRAW, REVEAL, REVEALED, TURN, AttikaState
from engine.core import IllegalAction
from tests.test_attika_data import (
    KINDS,
    PER_PLAYER,
    TOTAL_CARDS,
    B,
    G,
    buildings_accounted,
    cards_accounted,
)

RICH = [12] * KINDS


def game(players: int = 2, seed: str = "turn", **options) -> tuple[AttikaState, int]:
    state = G.new_state(players, seed, options or None)
    return state, state.active


def rich(state: AttikaState, seat: int) -> None:
    """Give ``seat`` plenty of cards, taken from the deck so that the totals stay right."""
    for kind, want in enumerate(RICH):
        while state.hands[seat][kind] < want and kind in state.deck:
            state.deck.remove(kind)
            state.hands[seat][kind] += 1


def refused(state: AttikaState, seat: int, action, code: str) -> None:
    before = G.dump(state)
    with pytest.raises(IllegalAction) as error:
        G.apply(state, seat, action)
    assert error.value.code == code
    assert G.dump(state) == before


def first_build(state: AttikaState, seat: int) -> Build:
    return next(a for a in G.legal_actions(state, seat) if isinstance(a, Build))


# == reveal ====================================================================================


def test_reveal_then_store_or_build_only_that_building() -> None:
    state, seat = game()
    top = state.stacks[seat][0][-1]
    G.apply(state, seat, Reveal(0))
    assert state.step == REVEALED and state.current == top and state.mode == REVEAL
    legal = G.legal_actions(state, seat)
    assert Store() in legal
    assert all(isinstance(a, Store) or a.building == top for a in legal)
    other = state.boards[seat][0]
    rich(state, seat)
    refused(state, seat, Build(other, next(iter(state.land)), None), "not-revealed-building")
    refused(state, seat, Reveal(1), "wrong-step")
    refused(state, seat, EndTurn(), "wrong-step")
    G.apply(state, seat, Store())
    assert top in state.boards[seat] and state.step == TURN and state.actions_left == 1


def test_revealed_building_can_be_built_at_once() -> None:
    state, seat = game()
    rich(state, seat)
    G.apply(state, seat, Reveal(1))
    top = state.current
    action = first_build(state, seat)
    assert action.building == top
    G.apply(state, seat, action)
    assert state.occupant[action.hex] == (seat, top)
    assert top not in state.boards[seat] and state.current == -1
    assert buildings_accounted(state, seat) == PER_PLAYER


def test_two_reveals_end_the_turn_without_an_amphora() -> None:
    state, seat = game()
    hand = sum(state.hands[seat])
    for stack in (0, 1):
        G.apply(state, seat, Reveal(stack))
        G.apply(state, seat, Store())
    assert state.active != seat and state.turn == 2
    assert sum(state.hands[seat]) == hand  # no action was left unused


def test_no_third_reveal_and_no_mixing() -> None:
    state, seat = game()
    state.amphorae[seat] = 1  # keeps the turn open after the last action
    for stack in (0, 1):
        G.apply(state, seat, Reveal(stack))
        G.apply(state, seat, Store())
    assert state.active == seat and state.actions_left == 0
    refused(state, seat, Reveal(2), "no-reveals-left")
    rich(state, seat)
    board_building = state.boards[seat][0]
    refused(state, seat, Build(board_building, next(iter(state.land)), None), "mixed-actions")
    assert set(G.legal_actions(state, seat)) == {SpendAmphora(), EndTurn()}


def test_build_turn_forbids_reveals() -> None:
    state, seat = game()
    rich(state, seat)
    G.apply(state, seat, first_build(state, seat))
    assert state.mode == BUILD and state.actions_left == B.build_actions - 1
    refused(state, seat, Reveal(0), "mixed-actions")
    assert not any(isinstance(a, Reveal) for a in G.legal_actions(state, seat))


def test_three_builds_then_the_turn_passes() -> None:
    state, seat = game()
    rich(state, seat)
    for _ in range(B.build_actions):
        assert state.active == seat
        G.apply(state, seat, first_build(state, seat))
    assert state.active != seat
    assert len(state.placed[seat]) == B.build_actions
    assert cards_accounted(state) == TOTAL_CARDS


def test_reveal_from_an_empty_or_unknown_stack() -> None:
    state, seat = game()
    state.stacks[seat][2] = []
    refused(state, seat, Reveal(2), "stack-empty")
    refused(state, seat, Reveal(7), "no-such-stack")
    assert Reveal(2) not in G.legal_actions(state, seat)


def test_building_not_on_the_storage_board() -> None:
    state, seat = game()
    rich(state, seat)
    hidden = state.stacks[seat][1][0]
    refused(state, seat, Build(hidden, next(iter(state.land)), None), "not-on-storage-board")


# == unused actions become cards ===================================================================


@pytest.mark.parametrize("done", ["nothing", "one_reveal", "one_build"])
def test_each_unused_action_draws_a_card(done: str) -> None:
    state, seat = game()
    rich(state, seat)
    if done == "one_reveal":
        G.apply(state, seat, Reveal(0))
        G.apply(state, seat, Store())
    elif done == "one_build":
        G.apply(state, seat, first_build(state, seat))
    before = sum(state.hands[seat])
    events = G.apply(state, seat, EndTurn())
    unused = {
        "nothing": max(B.reveal_actions, B.build_actions),
        "one_reveal": B.reveal_actions - 1,
        "one_build": B.build_actions - 1,
    }[done]
    assert sum(state.hands[seat]) == before + unused * B.card_per_unused_action
    own = next(e for e in events if e.kind == "cards_drawn_own")
    assert own.audience == (seat,) and len(own.data["cards"]) == unused
    public = next(e for e in events if e.kind == "cards_drawn")
    assert public.audience is None and "cards" not in public.data
    assert state.active != seat


def test_an_empty_deck_is_reshuffled_from_the_discards() -> None:
    state, seat = game()
    state.discard, state.deck = state.deck, []
    events = G.apply(state, seat, EndTurn())
    assert any(e.kind == "discards_reshuffled" for e in events)
    assert cards_accounted(state) == TOTAL_CARDS


def test_stop_drawing_option_draws_nothing_from_an_empty_deck() -> None:
    state, seat = game(DECK_EXHAUSTED="stop_drawing")
    state.discard, state.deck = state.deck, []
    before = sum(state.hands[seat])
    G.apply(state, seat, EndTurn())
    assert sum(state.hands[seat]) == before and state.deck == []


# == amphorae in the turn ==========================================================================


def test_amphora_extends_the_chosen_action_at_the_end_of_the_turn() -> None:
    state, seat = game()
    rich(state, seat)
    state.amphorae[seat] = 1
    state.amphora_supply -= 1
    refused(state, seat, SpendAmphora(), "no-action-chosen")
    G.apply(state, seat, first_build(state, seat))
    refused(state, seat, SpendAmphora(), "actions-left")
    for _ in range(B.build_actions - 1):
        G.apply(state, seat, first_build(state, seat))
    assert state.active == seat and state.actions_left == 0  # waits for end or amphora
    G.apply(state, seat, SpendAmphora())
    assert state.amphorae[seat] == 0 and state.amphora_supply == B.amphora_supply
    assert state.actions_left == 1 and state.mode == BUILD
    G.apply(state, seat, first_build(state, seat))
    assert state.active != seat  # no amphora left: the turn ends by itself
    assert len(state.placed[seat]) == B.build_actions + 1


def test_spent_amphorae_can_leave_the_game() -> None:
    state, seat = game(AMPHORA_SPENT_RETURNS_TO_SUPPLY=False)
    state.amphorae[seat], state.amphora_supply = 1, B.amphora_supply - 1
    state.mode, state.actions_left = REVEAL, 0
    G.apply(state, seat, SpendAmphora())
    assert state.amphora_supply == B.amphora_supply - 1


@pytest.mark.parametrize("rate", [1, 2])
def test_draw_turns_remaining_actions_into_cards_and_the_turn_goes_on(rate: int) -> None:
    state, seat = game(AMPHORA_CARD_DRAW_RATE=rate)
    state.amphorae[seat] = 2
    before = sum(state.hands[seat])
    G.apply(state, seat, DrawCards())
    unused = max(B.reveal_actions, B.build_actions)
    assert sum(state.hands[seat]) == before + unused
    assert state.active == seat and state.mode == DRAW
    assert set(G.legal_actions(state, seat)) == {SpendAmphora(), EndTurn()}
    refused(state, seat, Reveal(0), "mixed-actions")
    refused(state, seat, DrawCards(), "already-drawn")
    G.apply(state, seat, SpendAmphora())
    assert sum(state.hands[seat]) == before + unused + rate and state.active == seat
    G.apply(state, seat, SpendAmphora())
    assert sum(state.hands[seat]) == before + unused + 2 * rate
    assert state.active != seat  # the last amphora is spent: nothing is left to do


def test_draw_needs_an_amphora() -> None:
    state, seat = game()
    refused(state, seat, DrawCards(), "no-amphora")
    assert DrawCards() not in G.legal_actions(state, seat)
    assert SpendAmphora() not in G.legal_actions(state, seat)


def test_only_the_active_player_acts() -> None:
    state, seat = game(players=3)
    other = (seat + 1) % 3
    refused(state, other, EndTurn(), "not-your-turn")
    assert G.legal_actions(state, other) == []
