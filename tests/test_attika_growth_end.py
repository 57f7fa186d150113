"""Amphorae for complete groups, map growth, and the end of the game (rulebook: Amphoren,
Spielplan erweitern, Scopo del gioco) plus the documented ending for a blocked game."""

from __future__ import annotations

import pytest

from engine.attika.actions import Build, EndTurn, PlaceTile, Reveal, Store
from engine.attika.board import hex_distance
from engine.attika.state import OVER, PLACE_TILE, TURN, AttikaState
from engine.core import IllegalAction
from tests.test_attika_data import (
    KINDS,
    B,
    G,
    R,
    flat_state,
    give,
    neighbour,
    plain_buildings,
    put,
)

RICH = [20] * KINDS


def refused(state: AttikaState, seat: int, action, code: str) -> None:
    before = G.dump(state)
    with pytest.raises(IllegalAction) as error:
        G.apply(state, seat, action)
    assert error.value.code == code
    assert G.dump(state) == before


def small_group():
    return min((g for g in B.groups if g.size >= 2), key=lambda g: g.size)


def outsider(group) -> int:
    return next(b.index for b in plain_buildings() if b.group != group.index)


def line(n: int, start: tuple[int, int] = (0, 0)) -> list[tuple[int, int]]:
    return [(start[0] + i, start[1]) for i in range(n)]


# == amphorae ==================================================================================


def test_a_complete_connected_group_earns_one_amphora() -> None:
    group = small_group()
    *first, last = group.members
    state = flat_state()
    state.hands[0] = list(RICH)
    hexes = line(len(group.members))
    for member, hex_ in zip(first, hexes, strict=False):
        put(state, 0, member, hex_)
    give(state, 0, last)
    events = G.apply(state, 0, Build(last, hexes[-1], None))
    assert [e.data["group"] for e in events if e.kind == "amphora_earned"] == [group.id]
    assert state.amphorae[0] == 1 and state.amphora_supply == B.amphora_supply - 1
    assert state.rewarded[0] == [group.index]
    # never twice for the same group
    other = outsider(group)
    give(state, 0, other)
    events = G.apply(state, 0, Build(other, neighbour(hexes[0], 3), None))
    assert not any(e.kind == "amphora_earned" for e in events)


@pytest.mark.parametrize(
    ("connection", "earned"),
    [
        ("group_buildings_connected_among_themselves", False),
        ("connected_via_any_own_buildings", True),
    ],
)
def test_group_connection_option(connection: str, earned: bool) -> None:
    group = small_group()
    *first, last = group.members
    state = flat_state(AMPHORA_GROUP_CONNECTION=connection)
    state.hands[0] = list(RICH)
    hexes = line(len(group.members) + 1)
    for member, hex_ in zip(first, hexes, strict=False):
        put(state, 0, member, hex_)
    put(state, 0, outsider(group), hexes[-2])  # a non-group building links the last one
    give(state, 0, last)
    G.apply(state, 0, Build(last, hexes[-1], None))
    assert (state.amphorae[0] == 1) is earned


def test_an_empty_amphora_supply_gives_a_card_instead() -> None:
    group = small_group()
    *first, last = group.members
    state = flat_state()
    state.hands[0] = list(RICH)
    state.amphora_supply = 0
    hexes = line(len(group.members))
    for member, hex_ in zip(first, hexes, strict=False):
        put(state, 0, member, hex_)
    give(state, 0, last)
    state.mode, state.actions_left = "build", 1
    before = sum(state.hands[0])
    events = G.apply(state, 0, Build(last, hexes[-1], None))
    paid = len(next(e for e in events if e.kind == "building_built").data["paid"])
    assert state.amphorae[0] == 0
    assert any(e.kind == "amphora_supply_empty" for e in events)
    assert sum(state.hands[0]) == before - paid + 1


# == map growth ==================================================================================


def last_of_a_stack(players: int = 2, **options) -> tuple[AttikaState, int]:
    """A fresh game whose active player has one building left in stack 2."""
    state = G.new_state(players, "growth", options or None)
    seat = state.active
    stack = state.stacks[seat][1]
    while len(stack) > 1:
        state.boards[seat].append(stack.pop(0))
    state.boards[seat].sort()
    return state, seat


def test_revealing_the_last_building_of_a_stack_grows_the_map() -> None:
    state, seat = last_of_a_stack()
    tile = state.tile_pile[-1]
    G.apply(state, seat, Reveal(1))
    events = G.apply(state, seat, Store())  # the building first, then the tile
    assert [e.kind for e in events][:2] == ["building_stored", "tile_drawn"]
    assert state.step == PLACE_TILE and state.drawn_tile == tile
    legal = G.legal_actions(state, seat)
    assert legal and all(isinstance(a, PlaceTile) for a in legal)
    taken = set(state.land) | set(state.shrines)
    positions = {a.hex for a in legal}
    assert {a.rotation for a in legal} == set(range(len(B.directions)))
    for centre in positions:
        flower = [centre, *B.neighbours(centre)]
        assert not any(h in taken for h in flower)
        assert any(n in taken for h in flower for n in B.neighbours(h))
    choice = sorted(legal, key=lambda a: (a.hex, a.rotation))[len(legal) // 2]
    size = len(state.land)
    G.apply(state, seat, choice)
    assert len(state.land) == size + 1 + len(B.directions)
    for hex_, kind in B.tile_hexes(tile, choice.hex, choice.rotation):
        assert state.land[hex_] == kind
    assert state.step == TURN and state.drawn_tile == -1 and tile not in state.tile_pile
    assert state.tiles[-1] == [tile, *choice.hex, choice.rotation]


def test_a_tile_may_touch_only_a_shrine_and_leave_gaps() -> None:
    state, seat = last_of_a_stack()
    G.apply(state, seat, Reveal(1))
    G.apply(state, seat, Store())
    positions = {a.hex for a in G.legal_actions(state, seat)}
    only_shrine = [
        c
        for c in positions
        if min(hex_distance(c, h) for h in state.land) > 2
        and min(hex_distance(c, s) for s in state.shrines) == 2
    ]
    assert only_shrine
    G.apply(state, seat, PlaceTile(only_shrine[0], 0))


def test_bad_tile_placements_are_refused() -> None:
    state, seat = last_of_a_stack()
    G.apply(state, seat, Reveal(1))
    G.apply(state, seat, Store())
    refused(state, seat, PlaceTile((0, 0), 0), "tile-position")  # overlaps the map
    refused(state, seat, PlaceTile((40, 40), 0), "tile-position")  # touches nothing
    good = G.legal_actions(state, seat)[0].hex
    refused(state, seat, PlaceTile(good, len(B.directions)), "bad-rotation")
    refused(state, seat, EndTurn(), "wrong-step")


def test_super_lattice_option_keeps_tiles_on_the_lattice() -> None:
    state, seat = last_of_a_stack(TILE_PLACEMENT_POSITIONS="super_lattice_only")
    G.apply(state, seat, Reveal(1))
    G.apply(state, seat, Store())
    positions = {a.hex for a in G.legal_actions(state, seat)}
    assert positions and all(B.on_lattice(c) for c in positions)
    default, _ = last_of_a_stack()
    assert positions < set(R.tile_positions(default))


def test_building_the_last_revealed_building_also_grows_the_map() -> None:
    state, seat = last_of_a_stack()
    state.hands[seat] = list(RICH)
    G.apply(state, seat, Reveal(1))
    build = next(a for a in G.legal_actions(state, seat) if isinstance(a, Build))
    G.apply(state, seat, build)
    assert state.step == PLACE_TILE


def test_no_tile_left_means_no_growth() -> None:
    state, seat = last_of_a_stack()
    state.tile_pile = []
    G.apply(state, seat, Reveal(1))
    events = G.apply(state, seat, Store())
    assert any(e.kind == "no_tile_left" for e in events)
    assert state.step == TURN and state.actions_left == 1


# == the end ====================================================================================


def test_building_all_own_buildings_wins_at_once() -> None:
    state = flat_state(radius=5)
    state.hands[0] = list(RICH)
    hexes = sorted(state.land)[::2]
    *first, last = range(len(B.buildings))
    for building, hex_ in zip(first, hexes, strict=False):
        put(state, 0, building, hex_)
    give(state, 0, last)
    target = next(a for a in G.legal_actions(state, 0) if isinstance(a, Build))
    events = G.apply(state, 0, target)
    assert state.step == OVER and G.is_over(state)
    assert state.result["winners"] == [0] and state.result["reasons"] == ["all_buildings"]
    assert state.result["scores"][0] == len(B.buildings)
    assert events[-1].kind == "game_ended"
    assert G.pending(state) == [] and G.legal_actions(state, 0) == []
    refused(state, 0, EndTurn(), "game-over")


def shrine_state() -> AttikaState:
    """A radius-4 map with shrines at (5, 0) and (-5, 0), each touching the map."""
    state = flat_state(radius=4)
    state.shrines = [(5, 0), (-5, 0)]
    state.hands[0] = list(RICH)
    return state


def test_connecting_two_shrines_with_own_buildings_wins() -> None:
    state = shrine_state()
    hexes = line(9, (-4, 0))
    pieces = [b.index for b in B.buildings][: len(hexes)]
    for building, hex_ in zip(pieces[:-1], hexes[:-1], strict=True):
        put(state, 0, building, hex_)
    assert not R.shrines_connected(state, 0)
    give(state, 0, pieces[-1])
    G.apply(state, 0, Build(pieces[-1], hexes[-1], None))
    assert state.result is not None
    assert state.result["winners"] == [0] and state.result["reasons"] == ["shrines_connected"]


def test_shrines_joined_by_two_colours_do_not_win() -> None:
    state = shrine_state()
    hexes = line(9, (-4, 0))
    for i, hex_ in enumerate(hexes[:-1]):
        put(state, i % 2, i // 2, hex_)
    give(state, 0, 20)
    G.apply(state, 0, Build(20, hexes[-1], None))
    assert state.result is None
    assert not R.shrines_connected(state, 0) and not R.shrines_connected(state, 1)


def end_turns(state: AttikaState, count: int) -> None:
    for _ in range(count):
        G.apply(state, state.active, EndTurn())


def test_idle_rounds_do_not_end_a_game_in_which_builds_are_legal() -> None:
    """Issue #20: four `end`s in a row ended a 2-player game as "blocked", with both players
    winning, although building was legal. The manual has only its two wins."""
    state = G.new_state(2, "blocked")
    end_turns(state, 4)
    assert state.result is None and state.step == TURN
    assert any(isinstance(a, Build) for a in G.legal_actions(state, state.active))


def no_room(state: AttikaState) -> AttikaState:
    """A full map: every map hex built on, and no tile left to grow it."""
    state.land = {h: k for h, k in state.land.items() if h in state.occupant}
    state.tile_pile = []
    return state


def test_a_blocked_game_ends_after_two_idle_rounds_when_nobody_can_build() -> None:
    state = G.new_state(2, "blocked")
    seat = state.active
    other = 1 - seat
    put(state, other, state.boards[other][0], (0, 0))
    no_room(state)
    assert not any(R.can_still_build(state, s) for s in (0, 1))
    end_turns(state, 3)
    assert state.result is None
    # a reveal resets the count
    G.apply(state, state.active, Reveal(0))
    G.apply(state, state.active, Store())
    G.apply(state, state.active, Reveal(1))
    G.apply(state, state.active, Store())
    end_turns(state, 3)
    assert state.result is None
    end_turns(state, 1)
    assert state.result is not None and state.result["reasons"] == ["blocked"]
    assert state.result["winners"] == [other]


def test_what_keeps_a_game_open() -> None:
    """A player can still build while a building is left to place and either a free hex
    takes one they can pay now, or the hand or the map can still change."""
    state = no_room(G.new_state(2, "open"))
    assert not R.can_still_build(state, 0)
    state.land[(50, 50)] = -1  # a free hex
    assert R.can_still_build(state, 0)  # the deck can still give cards
    state.deck, state.discard = [], []
    state.hands[0] = [0] * KINDS
    assert not R.can_still_build(state, 0)  # nothing to pay with, no card to come
    state.hands[0] = list(RICH)
    assert R.can_still_build(state, 0)  # ... but a full hand pays now
    state = no_room(G.new_state(2, "open"))
    state.tile_pile = [0]
    assert R.can_still_build(state, 0)  # a stack to empty brings a new tile
    for s in (0, 1):
        state.boards[s] = []
        state.stacks[s] = [[] for _ in state.stacks[s]]
    assert not R.can_still_build(state, 0)  # nothing left to place, no tile to come


def test_blocked_game_tie_breaks() -> None:
    state = G.new_state(2, "ties")
    # equal buildings: fewer settlements wins
    put(state, 0, 0, (0, 0))
    put(state, 0, 1, (1, 0))
    put(state, 1, 0, (-1, 3))
    put(state, 1, 1, (1, 4))
    end_turns(no_room(state), 4)
    assert state.result["winners"] == [0]
    state = G.new_state(2, "ties")
    end_turns(no_room(state), 4)
    assert state.result["winners"] == [0, 1]  # nothing separates them: a shared win
