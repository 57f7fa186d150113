"""The wargame's map without its pieces: the picture's sizes, the flat-top hex grid (where
each hex is drawn, and which hexes a crop keeps) and the ground drawn from the board data —
terrain and the empires' tints, coasts, borders and rivers, region names, cities with their
values and their names.

The units (attila_wargame_units.py) and the marks (attila_wargame_marks.py) are laid over
this; attila_wargame.py stacks the layers.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from engine.attila_wargame.board import Board
from service.pictures import svg_points
from service.pictures.attila_wargame_style import (
    BORDER,
    CONDENSED,
    EMPIRE_FILL,
    HALO,
    OUT_OF_PLAY,
    RIVER,
    SEA,
    SEA_LINE,
)

R = 25  # hex radius (centre to corner)
H = R * math.sqrt(3) / 2  # half the height of a flat-top hex
MARGIN = 24
HEADER = 78
PANEL_W = 400


# -- geometry -------------------------------------------------------------------------------


def _pixel(q: int, r: int) -> tuple[float, float]:
    return R * 1.5 * q, 2 * H * (r + q / 2)


def hex_corners(x: float, y: float, radius: float = R) -> list[tuple[float, float]]:
    """The corners of a flat-top hex (or a smaller one inside it) centred at (x, y)."""
    return [
        (x + radius * math.cos(math.radians(60 * k)), y + radius * math.sin(math.radians(60 * k)))
        for k in range(6)
    ]


def _side_line(a: tuple[float, float], b: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """The hexside shared by two neighbouring hexes centred at ``a`` and ``b``."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    half = R / 2  # a side is R long
    px, py = -dy / length * half, dx / length * half
    return (mx + px, my + py), (mx - px, my - py)


class Frame:
    """Where each hex is drawn."""

    def __init__(self, board: Board) -> None:
        xs = [_pixel(q, r)[0] for q, r in board.qr]
        ys = [_pixel(q, r)[1] for q, r in board.qr]
        self.ox = MARGIN + R - min(xs)
        self.oy = HEADER + MARGIN / 2 + H - min(ys)
        self.width = max(xs) - min(xs) + 2 * R + 2 * MARGIN
        self.height = HEADER + max(ys) - min(ys) + 2 * H + 1.5 * MARGIN
        self.at = [(x + self.ox, y + self.oy) for x, y in zip(xs, ys, strict=True)]
        self.box: tuple[float, float, float, float] | None = None

    def keep(self, h: int) -> bool:
        """Whether hex ``h`` is drawn: every hex, or in a crop those that reach into it
        (a crop draws only those: resvg would lay out the whole map for a corner of it)."""
        if self.box is None:
            return True
        x, y = self.at[h]
        left, top, width, height = self.box
        pad = 2 * R
        return left - pad <= x <= left + width + pad and top - pad <= y <= top + height + pad


# -- the ground -----------------------------------------------------------------------------


def hexes(board: Board, f: Frame) -> list[str]:
    """The hexes ``f`` keeps, as the board data draws them: the same all game long (what
    changes on them, devastation, is drawn over them by ``devastation``)."""
    return [_hex(board, h, x, y) for h, (x, y) in enumerate(f.at) if f.keep(h)]


def features(board: Board, f: Frame) -> list[str]:
    """The hexside lines, the region names and the cities, in that order, over the hexes and
    under the marks and the units: the same all game long (a city's flag once taken is
    ``city_flags``)."""
    out = _lines(board, f)
    out += _region_names(board, f)
    out += [_city(board, c.hex, *f.at[c.hex]) for c in board.cities if f.keep(c.hex)]
    return out


def devastation(board: Board, f: Frame, temp: set[int], perm: set[int]) -> list[str]:
    """The devastated hexes' patterns (``temp`` and ``perm``: their indexes), each with its
    label again on a halo so that it reads over the stripes."""
    out = []
    for h in sorted(h for h in temp | perm if f.keep(h)):
        x, y = f.at[h]
        corners = svg_points(hex_corners(x, y))
        pattern = "perm" if h in perm else "temp"
        out.append(
            f'<polygon points="{corners}" fill="url(#{pattern})"/>'
            + _label(board.labels[h], x, y, HALO)
        )
    return out


def city_flags(board: Board, view: dict[str, Any], f: Frame) -> list[str]:
    """A flag on each city a Barbarian combat unit has taken at some time."""
    out = []
    for city in board.cities:
        if city.id in view["cities_taken"] and f.keep(city.hex):
            x, y = f.at[city.hex]
            # city-…: hidden with the cities (the page's layer toggle).
            out.append(
                f'<path id="city-taken-{escape(city.id)}" d="M{x - 20:.1f},{y - 7:.1f} v-10 '
                'l7,3 -7,3" fill="#222" stroke="#222" stroke-width="1"><title>taken by a '
                "Barbarian combat unit at some time</title></path>"
            )
    return out


def city_names(board: Board, f: Frame) -> list[str]:
    """The cities' name boxes, drawn last: over the units (see ``city_label``)."""
    return [_city_name(board, c.hex, *f.at[c.hex]) for c in board.cities if f.keep(c.hex)]


def _hex(board: Board, h: int, x: float, y: float) -> str:
    label = board.labels[h]
    terrain = board.map_raw["hexes"][h]["terrain"]
    sea = terrain == "sea"
    empire = board.empire[h]
    corners = svg_points(hex_corners(x, y))
    if sea:
        return (
            f'<g id="hex-{label}"><polygon points="{corners}" fill="{SEA}" stroke="#9dc0da" '
            'stroke-width="0.6"/></g>'
        )
    fill = EMPIRE_FILL.get(empire, OUT_OF_PLAY) if board.passable[h] else OUT_OF_PLAY
    out = [
        f'<g id="hex-{label}">',
        f'<polygon points="{corners}" fill="{fill}" stroke="#c5b894" stroke-width="0.6"/>',
    ]
    if not board.passable[h]:
        out.append(f'<polygon points="{corners}" fill="url(#outside)"/>')
    if h in board.cultivated:
        out.append(f'<polygon points="{corners}" fill="url(#fields)"/>')
    if terrain == "mountain":
        out.append(_mountain(x, y + 12))
    if board.passable[h]:
        # The halo only where a pattern runs under the label: on a plain fill it reads
        # without one, and a stroke on each of some thousand labels costs render time.
        patterned = h in board.cultivated or terrain == "mountain"
        out.append(_label(label, x, y, HALO if patterned else ""))
    out.append("</g>")
    return "".join(out)


def _label(label: str, x: float, y: float, halo: str) -> str:
    return (
        f'<text x="{x:.1f}" y="{y - H + 8.2:.1f}" font-size="6.8" text-anchor="middle" '
        f'fill="#5e5444" {halo} {CONDENSED}>{label}</text>'
    )


def _mountain(x: float, y: float) -> str:
    return (
        f'<path d="M{x - 12:.1f},{y + 4:.1f} L{x - 5:.1f},{y - 5:.1f} L{x:.1f},{y + 1:.1f} '
        f'L{x + 5:.1f},{y - 6:.1f} L{x + 12:.1f},{y + 4:.1f}" fill="none" stroke="#8c7b62" '
        'stroke-width="1.4" stroke-linejoin="round"/>'
    )


def _lines(board: Board, f: Frame) -> list[str]:
    """Coasts, region borders, the empires' borders, then the rivers (on top)."""
    coast, regions, empires, rivers = [], [], [], []
    for a, near in enumerate(board.neighbours):
        if not f.keep(a):
            continue
        for b in near:
            if b < a:
                continue
            sea_a = board.map_raw["hexes"][a]["terrain"] == "sea"
            sea_b = board.map_raw["hexes"][b]["terrain"] == "sea"
            (x1, y1), (x2, y2) = _side_line(f.at[a], f.at[b])
            seg = f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"'
            if sea_a != sea_b:
                coast.append(f"<line {seg}/>")
            elif not sea_a and board.empire[a] != board.empire[b]:
                empires.append(f"<line {seg}/>")
            elif not sea_a and board.region[a] != board.region[b]:
                regions.append(f"<line {seg}/>")
            if board.river_between(a, b):
                rivers.append(f"<line {seg}/>")
    return [
        f'<g id="coasts" stroke="{SEA_LINE}" stroke-width="1.3">{"".join(coast)}</g>',
        f'<g id="regions" stroke="#6d6250" stroke-width="1.6" stroke-dasharray="5 3">'
        f"{''.join(regions)}</g>",
        f'<g id="borders" stroke="{BORDER}" stroke-width="3.2" stroke-dasharray="7 3" '
        f'stroke-linecap="round" opacity="0.85">{"".join(empires)}</g>',
        f'<g id="rivers" stroke="{RIVER}" stroke-width="3.6" stroke-linecap="round">'
        f"{''.join(rivers)}</g>",
    ]


def _region_names(board: Board, f: Frame) -> list[str]:
    cells: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for h, region in enumerate(board.region):
        if region:
            cells[region].append(f.at[h])
    out = ['<g id="region-names" pointer-events="none">']
    for region, spots in cells.items():
        x = sum(p[0] for p in spots) / len(spots)
        y = sum(p[1] for p in spots) / len(spots)
        name = region.split(" (")[0].upper()
        size = 30 if len(spots) > 60 else 20
        if len(name) > 14:
            size = 20
        out.append(
            f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="bold" '
            f'text-anchor="middle" fill="#5a4a2c" opacity="0.22" letter-spacing="3">'
            f"{escape(name)}</text>"
        )
    out.append("</g>")
    return out


def _city(board: Board, h: int, x: float, y: float) -> str:
    city = board.city_at[h]
    sign = "+" if city.plus else "−"
    badge = "#c9a227" if city.plus else "#5b7aa6"
    inner = svg_points(hex_corners(x, y, R - 3))
    return (
        f'<g id="city-{escape(city.id)}">'
        f'<polygon points="{inner}" fill="#fffaf0" fill-opacity="0.55" stroke="#3a2f24" '
        'stroke-width="2.2"/>'
        + _tower(x, y + 2)
        + f'<circle cx="{x + 19.5:.1f}" cy="{y + 1:.1f}" r="6.6" fill="{badge}" '
        'stroke="#3a2f24" stroke-width="0.8"/>'
        f'<text x="{x + 19.5:.1f}" y="{y + 3.8:.1f}" font-size="7.6" font-weight="bold" '
        f'text-anchor="middle" fill="#fff" {CONDENSED}>{sign}{city.value}</text></g>'
    )


def _tower(x: float, y: float) -> str:
    return (
        f'<path d="M{x - 9:.1f},{y + 8:.1f} v-12 h3 v3 h3 v-3 h3 v3 h3 v-3 h3 v3 h3 v-3 h3 v12 z" '
        'fill="#8c7b62" opacity="0.55"/>'
    )


#: A city's name box may be this wide: the counters of the two lower neighbouring hexes start
#: 24.5 px either side of the city's centre, so a narrower box is never under a unit.
NAME_MAX_W = 46.0
#: Width of one condensed bold letter per pixel of font size (DejaVu Sans Condensed Bold).
LETTER_W = 0.53


@dataclass(frozen=True)
class CityLabel:
    """A city's name as drawn: its lines, font size and box (relative to the hex's centre)."""

    lines: tuple[str, ...]
    size: float
    left: float
    top: float
    width: float
    height: float


def city_label(name: str) -> CityLabel:
    """The name on one line, or on two split at a space, in the largest size up to 8 px that
    keeps the box within ``NAME_MAX_W``, along the hex's bottom edge."""
    words = name.split(" ")
    lines = (name,) if len(words) == 1 or len(name) <= 10 else (words[0], " ".join(words[1:]))
    longest = max(len(line) for line in lines)
    # Two lines must end above a counter in the hex right below: a smaller largest size.
    size = min(7.5 if len(lines) == 1 else 7.0, (NAME_MAX_W - 6) / (LETTER_W * longest))
    width = LETTER_W * size * longest + 6
    height = (size + 1) * len(lines) + 1
    return CityLabel(lines, size, -width / 2, H - 7, width, height)


def _city_name(board: Board, h: int, x: float, y: float) -> str:
    city = board.city_at[h]
    label = city_label(city.name)
    texts = "".join(
        f'<text x="{x:.1f}" y="{y + label.top + (label.size + 1) * (k + 1) - 0.8:.1f}" '
        f'font-size="{label.size:.1f}" font-weight="bold" text-anchor="middle" '
        f'fill="#2a2018" {CONDENSED}>{escape(line)}</text>'
        for k, line in enumerate(label.lines)
    )
    return (
        f'<g id="name-{escape(city.id)}">'
        f'<rect x="{x + label.left:.1f}" y="{y + label.top:.1f}" width="{label.width:.1f}" '
        f'height="{label.height:.1f}" rx="3" fill="#fffdf6" fill-opacity="0.92" '
        f'stroke="#3a2f24" stroke-width="0.6"/>{texts}</g>'
    )
