"""The wargame's units on the map: combat units as square counters (a band with the side's
colour and the unit's designation over the people's colour, then ``combat-movement``
factors, a reduced combat factor in red; on the web table a face read on a phone: the name
abbreviated and every word larger, ``WEB_NAME`` and ``WEB_FACTORS``), command units as discs
with the first letters of their name, each with its tooltip; how a hex's units are stacked so
that none hides another; and the last move's ring round the units it names.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from engine.attila_wargame.board import Board
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures import LAST_MOVE
from service.pictures.attila_wargame_map import Frame
from service.pictures.attila_wargame_style import (
    CONDENSED,
    SIDE_BAND,
    SIDE_NAME,
    cmu_name,
    cmu_short,
    designation,
    people_fill,
    people_name,
)

COUNTER = 26  # side of a combat unit's counter
DISC = 8.5  # radius of a command unit's disc
#: The web face's font sizes (map units): its name and its factors, read at 11 CSS px once a
#: map unit is 11 / WEB_NAME CSS px (the table's zoom floor, static/games/attila_wargame/).
WEB_NAME = 9.0
WEB_FACTORS = 14.0
#: How wide the web face's name may be; a longer one is drawn narrower (``textLength``).
_WEB_NAME_W = 23.5


def _ink(fill: str) -> str:
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


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


def units(
    board: Board,
    view: dict[str, Any],
    f: Frame,
    marked: frozenset[str] = frozenset(),
    *,
    web: bool = False,
) -> list[str]:
    """Every unit on the hexes ``f`` keeps, stacked (``stack_spots``); those in ``marked``
    ringed as the last move's; ``web``: the counters' web face (``web_counter``)."""
    face = web_counter if web else counter
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
            out.append(_scaled(face(board, u, view["units"][u], cx, cy) + ring, cx, cy, spot.scale))
        for u, spot in zip(command, discs, strict=True):
            cx, cy = x + spot.dx, y + spot.dy
            ring = _unit_ring(cx, cy, DISC + 0.5, square=False) if u in marked else ""
            out.append(
                _scaled(_disc(board, u, view["units"][u], cx, cy) + ring, cx, cy, spot.scale)
            )
    return out


def _unit_ring(x: float, y: float, half: float, square: bool) -> str:
    """The last move's mark round a unit: a frame in ``LAST_MOVE``'s colour (square for a
    counter)."""
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


def counter(board: Board, unit: str, info: dict[str, Any], x: float, y: float) -> str:
    """A combat unit's counter centred at (x, y) (the map's and the legend's)."""
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
        f'<text class="info" x="{x:.1f}" y="{top + 6.4:.1f}" font-size="{size}" '
        'text-anchor="middle" '
        f'fill="#fff" {CONDENSED}>{escape(name)}</text>',
        f'<text class="info" x="{x:.1f}" y="{top + 21.5:.1f}" font-size="11" font-weight="bold" '
        f'text-anchor="middle" fill="{ink}" {CONDENSED}>'
        f'<tspan fill="{cf_ink}"{cf_halo}>{info["cf"]}</tspan>-{info["mf"]}</text>',
    ]
    if info.get("neutralised"):
        out.append(_crossed_out(left, top, s))
    out.append("</g>")
    return "".join(out)


def _crossed_out(left: float, top: float, s: float) -> str:
    """A neutralised counter's cross, corner to corner."""
    return (
        f'<path d="M{left:.1f},{top:.1f} L{left + s:.1f},{top + s:.1f} M{left + s:.1f},'
        f'{top:.1f} L{left:.1f},{top + s:.1f}" stroke="#444" stroke-width="2" opacity="0.8"/>'
    )


def web_name(board: Board, unit: str) -> str:
    """A combat unit's name on its web face: ``III·INF``, ``HUN7`` (a people's number without
    its space)."""
    return designation(board, unit).replace(" ", "")


def _name_width(text: str, size: float) -> float:
    """About how wide ``text`` is drawn in the condensed face at ``size`` (capitals and digits
    at most 0.66 em, the dot and a Roman numeral's I narrower)."""
    narrow = sum(1 for c in text if c in "I·1 ")
    return size * (0.66 * (len(text) - narrow) + 0.36 * narrow)


def web_counter(board: Board, unit: str, info: dict[str, Any], x: float, y: float) -> str:
    """A combat unit's counter centred at (x, y) on the web table: the counter's face with its
    name (abbreviated, ``web_name``) at ``WEB_NAME`` and its factors at ``WEB_FACTORS``."""
    fill = people_fill(board, info["people"])
    band = SIDE_BAND.get(info["side"], "#555")
    ink = _ink(fill)
    s = COUNTER
    left, top = x - s / 2, y - s / 2
    reduced = info["cf"] < info["printed_cf"]
    cf = (
        f'<tspan fill="#d00000" stroke="#fff" stroke-width="2.6" paint-order="stroke">'
        f"{info['cf']}</tspan>"
        if reduced
        else str(info["cf"])
    )
    name = web_name(board, unit)
    squeeze = (
        f' textLength="{_WEB_NAME_W}" lengthAdjust="spacingAndGlyphs"'
        if _name_width(name, WEB_NAME) > _WEB_NAME_W
        else ""
    )
    out = [
        f'<g id="unit-{escape(unit)}"><title>{_title(board, unit, info)}</title>',
        f'<rect x="{left + 1.2:.1f}" y="{top + 1.2:.1f}" width="{s}" height="{s}" rx="2.5" '
        'fill="#000" opacity="0.3"/>',
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{s}" height="{s}" rx="2.5" fill="{fill}" '
        f'stroke="{band}" stroke-width="1.2"/>',
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{s}" height="11" rx="2.5" fill="{band}"/>',
        f'<rect x="{left:.1f}" y="{top + 6:.1f}" width="{s}" height="5" fill="{band}"/>',
        f'<text class="info" x="{x:.1f}" y="{top + 8.7:.1f}" font-size="{WEB_NAME:g}" '
        f'font-weight="bold" text-anchor="middle" fill="#fff"{squeeze} {CONDENSED}>'
        f"{escape(name)}</text>",
        f'<text class="info" x="{x:.1f}" y="{top + 24.2:.1f}" font-size="{WEB_FACTORS:g}" '
        f'font-weight="bold" text-anchor="middle" fill="{ink}" {CONDENSED}>'
        f"{cf}-{info['mf']}</text>",
    ]
    if info.get("neutralised"):
        out.append(_crossed_out(left, top, s))
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
