"""Attika's resource cards in the table's hand carry the board's colour and symbol for their
landscape (service/pictures/attika.py's legend): an inline SVG with presentation attributes
only, since the pages' CSP forbids inline style."""

from __future__ import annotations

from engine.attika.board import load_board
from service.pictures.attika import GLYPH_INK, LAND_FILL
from service.pictures.attika_table import pieces


def test_each_resource_card_has_its_landscape_colour_and_symbol() -> None:
    board = load_board()
    hand = {r.id: 1 for r in board.resources}
    view = {"seats": [{"storage": [], "stacks": []}], "hand": hand}
    cards = pieces(board, view, 0)["cards"]
    assert [c["id"] for c in cards] == list(LAND_FILL)
    icons = [str(c["icon"]) for c in cards]
    for card, icon in zip(cards, icons, strict=True):
        assert icon.startswith("<svg") and icon.endswith("</svg>")
        assert f'fill="{LAND_FILL[card["id"]]}"' in icon
        assert GLYPH_INK[card["id"]] in icon
        assert "style" not in icon and "<script" not in icon
    assert len(set(icons)) == len(icons), "each resource looks its own"
