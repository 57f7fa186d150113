"""Action tiles and the draw pile (docs/rules/attila.md, "Action tiles", "The draw pile").

Double turn, swap and two influence: at most one per turn, each once per game, in the
player's own turn (§5, ``ACTION_TILE_TIMING``). Cards are drawn from the pile, which
reshuffles the discards when it runs out (``DRAW_PILE_EXHAUSTED``).
"""

from __future__ import annotations

from collections import Counter

from engine.attila.actions import AttilaAction, Boost, DoubleTurn, Swap
from engine.attila.base import RulesBase
from engine.attila.state import FINISH, INFLUENCE, PLAY_CARD, AttilaState
from engine.core import Event, IllegalAction, seeded_rng
from engine.sentences import N_

TILE_OF = {DoubleTurn: "double_turn", Swap: "swap", Boost: "two_influence"}
TILE_STEPS = (PLAY_CARD, INFLUENCE, FINISH)


class Tiles(RulesBase):
    """Using action tiles, and drawing cards."""

    def _apply_tile(self, state: AttilaState, action: AttilaAction, events: list[Event]) -> None:
        tile = TILE_OF[type(action)]
        if state.step not in TILE_STEPS:
            raise IllegalAction(
                "wrong-step",
                N_("action tiles are used in your own turn, never while conflict cards are laid"),
                step=state.step,
            )
        if tile not in state.action_tiles[state.active]:
            raise IllegalAction("tile-used-up", f"your {tile} tile is already used", tile=tile)
        if state.tile_used:
            raise IllegalAction("one-tile-per-turn", N_("at most one action tile per turn"))
        if isinstance(action, Swap):
            self._check_swap(state, action)
        if isinstance(action, Boost):
            self._check_boost(action)
        state.action_tiles[state.active].remove(tile)
        state.tile_used = True
        events.append(self._event("action_tile_used", seat=state.active, tile=tile))
        if isinstance(action, DoubleTurn):
            state.cards_left += self.board.double_turn_extra_cards
            if state.step == FINISH:
                state.step = PLAY_CARD
                self._skip_if_handless(state, events)
        elif isinstance(action, Swap):
            self._swap(state, action, events)
        elif isinstance(action, Boost):
            steps = 2 if len(action.peoples) == 1 else 1
            for people in action.peoples:
                self._raise_influence(state, state.active, people, steps, events)
        if state.step == FINISH:
            self._end_turn(state, events)  # nothing is left to do in this turn

    def _check_swap(self, state: AttilaState, action: Swap) -> None:
        if not action.cards:
            raise IllegalAction("swap-empty", N_("name at least one card to swap"))
        if Counter(action.cards) - Counter(state.hands[state.active]):
            raise IllegalAction("card-not-in-hand", N_("you do not hold all of these cards"))
        if len(action.cards) > self._drawable(state):
            raise IllegalAction(
                "swap-too-many",
                N_("not that many cards are left to draw"),
                available=self._drawable(state),
            )

    def _check_boost(self, action: Boost) -> None:
        if len(action.peoples) not in (1, 2) or len(set(action.peoples)) != len(action.peoples):
            raise IllegalAction(
                "bad-boost", N_("boost one people by 2 or two different peoples by 1")
            )

    def _swap(self, state: AttilaState, action: Swap, events: list[Event]) -> None:
        seat = state.active
        self._draw(state, seat, len(action.cards), events)
        for card in action.cards:
            state.hands[seat].remove(card)
        state.discard.extend(action.cards)
        events.append(self._event("cards_swapped", seat=seat, cards=self._people_ids(action.cards)))

    # -- the draw pile ---------------------------------------------------------------------------

    def _draw(self, state: AttilaState, seat: int, count: int, events: list[Event]) -> None:
        drawn: list[int] = []
        for _ in range(max(count, 0)):
            if not state.deck and not self._reshuffle(state, events):
                break
            drawn.append(state.deck.pop())
        if not drawn:
            return
        state.hands[seat].extend(drawn)
        state.hands[seat].sort()
        events.append(self._event("cards_drawn", seat=seat, count=len(drawn)))
        events.append(
            Event(
                "cards_drawn_own",
                {"seat": seat, "cards": self._people_ids(tuple(sorted(drawn)))},
                audience=(seat,),
            )
        )

    def _reshuffle(self, state: AttilaState, events: list[Event]) -> bool:
        if state.options["DRAW_PILE_EXHAUSTED"] != "reshuffle_discards" or not state.discard:
            return False
        state.reshuffles += 1
        state.deck, state.discard = state.discard, []
        seeded_rng(state.seed, "reshuffle", state.reshuffles).shuffle(state.deck)
        events.append(self._event("discards_reshuffled", cards=len(state.deck)))
        return True
