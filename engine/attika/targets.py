"""Where each legal Attika action is chosen on the web table: what the player picks
first (a building of the storage board or the one just revealed, a stack, the map tile, a
button) and the hex it goes to. Data only, as engine/attila/targets.py: the page lights up what
the engine listed and decides nothing.

``target(action)`` answers ``{"pick", "target", "cards", "rotation"}``: ``pick`` names the
control (``building:temple``, ``stack:2``, ``tile``, ``end``…), ``target`` the hex's element id
in the board picture (``hex-2,-1``) or None, ``rotation`` a map tile's turn at that hex.

A map tile goes where the map is not drawn yet: ``open_hexes`` names the empty places the
picture draws for the table (each legal centre and the hexes round it), and ``tile_shape`` the
drawn tile's seven landscapes per rotation as offsets from its centre, so that the page can
preview it in place by filling those places (adding offsets; the engine chose the centres).
``costs`` says what each legal build costs on its hex, shown when the hex is pointed at.
"""

from __future__ import annotations

from typing import Any

from engine.attika.actions import format_hex
from engine.attika.base import Quote
from engine.attika.board import Board
from engine.attika.rules import Rules
from engine.attika.state import AttikaState
from engine.sentences import N_

#: The events that show what nobody has seen yet: a building turned up from a stack, a map
#: tile drawn from the pile, cards drawn from the deck (or the discards shuffled into it). A
#: part that brings one is not tried before it is sent (service/domain/games/play.py
#: ``staged_record``): the page sends it with Confirm, with the parts before it.
DRAWS = frozenset({"building_revealed", "tile_drawn", "cards_drawn", "discards_reshuffled"})

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


def open_hexes(board: Board, actions: list[dict[str, Any]]) -> list[str]:
    """Every hex a legal map tile placement would cover ("q,r"), for the picture to draw."""
    out: set[str] = set()
    for action in actions:
        if action["type"] == "tile":
            centre = (action["hex"][0], action["hex"][1])
            out.update(format_hex(h) for h in (centre, *board.neighbours(centre)))
    return sorted(out)


def tile_shape(board: Board, view: dict[str, Any]) -> list[list[list[Any]]] | None:
    """The drawn map tile per rotation: its seven hexes as ``[dq, dr, landscape or None]``
    from the centre (board.tile_hexes at 0,0), or None when no tile is drawn."""
    drawn = view.get("drawn_tile")
    if not drawn:
        return None
    tile = board.tile(drawn).index
    ids = [r.id for r in board.resources]
    return [
        [
            [q, r, ids[kind] if kind >= 0 else None]
            for (q, r), kind in board.tile_hexes(tile, (0, 0), k)
        ]
        for k in range(len(board.directions))
    ]


def costs(
    rules: Rules, state: AttikaState, seat: int, actions: list[dict[str, Any]]
) -> list[str | None]:
    """What each legal build costs on its hex, in the notation's letters: "2 W, 1 F + 1 any",
    "free"; None for any other action."""
    board = rules.board
    builds = [
        (board.building(a["building"]).index, (a["hex"][0], a["hex"][1]))
        for a in actions
        if a["type"] == "build"
    ]
    quotes = iter(rules.quotes(state, seat, builds))
    return [_cost_text(board, next(quotes)) if a["type"] == "build" else None for a in actions]


def _cost_text(board: Board, quote: Quote) -> str:
    if quote.free:
        return "free"
    parts = [f"{n} {board.resources[i].letter}" for i, n in enumerate(quote.need) if n]
    text = ", ".join(parts)
    if quote.any:
        text = f"{text} + {quote.any} any" if text else f"{quote.any} any"
    return text or "free"
