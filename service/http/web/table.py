"""The game page's table (issue 32): the board picture inline, the player's pieces as controls
(cards, tiles, buildings) and each legal action with what to pick and where it goes on the
board, from the game's own targets table (engine/<game>/targets.py).

As in Lichess's chessground, the page is handed the legal actions and their places (the
engine lists them; ``staged`` asks again after each staged part) and reports the chosen
actions back as one request: the browser decides no rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import Markup

from engine.attika import targets as attika_targets
from engine.attila import targets as attila_targets
from service import pictures
from service.common.i18n import say as _
from service.common.i18n import say_word
from service.pictures.attila import PEOPLE_FILL
from service.store.record import GameRecord

#: Game types played on the board, and their targets tables.
TABLES: dict[str, Any] = {"attila": attila_targets, "attika": attika_targets}
#: Attila's action tiles, in the order the table shows them (used ones greyed).
ATTILA_TILES = ("double_turn", "swap", "two_influence")


def on_board(game_type: str) -> bool:
    return game_type in TABLES


def actions(record: GameRecord, legal: Mapping[str, Any]) -> dict[str, Any]:
    """The legal actions (``games.legal_actions``' answer) with where each is chosen."""
    table = TABLES[record.type]
    board = record.game.board  # type: ignore[attr-defined]
    out = []
    for action in legal["actions"]:
        where = table.target(board, action["action"])
        out.append({"n": action["notation"], **where})
    labels = {pick: _(text) for pick, text in table.PICK_LABELS.items()}
    return {
        "version": legal["version"],
        "decision": legal["decision"],
        "actions": out,
        "labels": labels,
    }


def board_svg(record: GameRecord, entries: list[tuple[int, dict[str, Any]]], lang: str) -> Markup:
    """The spectators' picture of this version, to be inlined: the page lights its places up.
    The picture is drawn from the spectator view only, whoever looks (nothing hidden in it)."""
    last = entries[-1][1]["events"] if entries else []
    title = f"{record.game.title} · {record.id} · {record.version}"
    _crop, svg = pictures.spectator_pictures(record, last, title, lang=lang)
    # Scales with the page (CSS sizes it); ids stay as the picture module draws them.
    svg = svg.replace("<svg ", '<svg class="board-svg" role="group" aria-label="board" ', 1)
    return Markup(svg)


def places(record: GameRecord, view: Mapping[str, Any] | None) -> dict[str, str]:
    if view is None:
        return {}
    board = record.game.board  # type: ignore[attr-defined]
    return TABLES[record.type].places(board, dict(view))


def pieces(record: GameRecord, view: Mapping[str, Any] | None, seat: int | None) -> dict[str, Any]:
    """The seat's own pieces as the table shows them: Attila's hand as cards grouped by people
    (their colour and name) and the action tiles; Attika's storage board, stacks, the building
    revealed and the drawn tile."""
    if view is None or seat is None:
        return {"cards": [], "tiles": [], "buildings": [], "stacks": []}
    board = record.game.board  # type: ignore[attr-defined]
    build: Callable[..., dict[str, Any]] = (
        _attila_pieces if record.type == "attila" else _attika_pieces
    )
    return build(board, view, seat)


def _attila_pieces(board: Any, view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    counts = Counter(view.get("hand") or [])
    cards = [
        {
            "pick": f"card:{p.id}",
            "id": p.id,
            "letter": p.letter,
            "name": say_word(p.name_en),
            "count": counts[p.id],
            "colour": PEOPLE_FILL.get(p.colour, "#888"),
        }
        for p in board.peoples
        if counts[p.id]
    ]
    mine = set(view["action_tiles"][seat])
    tiles = [
        {"pick": f"tile:{t}", "name": _(t.replace("_", " ")), "used": t not in mine}
        for t in ATTILA_TILES
    ]
    return {"cards": cards, "tiles": tiles, "buildings": [], "stacks": []}


def _attika_pieces(board: Any, view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    own = view["seats"][seat]
    names = {b.id: b for b in board.buildings}

    def building(bid: str, where: str) -> dict[str, Any]:
        b = names[bid]
        cost = ", ".join(f"{n} {board.resources[i].id}" for i, n in enumerate(b.cost) if n)
        return {
            "pick": f"building:{bid}",
            "name": say_word(b.name_en),
            "cost": cost,
            "where": where,
        }

    buildings = [building(bid, "storage") for bid in own.get("storage", [])]
    if view.get("revealed"):
        buildings.insert(0, building(view["revealed"], "revealed"))
    stacks = [
        {"pick": f"stack:{i + 1}", "name": _("Stack %(n)s", n=i + 1), "count": n}
        for i, n in enumerate(own.get("stacks", []))
    ]
    hand = view.get("hand") or {}
    cards = [
        {
            "pick": f"resource:{res}",
            "id": res,
            "letter": res[:1].upper(),
            "name": say_word(res),
            "count": n,
            "colour": "#8a7a55",
        }
        for res, n in (hand.items() if isinstance(hand, dict) else [])
        if n
    ]
    return {"cards": cards, "tiles": [], "buildings": buildings, "stacks": stacks}
