"""A plain-text summary of an Attila view, for emails and terminals.

Like the picture, it only reads a view, so it shows exactly what that seat may see: the
recipient's own hand and conflict cards, never anyone else's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.attila.board import Board
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.i18n import say_word
from service.pictures import resigned_mark, seat_text
from service.pictures.attila import SEAT_SHAPES

ROMAN = {4: "IV", 5: "V", 6: "VI", 7: "VII"}


def summary(board: Board, view: dict[str, Any], *, names: Sequence[str] = ()) -> str:
    lines = [_headline(view, names), ""]
    if "hand" in view:
        hand = _cards(board, view["hand"]) or _("(empty)")
        lines += [_("Your hand: %(cards)s", cards=hand), ""]
    if view["conflict"]:
        lines += [*_conflict(board, view["conflict"], names), ""]
    lines += [*_scores(board, view, names), ""]
    lines += [*_influence(board, view), ""]
    lines += _provinces(board, view)
    return "\n".join(lines).rstrip() + "\n"


def _headline(view: dict[str, Any], names: Sequence[str]) -> str:
    if view["result"]:
        winners = ", ".join(seat_text(names, s) for s in view["result"]["winners"])
        return _("The game is over. Winner: %(winners)s.", winners=winners)
    century = ROMAN.get(view["century"], str(view["century"]))
    tiles = " ".join(f"{ROMAN.get(int(c), c)}:{n}" for c, n in view["pacification_tiles"].items())
    return _(
        "Turn %(turn)s, %(player)s to play. Century %(century)s (%(influence)s influence per "
        "stone). Pacification tiles left: %(tiles)s. Draw pile: %(draw)s cards.",
        turn=view["turn"],
        player=seat_text(names, view["active"]),
        century=century,
        influence=view["influence_per_stone"],
        tiles=tiles,
        draw=view["draw_pile"],
    )


def _cards(board: Board, ids: list[str]) -> str:
    return " ".join(board.people(pid).letter for pid in ids)


def _conflict(board: Board, conflict: dict[str, Any], names: Sequence[str]) -> list[str]:
    peoples = ", ".join(say_word(board.people(p).name_en) for p in conflict["peoples"])
    laid = ", ".join(
        f"{seat_text(names, int(s))}: "
        + (ngettext("%(num)d card", "%(num)d cards", n) if n is not True else _("laid"))
        for s, n in conflict["committed"].items()
    )
    out = [
        _(
            "Conflict in %(province)s between %(peoples)s. Laid so far: %(laid)s.",
            province=conflict["province"],
            peoples=peoples,
            laid=laid or _("none"),
        )
    ]
    if "own_cards" in conflict:
        own = _cards(board, conflict["own_cards"]) or _("none (pass)")
        out.append(_("Your cards in it: %(cards)s", cards=own))
    return out


def _scores(board: Board, view: dict[str, Any], names: Sequence[str]) -> list[str]:
    out = [_("Scores:")]
    for seat in range(len(view["scores"])):
        you = " " + _("(you)") if seat == view.get("seat") else ""
        you += resigned_mark(view, seat)
        out.append(f"  {seat_text(names, seat)}{you}: {_standing(view, seat)}")
    return out


def _standing(view: dict[str, Any], seat: int) -> str:
    tiles = ", ".join(_(t.replace("_", " ")) for t in view["action_tiles"][seat]) or _("none")
    return _(
        "%(points)s points, %(cards)s cards, action tiles: %(tiles)s",
        points=view["scores"][seat],
        cards=view["hand_counts"][seat],
        tiles=tiles,
    )


#: The seats' shapes on the board (black and white: the colours are the peoples'), as text.
SHAPE_MARKS = {"circle": "○", "square": "□", "triangle": "△", "diamond": "◇", "star": "☆"}


def seat_facts(board: Board, view: dict[str, Any]) -> list[str]:
    """Each seat's public state in one line, after its shape on the board: points, cards in
    hand (a count), action tiles left (the game page's list of players)."""
    return [
        f"{SHAPE_MARKS[SEAT_SHAPES[seat % len(SEAT_SHAPES)]]} {_standing(view, seat)}"
        for seat in range(len(view["scores"]))
    ]


def _influence(board: Board, view: dict[str, Any]) -> list[str]:
    seats = range(view["players"])
    out = [_("Influence (field per seat, '-' = no counter):")]
    out.append("  " + " " * 10 + "".join(f"{'s' + str(s):>5}" for s in seats) + "  " + _("supply"))
    for people in board.peoples:
        fields = view["influence"][people.id]
        cells = "".join(f"{(f or '-')!s:>5}" for f in fields)
        label = f"{people.letter} {say_word(people.name_en)}"
        out.append(f"  {label:<10}{cells}  {view['supply'][people.id]:>6}")
    return out


def _provinces(board: Board, view: dict[str, Any]) -> list[str]:
    out = [_("Provinces with stones (pacified: century of the tile):")]
    for province in board.provinces:
        info = view["provinces"][province.id]
        if not info["stones"] and not info["pacified"]:
            continue
        stones = " ".join(board.people(pid).letter * count for pid, count in info["stones"].items())
        century = ROMAN.get(info["pacified"])
        tile = " [" + _("pacified %(century)s", century=century) + "]" if info["pacified"] else ""
        name = say_word(province.name)
        shown = stones or _("empty")
        out.append(f"  {province.id} {name}: {shown}{tile}")
    if len(out) == 1:
        frontier = ", ".join(p.id for p in board.provinces if p.frontier)
        out.append(
            "  "
            + _(
                "none yet (first stones go to a frontier province: %(provinces)s)",
                provinces=frontier,
            )
        )
    return out
