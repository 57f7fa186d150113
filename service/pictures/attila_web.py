"""Attila's board alone, as the web table draws it (the kit's ``Pictures.web``): the map of
``attila_map``, its provinces regions a thumb can tap, their names and stone counts readable
on a 390 px phone; the legend, scores, influence table and century track are the table's HTML
panel beside it (``attila_table.panel``), from the same view. The mailed picture
(``attila.render``) draws the same map with those panels drawn beside and under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from engine.attila.board import Board
from engine.core import Event
from service.pictures import attila_map


def render(
    board: Board,
    view: dict[str, Any],
    title: str = "Attila",
    *,
    names: Sequence[str] = (),
    events: Sequence[Event] = (),
    last_move: Sequence[str] = (),
) -> str:
    """The board of ``view`` (the spectators'), without panels; ``names`` and ``last_move``
    are the panel's and the page's, taken for the same call as ``attila.render``."""
    del names, last_move
    width, height = attila_map.width(), attila_map.height()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        *attila_map.draw(board, view, events, lit_marks=True),
        "</svg>",
    ]
    return "\n".join(parts)
