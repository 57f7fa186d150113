"""Building rules and the cost algorithm (rulebook: Bauregeln, Baukosten, Sinnvolle
Baureihenfolge, Siedlungen). Buildings are picked by their properties in the data, and the
expected costs are computed from the data, so corrected costs do not break these tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.attika.actions import Build
from engine.attika.rules import Quote
from engine.attika.state import AttikaState
from engine.core import IllegalAction
from tests.test_attika_data import (
    KINDS,
    B,
    G,
    R,
    chain_of_three,
    flat_state,
    give,
    landscape,
    main_building,
    neighbour,
    plain_buildings,
    put,
    road,
    roads,
)

SITE = (0, 0)
FAR = (3, 0)  # not adjacent to SITE


def quote(state: AttikaState, building: int, hex_: tuple[int, int] = SITE, seat: int = 0) -> Quote:
    return R.quote(state, seat, building, hex_)


def costly() -> tuple[int, int]:
    """A plain building and a resource it needs at least once."""
    b = max(plain_buildings(), key=lambda b: (max(b.cost), sum(b.cost)))
    return b.index, b.cost.index(max(b.cost))


def unneeded_kind(building: int) -> int:
    return next(k for k in range(KINDS) if B.buildings[building].cost[k] == 0)


def other_kind(kind: int) -> int:
    return (kind + 1) % KINDS


def building_with_unused_kind() -> int:
    return next(b.index for b in plain_buildings() if 0 in b.cost)


def hand(state: AttikaState, counts: list[int] | tuple[int, ...], seat: int = 0) -> None:
    state.hands[seat] = list(counts)


def unit(kind: int, n: int = 1) -> list[int]:
    return [n if k == kind else 0 for k in range(KINDS)]


def add(*vectors: list[int] | tuple[int, ...]) -> list[int]:
    return [sum(v[k] for v in vectors) for k in range(KINDS)]


def as_pay(counts: list[int]) -> tuple[int, ...]:
    return tuple(k for k in range(KINDS) for _ in range(counts[k]))


def build(state: AttikaState, building: int, hex_: tuple[int, int], pay=None, seat: int = 0):
    give(state, seat, building)
    return G.apply(state, seat, Build(building, hex_, pay))


def assert_refused(state: AttikaState, action: Build, code: str, seat: int = 0) -> None:
    before = G.dump(state)
    with pytest.raises(IllegalAction) as error:
        G.apply(state, seat, action)
    assert error.value.code == code
    assert G.dump(state) == before


# == printed cost minus landscape ================================================================


def test_blank_map_costs_the_printed_symbols() -> None:
    state = flat_state()
    for b in plain_buildings():
        q = quote(state, b.index)
        assert q.need == b.cost and q.any == 0 and not q.free


def test_landscape_on_the_site_and_free_neighbours_reduces_the_cost() -> None:
    state = flat_state()
    b, kind = costly()
    printed = B.buildings[b].cost[kind]
    letter = B.resources[kind].letter
    landscape(state, SITE, letter)
    assert quote(state, b).need[kind] == printed - 1
    for d in range(len(B.directions)):
        landscape(state, neighbour(SITE, d), letter)
    # 7 symbols of that kind: more than printed, the surplus is lost, never negative
    assert quote(state, b).need[kind] == 0
    assert quote(state, b).any == 0
    assert quote(state, b).need == tuple(
        0 if k == kind else c for k, c in enumerate(B.buildings[b].cost)
    )


def test_symbols_under_occupied_neighbours_do_not_count() -> None:
    state = flat_state()
    b, kind = costly()
    letter = B.resources[kind].letter
    own_n, other_n, far = neighbour(SITE, 0), neighbour(SITE, 3), (2, 0)
    for h in (own_n, other_n, far):
        landscape(state, h, letter)
    printed = B.buildings[b].cost[kind]
    assert quote(state, b).need[kind] == max(0, printed - 2)  # only the two neighbours
    helper = next(x.index for x in plain_buildings() if x.index != b)
    put(state, 1, helper, other_n)  # another colour's building covers one symbol
    assert quote(state, b).need[kind] == printed - 1
    put(state, 0, helper, own_n)  # and an own building the other
    assert quote(state, b).need[kind] == printed


def test_symbols_of_types_the_building_does_not_need_are_lost() -> None:
    state = flat_state()
    b = building_with_unused_kind()
    landscape(state, SITE, B.resources[unneeded_kind(b)].letter)
    q = quote(state, b)
    assert q.need == B.buildings[b].cost and q.any == 0


# == paying: exact payments and the 2-for-1 joker ============================================


def test_two_cards_of_any_kind_stand_for_one_missing_symbol() -> None:
    state = flat_state()
    b, kind = costly()
    cost = list(B.buildings[b].cost)
    joker = other_kind(kind)
    exact = add(cost, unit(kind, -1), unit(joker, 2))  # one symbol paid by two other cards
    hand(state, add(exact, unit(joker, 1)))
    give(state, 0, b)
    assert_refused(state, Build(b, SITE, as_pay(add(exact, unit(joker)))), "payment-too-large")
    assert_refused(state, Build(b, SITE, as_pay(add(exact, unit(joker, -1)))), "payment-too-small")
    events = G.apply(state, 0, Build(b, SITE, as_pay(exact)))
    assert state.hands[0] == unit(joker, 1)
    built = next(e for e in events if e.kind == "building_built")
    assert sorted(built.data["paid"]) == sorted(B.resources[k].id for k in as_pay(exact))


def test_a_matching_card_may_not_be_doubled_up() -> None:
    state = flat_state()
    b, kind = costly()
    cost = list(B.buildings[b].cost)
    hand(state, add(cost, unit(kind, 2)))
    give(state, 0, b)
    assert_refused(state, Build(b, SITE, as_pay(add(cost, unit(kind)))), "payment-too-large")
    assert_refused(state, Build(b, SITE, as_pay(add(cost, unit(kind, -1)))), "payment-too-small")


def test_cards_must_be_in_hand() -> None:
    state = flat_state()
    b, _ = costly()
    hand(state, [0] * KINDS)
    give(state, 0, b)
    action = Build(b, SITE, as_pay(list(B.buildings[b].cost)))
    assert_refused(state, action, "cards-not-in-hand")
    assert_refused(state, Build(b, SITE, None), "cannot-afford")


def test_pay_auto_takes_a_cheapest_payment() -> None:
    state = flat_state()
    b, kind = costly()
    cost = list(B.buildings[b].cost)
    hand(state, add(cost, [3] * KINDS))
    build(state, b, SITE)
    assert state.hands[0] == [3] * KINDS  # exactly the printed cards, no joker
    state = flat_state()
    short = add(cost, unit(kind, -1))
    spare = add(short, unit(other_kind(kind), 5))
    hand(state, spare)
    build(state, b, SITE)
    assert sum(state.hands[0]) == sum(spare) - (sum(cost) - 1) - 2  # one joker pair
    assert state.discard and len(state.discard) == sum(cost) + 1


def test_auto_payment_is_never_larger_than_an_explicit_valid_one() -> None:
    state = flat_state()
    for b in plain_buildings():
        q = quote(state, b.index)
        for extra in range(KINDS):
            counts = add(list(b.cost), unit(extra, 2), unit(b.cost.index(max(b.cost)), -1))
            auto = R.auto_payment(counts, q)
            assert auto is not None and sum(auto) <= sum(counts)
            R.check_payment(counts, q, auto)  # the auto payment is itself exact


# == free by the arrows ========================================================================


def test_free_next_to_the_own_predecessor() -> None:
    _, b, c = chain_of_three()
    state = flat_state()
    put(state, 0, b.index, neighbour(SITE, 2))
    q = quote(state, c.index)
    assert q.free and q.need == (0,) * KINDS and q.any == 0
    events = build(state, c.index, SITE, pay=())
    built = next(e for e in events if e.kind == "building_built")
    assert built.data["free"] and built.data["paid"] == [] and not built.data["new_settlement"]


@pytest.mark.parametrize(
    "case", ["other_colour", "skipped_link", "against_the_arrow", "not_adjacent"]
)
def test_not_free_without_the_own_adjacent_predecessor(case: str) -> None:
    a, b, c = chain_of_three()
    state = flat_state()
    target = c
    if case == "other_colour":
        put(state, 1, b.index, neighbour(SITE, 0))
    elif case == "skipped_link":
        put(state, 0, a.index, neighbour(SITE, 0))  # a built, b not, c placed
    elif case == "against_the_arrow":
        put(state, 0, c.index, neighbour(SITE, 0))  # c built, b placed next to it
        target = b
    else:
        put(state, 0, b.index, (2, 0))
    q = quote(state, target.index)
    assert not q.free and q.need == target.cost


def test_main_buildings_are_never_free() -> None:
    main = main_building()
    other = next(x for x in plain_buildings())
    state = flat_state()
    put(state, 0, other.index, neighbour(SITE, 1))
    site = R.site(state, 0, SITE)
    # Even with an arrow pointing at it, a main building is paid in full.
    pointed = replace(main, predecessors=1 << other.index)
    q = R._quote(state, pointed, site, 1)
    assert not q.free and q.need == main.cost
    assert R._quote(state, replace(pointed, main=False), site, 1).free


@pytest.mark.parametrize("reduce", [True, False])
def test_main_building_landscape_reduction_option(reduce: bool) -> None:
    main = main_building()
    kind = main.cost.index(max(main.cost))
    state = flat_state(MAIN_BUILDING_LANDSCAPE_REDUCTION=reduce)
    landscape(state, SITE, B.resources[kind].letter)
    expected = main.cost[kind] - 1 if reduce else main.cost[kind]
    assert quote(state, main.index).need[kind] == expected


# == roads =================================================================================


def test_road_costs_five_of_any_kind_minus_any_symbols() -> None:
    r = road()
    state = flat_state()
    q = quote(state, r.index)
    assert q.need == (0,) * KINDS and q.any == r.any_cost
    landscape(state, SITE, B.resources[0].letter)
    landscape(state, neighbour(SITE, 0), B.resources[1].letter)
    landscape(state, (2, 0), B.resources[2].letter)  # not adjacent
    assert quote(state, r.index).any == r.any_cost - 2
    for d in range(len(B.directions)):
        landscape(state, neighbour(SITE, d), B.resources[d % KINDS].letter)
    assert quote(state, r.index).any == max(0, r.any_cost - 7)


@pytest.mark.parametrize(
    ("area", "expected"), [("site_and_unoccupied_neighbours", 1), ("site_and_all_neighbours", 2)]
)
def test_road_reduction_area_option(area: str, expected: int) -> None:
    r = road()
    state = flat_state(ROAD_REDUCTION_AREA=area)
    landscape(state, SITE, "W")
    landscape(state, neighbour(SITE, 0), "H")
    put(state, 1, next(plain_buildings()).index, neighbour(SITE, 0))
    assert quote(state, r.index).any == r.any_cost - expected


def test_road_free_next_to_an_own_road_only() -> None:
    first, second = roads()[:2]
    state = flat_state()
    put(state, 1, first.index, neighbour(SITE, 0))
    assert not quote(state, second.index).free
    put(state, 0, first.index, neighbour(SITE, 3))
    assert quote(state, second.index).free


def test_road_cards_may_be_of_any_kind() -> None:
    r = road()
    state = flat_state()
    hand(state, unit(1, r.any_cost))
    build(state, r.index, SITE, pay=as_pay(unit(1, r.any_cost)))
    assert state.occupant[SITE] == (0, r.index)


# == settlements =============================================================================


def test_settlement_surcharge_counts_existing_settlements() -> None:
    pieces = [b.index for b in plain_buildings()]
    state = flat_state()
    b = pieces[0]
    assert quote(state, b).surcharge == 0  # the first building of the game
    put(state, 0, pieces[1], FAR)
    assert quote(state, b).surcharge == 1 and quote(state, b).any == 1
    put(state, 0, pieces[2], (-3, 0))
    assert quote(state, b).surcharge == 2  # the third settlement costs two extra
    assert quote(state, b, hex_=neighbour(FAR, 0)).surcharge == 0  # joining costs nothing
    put(state, 1, pieces[3], (0, 3))  # other colours do not count
    assert quote(state, b).surcharge == 2


def test_surcharge_falls_after_settlements_merge() -> None:
    pieces = [b.index for b in plain_buildings()]
    state = flat_state()
    put(state, 0, pieces[0], (-1, 0))
    put(state, 0, pieces[1], (1, 0))
    assert len(R.settlements(state, 0)) == 2
    probe = pieces[3]
    assert quote(state, probe, hex_=(0, 3)).surcharge == 2
    bridge = pieces[2]
    q = quote(state, bridge)
    assert q.surcharge == 0  # (0, 0) touches both
    hand(state, list(B.buildings[bridge].cost))
    events = build(state, bridge, SITE)
    built = next(e for e in events if e.kind == "building_built")
    assert built.data["settlements"] == 1 and not built.data["new_settlement"]
    assert quote(state, probe, hex_=(0, 3)).surcharge == 1


def test_new_settlement_pays_the_surcharge_in_any_cards() -> None:
    pieces = [b.index for b in plain_buildings()]
    state = flat_state()
    put(state, 0, pieces[0], FAR)
    b = pieces[1]
    cost = list(B.buildings[b].cost)
    hand(state, add(cost, unit(0, 1)))
    give(state, 0, b)
    assert_refused(state, Build(b, SITE, as_pay(cost)), "payment-too-small")
    events = G.apply(state, 0, Build(b, SITE, as_pay(add(cost, unit(0)))))
    built = next(e for e in events if e.kind == "building_built")
    assert built.data["new_settlement"] and built.data["settlements"] == 2


@pytest.mark.parametrize(("joins", "count"), [(False, 2), (True, 1)])
def test_shrine_joins_settlements_option(joins: bool, count: int) -> None:
    state = flat_state(SHRINE_JOINS_SETTLEMENTS=joins)
    del state.land[SITE]
    state.shrines[0] = SITE
    pieces = [b.index for b in plain_buildings()]
    put(state, 0, pieces[0], neighbour(SITE, 0))
    put(state, 0, pieces[1], neighbour(SITE, 2))
    assert len(R.settlements(state, 0)) == count
    only_the_shrine = neighbour(SITE, 4)  # touches the shrine, no own building
    assert quote(state, pieces[2], hex_=only_the_shrine).surcharge == (0 if joins else count)
    assert quote(state, pieces[2], hex_=(0, 3)).surcharge == count


# == where building is allowed =================================================================


def test_never_on_a_shrine_an_occupied_hex_or_off_the_map() -> None:
    state = flat_state()
    b = next(plain_buildings()).index
    other = next(x.index for x in plain_buildings() if x.index != b)
    hand(state, [9] * KINDS)
    give(state, 0, b)
    assert_refused(state, Build(b, state.shrines[0], None), "shrine")
    assert_refused(state, Build(b, (50, 50), None), "not-on-map")
    put(state, 1, other, SITE)
    assert_refused(state, Build(b, SITE, None), "hex-occupied")
    # a hex with or without a landscape symbol is fine
    landscape(state, FAR, "M")
    G.apply(state, 0, Build(b, FAR, None))
    assert state.occupant[FAR] == (0, b)


def test_legal_builds_are_exactly_the_affordable_sites() -> None:
    state = flat_state(radius=2)
    b, kind = costly()
    cost = list(B.buildings[b].cost)
    hand(state, add(cost, unit(kind, -1)))  # one card short, no joker possible
    state.boards[0] = [b]
    landscape(state, (1, 1), B.resources[kind].letter)
    builds = [a for a in G.legal_actions(state, 0) if isinstance(a, Build)]
    reduced = {h for h in state.land if h == (1, 1) or (1, 1) in B.neighbours(h)}
    assert {a.hex for a in builds} == reduced
    assert all(a.pay is None and a.building == b for a in builds)
