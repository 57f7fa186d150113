"""Combat (rules 4 and 5): obligations, odds, doublings, sealed cards, every result type,
retreats, blocked retreats, advances, command units."""

from __future__ import annotations

import json

import pytest

from engine.attila_wargame.actions import Advance, Attack, Card, End, Push, Resolve, Retreat
from engine.attila_wargame.state import ADVANCE, BATTLE_CARD, COMBAT, PUSH, RETREAT, WargameState
from engine.core import SYSTEM
from tests.test_wargame_helpers import (
    AETIUS,
    ATTILA,
    BARB,
    LEO,
    ROMAN,
    B,
    G,
    R,
    cards_for,
    fight,
    land,
    open_ground,
    rejects,
    setup,
    units_of,
)

HUN, HUN2, HUN3 = units_of("huns")[:3]
EAST = units_of("romans_east")[0]
WEST = units_of("romans_west")[0]
HERULI = units_of("heruli")[0]
THEODOSIUS = next(
    u for u in B.unit_order if B.units[u].people == "romans_east" and not B.units[u].combat
)
ORESTES = next(
    u for u in B.unit_order if B.units[u].people == "huns" and not B.units[u].combat and u != ATTILA
)


def ring(c: int, d: int) -> int:
    step = B.raw["map"]["directions"][d % 6]
    q, r = B.qr[c]
    return B.index_of_qr[(q + step["dq"], r + step["dr"])]


C = open_ground("barbarian")


def duel(att_cf: int = 5, def_cf: int = 6, **extra: int) -> WargameState:
    """A Hun (attacker, phase c) next to an Eastern unit in open barbarian land."""
    return setup({HUN: (ring(C, 0), att_cf), EAST: (C, def_cf), **extra}, phase="c")


# -- odds -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attack", "defence", "column"),
    [
        (8, 4, "2:1"),  # the rulebook's first example
        (12, 5, "2:1"),  # the second: 12:5 rounds down to 2:1
        (5, 5, "1:1"),
        (9, 4, "2:1"),
        (4, 5, "1:2"),  # weaker attacker: 1 : ceil(5/4), in the defender's favour
        (4, 9, "1:3"),
        (3, 6, "1:2"),
        (1, 10, "1:3"),  # clamped to the table
        (50, 1, "6:1"),
    ],
)
def test_odds_are_rounded_in_the_defenders_favour(attack: int, defence: int, column: str) -> None:
    state = duel()
    assert R.column(state, attack, defence) == column


def test_odds_rounding_alternative() -> None:
    state = setup({}, ODDS_ROUNDING="round_higher_score_down")
    assert R.column(state, 4, 5) == "1:1"
    assert R.column(state, 4, 9) == "1:2"
    assert R.column(state, 8, 4) == "2:1"


# -- doublings (4.5, 4.6) ---------------------------------------------------------------------


def test_command_unit_of_the_same_nation_doubles_in_attack_and_defence() -> None:
    state = duel(5, 6)
    ctx = R.ctx(state)
    assert R.strength(state, ctx, HUN, defending=False) == 5
    state.pos[ATTILA] = state.pos[HUN]
    state.pos[THEODOSIUS] = state.pos[EAST]
    ctx = R.ctx(state)
    assert R.strength(state, ctx, HUN, defending=False) == 10
    assert R.strength(state, ctx, EAST, defending=True) == 12


def test_no_doubling_by_another_nation_or_by_leo() -> None:
    w = open_ground("west")
    state = setup({WEST: w, LEO: w}, phase="f")
    assert R.strength(state, R.ctx(state), WEST, defending=True) == B.units[WEST].cf
    state = duel(5, 6)
    state.pos[AETIUS] = state.pos[EAST]  # a Western command unit with an Eastern unit
    assert R.strength(state, R.ctx(state), EAST, defending=True) == 6


def test_city_doubles_in_defence_only_and_never_adds_to_a_leader() -> None:
    city = next(c for c in B.cities if B.empire[c.hex] == "east")
    state = setup({EAST: (city.hex, 6)}, phase="c")
    ctx = R.ctx(state)
    assert R.strength(state, ctx, EAST, defending=True) == 12
    assert R.strength(state, ctx, EAST, defending=False) == 6
    state.pos[THEODOSIUS] = city.hex
    assert R.strength(state, R.ctx(state), EAST, defending=True) == 12


def test_a_besieged_reduced_unit_loses_the_city_doubling() -> None:
    city = next(c for c in B.cities if B.empire[c.hex] == "east" and B.fields[c.id])
    fields = B.fields[city.id]
    state = setup({EAST: (city.hex, 5), HUN: fields[0]}, phase="c")
    state.temp_devastated = sorted(fields)
    ctx = R.ctx(state)
    assert R.besieged(state, ctx, EAST)
    assert R.strength(state, ctx, EAST, defending=True) == 10
    state.siege_hit = [EAST]
    assert R.strength(state, ctx, EAST, defending=True) == 5


# -- obligations --------------------------------------------------------------------------------


def test_combat_in_a_zone_of_control_is_compulsory() -> None:
    state = duel()
    actions = G.legal_actions(state, BARB)
    assert End() not in actions
    assert Attack(C, (HUN,)) in actions
    rejects(state, BARB, End(), "combat-owed")


def test_units_in_cities_neither_must_attack_nor_oblige_attack() -> None:
    city = next(
        c.hex
        for c in B.cities
        if B.empire[c.hex] == "east"
        and any(
            not B.river_between(c.hex, n) and n not in B.city_at and B.empire[n] != "west"
            for n in land(c.hex)
        )
    )
    n = next(
        n
        for n in land(city)
        if not B.river_between(city, n) and n not in B.city_at and B.empire[n] != "west"
    )
    state = setup({EAST: city, HUN: n}, phase="c")
    actions = G.legal_actions(state, BARB)
    assert End() in actions and Attack(city, (HUN,)) in actions  # an assault is voluntary


def test_no_combat_between_peoples_that_may_not_fight() -> None:
    state = setup({EAST: C, HERULI: ring(C, 0)}, phase="c")
    assert R._battle_options(state) == ({}, False)
    assert G.legal_actions(state, BARB) == [End()]


def test_every_unit_in_an_enemy_zone_of_control_takes_part_in_a_combat() -> None:
    """4.1 (issue #20): two Huns next to one Eastern unit in the open, phase c. Each enemy is
    attacked once, so a battle by one Hun alone would leave the other, still in the enemy's
    zone of control, with no combat to take part in: both must attack together."""
    state = setup({EAST: (C, 6), HUN: (ring(C, 0), 5), HUN2: (ring(C, 2), 5)}, phase="c")
    actions = G.legal_actions(state, BARB)
    assert [a for a in actions if isinstance(a, Attack)] == [Attack(C, (HUN, HUN2))]
    rejects(state, BARB, Attack(C, (HUN,)), "must-join")
    rejects(state, BARB, Attack(C, (HUN2,)), "must-join")
    G.apply(state, BARB, Attack(C, (HUN, HUN2)))
    battle = state.battle
    assert battle is not None
    assert (battle.attack_strength, battle.defence_strength, battle.column) == (10, 6, "1:1")


def test_a_unit_with_another_enemy_next_to_it_may_leave_a_battle_to_others() -> None:
    """4.1 with a choice: HUN2 stands next to two Eastern units, so HUN may fight the first
    alone; HUN2 then owes the second a battle, and the phase cannot end before it."""
    east2 = units_of("romans_east")[1]
    d = ring(ring(C, 2), 2)
    state = setup(
        {EAST: (C, 6), east2: (d, 6), HUN: (ring(C, 0), 5), HUN2: (ring(C, 2), 5)}, phase="c"
    )
    assert ring(C, 2) in B.neighbours[d] and ring(C, 0) not in B.neighbours[d]
    attacks = {a for a in G.legal_actions(state, BARB) if isinstance(a, Attack)}
    assert Attack(C, (HUN,)) in attacks and Attack(C, (HUN, HUN2)) in attacks
    assert Attack(d, (HUN2,)) in attacks
    assert Attack(C, (HUN2,)) not in attacks  # HUN could fight nobody else
    G.apply(state, BARB, Attack(C, (HUN,)))
    fight(state, *cards_for(state.battle.column, "AE1"))
    if state.step == PUSH:
        G.apply(state, ROMAN, Push(False))
    assert state.step == COMBAT
    rejects(state, BARB, End(), "combat-owed")
    assert [a for a in G.legal_actions(state, BARB) if isinstance(a, Attack)] == [
        Attack(d, (HUN2,))
    ]


# -- sealed cards -----------------------------------------------------------------------------


def test_cards_are_sealed_until_the_server_resolves() -> None:
    state = duel()
    G.apply(state, BARB, Attack(C, (HUN,)))
    ref = state.battle.ref
    assert {(d.seat, d.kind, d.step, d.ref) for d in G.pending(state)} == {
        (BARB, "sealed", BATTLE_CARD, ref),
        (ROMAN, "sealed", BATTLE_CARD, ref),
    }
    assert set(G.legal_actions(state, BARB)) == {Card(c) for c in B.attack_cards}
    assert set(G.legal_actions(state, ROMAN)) == {Card(c) for c in B.defence_cards}
    rejects(state, BARB, Card(B.defence_cards[0]), "bad-card")
    events = G.apply(state, BARB, Card("al"))
    public = [e for e in events if e.audience is None]
    assert all("al" not in json.dumps(e.to_json()) for e in public)
    assert [e.audience for e in events if e.audience] == [(BARB,)]
    assert G.view(state, BARB)["battle"]["own_card"] == "al"
    assert "own_card" not in G.view(state, ROMAN)["battle"]
    assert "own_card" not in G.view(state, None)["battle"]
    rejects(state, BARB, Card("cp"), "not-your-turn")
    G.apply(state, ROMAN, Card("dl"))
    [decision] = G.pending(state)
    assert (decision.seat, decision.kind, decision.ref) == (SYSTEM, "resolve", ref)
    rejects(state, ROMAN, Resolve(), "not-your-turn")
    assert G.legal_actions(state, SYSTEM) == [Resolve()]
    events = G.apply(state, SYSTEM, Resolve())
    resolved = next(e for e in events if e.kind == "battle_resolved")
    assert resolved.data["attack_card"] == "al" and resolved.data["defence_card"] == "dl"
    assert resolved.data["result"] == B.cells["1:2"]["al"]["dl"]


# -- results ----------------------------------------------------------------------------------


def _column_with(result: str) -> str:
    return next(
        col for col in B.columns if any(result in row.values() for row in B.cells[col].values())
    )


def battle_for(result: str, att_mult: int = 1, **extra: int) -> WargameState:
    """A declared and resolved battle Hun vs Eastern unit giving ``result``; both sides hold
    at least 4 points, so either survives a loss of 3 (``att_mult``: a leader's doubling)."""
    column = _column_with(result)
    a, d = (int(x) for x in column.split(":"))
    att, dfn = (8 * a, 8) if a >= d else (8, 8 * d)
    state = duel(att // att_mult, dfn, **extra)
    G.apply(state, BARB, Attack(C, (HUN,)))
    assert state.battle.column == column
    fight(state, *cards_for(column, result))
    return state


@pytest.mark.parametrize("n", [1, 2, 3])
def test_defender_loses_points_and_may_be_pushed_back(n: int) -> None:
    state = battle_for(f"DE{n}")
    assert state.cf[EAST] == 8 - n
    assert state.step == PUSH and G.pending(state)[0].seat == BARB
    G.apply(state, BARB, Push(True))
    assert state.step == RETREAT and G.pending(state)[0].seat == ROMAN
    to = next(a.to for a in G.legal_actions(state, ROMAN))
    G.apply(state, ROMAN, Retreat(EAST, to))
    assert state.pos[EAST] == to
    assert state.step == ADVANCE
    G.apply(state, BARB, Advance(HUN, C))
    assert state.pos[HUN] == C and state.battle is None


@pytest.mark.parametrize("n", [1, 2, 3])
def test_attackers_lose_points_and_the_defender_may_spare_them(n: int) -> None:
    state = battle_for(f"AE{n}", att_mult=2, **{ORESTES: ring(C, 0)})
    a, d = (int(x) for x in _column_with(f"AE{n}").split(":"))
    assert state.cf[HUN] == (8 * a if a >= d else 8) // 2 - n
    assert state.step == PUSH and G.pending(state)[0].seat == ROMAN
    G.apply(state, ROMAN, Push(False))
    assert state.battle is None and state.pos[HUN] == ring(C, 0)


def test_a_loss_reaching_zero_eliminates_the_unit_and_its_command_units() -> None:
    column = _column_with("DE3")
    a, _d = (int(x) for x in column.split(":"))
    state = duel(6 * a, 3)
    state.pos[THEODOSIUS] = C  # doubles the defender to 6
    G.apply(state, BARB, Attack(C, (HUN,)))
    assert state.battle.column == column
    fight(state, *cards_for(column, "DE3"))
    assert EAST not in state.pos and THEODOSIUS not in state.pos
    assert state.gone[EAST] == state.gone[THEODOSIUS] == "eliminated"
    assert state.step == ADVANCE  # the hex is vacated
    G.apply(state, BARB, Advance(None))
    assert state.battle is None


def test_defender_retreat_then_the_attacker_advances_with_its_leader() -> None:
    state = battle_for("DR", att_mult=2, **{ORESTES: ring(C, 0)})
    options = {a.to for a in G.legal_actions(state, ROMAN)}
    ctx = R.ctx(state)
    assert options and all(not R.in_enemy_zoc(ctx, EAST, h) for h in options)
    assert state.pos[HUN] not in options
    rejects(state, ROMAN, Retreat(EAST, state.pos[HUN]), "bad-retreat")
    G.apply(state, ROMAN, Retreat(EAST, sorted(options)[0]))
    assert G.pending(state)[0].seat == BARB
    rejects(state, BARB, Advance(HUN, sorted(options)[0]), "bad-advance")
    G.apply(state, BARB, Advance(HUN, C))
    assert state.pos[HUN] == C and state.pos[ORESTES] == C


def test_attacker_retreat_lets_the_defender_advance() -> None:
    state = battle_for("AR")
    assert state.step == RETREAT and G.pending(state)[0].seat == BARB
    start = state.pos[HUN]
    to = G.legal_actions(state, BARB)[0].to
    G.apply(state, BARB, Retreat(HUN, to))
    assert state.step == ADVANCE and G.pending(state)[0].seat == ROMAN
    G.apply(state, ROMAN, Advance(EAST, start))
    assert state.pos[EAST] == start


def _blocked(dfn: int) -> WargameState:
    column = _column_with("DR")
    a, d = (int(x) for x in column.split(":"))
    # One Hun next to the defender, two more a hex further off (so in no enemy zone, owing
    # no battle): every free hex around the defender is in their zones.
    state = setup(
        {
            EAST: (C, dfn),
            HUN: (ring(C, 0), a * 2 * dfn // d),
            HUN2: (ring(ring(C, 2), 3), 1),
            HUN3: (ring(ring(C, 3), 4), 1),
            THEODOSIUS: C,
        },
        phase="c",
    )
    G.apply(state, BARB, Attack(C, (HUN,)))
    assert state.battle.column == column
    fight(state, *cards_for(column, "DR"))
    return state


def test_a_blocked_retreat_becomes_a_loss_of_one_point() -> None:
    state = _blocked(4)
    assert state.cf[EAST] == 4 - 1 and state.pos[EAST] == C
    assert state.battle is None
    assert state.step != COMBAT or R._battle_options(state)[0] == {}


def test_a_blocked_unit_at_one_point_is_eliminated_with_its_command_unit() -> None:
    state = _blocked(1)
    assert EAST not in state.pos and THEODOSIUS not in state.pos


def test_a_command_unit_attacked_alone_is_eliminated_without_cards() -> None:
    state = setup({THEODOSIUS: C, HUN: ring(C, 0)}, phase="c")
    actions = G.legal_actions(state, BARB)
    assert End() in actions  # never compulsory
    events = G.apply(state, BARB, Attack(C, (HUN,)))
    assert "command_units_overrun" in [e.kind for e in events]
    assert THEODOSIUS not in state.pos and state.gone[THEODOSIUS] == "eliminated"
    assert state.step == ADVANCE
    G.apply(state, BARB, Advance(HUN, C))
    assert state.pos[HUN] == C


def test_retreat_never_crosses_a_river() -> None:
    x, y = next(
        (x, y)
        for x, y in sorted(B.river_sides)
        if all(B.passable[h] and h not in B.city_at and B.empire[h] != "west" for h in (x, y))
    )
    state = setup({EAST: x}, phase="c")
    assert y not in R.retreat_hexes(state, R.ctx(state), EAST)
    assert any(not B.river_between(x, n) for n in R.retreat_hexes(state, R.ctx(state), EAST))
