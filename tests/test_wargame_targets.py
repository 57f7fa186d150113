"""The wargame on the web table (issue 33): a picked counter's reachable hexes are exactly the
hexes its legal single steps lead to, one after another (engine/attila_wargame/targets.py),
each path played in order lands it there, closed neighbours say why, and a battle shows the
odds column the engine then declares."""

from __future__ import annotations

import random

from engine.attila_wargame import targets
from engine.attila_wargame.actions import Attack, End, Move
from engine.attila_wargame.bot import copy_state
from engine.attila_wargame.state import COMBAT, MOVEMENT, WargameState
from tests.test_wargame_helpers import (
    ATTILA,
    BARB,
    B,
    G,
    R,
    lab,
    noted_state,
    open_ground,
    setup,
    units_of,
)
from tests.test_wargame_movement import HUN, line

EAST_UNITS = units_of("romans_east")


def _reachable_by_steps(state: WargameState, seat: int, unit: str) -> set[str]:
    """Every hex ``unit`` can stand on after one or more of its legal single steps (the whole
    ``legal_actions`` list, applied by the rules), the secret notes taken out as the table
    does (a note fires as a surprise)."""
    start = copy_state(state)
    start.notes = {k: v for k, v in start.notes.items() if k == "written"}
    out: set[str] = set()
    seen: set[str] = set()
    frontier = [start]
    for _ in range(20):  # a movement factor is far below 20
        following = []
        for here in frontier:
            for action in G.legal_actions(here, seat):
                if not isinstance(action, Move) or action.unit != unit:
                    continue
                there = copy_state(here)
                G.apply(there, seat, action)
                if unit not in there.pos:
                    continue
                key = targets._key(there, unit)
                if key in seen:
                    continue
                seen.add(key)
                out.add(lab(there.pos[unit]))
                following.append(there)
        frontier = following
    out.discard(lab(state.pos[unit]))
    return out


def _movement_positions(seed: int, count: int) -> list[WargameState]:
    """Movement steps met in a random game (random steps, phases ended early), bounded."""
    rng = random.Random(seed)
    state = noted_state(f"targets-{seed}")
    found: list[WargameState] = []
    for _ in range(3000):
        if G.is_over(state) or len(found) >= count:
            break
        decision = G.pending(state)[0]
        actions = G.legal_actions(state, decision.seat)
        if state.step == MOVEMENT and rng.random() < 0.3:
            found.append(copy_state(state))
        action = rng.choice(actions)
        if state.step == MOVEMENT and rng.random() < 0.15:
            action = End()
        G.apply(state, decision.seat, action)
    return found


def test_reachable_hexes_are_those_reached_by_sequences_of_legal_steps() -> None:
    checked = 0
    for seed in range(3):
        for state in _movement_positions(seed, 4):
            seat = G.pending(state)[0].seat
            units = sorted({a.unit for a in G.legal_actions(state, seat) if isinstance(a, Move)})
            for unit in random.Random(seed).sample(units, min(3, len(units))):
                found = targets.march(R, state, seat, unit, carry=())
                assert set(found["reach"]) == _reachable_by_steps(state, seat, unit), unit
                for label, where in found["reach"].items():
                    assert where["cost"] == len(where["path"]) == len(where["steps"])
                    assert where["path"][-1] == label
                    played = copy_state(state)
                    played.notes = {"written": played.notes.get("written", {})}
                    for step in where["steps"]:
                        G.apply(played, seat, G.parse(step))
                    assert lab(played.pos[unit]) == label
                checked += 1
    assert checked >= 10


def test_a_march_stops_at_a_zone_of_control_and_says_why_a_hex_is_closed() -> None:
    c = open_ground("barbarian")
    state = setup({EAST_UNITS[0]: c, HUN: line(c, 0, 3)})
    found = targets.march(R, state, BARB, HUN)
    assert found["reach"][lab(line(c, 0, 1))]["stop"] == "enemy zone of control"
    assert found["reach"][lab(line(c, 0, 1))]["path"] == [lab(line(c, 0, k)) for k in (2, 1)]
    assert lab(c) not in found["reach"]
    state = setup({HUN: c, B.unit_ids_of("huns", combat=True)[1]: line(c, 0, 1)})
    closed = targets.march(R, state, BARB, HUN)["closed"]
    assert closed[lab(line(c, 0, 1))] == "stacking: another combat unit"


def test_a_battle_shows_the_odds_column_the_engine_then_declares() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = noted_state(f"odds-{seed}")
        for _ in range(4000):
            if G.is_over(state) or state.step == COMBAT:
                break
            decision = G.pending(state)[0]
            G.apply(state, decision.seat, rng.choice(G.legal_actions(state, decision.seat)))
        if state.step != COMBAT:
            continue
        seat = G.pending(state)[0].seat
        attacks = [a for a in G.legal_actions(state, seat) if isinstance(a, Attack)]
        if not attacks:
            continue
        shown = targets.details(R, state, seat, attacks)
        for action, said in zip(attacks[:5], shown, strict=False):
            trial = copy_state(state)
            G.apply(trial, seat, action)
            assert trial.battle is not None
            assert said["column"] == trial.battle.column
            assert said["attack"] == trial.battle.attack_strength
        return
    raise AssertionError("no combat with a battle reached")


def test_every_target_is_a_counter_or_a_hex_of_the_picture() -> None:
    from service.pictures.attila_wargame import render

    state = noted_state("picture")
    svg = render(B, G.view(state, None))
    seat = G.pending(state)[0].seat
    for action in G.legal_actions(state, seat):
        where = targets.target(B, G.action_to_json(action))
        assert where["target"] is None or f'id="{where["target"]}"' in svg


def test_the_stored_state_is_what_asdict_gives_and_shares_nothing() -> None:
    from dataclasses import asdict

    from engine.attila_wargame.state import dump_state

    rng = random.Random(5)
    state = noted_state("dump")
    states = []
    for n in range(3000):  # a random game's states, battles and councils among them
        if G.is_over(state):
            break
        decision = G.pending(state)[0]
        G.apply(state, decision.seat, rng.choice(G.legal_actions(state, decision.seat)))
        if n % 7 == 0 or state.battle is not None:
            states.append(copy_state(state))
    assert any(s.battle is not None for s in states)
    for state in states[::3]:
        dumped = dump_state(state)
        expected = asdict(state)
        for name in ("sides_at_west_invasion", "resigned"):
            if not expected[name]:
                del expected[name]
        assert dumped == expected
        dumped["pos"].clear()
        dumped["moved"].clear()
        assert state.pos


def test_a_copy_shares_no_move_record_and_a_step_with_the_lifted_tables_is_the_same() -> None:
    """``copy_state`` copies the moves made by hand (not deepcopy) and shares nothing; a step
    taken with the march trial's lifted tables lands in the same state as ``Rules.apply``."""
    checked = 0
    for state in _movement_positions(4, 3):
        seat = G.pending(state)[0].seat
        moves = [a for a in G.legal_actions(state, seat) if isinstance(a, Move)][:8]
        for action in moves:
            by_apply, by_trial = copy_state(state), copy_state(state)
            G.apply(by_apply, seat, action)
            unit, at = action.unit, by_trial.pos[action.unit]
            lifted = R._without(R.ctx(by_trial), unit, at)
            R._take_step(by_trial, unit, action.path[0], [], lifted)
            assert by_trial == by_apply, action
            copied = copy_state(by_apply)
            copied.moved[unit]["run"].append("x")
            copied.moved[unit]["used"] = 99
            assert by_apply.moved[unit] == by_trial.moved[unit]
            checked += 1
    assert checked >= 5


def test_the_zones_of_control_layer_holds_every_hex_an_enemy_zone_stops_a_unit_in() -> None:
    """``zones``: every hex where the engine holds a combat unit in an enemy zone of control
    (``in_enemy_zoc``) is in the other side's zone on the map's layer; a unit in open ground
    projects its zone round it."""
    c = open_ground("barbarian")
    state = setup({EAST_UNITS[0]: c, HUN: line(c, 0, 3)})
    zones = targets.zones(R, state)
    assert lab(line(c, 0, 1)) in zones["roman"] and lab(c) not in zones["roman"]
    checked = 0
    for state in _movement_positions(2, 3):
        zones = targets.zones(R, state)
        ctx = R.ctx(state)
        for unit in [u for u in state.pos if R.is_combat[u]][:12]:
            side = R.side(state, unit)
            if side not in zones:
                continue
            other = "roman" if side == "barbarian" else "barbarian"
            for h in range(len(B.labels)):
                if B.passable[h] and R.in_enemy_zoc(ctx, unit, h):
                    assert lab(h) in zones[other], (unit, lab(h))
                    checked += 1
    assert checked >= 10


def _played(state: WargameState, seat: int, steps: list[str]) -> WargameState:
    """``steps`` played in order from ``state`` (the notes taken out, as the table does), each
    one of ``legal_actions`` when it is played."""
    played = copy_state(state)
    played.notes = {"written": played.notes.get("written", {})}
    for step in steps:
        action = G.parse(step)
        assert action in G.legal_actions(played, seat), step
        G.apply(played, seat, action)
    return played


def test_a_march_through_a_waypoint_reaches_what_the_steps_after_it_reach() -> None:
    """``via``: the reach after a first leg to a waypoint is what the legal single steps reach
    from the state that leg left (played by the rules), and each path goes through the
    waypoint, its steps played in order landing the counter on its hex."""
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        for state in _movement_positions(seed, 4):
            seat = G.pending(state)[0].seat
            units = sorted({a.unit for a in G.legal_actions(state, seat) if isinstance(a, Move)})
            for unit in rng.sample(units, min(4, len(units))):
                first = targets.march(R, state, seat, unit, carry=())
                onward = sorted(h for h, w in first["reach"].items() if w["stop"] is None)
                if not onward:
                    continue
                via = rng.choice(onward)
                found = targets.march(R, state, seat, unit, via=[via], carry=())
                assert found["via"] == [via] and found["from"] == first["from"]
                leg = first["reach"][via]
                after = _played(state, seat, leg["steps"])
                assert set(found["reach"]) == _reachable_by_steps(after, seat, unit), (unit, via)
                for label, where in found["reach"].items():
                    assert where["path"][: leg["cost"]] == leg["path"]
                    assert where["steps"][: leg["cost"]] == leg["steps"]
                    assert where["cost"] == len(where["path"]) == len(where["steps"])
                    assert lab(_played(state, seat, where["steps"]).pos[unit]) == label
                checked += 1
    assert checked >= 8


def test_a_waypoint_out_of_reach_or_off_the_map_is_refused() -> None:
    c = open_ground("barbarian")
    state = setup({HUN: c})
    far = lab(line(c, 0, 3))
    assert targets.march(R, state, BARB, HUN, via=[far])["via"] == [far]
    for bad in (["99x9"], [far, lab(c)], [lab(c)], [far] * 9):
        try:
            targets.march(R, state, BARB, HUN, via=bad)
        except targets.MarchError as error:
            assert str(error)
        else:
            raise AssertionError(bad)
    # Back to the start through a waypoint is a march like any other.
    back = targets.march(R, state, BARB, HUN, via=[lab(line(c, 0, 1))])
    assert back["reach"][lab(c)]["path"] == [lab(line(c, 0, 1)), lab(c)]


def test_a_command_unit_stacked_with_the_counter_goes_along_as_far_as_it_may() -> None:
    """Attila (movement 4) stacked with a Hun (5) in open ground: on by default, he follows
    each of the Hun's steps by his own single step, in an order ``legal_actions`` accepts at
    each step, and stays behind at his fourth hex; taken off, the Hun marches alone; a unit
    that cannot go along is refused."""
    c = open_ground("barbarian")
    state = setup({HUN: c, ATTILA: c})
    assert B.units[ATTILA].mf < B.units[HUN].mf
    found = targets.march(R, state, BARB, HUN)
    assert found["carry"] == [{"unit": ATTILA, "on": True}]
    alone = targets.march(R, state, BARB, HUN, carry=())
    assert set(found["reach"]) == set(alone["reach"])
    assert alone["carry"] == [{"unit": ATTILA, "on": False}]
    longest = 0
    for label, where in found["reach"].items():
        ends = where["carried"][ATTILA]
        expected = where["path"][min(where["cost"], B.units[ATTILA].mf) - 1]
        if where["stop"] is None and not any(
            h in B.rivers_of for h in map(B.index_of_label.get, where["path"])
        ):
            assert ends == expected, (label, where)
        played = _played(state, BARB, where["steps"])
        assert lab(played.pos[HUN]) == label and lab(played.pos[ATTILA]) == ends
        assert alone["reach"][label]["steps"] == [s for s in where["steps"] if HUN in s]
        longest = max(longest, where["cost"])
    assert longest == B.units[HUN].mf
    try:
        targets.march(R, state, BARB, HUN, carry=[units_of("huns")[1]])
    except targets.MarchError:
        pass
    else:
        raise AssertionError("a unit not stacked with the counter was carried")


def test_carried_command_units_and_waypoints_in_random_games_are_legal_steps() -> None:
    """Every counter with a command unit of its side stacked with it in random movement
    phases: each march with them along, and through a waypoint, is legal single steps."""
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        for state in _movement_positions(seed + 10, 6):
            seat = G.pending(state)[0].seat
            movers = {a.unit for a in G.legal_actions(state, seat) if isinstance(a, Move)}
            ctx = R.ctx(state)
            stacked = [
                u
                for u in sorted(movers)
                if any(not R.is_combat[o] for o in ctx.units_at[state.pos[u]] if o != u)
            ]
            for unit in stacked[:6]:
                found = targets.march(R, state, seat, unit)
                if not found["carry"] or not found["reach"]:
                    continue
                labels = sorted(found["reach"])
                for label in rng.sample(labels, min(3, len(labels))):
                    where = found["reach"][label]
                    played = _played(state, seat, where["steps"])
                    assert lab(played.pos[unit]) == label
                    for carried, ends in where["carried"].items():
                        assert lab(played.pos[carried]) == ends
                        assert ends in where["path"] or ends == found["from"]
                if found["reach"][labels[0]]["stop"] is None:
                    through = targets.march(R, state, seat, unit, via=[labels[0]])
                    for where in list(through["reach"].values())[:3]:
                        _played(state, seat, where["steps"])
                checked += 1
    assert checked >= 3
