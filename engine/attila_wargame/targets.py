"""Where each legal wargame action is chosen on the web table (issues 32 and 33): the counter
to pick up, the hex it goes to, a battle's target and its attackers, the cards, the secret
orders.

Data only, as engine/attila/targets.py: the server sends it beside the legal actions the engine
listed, and the page lights the places up. A march of several hexes is found here by taking the
engine's own single steps (``legal_actions``' generation, ``Movement.unit_steps``) one after
another in copies of the state, each taken by the rules themselves (``Movement._take_step``, as
``Rules.apply`` takes a one-hex move): what entering a hex sets off (a people joining a side, a
city taken) counts for the next step as in play. The lookup tables over every counter
(``MapQuestions.ctx``) are built once per state of the rest of the map, not once per step. No
rule is decided here or in the browser.
"""

from __future__ import annotations

import json
from typing import Any

from engine.attila_wargame.actions import Attack, Move, Notation
from engine.attila_wargame.board import Board
from engine.attila_wargame.bot import copy_state
from engine.attila_wargame.rules import Rules
from engine.attila_wargame.state import WargameState
from engine.sentences import N_

#: What the controls without a counter, hex or card say (translated by the page).
PICK_LABELS = {
    "end": N_("End the phase"),
    "push": N_("Push them back"),
    "spare": N_("Spare them"),
    "stay": N_("Stay (no advance)"),
    "convene": N_("Call the council"),
    "decline": N_("No council"),
    "raze": N_("Devastate for good"),
    "note": N_("Your secret orders"),
    "attack": N_("Attack"),
}

#: The secret notes kept out of a march's trial: a note fires as a surprise (notes.py), and the
#: page's reach must not tell its owner's opponent where one lies in wait.
_SECRET_NOTES = ("traitor", "aetius", "suborned")


def target(board: Board, action: dict[str, Any]) -> dict[str, Any]:
    """``{"pick", "target", "cards"}`` of one action object (``Notation.to_json``), plus what
    the wargame's page needs: a march's ``unit``, a battle's ``attackers``, a razing's
    ``hexes``, a note's ``unit`` and ``aetius``."""
    kind = action["type"]
    out: dict[str, Any] = {"pick": kind, "target": None, "cards": None}
    match kind:
        case "move":
            out |= {"pick": f"unit:{action['unit']}", "target": f"hex-{action['path'][-1]}"}
        case "retreat":
            out |= {"pick": f"unit:{action['unit']}", "target": f"hex-{action['to']}"}
        case "advance" if action["unit"] is not None:
            out |= {"pick": f"unit:{action['unit']}", "target": f"hex-{action['to']}"}
        case "advance":
            out["pick"] = "stay"
        case "attack":
            out |= {"target": f"hex-{action['target']}", "attackers": list(action["attackers"])}
        case "card":
            out["pick"] = f"card:{action['card']}"
        case "push":
            out["pick"] = "push" if action["push"] else "spare"
        case "convene":
            out["pick"] = "convene" if action["convene"] else "decline"
        case "raze":
            out["hexes"] = [f"hex-{h}" for h in action["hexes"]]
        case "note":
            out |= {"target": f"unit-{action['unit']}", "unit": action["unit"]}
            out["aetius"] = action.get("aetius")
    return out


def details(rules: Rules, state: WargameState, seat: int, raw: list[Any]) -> list[dict[str, Any]]:
    """What the page shows of each legal action before Confirm: a battle's strengths and odds
    column (5.1), as the engine will declare it (``Combat.strength``, ``Combat.column``)."""
    out: list[dict[str, Any]] = []
    ctx = rules.ctx(state) if any(isinstance(a, Attack) for a in raw) else None
    for action in raw:
        if not isinstance(action, Attack) or ctx is None:
            out.append({})
            continue
        t = action.target
        defenders = [
            u for u in ctx.units_at.get(t, ()) if rules.is_combat[u] and u not in ctx.neutralised
        ]
        attack = sum(rules.strength(state, ctx, u, defending=False) for u in action.attackers)
        defence = sum(rules.strength(state, ctx, u, defending=True) for u in defenders)
        column = rules.column(state, attack, defence) if defenders else ""
        out.append({"attack": attack, "defence": defence, "column": column})
    return out


def march(rules: Rules, state: WargameState, seat: int, unit: str) -> dict[str, Any]:
    """Where ``unit`` can still go in this movement phase: each hex it reaches by legal single
    steps, with the shortest path, its cost in hexes, the single-step notations to send (one
    request of several actions), and why the move ends there if it must (river, zone of
    control); and the neighbouring hexes it may not enter, with the engine's reason."""
    notation = Notation(rules.b)
    lab = rules.b.labels
    out: dict[str, Any] = {"unit": unit, "reach": {}, "closed": {}}
    if unit not in state.pos or rules.side(state, unit) != rules.seats[seat]:
        return out
    side = rules.seats[seat]
    trial = copy_state(state)
    trial.notes = {k: v for k, v in trial.notes.items() if k not in _SECRET_NOTES}
    start = trial.pos[unit]
    out["from"] = lab[start]
    ctx = rules.ctx(trial)
    if rules.movable(trial, ctx, unit, side):
        lifted = rules._without(ctx, unit, start)
        for n in rules.b.neighbours[start]:
            why = rules.closed_reason(trial, lifted, unit, n)
            if why is not None:
                out["closed"][lab[n]] = why
    else:
        out["stuck"] = "cannot move now (full factor used, stopped, or held in an enemy zone)"
    reach = out["reach"]
    seen = {_key(trial, unit)}
    tried: set[tuple[Any, ...]] = set()
    # The lookup tables with the unit lifted off the map, per state of the rest of the map: the
    # same for every hex of a march unless entering one changed a side or freed a unit, so
    # built once (``ctx`` over every counter was most of a pick-up's time). The unit's own
    # questions (``unit_steps``, ``_step_stops``) never look at the unit itself in them, as
    # ``_move`` checks a path with the unit lifted.
    lifted_for: dict[tuple[Any, ...], Any] = {}
    frontier: list[tuple[WargameState, tuple[int, ...]]] = [(trial, ())]
    while frontier:
        following = []
        for here, path in frontier:
            at = here.pos[unit]
            world = _world(here, unit)
            lifted = lifted_for.get(world)
            if lifted is None:
                lifted = lifted_for[world] = rules._without(rules.ctx(here), unit, at)
            done = here.moved.get(unit)
            used = done["used"] if done else 0
            run = set(done["run"]) if done else set(rules.b.rivers_of.get(at, ()))
            sides = (frozenset(here.alignment.items()), tuple(here.taken), here.west_invaded)
            for n in rules.unit_steps(here, lifted, unit, side):
                # A step whose outcome is already known (the same hex, hexes used, stop and
                # river followed, with the same sides and cities taken) is not played again:
                # what the move goes on to is the same (``_step_stops``, as ``_take_step``).
                stop, follows = rules._step_stops(here, lifted, unit, at, n, run)
                before = (n, used + 1, stop, frozenset(follows), sides)
                if before in tried:
                    continue
                tried.add(before)
                # The step as ``Rules.apply`` plays a one-hex ``move`` that ``unit_steps``
                # listed (``_move`` checks it as unit_steps did, then takes it by
                # ``_take_step``): what entering the hex sets off is the engine's own.
                there = copy_state(here)
                rules._take_step(there, unit, n, [], lifted)
                if unit not in there.pos:
                    continue
                key = _key(there, unit)
                if key in seen:
                    continue
                seen.add(key)
                walked = (*path, n)
                if lab[n] not in reach and n != start:
                    done = there.moved[unit]
                    reach[lab[n]] = {
                        "path": [lab[h] for h in walked],
                        "cost": len(walked),
                        "steps": [notation.format(Move(unit, (h,))) for h in walked],
                        "stop": _why_stop(rules, here, unit, n) if done["stopped"] else None,
                    }
                following.append((there, walked))
        frontier = following
    return out


def _world(state: WargameState, unit: str) -> tuple[Any, ...]:
    """What the lookup tables (``MapQuestions.ctx``) read of a state, the moving unit apart."""
    return (
        frozenset(state.pos.items()) - {(unit, state.pos[unit])},
        frozenset(state.alignment.items()),
        frozenset(state.neutralised),
        state.west_invaded,
        state.gaul_invaded,
        state.round,
    )


def _key(state: WargameState, unit: str) -> str:
    """What the rest of a march can depend on: where the unit is, what it has used, and what
    entering hexes may have changed (sides, cities taken)."""
    return json.dumps(
        [state.pos.get(unit), state.moved.get(unit), state.alignment, state.taken, state.step],
        sort_keys=True,
    )


def _why_stop(rules: Rules, state: WargameState, unit: str, into: int) -> str:
    """Why a step into ``into`` ends the move (1.3 zones of control, 1.4 rivers)."""
    at = state.pos[unit]
    ctx = rules._without(rules.ctx(state), unit, at)
    if rules.is_combat[unit] and rules.in_enemy_zoc(ctx, unit, into):
        return "enemy zone of control"
    return "river"


def status(rules: Rules, state: WargameState) -> dict[str, Any]:
    """The round, season, phase and step, and the victory points as they stand (public: the
    cities held, the units lost and Leo's fate, ``Victory.score``)."""
    b = rules.b
    return {
        "round": state.round,
        "rounds": b.rounds,
        "season": b.seasons[(state.round - 1) % len(b.seasons)],
        "phase": state.phase,
        "step": state.step,
        "points": rules.score(state)["points"],
    }


def zones(rules: Rules, state: WargameState) -> dict[str, list[str]]:
    """Each side's zones of control as they stand (public: where the combat units are), for
    the map's layer toggle: the hexes round each combat unit its zone reaches
    (``MapQuestions.projects``: not into or out of a city, nor across a river, 2.1-2.4)."""
    ctx = rules.ctx(state)
    out: dict[str, set[str]] = {"roman": set(), "barbarian": set()}
    for h, unit in ctx.combat_at.items():
        zone = out.get(rules.side(state, unit))
        if zone is None:
            continue
        for n in rules.b.neighbours[h]:
            if rules.projects(ctx, unit, h, n):
                zone.add(rules.b.labels[n])
    return {side: sorted(hexes) for side, hexes in out.items()}


def places(board: Board, view: dict[str, Any]) -> dict[str, str]:
    """Each counter's and each occupied hex's accessible name: "HUN-3 (huns) at 3110"."""
    out: dict[str, str] = {}
    for unit, info in view["units"].items():
        out[f"unit-{unit}"] = f"{unit} ({info['people']}) at {info['hex']}"
        out.setdefault(f"hex-{info['hex']}", f"{info['hex']}:")
        out[f"hex-{info['hex']}"] += f" {unit}"
    return out


def card_names(board: Board) -> dict[str, str]:
    """Each battle and council card's pick with the name printed on it (data, not translated)."""
    raw = board.raw
    out = {}
    for card in (*raw["combat"]["attack_cards"], *raw["combat"]["defence_cards"]):
        out[f"card:{card['id']}"] = f"{card['id'].upper()} · {card.get('en', card['id'])}"
    for cards in (raw["diplomacy"]["cards"]["roman"], raw["diplomacy"]["cards"]["barbarian"]):
        for card in cards:
            out[f"card:{card['id']}"] = card.get("name", card["id"])
    return out
