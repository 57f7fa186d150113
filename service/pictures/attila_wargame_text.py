"""A plain-text summary of an Attila wargame view, for emails and terminals.

Like the picture it only reads a view, so it shows exactly what that seat may see: the
recipient's own secret notes and own sealed card, never the other side's before they are
revealed. Units are written by their forces-sheet id and hexes by their ``CCRR`` label, the
way moves are written.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from engine.attila_wargame.board import Board
from service.pictures.attila_wargame import SIDE_NAME, people_name, phase_names, round_name

WIDTH = 92


def summary(board: Board, view: dict[str, Any], *, names: Sequence[str] = ()) -> str:
    lines = [*_headline(board, view, names), ""]
    own = _own_secrets(view)
    if own:
        lines += [*own, ""]
    if view.get("battle"):
        lines += [*_battle(view["battle"]), ""]
    if view.get("council"):
        lines += [*_council(view["council"]), ""]
    lines += [*_situation(board, view), ""]
    lines += [*_units(board, view), ""]
    if view["gone"]:
        lines += [*_gone(view), ""]
    if view.get("result"):
        lines += [*_result(board, view["result"]), ""]
    lines.append("See board.svg for the map; each land hex there shows its CCRR label.")
    return "\n".join(lines).rstrip() + "\n"


def _wrap(text: str, indent: str = "  ", later: str = "    ") -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=indent, subsequent_indent=later, break_on_hyphens=False
    )


def _headline(board: Board, view: dict[str, Any], names: Sequence[str]) -> list[str]:
    result = view.get("result")
    if result:
        side = SIDE_NAME.get(result["winner_side"], result["winner_side"])
        return [f"The game is over after round {board.rounds}: the {side} player wins."]
    if view["phase"] == "notes":
        out = ["Before round 1: both players write their secret notes (sealed)."]
    else:
        phase = phase_names(board).get(view["phase"], view["phase"])
        out = [
            f"Round {view['round']} of {board.rounds} ({round_name(board, view['round'])}), "
            f"phase ({view['phase']}) {phase}."
        ]
    sides = view["sides"]
    waiting = []
    for d in view.get("pending") or []:
        if d["seat"] < 0:
            waiting.append("the server (to reveal the sealed cards)")
        else:
            side = SIDE_NAME.get(sides[d["seat"]], sides[d["seat"]])
            who = f"the {side} player (seat {d['seat']})"
            if d["seat"] < len(names) and names[d["seat"]]:
                who = f"{names[d['seat']]}, {who}"
            waiting.append(f"{who}: {d['step'].replace('_', ' ')}")
    if waiting:
        out.append("Waiting for " + "; ".join(waiting) + ".")
    seat = view.get("seat")
    if seat is not None and 0 <= seat < len(sides):
        out.append(f"You play the {SIDE_NAME.get(sides[seat], sides[seat])} side (seat {seat}).")
    return out


def _own_secrets(view: dict[str, Any]) -> list[str]:
    out = []
    known = view["notes"].get("known", {})
    if known:
        shown = ", ".join(f"{k} {v}" for k, v in known.items())
        out.append(f"Secret notes you may see: {shown}.")
    for key in ("battle", "council"):
        holder = view.get(key)
        if holder and "own_card" in holder:
            out.append(f"Your sealed card for {holder['ref']}: {holder['own_card']}.")
    return out


def _battle(battle: dict[str, Any]) -> list[str]:
    out = [
        f"Battle {battle['ref']} at {battle['target']}: "
        f"{' '.join(battle['attackers'])} ({battle['attack']}) against "
        f"{' '.join(battle['defenders'])} ({battle['defence']}), odds {battle['column']}."
    ]
    if "cards" in battle:
        cards = ", ".join(f"seat {s}: {c}" for s, c in sorted(battle["cards"].items()))
        out.append(f"  Cards revealed ({cards}): result {battle['result']}.")
        if battle["retreating"]:
            out.append(f"  Still to retreat: {' '.join(battle['retreating'])}.")
    else:
        out.append(f"  Cards chosen (sealed): {len(battle['chosen'])} of 2.")
    return out


def _council(council: dict[str, Any]) -> list[str]:
    name = "The council of Lugdunum" if council["kind"] == "lugdunum" else "The end council"
    if "cards" in council:
        return [f"{name} ({council['ref']}): cards {', '.join(council['cards'].values())}."]
    return [
        f"{name} ({council['ref']}): diplomatic cards chosen (sealed) {len(council['chosen'])}"
        " of 2."
    ]


def _situation(board: Board, view: dict[str, Any]) -> list[str]:
    yes = {True: "yes", False: "no"}
    taken = [board.city_by_id[c].name for c in view["cities_taken"] if c in board.city_by_id]
    temp, perm = view["devastated"]["temporary"], view["devastated"]["permanent"]
    title = view.get("attila_title") or "none"
    out = _wrap(
        f"West invaded: {yes[view['west_invaded']]}. Gaul invaded: {yes[view['gaul_invaded']]}. "
        f"Leo I: {view['leo'].replace('_', ' ')}. Attila's title: {title}. Council of Lugdunum: "
        f"{'held' if view['lugdunum_council_done'] else 'not yet'}.",
        "",
    )
    out += _wrap("Cities ever taken by the Barbarian: " + (", ".join(taken) or "none") + ".", "")
    out += _wrap(f"Temporary devastation (VT): {' '.join(temp) or 'none'}.", "")
    out += _wrap(f"Permanent devastation (VP): {' '.join(perm) or 'none'}.", "")
    if view["notes"].get("fired"):
        out.append(f"Secret notes fired: {', '.join(view['notes']['fired'])}.")
    return out


def _units(board: Board, view: dict[str, Any]) -> list[str]:
    """Units on the map per side and people: ``HUN-7 3110 5`` (reduced: ``3/5``)."""
    by: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for unit, info in view["units"].items():
        if info["combat"]:
            cf = str(info["cf"])
            if info["cf"] != info["printed_cf"]:
                cf = f"{info['cf']}/{info['printed_cf']}"
            text = f"{unit}\u00a0{info['hex']}\u00a0{cf}"
        else:
            text = f"{unit}\u00a0{info['hex']}"
        if info.get("neutralised"):
            text += "\u00a0(neutralised)"
        by[info["side"]][info["people"]].append(text)
    out = ["Units on the map (unit, hex, combat factor; reduced as now/printed):"]
    for side in ("roman", "barbarian", "neutral"):
        if side not in by:
            continue
        out.append(f"  {SIDE_NAME.get(side, side).capitalize()}:")
        for people in board.peoples:
            units = by[side].get(people)
            if units:
                wrapped = _wrap(
                    f"{people_name(board, people)}: {', '.join(units)}", "    ", "      "
                )
                out += [line.replace("\u00a0", " ") for line in wrapped]
    return out


def _gone(view: dict[str, Any]) -> list[str]:
    by: dict[str, list[str]] = defaultdict(list)
    for unit, why in view["gone"].items():
        by[why].append(unit)
    out = ["Off the map:"]
    for why, units in sorted(by.items()):
        out += _wrap(f"{why}: {', '.join(units)}")
    return out


def _result(board: Board, result: dict[str, Any]) -> list[str]:
    out = [
        f"Barbarian points: {result['barbarian_points']} (threshold {result['threshold']}); "
        f"regional victory: {'yes' if result['regional_victory'] else 'no'}."
    ]
    for key, value in result.get("points_lines", {}).items():
        name = board.city_by_id[key].name if key in board.city_by_id else key.replace("_", " ")
        out.append(f"  {name}: {value:+d}")
    held = result.get("regions_held", {})
    if held:
        out.append(
            "Regions held: "
            + "; ".join(f"{region} ({', '.join(cities)})" for region, cities in held.items())
        )
    return out
