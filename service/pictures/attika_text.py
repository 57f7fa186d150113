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
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.i18n import say_word
from service.pictures import resigned_mark, seat_text
from service.pictures.attika import colour_names


def summary(board: Board, view: dict[str, Any], *, names: Sequence[str] = ()) -> str:
    # Each seat as the text names it, "Anna (seat 0) (red)": the colour is the game's own.
    colours = [
        f"{seat_text(names, seat)} ({colour})"
        for seat, colour in enumerate(_(c) for c in colour_names(board, view["players"]))
    ]
    lines = [*_headline(board, view, colours), ""]
    if "hand" in view:
        lines += [_("Your hand: %(cards)s", cards=_hand(board, view["hand"])), ""]
    lines += [*_seats(board, view, colours), ""]
    lines += [*_buildings(board, view, colours), ""]
    lines += _map(board, view)
    return "\n".join(lines).rstrip() + "\n"


def _who(seat: int, colours: list[str]) -> str:
    return colours[seat]


def _headline(board: Board, view: dict[str, Any], colours: list[str]) -> list[str]:
    supply = _(
        "Deck: %(deck)s. Discard: %(discard)s. Amphorae in supply: %(amphorae)s. "
        "Map tiles face down: %(tiles)s.",
        deck=ngettext("%(num)d card", "%(num)d cards", view["deck"]),
        discard=_counts(board, view["discard"]) or _("empty"),
        amphorae=view["amphora_supply"],
        tiles=view["tile_pile"],
    )
    result = view["result"]
    if result:
        winners = ", ".join(_who(s, colours) for s in result["winners"])
        reasons = ", ".join(_(r.replace("_", " ")) for r in result.get("reasons", []))
        scores = ", ".join(
            f"{_who(seat, colours)} {n}" for seat, n in enumerate(result.get("scores", []))
        )
        return [
            _(
                "The game is over (%(reasons)s). Winner: %(winners)s.",
                reasons=reasons,
                winners=winners,
            ),
            _("Buildings on the map: %(scores)s", scores=scores) + ".",
            supply,
        ]
    turn = _(
        "Turn %(turn)s, %(player)s to play.",
        turn=view["turn"],
        player=_who(view["active"], colours),
    )
    out = [f"{turn} {_actions(view)}"]
    if view["revealed"]:
        revealed = view["revealed"]
        out.append(
            _(
                "Revealed from stack %(stack)s: %(building)s. Build it or store it.",
                stack=revealed["stack"],
                building=revealed["building"],
            )
        )
    if view["drawn_tile"]:
        out.append(
            _("Map tile %(tile)s drawn: place it (tile at q,r rot k).", tile=view["drawn_tile"])
        )
    out.append(supply)
    return out


def _actions(view: dict[str, Any]) -> str:
    left = view["actions_left"]
    if view["mode"] is None:
        return _(
            "Up to %(reveals)s reveals or up to %(builds)s builds, or end.",
            reveals=left.get("reveal", 0),
            builds=left.get("build", 0),
        )
    if view["mode"] == "draw":
        return _("The remaining actions became cards: spend amphorae for more, or end.")
    title = view["mode"].title()  # "Reveal", "Build" (marked in service/pictures/attika.py)
    left_now = left.get(view["mode"], 0)
    return _("%(mode)s turn: %(left)s action(s) left", mode=_(title), left=left_now) + "."


def _counts(board: Board, counts: dict[str, int]) -> str:
    return " ".join(f"{n}{board.resource(kind).letter}" for kind, n in counts.items() if n)


def _hand(board: Board, hand: dict[str, int]) -> str:
    total = sum(hand.values())
    if not total:
        return _("no cards")
    cards = ngettext("%(num)d card", "%(num)d cards", total)
    return f"{_counts(board, hand)} ({cards})"


def _seats(board: Board, view: dict[str, Any], colours: list[str]) -> list[str]:
    out = [_("Players (stacks: buildings left in stack 1 = main, 2, 3, 4):")]
    for seat, info in enumerate(view["seats"]):
        you = " " + _("(you)") if seat == view.get("seat") else ""
        you += resigned_mark(view, seat)
        out.append(f"  {_who(seat, colours)}{you}: {_state(board, info)}")
        stored = ", ".join(_building_word(board, b) for b in info["storage"]) or _("empty")
        out.append("    " + _("storage board: %(buildings)s", buildings=stored))
        if info["groups_complete"]:
            done = ", ".join(
                say_word(next(g for g in board.groups if g.id == group).name_en)
                for group in info["groups_complete"]
            )
            out.append("    " + _("groups complete: %(groups)s", groups=done))
    return out


def _state(board: Board, info: dict[str, Any]) -> str:
    return _(
        "%(built)s/%(all)s built, %(settlements)s settlement(s), %(amphorae)s amphora(e), "
        "%(cards)s card(s), stacks %(stacks)s",
        built=len(info["built"]),
        all=len(board.buildings),
        settlements=info["settlements"],
        amphorae=info["amphorae"],
        cards=info["cards"],
        stacks=" ".join(str(n) for n in info["stacks"]),
    )


def seat_facts(board: Board, view: dict[str, Any]) -> list[str]:
    """Each seat's public state in one line, with its colour (the game page's list of
    players): buildings built, settlements, amphorae, cards (a count), the stacks left."""
    colours = [_(c) for c in colour_names(board, view["players"])]
    return [f"{colours[seat]}: {_state(board, info)}" for seat, info in enumerate(view["seats"])]


def _building_word(board: Board, building_id: str) -> str:
    """A building in the player's language, with the id a move names it by when that differs
    ("Steinbruch (quarry)"; the notation is the same in every language)."""
    name = say_word(board.building(building_id).name_en)
    return building_id if name.lower() == building_id else f"{name} ({building_id})"


def _buildings(board: Board, view: dict[str, Any], colours: list[str]) -> list[str]:
    out = [_("Buildings on the map:")]
    for seat, info in enumerate(view["seats"]):
        built = sorted(info["built"].items(), key=lambda item: item[0])
        # A no-break space keeps each "building hex" pair on one line when wrapping.
        text = ", ".join(
            f"{_building_word(board, building)}\u00a0{hex_}".replace(" ", "\u00a0")
            for building, hex_ in built
        )
        shown = text or _("none yet")
        wrapped = textwrap.wrap(
            f"{_who(seat, colours)}: {shown}",
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
        _(
            "Map: %(hexes)s hexes on %(tiles)s tiles, %(free)s free (free landscape symbols: "
            "%(symbols)s).",
            hexes=len(view["map"]),
            tiles=len(view["tiles"]),
            free=len(free),
            symbols=_counts(board, ordered) or _("none"),
        ),
        _("Shrines (never built on): %(hexes)s.", hexes=" ".join(view["shrines"])),
        _("See board.svg for the map; each hex there shows its q,r."),
    ]
