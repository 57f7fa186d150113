"""Attila's board alone, as the web table draws it (the kit's ``Pictures.web``): the provinces
as large boxes a thumb can tap, their names and stone counts readable on a 390 px phone; the
legend, scores, influence table and century track are the table's HTML panel beside it
(``attila_table.panel``), from the same view. The mailed picture (``attila.render``) keeps
them drawn.

The boxes are re-laid on a grid of four columns that follows the reconstructed layout's
geography (engine/attila/data/layout.json: north to south, west to east), so that the picture
is about as wide as it is tall: a phone shows it whole at its width, each box about 85 × 50 CSS
px, its words at 11.5 px. It is a schematic, not the printed map (docs/rules/attila.md).

Informative words carry ``class="info"`` (the browser test measures them); every lit place
has a marker (``lit-mark``) that the page's CSS shows only on a lit province, beside its
orange outline and tint, so that lit reads apart from a frontier's red northern band.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from engine.attila.board import Board
from engine.attila.touched import touched
from engine.core import Event
from service.common.i18n import say_word
from service.pictures import LAST_MOVE
from service.pictures.attila import FRONTIER, PEOPLE_FILL, ROMAN, borders

#: The provinces' places on the grid, row by row (north to south), four columns (west to
#: east); "" is open sea, "islands" Corsica and Sardinia (no stones).
GRID = (
    ("BRI", "BEL", "GER", "NOR"),
    ("LUG", "RAE", "PAN", "MOE"),
    ("AQU", "ITA", "DAL", "THR"),
    ("NAR", "ROM", "MAC", "ASI"),
    ("LUS", "TAR", "SIC", "GRA"),
    ("BAE", "islands", "", "CRE"),
    ("MAU", "NUM", "AFR", ""),
)
BOX_W, BOX_H = 180, 106
PITCH_X, PITCH_Y = 188, 114
MARGIN = 8
WIDTH = MARGIN + PITCH_X * len(GRID[0])
HEIGHT = MARGIN + PITCH_Y * len(GRID)
NAME_SIZE = 24
#: The neighbours' links under the boxes, wider than the mailed board's for the larger scale.
WEB_LAND_LINK = 'stroke="#a08a66" stroke-width="6"'
WEB_SEA_LINK = 'stroke="#3d7ea6" stroke-width="4" stroke-dasharray="10 6"'
COUNT_SIZE = 24
CHIP = 28
CHIPS_PER_ROW = 3


def centres() -> dict[str, tuple[int, int]]:
    """Each grid place's centre (provinces by id, and "islands")."""
    out = {}
    for row, ids in enumerate(GRID):
        for col, pid in enumerate(ids):
            if pid:
                out[pid] = (
                    MARGIN + PITCH_X * col + BOX_W // 2,
                    MARGIN + PITCH_Y * row + BOX_H // 2,
                )
    return out


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
    at = centres()
    marked = touched(events) & at.keys()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#cfe3ef"/>',
    ]
    parts += borders(board, at, WEB_LAND_LINK, WEB_SEA_LINK)
    parts.append(_islands(at["islands"]))
    parts += [_province(board, at[p.id], p.id, p.frontier, view) for p in board.provinces]
    parts += [_last_move_frame(at[pid], pid) for pid in sorted(marked)]
    parts.append("</svg>")
    return "\n".join(parts)


def _islands(centre: tuple[int, int]) -> str:
    x, y = centre
    return (
        f'<ellipse cx="{x - 30}" cy="{y - 14}" rx="14" ry="22" fill="#d9d2bf" stroke="#a99f86"/>'
        f'<ellipse cx="{x - 26}" cy="{y + 26}" rx="18" ry="24" fill="#d9d2bf" stroke="#a99f86"/>'
        f'<text x="{x}" y="{y - 8}" font-size="16" fill="#4f4a3e">Corsica</text>'
        f'<text x="{x + 2}" y="{y + 32}" font-size="16" fill="#4f4a3e">Sardinia</text>'
    )


def _province(
    board: Board, centre: tuple[int, int], pid: str, frontier: bool, view: dict[str, Any]
) -> str:
    x, y = centre
    left, top = x - BOX_W // 2, y - BOX_H // 2
    info = view["provinces"][pid]
    century = info["pacified"]
    fill = "#d8d4c8" if century else "#fbf6e8"
    name = say_word(board.provinces[board.province(pid).index].name)
    out = [
        f'<g id="province-{escape(pid)}">',
        f'<rect x="{left}" y="{top}" width="{BOX_W}" height="{BOX_H}" rx="10" fill="{fill}" '
        'stroke="#6d5d3f" stroke-width="2"/>',
    ]
    if frontier:
        # The start line along the province's northern edge: a band, not an outline.
        out.append(
            f'<path d="M{left + 2} {top + 10} v-2 q0 -6 6 -6 h{BOX_W - 16} q6 0 6 6 v2 z" '
            f'fill="{FRONTIER}"/>'
        )
    out.append(
        f'<text class="info" x="{left + 10}" y="{top + 36}" font-size="{NAME_SIZE}" '
        f'fill="#2d2416"{_squeezed(name)}>{escape(name)}</text>'
    )
    chips = _stone_chips(board, info["stones"])
    if century:
        chips.append(_century_chip(century))
    for k, chip in enumerate(chips):
        cx = left + 10 + 56 * (k % CHIPS_PER_ROW)
        cy = top + 44 + (CHIP + 4) * (k // CHIPS_PER_ROW)
        out.append(f'<g transform="translate({cx} {cy})">{chip}</g>')
    out.append(_lit_mark(left + BOX_W - 6, top + 6))
    out.append("</g>")
    return "".join(out)


def _squeezed(name: str) -> str:
    """A long name (Tarraconensis) narrowed to fit its box, its height kept."""
    room = BOX_W - 28
    return f' textLength="{room}" lengthAdjust="spacingAndGlyphs"' if len(name) > 10 else ""


def _stone_chips(board: Board, stones: dict[str, int]) -> list[str]:
    """One chip per people present: its colour, its letter (for who cannot tell colours) and
    its count."""
    out = []
    for people in board.peoples:
        count = stones.get(people.id, 0)
        if not count:
            continue
        colour = PEOPLE_FILL.get(people.colour, "#888")
        ink = "#1b1b1b" if people.colour in ("yellow",) else "#fff"
        out.append(
            f'<rect width="{CHIP}" height="{CHIP}" rx="4" fill="{colour}" stroke="#fff">'
            f"<title>{escape(say_word(people.name_en))}</title></rect>"
            f'<text class="info" x="{CHIP // 2}" y="{CHIP - 6}" font-size="{COUNT_SIZE - 1}" '
            f'font-weight="bold" fill="{ink}" text-anchor="middle">{people.letter}</text>'
            f'<text class="info" x="{CHIP + 3}" y="{CHIP - 5}" font-size="{COUNT_SIZE}" '
            f'fill="#2d2416">{count}</text>'
        )
    return out


def _century_chip(century: int) -> str:
    """A pacified province's century."""
    return (
        f'<rect width="48" height="{CHIP}" rx="4" fill="#5b4a2e"/>'
        f'<text class="info" x="24" y="{CHIP - 5}" font-size="{COUNT_SIZE - 1}" fill="#fff" '
        f'text-anchor="middle">{ROMAN.get(century, century)}</text>'
    )


def _lit_mark(x: int, y: int) -> str:
    """The lit marker (hidden but on a lit province, by the page's CSS): an orange disc with a
    white ring and dot, on the box's north-east corner."""
    return (
        f'<g class="lit-mark" aria-hidden="true"><circle cx="{x}" cy="{y}" r="16" '
        'fill="#e07b00" stroke="#fff" stroke-width="3"/>'
        f'<circle cx="{x}" cy="{y}" r="5" fill="#fff"/></g>'
    )


def _last_move_frame(centre: tuple[int, int], pid: str) -> str:
    x, y = centre
    return (
        f'<rect id="last-move-{escape(pid)}" x="{x - BOX_W // 2 - 3}" y="{y - BOX_H // 2 - 3}" '
        f'width="{BOX_W + 6}" height="{BOX_H + 6}" rx="12" fill="none" '
        f'stroke="{LAST_MOVE}" stroke-width="5" pointer-events="none"/>'
    )
