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

This module stacks the picture's parts, each a module of its own: the colours and names
(attila_wargame_style.py), the hex grid and the ground (attila_wargame_map.py), the marks and
the crop round the last move (attila_wargame_marks.py), the units (attila_wargame_units.py)
and the side panel with the legend (attila_wargame_panel.py). Their public names are
importable from here too, as before the split.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any
from xml.sax.saxutils import escape

from engine.attila_wargame.board import Board
from engine.attila_wargame.touched import touched, touched_units
from engine.core import Event
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attila_wargame_map import (
    HEADER,
    LETTER_W,
    MARGIN,
    NAME_MAX_W,
    PANEL_W,
    CityLabel,
    Frame,
    H,
    R,
    city_flags,
    city_label,
    city_names,
    devastation,
    features,
    hexes,
)
from service.pictures.attila_wargame_marks import (
    Marks,
    battle_marks,
    crop_box,
    crop_svg,
    devastation_marks,
    last_move_hex,
    map_box,
    overview_svg,
)
from service.pictures.attila_wargame_panel import side_panel
from service.pictures.attila_wargame_style import (
    BORDER,
    CONDENSED,
    EMPIRE_FILL,
    EMPIRE_NAME,
    FALLBACK_COLOUR,
    GREEK,
    HALO,
    OUT_OF_PLAY,
    PEOPLE_COLOUR,
    PERM_MARK,
    RIVER,
    SEA,
    SEA_LINE,
    SEASON_WORDS,
    SIDE_BAND,
    SIDE_NAME,
    TEMP_MARK,
    cmu_name,
    cmu_short,
    designation,
    people_fill,
    people_name,
    phase_names,
    round_name,
)
from service.pictures.attila_wargame_units import COUNTER, DISC, Spot, stack_spots, units
from service.pictures.keep import Kept

#: The names this module had before its parts moved out (service/pictures/__init__.py, the
#: text summary and the tests import them from here).
__all__ = [
    "BORDER",
    "CONDENSED",
    "COUNTER",
    "DISC",
    "EMPIRE_FILL",
    "EMPIRE_NAME",
    "FALLBACK_COLOUR",
    "GREEK",
    "HALO",
    "HEADER",
    "LETTER_W",
    "MARGIN",
    "NAME_MAX_W",
    "OUT_OF_PLAY",
    "PANEL_W",
    "PEOPLE_COLOUR",
    "PERM_MARK",
    "RIVER",
    "SEA",
    "SEASON_WORDS",
    "SEA_LINE",
    "SIDE_BAND",
    "SIDE_NAME",
    "TEMP_MARK",
    "CityLabel",
    "H",
    "R",
    "Spot",
    "city_label",
    "cmu_name",
    "cmu_short",
    "crop_box",
    "crop_svg",
    "designation",
    "overview",
    "people_fill",
    "people_name",
    "phase_names",
    "render",
    "round_name",
    "stack_spots",
    "web",
]


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
    have: Collection[str] = (),
) -> str:
    """The whole picture, or with ``crop`` (a viewBox from ``crop_box``) only that part of
    the map, ``crop_width`` pixels wide: the hexes outside it are left out, not just hidden.
    ``have``: the keys of the map's unchanging parts the page already shows, left empty
    (service/pictures/keep.py)."""
    f = Frame(board)
    f.box = crop
    marks = Marks(touched(board, events), touched_units(events))
    panel = side_panel(board, view, f.width, names, last_move)
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
    parts += _map(board, view, f, marks, have)
    if crop is None:
        parts += panel.parts
    parts.append("</svg>")
    svg = "\n".join(parts)
    return svg if crop is None else crop_svg(svg, crop, crop_width)


def web(
    board: Board,
    view: dict[str, Any],
    title: str = "Attila (the wargame)",
    *,
    names: Sequence[str] = (),
    events: Sequence[Event] = (),
    last_move: Sequence[str] = (),
    have: Collection[str] = (),
) -> str:
    """The web table's picture: the map alone (the table shows the status, the orders, the
    last battle and the legend in HTML: attila_wargame_table.py, templates/games/), its
    counters with their web face (attila_wargame_units.web_counter). ``names`` and
    ``last_move`` are the table's, not drawn here."""
    f = Frame(board)
    marks = Marks(touched(board, events), touched_units(events))
    x, y, width, height = map_box(board)
    box = f"{x:.0f} {y:.0f} {width:.0f} {height:.0f}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="{box}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        _defs(),
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{width:.0f}" height="{height:.0f}" fill="{SEA}"/>',
        *_map(board, view, f, marks, have, web=True),
        "</svg>",
    ]
    return "\n".join(parts)


def overview(
    board: Board,
    view: dict[str, Any],
    title: str = "Attila (the wargame)",
    *,
    events: Sequence[Event] = (),
    outline: tuple[float, float, float, float] | None = None,
    width: int = 600,
) -> str:
    """The whole map, ``width`` pixels wide, without its words or the side panel: where things
    are, with the ``events`` marked and the rectangle ``outline`` (a ``crop_box``) framed. A
    mail shows it under its crop instead of a second full-size map."""
    return overview_svg(
        render(board, view, title, events=events, crop=map_box(board), crop_width=width), outline
    )


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


def _map(
    board: Board,
    view: dict[str, Any],
    f: Frame,
    marks: Marks,
    have: Collection[str],
    *,
    web: bool = False,
) -> list[str]:
    """The map's layers, bottom up. The hexes, the lines and cities, and the cities' names are
    the same all game long: kept parts (keep.py), which a page showing the map already has.
    ``web``: the counters' web face."""
    temp = {board.index_of_label[h] for h in view["devastated"]["temporary"]}
    perm = {board.index_of_label[h] for h in view["devastated"]["permanent"]}
    under, over, names = _ground(board, f)
    out = ['<g id="map">']
    out += under.svg(have)
    out += devastation(board, f, temp, perm)
    out += over.svg(have)
    out += city_flags(board, view, f)
    out += devastation_marks(board, f, temp, perm)
    if view.get("battle"):
        out += battle_marks(board, view, f)
    out += [last_move_hex(board, h, f) for h in sorted(marks.hexes)]
    out += units(board, view, f, marks.units, web=web)
    # Names over the units, sized (city_label) to miss every counter of the hexes around
    # them: only a command disc beside a counter in a hex just below a city can lose an edge.
    out += names.svg(have)
    out.append("</g>")
    return out


#: The whole map's unchanging parts per board, drawn once: 44 ms of a picture's 51. They come
#: from the board data alone (no state, no words to translate).
_GROUND: dict[int, tuple[Board, tuple[Kept, Kept, Kept]]] = {}


def _ground(board: Board, f: Frame) -> tuple[Kept, Kept, Kept]:
    """The hexes, the lines with the cities, and the cities' names that ``f`` keeps."""
    whole = f.box is None
    drawn = _GROUND.get(id(board)) if whole else None
    if drawn is not None and drawn[0] is board:
        return drawn[1]
    parts = (
        Kept("hexes", hexes(board, f)),
        Kept("features", features(board, f)),
        Kept("names", city_names(board, f)),
    )
    if whole:
        _GROUND[id(board)] = (board, parts)
    return parts
