"""A turn's actions on the buildings: revealing (up to two), storing, building (up to
three), and the map tile that a stack's last building brings (docs/rules/attika.md, "A
turn", "Building", "Map growth").

Each handler validates completely (the cost from costs.py, the payment exact or ``pay
auto``) before it changes the state; a build then pays out amphorae (amphorae.py), checks
the immediate wins and may end the turn (turns.py).
"""

from __future__ import annotations

from engine.attika.actions import Build, PlaceTile, Reveal, Store
from engine.attika.base import RulesBase, hex_text
from engine.attika.board import Hex
from engine.attika.state import BUILD, NO_MODE, PLACE_TILE, REVEAL, REVEALED, TURN, AttikaState
from engine.core import Event, IllegalAction
from engine.sentences import N_


class BuildingActions(RulesBase):
    """Revealing, storing and building, and placing a drawn map tile."""

    # -- reveal, store ---------------------------------------------------------------------------

    def _reveal(self, state: AttikaState, seat: int, action: Reveal, events: list[Event]) -> None:
        if state.mode not in (NO_MODE, REVEAL):
            raise IllegalAction(
                "mixed-actions", N_("revealing and building never mix in one turn"), mode=state.mode
            )
        if not self._reveals_left(state):
            raise IllegalAction("no-reveals-left", N_("no reveal is left this turn"))
        if not 0 <= action.stack < len(state.stacks[seat]):
            raise IllegalAction("no-such-stack", N_("no such stack"), stack=action.stack + 1)
        stack = state.stacks[seat][action.stack]
        if not stack:
            raise IllegalAction("stack-empty", N_("that stack is empty"), stack=action.stack + 1)
        if state.mode == NO_MODE:
            state.mode = REVEAL
            state.actions_left = self.board.reveal_actions
        state.actions_left -= 1
        state.current = stack.pop()
        state.current_stack = action.stack
        state.step = REVEALED
        state.progress = True
        events.append(
            self._event(
                "building_revealed",
                seat=seat,
                stack=action.stack + 1,
                building=self._id(state.current),
                left_in_stack=len(stack),
            )
        )

    def _store(self, state: AttikaState, seat: int, _: Store, events: list[Event]) -> None:
        state.boards[seat].append(state.current)
        state.boards[seat].sort()
        events.append(self._event("building_stored", seat=seat, building=self._id(state.current)))
        state.current = -1
        self._after_reveal(state, seat, events)

    def _after_reveal(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        emptied = not state.stacks[seat][state.current_stack]
        state.current_stack = -1
        if emptied and state.tile_pile:
            state.drawn_tile = state.tile_pile.pop()
            state.step = PLACE_TILE
            events.append(
                self._event(
                    "tile_drawn",
                    seat=seat,
                    tile=self.board.tiles[state.drawn_tile].id,
                    left=len(state.tile_pile),
                )
            )
            return
        if emptied:
            events.append(self._event("no_tile_left", seat=seat))
        state.step = TURN
        self._maybe_end_turn(state, events)

    # -- build -----------------------------------------------------------------------------------

    def _build(self, state: AttikaState, seat: int, action: Build, events: list[Event]) -> None:
        index, where = action.building, action.hex
        if not 0 <= index < len(self.board.buildings):
            raise IllegalAction("unknown-building", N_("no such building"), building=index)
        if state.step == REVEALED:
            if index != state.current:
                raise IllegalAction(
                    "not-revealed-building",
                    N_("in a reveal turn only the building just revealed may be built"),
                    revealed=self._id(state.current),
                )
        else:
            self._check_build_turn(state, seat, index)
        self._check_site(state, where)
        site = self.site(state, seat, where)
        building = self.board.buildings[index]
        quote = self._quote(state, building, site, len(self.settlements(state, seat)))
        hand = state.hands[seat]
        if action.pay is None:
            pay = self.auto_payment(hand, quote)
            if pay is None:
                raise IllegalAction(
                    "cannot-afford",
                    N_("your cards do not pay for this building here"),
                    cost=self._quote_json(quote),
                )
        else:
            if any(not 0 <= c < self.kinds for c in action.pay):
                raise IllegalAction("unknown-resource", N_("no such resource"))
            pay = [action.pay.count(k) for k in range(self.kinds)]
            self.check_payment(hand, quote, pay)
        # -- valid: change the state --
        if state.step == REVEALED:
            state.current = -1
        else:
            if state.mode == NO_MODE:
                state.mode = BUILD
                state.actions_left = self.board.build_actions
            state.actions_left -= 1
            state.boards[seat].remove(index)
        cards = []
        for kind, n in enumerate(pay):
            hand[kind] -= n
            cards += [kind] * n
        state.discard.extend(cards)
        state.occupant[where] = (seat, index)
        state.placed[seat][index] = where
        state.progress = True
        events.append(
            self._event(
                "building_built",
                seat=seat,
                building=self._id(index),
                hex=hex_text(where),
                paid=[self.board.resources[c].id for c in cards],
                free=quote.free,
                new_settlement=not site.joins,
                settlements=len(self.settlements(state, seat)),
            )
        )
        self._award_amphorae(state, seat, events)
        if self._check_win(state, seat, events):
            return
        if state.step == REVEALED:
            self._after_reveal(state, seat, events)
        else:
            self._maybe_end_turn(state, events)

    def _check_build_turn(self, state: AttikaState, seat: int, index: int) -> None:
        if state.mode not in (NO_MODE, BUILD):
            raise IllegalAction(
                "mixed-actions", N_("revealing and building never mix in one turn"), mode=state.mode
            )
        if not self._builds_left(state):
            raise IllegalAction("no-builds-left", N_("no build is left this turn"))
        if index not in state.boards[seat]:
            where = "already built" if index in state.placed[seat] else "still in a stack"
            raise IllegalAction(
                "not-on-storage-board",
                f"that building is not on your storage board ({where})",
                building=self._id(index),
            )

    def _check_site(self, state: AttikaState, where: Hex) -> None:
        if where in state.shrines:
            raise IllegalAction("shrine", N_("nothing is built on a shrine"), hex=hex_text(where))
        if where not in state.land:
            raise IllegalAction("not-on-map", N_("that hex is not on the map"), hex=hex_text(where))
        if where in state.occupant:
            raise IllegalAction("hex-occupied", N_("that hex is built on"), hex=hex_text(where))

    # -- map growth ------------------------------------------------------------------------------

    def _place_tile(
        self, state: AttikaState, seat: int, action: PlaceTile, events: list[Event]
    ) -> None:
        if not 0 <= action.rotation < self.rotations:
            raise IllegalAction(
                "bad-rotation",
                f"a rotation is 0 to {self.rotations - 1} steps",
                rotation=action.rotation,
            )
        taken = set(state.land) | set(state.shrines)
        if not self._tile_fits(state, taken, action.hex):
            raise IllegalAction(
                "tile-position",
                N_("the tile must lie on 7 free hexes and touch the map or a shrine"),
                hex=hex_text(action.hex),
            )
        tile = state.drawn_tile
        state.land.update(self.board.tile_hexes(tile, action.hex, action.rotation))
        state.tiles.append([tile, action.hex[0], action.hex[1], action.rotation])
        state.drawn_tile = -1
        state.step = TURN
        events.append(
            self._event(
                "tile_placed",
                seat=seat,
                tile=self.board.tiles[tile].id,
                hex=hex_text(action.hex),
                rotation=action.rotation,
            )
        )
        self._maybe_end_turn(state, events)
