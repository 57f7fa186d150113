"""Devastation (rule 3), Attila's permanent devastation (3.2), sieges (6) and Mediolanum (11)."""

from __future__ import annotations

from typing import Any

from engine.attila_wargame.actions import End, Raze
from engine.attila_wargame.board import City
from engine.attila_wargame.state import RAZE, WargameState
from tests.test_wargame_helpers import ATTILA, BARB, B, G, R, land, move, setup, units_of

HUN, HUN2 = units_of("huns")[:2]
EAST, EAST2 = units_of("romans_east")[:2]
WEST = units_of("romans_west")[0]


def _city(empire: str, min_fields: int = 3) -> City:
    return next(
        c
        for c in B.cities
        if B.empire[c.hex] == empire
        and len(B.fields[c.id]) >= min_fields
        and all(B.empire[f] == empire for f in B.fields[c.id])
    )


def _zoc_neighbour(field: int, avoid: set[int]) -> int:
    """A non-cultivated hex next to ``field`` whose zone reaches it (no river, no city)."""
    return next(
        n
        for n in land(field)
        if n not in B.city_at
        and n not in avoid
        and not B.river_between(n, field)
        and B.empire[n] == B.empire[field]
    )


def test_devastation_by_occupation_and_by_uncontested_zone_of_control() -> None:
    city = _city("east")
    f0, f1 = B.fields[city.id][:2]
    zoc_at = _zoc_neighbour(f1, {city.hex, f0, f1})
    state = setup({HUN: f0, HUN2: zoc_at})
    G.apply(state, BARB, End())
    assert f0 in state.temp_devastated
    reached = [f for f in B.fields[city.id] if R.projects(R.ctx(state), HUN2, zoc_at, f)]
    assert f1 in reached and f1 in state.temp_devastated
    # Hexes that no Barbarian holds stay cultivated.
    untouched = [h for h in B.cultivated if h not in state.temp_devastated and h not in (f0, f1)]
    assert untouched


def _contested_field() -> tuple[int, int, int]:
    """A field and two other hexes next to it whose zones both reach it."""
    for field in sorted(B.cultivated):
        if B.empire[field] != "east":
            continue
        near = [
            n
            for n in land(field)
            if n not in B.city_at and not B.river_between(n, field) and B.empire[n] == "east"
        ]
        if len(near) >= 2:
            return field, near[0], near[1]
    raise LookupError


def test_a_roman_zone_of_control_contests_devastation() -> None:
    field, hun_at, roman_at = _contested_field()
    state = setup({HUN: hun_at, EAST: roman_at})
    ctx = R.ctx(state)
    assert R.projects(ctx, HUN, hun_at, field) and R.projects(ctx, EAST, roman_at, field)
    assert not R.barbarian_holds(state, ctx, field)
    state.pos.pop(EAST)
    assert R.barbarian_holds(state, R.ctx(state), field)


def test_fields_are_recovered_in_spring_when_no_longer_held() -> None:
    city = _city("east")
    f0 = B.fields[city.id][0]
    state = setup({HUN: f0})
    f1 = next(f for f in B.fields[city.id] if not R.barbarian_holds(state, R.ctx(state), f))
    state.temp_devastated = sorted([f0, f1])
    state.round = 3
    events = []
    R._start_round(state, events)
    assert state.temp_devastated == [f0]  # still occupied
    assert "recovered" in [e.kind for e in events]
    # Autumn rounds recover nothing.
    state.temp_devastated = sorted([f0, f1])
    state.round = 4
    R._start_round(state, [])
    assert state.temp_devastated == sorted([f0, f1])


def test_attila_devastates_for_good_the_fields_he_moved_over() -> None:
    city = _city("east")
    field = B.fields[city.id][0]
    start = next(n for n in land(field) if n not in B.city_at)
    state = setup({ATTILA: start})
    move(state, BARB, ATTILA, field)
    G.apply(state, BARB, End())
    assert state.step == RAZE and field in state.temp_devastated
    assert set(G.legal_actions(state, BARB)) == {Raze(()), Raze((field,))}
    G.apply(state, BARB, Raze((field,)))
    assert state.perm_devastated == [field] and field not in state.temp_devastated
    state.pos.pop(ATTILA)
    state.round = 3
    R._start_round(state, [])
    assert state.perm_devastated == [field]


def _siege(city: City, unit: str, **options: Any) -> WargameState:
    fields = B.fields[city.id]
    state = setup({unit: (city.hex, 6), HUN: fields[0]}, **options)
    state.temp_devastated = sorted(fields)
    return state


def test_a_besieged_roman_unit_loses_one_point_per_round() -> None:
    city = _city("east")
    state = _siege(city, EAST)
    events: list = []
    R._sieges(state, events)
    assert state.cf[EAST] == 5 and EAST in state.siege_hit
    R._sieges(state, events)
    assert state.cf[EAST] == 4
    assert [e.data["points"] for e in events if e.kind == "siege_loss"] == [1, 1]


def test_mediolanum_loses_two() -> None:
    mediolanum = B.city_by_id["mediolanum"]
    state = _siege(mediolanum, WEST)
    R._sieges(state, [])
    assert state.cf[WEST] == 6 - B.bindings["siege"]["loss_by_city"]["mediolanum"] == 4


def test_no_siege_while_a_field_is_cultivated_or_none_is_occupied() -> None:
    city = _city("east")
    state = _siege(city, EAST)
    state.temp_devastated = state.temp_devastated[:-1]
    R._sieges(state, [])
    assert state.cf[EAST] == 6
    state = _siege(city, EAST)
    state.pos.pop(HUN)
    R._sieges(state, [])
    assert state.cf[EAST] == 6
    # The French reading: either condition suffices.
    state = _siege(city, EAST, SIEGE_CONDITION="all_fields_devastated_or_one_enemy_occupied")
    state.pos.pop(HUN)
    R._sieges(state, [])
    assert state.cf[EAST] == 5


def test_barbarian_units_are_never_besieged() -> None:
    city = _city("east")
    fields = B.fields[city.id]
    state = setup({HUN: (city.hex, 5), EAST: fields[0]})
    state.temp_devastated = sorted(fields)
    R._sieges(state, [])
    assert state.cf[HUN] == 5


def test_siege_losses_come_after_barbarian_combat_in_every_round() -> None:
    city = _city("east")
    state = _siege(city, EAST)
    state.pos[EAST2] = next(
        h
        for h in range(len(B.labels))
        if B.passable[h]
        and B.empire[h] == "east"
        and all(B.distance(h, x) > 3 for x in state.pos.values())
    )
    state.cf[EAST2] = 6
    state.gone.pop(EAST2, None)
    G.apply(state, BARB, End())  # a -> b -> c
    assert state.phase == "c" and state.cf[EAST] == 6
    G.apply(state, BARB, End())  # no assault on the garrison (voluntary): c -> d -> e
    assert state.phase == "e" and state.cf[EAST] == 5
