"""A plain-text summary of an Attika view, for emails and terminals.

Like the picture, it only reads a view, so it shows exactly what that seat may see: the
recipient's own hand, never anyone else's, and never the order of a stack or of the deck.
Buildings are written by their data id and hexes as ``q,r``, the way moves are written.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.attika.board import Board
from service.pictures import seat_text
from service.pictures.attika import colour_names


def summary(board: Board, view: dict[str, Any], *, names: Sequence[str] = ()) -> str:
    # Each seat as the text names it, "Anna (seat 0) (red)": the colour is the game's own.
    colours = [
        f"{seat_text(names, seat)} ({colour})"
        for seat, colour in enumerate(colour_names(board, view["players"]))
    ]
    lines = [*_headline(board, view, colours), ""]
    if "hand" in view:
        lines += [f"Your hand: {_hand(board, view['hand'])}", ""]
    lines += [*_seats(board, view, colours), ""]
    lines += [*_buildings(view, colours), ""]
    lines += _map(board, view)
    return "\n".join(lines).rstrip() + "\n"


def _who(seat: int, colours: list[str]) -> str:
    return colours[seat]


def _headline(board: Board, view: dict[str, Any], colours: list[str]) -> list[str]:
    supply = (
        f"Deck: {_n(view['deck'], 'card')}. Discard: {_counts(board, view['discard']) or 'empty'}. "
        f"Amphorae in supply: {view['amphora_supply']}. Map tiles face down: {view['tile_pile']}."
    )
    result = view["result"]
    if result:
        winners = ", ".join(_who(s, colours) for s in result["winners"])
        reasons = ", ".join(r.replace("_", " ") for r in result.get("reasons", []))
        scores = ", ".join(
            f"{_who(seat, colours)} {n}" for seat, n in enumerate(result.get("scores", []))
        )
        return [
            f"The game is over ({reasons}). Winner: {winners}.",
            f"Buildings on the map: {scores}.",
            supply,
        ]
    out = [f"Turn {view['turn']}, {_who(view['active'], colours)} to play. {_actions(view)}"]
    if view["revealed"]:
        revealed = view["revealed"]
        out.append(
            f"Revealed from stack {revealed['stack']}: {revealed['building']}. "
            "Build it or store it."
        )
    if view["drawn_tile"]:
        out.append(f"Map tile {view['drawn_tile']} drawn: place it (tile at q,r rot k).")
    out.append(supply)
    return out


def _actions(view: dict[str, Any]) -> str:
    left = view["actions_left"]
    if view["mode"] is None:
        return (
            f"Up to {left.get('reveal', 0)} reveals or up to {left.get('build', 0)} builds, or end."
        )
    if view["mode"] == "draw":
        return "The remaining actions became cards: spend amphorae for more, or end."
    return f"{view['mode'].title()} turn: {left.get(view['mode'], 0)} action(s) left."


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _counts(board: Board, counts: dict[str, int]) -> str:
    return " ".join(f"{n}{board.resource(kind).letter}" for kind, n in counts.items() if n)


def _hand(board: Board, hand: dict[str, int]) -> str:
    total = sum(hand.values())
    if not total:
        return "no cards"
    return f"{_counts(board, hand)} ({total} card{'s' if total != 1 else ''})"


def _seats(board: Board, view: dict[str, Any], colours: list[str]) -> list[str]:
    out = ["Players (stacks: buildings left in stack 1 = main, 2, 3, 4):"]
    for seat, info in enumerate(view["seats"]):
        you = " (you)" if seat == view.get("seat") else ""
        out.append(
            f"  {_who(seat, colours)}{you}: {len(info['built'])}/{len(board.buildings)} built, "
            f"{info['settlements']} settlement(s), {info['amphorae']} amphora(e), "
            f"{info['cards']} card(s), stacks {' '.join(str(n) for n in info['stacks'])}"
        )
        out.append(f"    storage board: {', '.join(info['storage']) or 'empty'}")
        if info["groups_complete"]:
            out.append(f"    groups complete: {', '.join(info['groups_complete'])}")
    return out


def _buildings(view: dict[str, Any], colours: list[str]) -> list[str]:
    out = ["Buildings on the map:"]
    for seat, info in enumerate(view["seats"]):
        built = sorted(info["built"].items(), key=lambda item: item[0])
        # A no-break space keeps each "building hex" pair on one line when wrapping.
        text = ", ".join(f"{building}\u00a0{hex_}" for building, hex_ in built)
        wrapped = textwrap.wrap(
            f"{_who(seat, colours)}: {text or 'none yet'}",
            92,
            initial_indent="  ",
            subsequent_indent="    ",
            break_on_hyphens=False,
        )
        out += [line.replace("\u00a0", " ") for line in wrapped]
    return out


def _map(board: Board, view: dict[str, Any]) -> list[str]:
    free = [cell for cell in view["map"] if not cell["building"]]
    symbols = Counter(cell["landscape"] for cell in free if cell["landscape"])
    ordered = {r.id: symbols[r.id] for r in board.resources}
    return [
        f"Map: {len(view['map'])} hexes on {len(view['tiles'])} tiles, {len(free)} free "
        f"(free landscape symbols: {_counts(board, ordered) or 'none'}).",
        f"Shrines (never built on): {' '.join(view['shrines'])}.",
        "See board.svg for the map; each hex there shows its q,r.",
    ]
