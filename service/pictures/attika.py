"""An SVG picture of an Attika game, drawn from the spectator view only.

Drawing from ``GAME.view(state, None)`` means the picture cannot show a hand, the deck, the
tile pile or the order of any stack, whoever asks for it. Everything else comes from the
board data: the hex directions, the tile faces, the resources, the buildings and the player
colours, so a corrected data file needs no change here.

Hexes are pointy-top; each one prints its axial coordinate ``q,r`` (the notation's form) at
the bottom, so a move like ``build temple at 2,-1`` can be read straight off the picture.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from engine.attika.actions import format_hex
from engine.attika.board import Board, Hex
from engine.attika.touched import touched
from engine.core import Event
from engine.sentences import N_
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.i18n import say_word
from service.pictures import LAST_MOVE, resigned_mark, seat_label, svg_points, wrap_words

R = 42  # hex radius (centre to corner)
MARGIN = 30
HEADER = 84  # title band above the map and the panel
PANEL_W = 380
SQ3 = math.sqrt(3)

#: Fill of a map hex per landscape (resource id); blank hexes and unknown resources fall back.
LAND_FILL = {
    "water": "#bcdcf2",
    "forest": "#bfe0b0",
    "hill": "#f0dca0",
    "mountain": "#d3cfc8",
}
BLANK_FILL = "#f4ecd6"
GLYPH_INK = {
    "water": "#1f6fb2",
    "forest": "#2e7d32",
    "hill": "#a0701c",
    "mountain": "#5f5a55",
}
#: Building colours per player colour name (data: ``player_colours``).
COLOUR_FILL = {
    "red": "#c8372d",
    "yellow": "#e9bd22",
    "green": "#2f8f46",
    "blue": "#2d63c8",
    "white": "#f4f4f4",
    "black": "#2b2b2b",
}
DARK_TEXT = {"yellow", "white"}
FALLBACK_FILL = ["#c8372d", "#e9bd22", "#2f8f46", "#2d63c8"]


@dataclass(frozen=True)
class Labels:
    """The words on the map's hexes: the mailed picture's (a print, read up close) or the web
    table's (``attika_web``: read at a phone's width, so larger, and marked ``info``)."""

    #: The coordinate's font size and its baseline below the hex's centre.
    coordinate: float = 11
    coordinate_y: float = 31
    #: A building's name's font size; 0: fitted to the badge (a name over 12 letters cut).
    name: float = 0
    #: The building's badge: its width, height and centre above the hex's centre.
    badge_w: float = 64
    badge_h: float = 22
    badge_y: float = 2
    #: The glyph's centre above the hex's centre.
    glyph_y: float = 21
    #: Whether the coordinates are marked ``info`` (words a player needs, measured by the tests).
    info_coordinates: bool = False


PRINT = Labels()


def colour_names(board: Board, players: int) -> list[str]:
    names = list(board.raw.get("player_colours", {}).get("colours", []))
    return [names[s] if s < len(names) else f"seat {s}" for s in range(players)]


def seat_fill(board: Board, seat: int) -> str:
    name = colour_names(board, seat + 1)[seat]
    return COLOUR_FILL.get(name, FALLBACK_FILL[seat % len(FALLBACK_FILL)])


def parse_hex(text: str) -> Hex:
    q, r = text.split(",")
    return int(q), int(r)


def _pixel(hex_: Hex) -> tuple[float, float]:
    q, r = hex_
    return R * SQ3 * (q + r / 2), R * 1.5 * r


def _corners(x: float, y: float, radius: float = R) -> list[tuple[float, float]]:
    return [
        (
            x + radius * math.cos(math.radians(60 * k - 30)),
            y + radius * math.sin(math.radians(60 * k - 30)),
        )
        for k in range(6)
    ]


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
    """The picture of ``view``. ``open_hexes`` ("q,r"): empty places off the map drawn as
    outlines with their coordinate, for the web table to light up and preview a map tile on
    (a tile's anchors and the hexes it may cover: public, they follow from the map)."""
    drawn = draw_map(board, view, events, open_hexes, PRINT, MARGIN, HEADER + MARGIN / 2)
    map_w, map_h = drawn.width, drawn.height + MARGIN
    panel = _panel(board, panel_facts(board, view, names, last_move), map_w)
    width = round(map_w + PANEL_W)
    height = round(max(map_h, panel.bottom + MARGIN))
    parts = [
        # data-map-box: the map without the side panel.
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" data-map-box="0 0 {map_w:.0f} {map_h:.0f}" '
        'font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#dde8ec"/>',
        f'<rect x="{map_w:.0f}" y="{HEADER}" width="{PANEL_W}" height="{height - HEADER}" '
        'fill="#f7f2e6"/>',
        f'<line x1="{map_w:.0f}" y1="{HEADER}" x2="{map_w:.0f}" y2="{height}" stroke="#b9ab8c"/>',
        f'<rect width="{width}" height="{HEADER}" fill="#213547"/>',
        f'<text x="{MARGIN}" y="34" font-size="24" font-weight="bold" fill="#fff">'
        f"{escape(title)}</text>",
        f'<text x="{MARGIN}" y="56" font-size="12" fill="#cfdbe6">' + _(RECONSTRUCTED) + "</text>",
        f'<text x="{MARGIN}" y="73" font-size="12" fill="#cfdbe6">' + _(COORDINATES) + "</text>",
        *drawn.parts,
        *panel.parts,
        "</svg>",
    ]
    return "\n".join(parts)


#: The picture's notes (the mailed picture's header, the web table's legend).
RECONSTRUCTED = N_("Map data reconstructed, not the printed tiles (see docs/rules/attika.md).")
COORDINATES = N_(
    "Each hex shows its q,r as written in moves: q grows to the east, r to the south-east."
)


@dataclass(frozen=True)
class DrawnMap:
    """The map's drawing (``<g id="map">``) and its extent, from the picture's top left."""

    parts: list[str]
    width: float
    height: float


def draw_map(
    board: Board,
    view: dict[str, Any],
    events: Sequence[Event],
    open_hexes: Sequence[str],
    labels: Labels,
    margin: float,
    top: float,
) -> DrawnMap:
    """The hexes of ``view``'s map, its shrines, buildings, tile edges and the last move's
    frames, ``margin`` from the left and ``top`` from the top (``render``'s ``open_hexes``)."""
    cells = {parse_hex(c["hex"]): c for c in view["map"]}
    on_map = {c["hex"] for c in view["map"]}
    marked = [parse_hex(h) for h in sorted(touched(events) & on_map)]
    shrines = [parse_hex(h) for h in view["shrines"]]
    empty = [parse_hex(h) for h in open_hexes if h not in on_map and h not in view["shrines"]]
    every = [*cells, *shrines, *empty]
    xs = [_pixel(h)[0] for h in every]
    ys = [_pixel(h)[1] for h in every]
    half_w = R * SQ3 / 2
    ox = margin + half_w - min(xs)
    oy = top + R - min(ys)

    def at(hex_: Hex) -> tuple[float, float]:
        x, y = _pixel(hex_)
        return x + ox, y + oy

    tile_of = _tile_of(board, view)
    parts = ['<g id="map">']
    parts += [_open_hex(hex_, *at(hex_), labels) for hex_ in empty]
    parts += [_hex(board, cell, *at(hex_), labels) for hex_, cell in cells.items()]
    parts += _tile_edges(board, cells, tile_of, at)
    parts += [_shrine(hex_, *at(hex_), labels) for hex_ in shrines]
    parts += [
        _building(board, cell, *at(hex_), labels)
        for hex_, cell in cells.items()
        if cell["building"]
    ]
    parts += [_last_move_frame(hex_, *at(hex_)) for hex_ in marked]
    parts.append("</g>")
    width = max(xs) - min(xs) + 2 * half_w + 2 * margin
    height = max(ys) - min(ys) + 2 * R + top
    return DrawnMap(parts, width, height)


# -- the map ----------------------------------------------------------------------------------


def _last_move_frame(hex_: Hex, x: float, y: float) -> str:
    return (
        f'<polygon id="last-move-{format_hex(hex_)}" points="{svg_points(_corners(x, y, R - 3))}" '
        f'fill="none" stroke="{LAST_MOVE}" stroke-width="5"/>'
    )


def _tile_of(board: Board, view: dict[str, Any]) -> dict[Hex, int]:
    """Which laid tile (by the order laid) covers each hex: for the tile outlines."""
    out: dict[Hex, int] = {}
    for n, laid in enumerate(view["tiles"]):
        tile = board.tile(laid["tile"]).index
        for hex_, _rotation in board.tile_hexes(tile, parse_hex(laid["centre"]), laid["rotation"]):
            out[hex_] = n
    return out


def _coordinate(label: str, x: float, y: float, labels: Labels, ink: str) -> str:
    """A hex's ``q,r`` near its foot (narrowed to the hex where it is wider)."""
    info = ' class="info"' if labels.info_coordinates else ""
    return (
        f'<text{info} x="{x:.1f}" y="{y + labels.coordinate_y:.1f}" '
        f'font-size="{labels.coordinate:g}" text-anchor="middle" '
        f'fill="{ink}"{narrowed(label, labels.coordinate, R * 1.3)}>{escape(label)}</text>'
    )


def narrowed(text: str, size: float, room: float) -> str:
    """A ``textLength`` that narrows ``text`` (at ``size``) to ``room`` where it would be
    wider (its height kept); "" where it fits. The width is the font's average glyph's."""
    if len(text) * size * 0.6 <= room:
        return ""
    return f' textLength="{room:.0f}" lengthAdjust="spacingAndGlyphs"'


def _hex(board: Board, cell: dict[str, Any], x: float, y: float, labels: Labels) -> str:
    land = cell["landscape"]
    fill = LAND_FILL.get(land, BLANK_FILL) if land else BLANK_FILL
    out = [
        f'<g id="hex-{escape(cell["hex"])}" data-hex="{escape(cell["hex"])}">',
        f'<polygon points="{svg_points(_corners(x, y))}" fill="{fill}" stroke="#8f8268" '
        'stroke-width="1"/>',
    ]
    if land:
        out.append(_glyph(board, land, x, y - labels.glyph_y))
    out.append(_coordinate(cell["hex"], x, y, labels, "#3b3428"))
    out.append("</g>")
    return "".join(out)


def _open_hex(hex_: Hex, x: float, y: float, labels: Labels) -> str:
    """An empty place off the map: a dashed outline the table can fill with a tile's preview."""
    label = format_hex(hex_)
    return (
        f'<g id="hex-{label}" class="open-hex" data-hex="{label}">'
        f'<polygon points="{svg_points(_corners(x, y))}" fill="#eef3f5" fill-opacity="0.6" '
        'stroke="#9fb4bf" stroke-width="1" stroke-dasharray="4 3"/>'
        + _coordinate(label, x, y, labels, "#5d7480")
        + "</g>"
    )


def resource_icon(board: Board, resource_id: str) -> str:
    """A resource card's symbol as the board's legend draws it (its landscape's fill and
    glyph, 34 by 24), as a small inline ``<svg>`` for the table's hand (presentation
    attributes only: the pages' CSP allows no inline style)."""
    fill = LAND_FILL.get(resource_id, BLANK_FILL)
    return (
        '<svg class="card-icon" viewBox="0 0 34 24" width="34" height="24" aria-hidden="true">'
        f'<rect x="0.5" y="0.5" width="33" height="23" rx="4" fill="{fill}" stroke="#8f8268"/>'
        f"{_glyph(board, resource_id, 17, 12)}</svg>"
    )


def _glyph(board: Board, land: str, x: float, y: float) -> str:
    """A small drawing of a landscape symbol centred at (x, y), about 22 px wide."""
    ink = GLYPH_INK.get(land, "#333")
    if land == "water":
        waves = " ".join(
            f"M{x - 10:.1f},{yy:.1f} q2.5,-4 5,0 t5,0 t5,0 t5,0" for yy in (y - 2, y + 4)
        )
        return (
            f'<path d="{waves}" fill="none" '
            f'stroke="{ink}" stroke-width="1.8" stroke-linecap="round"/>'
        )
    if land == "forest":
        return (
            f'<rect x="{x - 1.5:.1f}" y="{y + 3:.1f}" width="3" height="5" fill="#6b4b2a"/>'
            f'<polygon points="{x:.1f},{y - 9:.1f} {x + 7:.1f},{y + 4:.1f} {x - 7:.1f},'
            f'{y + 4:.1f}" fill="{ink}"/>'
            f'<polygon points="{x - 8:.1f},{y - 3:.1f} {x - 3:.1f},{y + 6:.1f} {x - 13:.1f},'
            f'{y + 6:.1f}" fill="{ink}" opacity="0.75"/>'
        )
    if land == "hill":
        return (
            f'<path d="M{x - 12:.1f},{y + 6:.1f} Q{x - 4:.1f},{y - 10:.1f} {x + 3:.1f},'
            f"{y + 6:.1f} Z M{x - 2:.1f},{y + 6:.1f} Q{x + 6:.1f},{y - 5:.1f} {x + 12:.1f},"
            f'{y + 6:.1f} Z" fill="{ink}" opacity="0.85"/>'
        )
    if land == "mountain":
        return (
            f'<polygon points="{x - 12:.1f},{y + 7:.1f} {x - 3:.1f},{y - 9:.1f} '
            f'{x + 6:.1f},{y + 7:.1f}" fill="{ink}"/>'
            f'<polygon points="{x - 1:.1f},{y + 7:.1f} {x + 6:.1f},{y - 4:.1f} '
            f'{x + 13:.1f},{y + 7:.1f}" fill="{ink}" opacity="0.75"/>'
            f'<polygon points="{x - 5.5:.1f},{y - 5:.1f} {x - 3:.1f},{y - 9:.1f} '
            f'{x - 0.5:.1f},{y - 5:.1f}" fill="#fff"/>'
        )
    letter = board.resource(land).letter
    return (
        f'<text class="info" x="{x:.1f}" y="{y + 5:.1f}" font-size="14" font-weight="bold" '
        f'text-anchor="middle" fill="{ink}">{escape(letter)}</text>'
    )


def _tile_edges(board: Board, cells: dict[Hex, Any], tile_of: dict[Hex, int], at: Any) -> list[str]:
    """A darker line wherever a hex borders a hex of another tile, or no hex at all."""
    out = []
    for hex_ in cells:
        x, y = at(hex_)
        corners = _corners(x, y)
        for dq, dr in board.directions:
            other = (hex_[0] + dq, hex_[1] + dr)
            if other in cells and tile_of.get(other, -1) == tile_of.get(hex_, -2):
                continue
            nx, ny = at(other)
            vx, vy = nx - x, ny - y
            a, b = sorted(corners, key=lambda c: -((c[0] - x) * vx + (c[1] - y) * vy))[:2]
            out.append(
                f'<line x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" '
                'stroke="#5b4a33" stroke-width="3" stroke-linecap="round"/>'
            )
    return out


def _shrine(hex_: Hex, x: float, y: float, labels: Labels) -> str:
    label = f"{hex_[0]},{hex_[1]}"
    shrine = _("Shrine")
    return (
        f'<g id="shrine-{label}">'
        f'<polygon points="{svg_points(_corners(x, y))}" fill="#fbf8f1" stroke="#b08a2e" '
        'stroke-width="3"/>'
        f'<polygon points="{x - 15:.1f},{y - 16:.1f} {x:.1f},{y - 25:.1f} {x + 15:.1f},'
        f'{y - 16:.1f}" fill="#b08a2e"/>'
        + "".join(
            f'<rect x="{x + dx - 1.8:.1f}" y="{y - 15:.1f}" width="3.6" height="14" '
            'fill="#b08a2e"/>'
            for dx in (-11, -4, 4, 11)
        )
        + f'<rect x="{x - 16:.1f}" y="{y - 1:.1f}" width="32" height="3" fill="#b08a2e"/>'
        f'<text x="{x:.1f}" y="{y + 15:.1f}" font-size="11" font-weight="bold" '
        f'text-anchor="middle" fill="#7a5d17">{shrine}</text>'
        + _coordinate(label, x, y, labels, "#3b3428")
        + "</g>"
    )


def _building(board: Board, cell: dict[str, Any], x: float, y: float, labels: Labels) -> str:
    seat = cell["building"]["seat"]
    building = board.building(cell["building"]["building"])
    colour = colour_names(board, seat + 1)[seat]
    fill = seat_fill(board, seat)
    ink = "#222" if colour in DARK_TEXT else "#fff"
    name = say_word(building.name_en)
    w, h = labels.badge_w, labels.badge_h
    top = y + labels.badge_y - h / 2
    if labels.name:
        label, size, fit = name, labels.name, narrowed(name, labels.name * 0.85, w - 6)
    else:
        label = name if len(name) <= 12 else name[:11] + "."
        size, fit = min(11.0, round(88 / max(len(label), 1), 1)), ""  # fits the 64 px badge
    stroke = 'stroke="#7a5d17" stroke-width="2.5"' if building.main else 'stroke="#222"'
    star = (
        f'<text x="{x + w / 2 - 6:.1f}" y="{top + 2:.1f}" font-size="11" text-anchor="middle" '
        f'fill="#7a5d17">★</text>'
        if building.main
        else ""
    )
    return (
        f'<g id="building-{seat}-{escape(building.id)}">'
        f"<title>{escape(building.name_en)} ({escape(building.id)}), seat {seat} "
        f"({escape(colour)}) at {escape(cell['hex'])}</title>"
        f'<rect x="{x - w / 2:.1f}" y="{top:.1f}" width="{w:g}" height="{h:g}" rx="5" '
        f'fill="{fill}" {stroke}/>'
        f'<text class="info" x="{x:.1f}" y="{top + h / 2 + size * 0.36:.1f}" font-size="{size:g}" '
        'font-weight="bold" font-family="DejaVu Sans Condensed, Arial Narrow, sans-serif" '
        f'text-anchor="middle" fill="{ink}"{fit}>{escape(label)}</text>{star}</g>'
    )


# -- the side panel -------------------------------------------------------------------------


class _Panel:
    def __init__(self, left: float) -> None:
        self.x = left + 18
        self.y = HEADER + 30.0
        self.parts: list[str] = []

    @property
    def bottom(self) -> float:
        return self.y

    def text(self, text: str, size: int = 12, bold: bool = False, dx: float = 0, **kw: str) -> None:
        weight = ' font-weight="bold"' if bold else ""
        fill = kw.get("fill", "#222")
        self.parts.append(
            f'<text x="{self.x + dx:.1f}" y="{self.y:.1f}" font-size="{size}"{weight} '
            f'fill="{fill}">{escape(text)}</text>'
        )

    def gap(self, pixels: float) -> None:
        self.y += pixels


def panel_facts(
    board: Board, view: dict[str, Any], players: Sequence[str], last_move: Sequence[str]
) -> dict[str, Any]:
    """What the panel beside the map says, in words, from the spectators' ``view``: the
    mailed picture draws it (``_panel``), the web table shows it in HTML
    (games/attika_panel.html, ``attika_table.panel``)."""
    colours = [_(c) for c in colour_names(board, view["players"])]
    names = {b.id: say_word(b.name_en) for b in board.buildings}
    discard = ", ".join(
        f"{n} {board.resource(kind).letter}" for kind, n in view["discard"].items() if n
    )
    result = view["result"] or {}
    seats = []
    for seat, info in enumerate(view["seats"]):
        to_play = seat == view["active"] and not result
        badge = " ◀ " + _("to play") if to_play else ""
        if result and seat in result.get("winners", []):
            badge = " ★ " + _("winner")
        built = _("%(built)s/%(all)s built", built=len(info["built"]), all=len(board.buildings))
        stored = ", ".join(names[b] for b in info["storage"]) or _("empty")
        done = ", ".join(
            say_word(board.groups[_group(board, g)].name_en) for g in info["groups_complete"]
        )
        seats.append(
            {
                "seat": seat,
                "fill": seat_fill(board, seat),
                "to_play": to_play,
                "title": f"{seat_label(players, seat)} · {colours[seat]}{badge}"
                + resigned_mark(view, seat),
                "counts": " · ".join(
                    (
                        built,
                        ngettext("%(num)d settlement", "%(num)d settlements", info["settlements"]),
                        ngettext("%(num)d amphora", "%(num)d amphorae", info["amphorae"]),
                        ngettext("%(num)d card", "%(num)d cards", info["cards"]),
                    )
                ),
                "stacks": _(
                    "Stacks (1 = main): %(stacks)s",
                    stacks=" ".join(str(n) for n in info["stacks"]),
                ),
                "storage": _("Storage board: %(buildings)s", buildings=stored),
                "groups": _("Groups complete: %(groups)s", groups=done) if done else "",
            }
        )
    return {
        "status": _status(view, colours, players),
        "last_move": list(last_move),
        "turn": _turn_lines(board, view),
        "deck": _(
            "Deck %(deck)s cards · discard %(discard)s",
            deck=view["deck"],
            discard=discard or _("empty"),
        ),
        "supply": _(
            "Amphorae in supply %(amphorae)s · tiles face down %(tiles)s",
            amphorae=view["amphora_supply"],
            tiles=view["tile_pile"],
        ),
        "seats": seats,
    }


def _panel(board: Board, facts: dict[str, Any], left: float) -> _Panel:
    p = _Panel(left)
    for line in wrap_words(facts["status"], 36):
        p.text(line, 15, bold=True)
        p.gap(20)
    _last_move(facts["last_move"], p)
    for line in facts["turn"]:
        p.text(line, 12)
        p.gap(17)
    p.text(facts["deck"], 12)
    p.gap(17)
    p.text(facts["supply"])
    p.gap(26)
    for seat in facts["seats"]:
        p.parts.append(
            f'<rect x="{p.x:.1f}" y="{p.y - 12:.1f}" width="16" height="16" rx="3" '
            f'fill="{seat["fill"]}" stroke="#333"/>'
        )
        p.text(seat["title"], 14, bold=True, dx=24)
        p.gap(18)
        p.text(seat["counts"], 12, dx=24)
        p.gap(16)
        p.text(seat["stacks"], 12, dx=24)
        p.gap(16)
        for line in wrap_words(seat["storage"], 46):
            p.text(line, 12, dx=24)
            p.gap(16)
        for line in wrap_words(seat["groups"], 46) if seat["groups"] else []:
            p.text(line, 12, dx=24, fill="#5b4a1e")
            p.gap(16)
        p.gap(10)
    p.gap(6)
    _legend(board, p)
    return p


def _group(board: Board, group_id: str) -> int:
    return next(g.index for g in board.groups if g.id == group_id)


def _last_move(last_move: Sequence[str], p: _Panel) -> None:
    """The last move in words, under the status: at most six lines (the log has the rest)."""
    lines = [line for sentence in last_move for line in wrap_words(sentence, 44)][:6]
    for i, line in enumerate(lines):
        p.text((_("Last move: ") if i == 0 else "") + line, 12, fill="#7a3a00")
        p.gap(16)
    if lines:
        p.gap(4)


def _who(players: Sequence[str], colours: list[str], seat: int) -> str:
    return f"{seat_label(players, seat)} ({colours[seat]})"


def _status(view: dict[str, Any], colours: list[str], players: Sequence[str]) -> str:
    result = view["result"]
    if result:
        winners = ", ".join(_who(players, colours, s) for s in result["winners"])
        reasons = ", ".join(_(r.replace("_", " ")) for r in result.get("reasons", []))
        over = _("Game over: %(winners)s won", winners=winners)
        return over + (f" ({reasons})" if reasons else "")
    active = view["active"]
    return _(
        "Turn %(turn)s · %(player)s to play",
        turn=view["turn"],
        player=_who(players, colours, active),
    )


def _turn_lines(board: Board, view: dict[str, Any]) -> list[str]:
    if view["result"]:
        scores = " · ".join(str(n) for n in view["result"].get("scores", []))
        return [_("Buildings on the map per seat: %(scores)s", scores=scores)]
    out = []
    left = view["actions_left"]
    if view["mode"] is None:
        out.append(
            _(
                "Choose: up to %(reveals)s reveals or %(builds)s builds",
                reveals=left.get("reveal", 0),
                builds=left.get("build", 0),
            )
        )
    elif view["mode"] == "draw":
        out.append(_("Actions turned into cards: spend amphorae or end"))
    else:
        title = view["mode"].title()  # "Reveal", "Build": VALUE_WORDS
        mode = _(title)
        out.append(
            _("%(mode)s turn: %(left)s action(s) left", mode=mode, left=left.get(view["mode"], 0))
        )
    if view["revealed"]:
        name = say_word(board.building(view["revealed"]["building"]).name_en)
        out.append(
            _(
                "Revealed from stack %(stack)s: %(building)s (build or store)",
                stack=view["revealed"]["stack"],
                building=name,
            )
        )
    if view["drawn_tile"]:
        out.append(_("Map tile %(tile)s drawn: to be placed", tile=view["drawn_tile"]))
    return out


#: Words the panel translates from a value: the turn's modes and the game's end reasons.
VALUE_WORDS = (
    N_("Reveal"),
    N_("Build"),
    N_("all buildings"),
    N_("shrines connected"),
    N_("blocked"),
    N_("red"),
    N_("yellow"),
    N_("green"),
    N_("blue"),
)


def _legend(board: Board, p: _Panel) -> None:
    p.text(_("Legend"), 14, bold=True)
    p.gap(8)
    for resource in board.resources:
        fill = LAND_FILL.get(resource.id, BLANK_FILL)
        p.parts.append(
            f'<rect x="{p.x:.1f}" y="{p.y:.1f}" width="34" height="24" rx="4" fill="{fill}" '
            'stroke="#8f8268"/>' + _glyph(board, resource.id, p.x + 17, p.y + 12)
        )
        p.gap(17)
        p.text(f"{resource.letter} · {resource.id} ({resource.name_de})", 12, dx=44)
        p.gap(13)
    p.parts.append(
        f'<rect x="{p.x:.1f}" y="{p.y:.1f}" width="34" height="24" rx="4" fill="{BLANK_FILL}" '
        'stroke="#8f8268"/>'
    )
    p.gap(17)
    p.text(_("no landscape symbol"), 12, dx=44)
    p.gap(15)
    p.parts.append(
        f'<rect x="{p.x:.1f}" y="{p.y:.1f}" width="34" height="16" rx="4" '
        f'fill="{seat_fill(board, 0)}" stroke="#7a5d17" stroke-width="2.5"/>'
        f'<text x="{p.x + 40:.1f}" y="{p.y + 9:.1f}" font-size="11" fill="#7a5d17">★</text>'
    )
    p.gap(13)
    p.text(_("main building (gold rim, ★)"), 12, dx=56)
    p.gap(18)
    p.parts.append(
        f'<line x1="{p.x:.1f}" y1="{p.y - 4:.1f}" x2="{p.x + 34:.1f}" y2="{p.y - 4:.1f}" '
        'stroke="#5b4a33" stroke-width="3"/>'
    )
    p.text(_("edge of a map tile"), 12, dx=44)
    p.gap(18)
    p.parts.append(
        f'<rect x="{p.x:.1f}" y="{p.y - 14:.1f}" width="34" height="18" rx="4" fill="none" '
        f'stroke="{LAST_MOVE}" stroke-width="4"/>'
    )
    p.text(_("hex of the last move"), 12, dx=44)
    p.gap(18)
    for line in wrap_words(
        _(
            "Each hex shows its coordinate q,r as used in moves, e.g. build temple at 2,-1. "
            "Symbols under a building no longer lower costs."
        ),
        52,
    ):
        p.text(line, 11, fill="#456")
        p.gap(14)
