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
from service.pictures import LAST_MOVE
from service.pictures.attila_wargame_map import HEADER, Frame, H, R, hex_corners, svg_points
from service.pictures.attila_wargame_style import CONDENSED, PERM_MARK, TEMP_MARK


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
) -> tuple[float, float, float, float] | None:
    """The viewBox (x, y, width, height) around the hexes the last move touched (with the
    hexes of the units it names), ``margin`` hexes round them; None when it touched none."""
    hexes = set(touched(board, events))
    hexes |= {view["units"][u]["hex"] for u in touched_units(events) if u in view["units"]}
    if not hexes:
        return None
    f = Frame(board)
    points = [f.at[board.index_of_label[h]] for h in hexes]
    pad = margin * 2 * H + R
    left = max(0.0, min(x for x, _ in points) - pad)
    top = max(float(HEADER), min(y for _, y in points) - pad)
    right = min(f.width, max(x for x, _ in points) + pad)
    bottom = min(f.height, max(y for _, y in points) + pad)
    # Never narrower than 3:2, so the crop reads at mail width like a map, not a strip.
    if right - left < 1.5 * (bottom - top):
        grow = (1.5 * (bottom - top) - (right - left)) / 2
        left, right = max(0.0, left - grow), min(f.width, right + grow)
    return left, top, right - left, bottom - top


def crop_svg(svg: str, box: tuple[float, float, float, float], width: int = 600) -> str:
    """``svg`` showing only ``box`` (its viewBox), ``width`` pixels wide."""
    x, y, w, h = box
    height = round(width * h / w)
    head, rest = svg.split(">", 1)
    head = re.sub(r' width="[^"]*"', f' width="{width}"', head, count=1)
    head = re.sub(r' height="[^"]*"', f' height="{height}"', head, count=1)
    head = re.sub(r' viewBox="[^"]*"', f' viewBox="{x:.1f} {y:.1f} {w:.1f} {h:.1f}"', head)
    return head + ">" + rest


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
