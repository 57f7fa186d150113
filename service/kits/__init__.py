"""Game kits: what the service knows of each game type beyond its engine, one kit per type.

A game type is an engine package (engine/registry.py finds it); its kit is the module of the
same name here (``service/kits/attila_wargame.py`` for ``attila-wargame``), whose ``KIT`` is a
``GameKit``: its pictures, its table on the game page, its Play-now seats, its event-log codec.
A kit is data. Its parts in the layers above (a picture module, the table's piece builders,
template partials, the table's controller) are named as "module:attribute" strings and file names,
loaded where they are used (``load``), so this layer imports none of them.

Each layer reads the kit: the store the log codec, the service functions the Play-now seats,
the pictures their functions, the web table its parts. No other module names a game type
(tests/test_kits.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any

from engine.registry import game_ids
from engine.translatable import N_


@dataclass(frozen=True)
class Pictures:
    """The game's pictures and words (service/pictures/), each "module:attribute"."""

    #: The board as SVG: ``render(board, view, title, *, names, events, last_move, ...)``.
    render: str
    #: The view in plain text: ``summary(board, view, *, names)``.
    summary: str
    #: Each seat's public state in one short line: ``seat_facts(board, view)``.
    seat_facts: str
    #: The crop round what a move touched, for a picture too big to read whole in a mail:
    #: ``crop_box(board, view, events, *, largest)``; "" when the picture is read whole.
    crop: str = ""
    #: The whole map small, framing a crop (mails show it under the crop):
    #: ``overview(board, view, title, *, events, outline, width)``; "" for none.
    overview: str = ""
    #: The board alone for the web table, whose table shows the panels in HTML (its
    #: ``Table.panel``): the same arguments as ``render``; "" when the table shows ``render``'s.
    web: str = ""


@dataclass(frozen=True)
class Table:
    """The board as input on the game page (service/http/web/table.py, game.html): the
    engine's targets module and the optional parts a game adds. Every function is
    "module:attribute"; "" when the game has no such part."""

    #: The engine's targets module (no attribute): ``target(board, action)``,
    #: ``places(board, view)`` and ``PICK_LABELS``.
    targets: str
    #: The game's table controller, an ES module in service/http/web/static/ (the page's one
    #: script for its table: it imports the board component, static/board/).
    controller: str
    #: Event kinds that show what nobody has seen yet (a frozenset): a staged part bringing
    #: one is sent, not tried.
    draws: str = ""
    #: The action types that draw what nobody has seen yet by themselves (a building turned
    #: up, cards drawn or swapped for unseen ones): the table sends one at once when it is
    #: chosen (the action is offered with ``sends``), since Undo could not take it back once
    #: seen; a Confirm of its own would guard nothing. Every other move waits for Confirm.
    sends: tuple[str, ...] = ()
    #: What each legal build costs there: ``costs(rules, state, seat, raw_actions)``.
    costs: str = ""
    #: More for each legal action: ``details(rules, state, seat, actions)``.
    details: str = ""
    #: A picked-up piece's march: ``march(rules, state, seat, focus, via, carry)``.
    march: str = ""
    #: The labels of the game's cards: ``card_names(board)``.
    card_names: str = ""
    #: The empty places the legal actions need drawn: ``open_hexes(board, raw_actions)``.
    open_hexes: str = ""
    #: A drawn map tile's hexes per rotation with their fills: ``tile_preview(board, view)``.
    tile_preview: str = ""
    #: The seat's own pieces as controls: ``pieces(board, view, seat)`` -> cards, tiles,
    #: buildings, stacks; "" for a game whose pieces are all on the board.
    pieces: str = ""
    #: What the page shows beside the board:
    #: ``panel(record, view, seat, names, entries)`` -> a dict or None.
    panel: str = ""
    #: The panel's keys the board's figure carries as ``data-<key>`` JSON for the script.
    board_data: tuple[str, ...] = ()
    #: Template partials (service/http/web/templates/) showing the panel: above the board,
    #: and after the seat's pieces.
    above_board: str = ""
    after_pieces: str = ""
    #: A CSS class the board's figure gets beside ``table-board``.
    board_class: str = ""
    #: The id of the JSON data element the table's script reads.
    data_id: str = "table-data"
    #: How a move is made on this table, in a line above the legal moves (English, marked).
    move_hint: str = N_(
        "Choose a card, tile or building, then where it goes on the board; Confirm plays it."
    )


@dataclass(frozen=True)
class GameKit:
    """One game type as the service sees it beside its engine."""

    #: The game type id, the engine's (engine/registry.py).
    id: str
    #: Its pictures; None: no picture, and the view as JSON for a summary.
    pictures: Pictures | None
    #: Its table on the game page; None: the game is played there by its moves' notation.
    table: Table | None = None
    #: The heading over the seat's own view in words (English, marked).
    own_view_heading: str = N_("What you see (your hand is yours alone)")
    #: How many seats the lobby's Play now gives; 0: the game's fewest players.
    play_now_seats: int = 0
    #: Whether the lobby's Play now offers this game first.
    play_now_first: bool = False
    #: The event-log codec new games get (service/store/eventlog.py); "": plain JSON.
    log_codec: str = ""


def module_name(game_id: str) -> str:
    """The module (and package) name of a game type: ``attila-wargame`` -> ``attila_wargame``."""
    return game_id.replace("-", "_")


@cache
def kit(game_id: str) -> GameKit:
    """The kit of a registered game type; LookupError for any other id."""
    if game_id not in game_ids():
        raise LookupError(f"no game type {game_id!r}")
    found: GameKit = import_module(f"{__name__}.{module_name(game_id)}").KIT
    return found


def kits() -> list[GameKit]:
    """Every registered game type's kit, by id."""
    return [kit(game_id) for game_id in game_ids()]


@cache
def load(target: str) -> Any:
    """What a kit names: "module:attribute", or a module by its name alone."""
    module, _, attribute = target.partition(":")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found
