"""The end of a turn and of the game, and resigning (docs/rules/attika.md, "A turn",
"The end", "Resigning").

A turn ends by ``end`` (one card per unused action) or by itself once its actions are used
and no amphora is left to spend. The game ends at once when a player has every building on
the map or one settlement touches two shrines; ``STALEMATE_END`` ends it when nobody can
build any more. A resigning player's turn passes on; the last one left wins.
"""

from __future__ import annotations

from engine.attika.actions import EndTurn
from engine.attika.base import RulesBase
from engine.attika.state import NO_MODE, OVER, PLACE_TILE, REVEALED, TURN, AttikaState
from engine.core import Event, next_seat, rank_with_resigned, start_rejoin, start_resign


class Turns(RulesBase):
    """Ending turns, starting the next, the wins and a blocked game's end, resigning."""

    def _end(self, state: AttikaState, seat: int, _: EndTurn, events: list[Event]) -> None:
        self._end_turn(state, self._unused(state) * self.board.card_per_unused_action, events)

    def _maybe_end_turn(self, state: AttikaState, events: list[Event]) -> None:
        """Without an amphora to spend, the turn ends by itself once the actions are used."""
        if (
            state.step == TURN
            and state.mode != NO_MODE
            and not state.actions_left
            and not state.amphorae[state.active]
        ):
            self._end_turn(state, 0, events)

    def _end_turn(self, state: AttikaState, cards: int, events: list[Event]) -> None:
        seat = state.active
        self._draw(state, seat, cards, events)
        events.append(self._event("turn_ended", seat=seat, turn=state.turn))
        state.idle_turns = 0 if state.progress else state.idle_turns + 1
        staying = [s for s in range(state.players) if s not in state.resigned]
        if state.idle_turns >= 2 * len(staying) and not any(
            self.can_still_build(state, s) for s in staying
        ):
            self._finish_blocked(state, events)
            return
        state.turn += 1
        self._start_turn(state, next_seat(seat, state.players, state.resigned), events)

    def _start_turn(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        state.active = seat
        state.step = TURN
        state.mode = NO_MODE
        state.actions_left = 0
        state.progress = False
        events.append(self._event("turn_started", seat=seat, turn=state.turn))

    # -- the end of the game ---------------------------------------------------------------------

    def _check_win(self, state: AttikaState, seat: int, events: list[Event]) -> bool:
        if len(state.placed[seat]) == len(self.board.buildings):
            self._finish(state, [seat], "all_buildings", events)
            return True
        if self.shrines_connected(state, seat):
            self._finish(state, [seat], "shrines_connected", events)
            return True
        return False

    def shrines_connected(self, state: AttikaState, seat: int) -> bool:
        """Whether one settlement of ``seat`` touches two shrines."""
        neighbours = self.board.neighbours
        for group in self.settlements(state, seat):
            touched = {s for s in state.shrines if any(n in group for n in neighbours(s))}
            if len(touched) >= 2:
                return True
        return False

    def can_still_build(self, state: AttikaState, seat: int) -> bool:
        """Whether ``seat`` could ever build again (STALEMATE_END ends a game only when no
        player can): a building left to place (storage board, just revealed, or in a
        stack), room for it, and cards that pay for it now or may still come."""
        unplaced = [b for stack in state.stacks[seat] for b in stack] + state.boards[seat]
        if state.current >= 0 and seat == state.active:
            unplaced.append(state.current)
        if not unplaced:
            return False
        # Revealing a stack's last building brings a new tile: new hexes, new costs.
        if state.tile_pile and any(stack for own in state.stacks for stack in own):
            return True
        if all(h in state.occupant for h in state.land):
            return False
        reshuffle = state.options["DECK_EXHAUSTED"] == "reshuffle_discards"
        if state.deck or (reshuffle and state.discard):
            return True
        return bool(self.build_actions(state, seat, self._distinct(unplaced)))

    def _finish_blocked(self, state: AttikaState, events: list[Event]) -> None:
        """STALEMATE_END: most buildings, then fewest settlements, then most amphorae."""

        def rank(seat: int) -> tuple[int, int, int]:
            settlements = len(self.settlements(state, seat))
            return (len(state.placed[seat]), -settlements, state.amphorae[seat])

        staying = [s for s in range(state.players) if s not in state.resigned]
        best = max(rank(seat) for seat in staying)
        winners = [seat for seat in staying if rank(seat) == best]
        self._finish(state, winners, "blocked", events)

    def _finish(
        self, state: AttikaState, winners: list[int], reason: str, events: list[Event]
    ) -> None:
        state.step = OVER
        result = {
            "winners": winners,
            "reasons": [reason],
            "scores": [len(placed) for placed in state.placed],
            "settlements": [len(self.settlements(state, s)) for s in range(state.players)],
            "amphorae": list(state.amphorae),
        }
        state.result = rank_with_resigned(result, state.resigned, state.players)
        events.append(self._event("game_ended", **state.result, seed=state.seed))

    # -- leaving and coming back (docs/rules/attika.md, "Resigning") -----------------------------

    def resign(self, state: AttikaState, seat: int, forfeit: bool) -> list[Event]:
        events: list[Event] = []
        if start_resign(state.step == OVER, state.players, state.resigned, seat, forfeit, events):
            staying = next_seat(seat, state.players, state.resigned)
            self._finish(state, [staying], "resigned", events)
        elif seat == state.active:
            self._leave_turn(state, seat, events)
        return events

    def _leave_turn(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        """The active seat resigned mid-turn: a building just revealed goes to its board, a
        map tile just drawn back on the pile (for the next player who empties a stack)."""
        if state.step == REVEALED:
            state.boards[seat].append(state.current)
            state.boards[seat].sort()
            events.append(
                self._event("building_stored", seat=seat, building=self._id(state.current))
            )
            state.current = state.current_stack = -1
        elif state.step == PLACE_TILE:
            state.tile_pile.append(state.drawn_tile)
            events.append(
                self._event("tile_returned", seat=seat, tile=self.board.tiles[state.drawn_tile].id)
            )
            state.drawn_tile = -1
        self._end_turn(state, 0, events)

    def rejoin(self, state: AttikaState, seat: int) -> list[Event]:
        events: list[Event] = []
        start_rejoin(state.step == OVER, state.resigned, seat, events)
        return events
