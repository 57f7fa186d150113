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
from engine.sentences import N_
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attila_wargame import SIDE_NAME, people_name, phase_names, round_name

WIDTH = 92
#: The sides as SIDE_NAME names them, marked for extraction (said through ``_``).
SIDE_WORDS = (N_("Roman"), N_("Barbarian"), N_("neutral"))


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
    lines.append(_("See board.svg for the map; each land hex there shows its CCRR label."))
    return "\n".join(lines).rstrip() + "\n"


def seat_facts(board: Board, view: dict[str, Any]) -> list[str]:
    """Each seat's side (the game page's list of players; the rest is on the map and in the
    status strip)."""
    return [_(SIDE_NAME.get(side, side)) for side in view["sides"]]


def _wrap(text: str, indent: str = "  ", later: str = "    ") -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=indent, subsequent_indent=later, break_on_hyphens=False
    )


def _headline(board: Board, view: dict[str, Any], names: Sequence[str]) -> list[str]:
    result = view.get("result")
    if result:
        side = _(SIDE_NAME.get(result["winner_side"], result["winner_side"]))
        return [
            _(
                "The game is over after round %(rounds)s: the %(side)s player wins.",
                rounds=board.rounds,
                side=side,
            )
        ]
    if view["phase"] == "notes":
        out = [_("Before round 1: both players write their secret notes (sealed).")]
    else:
        phase = say_word(phase_names(board).get(view["phase"], view["phase"]))
        out = [
            _(
                "Round %(round)s of %(rounds)s (%(season)s), phase (%(id)s) %(phase)s.",
                round=view["round"],
                rounds=board.rounds,
                season=round_name(board, view["round"]),
                id=view["phase"],
                phase=phase,
            )
        ]
    sides = view["sides"]
    waiting = []
    for d in view.get("pending") or []:
        if d["seat"] < 0:
            waiting.append(_("the server (to reveal the sealed cards)"))
        else:
            side = _(SIDE_NAME.get(sides[d["seat"]], sides[d["seat"]]))
            who = _("the %(side)s player (seat %(seat)s)", side=side, seat=d["seat"])
            if d["seat"] < len(names) and names[d["seat"]]:
                who = f"{names[d['seat']]}, {who}"
            waiting.append(f"{who}: {d['step'].replace('_', ' ')}")
    if waiting:
        out.append(_("Waiting for %(whom)s.", whom="; ".join(waiting)))
    seat = view.get("seat")
    if seat is not None and 0 <= seat < len(sides):
        side = _(SIDE_NAME.get(sides[seat], sides[seat]))
        out.append(_("You play the %(side)s side (seat %(seat)s).", side=side, seat=seat))
    return out


def _own_secrets(view: dict[str, Any]) -> list[str]:
    out = []
    known = view["notes"].get("known", {})
    if known:
        shown = ", ".join(f"{k} {v}" for k, v in known.items())
        out.append(_("Secret notes you may see: %(notes)s.", notes=shown))
    for key in ("battle", "council"):
        holder = view.get(key)
        if holder and "own_card" in holder:
            card = holder["own_card"]
            out.append(_("Your sealed card for %(ref)s: %(card)s.", ref=holder["ref"], card=card))
    return out


def _battle(battle: dict[str, Any]) -> list[str]:
    out = [
        _(
            "Battle %(ref)s at %(target)s: %(attackers)s (%(attack)s) against %(defenders)s "
            "(%(defence)s), odds %(column)s.",
            ref=battle["ref"],
            target=battle["target"],
            attackers=" ".join(battle["attackers"]),
            attack=battle["attack"],
            defenders=" ".join(battle["defenders"]),
            defence=battle["defence"],
            column=battle["column"],
        )
    ]
    if "cards" in battle:
        cards = ", ".join(
            _("seat %(seat)s: %(card)s", seat=s, card=c) for s, c in sorted(battle["cards"].items())
        )
        revealed = _(
            "Cards revealed (%(cards)s): result %(result)s.", cards=cards, result=battle["result"]
        )
        out.append("  " + revealed)
        if battle["retreating"]:
            retreating = " ".join(battle["retreating"])
            out.append("  " + _("Still to retreat: %(units)s.", units=retreating))
    else:
        chosen = len(battle["chosen"])
        out.append("  " + _("Cards chosen (sealed): %(chosen)s of 2.", chosen=chosen))
    return out


def _council(council: dict[str, Any]) -> list[str]:
    lugdunum = council["kind"] == "lugdunum"
    name = _("The council of Lugdunum") if lugdunum else _("The end council")
    if "cards" in council:
        cards = ", ".join(council["cards"].values())
        return [
            _(
                "%(council)s (%(ref)s): cards %(cards)s.",
                council=name,
                ref=council["ref"],
                cards=cards,
            )
        ]
    return [
        _(
            "%(council)s (%(ref)s): diplomatic cards chosen (sealed) %(chosen)s of 2.",
            council=name,
            ref=council["ref"],
            chosen=len(council["chosen"]),
        )
    ]


def _situation(board: Board, view: dict[str, Any]) -> list[str]:
    yes = {True: _("yes"), False: _("no")}
    taken = [board.city_by_id[c].name for c in view["cities_taken"] if c in board.city_by_id]
    temp, perm = view["devastated"]["temporary"], view["devastated"]["permanent"]
    title = view.get("attila_title") or _("none")
    none = _("none")
    out = _wrap(
        _(
            "West invaded: %(west)s. Gaul invaded: %(gaul)s. Leo I: %(leo)s. Attila's title: "
            "%(title)s. Council of Lugdunum: %(council)s.",
            west=yes[view["west_invaded"]],
            gaul=yes[view["gaul_invaded"]],
            leo=view["leo"].replace("_", " "),
            title=title,
            council=_("held") if view["lugdunum_council_done"] else _("not yet"),
        ),
        "",
    )
    cities = ", ".join(taken) or none
    out += _wrap(_("Cities ever taken by the Barbarian: %(cities)s.", cities=cities), "")
    out += _wrap(_("Temporary devastation (VT): %(hexes)s.", hexes=" ".join(temp) or none), "")
    out += _wrap(_("Permanent devastation (VP): %(hexes)s.", hexes=" ".join(perm) or none), "")
    if view["notes"].get("fired"):
        fired = ", ".join(view["notes"]["fired"])
        out.append(_("Secret notes fired: %(notes)s.", notes=fired))
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
            text += "\u00a0(" + _("neutralised") + ")"
        by[info["side"]][info["people"]].append(text)
    out = [_("Units on the map (unit, hex, combat factor; reduced as now/printed):")]
    for side in ("roman", "barbarian", "neutral"):
        if side not in by:
            continue
        out.append(f"  {_(SIDE_NAME.get(side, side)).capitalize()}:")
        for people in board.peoples:
            units = by[side].get(people)
            if units:
                wrapped = _wrap(
                    f"{say_word(people_name(board, people))}: {', '.join(units)}", "    ", "      "
                )
                out += [line.replace("\u00a0", " ") for line in wrapped]
    return out


def _gone(view: dict[str, Any]) -> list[str]:
    by: dict[str, list[str]] = defaultdict(list)
    for unit, why in view["gone"].items():
        by[why].append(unit)
    out = [_("Off the map:")]
    for why, units in sorted(by.items()):
        out += _wrap(f"{why}: {', '.join(units)}")
    return out


def _result(board: Board, result: dict[str, Any]) -> list[str]:
    out = [
        _(
            "Barbarian points: %(points)s (threshold %(threshold)s); regional victory: "
            "%(regional)s.",
            points=result["barbarian_points"],
            threshold=result["threshold"],
            regional=_("yes") if result["regional_victory"] else _("no"),
        )
    ]
    for key, value in result.get("points_lines", {}).items():
        name = board.city_by_id[key].name if key in board.city_by_id else key.replace("_", " ")
        out.append(f"  {name}: {value:+d}")
    held = result.get("regions_held", {})
    if held:
        regions = "; ".join(f"{region} ({', '.join(cities)})" for region, cities in held.items())
        out.append(_("Regions held: %(regions)s", regions=regions))
    return out
