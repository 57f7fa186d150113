"""Marks laid over the wargame's ground: the devastated hexes' VT and VP markers, the battle in
progress (a red ring round its target, arrows from the attackers), the hexes the last move
touched; and the crop round the last move that mails attach beside the whole map.

The last move's ring round a unit is drawn with the unit (attila_wargame_units.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.attila_wargame.board import Board
from engine.attila_wargame.touched import touched, touched_units
from engine.core import Event
from service.pictures import LAST_MOVE, svg_points
from service.pictures.attila_wargame_map import HEADER, Frame, H, R, hex_corners
from service.pictures.attila_wargame_style import CONDENSED, PERM_MARK, TEMP_MARK

#: The overview's frame round the mail's crop: near black on a white halo, unlike every fill.
OUTLINE = "#111111"


@dataclass(frozen=True)
class Marks:
    """What the last move touched: hex labels and unit ids."""

    hexes: frozenset[str]
    units: frozenset[str]


def crop_box(
    board: Board,
    view: dict[str, Any],
    events: Sequence[Event],
    margin: int = 3,
    largest: tuple[float, float] | None = None,
) -> tuple[float, float, float, float] | None:
    """The viewBox (x, y, width, height) around the hexes the events touched (with the
    hexes of the units they name), ``margin`` hexes round them; None when they touched none.
    ``largest`` (width, height): the crop is never bigger; when the touched hexes spread
    wider, it shows the cluster of most of them (the later ones win a tie), at least one hex
    of margin round them."""
    hexes = _touched_hexes(board, view, events)
    if not hexes:
        return None
    f = Frame(board)
    points = [f.at[board.index_of_label[h]] for h in hexes]
    if largest is not None:
        points = _cluster(points, largest[0] - 2 * (R + H), largest[1] - 2 * (R + H))
    pad = margin * 2 * H + R
    left = max(0.0, min(x for x, _ in points) - pad)
    top = max(float(HEADER), min(y for _, y in points) - pad)
    right = min(f.width, max(x for x, _ in points) + pad)
    bottom = min(f.height, max(y for _, y in points) + pad)
    # Never narrower than 3:2, so the crop reads at mail width like a map, not a strip.
    if right - left < 1.5 * (bottom - top):
        grow = (1.5 * (bottom - top) - (right - left)) / 2
        left, right = max(0.0, left - grow), min(f.width, right + grow)
    if largest is not None:
        left, right = _within(left, right, largest[0], 0.0, f.width)
        top, bottom = _within(top, bottom, largest[1], float(HEADER), f.height)
    return left, top, right - left, bottom - top


def _touched_hexes(board: Board, view: dict[str, Any], events: Sequence[Event]) -> list[str]:
    """The hexes the events name, then those of the units they name, in the events' order
    (latest last), each once."""
    found: dict[str, None] = {}
    for event in events:
        found.update(dict.fromkeys(sorted(touched(board, [event]))))
        units = sorted(touched_units([event]))
        found.update(dict.fromkeys(view["units"][u]["hex"] for u in units if u in view["units"]))
    return list(found)


def _cluster(
    points: list[tuple[float, float]], width: float, height: float
) -> list[tuple[float, float]]:
    """The most ``points`` (oldest first) that a ``width`` x ``height`` window holds; of
    windows holding as many, the one holding the latest point. Windows are tried with their
    left edge on a point's x and their top edge on a point's y (an optimal window can always
    be moved there), so at most n² windows of n points."""
    best: list[tuple[float, float]] = points
    best_key: tuple[int, int] | None = None
    for left in sorted({x for x, _ in points}):
        for top in sorted({y for _, y in points}):
            inside = [
                (i, p)
                for i, p in enumerate(points)
                if left <= p[0] <= left + width and top <= p[1] <= top + height
            ]
            key = (len(inside), max(i for i, _ in inside) if inside else -1)
            if best_key is None or key > best_key:
                best_key, best = key, [p for _, p in inside]
    return best


def _within(
    low: float, high: float, size: float, floor: float, ceiling: float
) -> tuple[float, float]:
    """``low``-``high`` cut to at most ``size`` round its middle, kept within ``floor`` and
    ``ceiling``."""
    if high - low <= size:
        return low, high
    low = (low + high - size) / 2
    low = max(floor, min(low, ceiling - size))
    return low, min(ceiling, low + size)


def crop_svg(svg: str, box: tuple[float, float, float, float], width: int = 600) -> str:
    """``svg`` showing only ``box`` (its viewBox), ``width`` pixels wide."""
    x, y, w, h = box
    height = round(width * h / w)
    head, rest = svg.split(">", 1)
    head = re.sub(r' width="[^"]*"', f' width="{width}"', head, count=1)
    head = re.sub(r' height="[^"]*"', f' height="{height}"', head, count=1)
    head = re.sub(r' viewBox="[^"]*"', f' viewBox="{x:.1f} {y:.1f} {w:.1f} {h:.1f}"', head)
    return head + ">" + rest


def map_box(board: Board) -> tuple[float, float, float, float]:
    """The viewBox of the whole map, without the header above it and the panel beside it."""
    f = Frame(board)
    return 0.0, float(HEADER), f.width, f.height - HEADER


#: What an overview leaves out: every text, and the cities' name plates (blank without it).
_WORDS = re.compile(r'<g id="name-[^"]*">.*?</g>|<text\b[^>]*>.*?</text>', re.DOTALL)


def overview_svg(svg: str, outline: tuple[float, float, float, float] | None) -> str:
    """A cropped ``svg`` (``crop_svg``) as an overview: without its words, unreadable at that
    scale (and most of the cost of rendering it: resvg lays out every glyph), with the
    rectangle ``outline`` (a crop's viewBox) drawn on it."""
    svg = _WORDS.sub("", svg)
    if outline is None:
        return svg
    x, y, w, h = outline
    frame = (
        f'<rect id="crop-outline" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
        f'fill="none" stroke="#fff" stroke-width="14"/>'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="none" '
        f'stroke="{OUTLINE}" stroke-width="7"/>'
    )
    return svg.replace("</svg>", frame + "</svg>")


def last_move_hex(board: Board, label: str, f: Frame) -> str:
    x, y = f.at[board.index_of_label[label]]
    return (
        f'<polygon id="last-move-{label}" points="{svg_points(hex_corners(x, y, R - 1.5))}" '
        f'fill="{LAST_MOVE}" fill-opacity="0.18" stroke="{LAST_MOVE}" stroke-width="3" '
        'pointer-events="none"/>'
    )


def battle_marks(board: Board, view: dict[str, Any], f: Frame) -> list[str]:
    """A red ring round the battle's target hex and arrows from the attackers' hexes."""
    battle = view["battle"]
    tx, ty = f.at[board.index_of_label[battle["target"]]]
    out = [
        '<g id="battle" pointer-events="none">'
        f'<polygon points="{svg_points(hex_corners(tx, ty, R - 2))}" fill="#d00000" '
        'fill-opacity="0.12" stroke="#d00000" stroke-width="3"/>'
    ]
    for unit in battle["attackers"]:
        info = view["units"].get(unit)
        if info is None:
            continue
        ax, ay = f.at[board.index_of_label[info["hex"]]]
        dx, dy = tx - ax, ty - ay
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        sx, sy = ax + ux * 15, ay + uy * 15
        ex, ey = tx - ux * 13, ty - uy * 13
        px, py = -uy * 4, ux * 4
        out.append(
            f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex - ux * 5:.1f}" y2="{ey - uy * 5:.1f}" '
            'stroke="#d00000" stroke-width="3"/>'
            f'<polygon points="{ex:.1f},{ey:.1f} {ex - ux * 8 + px:.1f},{ey - uy * 8 + py:.1f} '
            f'{ex - ux * 8 - px:.1f},{ey - uy * 8 - py:.1f}" fill="#d00000"/>'
        )
    out.append("</g>")
    return out


def devastation_marks(board: Board, f: Frame, temp: set[int], perm: set[int]) -> list[str]:
    out = []
    for h in sorted(h for h in temp | perm if f.keep(h)):
        x, y = f.at[h]
        permanent = h in perm
        fill, text = (PERM_MARK, "VP") if permanent else (TEMP_MARK, "VT")
        kind = "permanent" if permanent else "temporary"
        out.append(
            f'<g id="devastated-{board.labels[h]}"><title>{kind} devastation at '
            f"{board.labels[h]}</title>"
            f'<rect x="{x + 11:.1f}" y="{y - 6:.1f}" width="13" height="10" rx="2" '
            f'fill="{fill}" stroke="#fff" stroke-width="0.8"/>'
            f'<text x="{x + 17.5:.1f}" y="{y + 1.5:.1f}" font-size="6.5" font-weight="bold" '
            f'text-anchor="middle" fill="#fff" {CONDENSED}>{text}</text></g>'
        )
    return out
