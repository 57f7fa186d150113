"""Special rules 9-16: emperors, the Pope's journey and councils, the secret notes, Merovaeus,
Theodoric, and the peoples' limits; the end-of-game council."""

from __future__ import annotations

import pytest

from engine.attila_wargame.actions import Attack, Card, Convene, End, Move, Resolve
from engine.attila_wargame.state import CONVENE, COUNCIL_CARD, WargameState
from engine.core import SYSTEM
from tests.test_wargame_helpers import (
    AETIUS,
    ATTILA,
    BARB,
    EMPEROR,
    LEO,
    ROMAN,
    B,
    G,
    R,
    city_hex,
    find_hex,
    land,
    move,
    open_ground,
    put,
    rejects,
    setup,
    units_of,
)

HUN = units_of("huns")[0]
EAST = units_of("romans_east")[0]
WEST, WEST2 = units_of("romans_west")[:2]
HERULI = units_of("heruli")[0]
FRANKS = units_of("franks")
CMUS = {u: d for u, d in B.units.items() if not d.combat}
AEGIDIUS = next(
    u for u, d in CMUS.items() if d.people == "romans_west" and u not in (LEO, AETIUS, EMPEROR)
)
EVENTS = {(e["kind"], e["unit"]): e for e in B.bindings["events"]}


def ring(c: int, d: int, k: int = 1) -> int:
    step = B.raw["map"]["directions"][d % 6]
    q, r = B.qr[c]
    return B.index_of_qr[(q + k * step["dq"], r + k * step["dr"])]


def approach(city_id: str) -> int:
    """A land hex next to a city from which Leo may step into it."""
    h = city_hex(city_id)
    return next(n for n in land(h) if n not in B.city_at and B.empire[n] == "west")


# -- the Pope's journey (10.1) ------------------------------------------------------------------


@pytest.mark.parametrize("city", sorted(B.bindings["federation_peoples"]))
def test_the_pope_federates_a_people_on_entering_its_city(city: str) -> None:
    people = B.bindings["federation_peoples"][city]
    state = setup({LEO: approach(city)}, phase="e")
    assert state.alignment[people] == "neutral"
    events = move(state, ROMAN, LEO, city_hex(city))
    assert state.alignment[people] == "roman"
    assert "federated" in [e.kind for e in events]


def test_federates_move_at_once_but_fight_only_once_gaul_is_invaded() -> None:
    state = setup({FRANKS[0]: open_ground("west")}, phase="e")
    state.alignment["franks"] = "roman"
    assert any(a.unit == FRANKS[0] for a in G.legal_actions(state, ROMAN) if hasattr(a, "unit"))
    ctx = R.ctx(state)
    assert not R.hostile(ctx, FRANKS[0], HUN)
    state.west_invaded = True
    assert not R.hostile(R.ctx(state), FRANKS[0], HUN)
    state.gaul_invaded = True
    assert R.hostile(R.ctx(state), FRANKS[0], HUN)


COUNCIL = B.bindings["council"]


def _council_state() -> WargameState:
    state = setup({LEO: approach(COUNCIL["city"])}, phase="e")
    move(state, ROMAN, LEO, city_hex(COUNCIL["city"]))
    G.apply(state, ROMAN, End())
    return state


@pytest.mark.parametrize("outcome", [1, 0, -1])
def test_the_lugdunum_council_is_a_sealed_diplomatic_duel(outcome: int) -> None:
    state = _council_state()
    assert state.step == COUNCIL_CARD
    ref = state.council.ref
    assert {(d.seat, d.kind) for d in G.pending(state)} == {(ROMAN, "sealed"), (BARB, "sealed")}
    assert set(G.legal_actions(state, ROMAN)) == {Card(c) for c in B.roman_cards}
    assert set(G.legal_actions(state, BARB)) == {Card(c) for c in B.barbarian_cards}
    roman, barbarian = next(
        (r, b) for r, row in B.diplomacy.items() for b, v in row.items() if v == outcome
    )
    G.apply(state, ROMAN, Card(roman))
    assert "own_card" not in G.view(state, BARB)["council"]
    G.apply(state, BARB, Card(barbarian))
    assert G.pending(state)[0].seat == SYSTEM and G.pending(state)[0].ref == ref
    G.apply(state, SYSTEM, Resolve())
    expected = COUNCIL["outcomes"][str(outcome)]
    # The West is not invaded yet: the peoples wait for the invasion to take their sides.
    assert all(state.alignment[people] == "neutral" for people in ("burgundians", "thuringians"))
    assert G.view(state, None)["sides_at_west_invasion"] == expected
    assert state.lugdunum_done == bool(expected)
    # Phase f had no battle: the next round began.
    assert (state.round, state.phase) == (2, "a")
    G.apply(state, BARB, End())
    assert state.phase == "e"
    G.apply(state, ROMAN, End())
    # A null result: Leo tries again at the end of a later movement phase.
    assert (state.step == COUNCIL_CARD) == (not expected)


def test_the_council_sides_wait_for_the_invasion_of_the_west() -> None:
    """Rule 10.1 (issue #20, W25): "ambedue però non prima dell'invasione dell'Occidente".
    Round 1, the West not invaded: a Roman council success must not make the Thuringians
    Barbarian, so in round 2 the Barbarian can neither move them nor take Colonia with them."""
    thuringians = units_of("thuringians")
    colonia = city_hex("colonia")
    near = next(n for n in land(colonia) if B.empire[n] == "barbarian")
    state = setup({LEO: approach(COUNCIL["city"]), thuringians[0]: near}, phase="e")
    move(state, ROMAN, LEO, city_hex(COUNCIL["city"]))
    G.apply(state, ROMAN, End())
    roman, barbarian = next(
        (r, b) for r, row in B.diplomacy.items() for b, v in row.items() if v == 1
    )
    G.apply(state, ROMAN, Card(roman))
    G.apply(state, BARB, Card(barbarian))
    G.apply(state, SYSTEM, Resolve())
    assert (state.round, state.phase) == (2, "a") and not state.west_invaded
    assert state.alignment["thuringians"] == state.alignment["burgundians"] == "neutral"
    assert not [a for a in G.legal_actions(state, BARB) if getattr(a, "unit", "") in thuringians]
    rejects(state, BARB, Move(thuringians[0], (colonia,)), "not-your-unit")
    assert "colonia" not in state.taken
    # The first Hun in the West brings both peoples in, on the sides the council gave them.
    hun_at = find_hex(
        lambda h: (
            h not in state.pos.values()
            and any(B.empire[n] == "west" and n not in B.city_at for n in land(h))
        ),
        "barbarian",
    )
    west = next(n for n in land(hun_at) if B.empire[n] == "west" and n not in B.city_at)
    put(state, HUN, hun_at)
    state.round = 9
    events = move(state, BARB, HUN, west)
    assert state.west_invaded
    assert state.alignment["burgundians"] == "roman"
    assert state.alignment["thuringians"] == "barbarian"
    joined = {(e.data["people"], e.data["side"]) for e in events if e.kind == "people_joined"}
    assert joined == {("burgundians", "roman"), ("thuringians", "barbarian")}
    assert G.view(state, None)["sides_at_west_invasion"] == {}


def test_burgundians_and_thuringians_fight_only_after_the_invasion_of_the_west() -> None:
    state = setup({})
    state.alignment.update(burgundians="barbarian", thuringians="roman")
    bur, thu = units_of("burgundians")[0], units_of("thuringians")[0]
    assert not R.hostile(R.ctx(state), bur, WEST)
    state.west_invaded = True
    ctx = R.ctx(state)
    assert R.hostile(ctx, bur, WEST) and R.hostile(ctx, thu, HUN)


# -- the secret notes (10.2, 10.3, 14.2) ----------------------------------------------------


def test_the_traitor_kills_leo_and_those_with_him_and_proclaims_attila_pope() -> None:
    c = open_ground("west")
    dest = ring(c, 0)
    state = setup({WEST: c, LEO: ring(c, 0, 2), AEGIDIUS: dest}, phase="e", traitor=WEST)
    events = move(state, ROMAN, LEO, dest)
    assert LEO not in state.pos and AEGIDIUS not in state.pos
    assert state.gone[LEO] == state.gone[AEGIDIUS] == "killed"
    assert state.leo == "dead" and state.attila_title == "pope"
    assert WEST in state.neutralised
    revealed = next(e for e in events if e.kind == "traitor_revealed")
    assert revealed.audience is None and revealed.data["unit"] == WEST
    assert "traitor" in G.view(state, ROMAN)["notes"]["known"]
    # Neutralised: no zone of control, cannot be attacked, does not move.
    ctx = R.ctx(state)
    assert not R.projects(ctx, WEST, c, ring(c, 3))
    assert not R.movable(state, ctx, WEST, "roman")
    # A Roman command unit joining it restores it.
    state.pos[EMPEROR] = ring(c, 3)
    state.gone.pop(EMPEROR, None)
    move(state, ROMAN, EMPEROR, c)
    assert WEST not in state.neutralised


def test_attila_near_the_traitor_becomes_antipope_and_nobody_dies() -> None:
    c = open_ground("east")
    state = setup({EAST: c, ATTILA: ring(c, 0, 2)}, traitor=EAST)
    move(state, BARB, ATTILA, ring(c, 0))
    assert state.attila_title == "antipope" and ATTILA in state.pos
    assert EAST in state.neutralised and state.notes_fired == ["traitor"]


def test_the_suborned_unit_kills_attila_when_he_moves_next_to_it() -> None:
    c = open_ground("barbarian")
    state = setup({HERULI: c, ATTILA: ring(c, 0, 3)}, suborned=HERULI)
    move(state, BARB, ATTILA, ring(c, 0, 2))
    assert ATTILA in state.pos
    events = move(state, BARB, ATTILA, ring(c, 0))
    assert ATTILA not in state.pos and state.gone[ATTILA] == "killed"
    assert "suborned_revealed" in [e.kind for e in events]
    assert G.view(state, BARB)["notes"]["known"]["suborned"] == HERULI


def test_aetius_is_murdered_near_the_emperor_only_in_the_noted_rounds() -> None:
    c = find_hex(
        lambda h: all(
            (B.qr[h][0] + dq, B.qr[h][1] + dr) in B.index_of_qr
            and B.passable[B.index_of_qr[(B.qr[h][0] + dq, B.qr[h][1] + dr)]]
            for dq in range(-3, 4)
            for dr in range(-3, 4)
        ),
        "west",
    )
    far, near = ring(c, 3, 3), ring(c, 3, 2)
    state = setup({EMPEROR: c, AETIUS: far}, phase="e", round_=2, aetius=1)
    move(state, ROMAN, AETIUS, near)
    assert AETIUS not in state.pos and state.gone[AETIUS] == "murdered"
    state = setup({EMPEROR: c, AETIUS: far}, phase="e", round_=4, aetius=1)
    move(state, ROMAN, AETIUS, near)
    assert AETIUS in state.pos and "aetius" not in G.view(state, ROMAN)["notes"]["known"]
    assert G.view(state, BARB)["notes"]["known"]["aetius"] == 1


# -- events (9, 12, 13) -------------------------------------------------------------------


def test_merovaeus_enters_with_the_first_frankish_unit() -> None:
    ev = next(e for e in B.bindings["events"] if e["unit"] == "FRA-MEROVAEUS")
    h = open_ground("west")
    state = setup({FRANKS[2]: h, FRANKS[5]: ring(h, 0)}, phase=ev["phase"], round_=ev["round"])
    R._run_events(state, ev["at"], [])
    assert state.pos["FRA-MEROVAEUS"] == h
    state = setup({}, phase=ev["phase"], round_=ev["round"])
    R._run_events(state, ev["at"], [])
    assert state.pos["FRA-MEROVAEUS"] == city_hex(ev["fallback_city"])


def test_theodosius_dies_and_martianus_arrives_frozen_for_a_round() -> None:
    theo = next(
        e for e in B.bindings["events"] if e["kind"] == "remove" and "THEODOSIUS" in e["unit"]
    )
    mart = next(e for e in B.bindings["events"] if e["kind"] == "enter" and e.get("city"))
    state = setup({theo["unit"]: open_ground("east")}, phase=theo["phase"], round_=theo["round"])
    R._run_events(state, theo["at"], [])
    assert state.gone[theo["unit"]] == "died"
    state.round, state.phase = mart["round"], mart["phase"]
    R._run_events(state, mart["at"], [])
    assert state.pos[mart["unit"]] == city_hex(mart["city"])
    assert not R.movable(state, R.ctx(state), mart["unit"], "roman")
    state.round = mart["frozen_until_round"]
    assert R.movable(state, R.ctx(state), mart["unit"], "roman")
    # If the Barbarian holds Costantinopolis, the best Roman-held Eastern city instead.
    state = setup({HUN: city_hex(mart["city"])}, phase=mart["phase"], round_=mart["round"])
    best = max(
        (c for c in B.cities if c.region == mart["region"] and c.id != mart["city"]),
        key=lambda c: c.value,
    )
    state.pos[EAST] = best.hex
    state.cf[EAST] = 6
    state.gone.pop(EAST, None)
    R._run_events(state, mart["at"], [])
    assert state.pos[mart["unit"]] == best.hex


def test_theodoric_dies_at_the_start_of_phase_f_of_his_round() -> None:
    ev = next(e for e in B.bindings["events"] if e["unit"] == "VIS-THEODORICUS")
    state = setup({"VIS-THEODORICUS": open_ground("west")}, phase="e", round_=ev["round"])
    G.apply(state, ROMAN, End())
    assert state.gone["VIS-THEODORICUS"] == "died"


# -- peoples' limits (14-16) ----------------------------------------------------------------


def test_cities_of_gaul_and_italy_for_the_huns_allies_and_the_huns() -> None:
    gaul = next(c for c in B.cities if c.region == "gaul")
    italy = next(c for c in B.cities if c.region == "italy")
    other = next(c for c in B.cities if c.region is None and B.empire[c.hex] == "west")
    state = setup({})
    assert not R.may_occupy_city(state, "heruli", gaul.hex)
    assert R.may_occupy_city(state, "heruli", other.hex)
    state.west_invaded = True
    assert R.may_occupy_city(state, "heruli", gaul.hex)
    assert not R.may_occupy_city(state, "heruli", italy.hex)
    assert not R.may_occupy_city(state, "huns", italy.hex)
    state.taken = [gaul.id]
    assert R.may_occupy_city(state, "huns", italy.hex)
    assert not R.may_occupy_city(state, "heruli", italy.hex)
    state.taken = [c.id for c in B.cities if c.region == "gaul"]
    assert R.may_occupy_city(state, "heruli", italy.hex)


def test_huns_fight_the_west_only_once_it_is_invaded_gepids_never() -> None:
    state = setup({})
    gepid = units_of("gepids")[0]
    assert R.hostile(R.ctx(state), HUN, EAST) and R.hostile(R.ctx(state), gepid, EAST)
    assert not R.hostile(R.ctx(state), HUN, WEST)
    assert R.hostile(R.ctx(state), HERULI, WEST) and not R.hostile(R.ctx(state), HERULI, EAST)
    state.west_invaded = True
    assert R.hostile(R.ctx(state), HUN, WEST) and not R.hostile(R.ctx(state), gepid, WEST)


# -- the end-of-game council (10.4) --------------------------------------------------------


@pytest.mark.parametrize("outcome", [1, 0, -1])
def test_the_end_council_against_the_antipope(outcome: int) -> None:
    roma = B.city_by_id["roma"].hex
    state = setup({LEO: roma, WEST: roma}, phase="f", round_=B.rounds)
    state.attila_title = "antipope"
    G.apply(state, ROMAN, End())
    assert state.step == CONVENE and G.pending(state)[0].seat == ROMAN
    G.apply(state, ROMAN, Convene(True))
    roman, barbarian = next(
        (r, b) for r, row in B.diplomacy.items() for b, v in row.items() if v == outcome
    )
    G.apply(state, ROMAN, Card(roman))
    G.apply(state, BARB, Card(barbarian))
    G.apply(state, SYSTEM, Resolve())
    assert G.is_over(state)
    lines = state.result["points_lines"]
    if outcome > 0:
        assert state.attila_title == "deposed" and "attila_pope_or_antipope" not in lines
    elif outcome == 0:
        assert state.attila_title == "antipope" and "attila_pope_or_antipope" in lines
    else:
        assert state.leo == "driven_out" and lines["leo_dead_or_expelled"] == 5


def test_no_end_council_when_declined_or_leo_outside_a_city() -> None:
    state = setup({LEO: open_ground("west")}, phase="f", round_=B.rounds)
    state.attila_title = "antipope"
    G.apply(state, ROMAN, End())
    assert G.is_over(state)
    roma = B.city_by_id["roma"].hex
    state = setup({LEO: roma}, phase="f", round_=B.rounds)
    state.attila_title = "antipope"
    G.apply(state, ROMAN, End())
    G.apply(state, ROMAN, Convene(False))
    assert G.is_over(state) and "attila_pope_or_antipope" in state.result["points_lines"]


def test_lone_command_units_can_be_overrun_by_the_attacker() -> None:
    c = open_ground("east")
    theo = next(u for u, d in CMUS.items() if d.people == "romans_east")
    state = setup({theo: c, HUN: ring(c, 0)}, phase="c")
    G.apply(state, BARB, Attack(c, (HUN,)))
    assert state.gone[theo] == "eliminated"


def test_gepids_never_fight_the_western_side_even_its_federates() -> None:
    """Rule 15 (issue #20, W23): the Gepids fight only the East. The federates' pair (against
    'the Barbarian side') and the Burgundians'/Thuringians' pair (against 'the other side')
    must not take them in: GEP-1 next to a Roman-side Visigoth in round 10, phase c."""
    gepid = units_of("gepids")[0]
    visigoth = units_of("visigoths")[0]
    thuringian = units_of("thuringians")[0]
    c = open_ground("barbarian")
    state = setup({visigoth: c, gepid: ring(c, 0)}, phase="c", round_=10)
    state.alignment.update(visigoths="roman", thuringians="roman", burgundians="barbarian")
    state.west_invaded = state.gaul_invaded = True
    ctx = R.ctx(state)
    assert not R.hostile(ctx, gepid, visigoth) and not R.hostile(ctx, gepid, thuringian)
    assert not R.in_enemy_zoc(ctx, gepid, ring(c, 0))
    assert G.legal_actions(state, BARB) == [End()]
    G.apply(state, BARB, End())  # no combat is owed
    assert state.phase != "c"
    # The Huns beside them still fight the federates.
    assert R.hostile(ctx, HUN, visigoth)
