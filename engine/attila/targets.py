"""Where each legal Attila action is chosen on the web table: what the player picks
first (a card of the hand, an action tile, a button) and the board place it goes to.

Data only, like chessground's ``movable.dests``: the server sends it beside the legal actions
it computed, and the page lights the places up. No rule is decided here or in the browser: an
action is only ever one the engine listed.

``target(action)`` takes an action object (``Notation.to_json``) and answers
``{"pick", "target", "cards", "label"}``: ``pick`` names the control to select (``card:huns``,
``tile:swap``, ``influence``…), ``target`` the board element's id (``province-ITA``) or None,
``cards`` the hand cards to tap for a choice of several cards (conflict, swap) or None.
"""

from __future__ import annotations

from typing import Any

from engine.attila.board import Board
from engine.sentences import N_

#: The events that show what nobody has seen yet: cards drawn from the deck (a swap's), or
#: the discards shuffled into it. A part that brings one is not tried before it is sent
#: (service/domain/games/play.py ``staged_record``): the page sends it with Confirm.
DRAWS = frozenset({"cards_drawn", "discards_reshuffled"})

#: What the controls without a card or tile say (translated by the page).
PICK_LABELS = {
    "influence": N_("Take the influence"),
    "waive": N_("Waive the influence"),
    "commit": N_("Lay cards in the conflict"),
    "end": N_("End the turn"),
    "tile:double_turn": N_("Double turn"),
    "tile:swap": N_("Swap cards"),
    "tile:two_influence": N_("Two influence"),
}


def target(board: Board, action: dict[str, Any]) -> dict[str, Any]:
    kind = action["type"]
    out: dict[str, Any] = {"pick": kind, "target": None, "cards": None}
    match kind:
        case "play":
            out |= {"pick": f"card:{action['people']}", "target": f"province-{action['province']}"}
        case "waive":
            out["target"] = f"province-{action['province']}" if "province" in action else None
        case "commit":
            out["cards"] = list(action["cards"])
        case "swap":
            out |= {"pick": "tile:swap", "cards": list(action["cards"])}
        case "double":
            out["pick"] = "tile:double_turn"
        case "boost":
            out["pick"] = "tile:two_influence"
        case "discard":
            out["pick"] = f"card:{action['people']}"
    return out


def places(board: Board, view: dict[str, Any]) -> dict[str, str]:
    """Each province's accessible name as the table reads it: "Italia: 2 Huns, 1 Goths"."""
    out = {}
    for province in board.provinces:
        stones = view["provinces"][province.id]["stones"]
        counts = [f"{stones[p.id]} {p.name_en}" for p in board.peoples if stones.get(p.id, 0)]
        out[f"province-{province.id}"] = f"{province.name}: {', '.join(counts) or 'empty'}"
    return out
