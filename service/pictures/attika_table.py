"""Attika's own pieces on the game page's table (service/kits/attika.py names ``pieces``,
``tile_preview`` and ``panel``): the storage board's buildings, the stacks, the building
revealed, the resource cards in hand, the drawn map tile in the picture's colours, and the
panel beside the map."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from engine.attika import targets
from engine.attika.board import Board
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attika import (
    BLANK_FILL,
    COORDINATES,
    LAND_FILL,
    RECONSTRUCTED,
    panel_facts,
    resource_icon,
)
from service.store.record import GameRecord


def pieces(board: Board, view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The seat's buildings (the one revealed first), stacks and resource cards."""
    own = view["seats"][seat]
    names = {b.id: b for b in board.buildings}

    def building(bid: str, where: str) -> dict[str, Any]:
        b = names[bid]
        cost = ", ".join(f"{n} {board.resources[i].id}" for i, n in enumerate(b.cost) if n)
        return {
            "pick": f"building:{bid}",
            "name": say_word(b.name_en),
            "cost": cost,
            "where": where,
        }

    buildings = [building(bid, "storage") for bid in own.get("storage", [])]
    if view.get("revealed"):
        buildings.insert(0, building(view["revealed"]["building"], "revealed"))
    stacks = [
        {"pick": f"stack:{i + 1}", "name": _("Stack %(n)s", n=i + 1), "count": n}
        for i, n in enumerate(own.get("stacks", []))
    ]
    hand = view.get("hand") or {}
    cards = [
        {
            "pick": f"resource:{res}",
            "id": res,
            "letter": res[:1].upper(),
            "name": say_word(res),
            "count": n,
            "colour": LAND_FILL.get(res, BLANK_FILL),
            # The board's own symbol for it (built here from numbers and colours: safe).
            "icon": Markup(resource_icon(board, res)),
        }
        for res, n in (hand.items() if isinstance(hand, dict) else [])
        if n
    ]
    return {"cards": cards, "tiles": [], "buildings": buildings, "stacks": stacks}


def tile_preview(board: Board, view: Mapping[str, Any]) -> list[list[list[Any]]] | None:
    """The drawn map tile's hexes per rotation (``targets.tile_shape``) with the fill the
    picture gives each landscape; None when no tile is drawn."""
    shape = targets.tile_shape(board, dict(view))
    if shape is None:
        return None
    return [[[q, r, LAND_FILL.get(land or "", BLANK_FILL)] for q, r, land in rot] for rot in shape]


def panel(
    record: GameRecord,
    view: Mapping[str, Any],
    seat: int | None,
    names: Sequence[str],
    entries: Sequence[tuple[int, Mapping[str, Any]]],
) -> dict[str, Any]:
    """The panel the mailed picture draws beside its map (status, supply, each seat, legend),
    for the table's HTML (games/attika_panel.html), from the same facts and the spectators'
    view (whoever looks: nothing hidden in it; ``view`` is the seat's, not read). The last
    move is the page's own list of recent moves."""
    del view, seat, entries
    game = record.game
    public = game.view(game.load(record.state or {}), None)
    facts = panel_facts(game.board, public, names, ())
    board = game.board
    facts["legend"] = [
        {"icon": Markup(resource_icon(board, r.id)), "text": f"{r.letter} · {say_word(r.id)}"}
        for r in board.resources
    ]
    facts["notes"] = [_(COORDINATES), _(RECONSTRUCTED)]
    return facts
