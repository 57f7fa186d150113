"""Where each legal wargame action is chosen on the web table (issues 32 and 33): the counter
to pick up, the hex it goes to, a battle's target and its attackers, the cards, the secret
orders.

Data only, as engine/attila/targets.py: the server sends it beside the legal actions the engine
listed, and the page lights the places up. A march of several hexes is found here by taking the
engine's own single steps (``legal_actions``' generation, ``Movement.unit_steps``) one after
another in copies of the state, each taken by the rules themselves (``Movement._take_step``, as
``Rules.apply`` takes a one-hex move): what entering a hex sets off (a people joining a side, a
city taken) counts for the next step as in play. The lookup tables over every counter
(``MapQuestions.ctx``) are built once per state of the rest of the map, not once per step. A
march may be asked through waypoints (each leg from the state the one before it left) and with
the command units stacked with the counter going along, each by its own single steps after
the counter's, as far as the engine lets it. No rule is decided here or in the browser.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.attila_wargame.actions import Attack, Move, Notation
from engine.attila_wargame.board import Board
from engine.attila_wargame.bot import copy_state
from engine.attila_wargame.rules import Rules
from engine.attila_wargame.state import WargameState
from engine.core import BadQuestion
from engine.sentences import N_, fill, word

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


class MarchError(BadQuestion):
    """A march asked through hexes it cannot take, or with command units it cannot carry."""


#: Waypoints at most in one march question (a march is a few hexes: more is no question).
MAX_VIA = 8


def march(
    rules: Rules,
    state: WargameState,
    seat: int,
    unit: str,
    via: Sequence[str] = (),
    carry: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Where ``unit`` can still go in this movement phase: each hex it reaches by legal single
    steps, with the shortest path, its cost in hexes, the single-step notations to send (one
    request of several actions), and why the move ends there if it must (river, zone of
    control); and the neighbouring hexes it may not enter, with the engine's reason.

    ``via``: hex labels the march goes through first, in order (waypoints): each leg is the
    shortest one from the state the legs before it left (zones of control, rivers followed, a
    people joining), and the reach, paths and steps are those after the last one.
    ``carry``: the command units of its side stacked with it that go along (None: every one
    that may move now, as a player expects; ``carry`` in the answer lists them, each on or
    off): each follows the counter step by step, as its own single engine steps after the
    counter's, as far as it may go (``carried``: where each ends). Raises ``MarchError`` for a
    waypoint off the map or out of reach, or a command unit that cannot go along."""
    notation = Notation(rules.b)
    lab = rules.b.labels
    if len(via) > MAX_VIA:
        raise MarchError(f"at most {MAX_VIA} waypoints")
    wanted = [rules.b.index_of_label.get(h) for h in via]
    if None in wanted:
        bad = next(h for h, w in zip(via, wanted, strict=True) if w is None)
        raise MarchError(f"{bad[:12]!r} is not a hex of the map")
    out: dict[str, Any] = {"unit": unit, "reach": {}, "closed": {}, "via": [], "carry": []}
    if unit not in state.pos or rules.side(state, unit) != rules.seats[seat]:
        return out
    side = rules.seats[seat]
    trial = copy_state(state)
    trial.notes = {k: v for k, v in trial.notes.items() if k not in _SECRET_NOTES}
    start = trial.pos[unit]
    out["from"] = lab[start]
    ctx = rules.ctx(trial)
    can = _carriable(rules, trial, ctx, unit, side)
    going = tuple(can if carry is None else [u for u in can if u in set(carry)])
    unknown = sorted(set(carry or ()) - set(can))
    if unknown:
        raise MarchError(f"{unknown[0][:40]} cannot go along with {unit} now")
    out["carry"] = [{"unit": u, "on": u in going} for u in can]
    node = _Node(trial, (), (), going)
    for h in wanted:
        assert h is not None
        reached = _spread(rules, notation, node, unit, side)
        if h not in reached:
            raise MarchError(f"{unit} cannot reach {lab[h]} from {lab[node.state.pos[unit]]}")
        node = reached[h]
        out["via"].append(lab[h])
    here, at = node.state, node.state.pos[unit]
    ctx = rules.ctx(here)
    if rules.movable(here, ctx, unit, side):
        lifted = rules._without(ctx, unit, at)
        for n in rules.b.neighbours[at]:
            why = rules.closed_reason(here, lifted, unit, n)
            if why is not None:
                out["closed"][lab[n]] = why
    else:
        out["stuck"] = N_("cannot move now (full factor used, stopped, or held in an enemy zone)")
    for h, there in _spread(rules, notation, node, unit, side).items():
        out["reach"][lab[h]] = {
            "path": [lab[p] for p in there.path],
            "cost": len(there.path),
            "steps": list(there.steps),
            "stop": there.stop,
            "carried": {u: lab[there.state.pos[u]] for u in going if u in there.state.pos},
        }
    return out


@dataclass(frozen=True)
class _Node:
    """A march so far in a trial: the state it left, the counter's path, the single-step
    notations (the counter's and those of the command units going along), who still follows,
    and why the counter's last step ended its move (None: it may go on)."""

    state: WargameState
    path: tuple[int, ...]
    steps: tuple[str, ...]
    going: tuple[str, ...]
    stop: str | None = None


def _carriable(rules: Rules, state: WargameState, ctx: Any, unit: str, side: str) -> list[str]:
    """The command units of ``side`` stacked with ``unit`` that may still move this phase (in
    forces-sheet order): those a march may take along."""
    at = state.pos[unit]
    return sorted(
        (
            u
            for u in ctx.units_at.get(at, ())
            if u != unit and not rules.is_combat[u] and rules.movable(state, ctx, u, side)
        ),
        key=rules.order.__getitem__,
    )


def _spread(
    rules: Rules, notation: Notation, begin: _Node, unit: str, side: str
) -> dict[int, _Node]:
    """Each hex the counter reaches from ``begin`` by its legal single steps, with the first
    (shortest) march there; the leg's own first hex is left out."""
    first = begin.state.pos[unit]
    group = (unit, *begin.going)
    reach: dict[int, _Node] = {}
    seen = {_key(begin.state, unit, *begin.going)}
    tried: set[tuple[Any, ...]] = set()
    # The lookup tables with the unit lifted off the map, per state of the rest of the map: the
    # same for every hex of a march unless entering one changed a side or freed a unit, so
    # built once (``ctx`` over every counter was most of a pick-up's time). The unit's own
    # questions (``unit_steps``, ``_step_stops``) never look at the unit itself in them, as
    # ``_move`` checks a path with the unit lifted.
    lifted_for: dict[tuple[Any, ...], Any] = {}
    frontier = [begin]
    while frontier:
        following = []
        # A command unit that stayed behind no longer changes where the counter can go
        # (command units of its side never stand in its way): a march is known by the counter
        # and those still following (``_key``). Of the marches that reach the same one, the
        # one that took them farthest is played on.
        frontier.sort(key=lambda node: -len(node.steps))
        for node in frontier:
            here = node.state
            at = here.pos[unit]
            world = _world(here, *group)
            lifted = lifted_for.get(world)
            if lifted is None:
                lifted = lifted_for[world] = rules._without(rules.ctx(here), unit, at)
            done = here.moved.get(unit)
            used = done["used"] if done else 0
            run = set(done["run"]) if done else set(rules.b.rivers_of.get(at, ()))
            sides = (frozenset(here.alignment.items()), tuple(here.taken), here.west_invaded)
            followers = tuple(
                (u, here.pos.get(u), json.dumps(here.moved.get(u), sort_keys=True))
                for u in node.going
            )
            for n in rules.unit_steps(here, lifted, unit, side):
                # A step whose outcome is already known (the same hex, hexes used, stop and
                # river followed, with the same sides, cities taken and followers) is not
                # played again: what the move goes on to is the same (``_step_stops``, as
                # ``_take_step``).
                stop, follows = rules._step_stops(here, lifted, unit, at, n, run)
                before = (n, used + 1, stop, frozenset(follows), sides, followers)
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
                steps = [notation.format(Move(unit, (n,)))]
                going = _follow(rules, there, node.going, n, side, lifted_for, group)
                steps += [notation.format(Move(u, (n,))) for u in going]
                key = _key(there, unit, *going)
                if key in seen:
                    continue
                seen.add(key)
                why = _why_stop(rules, here, unit, n) if there.moved[unit]["stopped"] else None
                walked, walked_steps = (*node.path, n), (*node.steps, *steps)
                following.append(_Node(there, walked, walked_steps, going, why))
                # The first march to a hex is a shortest one; among the shortest, the one
                # that takes the command units going along the farthest (the most steps).
                best = reach.get(n)
                if n != first and (
                    best is None
                    or (len(best.path) == len(walked) and len(best.steps) < len(walked_steps))
                ):
                    reach[n] = following[-1]
        frontier = following
    return reach


def _follow(
    rules: Rules,
    state: WargameState,
    going: tuple[str, ...],
    into: int,
    side: str,
    lifted_for: dict[tuple[Any, ...], Any],
    group: tuple[str, ...],
) -> tuple[str, ...]:
    """The command units going along that step into ``into`` after the counter, each by the
    engine's single step (``unit_steps``, then ``_take_step`` as ``Rules.apply`` takes it);
    one that may not (its movement used, a river stop, its people's limits) stays behind.
    ``lifted_for``: the march's lookup tables with a unit lifted, by what they read of the
    map without the marching ``group`` (``_world``)."""
    out = []
    for u in going:
        at = state.pos.get(u)
        if at is None:
            continue
        world = (u, *_world(state, *group))
        lifted = lifted_for.get(world)
        if lifted is None:
            lifted = lifted_for[world] = rules._without(rules.ctx(state), u, at)
        if into in rules.unit_steps(state, lifted, u, side):
            rules._take_step(state, u, into, [], lifted)
            if u in state.pos:
                out.append(u)
    return tuple(out)


def _world(state: WargameState, *group: str) -> tuple[Any, ...]:
    """What the lookup tables (``MapQuestions.ctx``) read of a state, the marching group (the
    counter and the command units going along) apart: a unit's own questions never look at
    itself in them, nor at command units of its side (they stand in no one's way of their
    side and have no zone of control), so tables built where the group stood answer them."""
    return (
        frozenset(state.pos.items()) - {(u, state.pos.get(u)) for u in group},
        frozenset(state.alignment.items()),
        frozenset(state.neutralised),
        state.west_invaded,
        state.gaul_invaded,
        state.round,
    )


def _key(state: WargameState, unit: str, *carried: str) -> str:
    """What the rest of a march can depend on: where the unit (and the command units going
    along) is, what each has used, and what entering hexes may have changed (sides, cities
    taken)."""
    group = [unit, *carried]
    return json.dumps(
        [
            [state.pos.get(u) for u in group],
            [state.moved.get(u) for u in group],
            state.alignment,
            state.taken,
            state.step,
        ],
        sort_keys=True,
    )


def _why_stop(rules: Rules, state: WargameState, unit: str, into: int) -> str:
    """Why a step into ``into`` ends the move (1.3 zones of control, 1.4 rivers)."""
    at = state.pos[unit]
    ctx = rules._without(rules.ctx(state), unit, at)
    if rules.is_combat[unit] and rules.in_enemy_zoc(ctx, unit, into):
        return N_("enemy zone of control")
    return N_("river")


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


#: A counter's accessible name (``places``).
PLACE = N_("{unit} ({people}) at {hex}")


def places(board: Board, view: dict[str, Any]) -> dict[str, str]:
    """Each counter's and each occupied hex's accessible name: "HUN-3 (Huns) at 3110", in the
    language of the ``translating`` block it is called in (the page's)."""
    peoples = {p["id"]: p["name"].split(" (")[0] for p in board.raw["peoples"]}
    out: dict[str, str] = {}
    for unit, info in view["units"].items():
        people = word(peoples.get(info["people"], info["people"]))
        out[f"unit-{unit}"] = fill(PLACE, unit=unit, people=people, hex=info["hex"])
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
