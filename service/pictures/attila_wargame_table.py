"""The wargame's panel beside its map on the game page (service/kits/attila_wargame.py names
``panel``): the round track, season, phase and whose step, the victory points as they stand, the
seat's own "secret orders" (its notes and its sealed card), the last battle's course step by
step, and what the mailed picture's side panel shows (``panel_facts``: the situation, the
peoples, the units off the map, the result; from the spectators' view, as the picture) with
the legend. Only what the seat's own view holds is read for its orders: a spectator and the
other side get no secret orders here, as in the view itself; the battle is read from the log's
public events only (its cards once revealed, never before).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from markupsafe import Markup

from engine.attila_wargame import targets
from engine.attila_wargame.board import Board
from engine.attila_wargame.game import WargameGame
from engine.core import Event
from engine.sentences import N_
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attila_wargame_panel import panel_facts
from service.pictures.attila_wargame_style import phase_names, round_name
from service.pictures.attila_wargame_units import web_counter
from service.store.record import GameRecord

#: The notes each side writes (engine/attila_wargame/notes.py), in the order the panel lists.
_OWN_NOTES = {"barbarian": ("traitor", "aetius"), "roman": ("suborned",)}
_NOTE_NAMES = {
    "traitor": "The traitor",
    "aetius": "Aetius's murder, from round",
    "suborned": "The suborned unit",
}
#: Every word the wargame's controller (static/games/attila_wargame/) shows (status lines,
#: buttons, tooltips, aria-labels), handed to it in the page's language as the board's
#: ``data-words`` (game.html); its ``say(key, values)`` fills the ``%(name)s`` placeholders.
#: Whole sentences, so a translator may reorder.
WORDS = {
    "full_screen": N_("Full screen"),
    "layers": N_("Map layers"),
    "zoc": N_("Zones of control"),
    "regions": N_("Regions"),
    "rivers": N_("Rivers"),
    "cities": N_("Cities"),
    "minimap": N_("Mini-map"),
    "attack_here": N_("%(place)s: attack"),
    "must_attack": N_("must attack: %(units)s"),
    "tap_attackers": N_("tap your attackers"),
    "orders_tap": N_("%(orders)s: tap a counter on the map"),
    "aetius_round": N_("Aetius: round %(round)s"),
    "carry_group": N_("Command units going along"),
    "goes_along": N_("%(unit)s: goes along (tap to leave it)"),
    "stays": N_("%(unit)s: stays (tap to take it along)"),
    "stops_at": N_("%(unit)s stops at %(hex)s"),
    "with_carried": N_("%(unit)s · with %(units)s (a dashed hex: where one stops short)"),
    "go_through": N_("%(hex)s: go through here (%(cost)s)"),
    "route": N_("%(march)s · tap a lit hex to go through it"),
    "route_undo": N_("%(march)s · tap a lit hex to go through it, Undo takes back a waypoint"),
    "not_through": N_("%(hex)s cannot be reached through %(via)s"),
}


def words() -> dict[str, str]:
    """WORDS in the spoken language, placeholders left for the wargame's controller to fill."""
    return {key: _(text) for key, text in WORDS.items()}


def panel(
    record: GameRecord,
    view: Mapping[str, Any] | None,
    seat: int | None,
    names: Sequence[str],
    entries: Sequence[tuple[int, Mapping[str, Any]]] = (),
) -> dict[str, Any] | None:
    """The status strip, the last battle's steps (from the log ``entries``) and, for a
    player, their secret orders; None before the game starts."""
    if view is None or record.state is None:
        return None
    game = cast(WargameGame, record.game)  # GAME_TYPE's game (checked above)
    rules = game.rules
    board = game.board
    state = game.load(record.state)
    status = targets.status(rules, state)
    waiting = sorted({d["seat"] for d in view["pending"] if 0 <= d["seat"] < len(names)})
    out: dict[str, Any] = {
        **status,
        "when": round_name(board, status["round"]),
        "phase_name": say_word(phase_names(board).get(status["phase"], "")),
        "step_name": _(game.step_names.get(status["step"], status["step"])),
        "waiting": [names[s] for s in waiting],
        "orders": None,
        "words": words(),
        # The map's layers drawn on demand (the wargame's controller): the zones of control, and the
        # counters moved in this movement phase (the view's own "moved", public).
        "layers": {
            "zoc": targets.zones(rules, state),
            "moved": {u: info["hex"] for u, info in view["units"].items() if info.get("moved")},
            # The last battle marked step by step (the controller), and its line under the strip.
            "battle": battle(board, entries, view),
        },
    }
    if seat is not None and 0 <= seat < len(view["sides"]):
        out["orders"] = _orders(view, view["sides"][seat])
    # The mailed picture's side panel in HTML (games/attila_wargame_panel.html), from the
    # spectators' view as the picture is: the same lines for every viewer.
    out["facts"] = panel_facts(board, game.view(state, None))
    out["legend_counters"] = _legend_counters(board)
    return out


def _legend_counters(board: Board) -> Markup:
    """Two counters as the map draws them, full strength and reduced, for the legend."""
    sample = {"people": "huns", "side": "barbarian", "combat": True, "hex": "", "mf": 5}
    faces = [
        web_counter(board, "HUN-7", {**sample, "cf": 5, "printed_cf": 5}, 15, 15),
        web_counter(board, "HUN-8", {**sample, "cf": 3, "printed_cf": 5}, 47, 15),
    ]
    drawn = "".join(faces).replace('id="unit-', 'id="legend-unit-').replace(' class="info"', "")
    return Markup(
        '<svg class="wg-legend-counters" width="96" height="48" viewBox="0 0 64 32" '
        'aria-hidden="true" font-family="DejaVu Sans, Arial, sans-serif">'
        f"{drawn}</svg>"
    )


def _orders(view: Mapping[str, Any], side: str) -> list[dict[str, str]]:
    """The seat's notes as written and whether each has fired, and its sealed card."""
    notes = view["notes"]
    out = []
    for key in _OWN_NOTES.get(side, ()):
        if key in notes["known"]:
            state = _("fired") if key in notes["fired"] else _("waiting")
            out.append(
                {"name": _(_NOTE_NAMES[key]), "value": str(notes["known"][key]), "state": state}
            )
    for holder in (view.get("battle"), view.get("council")):
        if holder and "own_card" in holder:
            out.append(
                {"name": _("Your sealed card"), "value": holder["own_card"], "state": holder["ref"]}
            )
    return out


#: The log entries a player makes: the first one after a battle is over ends its marks.
_ACTIONS = ("move", "sealed")
#: The battle's result codes (data: combat.result_codes) as the line says them.
_RESULTS = {
    "AR": N_("the attackers retreat"),
    "DR": N_("the defenders retreat"),
    "AE": N_("the attackers lose %(points)s each"),
    "DE": N_("the defenders lose %(points)s each"),
}


def battle(
    board: Any, entries: Sequence[tuple[int, Mapping[str, Any]]], view: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The last battle in the log, as numbered steps for the map and one line of text; None
    when there is none, or once the next player action after its end is in the log (the marks
    last until then: the rest of its combat phase, or the next phase's first move).

    Read from the public events only (those a spectator sees): the cards appear with the
    result (``battle_resolved``), never while they are sealed. Each step: ``n`` (its number on
    the map), ``kind`` (battle, result, loss, eliminated, retreat, blocked, advance),
    ``hex`` (where it is marked), ``from`` (a retreat's or advance's start) and ``text``."""
    start = _last_declared(entries)
    if start is None:
        return None
    units = view.get("units", {})
    steps: list[dict[str, Any]] = []
    head: dict[str, Any] = {}
    over = False
    for _version, entry in entries[start:]:
        if over and entry["kind"] in _ACTIONS:
            return None
        for raw in entry["events"]:
            event = Event.from_json(raw)
            if over or not event.visible_to(None):
                continue
            d = event.data
            if event.kind == "battle_declared":
                head = {"ref": d["ref"], "hex": d["target"], "column": d["column"]}
                steps.append(
                    _step(
                        "battle",
                        d["target"],
                        _(
                            "Battle at %(hex)s: %(attack)s : %(defence)s, odds %(column)s",
                            hex=d["target"],
                            attack=d["attack"],
                            defence=d["defence"],
                            column=d["column"],
                        ),
                        units=[*d["attackers"], *d["defenders"]],
                    )
                )
            elif event.kind == "command_units_overrun":
                head = {"ref": d["ref"], "hex": d["hex"], "column": ""}
                steps.append(
                    _step("battle", d["hex"], _("Battle at %(hex)s: overrun", hex=d["hex"]))
                )
            elif event.kind == "battle_resolved":
                result = str(d["result"])
                words = _(_RESULTS[result[:2]], points=result[2:])
                cards = _(
                    "%(attack_card)s against %(defence_card)s",
                    attack_card=_card_name(board, d["attack_card"]),
                    defence_card=_card_name(board, d["defence_card"]),
                )
                head["result"] = result
                steps.append(_step("result", head["hex"], f"{cards}: {words}"))
            elif event.kind == "strength_lost" and d["cf"] > 0:
                where = units.get(d["unit"], {}).get("hex", head["hex"])
                text = _("%(unit)s loses %(points)s", unit=d["unit"], points=d["points"])
                steps.append(_step("loss", where, text, unit=d["unit"], points=d["points"]))
            elif event.kind == "unit_removed" and d.get("hex"):
                text = _("%(unit)s eliminated", unit=d["unit"])
                steps.append(_step("eliminated", d["hex"], text, unit=d["unit"]))
            elif event.kind in ("retreated", "advanced"):
                text = (
                    _("%(unit)s retreats to %(hex)s", unit=d["unit"], hex=d["to"])
                    if event.kind == "retreated"
                    else _("%(unit)s advances to %(hex)s", unit=d["unit"], hex=d["to"])
                )
                kind = "retreat" if event.kind == "retreated" else "advance"
                # An older log's event has no "from": the arrow then starts at the battle.
                start_hex = d.get("from", head["hex"])
                steps.append(_step(kind, d["to"], text, unit=d["unit"], **{"from": start_hex}))
            elif event.kind == "retreat_blocked":
                where = units.get(d["unit"], {}).get("hex", head["hex"])
                text = _("%(unit)s cannot retreat", unit=d["unit"])
                steps.append(_step("blocked", where, text, unit=d["unit"]))
            elif event.kind == "battle_over":
                over = True
    if not steps:
        return None
    for n, step in enumerate(steps, 1):
        step["n"] = n
    line = steps[0]["text"]
    if len(steps) > 1:
        line += " \u2014 " + ", ".join(s["text"] for s in steps[1:])
    return {**head, "over": over, "steps": steps, "text": line}


def _last_declared(entries: Sequence[tuple[int, Mapping[str, Any]]]) -> int | None:
    """The index of the last entry that declares a battle (or overruns command units)."""
    for index in range(len(entries) - 1, -1, -1):
        kinds = {e["kind"] for e in entries[index][1]["events"]}
        if kinds & {"battle_declared", "command_units_overrun"}:
            return index
    return None


def _step(kind: str, where: str, text: str, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "hex": where, "text": text, **more}


def _card_name(board: Any, card: str) -> str:
    """A battle card by its English name (data: combat), in the page's language."""
    combat = board.raw["combat"]
    names = {c["id"]: c["en"] for c in (*combat["attack_cards"], *combat["defence_cards"])}
    return say_word(names.get(card, card))
