"""An SVG picture of an Attila game, drawn from the spectator view only.

Drawing from ``GAME.view(state, None)`` means the picture cannot show a hand, the draw pile
or an unrevealed conflict card, whoever asks for it. The layout (province positions) is a
data file beside the board, as reconstructed as the board itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any
from xml.sax.saxutils import escape

from engine.attila.board import Board
from engine.attila.touched import touched
from engine.core import Event
from engine.sentences import N_
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.i18n import say_word
from service.pictures import LAST_MOVE, resigned_mark, seat_label, wrap_words

PEOPLE_FILL = {
    "blue": "#2f6fd6",
    "yellow": "#e9c229",
    "black": "#2b2b2b",
    "green": "#2f9a46",
    "purple": "#8a3fb8",
    "red": "#d23a2f",
}
#: Players are marked by shape, in black and white: the six colours belong to the peoples.
SEAT_SHAPES = ["circle", "square", "triangle", "diamond", "star"]
FRONTIER = "#b3261e"
NODE_W, NODE_H = 104, 62
PANEL_H = 360
ROMAN = {4: "IV", 5: "V", 6: "VI", 7: "VII"}


@cache
def _layout() -> dict[str, Any]:
    text = resources.files("engine.attila").joinpath("data/layout.json").read_text("utf-8")
    layout: dict[str, Any] = json.loads(text)
    return layout


def seat_mark(seat: int, x: float, y: float, r: float = 7) -> str:
    """The seat's shape centred on (x, y): white with a black outline, never a people's colour."""
    style = 'fill="#fff" stroke="#222" stroke-width="2"'
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    if shape == "circle":
        return f'<circle cx="{x}" cy="{y}" r="{r}" {style}/>'
    if shape == "square":
        return f'<rect x="{x - r}" y="{y - r}" width="{2 * r}" height="{2 * r}" {style}/>'
    if shape == "triangle":
        points = [(x, y - r * 1.15), (x + r * 1.1, y + r * 0.85), (x - r * 1.1, y + r * 0.85)]
    elif shape == "diamond":
        points = [(x, y - r * 1.25), (x + r * 1.1, y), (x, y + r * 1.25), (x - r * 1.1, y)]
    else:  # a five-pointed star
        points = [
            (
                x + (r * 1.3 if k % 2 == 0 else r * 0.55) * math.sin(k * math.pi / 5),
                y - (r * 1.3 if k % 2 == 0 else r * 0.55) * math.cos(k * math.pi / 5),
            )
            for k in range(10)
        ]
    text = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return f'<polygon points="{text}" {style}/>'


def render(
    board: Board,
    view: dict[str, Any],
    title: str = "Attila",
    *,
    names: Sequence[str] = (),
    events: Sequence[Event] = (),
    last_move: Sequence[str] = (),
) -> str:
    layout = _layout()
    marked = touched(events) & layout["provinces"].keys()
    told = _told(last_move)
    width, height = layout["width"], layout["height"] + PANEL_H + 30 * len(told)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{layout["height"]}" fill="#cfe3ef"/>',
        f'<rect y="{layout["height"]}" width="{width}" height="{height - layout["height"]}" '
        'fill="#f6f1e4"/>',
        '<text x="20" y="34" font-size="24" font-weight="bold" fill="#213547">'
        f"{escape(title)}</text>",
        '<text x="20" y="56" font-size="12" fill="#456">'
        + _("Reconstructed board: not the printed map (see docs/rules/attila.md)")
        + "</text>",
    ]
    parts += borders(board, layout["provinces"])
    parts += _decorations(layout)
    parts += [_province(board, layout, p.id, p.frontier, view) for p in board.provinces]
    parts += [_last_move_frame(layout, pid) for pid in sorted(marked)]
    facts = panel_facts(board, view, names)
    parts += _legend(facts, width, bool(marked))
    parts += _panel(facts, layout["height"])
    parts += _last_move(told, layout["height"] + PANEL_H)
    parts.append("</svg>")
    return "\n".join(parts)


def _told(last_move: Sequence[str]) -> list[str]:
    """The last move's sentences as lines the panel fits (at most six: a long turn is
    summed up by its first sentences; the game's log has them all)."""
    lines = [line for sentence in last_move for line in wrap_words(sentence, 96)]
    return lines[:6]


def _last_move_frame(layout: dict[str, Any], pid: str) -> str:
    x, y = layout["provinces"][pid]
    return (
        f'<rect id="last-move-{escape(pid)}" x="{x - NODE_W // 2 - 6}" y="{y - NODE_H // 2 - 6}" '
        f'width="{NODE_W + 12}" height="{NODE_H + 12}" rx="13" fill="none" '
        f'stroke="{LAST_MOVE}" stroke-width="5"/>'
    )


def _last_move(lines: list[str], top: int) -> list[str]:
    out = []
    for i, line in enumerate(lines):
        label = _("Last move: ") if i == 0 else ""
        out.append(
            f'<text x="20" y="{top + 4 + 30 * i}" font-size="20" fill="#7a0046">'
            f'<tspan font-weight="bold">{label}</tspan>{escape(line)}</text>'
        )
    return out


#: The neighbours' links as the mailed board draws them: land brown, sea dashed blue.
LAND_LINK = 'stroke="#a08a66" stroke-width="3"'
SEA_LINK = 'stroke="#3d7ea6" stroke-width="2.5" stroke-dasharray="7 5"'


def borders(
    board: Board, pos: Mapping[str, Any], land: str = LAND_LINK, sea: str = SEA_LINK
) -> list[str]:
    """The neighbours' links, centre to centre (``pos``: each province's centre), in the
    ``land`` and ``sea`` strokes."""
    sea_pairs = {frozenset(pair) for pair in board.sea_arrows}
    out = []
    for a in board.provinces:
        for b in board.provinces:
            if a.index < b.index and board.neighbours[a.index] >> b.index & 1:
                (x1, y1), (x2, y2) = pos[a.id], pos[b.id]
                style = sea if frozenset((a.index, b.index)) in sea_pairs else land
                out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" {style}/>')
    return out


def _decorations(layout: dict[str, Any]) -> list[str]:
    out = []
    for name, (x, y) in layout["decorations"].items():
        out.append(
            f'<ellipse cx="{x}" cy="{y}" rx="16" ry="26" fill="#d9d2bf" stroke="#a99f86"/>'
            f'<text x="{x}" y="{y + 42}" font-size="10" fill="#6b6455" text-anchor="middle">'
            f"{escape(name.title())} (no stones)</text>"
        )
    return out


def _province(
    board: Board, layout: dict[str, Any], pid: str, frontier: bool, view: dict[str, Any]
) -> str:
    x, y = layout["provinces"][pid]
    left, top = x - NODE_W // 2, y - NODE_H // 2
    info = view["provinces"][pid]
    century = info["pacified"]
    fill = "#d8d4c8" if century else "#fbf6e8"
    stroke = FRONTIER if frontier else "#6d5d3f"
    name = say_word(board.provinces[board.province(pid).index].name)
    out = [
        f'<g id="province-{escape(pid)}">',
        f'<rect x="{left}" y="{top}" width="{NODE_W}" height="{NODE_H}" rx="9" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{3 if frontier else 1.5}"/>',
        f'<text x="{x}" y="{top + 15}" font-size="12" font-weight="bold" text-anchor="middle" '
        f'fill="#2d2416">{escape(name)}</text>',
        f'<text x="{left + 6}" y="{top + NODE_H - 6}" font-size="9" fill="#6b5b3e">'
        f"{escape(pid)}</text>",
    ]
    if century:
        out.append(
            f'<rect x="{left + NODE_W - 30}" y="{top + NODE_H - 18}" width="26" height="14" '
            f'rx="3" fill="#5b4a2e"/><text x="{left + NODE_W - 17}" y="{top + NODE_H - 7}" '
            f'font-size="9" fill="#fff" text-anchor="middle">{ROMAN.get(century, century)}</text>'
        )
    out += _stones(board, info["stones"], left + 10, top + 30)
    out.append("</g>")
    return "".join(out)


def _stones(board: Board, stones: dict[str, int], x: int, y: int) -> list[str]:
    out = []
    for people in board.peoples:
        for _stone in range(stones.get(people.id, 0)):
            colour = PEOPLE_FILL.get(people.colour, "#888")
            out.append(
                f'<rect x="{x}" y="{y}" width="15" height="15" rx="3" fill="{colour}" '
                f'stroke="#fff" stroke-width="1"><title>{escape(say_word(people.name_en))}'
                "</title></rect>"
            )
            x += 18
    return out


#: The action tiles as the picture names them (the view's ids with spaces).
ACTION_TILE_WORDS = (N_("double turn"), N_("swap"), N_("two influence"))


def panel_facts(board: Board, view: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """The panels' words and numbers: the century track, the peoples' supply, the scores and
    the influence table, as the mailed picture draws them and the web table shows them in
    HTML (attila_table.panel), so that the two agree."""
    players = view["players"]
    return {
        "century": _(
            "Century %(century)s: %(influence)s influence per stone",
            century=ROMAN.get(view["century"], view["century"]),
            influence=view["influence_per_stone"],
        ),
        "tiles": [
            f"{ROMAN.get(int(century), century)}: "
            + ngettext("%(num)d tile", "%(num)d tiles", tiles)
            for century, tiles in view["pacification_tiles"].items()
        ],
        "peoples": [
            {
                "id": people.id,
                "letter": people.letter,
                "name": say_word(people.name_en),
                "colour": PEOPLE_FILL.get(people.colour, "#888"),
                "supply": view["supply"][people.id],
                "influence": [
                    str(field) if field else "–" for field in view["influence"][people.id]
                ],
            }
            for people in board.peoples
        ],
        "seats": [_seat_facts(view, seat, names) for seat in range(players)],
    }


def _seat_facts(view: dict[str, Any], seat: int, names: Sequence[str]) -> dict[str, Any]:
    marker = " ◀ " + _("to play") if seat == view["active"] and not view["result"] else ""
    marker += resigned_mark(view, seat)
    won = view["result"] and seat in view["result"]["winners"]
    winner = " ★ " + _("winner") if won else ""
    tiles = ", ".join(_(t.replace("_", " ")) for t in view["action_tiles"][seat]) or _("none")
    return {
        "seat": seat,
        "label": seat_label(names, seat),
        "short": names[seat][:8]
        if seat < len(names) and names[seat]
        else _("Seat %(seat)s", seat=seat),
        "points": ngettext("%(num)d point", "%(num)d points", view["scores"][seat]),
        "marks": f"{marker}{winner}",
        "cards": ngettext("%(num)d card", "%(num)d cards", view["hand_counts"][seat]),
        "tiles": _("action tiles: %(tiles)s", tiles=tiles),
    }


def _legend(facts: dict[str, Any], width: int, marked: bool) -> list[str]:
    """Every mark of the picture, in type readable at mail width (the picture at half size)."""
    x, y = width - 262, 30
    rows = len(facts["peoples"])
    out = [
        f'<rect x="{x - 12}" y="{y - 24}" width="268" height="{166 + 24 * rows}" '
        'rx="8" fill="#ffffffdd" stroke="#9fb4c2"/>',
        f'<text x="{x}" y="{y}" font-size="17" font-weight="bold">'
        + _("Peoples (supply)")
        + "</text>",
    ]
    for i, people in enumerate(facts["peoples"]):
        yy = y + 26 + 24 * i
        out.append(
            f'<rect x="{x}" y="{yy - 14}" width="17" height="17" rx="3" '
            f'fill="{people["colour"]}"/>'
            f'<text x="{x + 26}" y="{yy}" font-size="15">{people["letter"]}  '
            f"{escape(people['name'])} ({people['supply']})</text>"
        )
    yy = y + 24 * rows + 30
    samples = [
        (
            f'<line x1="{x}" y1="{yy - 5}" x2="{x + 24}" y2="{yy - 5}" stroke="#a08a66" '
            'stroke-width="3"/>',
            _("land border"),
        ),
        (
            f'<line x1="{x}" y1="{yy + 19}" x2="{x + 24}" y2="{yy + 19}" stroke="#3d7ea6" '
            'stroke-width="2.5" stroke-dasharray="7 5"/>',
            _("sea arrow"),
        ),
        (
            f'<rect x="{x}" y="{yy + 38}" width="24" height="16" rx="4" fill="#fbf6e8" '
            f'stroke="{FRONTIER}" stroke-width="3"/>',
            _("frontier province"),
        ),
        (
            f'<rect x="{x}" y="{yy + 62}" width="24" height="16" rx="4" fill="#d8d4c8" '
            'stroke="#6d5d3f"/>',
            _("pacified (century)"),
        ),
        (
            f'<rect x="{x}" y="{yy + 86}" width="24" height="16" rx="4" fill="none" '
            f'stroke="{LAST_MOVE}" stroke-width="3.5"/>',
            _("last move (see below)") if marked else _("last move (none shown)"),
        ),
        (
            f"{seat_mark(0, x + 6, yy + 115, 6)}{seat_mark(1, x + 21, yy + 115, 6)}",
            _("players (by shape)"),
        ),
    ]
    for k, (sample, text) in enumerate(samples):
        out.append(f'{sample}<text x="{x + 34}" y="{yy + 24 * k}" font-size="15">{text}</text>')
    return out


def _panel(facts: dict[str, Any], top: int) -> list[str]:
    """Century, scores and influence, in type that stays readable at mail width (600 px, where
    the picture is drawn at half size)."""
    out = [
        f'<text x="20" y="{top + 34}" font-size="21" font-weight="bold">{facts["century"]}</text>'
    ]
    for k, tiles in enumerate(facts["tiles"]):
        out.append(f'<text x="{20 + 135 * k}" y="{top + 64}" font-size="17">{tiles}</text>')
    out += _scores(facts["seats"], top + 104)
    out += _influence(facts, top)
    return out


def _scores(seats: list[dict[str, Any]], y: int) -> list[str]:
    out = [f'<text x="20" y="{y}" font-size="21" font-weight="bold">' + _("Scores") + "</text>"]
    for seat in seats:
        yy = y + 30 + 48 * seat["seat"]
        out.append(
            f"{seat_mark(seat['seat'], 32, yy - 7, 9)}"
            f'<text x="50" y="{yy}" font-size="19"><tspan font-weight="bold">'
            f"{escape(seat['label'])}</tspan>: {seat['points']}{seat['marks']}</text>"
            f'<text x="50" y="{yy + 21}" font-size="16" fill="#4a4236">'
            f"{seat['cards']} · {escape(seat['tiles'])}</text>"
        )
    return out


def _influence(facts: dict[str, Any], top: int) -> list[str]:
    x0, y0 = 640, top + 34
    seats = facts["seats"]
    column = 110 if len(seats) <= 4 else 100  # five columns end 40 px inside the picture
    out = [
        f'<text x="{x0}" y="{y0}" font-size="21" font-weight="bold">'
        + _("Influence (of 22)")
        + "</text>"
    ]
    for seat in seats:
        cx = x0 + 160 + column * seat["seat"]
        out.append(
            f"{seat_mark(seat['seat'], cx, y0 + 22, 7)}"
            f'<text x="{cx}" y="{y0 + 48}" font-size="15" text-anchor="middle">'
            f"{escape(seat['short'])}</text>"
        )
    for i, people in enumerate(facts["peoples"]):
        yy = y0 + 78 + 30 * i
        out.append(
            f'<rect x="{x0}" y="{yy - 16}" width="18" height="18" rx="3" '
            f'fill="{people["colour"]}"/>'
            f'<text x="{x0 + 28}" y="{yy}" font-size="18">{escape(people["name"])}</text>'
        )
        for seat, text in enumerate(people["influence"]):
            out.append(
                f'<text x="{x0 + 160 + column * seat}" y="{yy}" font-size="18" '
                f'text-anchor="middle">{text}</text>'
            )
    return out
