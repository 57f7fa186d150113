"""The game page's table (issue 32): the board picture inline, the player's pieces as controls
(cards, tiles, buildings) and each legal action with what to pick and where it goes on the
board, from the game's own targets table (engine/<game>/targets.py).

As in Lichess's chessground, the page is handed the legal actions and their places (the
engine lists them; ``staged`` asks again after each staged part) and reports the chosen
actions back as one request: the browser decides no rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from engine.attika import targets as attika_targets
from engine.attila import targets as attila_targets
from engine.attila_wargame import targets as wargame_targets
from engine.sentences import translating
from service import pictures
from service.common.i18n import say as _
from service.common.i18n import say_word, spoken_words
from service.common.problems import Problem
from service.domain import rematch
from service.pictures.attika import BLANK_FILL, LAND_FILL
from service.pictures.attila import PEOPLE_FILL
from service.store.record import GameRecord

#: Game types played on the board, and their targets tables.
TABLES: dict[str, Any] = {
    "attila": attila_targets,
    "attika": attika_targets,
    "attila-wargame": wargame_targets,
}
#: Attila's action tiles, in the order the table shows them (used ones greyed).
ATTILA_TILES = ("double_turn", "swap", "two_influence")


def on_board(game_type: str) -> bool:
    return game_type in TABLES


def draws(game_type: str) -> frozenset[str]:
    """The game's events that show what nobody has seen yet (its targets table's ``DRAWS``):
    a part that brings one is sent, not tried (games.staged_record)."""
    return getattr(TABLES[game_type], "DRAWS", frozenset())


#: A march asked through bad waypoints or with command units that cannot go along (the page's
#: question, not a refused move: answered as problem+json).
BAD_MARCH = "bad-march"


def actions(
    record: GameRecord,
    legal: Mapping[str, Any],
    seat: int | None = None,
    focus: str = "",
    via: Sequence[str] = (),
    carry: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The legal actions (``games.legal_actions``' answer, for ``seat`` of ``record``: a
    staged trial's record gives what follows the staged parts) with where each is chosen,
    what a build costs there, and a drawn map tile's shape for its preview; ``focus``: the
    piece picked up (a wargame counter), whose marches the game's table works out, through
    the waypoints ``via`` and with the command units ``carry`` (None: the game's default)."""
    table = TABLES[record.type]
    game = record.game
    board = game.board  # type: ignore[attr-defined]
    costs = getattr(table, "costs", None)
    details = getattr(table, "details", None)
    march = getattr(table, "march", None)
    wanted = costs or details or (march and focus)
    state = game.load(record.state) if wanted and seat is not None and record.state else None
    raw = [action["action"] for action in legal["actions"]]
    rules = getattr(game, "rules", None)  # the game's full rules (Attika's quotes costs)
    prices = costs(rules, state, seat, raw) if costs and state is not None else [None] * len(raw)
    shown = (
        details(rules, state, seat, [game.action_from_json(a) for a in raw])
        if (details and state is not None)
        else [{}] * len(raw)
    )
    out = []
    for action, price, more in zip(legal["actions"], prices, shown, strict=True):
        where = table.target(board, action["action"])
        if price is not None:
            where["cost"] = _("costs %(cost)s", cost=price)
        out.append({"n": action["notation"], **where, **more})
    labels = {pick: _(text) for pick, text in table.PICK_LABELS.items()}
    if hasattr(table, "card_names"):
        labels |= table.card_names(board)
    shape = getattr(table, "tile_shape", None)
    tile = None
    if shape and state is not None and any(a.get("rotation") is not None for a in out):
        tile = _tile_preview(shape(board, game.view(state, None)))
    return {
        "version": legal["version"],
        "decision": legal["decision"],
        "actions": out,
        "labels": labels,
        "tile": tile,
        "march": _march(march, rules, state, seat, focus, via, carry),
    }


def _march(
    march: Callable[..., dict[str, Any]] | None,
    rules: Any,
    state: Any,
    seat: int | None,
    focus: str,
    via: Sequence[str],
    carry: Sequence[str] | None,
) -> dict[str, Any] | None:
    """The picked-up counter's march (the game's ``march``), or None; a waypoint or a command
    unit the march cannot take is a 422 ``bad-march``, never a 500."""
    if not (march and focus and state is not None):
        if via or carry:
            raise Problem(422, BAD_MARCH, "waypoints and command units go with a counter picked up")
        return None
    try:
        found = march(rules, state, seat, focus, via, carry)
    except wargame_targets.MarchError as error:
        raise Problem(422, BAD_MARCH, str(error), via=list(via)) from None
    # The engine's reasons are fixed English words (marked N_): said in the page's language.
    found["closed"] = {hex_: _(why) for hex_, why in found["closed"].items()}
    for where in found["reach"].values():
        if where["stop"]:
            where["stop"] = _(where["stop"])
    if "stuck" in found:
        found["stuck"] = _(found["stuck"])
    return found


def _tile_preview(shape: list[list[list[Any]]] | None) -> list[list[list[Any]]] | None:
    """A map tile's hexes per rotation with the fill the picture gives each landscape."""
    if shape is None:
        return None
    return [[[q, r, LAND_FILL.get(land or "", BLANK_FILL)] for q, r, land in rot] for rot in shape]


def open_hexes(record: GameRecord, legal: Mapping[str, Any] | None) -> list[str]:
    """The empty places the picture draws for this seat's legal actions (a map tile's)."""
    find = getattr(TABLES[record.type], "open_hexes", None)
    if not find or not legal:
        return []
    board = record.game.board  # type: ignore[attr-defined]
    return list(find(board, [a["action"] for a in legal["actions"]]))


def board_svg(
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    lang: str,
    open_places: list[str] | None = None,
    have: Collection[str] = (),
) -> Markup:
    """The spectators' picture of this version, to be inlined: the page lights its places up.
    The picture is drawn from the spectator view only, whoever looks (nothing hidden in it);
    ``open_places``: empty hexes to draw as well (``open_hexes``: public geometry); ``have``:
    the unchanging parts the page shows already, sent empty (service/pictures/keep.py)."""
    last = rematch.last_move_events(entries)
    title = f"{record.game.title} · {record.id} · {record.version}"
    _crop, svg = pictures.spectator_pictures(
        record, last, title, lang=lang, open_hexes=open_places or (), have=have
    )
    return inline(svg)


def inline(svg: str) -> Markup:
    """A board picture to put in a page (the table's, a replayed version's)."""
    # Scales with the page (CSS sizes it); ids stay as the picture module draws them.
    label = escape(_("The board"))
    svg = svg.replace("<svg ", f'<svg class="board-svg" role="group" aria-label="{label}" ', 1)
    return Markup(svg)


def places(record: GameRecord, view: Mapping[str, Any] | None) -> dict[str, str]:
    if view is None:
        return {}
    board = record.game.board  # type: ignore[attr-defined]
    with translating(spoken_words()):  # the wargame's counters' names in the page's language
        return TABLES[record.type].places(board, dict(view))


def pieces(record: GameRecord, view: Mapping[str, Any] | None, seat: int | None) -> dict[str, Any]:
    """The seat's own pieces as the table shows them: Attila's hand as cards grouped by people
    (their colour and name) and the action tiles; Attika's storage board, stacks, the building
    revealed and the drawn tile."""
    if view is None or seat is None:
        return {"cards": [], "tiles": [], "buildings": [], "stacks": []}
    board = record.game.board  # type: ignore[attr-defined]
    build: Callable[..., dict[str, Any]] = _PIECES[record.type]
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
        buildings.insert(0, building(view["revealed"]["building"], "revealed"))
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


def _no_pieces(board: Any, view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The wargame has no hand: its counters are on the map and its cards come with the
    battle (the page shows the legal cards as cards, wargame.js)."""
    return {"cards": [], "tiles": [], "buildings": [], "stacks": []}


_PIECES: dict[str, Callable[..., dict[str, Any]]] = {
    "attila": _attila_pieces,
    "attika": _attika_pieces,
    "attila-wargame": _no_pieces,
}
