"""Movement (rules 1.1-1.5), zones of control (2.1-2.4) and the peoples' territories (9-16)."""

from __future__ import annotations

from engine.attila_wargame.actions import End, Move
from tests.test_wargame_helpers import (
    ATTILA,
    BARB,
    ROMAN,
    B,
    G,
    R,
    find_hex,
    land,
    move,
    open_ground,
    plain,
    rejects,
    setup,
    units_of,
)

HUN, HUN2 = units_of("huns")[:2]
EAST = units_of("romans_east")[0]
WEST = units_of("romans_west")[0]
HERULI = units_of("heruli")[0]
GEPID = units_of("gepids")[0]
FRANK = units_of("franks")[0]


def line(h: int, direction: int, k: int) -> int:
    """The hex ``k`` steps from ``h`` in one of the six directions."""
    step = B.raw["map"]["directions"][direction]
    q, r = B.qr[h]
    return B.index_of_qr[(q + k * step["dq"], r + k * step["dr"])]


def steps_of(state, seat: int, unit: str) -> set[int]:
    return {
        a.path[0] for a in G.legal_actions(state, seat) if isinstance(a, Move) and a.unit == unit
    }


def test_a_combat_unit_stops_on_entering_an_enemy_zone_of_control() -> None:
    c = open_ground("barbarian")
    state = setup({EAST: c, HUN: line(c, 0, 3)})
    rejects(state, BARB, Move(HUN, (line(c, 0, 2), line(c, 0, 1), line(c, 1, 1))), "must-stop")
    move(state, BARB, HUN, line(c, 0, 2), line(c, 0, 1))
    assert state.moved[HUN] == {"used": 2, "stopped": True, "run": []}
    assert HUN not in {a.unit for a in G.legal_actions(state, BARB) if isinstance(a, Move)}
    rejects(state, BARB, Move(HUN, (line(c, 1, 1),)), "unit-cannot-move")


def test_a_combat_unit_that_begins_in_an_enemy_zone_stays_there() -> None:
    c = open_ground("barbarian")
    state = setup({EAST: c, HUN: line(c, 0, 1), HUN2: line(c, 0, 3)})
    assert steps_of(state, BARB, HUN) == set()
    assert steps_of(state, BARB, HUN2)
    rejects(state, BARB, Move(HUN, (line(c, 0, 2),)), "unit-cannot-move")


def test_command_units_ignore_zones_of_control_but_not_enemy_hexes() -> None:
    c = open_ground("barbarian")
    state = setup({EAST: c, ATTILA: line(c, 0, 2)})
    path = (line(c, 0, 1), line(c, 1, 1), line(c, 2, 1), line(c, 3, 1))
    move(state, BARB, ATTILA, *path)
    assert state.pos[ATTILA] == path[-1] and not state.moved[ATTILA]["stopped"]
    state = setup({EAST: c, ATTILA: line(c, 0, 1)})
    rejects(state, BARB, Move(ATTILA, (c,)), "cannot-enter")


def test_movement_factor_limits_the_path_over_several_moves() -> None:
    c = open_ground("barbarian")
    mf = B.units[HUN].mf
    far = [line(c, d % 6, 1) for d in range(mf + 1)]  # round the ring of six neighbours
    state = setup({HUN: c})
    rejects(state, BARB, Move(HUN, tuple(far)), "too-far")
    move(state, BARB, HUN, *far[:2])
    rejects(state, BARB, Move(HUN, tuple(far[2 : mf + 1])), "too-far")
    move(state, BARB, HUN, *far[2:mf])
    assert state.pos[HUN] == far[mf - 1] and steps_of(state, BARB, HUN) == set()


def test_a_path_is_the_same_as_its_steps_one_at_a_time() -> None:
    c = open_ground("barbarian")
    path = [line(c, 5, 1), line(c, 5, 2), line(c, 4, 1)]
    path[2] = line(path[1], 4, 1)
    one = setup({HUN: c, ATTILA: c})
    two = setup({HUN: c, ATTILA: c})
    move(one, BARB, HUN, *path)
    for h in path:
        assert h in steps_of(two, BARB, HUN)
        move(two, BARB, HUN, h)
    assert G.dump(one) == G.dump(two)


def test_no_two_combat_units_in_a_hex_but_command_units_stack() -> None:
    c = open_ground("barbarian")
    n = line(c, 0, 1)
    state = setup({HUN: c, HUN2: n, ATTILA: c})
    assert n not in steps_of(state, BARB, HUN)
    rejects(state, BARB, Move(HUN, (n,)), "cannot-enter")
    assert n in steps_of(state, BARB, ATTILA)
    move(state, BARB, ATTILA, n)
    assert state.pos[ATTILA] == state.pos[HUN2]


def test_no_unit_enters_a_hex_of_a_neutral_or_enemy_unit() -> None:
    c = open_ground("barbarian")
    state = setup({HUN: c, FRANK: line(c, 0, 1)})
    assert state.alignment["franks"] == "neutral"
    rejects(state, BARB, Move(HUN, (line(c, 0, 1),)), "cannot-enter")
    # A neutral unit has no zone of control: the Hun passes beside it.
    move(state, BARB, HUN, line(c, 1, 1), line(c, 1, 2))
    assert not state.moved[HUN]["stopped"]


def test_sea_hexes_are_impassable() -> None:
    coast = find_hex(
        lambda h: (
            any(not B.passable[n] and B.raw and n >= 0 for n in B.neighbours[h])
            and h not in B.city_at
            and h not in B.rivers_of
        ),
        "barbarian",
    )
    sea = next(n for n in B.neighbours[coast] if not B.passable[n])
    state = setup({HUN: coast})
    assert sea not in steps_of(state, BARB, HUN)
    rejects(state, BARB, Move(HUN, (sea,)), "cannot-enter")


def _river_pair(same_river: bool) -> tuple[int, int]:
    """Adjacent hexes a (plain or river) and b (a river hex), no city, in barbarian land."""
    for a in range(len(B.labels)):
        if not B.passable[a] or B.empire[a] != "barbarian" or a in B.city_at:
            continue
        for b in B.neighbours[a]:
            if b in B.city_at or not B.passable[b] or B.empire[b] != "barbarian":
                continue
            if b not in B.rivers_of or B.river_between(a, b):
                continue
            if same_river and a in B.rivers_of and B.rivers_of[a] & B.rivers_of[b]:
                return a, b
            if not same_river and a not in B.rivers_of:
                return a, b
    raise LookupError


def test_every_unit_stops_on_entering_a_river_hex() -> None:
    a, b = _river_pair(same_river=False)
    beyond = next(n for n in land(b) if n != a and n not in B.city_at)
    for unit in (HUN, ATTILA):
        state = setup({unit: a})
        rejects(state, BARB, Move(unit, (b, beyond)), "must-stop")
        move(state, BARB, unit, b)
        assert state.moved[unit]["stopped"]


def test_a_unit_that_began_on_a_river_follows_it_without_stopping() -> None:
    a, b = _river_pair(same_river=True)
    state = setup({HUN: a})
    move(state, BARB, HUN, b)
    assert not state.moved[HUN]["stopped"]
    assert set(state.moved[HUN]["run"]) == set(B.rivers_of[a] & B.rivers_of[b])


def test_river_hexside_model_stops_only_after_crossing() -> None:
    a, b = _river_pair(same_river=False)
    state = setup({HUN: a}, RIVER_STOP_MODEL="stop_after_crossing_river_hexside")
    move(state, BARB, HUN, b)
    assert not state.moved[HUN]["stopped"]
    x, y = next(
        (x, y)
        for x, y in sorted(B.river_sides)
        if B.empire[x] == B.empire[y] == "barbarian"
        and B.passable[x]
        and B.passable[y]
        and x not in B.city_at
        and y not in B.city_at
    )
    state = setup({HUN: x}, RIVER_STOP_MODEL="stop_after_crossing_river_hexside")
    move(state, BARB, HUN, y)
    assert state.moved[HUN]["stopped"]


def test_zones_of_control_do_not_cross_rivers() -> None:
    x, y = next(
        (x, y)
        for x, y in sorted(B.river_sides)
        if B.passable[x]
        and B.passable[y]
        and x not in B.city_at
        and y not in B.city_at
        and "west" not in (B.empire[x], B.empire[y])
    )
    other = next(n for n in land(x) if not B.river_between(x, n) and n not in B.city_at)
    state = setup({EAST: x})
    ctx = R.ctx(state)
    assert not R.in_enemy_zoc(ctx, HUN, y)
    assert R.in_enemy_zoc(ctx, HUN, other)


def _open(a: int, b: int) -> bool:
    """Adjacent, no river between, b neither a city nor Western (closed to Eastern units)."""
    return not B.river_between(a, b) and b not in B.city_at and B.empire[b] in ("east", "barbarian")


def _city_corner() -> tuple[int, int, int]:
    """An Eastern or barbarian city, an open neighbour n, and m next to n (not the city's)."""
    for c in B.cities:
        if B.empire[c.hex] not in ("east", "barbarian"):
            continue
        for n in land(c.hex):
            if not _open(c.hex, n):
                continue
            for m in land(n):
                if m != c.hex and _open(n, m) and c.hex not in B.neighbours[m]:
                    return c.hex, n, m
    raise LookupError


def test_cities_and_zones_of_control() -> None:
    city, n, m = _city_corner()
    # 2.1: a unit in a city has no zone of control.
    state = setup({EAST: city})
    assert not R.in_enemy_zoc(R.ctx(state), HUN, n)
    # 2.2: a unit next to a city does not control the city hex (but controls the others).
    state = setup({EAST: n})
    assert not R.in_enemy_zoc(R.ctx(state), HUN, city)
    assert R.in_enemy_zoc(R.ctx(state), HUN, m)


def test_a_unit_in_a_city_may_leave_and_stops_at_the_first_controlled_hex() -> None:
    city, n, m = _city_corner()
    state = setup({EAST: city, HUN: m}, phase="e")
    assert R.movable(state, R.ctx(state), EAST, "roman")
    move(state, ROMAN, EAST, n)
    assert state.moved[EAST]["stopped"]


def test_hostility_gates_zones_of_control() -> None:
    c = open_ground("barbarian")
    state = setup({EAST: c, HERULI: line(c, 0, 2)})
    # Heruli never fight the Eastern Romans: no zone of control between them ...
    move(state, BARB, HERULI, line(c, 0, 1), line(c, 1, 1))
    assert not state.moved[HERULI]["stopped"]
    # ... but they still may not enter each other's hexes.
    rejects(state, BARB, Move(HERULI, (c,)), "cannot-enter")


def _border(a_empire: str, b_empire: str) -> tuple[int, int]:
    for a in range(len(B.labels)):
        if B.passable[a] and B.empire[a] == a_empire and a not in B.city_at:
            for b in B.neighbours[a]:
                if B.passable[b] and B.empire[b] == b_empire and b not in B.city_at:
                    return a, b
    raise LookupError


def test_territories_of_the_peoples() -> None:
    e, w = _border("east", "west")
    state = setup({EAST: e, WEST: w}, phase="e")
    rejects(state, ROMAN, Move(EAST, (w,)), "cannot-enter")
    rejects(state, ROMAN, Move(WEST, (e,)), "cannot-enter")
    state = setup({HERULI: _border("barbarian", "east")[0]})
    rejects(state, BARB, Move(HERULI, (_border("barbarian", "east")[1],)), "cannot-enter")
    barb, west = _border("barbarian", "west")
    state = setup({GEPID: barb})
    rejects(state, BARB, Move(GEPID, (west,)), "cannot-enter")
    state = setup({WEST: west}, phase="e")
    rejects(state, ROMAN, Move(WEST, (barb,)), "cannot-enter")
    hun_round = B.bindings["west_invasion"]["from_round"]
    state = setup({HUN: barb}, round_=hun_round - 1)
    rejects(state, BARB, Move(HUN, (west,)), "cannot-enter")
    state = setup({HUN: barb}, round_=hun_round)
    assert not state.west_invaded
    move(state, BARB, HUN, west)
    assert state.west_invaded
    # Now the Western Romans may enter barbarian land (ruling 9).
    assert R.may_enter_land(R.ctx(state), "romans_west", barb)


def test_end_of_movement_passes_to_the_next_phase() -> None:
    c = open_ground("barbarian")
    state = setup({HUN: c})
    G.apply(state, BARB, End())
    assert state.phase in ("c", "e")
    assert plain(c)
