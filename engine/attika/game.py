"""Attika (Hans im Glück, 2003) as a ``Game``: options, views and the engine entry points."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.attika.actions import (
    AttikaAction,
    Build,
    DrawCards,
    EndTurn,
    Notation,
    Reveal,
    SpendAmphora,
    Store,
    format_hex,
)
from engine.attika.board import Board, load_board
from engine.attika.describe import Describe
from engine.attika.rules import Rules
from engine.attika.state import NO_MODE, OVER, REVEALED, AttikaState, dump_state, load_state
from engine.core import RulesGame, options_from_data
from engine.sentences import N_


class AttikaGame(RulesGame[AttikaState, AttikaAction]):
    id: ClassVar[str] = "attika"
    title: ClassVar[str] = "Attika"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    rules_version: ClassVar[str] = "attika-2"
    #: Each kind of move in a few words, for mails (docs/rules/attika.md has the rules).
    move_rules: ClassVar[Mapping[str, str]] = {
        "reveal": N_("turn up the top building of one of your stacks (1 = main stack): reveal 2"),
        "build": N_(
            "build a building at a hex (q,r as on the board) and pay with cards W F H M, "
            "or pay auto: build temple at 2,-1 pay auto"
        ),
        "store": N_("put the building just revealed on your storage board: store"),
        "tile": N_(
            "place the drawn map tile centred at a hex, turned 0-5 steps: tile at 3,-4 rot 2"
        ),
        "amphora": N_("spend an amphora for one more action, or more cards: amphora"),
        "draw": N_("turn the remaining actions into cards; the turn goes on: draw"),
        "end": N_("end the turn (one card per unused action): end"),
    }
    step_names: ClassVar[Mapping[str, str]] = {
        "turn": N_("your actions"),
        "place_revealed": N_("build or store the revealed building"),
        "place_tile": N_("place the drawn map tile"),
    }
    rules: Rules  # the full rules object, beyond what RulesGame needs of it
    board: Board

    def __init__(self, board: Board) -> None:
        self.board = board
        self.rules = Rules(board)
        self.notation_ = Notation(board)
        self.describer = Describe(board)
        self.options = options_from_data(board.raw["options"])
        type(self).min_players = min(board.layouts)
        type(self).max_players = max(board.layouts)
        bare: list[AttikaAction] = [EndTurn(), Store(), SpendAmphora(), DrawCards()]
        self._bare_codes = bare + [Reveal(stack) for stack in range(self.rules.stacks)]

    # -- a finished game's packed log (service/store/logpack.py) ------------------------------

    def action_code(self, state: AttikaState, seat: int, action: Any) -> int | None:
        """The actions without a place by their place in a fixed list; a build paid the
        engine's way by its building and hex; a tile by its index among the legal actions
        (after the fixed list: even codes the legal index, odd ones a build). The legal
        builds cost more to list than the game's moves."""
        if action in self._bare_codes:
            return int(self._bare_codes.index(action))
        bare = len(self._bare_codes)
        if isinstance(action, Build) and action.pay is None:
            q, r = action.hex
            place = _pair(_zigzag(q), _zigzag(r))
            return bare + 2 * (place * len(self.board.buildings) + action.building) + 1
        code = super().action_code(state, seat, action)
        return None if code is None else bare + 2 * code

    def code_action(self, state: AttikaState, seat: int, code: int) -> Any:
        bare = len(self._bare_codes)
        if code < bare:
            return self._bare_codes[code]
        number, is_build = divmod(code - bare, 2)
        if not is_build:
            return super().code_action(state, seat, number)
        place, building = divmod(number, len(self.board.buildings))
        q, r = _unpair(place)
        return Build(building, (_unzigzag(q), _unzigzag(r)), None)

    # -- setup and play ---------------------------------------------------------------------

    def new_state(
        self, players: int, seed: str, options: Mapping[str, Any] | None = None
    ) -> AttikaState:
        self.check_players(players)
        return self.rules.new_state(players, seed, self.resolve_options(options))

    def dump(self, state: AttikaState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, raw: Mapping[str, Any]) -> AttikaState:
        return load_state(dict(raw))

    # -- views -----------------------------------------------------------------------------

    def view(self, state: AttikaState, seat: int | None) -> dict[str, Any]:
        """Everything public, and the hand of ``seat``. Never the order of any stack, the
        composition of a single stack, the deck, the tile pile or another player's hand."""
        b = self.board
        ids = [r.id for r in b.resources]
        rules = self.rules
        out: dict[str, Any] = {
            "seat": seat,
            "players": state.players,
            "data_version": state.data_version,
            "turn": state.turn,
            "active": state.active,
            "step": state.step,
            "mode": state.mode or None,
            "actions_left": self._actions_left(state),
            "pending": [d.to_json() for d in self.pending(state)],
            "map": [
                {
                    "hex": format_hex(h),
                    "q": h[0],
                    "r": h[1],
                    "landscape": ids[kind] if kind >= 0 else None,
                    "building": self._occupant(state, h),
                }
                for h, kind in sorted(state.land.items(), key=lambda item: item[0][::-1])
            ],
            "shrines": [format_hex(h) for h in state.shrines],
            "tiles": [
                {"tile": b.tiles[t].id, "centre": format_hex((q, r)), "rotation": k}
                for t, q, r, k in state.tiles
            ],
            "tile_pile": len(state.tile_pile),
            "drawn_tile": b.tiles[state.drawn_tile].id if state.drawn_tile >= 0 else None,
            "revealed": (
                {"building": self._id(state.current), "stack": state.current_stack + 1}
                if state.step == REVEALED
                else None
            ),
            "amphora_supply": state.amphora_supply,
            "deck": len(state.deck),
            "discard": {ids[k]: n for k, n in sorted(Counter(state.discard).items())},
            "seats": [
                {
                    "storage": [self._id(x) for x in state.boards[s]],
                    "stacks": [len(stack) for stack in state.stacks[s]],
                    "in_stacks": [
                        self._id(x) for x in sorted(x for stack in state.stacks[s] for x in stack)
                    ],
                    "built": {self._id(x): format_hex(h) for x, h in state.placed[s].items()},
                    "settlements": len(rules.settlements(state, s)),
                    "amphorae": state.amphorae[s],
                    "groups_complete": [b.groups[g].id for g in state.rewarded[s]],
                    "cards": sum(state.hands[s]),
                }
                for s in range(state.players)
            ],
            "result": state.result,
            "resigned": list(state.resigned),
        }
        if seat is not None and 0 <= seat < state.players:
            out["hand"] = dict(zip(ids, state.hands[seat], strict=True))
        return out

    def _actions_left(self, state: AttikaState) -> dict[str, int]:
        if state.step == OVER:
            return {}
        if state.mode == NO_MODE:
            return {"reveal": self.board.reveal_actions, "build": self.board.build_actions}
        return {state.mode: state.actions_left}

    def _occupant(self, state: AttikaState, h: tuple[int, int]) -> dict[str, Any] | None:
        owner = state.occupant.get(h)
        if owner is None:
            return None
        return {"seat": owner[0], "building": self._id(owner[1])}

    def _id(self, building: int) -> str:
        return self.board.buildings[building].id


GAME = AttikaGame(load_board())


def _zigzag(number: int) -> int:
    return number * 2 if number >= 0 else -number * 2 - 1


def _unzigzag(number: int) -> int:
    return number // 2 if number % 2 == 0 else -(number + 1) // 2


def _pair(a: int, b: int) -> int:
    """Cantor's pairing: two naturals as one, small when both are."""
    return (a + b) * (a + b + 1) // 2 + b


def _unpair(number: int) -> tuple[int, int]:
    total = (math.isqrt(8 * number + 1) - 1) // 2
    b = number - total * (total + 1) // 2
    return total - b, b
