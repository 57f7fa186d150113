"""Attika's data file: its shape and the invariants the engine relies on, all computed from
the data; plus the helpers the other Attika tests share (positions built by hand, buildings
picked by their properties rather than by id, a random legal player)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest

from engine.attika.board import Building, Hex, hex_distance, parse_board
from engine.attika.state import AttikaState
from engine.registry import get_game

G = get_game("attika")
B = G.board
R = G.rules
RAW = B.raw
CONST = RAW["constants"]
KINDS = len(B.resources)
TOTAL_CARDS = sum(r.cards for r in B.resources)
PER_PLAYER = CONST["buildings_per_player"]


# == helpers ====================================================================================


def bid(key: str) -> int:
    return B.building(key).index


def letters(text: str) -> list[int]:
    """Card counts per resource from letters such as ``WWH``."""
    counts = [0] * KINDS
    for letter in text:
        counts[B.resource(letter).index] += 1
    return counts


def pay(text: str) -> tuple[int, ...]:
    return tuple(sorted(B.resource(letter).index for letter in text))


def flat_state(players: int = 2, seed: str = "t", radius: int = 4, **options: Any) -> AttikaState:
    """A fresh game whose map is replaced by blank hexes within ``radius`` of (0, 0), with
    the shrines moved far away and empty hands; the active player is seat 0."""
    state = G.new_state(players, seed, options or None)
    state.land = {
        (q, r): -1
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if hex_distance((q, r), (0, 0)) <= radius
    }
    state.shrines = [(100 + 10 * i, 0) for i in range(len(state.shrines))]
    state.hands = [[0] * KINDS for _ in range(players)]
    state.active = 0
    return state


def landscape(state: AttikaState, hex_: Hex, letter: str | None) -> None:
    state.land[hex_] = -1 if letter is None else B.resource(letter).index


def take(state: AttikaState, seat: int, building: int) -> None:
    """Remove a building from wherever it is (stacks, storage board, map)."""
    for stack in state.stacks[seat]:
        if building in stack:
            stack.remove(building)
    if building in state.boards[seat]:
        state.boards[seat].remove(building)
    where = state.placed[seat].pop(building, None)
    if where is not None:
        del state.occupant[where]


def put(state: AttikaState, seat: int, building: int, hex_: Hex) -> None:
    """Put a building on the map directly (no cost, no rules)."""
    take(state, seat, building)
    state.occupant[hex_] = (seat, building)
    state.placed[seat][building] = hex_


def give(state: AttikaState, seat: int, building: int) -> None:
    """Put a building on the storage board."""
    take(state, seat, building)
    state.boards[seat].append(building)
    state.boards[seat].sort()


def neighbour(hex_: Hex, direction: int) -> Hex:
    dq, dr = B.directions[direction]
    return (hex_[0] + dq, hex_[1] + dr)


def plain_buildings() -> Iterator[Building]:
    """Non-main buildings with printed symbols and no road-style any-cost."""
    return (b for b in B.buildings if not b.main and not b.any_cost and sum(b.cost))


def chain_of_three() -> tuple[Building, Building, Building]:
    """Buildings a -> b -> c along the arrows where c's only predecessor is b, and b's only
    predecessor is a (the rulebook's quarry -> fortress -> tower example)."""
    for c in plain_buildings():
        for b in B.buildings:
            if c.predecessors != 1 << b.index or b.main or not b.predecessors:
                continue
            if b.predecessors & (b.predecessors - 1):
                continue
            a = B.buildings[b.predecessors.bit_length() - 1]
            return a, b, c
    raise AssertionError("the data has no chain of three")


def road() -> Building:
    return next(b for b in B.buildings if b.any_cost)


def roads() -> list[Building]:
    return [b for b in B.buildings if b.any_cost]


def main_building() -> Building:
    return next(b for b in B.buildings if b.main)


def random_game(players: int, seed: int, limit: int = 5000) -> tuple[AttikaState, list]:
    """Play uniformly random legal actions to the end; returns the state and the record."""
    state = G.new_state(players, f"seed-{seed}")
    rng = random.Random(seed)
    moves = []
    while not G.is_over(state) and len(moves) < limit:
        seat = G.pending(state)[0].seat
        action = rng.choice(G.legal_actions(state, seat))
        G.apply(state, seat, action)
        moves.append((seat, G.notation(action)))
    return state, moves


def buildings_accounted(state: AttikaState, seat: int) -> int:
    revealed = 1 if state.current >= 0 and seat == state.active else 0
    return (
        len(state.boards[seat])
        + sum(len(stack) for stack in state.stacks[seat])
        + len(state.placed[seat])
        + revealed
    )


def cards_accounted(state: AttikaState) -> int:
    return sum(map(sum, state.hands)) + len(state.deck) + len(state.discard)


# == the data file ==============================================================================


def test_the_data_file_explains_itself() -> None:
    for key in ("status", "grades", "sources", "data_version"):
        assert RAW[key]
    assert set(RAW["grades"]) == {"SOURCED", "INFERRED", "RECONSTRUCTED"}
    for building in RAW["buildings"]:
        grades = building["grade"]
        assert set(grades.values()) <= set(RAW["grades"]), building["id"]
        for source in building["sources"]:
            assert source in RAW["sources"], (building["id"], source)
    for name in ("tiles", "hex_geometry"):
        assert RAW[name]["grade"] in RAW["grades"]


def test_component_counts_agree_with_each_other() -> None:
    counts = {c["item"].split(",")[0].split(" ")[0]: c["count"] for c in RAW["components"]}
    assert len(B.tiles) == counts["map"]
    assert counts["landscape"] == TOTAL_CARDS
    assert CONST["amphora_supply"] == counts["amphorae"]
    assert len(B.buildings) == PER_PLAYER
    assert PER_PLAYER * len(RAW["player_colours"]["colours"]) == counts["buildings"]
    assert sum(g.size for g in B.groups) == PER_PLAYER
    for group in B.groups:
        assert len(group.members) == group.size, group.id
    mains = [b for b in B.buildings if b.main]
    assert len(mains) == CONST["main_buildings_per_player"] == B.main_stack
    assert PER_PLAYER - len(mains) == B.other_stacks * B.other_stack_size


def test_arrows_resolve_and_main_buildings_start_chains() -> None:
    for raw, building in zip(RAW["buildings"], B.buildings, strict=True):
        assert bool(raw["predecessors"]) == bool(building.predecessors), building.id
        if building.main:
            assert not building.predecessors
    # every group with arrows has its main building at the root
    for group in B.groups:
        members = [B.buildings[m] for m in group.members]
        if any(b.predecessors for b in members) and not any(b.any_cost for b in members):
            assert sum(b.main for b in members) == 1, group.id


def test_reconstructed_cost_totals_match_the_note() -> None:
    totals = RAW["building_notes"]["reconstructed_cost_totals_non_road"]
    for resource in B.resources:
        expected = totals[resource.id]
        assert sum(b.cost[resource.index] for b in B.buildings if not b.any_cost) == expected


def test_tile_faces_and_layouts() -> None:
    for tile in B.tiles:
        assert len(tile.hexes) == 1 + len(B.directions)
    for players, layout in B.layouts.items():
        raw = RAW["initial_layouts"][str(players)]
        assert len(layout.tile_centres) == CONST["initial_tiles_by_players"][str(players)]
        assert len(layout.shrines) == CONST["shrines_by_players"][str(players)]
        hexes = {h for c in layout.tile_centres for h, _ in B.tile_hexes(0, c, 0)}
        per_tile = 1 + len(B.directions)
        assert len(hexes) == raw["map_hexes"] == per_tile * len(layout.tile_centres)
        for shrine in layout.shrines:
            assert shrine not in hexes
            assert sum(n in hexes for n in B.neighbours(shrine)) == 1
        distances = [
            hex_distance(a, b)
            for i, a in enumerate(layout.shrines)
            for b in layout.shrines[i + 1 :]
        ]
        assert distances == raw["shrine_distances"]


def test_rotation_moves_outer_hexes_counter_clockwise() -> None:
    tile = next(t for t in B.tiles if t.hexes[1] >= 0)
    centre = (5, 5)
    for k in range(len(B.directions)):
        placed = dict(B.tile_hexes(tile.index, centre, k))
        assert placed[centre] == tile.hexes[0]
        assert placed[neighbour(centre, k % 6)] == tile.hexes[1]


def test_options_are_named_with_defaults_and_descriptions() -> None:
    specs = {spec.name: spec for spec in G.options}
    raw = {k: v for k, v in RAW["options"].items() if k != "note"}
    assert set(specs) == set(raw)
    for name, spec in specs.items():
        assert name == name.upper()
        assert spec.default == raw[name]["default"]
        assert spec.default in spec.choices
        assert spec.description


def test_the_package_data_parses_without_the_shared_folder() -> None:
    text = resources.files("engine.attika").joinpath("data/attika.json").read_text("utf-8")
    assert parse_board(json.loads(text)) == B


def test_a_corrected_data_file_needs_no_code_change() -> None:
    """Costs and tile faces are reconstructed: changed values flow through untouched."""
    raw = json.loads(json.dumps(RAW))
    raw["buildings"][0]["cost"] = {"forest": 4}
    raw["tiles"]["faces"][0]["hexes"] = ["hill"] * 7
    board = parse_board(raw)
    assert board.buildings[0].cost == tuple(4 if r.id == "forest" else 0 for r in board.resources)
    assert set(board.tiles[0].hexes) == {board.resource("hill").index}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_helpers_keep_the_counts(players: int) -> None:
    state, _ = random_game(players, 0, limit=60)
    assert cards_accounted(state) == TOTAL_CARDS
    assert all(buildings_accounted(state, s) == PER_PLAYER for s in range(players))
