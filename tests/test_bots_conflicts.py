"""The bots' policy in Attila's conflicts (docs/bots.md, "Conflict cards"): a bot lays cards
when they keep a people it scores from leaving the province, and keeps them when nobody it
could gain or lose by is at stake. Fixed positions, fixed seeds, engine only."""

from __future__ import annotations

import random

import pytest

from engine.attila.actions import Commit
from engine.attila.state import CONFLICT, AttilaState, Conflict
from engine.bots import Budget, Level, choose
from engine.registry import get_game

GAME = get_game("attila")
BOARD = GAME.board
PEOPLE = {p.id: p.index for p in BOARD.peoples}
HUNS, GOTHS, FRANKS, SAXONS = PEOPLE["huns"], PEOPLE["goths"], PEOPLE["franks"], PEOPLE["saxons"]
#: The province of the conflict, and four others holding more Huns.
CONTESTED = 7
ELSEWHERE = (0, 1, 2, 3)
#: Small searches: the iteration cap binds long before the CPU budget.
BUDGET = Budget(seconds=60.0, iterations=60)
SEEDS = ("a", "b", "c")


def _conflict(own_hand: list[int], influence: dict[int, dict[int, int]]) -> AttilaState:
    """Seat 0 first to lay cards in a conflict of 2 Huns against 3 Goths, with 12 more Huns
    stones on the board; the other cards dealt at random to the other hands and the pile."""
    state = GAME.new_state(3, "conflict-policy", GAME.resolve_options(None))
    cards = [p.index for p in BOARD.peoples for _ in range(BOARD.cards_per_people)]
    for card in own_hand:
        cards.remove(card)
    random.Random(1).shuffle(cards)
    state.hands = [sorted(own_hand), sorted(cards[:6]), sorted(cards[6:12])]
    state.deck, state.discard = cards[12:], []
    state.stones[CONTESTED][HUNS], state.stones[CONTESTED][GOTHS] = 2, 3
    for province in ELSEWHERE:
        state.stones[province][HUNS] = 3
    state.supply[HUNS] -= 14
    state.supply[GOTHS] -= 3
    for seat, fields in influence.items():
        for people, field in fields.items():
            state.influence[seat][people] = field
    state.active, state.step, state.turn = 0, CONFLICT, 12
    state.conflicts, state.conflict_this_card = 1, True
    state.conflict = Conflict("conflict-1", CONTESTED, (HUNS, GOTHS), (0, 1, 2))
    return state


def _choice(state: AttilaState, level: Level, seed: str) -> Commit:
    view = GAME.view(state, 0)
    action = choose("attila", view, [], 0, level, seed, None, BUDGET)
    assert isinstance(action, Commit)
    return action


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("seed", SEEDS)
def test_a_bot_lays_cards_to_keep_the_people_it_leads(level: Level, seed: str) -> None:
    """Seat 0 leads the Huns (14 stones on the board): if they leave the province it loses
    two stones and a province at every scoring to come, for a card or two now."""
    influence = {0: {HUNS: 9}, 1: {HUNS: 4, GOTHS: 3}, 2: {GOTHS: 7}}
    state = _conflict([HUNS, HUNS, FRANKS, FRANKS, SAXONS, SAXONS], influence)
    assert HUNS in _choice(state, level, seed).cards


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("seed", SEEDS)
def test_a_bot_keeps_its_cards_when_nothing_of_its_own_is_at_stake(level: Level, seed: str) -> None:
    """Nobody is on the Huns' or the Goths' track: whoever leaves, nobody scores more or
    less, and cards laid are cards lost until the refill."""
    influence = {0: {FRANKS: 5}, 1: {SAXONS: 5}, 2: {FRANKS: 3}}
    state = _conflict([HUNS, HUNS, GOTHS, GOTHS, FRANKS, SAXONS], influence)
    assert _choice(state, level, seed) == Commit(())
