"""An SVG picture of an Attila wargame, drawn from the spectator view only.

Drawing from ``GAME.view(state, None)`` means the picture cannot show a secret note that has
not fired or a battle or council card before its reveal, whoever asks for it. Everything else
comes from the board data: hexes, terrain, regions and empires, river hexsides, cities and
their values, cultivated fields, peoples and their colours, the calendar and the phases, so a
corrected data file needs no change here.

Hexes are flat-topped, as in the map file; each land hex in play prints its ``CCRR`` label
(the notation's form) along its top edge, so ``move HUN-7 3110-3111`` can be read straight off
the picture. Combat units are square counters (a band with the side's colour and the unit's
designation over the people's colour, then ``combat-movement`` factors, a reduced combat
factor in red); command units are discs with the first letters of their name.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from engine.attila_wargame.board import Board
from engine.attila_wargame.game import WargameGame
from engine.attila_wargame.touched import touched, touched_units
from engine.core import Event
from engine.sentences import N_
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.common.numbers import is_ascii_digits
from service.pictures import LAST_MOVE, seat_label, wrap_words

R = 25  # hex radius (centre to corner)
H = R * math.sqrt(3) / 2  # half the height of a flat-top hex
MARGIN = 24
HEADER = 78
PANEL_W = 400
COUNTER = 26  # side of a combat unit's counter
DISC = 8.5  # radius of a command unit's disc

SEA = "#a9cbe3"
SEA_LINE = "#5d88ab"
EMPIRE_FILL = {"west": "#f4ead0", "east": "#f1dfe4", "barbarian": "#dfe8cf"}
OUT_OF_PLAY = "#d3d3cf"
EMPIRE_NAME = {"west": "Western Empire", "east": "Eastern Empire", "barbarian": "Barbaricum"}
RIVER = "#2a6db5"
BORDER = "#9c2a2a"
SIDE_BAND = {"roman": "#7b1e3b", "barbarian": "#202020", "neutral": "#8a8a8a"}
SIDE_NAME = {"roman": "Roman", "barbarian": "Barbarian", "neutral": "neutral"}
#: The calendar's seasons (engine data), marked here for the catalog (docs/i18n.md).
SEASON_WORDS = (N_("spring"), N_("summer"), N_("autumn"), N_("winter"))
#: The forces sheet's colour names (data ``peoples[].colour``) as fills.
PEOPLE_COLOUR = {
    "white": "#f8f6f0",
    "green": "#4f9d2d",
    "yellow": "#f2cf3b",
    "dark blue": "#27448f",
    "brown": "#8b5a2b",
    "pink": "#f2a7c3",
    "light blue": "#9fd3f0",
    "violet": "#9161c9",
    "red": "#d3352c",
    "orange": "#f0922b",
}
FALLBACK_COLOUR = "#bbbbbb"
TEMP_MARK, PERM_MARK = "#e07b1a", "#6e1010"
#: Greek letters for the Eastern units' designations (ids keep the spelled-out names).
GREEK = {
    "ALPHA": "Α",
    "BETA": "Β",
    "GAMMA": "Γ",
    "DELTA": "Δ",
    "EPSILON": "Ε",
    "ZETA": "Ζ",
    "ETA": "Η",
    "THETA": "Θ",
    "IOTA": "Ι",
    "KAPPA": "Κ",
    "LAMBDA": "Λ",
    "MU": "Μ",
    "NU": "Ν",
    "XI": "Ξ",
    "OMICRON": "Ο",
    "PI": "Π",
    "RHO": "Ρ",
    "SIGMA": "Σ",
    "TAU": "Τ",
    "PHI": "Φ",
    "CHI": "Χ",
    "PSI": "Ψ",
    "OMEGA": "Ω",
}
CONDENSED = 'font-family="DejaVu Sans Condensed, Arial Narrow, sans-serif"'
#: A white outline drawn under the letters: a label stays readable on any fill or pattern.
HALO = 'stroke="#fff" stroke-width="1.6" stroke-opacity="0.85" paint-order="stroke"'


# -- geometry -------------------------------------------------------------------------------


def _pixel(q: int, r: int) -> tuple[float, float]:
    return R * 1.5 * q, 2 * H * (r + q / 2)


def _corners(x: float, y: float, radius: float = R) -> list[tuple[float, float]]:
    return [
        (x + radius * math.cos(math.radians(60 * k)), y + radius * math.sin(math.radians(60 * k)))
        for k in range(6)
    ]


def _points(corners: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


def _side_line(a: tuple[float, float], b: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """The hexside shared by two neighbouring hexes centred at ``a`` and ``b``."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    half = R / 2  # a side is R long
    px, py = -dy / length * half, dx / length * half
    return (mx + px, my + py), (mx - px, my - py)


class _Frame:
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


# -- colours and names ----------------------------------------------------------------------


def people_fill(board: Board, people: str) -> str:
    colour = next((p["colour"] for p in board.raw["peoples"] if p["id"] == people), "")
    return PEOPLE_COLOUR.get(colour, FALLBACK_COLOUR)


def people_name(board: Board, people: str) -> str:
    name = next((p["name"] for p in board.raw["peoples"] if p["id"] == people), people)
    return name.split(" (")[0]


def _ink(fill: str) -> str:
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def designation(board: Board, unit: str) -> str:
    """A combat unit's short name on its counter: ``III·INF``, ``Λ·CAV``, ``HUN 7``."""
    parts = unit.split("-")
    if len(parts) == 3:
        return f"{GREEK.get(parts[1], parts[1])}·{parts[2]}"
    return " ".join(parts)


def cmu_short(board: Board, unit: str) -> str:
    name = next((c["name"] for c in board.raw["cmus"] if c["id"] == unit), unit)
    letters = re.sub(r"[^A-Za-z]", "", name.split(" ")[0])
    return letters[:3].upper()


def cmu_name(board: Board, unit: str) -> str:
    return next((c["name"] for c in board.raw["cmus"] if c["id"] == unit), unit)


def round_name(board: Board, round_: int) -> str:
    """``spring 447`` for round 5, from the calendar's first round and its seasons."""
    seasons = board.seasons
    first = board.raw["calendar"]["round_1"].split()
    year = int(first[-1]) + (round_ - 1) // len(seasons) if is_ascii_digits(first[-1]) else None
    season = say_word(seasons[(round_ - 1) % len(seasons)])
    return f"{season} {year}" if year is not None else season


def phase_names(board: Board) -> dict[str, str]:
    return {p["id"]: p["name"] for p in board.raw["calendar"]["phases"]}


# -- the picture ----------------------------------------------------------------------------


def render(
    board: Board,
    view: dict[str, Any],
    title: str = "Attila (the wargame)",
    *,
    names: Sequence[str] = (),
    events: Sequence[Event] = (),
    last_move: Sequence[str] = (),
    crop: tuple[float, float, float, float] | None = None,
    crop_width: int = 600,
) -> str:
    """The whole picture, or with ``crop`` (a viewBox from ``crop_box``) only that part of
    the map, ``crop_width`` pixels wide: the hexes outside it are left out, not just hidden."""
    f = _Frame(board)
    f.box = crop
    marks = _Marks(touched(board, events), touched_units(events))
    panel = _panel(board, view, f.width, names, last_move)
    width = round(f.width + PANEL_W)
    height = round(max(f.height, panel.y + MARGIN))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        _defs(),
        f'<rect width="{width}" height="{height}" fill="{SEA}"/>',
        f'<rect x="{f.width:.0f}" y="{HEADER}" width="{PANEL_W}" height="{height - HEADER}" '
        'fill="#f7f2e6"/>',
        f'<line x1="{f.width:.0f}" y1="{HEADER}" x2="{f.width:.0f}" y2="{height}" '
        'stroke="#b9ab8c"/>',
        f'<rect width="{width}" height="{HEADER}" fill="#2b2233"/>',
        f'<text x="{MARGIN}" y="34" font-size="24" font-weight="bold" fill="#fff">'
        f"{escape(title)}</text>",
        f'<text x="{MARGIN}" y="58" font-size="15" fill="#f0d9a0">{escape(_headline(board, view))}'
        "</text>",
        f'<text x="{width - 16}" y="58" font-size="11" text-anchor="end" fill="#b8adc4">'
        + _(
            "Map, factors and start hexes reconstructed, not the printed ones "
            "(see docs/rules/attila-wargame.md)"
        )
        + "</text>",
    ]
    parts += _map(board, view, f, marks)
    if crop is None:
        parts += panel.parts
    parts.append("</svg>")
    svg = "\n".join(parts)
    return svg if crop is None else crop_svg(svg, crop, crop_width)


def _defs() -> str:
    return (
        "<defs>"
        '<pattern id="fields" width="7" height="7" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(20)">'
        '<line x1="0" y1="3.5" x2="4" y2="3.5" stroke="#b9a447" stroke-width="1.1"/></pattern>'
        '<pattern id="temp" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)">'
        f'<rect width="6" height="6" fill="{TEMP_MARK}" opacity="0.18"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{TEMP_MARK}" stroke-width="2.2" '
        'opacity="0.55"/></pattern>'
        '<pattern id="perm" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(-45)">'
        f'<rect width="6" height="6" fill="{PERM_MARK}" opacity="0.35"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{PERM_MARK}" stroke-width="2.6" '
        'opacity="0.7"/></pattern>'
        '<pattern id="outside" width="8" height="8" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)">'
        '<line x1="0" y1="0" x2="0" y2="8" stroke="#b4b4ae" stroke-width="2"/></pattern>'
        "</defs>"
    )


def _headline(board: Board, view: dict[str, Any]) -> str:
    result = view.get("result")
    rounds = board.rounds
    if result:
        side = _(SIDE_NAME.get(result["winner_side"], result["winner_side"]))
        return _(
            "Game over after round %(rounds)s: the %(side)s player wins (Barbarian points "
            "%(points)s of %(threshold)s)",
            rounds=rounds,
            side=side,
            points=result.get("barbarian_points", "?"),
            threshold=result.get("threshold", "?"),
        )
    if view["phase"] == "notes":
        return _("Before round 1: both players write their secret notes")
    phase = say_word(phase_names(board).get(view["phase"], view["phase"]))
    return _(
        "Round %(round)s of %(rounds)s · %(season)s · phase (%(id)s) %(phase)s",
        round=view["round"],
        rounds=rounds,
        season=round_name(board, view["round"]),
        id=view["phase"],
        phase=phase,
    )


@dataclass(frozen=True)
class _Marks:
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
    f = _Frame(board)
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


def _map(board: Board, view: dict[str, Any], f: _Frame, marks: _Marks) -> list[str]:
    temp = {board.index_of_label[h] for h in view["devastated"]["temporary"]}
    perm = {board.index_of_label[h] for h in view["devastated"]["permanent"]}
    out = ['<g id="map">']
    for h, (x, y) in enumerate(f.at):
        if f.keep(h):
            out.append(_hex(board, h, x, y, temp, perm))
    out += _lines(board, f)
    out += _region_names(board, f)
    out += [_city(board, view, c.hex, *f.at[c.hex]) for c in board.cities if f.keep(c.hex)]
    out += _devastation_marks(board, f, temp, perm)
    if view.get("battle"):
        out += _battle_marks(board, view, f)
    out += [_last_move_hex(board, h, f) for h in sorted(marks.hexes)]
    out += _units(board, view, f, marks.units)
    # Names over the units, sized (city_label) to miss every counter of the hexes around
    # them: only a command disc beside a counter in a hex just below a city can lose an edge.
    out += [_city_name(board, c.hex, *f.at[c.hex]) for c in board.cities if f.keep(c.hex)]
    out.append("</g>")
    return out


def _last_move_hex(board: Board, label: str, f: _Frame) -> str:
    x, y = f.at[board.index_of_label[label]]
    return (
        f'<polygon id="last-move-{label}" points="{_points(_corners(x, y, R - 1.5))}" '
        f'fill="{LAST_MOVE}" fill-opacity="0.18" stroke="{LAST_MOVE}" stroke-width="3" '
        'pointer-events="none"/>'
    )


def _battle_marks(board: Board, view: dict[str, Any], f: _Frame) -> list[str]:
    """A red ring round the battle's target hex and arrows from the attackers' hexes."""
    battle = view["battle"]
    tx, ty = f.at[board.index_of_label[battle["target"]]]
    out = [
        '<g id="battle" pointer-events="none">'
        f'<polygon points="{_points(_corners(tx, ty, R - 2))}" fill="#d00000" '
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


def _hex(board: Board, h: int, x: float, y: float, temp: set[int], perm: set[int]) -> str:
    label = board.labels[h]
    terrain = board.map_raw["hexes"][h]["terrain"]
    sea = terrain == "sea"
    empire = board.empire[h]
    corners = _points(_corners(x, y))
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
    if h in perm:
        out.append(f'<polygon points="{corners}" fill="url(#perm)"/>')
    elif h in temp:
        out.append(f'<polygon points="{corners}" fill="url(#temp)"/>')
    if terrain == "mountain":
        out.append(_mountain(x, y + 12))
    if board.passable[h]:
        # The halo only where a pattern runs under the label: on a plain fill it reads
        # without one, and a stroke on each of some thousand labels costs render time.
        patterned = h in board.cultivated or h in temp or h in perm or terrain == "mountain"
        halo = HALO if patterned else ""
        out.append(
            f'<text x="{x:.1f}" y="{y - H + 8.2:.1f}" font-size="6.8" text-anchor="middle" '
            f'fill="#5e5444" {halo} {CONDENSED}>{label}</text>'
        )
    out.append("</g>")
    return "".join(out)


def _mountain(x: float, y: float) -> str:
    return (
        f'<path d="M{x - 12:.1f},{y + 4:.1f} L{x - 5:.1f},{y - 5:.1f} L{x:.1f},{y + 1:.1f} '
        f'L{x + 5:.1f},{y - 6:.1f} L{x + 12:.1f},{y + 4:.1f}" fill="none" stroke="#8c7b62" '
        'stroke-width="1.4" stroke-linejoin="round"/>'
    )


def _lines(board: Board, f: _Frame) -> list[str]:
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


def _region_names(board: Board, f: _Frame) -> list[str]:
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


def _city(board: Board, view: dict[str, Any], h: int, x: float, y: float) -> str:
    city = board.city_at[h]
    taken = city.id in view["cities_taken"]
    sign = "+" if city.plus else "−"
    badge = "#c9a227" if city.plus else "#5b7aa6"
    inner = _points(_corners(x, y, R - 3))
    flag = ""
    if taken:
        flag = (
            f'<path d="M{x - 20:.1f},{y - 7:.1f} v-10 l7,3 -7,3" fill="#222" stroke="#222" '
            'stroke-width="1"><title>taken by a Barbarian combat unit at some time</title></path>'
        )
    return (
        f'<g id="city-{escape(city.id)}">'
        f'<polygon points="{inner}" fill="#fffaf0" fill-opacity="0.55" stroke="#3a2f24" '
        'stroke-width="2.2"/>'
        + _tower(x, y + 2)
        + f'<circle cx="{x + 19.5:.1f}" cy="{y + 1:.1f}" r="6.6" fill="{badge}" '
        'stroke="#3a2f24" stroke-width="0.8"/>'
        f'<text x="{x + 19.5:.1f}" y="{y + 3.8:.1f}" font-size="7.6" font-weight="bold" '
        f'text-anchor="middle" fill="#fff" {CONDENSED}>{sign}{city.value}</text>'
        f"{flag}</g>"
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


def _devastation_marks(board: Board, f: _Frame, temp: set[int], perm: set[int]) -> list[str]:
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


@dataclass(frozen=True)
class Spot:
    """Where one unit of a hex is drawn: its centre relative to the hex's centre, its scale."""

    dx: float
    dy: float
    scale: float


def stack_spots(combat: int, command: int) -> tuple[list[Spot], list[Spot]]:
    """Where a hex's combat counters and command discs go so that none hides another, the
    hex's label (above) or a city's name (below): counters side by side, smaller when there
    are several, discs in a column on the left (or in a row when there is no counter)."""
    counters: list[Spot] = []
    if combat:
        scale = 1.0 if combat == 1 else min(0.8, 44 / (combat * COUNTER + (combat - 1) * 2))
        step = COUNTER * scale + 2
        counters = [Spot((k - (combat - 1) / 2) * step, 2, scale) for k in range(combat)]
    discs: list[Spot] = []
    if command and counters:
        # One column beside the counters; from three on, two narrower columns, so the discs
        # stay clear of the city's name below and the neighbouring hexes' units.
        scale = 1.0 if command == 1 else (0.8 if command == 2 else 0.5)
        columns = 1 if command <= 2 else 2
        rows = -(-command // columns)
        step = 2 * DISC * scale + 1
        x = counters[0].dx - COUNTER * counters[0].scale / 2 - DISC * scale - 1
        centre = 2 if columns == 1 else 0
        discs = [
            Spot(x - (k // rows) * step, centre + (k % rows - (rows - 1) / 2) * step, scale)
            for k in range(command)
        ]
    elif command:
        scale = 1.0 if command <= 2 else 0.7
        step = 2 * DISC * scale + 1
        discs = [Spot((k - (command - 1) / 2) * step, 2, scale) for k in range(command)]
    return counters, discs


def _scaled(part: str, x: float, y: float, scale: float) -> str:
    if scale == 1.0:
        return part
    return (
        f'<g transform="translate({x:.1f} {y:.1f}) scale({scale:.2f}) '
        f'translate({-x:.1f} {-y:.1f})">{part}</g>'
    )


def _units(
    board: Board, view: dict[str, Any], f: _Frame, marked: frozenset[str] = frozenset()
) -> list[str]:
    at: dict[str, list[str]] = defaultdict(list)
    for unit, info in view["units"].items():
        at[info["hex"]].append(unit)
    out = []
    for label, here in at.items():
        if not f.keep(board.index_of_label[label]):
            continue
        x, y = f.at[board.index_of_label[label]]
        combat = [u for u in here if view["units"][u]["combat"]]
        command = [u for u in here if not view["units"][u]["combat"]]
        counters, discs = stack_spots(len(combat), len(command))
        for u, spot in zip(combat, counters, strict=True):
            cx, cy = x + spot.dx, y + spot.dy
            # Tight round the counter: a wider ring would cover the hex's label above it.
            ring = _unit_ring(cx, cy, COUNTER / 2 + 0.5, square=True) if u in marked else ""
            out.append(
                _scaled(_counter(board, u, view["units"][u], cx, cy) + ring, cx, cy, spot.scale)
            )
        for u, spot in zip(command, discs, strict=True):
            cx, cy = x + spot.dx, y + spot.dy
            ring = _unit_ring(cx, cy, DISC + 0.5, square=False) if u in marked else ""
            out.append(
                _scaled(_disc(board, u, view["units"][u], cx, cy) + ring, cx, cy, spot.scale)
            )
    return out


def _unit_ring(x: float, y: float, half: float, square: bool) -> str:
    """The last move's mark round a unit: an orange frame (square for a counter)."""
    if square:
        return (
            f'<rect x="{x - half:.1f}" y="{y - half:.1f}" width="{2 * half:.1f}" '
            f'height="{2 * half:.1f}" rx="4" fill="none" stroke="{LAST_MOVE}" stroke-width="3"/>'
        )
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{half:.1f}" fill="none" stroke="{LAST_MOVE}" '
        'stroke-width="3"/>'
    )


def _title(board: Board, unit: str, info: dict[str, Any]) -> str:
    side = _(SIDE_NAME.get(info["side"], info["side"]))
    people = say_word(people_name(board, info["people"]))
    where = {"people": people, "side": side, "hex": info["hex"]}
    if info["combat"]:
        strength = (
            _("combat %(cf)s of %(printed)s", cf=info["cf"], printed=info["printed_cf"])
            if info["cf"] != info["printed_cf"]
            else _("combat %(cf)s", cf=info["cf"])
        )
        text = f"{unit} " + _(
            "(%(people)s, %(side)s) at %(hex)s: %(strength)s, movement %(mf)s",
            strength=strength,
            mf=info["mf"],
            **where,
        )
    else:
        text = f"{unit}, {cmu_name(board, unit)} " + _("(%(people)s, %(side)s) at %(hex)s", **where)
    if info.get("neutralised"):
        text += ", " + _("neutralised traitor")
    if info.get("moves_from_round"):
        text += ", " + _("moves from round %(round)s", round=info["moves_from_round"])
    return escape(text)


def _counter(board: Board, unit: str, info: dict[str, Any], x: float, y: float) -> str:
    fill = people_fill(board, info["people"])
    band = SIDE_BAND.get(info["side"], "#555")
    ink = _ink(fill)
    s = COUNTER
    left, top = x - s / 2, y - s / 2
    reduced = info["cf"] < info["printed_cf"]
    cf_ink = "#d00000" if reduced else ink
    cf_halo = (
        ' stroke="#fff" stroke-width="2.2" paint-order="stroke"'
        if reduced and ink == "#111"
        else (' stroke="#fff" stroke-width="2.4" paint-order="stroke"' if reduced else "")
    )
    name = designation(board, unit)
    size = 6.2 if len(name) <= 6 else 5.4
    out = [
        f'<g id="unit-{escape(unit)}"><title>{_title(board, unit, info)}</title>',
        f'<rect x="{left + 1.2:.1f}" y="{top + 1.2:.1f}" width="{s}" height="{s}" rx="2.5" '
        'fill="#000" opacity="0.3"/>',
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{s}" height="{s}" rx="2.5" fill="{fill}" '
        f'stroke="{band}" stroke-width="1.2"/>',
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{s}" height="8" rx="2.5" fill="{band}"/>',
        f'<rect x="{left:.1f}" y="{top + 5:.1f}" width="{s}" height="3" fill="{band}"/>',
        f'<text x="{x:.1f}" y="{top + 6.4:.1f}" font-size="{size}" text-anchor="middle" '
        f'fill="#fff" {CONDENSED}>{escape(name)}</text>',
        f'<text x="{x:.1f}" y="{top + 21.5:.1f}" font-size="11" font-weight="bold" '
        f'text-anchor="middle" fill="{ink}" {CONDENSED}>'
        f'<tspan fill="{cf_ink}"{cf_halo}>{info["cf"]}</tspan>-{info["mf"]}</text>',
    ]
    if info.get("neutralised"):
        out.append(
            f'<path d="M{left:.1f},{top:.1f} L{left + s:.1f},{top + s:.1f} M{left + s:.1f},'
            f'{top:.1f} L{left:.1f},{top + s:.1f}" stroke="#444" stroke-width="2" opacity="0.8"/>'
        )
    out.append("</g>")
    return "".join(out)


def _disc(board: Board, unit: str, info: dict[str, Any], x: float, y: float) -> str:
    fill = people_fill(board, info["people"])
    band = SIDE_BAND.get(info["side"], "#555")
    return (
        f'<g id="unit-{escape(unit)}"><title>{_title(board, unit, info)}</title>'
        f'<circle cx="{x + 0.8:.1f}" cy="{y + 0.8:.1f}" r="{DISC}" fill="#000" opacity="0.3"/>'
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{DISC}" fill="{fill}" stroke="{band}" '
        'stroke-width="2"/>'
        f'<text x="{x:.1f}" y="{y + 2.3:.1f}" font-size="6.3" font-weight="bold" '
        f'text-anchor="middle" fill="{_ink(fill)}" {CONDENSED}>'
        f"{escape(cmu_short(board, unit))}</text></g>"
    )


# -- the side panel -------------------------------------------------------------------------


class _Panel:
    def __init__(self, left: float) -> None:
        self.left = left
        self.x = left + 18
        self.y = HEADER + 28.0
        self.parts: list[str] = []

    def text(
        self, text: str, size: float = 12, bold: bool = False, dx: float = 0, **kw: str
    ) -> None:
        weight = ' font-weight="bold"' if bold else ""
        fill = kw.get("fill", "#222")
        self.parts.append(
            f'<text x="{self.x + dx:.1f}" y="{self.y:.1f}" font-size="{size}"{weight} '
            f'fill="{fill}">{escape(text)}</text>'
        )

    def line(self, text: str, size: float = 12, gap: float = 16, **kw: Any) -> None:
        self.text(text, size, **kw)
        self.y += gap

    def heading(self, text: str) -> None:
        self.y += 8
        self.parts.append(
            f'<line x1="{self.x:.1f}" y1="{self.y - 14:.1f}" x2="{self.left + PANEL_W - 18:.1f}" '
            f'y2="{self.y - 14:.1f}" stroke="#d8ccb0"/>'
        )
        self.line(text, 14, 20, bold=True, fill="#3a2a44")


def _panel(
    board: Board,
    view: dict[str, Any],
    left: float,
    names: Sequence[str] = (),
    last_move: Sequence[str] = (),
) -> _Panel:
    p = _Panel(left)
    _players(view, names, p)
    _last_move(last_move, p)
    _round_track(board, view, p)
    _phases(board, view, p, players=names)
    _situation(board, view, p)
    if view.get("battle"):
        _battle(board, view["battle"], p)
    if view.get("council"):
        _council(view["council"], p)
    _peoples(board, view, p)
    _lost(board, view, p)
    if view.get("result"):
        _result(board, view["result"], p)
    _legend(board, p)
    return p


def _round_track(board: Board, view: dict[str, Any], p: _Panel) -> None:
    p.line(_("Round track"), 14, 12, bold=True, fill="#3a2a44")
    per_row = 8
    box_w, box_h = (PANEL_W - 36) / per_row, 30
    current = view["round"] if view["phase"] not in ("notes",) else 0
    over = bool(view.get("result"))
    for n in range(1, board.rounds + 1):
        row, col = divmod(n - 1, per_row)
        bx, by = p.x + col * box_w, p.y + row * (box_h + 4)
        here = n == current and not over
        done = n < current or over
        fill = "#7b1e3b" if here else ("#e4dccb" if done else "#fffaf0")
        ink = "#fff" if here else "#3a2f24"
        season, _space, year = round_name(board, n).partition(" ")
        p.parts.append(
            f'<g id="round-{n}"><rect x="{bx:.1f}" y="{by:.1f}" width="{box_w - 3:.1f}" '
            f'height="{box_h}" rx="3" fill="{fill}" stroke="#8f8268"/>'
            f'<text x="{bx + (box_w - 3) / 2:.1f}" y="{by + 13:.1f}" font-size="11" '
            f'font-weight="bold" text-anchor="middle" fill="{ink}">{n}</text>'
            f'<text x="{bx + (box_w - 3) / 2:.1f}" y="{by + 25:.1f}" font-size="7.5" '
            f'text-anchor="middle" fill="{ink}">{escape(season[:3])} {escape(year)}</text></g>'
        )
    p.y += 2 * (box_h + 4) + 16


def _players(view: dict[str, Any], names: Sequence[str], p: _Panel) -> None:
    """Who plays which side: the sides' bands are the game's own marks, the names the
    players'."""
    for seat, side in enumerate(view["sides"]):
        p.parts.append(
            f'<rect x="{p.x:.1f}" y="{p.y - 11:.1f}" width="18" height="12" rx="2" '
            f'fill="{SIDE_BAND.get(side, "#555")}"/>'
        )
        side_name = _(SIDE_NAME.get(side, side))
        p.line(f"{side_name}: {seat_label(names, seat)}", 13, 18, dx=26, bold=True)


def _last_move(last_move: Sequence[str], p: _Panel) -> None:
    """The last move in words (at most six lines; the game's log has the rest)."""
    lines = [line for sentence in last_move for line in wrap_words(sentence, 52)]
    for i, line in enumerate(lines[:6]):
        p.line((_("Last move: ") if i == 0 else "") + line, 11.5, 15, fill="#7a3a00")
    if lines:
        p.y += 4


def _phases(board: Board, view: dict[str, Any], p: _Panel, players: Sequence[str] = ()) -> None:
    names = phase_names(board)
    for pid, name in names.items():
        here = view["phase"] == pid
        mark = "▶ " if here else "   "
        p.line(
            f"{mark}({pid}) {say_word(name)}",
            12,
            15,
            bold=here,
            fill="#7b1e3b" if here else "#555",
        )
    pending = view.get("pending") or []
    if pending and not view.get("result"):
        sides = view["sides"]
        who = []
        for d in pending:
            side = _(SIDE_NAME.get(sides[d["seat"]], sides[d["seat"]])) if d["seat"] >= 0 else ""
            name = _("the server") if d["seat"] < 0 else f"{side}, {seat_label(players, d['seat'])}"
            step = WargameGame.step_names.get(d["step"], d["step"].replace("_", " "))
            who.append(f"{name}: {say_word(step)}")
        for line in wrap_words(_("Waiting for %(whom)s", whom="; ".join(who)), 54):
            p.line(line, 11.5, 15, fill="#2b2233")


def _situation(board: Board, view: dict[str, Any], p: _Panel) -> None:
    p.heading(_("Situation"))
    leo = {"alive": _("on the map"), "dead": _("dead"), "driven_out": _("driven out")}
    roles = board.bindings["roles"]
    attila_gone = view["gone"].get(roles["attila"])
    attila = _("dead (%(how)s)", how=attila_gone) if attila_gone else _("on the map")
    if view.get("attila_title"):
        attila += f", {view['attila_title']}"
    if roles["pope"] in view["gone"] and view["leo"] == "alive":
        leo_text = view["gone"][roles["pope"]]
    else:
        leo_text = leo.get(view["leo"], view["leo"])
    yes = {True: _("yes"), False: _("no")}
    lines = [
        _(
            "West invaded: %(west)s · Gaul invaded: %(gaul)s",
            west=yes[bool(view["west_invaded"])],
            gaul=yes[bool(view["gaul_invaded"])],
        ),
        _("Leo I (Pope): %(leo)s · Attila: %(attila)s", leo=leo_text, attila=attila),
        _(
            "Council of Lugdunum: %(council)s",
            council=_("held") if view["lugdunum_council_done"] else _("not yet"),
        ),
    ]
    taken = [board.city_by_id[c].name for c in view["cities_taken"] if c in board.city_by_id]
    cities = ", ".join(taken) or _("none")
    lines.append(_("Cities ever taken by the Barbarian: %(cities)s", cities=cities))
    temp, perm = view["devastated"]["temporary"], view["devastated"]["permanent"]
    lines.append(
        _(
            "Devastated fields: %(temporary)s temporary (VT), %(permanent)s permanent (VP)",
            temporary=len(temp),
            permanent=len(perm),
        )
    )
    notes = view["notes"]
    fired = notes.get("fired") or []
    if fired:
        lines.append(_("Secret notes fired: %(notes)s", notes=", ".join(fired)))
    for key, value in notes.get("known", {}).items():
        lines.append(_("Note %(key)s: %(value)s", key=key, value=value))
    for text in lines:
        for line in wrap_words(text, 56):
            p.line(line, 11.5, 15)


def _battle(board: Board, battle: dict[str, Any], p: _Panel) -> None:
    number = battle["ref"].split("-")[-1]
    p.heading(_("Battle %(number)s at %(target)s", number=number, target=battle["target"]))
    attackers, defenders = ", ".join(battle["attackers"]), ", ".join(battle["defenders"])
    lines = [
        _("Attackers: %(units)s (%(strength)s)", units=attackers, strength=battle["attack"]),
        _("Defenders: %(units)s (%(strength)s)", units=defenders, strength=battle["defence"]),
        _("Odds column %(column)s", column=battle["column"]),
    ]
    if "cards" in battle:
        cards = " vs ".join(battle["cards"][s] for s in sorted(battle["cards"]))
        lines.append(_("Cards %(cards)s: result %(result)s", cards=cards, result=battle["result"]))
    else:
        lines.append(_("Cards chosen (sealed): %(chosen)s of 2", chosen=len(battle["chosen"])))
    for text in lines:
        for line in wrap_words(text, 56):
            p.line(line, 11.5, 15)


def _council(council: dict[str, Any], p: _Panel) -> None:
    kind = _("Council of Lugdunum") if council["kind"] == "lugdunum" else _("End council")
    p.heading(kind)
    if "cards" in council:
        p.line(_("Cards: %(cards)s", cards=", ".join(council["cards"].values())), 11.5)
    else:
        chosen = len(council["chosen"])
        p.line(_("Diplomatic cards chosen (sealed): %(chosen)s of 2", chosen=chosen), 11.5)


def _peoples(board: Board, view: dict[str, Any], p: _Panel) -> None:
    p.heading(_("Peoples"))
    counts: dict[str, int] = defaultdict(int)
    for info in view["units"].values():
        if info["combat"]:
            counts[info["people"]] += 1
    for people in board.peoples:
        side = view["alignment"].get(people, "neutral")
        fill = people_fill(board, people)
        p.parts.append(
            f'<rect x="{p.x:.1f}" y="{p.y - 10:.1f}" width="20" height="12" rx="2" '
            f'fill="{fill}" stroke="{SIDE_BAND.get(side, "#555")}" stroke-width="1.5"/>'
        )
        p.text(say_word(people_name(board, people)), 11.5, dx=28)
        side_name = _(SIDE_NAME.get(side, side))
        p.text(
            _("%(side)s · %(count)s on the map", side=side_name, count=counts[people]),
            11.5,
            dx=190,
            fill="#555",
        )
        p.y += 16


def _lost(board: Board, view: dict[str, Any], p: _Panel) -> None:
    gone = view["gone"]
    if not gone:
        return
    p.heading(_("Off the map"))
    by_reason: dict[str, list[str]] = defaultdict(list)
    for unit, why in gone.items():
        by_reason[why].append(unit)
    for why, units in sorted(by_reason.items()):
        for line in wrap_words(f"{why}: {', '.join(units)}", 60):
            p.line(line, 10.5, 14, fill="#444")


def _result(board: Board, result: dict[str, Any], p: _Panel) -> None:
    p.heading(_("Result"))
    side = _(SIDE_NAME.get(result["winner_side"], result["winner_side"]))
    p.line("★ " + _("The %(side)s player wins", side=side), 13, 18, bold=True, fill="#7b1e3b")
    points = _(
        "Barbarian points %(points)s (threshold %(threshold)s)",
        points=result["barbarian_points"],
        threshold=result["threshold"],
    )
    p.line(points, 11.5)
    for key, value in result.get("points_lines", {}).items():
        name = board.city_by_id[key].name if key in board.city_by_id else key.replace("_", " ")
        p.line(f"   {name}: {value:+d}", 11, 14, fill="#444")
    held = result.get("regions_held", {})
    regions = ", ".join(f"{r} ({len(c)})" for r, c in held.items()) or _("none")
    p.line(_("Regions held: %(regions)s", regions=regions), 11.5)


def _legend(board: Board, p: _Panel) -> None:
    p.heading(_("Legend"))
    x = p.x
    sample = {"people": "huns", "side": "barbarian", "combat": True, "hex": "", "mf": 5}
    p.parts.append(
        _counter(board, "HUN-7", {**sample, "cf": 5, "printed_cf": 5}, x + 14, p.y + 4).replace(
            'id="unit-', 'id="legend-unit-'
        )
    )
    p.parts.append(
        _counter(board, "HUN-8", {**sample, "cf": 3, "printed_cf": 5}, x + 46, p.y + 4).replace(
            'id="unit-', 'id="legend-unit-'
        )
    )
    p.text(_("combat unit: band = side and name,"), 11, dx=70)
    p.y += 14
    p.text(_("combat-movement; red: reduced"), 11, dx=70)
    p.y += 24
    swatches = [
        ("roman", _("Roman side")),
        ("barbarian", _("Barbarian side")),
        ("neutral", _("neutral")),
    ]
    for k, (side, text) in enumerate(swatches):
        sx = x + k * 118
        p.parts.append(
            f'<rect x="{sx:.1f}" y="{p.y - 10:.1f}" width="18" height="12" rx="2" '
            f'fill="{SIDE_BAND[side]}"/>'
            f'<text x="{sx + 24:.1f}" y="{p.y:.1f}" font-size="11" fill="#222">{text}</text>'
        )
    p.y += 20
    p.parts.append(
        f'<circle cx="{x + 9:.1f}" cy="{p.y - 4:.1f}" r="{DISC}" fill="#f8f6f0" '
        f'stroke="{SIDE_BAND["roman"]}" stroke-width="2"/>'
        f'<text x="{x + 9:.1f}" y="{p.y - 1.7:.1f}" font-size="6.3" font-weight="bold" '
        f'text-anchor="middle" fill="#111" {CONDENSED}>LEO</text>'
    )
    p.text(_("command unit (first letters of its name)"), 11, dx=28)
    p.y += 20
    p.parts.append(
        f'<polygon points="{_points(_corners(x + 11, p.y - 4, 11))}" fill="none" '
        f'stroke="{LAST_MOVE}" stroke-width="3"/>'
        f'<polygon points="{_points(_corners(x + 40, p.y - 4, 11))}" fill="#d00000" '
        'fill-opacity="0.12" stroke="#d00000" stroke-width="2.5"/>'
    )
    p.text(_("last move (hexes, units)  ·  battle target"), 11, dx=58)
    p.y += 22
    fx, fy = x + 8, p.y - 4
    p.parts.append(
        f'<path d="M{fx:.1f},{fy + 5:.1f} v-10 l7,3 -7,3" fill="#222" stroke="#222" '
        'stroke-width="1"/>'
        f'<path d="M{x + 30:.1f},{p.y - 11:.1f} l14,14 m0,-14 l-14,14" stroke="#444" '
        'stroke-width="2"/>'
    )
    p.text(_("city taken by the Barbarian  ·  neutralised traitor"), 11, dx=58)
    p.y += 22
    lines = [
        (f'stroke="{RIVER}" stroke-width="3.6" stroke-linecap="round"', _("river hexside")),
        (f'stroke="{BORDER}" stroke-width="3.2" stroke-dasharray="7 3"', _("border of an empire")),
        ('stroke="#6d6250" stroke-width="1.6" stroke-dasharray="5 3"', _("border of a region")),
        (f'stroke="{SEA_LINE}" stroke-width="1.3"', _("coast")),
    ]
    for style, text in lines:
        p.parts.append(
            f'<line x1="{x:.1f}" y1="{p.y - 4:.1f}" x2="{x + 22:.1f}" y2="{p.y - 4:.1f}" {style}/>'
        )
        p.text(text, 11, dx=30)
        p.y += 17
    fills = [
        (EMPIRE_FILL["west"], "", _("Western Empire")),
        (EMPIRE_FILL["east"], "", _("Eastern Empire")),
        (EMPIRE_FILL["barbarian"], "", _("Barbaricum")),
        (OUT_OF_PLAY, "url(#outside)", _("out of play")),
        ("#f4ead0", "url(#fields)", _("cultivated field (next to a city)")),
        ("#f4ead0", "url(#temp)", _("VT temporary devastation")),
        ("#f4ead0", "url(#perm)", _("VP permanent devastation")),
    ]
    for fill, overlay, text in fills:
        p.parts.append(
            f'<rect x="{x:.1f}" y="{p.y - 11:.1f}" width="22" height="14" fill="{fill}" '
            'stroke="#a99c7e"/>'
        )
        if overlay:
            p.parts.append(
                f'<rect x="{x:.1f}" y="{p.y - 11:.1f}" width="22" height="14" fill="{overlay}"/>'
            )
        p.text(text, 11, dx=30)
        p.y += 18
    p.parts.append(
        f'<circle cx="{x + 11:.1f}" cy="{p.y - 4:.1f}" r="7.2" fill="#c9a227" stroke="#3a2f24"/>'
        f'<text x="{x + 11:.1f}" y="{p.y - 1:.1f}" font-size="8" font-weight="bold" '
        f'text-anchor="middle" fill="#fff">+5</text>'
        f'<circle cx="{x + 31:.1f}" cy="{p.y - 4:.1f}" r="7.2" fill="#5b7aa6" stroke="#3a2f24"/>'
        f'<text x="{x + 31:.1f}" y="{p.y - 1:.1f}" font-size="8" font-weight="bold" '
        f'text-anchor="middle" fill="#fff">−3</text>'
    )
    p.text(_("city value: + for the Barbarian holding it,"), 11, dx=46)
    p.y += 14
    p.text(_("− against the Roman holding it"), 11, dx=46)
    p.y += 18
    for line in wrap_words(
        _(
            "Each land hex shows its label CCRR (column, row) as written in moves, e.g. "
            "move HUN-7 3110-3111. Eastern units carry Greek letters: Λ·CAV is E-LAMBDA-CAV."
        ),
        62,
    ):
        p.line(line, 10.5, 14, fill="#456")
