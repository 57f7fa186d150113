"""Attila's own pieces on the game page's table (service/kits/attila.py names ``pieces``): the
seat's hand as cards grouped by people, in their colour, and its action tiles; the panels
beside the board."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from engine.attila.board import Board
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attila import panel_facts, seat_mark
from service.pictures.attila_map import PEOPLE_FILL
from service.store.record import GameRecord

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


def panel(
    record: GameRecord,
    view: Mapping[str, Any],
    seat: int | None,
    names: Sequence[str],
    entries: Sequence[tuple[int, Mapping[str, Any]]],
) -> dict[str, Any]:
    """The panels the mailed picture draws (century track, peoples' supply, scores, influence),
    for the table's HTML beside the board (games/attila_panel.html), from the same facts; each
    seat's shape as a small picture, as the board and the mails mark players."""
    del seat, entries
    board = record.game.board
    facts = panel_facts(board, dict(view), names)
    for one in facts["seats"]:
        one["mark"] = Markup(
            '<svg class="seat-mark" width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">'
            f"{seat_mark(one['seat'], 9, 9, 6)}</svg>"
        )
    return facts
