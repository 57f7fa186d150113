"""A plain-text summary of an Attila view, for emails and terminals.

Like the picture, it only reads a view, so it shows exactly what that seat may see: the
recipient's own hand and conflict cards, never anyone else's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.attila.board import Board
from service.pictures import seat_text

ROMAN = {4: "IV", 5: "V", 6: "VI", 7: "VII"}


def summary(board: Board, view: dict[str, Any], *, names: Sequence[str] = ()) -> str:
    lines = [_headline(view, names), ""]
    if "hand" in view:
        lines += [f"Your hand: {_cards(board, view['hand']) or '(empty)'}", ""]
    if view["conflict"]:
        lines += [*_conflict(board, view["conflict"], names), ""]
    lines += [*_scores(view, names), ""]
    lines += [*_influence(board, view), ""]
    lines += _provinces(board, view)
    return "\n".join(lines).rstrip() + "\n"


def _headline(view: dict[str, Any], names: Sequence[str]) -> str:
    if view["result"]:
        winners = ", ".join(seat_text(names, s) for s in view["result"]["winners"])
        return f"The game is over. Winner: {winners}."
    century = ROMAN.get(view["century"], str(view["century"]))
    tiles = " ".join(f"{ROMAN.get(int(c), c)}:{n}" for c, n in view["pacification_tiles"].items())
    return (
        f"Turn {view['turn']}, {seat_text(names, view['active'])} to play. Century {century} "
        f"({view['influence_per_stone']} influence per stone). Pacification tiles left: {tiles}. "
        f"Draw pile: {view['draw_pile']} cards."
    )


def _cards(board: Board, ids: list[str]) -> str:
    return " ".join(board.people(pid).letter for pid in ids)


def _conflict(board: Board, conflict: dict[str, Any], names: Sequence[str]) -> list[str]:
    peoples = ", ".join(board.people(p).name_en for p in conflict["peoples"])
    laid = ", ".join(
        f"{seat_text(names, int(s))}: " + (f"{n} card(s)" if n is not True else "laid")
        for s, n in conflict["committed"].items()
    )
    out = [f"Conflict in {conflict['province']} between {peoples}. Laid so far: {laid or 'none'}."]
    if "own_cards" in conflict:
        out.append(f"Your cards in it: {_cards(board, conflict['own_cards']) or 'none (pass)'}")
    return out


def _scores(view: dict[str, Any], names: Sequence[str]) -> list[str]:
    out = ["Scores:"]
    for seat, points in enumerate(view["scores"]):
        you = " (you)" if seat == view.get("seat") else ""
        tiles = ", ".join(t.replace("_", " ") for t in view["action_tiles"][seat]) or "none"
        out.append(
            f"  {seat_text(names, seat)}{you}: {points} points, {view['hand_counts'][seat]} cards, "
            f"action tiles: {tiles}"
        )
    return out


def _influence(board: Board, view: dict[str, Any]) -> list[str]:
    seats = range(view["players"])
    out = ["Influence (field per seat, '-' = no counter):"]
    out.append("  " + " " * 10 + "".join(f"{'s' + str(s):>5}" for s in seats) + "  supply")
    for people in board.peoples:
        fields = view["influence"][people.id]
        cells = "".join(f"{(f or '-')!s:>5}" for f in fields)
        label = f"{people.letter} {people.name_en}"
        out.append(f"  {label:<10}{cells}  {view['supply'][people.id]:>6}")
    return out


def _provinces(board: Board, view: dict[str, Any]) -> list[str]:
    out = ["Provinces with stones (pacified: century of the tile):"]
    for province in board.provinces:
        info = view["provinces"][province.id]
        if not info["stones"] and not info["pacified"]:
            continue
        stones = " ".join(board.people(pid).letter * count for pid, count in info["stones"].items())
        tile = f" [pacified {ROMAN.get(info['pacified'])}]" if info["pacified"] else ""
        out.append(f"  {province.id} {province.name}: {stones or 'empty'}{tile}")
    if len(out) == 1:
        out.append(
            "  none yet (first stones go to a frontier province: "
            + ", ".join(p.id for p in board.provinces if p.frontier)
            + ")"
        )
    return out
