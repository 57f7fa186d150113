"""Attika's rules: setup, legal actions and applying an action, one ``Rules`` composed of
mixins by concern.

Every handler validates completely before it changes anything, so an illegal action leaves
the state as it was. Rule decisions beyond the rulebook are options (the ``options`` block of
``data/attika.json``) and are written down in docs/rules/attika.md.

The handlers and questions live by concern (base.py lists them): costs.py (sites,
settlements, building costs), building.py (reveal, store, build, map tiles), amphorae.py
(amphorae, cards) and turns.py (the end of a turn and of the game, resigning). ``Quote``,
``Site`` and ``hex_text`` are importable from here as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.attika.actions import (
    AttikaAction,
    Build,
    DrawCards,
    EndTurn,
    PlaceTile,
    Reveal,
    SpendAmphora,
    Store,
)
from engine.attika.amphorae import Amphorae
from engine.attika.base import Quote, Site, hex_text
from engine.attika.board import Hex
from engine.attika.building import BuildingActions
from engine.attika.costs import Costs
from engine.attika.state import (
    BUILD,
    DRAW,
    NO_MODE,
    OVER,
    PLACE_TILE,
    REVEAL,
    REVEALED,
    TURN,
    AttikaState,
)
from engine.attika.turns import Turns
from engine.core import Decision, Event, check_turn, dispatch, seeded_rng

__all__ = ["Quote", "Rules", "Site", "hex_text"]


class Rules(Costs, BuildingActions, Amphorae, Turns):
    """The rules of Attika for one data file. Stateless; every method takes the state."""

    # == setup ===================================================================================

    def new_state(self, players: int, seed: str, options: dict[str, Any]) -> AttikaState:
        b = self.board
        layout = b.layouts[players]
        pile = list(range(len(b.tiles)))
        seeded_rng(seed, "tiles").shuffle(pile)
        turn_rng = seeded_rng(seed, "tile-rotation")
        land: dict[Hex, int] = {}
        tiles = []
        for centre in layout.tile_centres:
            tile = pile.pop()
            rotation = 0
            if options["INITIAL_TILE_ROTATION"] == "random_from_seed":
                rotation = turn_rng.randrange(self.rotations)
            land.update(b.tile_hexes(tile, centre, rotation))
            tiles.append([tile, centre[0], centre[1], rotation])
        mains = [x.index for x in b.buildings if x.main]
        others = [x.index for x in b.buildings if not x.main]
        size = b.other_stack_size
        stacks, boards = [], []
        for seat in range(players):
            rng = seeded_rng(seed, "stacks", seat)
            main, rest = mains[:], others[:]
            rng.shuffle(main)
            rng.shuffle(rest)
            split = [rest[i * size : (i + 1) * size] for i in range(b.other_stacks - 1)]
            split.append(rest[(b.other_stacks - 1) * size :])
            own = [main, *split]
            boards.append(sorted(stack.pop() for stack in own if stack))
            stacks.append(own)
        deck = [r.index for r in b.resources for _ in range(r.cards)]
        seeded_rng(seed, "deck").shuffle(deck)
        start = 0
        if options["START_PLAYER"] == "random_from_seed":
            start = seeded_rng(seed, "start").randrange(players)
        hands = [[0] * self.kinds for _ in range(players)]
        for i in range(players):
            for _ in range(b.starting_cards[i]):
                hands[(start + i) % players][deck.pop()] += 1
        state = AttikaState(
            seed=seed,
            options=dict(options),
            players=players,
            data_version=b.data_version,
            start_seat=start,
            active=start,
            land=land,
            shrines=list(layout.shrines),
            tiles=tiles,
            tile_pile=pile,
            occupant={},
            stacks=stacks,
            boards=boards,
            hands=hands,
            deck=deck,
            discard=[],
            amphorae=[0] * players,
            amphora_supply=b.amphora_supply,
            rewarded=[[] for _ in range(players)],
        )
        self._start_turn(state, start, [])
        return state

    # == who acts ================================================================================

    def pending(self, state: AttikaState) -> list[Decision]:
        if state.step == OVER:
            return []
        return [Decision(state.active, "move", state.step)]

    # == legal actions ===========================================================================

    def legal_actions(self, state: AttikaState, seat: int) -> list[AttikaAction]:
        if state.step == OVER or seat != state.active:
            return []
        if state.step == PLACE_TILE:
            return [
                PlaceTile(where, k)
                for where in self.tile_positions(state)
                for k in range(self.rotations)
            ]
        if state.step == REVEALED:
            return [*self.build_actions(state, seat, [state.current]), Store()]
        out: list[AttikaAction] = []
        if self._reveals_left(state):
            out += [self._reveals[s] for s, stack in enumerate(state.stacks[seat]) if stack]
        if self._builds_left(state):
            out += self.build_actions(state, seat, self._distinct(state.boards[seat]))
        if state.amphorae[seat]:
            if state.mode == DRAW or (state.mode in (REVEAL, BUILD) and not state.actions_left):
                out.append(SpendAmphora())
            if self._unused(state):
                out.append(DrawCards())
        out.append(EndTurn())
        return out

    def build_actions(self, state: AttikaState, seat: int, buildings: Iterable[int]) -> list[Build]:
        """``pay auto`` builds of these buildings on every site the player can afford."""
        sites = self.sites(state, seat)
        settlements = len(self.settlements(state, seat))
        hand = state.hands[seat]
        all_neighbours = state.options["ROAD_REDUCTION_AREA"] == "site_and_all_neighbours"
        out = []
        for index in buildings:
            building = self.board.buildings[index]
            wide = bool(building.any_cost) and all_neighbours
            chain = 0 if building.main else building.predecessors
            known: dict[tuple[tuple[int, ...], bool], bool] = {}
            for site in sites:
                if not chain & site.adjacent:
                    key = (site.area_all if wide else site.area, site.joins)
                    ok = known.get(key)
                    if ok is None:
                        quote = self._quote(state, building, site, settlements)
                        ok = known[key] = self.affordable(hand, quote)
                    if not ok:
                        continue
                out.append(Build(index, site.hex, None))
        return out

    def _distinct(self, board: list[int]) -> list[int]:
        """One building of each set of interchangeable copies (the lowest index)."""
        seen: dict[int, int] = {}
        for index in board:
            seen.setdefault(self.board.buildings[index].copy_of, index)
        return sorted(seen.values())

    def _reveals_left(self, state: AttikaState) -> int:
        if state.mode == NO_MODE:
            return self.board.reveal_actions
        return state.actions_left if state.mode == REVEAL else 0

    def _builds_left(self, state: AttikaState) -> int:
        if state.mode == NO_MODE:
            return self.board.build_actions
        return state.actions_left if state.mode == BUILD else 0

    def _unused(self, state: AttikaState) -> int:
        """Actions not taken this turn (each turns into a card)."""
        if state.mode == NO_MODE:
            return self.max_actions
        return 0 if state.mode == DRAW else state.actions_left

    # == applying ================================================================================

    def apply(self, state: AttikaState, seat: int, action: AttikaAction) -> list[Event]:
        check_turn(self.pending(state), state.step == OVER, seat, action)
        events: list[Event] = []
        dispatch(_HANDLERS, self, state, seat, action, events)
        return events


_HANDLERS: dict[tuple[str, type], Any] = {
    (TURN, Reveal): Rules._reveal,
    (TURN, Build): Rules._build,
    (TURN, SpendAmphora): Rules._amphora,
    (TURN, DrawCards): Rules._draw_instead,
    (TURN, EndTurn): Rules._end,
    (REVEALED, Build): Rules._build,
    (REVEALED, Store): Rules._store,
    (PLACE_TILE, PlaceTile): Rules._place_tile,
}
