"""Where each legal Attika action is chosen on the web table (issue 32): what the player picks
first (a building of the storage board or the one just revealed, a stack, the map tile, a
button) and the hex it goes to. Data only, as engine/attila/targets.py: the page lights up what
the engine listed and decides nothing.

``target(action)`` answers ``{"pick", "target", "cards", "rotation"}``: ``pick`` names the
control (``building:temple``, ``stack:2``, ``tile``, ``end``…), ``target`` the hex's element id
in the board picture (``hex-2,-1``) or None, ``rotation`` a map tile's turn at that hex.
"""

from __future__ import annotations

from typing import Any

from engine.attika.board import Board
from engine.sentences import N_

PICK_LABELS = {
    "store": N_("Put it on the storage board"),
    "amphora": N_("Spend an amphora"),
    "draw": N_("Turn the actions left into cards"),
    "end": N_("End the turn"),
    "tile": N_("Place the map tile"),
}


def target(board: Board, action: dict[str, Any]) -> dict[str, Any]:
    kind = action["type"]
    out: dict[str, Any] = {"pick": kind, "target": None, "cards": None}
    match kind:
        case "reveal":
            out["pick"] = f"stack:{action['stack']}"
        case "build":
            q, r = action["hex"]
            out |= {"pick": f"building:{action['building']}", "target": f"hex-{q},{r}"}
        case "tile":
            q, r = action["hex"]
            out |= {"target": f"hex-{q},{r}", "rotation": action["rotation"]}
    return out


def places(board: Board, view: dict[str, Any]) -> dict[str, str]:
    """Each drawn hex's accessible name: "hex 2,-1: forest"."""
    out = {}
    for cell in view.get("map", []) if isinstance(view.get("map"), list) else []:
        land = cell.get("landscape") or "empty"
        out[f"hex-{cell['hex']}"] = f"hex {cell['hex']}: {land}"
    return out
