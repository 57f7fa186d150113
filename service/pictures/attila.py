"""An SVG picture of an Attila game, drawn from the spectator view only.

Drawing from ``GAME.view(state, None)`` means the picture cannot show a hand, the draw pile
or an unrevealed conflict card, whoever asks for it. The board is the map the web table
shows (``attila_map``: the same regions, names, chips and marks), with the title and the
legend beside it and the century, scores and influence table under it, as a mail is a print.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from engine.attila.board import Board
from engine.attila.touched import touched
from engine.core import Event
from engine.sentences import N_
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.i18n import say_word
from service.pictures import LAST_MOVE, attila_map, resigned_mark, seat_label, wrap_words
from service.pictures.attila_map import (
    FRONTIER,
    LAND_FILL,
    OUTLINE,
    PACIFIED_FILL,
    PEOPLE_FILL,
    ROMAN,
    SEA_LINK,
)

#: Players are marked by shape, in black and white: the six colours belong to the peoples.
SEAT_SHAPES = ["circle", "square", "triangle", "diamond", "star"]
PANEL_H = 360
#: The picture's width: the map, and the title and legend in a column beside it.
WIDTH = 1240


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
    map_width, map_height = attila_map.width(), attila_map.height()
    marked = touched(events) & {p.id for p in board.provinces}
    told = _told(last_move)
    height = map_height + PANEL_H + 30 * len(told)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="#f6f1e4"/>',
        *attila_map.draw(board, view, events, lit_marks=False),
    ]
    heading, bottom = _heading(title, map_width + 24)
    parts += heading
    facts = panel_facts(board, view, names)
    parts += _legend(facts, map_width + 36, bottom + 56, bool(marked))
    parts += _panel(facts, map_height)
    parts += _last_move(told, map_height + PANEL_H)
    parts.append("</svg>")
    return "\n".join(parts)


def _heading(title: str, x: int) -> tuple[list[str], int]:
    """The title and the note that the board is reconstructed, in the column beside the map
    from ``x``: the lines, and where the last of them stands."""
    out = []
    y = 12
    for line in wrap_words(title, 28):
        y += 30
        out.append(
            f'<text x="{x}" y="{y}" font-size="24" font-weight="bold" fill="#213547">'
            f"{escape(line)}</text>"
        )
    y += 6
    note = _("Reconstructed board: not the printed map (see docs/rules/attila.md)")
    for line in wrap_words(note, 52):
        y += 18
        out.append(f'<text x="{x}" y="{y}" font-size="14" fill="#456">{escape(line)}</text>')
    return out, y


def _told(last_move: Sequence[str]) -> list[str]:
    """The last move's sentences as lines the panel fits (at most six: a long turn is
    summed up by its first sentences; the game's log has them all)."""
    lines = [line for sentence in last_move for line in wrap_words(sentence, 96)]
    return lines[:6]


def _last_move(lines: list[str], top: int) -> list[str]:
    out = []
    for i, line in enumerate(lines):
        label = _("Last move: ") if i == 0 else ""
        out.append(
            f'<text x="20" y="{top + 4 + 30 * i}" font-size="20" fill="#7a0046">'
            f'<tspan font-weight="bold">{label}</tspan>{escape(line)}</text>'
        )
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


def _legend(facts: dict[str, Any], x: int, y: int, marked: bool) -> list[str]:
    """Every mark of the picture, in type readable at mail width (the picture at half size),
    in the column beside the map, its first line at (``x``, ``y``)."""
    rows = len(facts["peoples"])
    out = [
        f'<rect x="{x - 12}" y="{y - 24}" width="268" height="{180 + 24 * rows}" '
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
            f'<line x1="{x}" y1="{yy - 5}" x2="{x + 24}" y2="{yy - 5}" stroke="{OUTLINE}" '
            'stroke-width="2"/>',
            _("land border"),
        ),
        (
            f'<line x1="{x}" y1="{yy + 19}" x2="{x + 24}" y2="{yy + 19}" {SEA_LINK}/>',
            _("sea arrow"),
        ),
        (
            f'<rect x="{x}" y="{yy + 38}" width="24" height="16" fill="{LAND_FILL}" '
            f'stroke="{OUTLINE}"/><line x1="{x}" y1="{yy + 40}" x2="{x + 24}" y2="{yy + 40}" '
            f'stroke="{FRONTIER}" stroke-width="5"/>',
            _("frontier province"),
        ),
        (
            f'<rect x="{x}" y="{yy + 62}" width="24" height="16" fill="{PACIFIED_FILL}" '
            f'stroke="{OUTLINE}"/>',
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
