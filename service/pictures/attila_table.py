"""Attila's own pieces on the game page's table (service/kits/attila.py names ``pieces``): the
seat's hand as cards grouped by people, in their colour, and its action tiles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine.attila.board import Board
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attila import PEOPLE_FILL

#: Attila's action tiles, in the order the table shows them (used ones greyed).
ACTION_TILES = ("double_turn", "swap", "two_influence")


def pieces(board: Board, view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The seat's cards (one per people held, with its count) and its action tiles."""
    counts = Counter(view.get("hand") or [])
    cards = [
        {
            "pick": f"card:{p.id}",
            "id": p.id,
            "letter": p.letter,
            "name": say_word(p.name_en),
            "count": counts[p.id],
            "colour": PEOPLE_FILL.get(p.colour, "#888"),
        }
        for p in board.peoples
        if counts[p.id]
    ]
    mine = set(view["action_tiles"][seat])
    tiles = [
        {"pick": f"tile:{t}", "name": _(t.replace("_", " ")), "used": t not in mine}
        for t in ACTION_TILES
    ]
    return {"cards": cards, "tiles": tiles, "buildings": [], "stacks": []}
