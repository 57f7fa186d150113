"""Attika's map alone, as the web table draws it (the kit's ``Pictures.web``): the hexes, the
shrines, the buildings and the last move, with each building's name and each hex's ``q,r``
readable on a 390 px phone; the status, the seats, the supply and the legend are the table's
HTML panel beside it (``attika_table.panel``, from ``attika.panel_facts`` as the mailed
picture's panel). The mailed picture (``attika.render``) keeps them drawn.

The map is the mailed picture's (``attika.draw_map``) with its words larger: a building's name
and a coordinate at 16 units, so that a map of up to 7 hexes across (the first rounds' maps;
about 460 units), shown at a phone's width (about 360 CSS px), draws them at 12 CSS px. Its
informative words carry ``class="info"`` (the browser test measures them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from engine.attika.board import Board
from engine.core import Event
from service.pictures.attika import Labels, draw_map

#: The web table's words on the map: a name across its hex, the coordinate under it.
WEB = Labels(
    coordinate=16,
    coordinate_y=33,
    name=16,
    badge_w=70,
    badge_h=26,
    badge_y=0,
    glyph_y=24,
    info_coordinates=True,
)
MARGIN = 12


def render(
    board: Board,
    view: dict[str, Any],
    title: str = "Attika",
    *,
    names: Sequence[str] = (),
    events: Sequence[Event] = (),
    last_move: Sequence[str] = (),
    open_hexes: Sequence[str] = (),
) -> str:
    """The map of ``view`` (the spectators'), without the panel; ``names`` and ``last_move``
    are the panel's, taken for the same call as ``attika.render``."""
    del names, last_move
    drawn = draw_map(board, view, events, open_hexes, WEB, MARGIN, MARGIN)
    width, height = round(drawn.width), round(drawn.height + MARGIN)
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
            f"<title>{escape(title)}</title>",
            f'<rect width="{width}" height="{height}" fill="#dde8ec"/>',
            *drawn.parts,
            "</svg>",
        ]
    )
