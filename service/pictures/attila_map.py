"""Attila's board drawn as a map, the same for the web table (``attila_web``) and the mailed
picture (``attila``, which adds its panels beside and under it).

The provinces are the regions of the reconstructed map (``attila_regions``): land neighbours
share a border, the sea lies between the others, and the sea arrows are dashed blue lines
across the water. The start line is a red band along the frontier provinces' border with
Germania Magna; a band of desert (Libya Deserta) closes the map in the south. Each province
carries its name (a long one broken onto two or three lines where its box has the height,
condensed where it is still too wide), one chip per people present (the people's colour, its
letter for who cannot tell colours, and its count) and, once pacified, its century, in its
inner box (a crowded province's chips closed up: ``chip_places``), at sizes readable on a
390 px phone (the web board's 768 units shown about 370 px wide: 24 units are 11.5 CSS px).

Informative words carry ``class="info"`` (the browser test measures them). On the web every
province has a lit marker (``lit-mark``) that the page's CSS shows only when it is lit, beside
its orange outline and tint (but a crowded province whose chips took the marker's corner);
a picture without the page's CSS (a mail) leaves the markers out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from functools import cache, partial
from typing import Any
from xml.sax.saxutils import escape

from PIL import ImageFont

from engine.attila.board import Board, People
from engine.attila.touched import touched
from engine.core import Event
from service.common.i18n import say_word
from service.pictures import LAST_MOVE, svg_points
from service.pictures.attila_regions import Box, Point, Regions, nearest, regions
from service.pictures.png import DEJAVU_DIR

PEOPLE_FILL = {
    "blue": "#2f6fd6",
    "yellow": "#e9c229",
    "black": "#2b2b2b",
    "green": "#2f9a46",
    "purple": "#8a3fb8",
    "red": "#d23a2f",
}
FRONTIER = "#b3261e"
ROMAN = {4: "IV", 5: "V", 6: "VI", 7: "VII"}
SEA_FILL = "#cfe3ef"
LAND_FILL = "#fbf6e8"
PACIFIED_FILL = "#d8d4c8"
SCENERY_FILL = "#d9d2bf"
OUTLINE = "#6d5d3f"
#: Germania Magna, beyond the start line: the region whose border with a province is the line.
BEYOND = "barbaricum"
SEA_LINK = 'stroke="#3d7ea6" stroke-width="5" stroke-dasharray="10 6" stroke-linecap="round"'
NAME_SIZE = 24
COUNT_SIZE = 24
CHIP = 26
CHIP_PITCH_X = 47
CHIP_PITCH_Y = 29
#: Where the chips start under the name, and the lit marker's radius (in the inner box's
#: south-east corner, kept clear of chips).
CHIPS_TOP = 28
#: Where a crowded province's closed-up chips start: just under the name's line.
CLOSE_TOP = NAME_SIZE + 2
#: A chip's count beside it (one digit: a province holds at most five stones).
COUNT_WIDTH = 17
MARK_R = 13
#: A name too long for its box is written condensed, and narrowed to fit if still too long:
#: the faces' files, and about how wide they write a character (in ems) without them.
REGULAR_FACE = "DejaVuSans.ttf"
CONDENSED_FACE = "DejaVuSansCondensed.ttf"
EM_WIDTH = 0.6
CONDENSED_EM_WIDTH = 0.5
CONDENSED = "DejaVu Sans Condensed, Arial Narrow, sans-serif"
#: A long name is broken onto at most this many lines, where its box has the height for them
#: over three chips.
MAX_NAME_LINES = 3
#: How far a broken name's lines stand apart (a little under the names' size: no letter of
#: DejaVu at that size reaches from one line into the next).
NAME_LEADING = 22


def width() -> int:
    return regions().width


def height() -> int:
    return regions().height


def draw(
    board: Board, view: dict[str, Any], events: Sequence[Event] = (), *, lit_marks: bool
) -> list[str]:
    """The map of ``view`` (the spectators') as SVG elements, the last move's provinces
    outlined; ``lit_marks`` for the web table's page (whose CSS shows a lit one)."""
    shapes = regions()
    ids = {p.id for p in board.provinces}
    parts = [f'<rect width="{shapes.width}" height="{shapes.height}" fill="{SEA_FILL}"/>']
    parts += [_scenery(shapes, rid, name) for rid, name in shapes.scenery.items()]
    parts += [_sea_name(name, at, turn) for name, at, turn in shapes.seas]
    parts += _sea_links(board)
    parts += [_province(board, shapes, p.id, view, lit_marks) for p in board.provinces]
    parts += [_last_move_outline(pid) for pid in sorted(touched(events) & ids)]
    return parts


def _scenery(shapes: Regions, rid: str, name: str) -> str:
    """A region without stones, named in small type (decoration, not information): along a
    narrow island, across a wide land."""
    left, top, w, h = shapes.inner[rid]
    x, y = left + w / 2, top + h / 2
    turn = f' transform="rotate(-90 {x:g} {y:g})"' if h > w else ""
    size = 22 if w > 200 else 13
    return (
        f'<polygon points="{_outline(rid)}" fill="{SCENERY_FILL}" '
        f'stroke="#a99f86" stroke-width="1.5"/>'
        f'<text x="{x:g}" y="{y + size / 3:g}" font-size="{size}" font-style="italic" '
        f'fill="#6b6455" text-anchor="middle"{turn}>{escape(name)}</text>'
    )


def _sea_name(name: str, at: Point, turn: float) -> str:
    """A sea's name on the water, in small italics (decoration, not information)."""
    x, y = at
    rotate = f' transform="rotate({turn:g} {x:g} {y:g})"' if turn else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="16" font-style="italic" fill="#4f7d9c" '
        f'text-anchor="middle" letter-spacing="1"{rotate}>{escape(name)}</text>'
    )


def _sea_links(board: Board) -> list[str]:
    """Each sea arrow across the water between its two provinces' nearest corners."""
    return [_sea_link(board.provinces[a].id, board.provinces[b].id) for a, b in board.sea_arrows]


@cache
def _sea_link(one: str, other: str) -> str:
    shapes = regions().shapes
    (x1, y1), (x2, y2) = nearest(shapes[one], shapes[other])
    return f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" {SEA_LINK}/>'


@cache
def _outline(rid: str) -> str:
    """A region's outline as SVG ``points``."""
    return svg_points(regions().shapes[rid])


def _province(
    board: Board, shapes: Regions, pid: str, view: dict[str, Any], lit_marks: bool
) -> str:
    info = view["provinces"][pid]
    century = info["pacified"]
    box = shapes.inner[pid]
    left, top, w, h = box
    fill = PACIFIED_FILL if century else LAND_FILL
    name = say_word(board.provinces[board.province(pid).index].name)
    out = [
        f'<g id="province-{escape(pid)}">',
        f'<polygon points="{_outline(pid)}" fill="{fill}" stroke="{OUTLINE}" '
        'stroke-width="2" stroke-linejoin="round"/>',
    ]
    start_line = shapes.borders.get(frozenset((pid, BEYOND)), [])
    if start_line:
        out.append(_start_line(start_line))
    lines = name_lines(name, box)
    out += [
        f'<text class="info" x="{left:g}" y="{top + NAME_SIZE - 2 + NAME_LEADING * row:g}" '
        f'font-size="{NAME_SIZE}" fill="#2d2416"{_squeezed(line, w)}>{escape(line)}</text>'
        for row, line in enumerate(lines)
    ]
    chips = _stone_chips(board, info["stones"])
    if century:
        chips.append(partial(_century_chip, century))
    places = chip_places(box, len(chips), len(lines))
    for (x, y), chip in zip(places, chips, strict=True):
        out.append(chip(x, y))
    if lit_marks and marker_clear(box, places):
        out.append(_lit_mark(left + w - MARK_R, top + h - MARK_R))
    out.append("</g>")
    return "".join(out)


def _start_line(segments: list[list[Point]]) -> str:
    """The red band of the start line along a frontier province's border with Germania
    Magna."""
    d = " ".join("M" + " L".join(f"{x:g} {y:g}" for x, y in segment) for segment in segments)
    return (
        f'<path d="{d}" fill="none" stroke="{FRONTIER}" stroke-width="9" stroke-linecap="round"/>'
    )


@cache
def name_lines(name: str, box: Box) -> tuple[str, ...]:
    """A province's name as the map writes it in its inner box: on one line, or broken (at a
    space, or after a slash between words) onto as many lines as the box has the height for,
    whichever needs the least condensing (the fewest lines of those that need the same)."""
    room = box[2]
    best: tuple[str, ...] = (name,)
    for count in range(2, MAX_NAME_LINES + 1):
        broken = _balanced(name, count) if _has_height(box, count) else None
        if broken and name_fit(broken, room) > name_fit(best, room):
            best = broken
    return best


def _has_height(box: Box, lines: int) -> bool:
    """Whether a box holds a name of ``lines`` lines over three chips."""
    _left, top, _w, h = box
    return all(y + CHIP <= top + h for _x, y in chip_places(box, 3, lines))


def name_fit(lines: Sequence[str], room: float) -> float:
    """How far the widest of ``lines`` is condensed to fit ``room``: 1 where the regular face
    fits, else the condensed face's fraction (its own width, narrowed further if need be)."""
    regular = max(_name_width(line, REGULAR_FACE) for line in lines)
    if regular <= room:
        return 1.0
    condensed = max(_name_width(line, CONDENSED_FACE) for line in lines)
    return min(room, condensed) / regular


def _balanced(name: str, count: int) -> tuple[str, ...] | None:
    """``name`` broken into ``count`` lines with the narrowest widest line, or None where it
    has too few places to break."""
    pieces = _pieces(name)
    if len(pieces) < count:
        return None
    ways = [
        tuple("".join(pieces[a:b]).strip() for a, b in itertools.pairwise((0, *cuts, len(pieces))))
        for cuts in itertools.combinations(range(1, len(pieces)), count - 1)
    ]
    return min(ways, key=lambda way: max(_name_width(line, REGULAR_FACE) for line in way))


def _pieces(name: str) -> list[str]:
    """The name cut where a line may break: at a space (so before a parenthesis) and after a
    slash between words."""
    return [piece for piece in re.split(r"(?<= )|(?<=/)(?=\S)", name) if piece]


def _squeezed(name: str, room: float) -> str:
    """A name too long for its box (Narbonensis in a narrow one) written condensed, narrowed
    further if it still does not fit, its height kept (where the browser has no condensed
    face, the regular one narrowed to the condensed length)."""
    if _name_width(name, REGULAR_FACE) <= room:
        return ""
    length = min(room, _name_width(name, CONDENSED_FACE))
    return f' font-family="{CONDENSED}" textLength="{length:.1f}" lengthAdjust="spacingAndGlyphs"'


@cache
def _name_width(name: str, face: str) -> float:
    """How long ``face`` writes ``name`` at the names' size: measured from the font file the
    PNG renderer loads (service/pictures/png.py), estimated where it is missing."""
    try:
        font = ImageFont.truetype(str(DEJAVU_DIR / face), NAME_SIZE)
    except OSError:
        em = CONDENSED_EM_WIDTH if face == CONDENSED_FACE else EM_WIDTH
        return len(name) * em * NAME_SIZE
    return float(font.getlength(name))


def chip_places(box: Box, count: int, lines: int = 1) -> list[Point]:
    """Where ``count`` chips go in an inner box: rows under the name (of ``lines`` lines), as
    many a row as the box is wide, the lit marker's corner left clear. Where they would run
    below the box (a crowded province: four peoples and more), the rows close up (a chip's
    height apart, their white edges still parting them, the first just under the name's
    line), and then take the marker's corner too (``marker_clear``); rows run on below a box
    too small even so."""
    _left, top, _w, h = box
    tries = ((CHIPS_TOP, CHIP_PITCH_Y, True), (CLOSE_TOP, CHIP, True), (CLOSE_TOP, CHIP, False))
    for first, pitch, clear in tries:
        places = _chip_rows(box, count, first + NAME_LEADING * (lines - 1), pitch, clear)
        if all(y + CHIP <= top + h for _x, y in places):
            return places
    return places


def _chip_rows(box: Box, count: int, first: float, pitch: float, clear: bool) -> list[Point]:
    """``count`` chips in rows ``pitch`` apart from ``first`` under the box's top, the
    marker's corner kept ``clear`` or not."""
    left, top, w, h = box
    per_row = 1 + max(0, int((w - CHIP - COUNT_WIDTH) // CHIP_PITCH_X))
    out: list[Point] = []
    slot = 0
    while len(out) < count:
        col, row = slot % per_row, slot // per_row
        x, y = CHIP_PITCH_X * col, first + pitch * row
        slot += 1
        if clear and _on_marker(box, left + x, top + y) and y < h:
            continue
        out.append((left + x, top + y))
    return out


def _on_marker(box: Box, x: float, y: float) -> bool:
    """Whether a chip (and its count) at ``x, y`` covers the lit marker's corner of ``box``."""
    left, top, w, h = box
    return x + CHIP + COUNT_WIDTH > left + w - 2 * MARK_R and y + CHIP > top + h - 2 * MARK_R


def marker_clear(box: Box, places: Sequence[Point]) -> bool:
    """Whether no chip covers the lit marker's corner (a crowded province's chips may take
    it: the lit province's outline and tint still mark it)."""
    return not any(_on_marker(box, x, y) for x, y in places)


#: A chip drawn at a place (its top left corner).
Chip = Callable[[float, float], str]


def _stone_chips(board: Board, stones: dict[str, int]) -> list[Chip]:
    """One chip per people present: its colour, its letter (for who cannot tell colours) and
    its count."""
    return [
        partial(_stone_chip, people, count)
        for people in board.peoples
        if (count := stones.get(people.id, 0))
    ]


def _stone_chip(people: People, count: int, x: float, y: float) -> str:
    colour = PEOPLE_FILL.get(people.colour, "#888")
    ink = "#1b1b1b" if people.colour in ("yellow",) else "#fff"
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{CHIP}" height="{CHIP}" rx="4" fill="{colour}" '
        f'stroke="#fff"><title>{escape(say_word(people.name_en))}</title></rect>'
        f'<text class="info" x="{x + CHIP / 2:g}" y="{y + CHIP - 6:g}" '
        f'font-size="{COUNT_SIZE - 1}" font-weight="bold" fill="{ink}" '
        f'text-anchor="middle">{people.letter}</text>'
        f'<text class="info" x="{x + CHIP + 2:g}" y="{y + CHIP - 5:g}" '
        f'font-size="{COUNT_SIZE}" fill="#2d2416">{count}</text>'
    )


def _century_chip(century: int, x: float, y: float) -> str:
    """A pacified province's century."""
    return (
        f'<rect x="{x:g}" y="{y:g}" width="48" height="{CHIP}" rx="4" fill="#5b4a2e"/>'
        f'<text class="info century" x="{x + 24:g}" y="{y + CHIP - 5:g}" '
        f'font-size="{COUNT_SIZE - 1}" '
        f'fill="#fff" text-anchor="middle">{ROMAN.get(century, century)}</text>'
    )


def _lit_mark(x: float, y: float) -> str:
    """The lit marker (hidden but on a lit province, by the page's CSS): an orange disc with a
    white ring and dot."""
    return (
        f'<g class="lit-mark" aria-hidden="true"><circle cx="{x:g}" cy="{y:g}" r="{MARK_R}" '
        'fill="#e07b00" stroke="#fff" stroke-width="3"/>'
        f'<circle cx="{x:g}" cy="{y:g}" r="5" fill="#fff"/></g>'
    )


def _last_move_outline(pid: str) -> str:
    return (
        f'<polygon id="last-move-{escape(pid)}" points="{_outline(pid)}" '
        f'fill="none" stroke="{LAST_MOVE}" stroke-width="6" stroke-linejoin="round" '
        'pointer-events="none"/>'
    )
