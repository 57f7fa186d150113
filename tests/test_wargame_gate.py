"""The wargame hard Roman's hold on Costantinopolis (engine/attila_wargame/bot.py,
``GATE_PULL``, ``SALLY_COST``): its march is drawn onto the city's one land approach (4418),
where a Roman combat unit keeps every attacker by land from the city, and its attacks cost it
``SALLY_COST`` for each attacker that leaves a city to fight; medium plays as before."""

from __future__ import annotations

from typing import Any

from engine.attila_wargame.actions import Attack, Move
from engine.attila_wargame.bot import (
    BOT,
    GATE_PULL,
    HARD_BOT,
    SALLY_COST,
    Potential,
    WargameBot,
)
from engine.attila_wargame.map_questions import ROMAN
from engine.attila_wargame.state import COMBAT
from engine.registry import get_game
from tests.test_wargame_defence import ROMAN_SEAT, _roman_movement

GATE, COSTANTINOPOLIS = "4418", "4519"


def _hex(label: str) -> int:
    return int(get_game("attila-wargame").board.index_of_label[label])


def _unit_next_to_the_gate(state: Any) -> str:
    """A Roman combat unit moved onto a hex next to the gate (not the city)."""
    game = get_game("attila-wargame")
    board, rules = game.board, game.rules
    gate = _hex(GATE)
    free = [
        n
        for n in board.neighbours[gate]
        if board.passable[n] and n != _hex(COSTANTINOPOLIS) and n not in state.pos.values()
    ]
    unit = next(
        u
        for u in state.pos
        if rules.is_combat[u]
        and rules.side(state, u) == ROMAN
        and state.pos[u] not in board.city_at
    )
    state.pos[unit] = free[0]
    return unit


def test_costantinopolis_has_the_one_gate() -> None:
    """Of the map's cities only Costantinopolis has a single land hex next to it."""
    assert HARD_BOT.gates == {_hex(GATE): _hex(COSTANTINOPOLIS)}
    assert BOT.gates == HARD_BOT.gates


def test_the_hard_romans_march_is_drawn_onto_the_gate() -> None:
    """A Roman combat unit next to 4418: the hard level's potential is ``GATE_PULL`` higher
    on the gate than medium's, and its step onto the gate gains that much more; once a
    Barbarian holds the city the gate draws nobody."""
    state = _roman_movement()
    unit = _unit_next_to_the_gate(state)
    gate = _hex(GATE)
    hard, medium = Potential(HARD_BOT, state, ROMAN_SEAT), Potential(BOT, state, ROMAN_SEAT)
    assert hard.defending_gates == {gate} and not medium.defending_gates
    assert hard.at(unit, gate) - medium.at(unit, gate) == GATE_PULL
    step = Move(unit, (gate,))
    assert hard.gain(step) - medium.gain(step) == GATE_PULL
    garrison = next(u for u, h in state.pos.items() if h == _hex(COSTANTINOPOLIS))
    del state.pos[garrison]
    state.pos["HUN-1"] = _hex(COSTANTINOPOLIS)
    assert not Potential(HARD_BOT, state, ROMAN_SEAT).defending_gates


def _prior_of(bot: WargameBot, state: Any, seat: int, attack: Attack) -> float:
    prior = bot.prior(state, seat, [attack])
    assert prior is not None
    return prior[0]


def test_the_hard_roman_pays_for_each_attacker_sallying_out_of_a_city() -> None:
    """A Hun on the gate, attacked by Costantinopolis's garrison and by a unit in the open:
    the hard Roman's prior of the attack is ``SALLY_COST`` below medium's (one attacker in
    a city); the hard Barbarian pays nothing."""
    state = _roman_movement()
    unit = _unit_next_to_the_gate(state)
    gate = _hex(GATE)
    state.pos["HUN-1"] = gate
    state.step = COMBAT
    garrison = next(u for u, h in state.pos.items() if h == _hex(COSTANTINOPOLIS))
    attack = Attack(gate, (garrison, unit))
    hard = _prior_of(HARD_BOT, state, ROMAN_SEAT, attack)
    medium = _prior_of(BOT, state, ROMAN_SEAT, attack)
    assert medium - hard == SALLY_COST
    assert HARD_BOT._sallying(state, ROMAN_SEAT, Attack(gate, (unit,))) == 0
    assert HARD_BOT._sallying(state, 1 - ROMAN_SEAT, attack) == 0
