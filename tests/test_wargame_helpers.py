"""Shared helpers for the Attila wargame tests: hexes found from the data, positions built by
hand on an emptied map, and a random legal player. (Its own few tests check the helpers.)"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from engine.attila_wargame.actions import Card, Move, Note, Resolve
from engine.attila_wargame.game import GAME as G
from engine.attila_wargame.state import COMBAT, MOVEMENT, WargameState
from engine.core import SYSTEM, Event, IllegalAction
from engine.registry import _ENGINES

B = G.board
R = G.rules
ROMAN = R.seat_of["roman"]
BARB = R.seat_of["barbarian"]
ROLES = B.bindings["roles"]
LEO, ATTILA, AETIUS, EMPEROR = (
    ROLES["pope"],
    ROLES["attila"],
    ROLES["aetius"],
    ROLES["emperor_west"],
)
REGISTERED = "attila-wargame" in _ENGINES


def hx(label: str) -> int:
    return B.index_of_label[label]


def lab(h: int) -> str:
    return B.labels[h]


def units_of(people: str, combat: bool = True) -> list[str]:
    return B.unit_ids_of(people, combat=combat)


def city_hex(city_id: str) -> int:
    return B.city_by_id[city_id].hex


def land(h: int) -> list[int]:
    return [n for n in B.neighbours[h] if B.passable[n]]


def find_hex(pred: Callable[[int], bool], empire: str | None = None) -> int:
    """The first in-play hex (map order) satisfying ``pred``."""
    for h in range(len(B.labels)):
        if B.passable[h] and (empire is None or B.empire[h] == empire) and pred(h):
            return h
    raise LookupError("no such hex")


def plain(h: int) -> bool:
    """Not a city, not a river hex, not cultivated, and so are its land neighbours."""
    ring = [h, *B.neighbours[h]]
    return (
        all(n not in B.city_at and n not in B.rivers_of and n not in B.cultivated for n in ring)
        and len(land(h)) == 6
    )


def open_ground(empire: str) -> int:
    """A hex with six in-play neighbours, all plain (no rivers, cities or fields around);
    where the empire has none, a hex that is plain itself."""
    try:
        return find_hex(lambda h: plain(h) and all(plain(n) for n in B.neighbours[h]), empire)
    except LookupError:
        return find_hex(plain, empire)


def noted_state(
    seed: str = "t",
    traitor: str | None = None,
    aetius: int | None = None,
    suborned: str | None = None,
    **options: Any,
) -> WargameState:
    """A new game with both secret notes written (far-off defaults: nothing triggers)."""
    state = G.new_state(2, seed, options or None)
    traitor = traitor or R.traitor_candidates[-1]
    aetius = aetius or B.rounds - R.aetius_span + 1
    suborned = suborned or R.suborned_candidates[-1]
    G.apply(state, BARB, Note(traitor, aetius))
    G.apply(state, ROMAN, Note(suborned))
    return state


def empty_board(state: WargameState) -> WargameState:
    """Lift every unit off the map (kept as 'gone' so nothing scores or triggers)."""
    for unit in list(state.pos):
        state.pos.pop(unit)
        state.cf.pop(unit, None)
        state.gone[unit] = "test"
    state.moved = {}
    return state


def put(state: WargameState, unit: str, h: int, cf: int | None = None) -> None:
    state.gone.pop(unit, None)
    state.pos[unit] = h
    if B.units[unit].combat:
        state.cf[unit] = cf if cf is not None else B.units[unit].cf


def at_phase(state: WargameState, phase: str, round_: int | None = None) -> WargameState:
    """Jump to the start of a movement (a, e) or combat (c, f) phase, without its events."""
    if round_ is not None:
        state.round = round_
    state.phase = phase
    state.step = MOVEMENT if phase in "ae" else COMBAT
    state.moved, state.fought, state.attacked = {}, [], []
    state.attila_trail = []
    state.battle = None
    return state


def setup(
    placements: dict[str, int | tuple[int, int]],
    phase: str = "a",
    round_: int = 1,
    **options: Any,
) -> WargameState:
    """An emptied map with just these units (unit -> hex, or (hex, cf))."""
    notes = {k: options.pop(k) for k in ("traitor", "aetius", "suborned") if k in options}
    state = empty_board(noted_state(**notes, **options))
    for unit, where in placements.items():
        if isinstance(where, tuple):
            put(state, unit, where[0], where[1])
        else:
            put(state, unit, where)
    return at_phase(state, phase, round_)


def move(state: WargameState, seat: int, unit: str, *hexes: int) -> list[Event]:
    return G.apply(state, seat, Move(unit, tuple(hexes)))


def fight(state: WargameState, attack_card: str, defence_card: str) -> list[Event]:
    """Both cards of the current battle, then the server's resolution."""
    battle = state.battle
    assert battle is not None
    G.apply(state, battle.attacker_seat, Card(attack_card))
    G.apply(state, 1 - battle.attacker_seat, Card(defence_card))
    return G.apply(state, SYSTEM, Resolve())


def cards_for(column: str, result: str) -> tuple[str, str]:
    """An attack and a defence card giving ``result`` on ``column`` (from the data)."""
    for att, row in B.cells[column].items():
        for dfn, code in row.items():
            if code == result:
                return att, dfn
    raise LookupError(f"{result} is not on the {column} column")


def rejects(state: WargameState, seat: int, action: Any, code: str) -> None:
    """The action is refused with ``code`` and the state is untouched."""
    before = G.dump(state)
    try:
        G.apply(state, seat, action)
    except IllegalAction as error:
        assert error.code == code, (error.code, error.message)
    else:
        raise AssertionError(f"{action} was accepted")
    assert G.dump(state) == before


def random_play(
    state: WargameState,
    rng: random.Random,
    end_bias: float = 0.0,
    limit: int = 100_000,
    check: Callable[[WargameState, int, Any, list[Event]], None] | None = None,
) -> list[tuple[int, str]]:
    """Play random legal actions to the end; ``end_bias`` ends movement phases early."""
    record: list[tuple[int, str]] = []
    while not G.is_over(state):
        assert len(record) < limit, "the game did not end within the bound"
        decision = G.pending(state)[0]
        actions = G.legal_actions(state, decision.seat)
        assert actions, decision
        action = rng.choice(actions)
        if end_bias and decision.step == MOVEMENT and rng.random() < end_bias:
            action = actions[-1]
        events = G.apply(state, decision.seat, action)
        record.append((decision.seat, G.notation(action)))
        if check is not None:
            check(state, decision.seat, action, events)
    return record


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


# -- the helpers' own checks ----------------------------------------------------------------


def test_open_ground_is_found_in_each_empire() -> None:
    for empire in ("west", "east", "barbarian"):
        h = open_ground(empire)
        assert plain(h)
        assert B.empire[h] == empire and len(land(h)) == 6


def test_setup_places_only_the_given_units() -> None:
    h = open_ground("barbarian")
    state = setup({"HUN-1": h})
    assert state.pos == {"HUN-1": h}
    assert state.phase == "a" and G.pending(state)[0].seat == BARB
