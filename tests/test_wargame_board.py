"""The data: map, forces, start positions, options (all read from the package data)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import IllegalAction
from tests.test_wargame_helpers import BARB, B, G, R, noted_state


def test_the_map_matches_the_specs_checks() -> None:
    checks = B.raw["map"]["checks"]
    assert len(B.labels) == checks["hexes"]
    assert sum(B.passable) == checks["in_play_land_hexes"]
    assert len(B.river_sides) == checks["river_hexsides"]
    assert len(B.rivers_of) == B.raw["map"]["derived"]["river_hexes"]["expected_count"]
    assert len(B.cities) == checks["cities"]
    assert sum(c.value for c in B.cities) == checks["city_value_total"]
    assert len(set(B.labels)) == len(B.labels)
    # Neighbours are symmetric; every city's fields are land, in play and not cities.
    for h, ns in enumerate(B.neighbours):
        assert all(h in B.neighbours[n] for n in ns)
    for city in B.cities:
        assert all(B.passable[f] and f not in B.city_at for f in B.fields[city.id])


def test_start_positions_one_combat_unit_per_hex_on_land() -> None:
    state = G.new_state(2, "board")
    combat = Counter(h for u, h in state.pos.items() if B.units[u].combat)
    assert max(combat.values()) == 1
    assert all(B.passable[h] for h in state.pos.values())
    expected = sum(len(f["units"]) for f in B.raw["forces"])
    assert len(combat) == expected
    later = {u for u, d in B.units.items() if not d.combat and d.start < 0}
    assert later == {e["unit"] for e in B.bindings["events"] if e["kind"] == "enter"}
    assert state.alignment == {p["id"]: p["control_at_start"] for p in B.raw["peoples"]}


def test_no_battle_is_owed_at_the_start() -> None:
    state = noted_state("board")
    state.phase, state.step = "c", "combat"
    assert not R._battle_options(state)[1]


def test_options_come_from_the_data_and_are_checked() -> None:
    names = {spec.name for spec in G.options}
    assert names == {k for k in B.raw["options"] if k != "note"}
    with pytest.raises(IllegalAction) as error:
        G.new_state(2, "x", {"BARBARIAN_POINTS_THRESHOLD": 30})
    assert error.value.code == "bad-option"
    with pytest.raises(IllegalAction) as error:
        G.new_state(2, "x", {"NO_SUCH_RULE": 1})
    assert error.value.code == "unknown-option"
    with pytest.raises(IllegalAction) as error:
        G.new_state(3, "x")
    assert error.value.code == "bad-player-count"


def test_a_sixth_burgundian_by_option() -> None:
    people = B.bindings["extra_units"][0]["people"]
    five = [u for u in G.new_state(2, "b").pos if B.units[u].people == people]
    six = G.new_state(2, "b", {"BURGUNDIAN_COUNT": 6})
    placed = [u for u in six.pos if B.units[u].people == people]
    assert len(five) == 5 and len(placed) == 6
    extra = (set(placed) - set(five)).pop()
    assert B.region[six.pos[extra]] == B.region[B.units[five[0]].start]
    assert G.legal_actions(six, BARB)
