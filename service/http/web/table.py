"""The game page's table (issue 32): the board picture inline, the player's pieces as controls
(cards, tiles, buildings) and each legal action with what to pick and where it goes on the
board, from the game's own targets table (engine/<game>/targets.py) and the other parts its
kit names (service/kits/).

As in Lichess's chessground, the page is handed the legal actions and their places (the
engine lists them; ``staged`` asks again after each staged part) and reports the chosen
actions back as one request: the browser decides no rule.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from engine.core import BadQuestion
from engine.sentences import translating
from service import kits, pictures
from service.common.i18n import say as _
from service.common.i18n import spoken_words
from service.common.problems import Problem
from service.domain import rematch
from service.store.record import GameRecord

#: The kinds of a seat's pieces the table shows beside the board.
PIECE_KINDS = ("cards", "tiles", "buildings", "stacks")


def table_of(game_type: str) -> kits.Table:
    """The game's table (its kit's): where each action is chosen, and the optional parts."""
    table = kits.kit(game_type).table
    if table is None:
        raise LookupError(f"{game_type} has no table")
    return table


def _part(target: str) -> Any:
    """One of a table's optional parts, loaded; None when the game has none."""
    return kits.load(target) if target else None


def on_board(game_type: str) -> bool:
    return kits.kit(game_type).table is not None


def draws(game_type: str) -> frozenset[str]:
    """The game's events that show what nobody has seen yet (its kit's ``draws``): a part
    that brings one is sent, not tried (games.staged_record)."""
    return _part(table_of(game_type).draws) or frozenset()


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
    what a build costs there, whether it is sent at once (``sends``: the kit's ``sends``), and a
    drawn map tile's shape for its preview; ``focus``: the
    piece picked up (a wargame counter), whose marches the game's table works out, through
    the waypoints ``via`` and with the command units ``carry`` (None: the game's default)."""
    parts = table_of(record.type)
    targets = kits.load(parts.targets)
    game = record.game
    board = game.board
    costs = _part(parts.costs)
    details = _part(parts.details)
    march = _part(parts.march)
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
        where = targets.target(board, action["action"])
        if price is not None:
            where["cost"] = _("costs %(cost)s", cost=price)
        if parts.sends and action["action"].get("type") in parts.sends:
            where["sends"] = True  # sent at once when chosen (kits.Table.sends)
        out.append({"n": action["notation"], **where, **more})
    labels = {pick: _(text) for pick, text in targets.PICK_LABELS.items()}
    card_names = _part(parts.card_names)
    if card_names:
        labels |= card_names(board)
    preview = _part(parts.tile_preview)
    tile = None
    if preview and state is not None and any(a.get("rotation") is not None for a in out):
        tile = preview(board, game.view(state, None))
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
    except BadQuestion as error:
        raise Problem(422, BAD_MARCH, str(error), via=list(via)) from None
    # The engine's reasons are fixed English words (marked N_): said in the page's language.
    found["closed"] = {hex_: _(why) for hex_, why in found["closed"].items()}
    for where in found["reach"].values():
        if where["stop"]:
            where["stop"] = _(where["stop"])
    if "stuck" in found:
        found["stuck"] = _(found["stuck"])
    return found


def open_hexes(record: GameRecord, legal: Mapping[str, Any] | None) -> list[str]:
    """The empty places the picture draws for this seat's legal actions (a map tile's)."""
    find = _part(table_of(record.type).open_hexes)
    if not find or not legal:
        return []
    board = record.game.board
    return list(find(board, [a["action"] for a in legal["actions"]]))


def board_svg(
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    lang: str,
    open_places: list[str] | None = None,
    have: Collection[str] = (),
) -> Markup:
    """The spectators' picture of this version as the web table draws it (the board alone
    when the game's panels are the table's HTML), to be inlined: the page lights its places up.
    The picture is drawn from the spectator view only, whoever looks (nothing hidden in it);
    ``open_places``: empty hexes to draw as well (``open_hexes``: public geometry); ``have``:
    the unchanging parts the page shows already, sent empty (service/pictures/keep.py)."""
    last = rematch.last_move_events(entries)
    title = f"{record.game.title} · {record.id} · {record.version}"
    _crop, svg = pictures.spectator_pictures(
        record, last, title, lang=lang, open_hexes=open_places or (), have=have, web=True
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
    board = record.game.board
    with translating(spoken_words()):  # the wargame's counters' names in the page's language
        return kits.load(table_of(record.type).targets).places(board, dict(view))


def pieces(record: GameRecord, view: Mapping[str, Any] | None, seat: int | None) -> dict[str, Any]:
    """The seat's own pieces as the table shows them, as its game's kit builds them (Attila's
    hand as cards grouped by people and its action tiles; Attika's storage board, stacks, the
    building revealed and the drawn tile); none for a spectator, or a game whose pieces are
    all on the board (the wargame's counters; its cards come with the battle)."""
    build = _part(table_of(record.type).pieces)
    if view is None or seat is None or build is None:
        return {kind: [] for kind in PIECE_KINDS}
    board = record.game.board
    return build(board, view, seat)


def panel(
    record: GameRecord,
    view: Mapping[str, Any] | None,
    seat: int | None,
    entries: Sequence[tuple[int, Mapping[str, Any]]] = (),
) -> dict[str, Any] | None:
    """What the page shows beside the board, as its game's kit builds it from ``record``,
    ``seat``'s ``view`` and the log ``entries`` (the wargame's status strip, last battle and
    secret orders); None for a game without one, or before the game starts."""
    if not on_board(record.type):
        return None
    build = _part(table_of(record.type).panel)
    if build is None or view is None or record.state is None:
        return None
    return build(record, view, seat, record.names, entries)
