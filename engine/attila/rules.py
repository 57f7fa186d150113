"""Attila's rules: setup, who acts, legal actions and applying an action, one ``Rules``
composed of mixins by concern.

Every action handler validates completely before it changes anything, so an illegal
action leaves the state as it was. Rule decisions beyond the rulebook are options (the
``rule_options`` of engine/attila/data/board.json, read in ``engine.attila.game``) and are
written down in docs/rules/attila.md.

The handlers live by concern (base.py lists them): cards.py (a card, its stones, influence),
conflicts.py (conflicts, pacification), tiles.py (action tiles, the draw pile) and turns.py
(the end of a card, a turn and the game, scoring, resigning). ``TILE_OF`` and ``TILE_STEPS``
are importable from here as before.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.attila.actions import (
    AttilaAction,
    Commit,
    Discard,
    DoubleTurn,
    EndTurn,
    Play,
    Resolve,
    Swap,
    TakeInfluence,
    Waive,
)
from engine.attila.cards import Cards
from engine.attila.conflicts import Conflicts
from engine.attila.state import CONFLICT, FINISH, INFLUENCE, OVER, PLAY_CARD, AttilaState
from engine.attila.tiles import TILE_OF, TILE_STEPS, Tiles
from engine.attila.turns import Turns
from engine.core import SYSTEM, Decision, Event, check_turn, dispatch, seeded_rng

__all__ = ["TILE_OF", "TILE_STEPS", "Rules"]


class Rules(Cards, Conflicts, Tiles, Turns):
    """The rules of Attila on one board. Stateless; every method takes the state."""

    # == setup ===================================================================================

    def new_state(self, players: int, seed: str, options: dict[str, Any]) -> AttilaState:
        b = self.board
        deck = [p.index for p in b.peoples for _ in range(b.cards_per_people)]
        seeded_rng(seed, "deal").shuffle(deck)
        hands = [sorted(deck.pop() for _ in range(b.hand_size)) for _ in range(players)]
        if options["START_PLAYER"] == "random_from_game_seed":
            start = seeded_rng(seed, "start").randrange(players)
        else:
            start = 0  # the host arranged the seats so that the first seat begins
        state = AttilaState(
            seed=seed,
            options=dict(options),
            players=players,
            start_seat=start,
            hands=hands,
            deck=deck,
            discard=[],
            stones=[[0] * len(b.peoples) for _ in b.provinces],
            pacified=[0] * len(b.provinces),
            supply=[b.stones_per_people] * len(b.peoples),
            tiles_left=list(b.tiles_by_century),
            influence=[[0] * len(b.peoples) for _ in range(players)],
            scores=[0] * players,
            action_tiles=[list(b.action_tiles) for _ in range(players)],
            active=start,
        )
        self._start_turn(state, start, [])
        return state

    # == who acts ================================================================================

    def pending(self, state: AttilaState) -> list[Decision]:
        if state.step == OVER:
            return []
        if state.step != CONFLICT:
            return [Decision(state.active, "move", state.step)]
        conflict = state.conflict
        assert conflict is not None
        waiting = conflict.waiting_for()
        if not waiting:
            return [Decision(SYSTEM, "resolve", "resolve_conflict", conflict.ref)]
        if state.options["CONFLICT_COMMIT_ORDER"] == "simultaneous":
            return [Decision(seat, "sealed", CONFLICT, conflict.ref) for seat in waiting]
        return [Decision(waiting[0], "sealed", CONFLICT, conflict.ref)]

    def current_century(self, state: AttilaState) -> int:
        """Index of the lowest century field that still holds a tile (the last when all empty)."""
        for index, left in enumerate(state.tiles_left):
            if left:
                return index
        return len(state.tiles_left) - 1

    # == legal actions ===========================================================================

    def legal_actions(self, state: AttilaState, seat: int) -> list[AttilaAction]:
        if not any(d.seat == seat for d in self.pending(state)):
            return []
        step = state.step
        if step == CONFLICT:
            if seat == SYSTEM:
                return [Resolve()]
            assert state.conflict is not None
            eligible = [c for c in state.hands[seat] if c in state.conflict.present]
            return [Commit(cards) for cards in _sub_multisets(eligible, len(eligible))]
        actions: list[AttilaAction] = []
        if step == PLAY_CARD:
            actions = self._card_actions(state)
        elif step == INFLUENCE:
            actions = [TakeInfluence(), Waive()]  # `inf` first: the deadline default
            if state.supply[state.people]:
                masks = self.placement_mask(state, state.people)
                actions += [self._waives[q] for q in _bits(masks)]
        elif step == FINISH:
            actions = [EndTurn()]
        return actions + self._tile_actions(state)

    def _card_actions(self, state: AttilaState) -> list[AttilaAction]:
        hand = state.hands[state.active]
        plays: list[AttilaAction] = []
        present, closed = self._occupation(state)
        for people in sorted(set(hand)):
            if state.supply[people]:
                row = self._plays[people]
                plays += [row[q] for q in _bits(self._reachable(present[people]) & ~closed)]
        return plays or [Discard(people) for people in sorted(set(hand))]

    def _tile_actions(self, state: AttilaState) -> list[AttilaAction]:
        if state.tile_used:
            return []
        tiles = state.action_tiles[state.active]
        out: list[AttilaAction] = []
        if "double_turn" in tiles:
            out.append(DoubleTurn())
        if "swap" in tiles:
            hand = state.hands[state.active]
            out += [Swap(c) for c in _sub_multisets(hand, self._drawable(state)) if c]
        if "two_influence" in tiles:
            out += self._boosts
        return out

    def placement_mask(self, state: AttilaState, people: int) -> int:
        """Provinces where a stone of ``people`` may go now, as a bit mask."""
        present, closed = self._occupation(state)
        return self._reachable(present[people]) & ~closed

    def _occupation(self, state: AttilaState) -> tuple[list[int], int]:
        """Per people the provinces holding it, and the provinces no stone may enter."""
        b = self.board
        present = [0] * len(b.peoples)
        full = closed = 0
        for q, row in enumerate(state.stones):
            count = sum(row)
            if count:
                bit = 1 << q
                for people, stones in enumerate(row):
                    if stones:
                        present[people] |= bit
                if count >= b.province_capacity:
                    full |= bit
                    if count > b.province_capacity:
                        closed |= bit
        closed |= self._pacified_mask(state)
        if not self._fifth_stone_allowed(state):
            closed |= full
        return present, closed

    def _pacified_mask(self, state: AttilaState) -> int:
        return sum(1 << q for q, century in enumerate(state.pacified) if century)

    def _reachable(self, present: int) -> int:
        return self.board.frontier_mask | present | self.board.neighbours_of(present)

    def _fifth_stone_allowed(self, state: AttilaState) -> bool:
        """A 5th stone needs a pacification tile that no earlier conflict has claimed."""
        claimed = len(state.queued) + (state.conflict is not None)
        return sum(state.tiles_left) - claimed > 0

    def _drawable(self, state: AttilaState) -> int:
        if state.options["DRAW_PILE_EXHAUSTED"] == "reshuffle_discards":
            return len(state.deck) + len(state.discard)
        return len(state.deck)

    # == applying ================================================================================

    def apply(self, state: AttilaState, seat: int, action: AttilaAction) -> list[Event]:
        check_turn(
            self.pending(state),
            state.step == OVER,
            seat,
            action,
            "only the server resolves a conflict, once every card is laid",
        )
        events: list[Event] = []
        if type(action) in TILE_OF:
            self._apply_tile(state, action, events)
        else:
            dispatch(_HANDLERS, self, state, seat, action, events)
        return events


_HANDLERS: dict[tuple[str, type], Any] = {
    (PLAY_CARD, Play): Rules._play,
    (PLAY_CARD, Discard): Rules._discard,
    (INFLUENCE, TakeInfluence): Rules._take_influence,
    (INFLUENCE, Waive): Rules._waive,
    (CONFLICT, Commit): Rules._commit,
    (CONFLICT, Resolve): Rules._resolve,
    (FINISH, EndTurn): Rules._end,
}


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _sub_multisets(cards: list[int], limit: int) -> list[tuple[int, ...]]:
    """Every distinct sorted sub-multiset of ``cards`` with at most ``limit`` cards."""
    counts = sorted(Counter(cards).items())
    out: list[tuple[int, ...]] = [()]
    for card, available in counts:
        out = [
            prefix + (card,) * k
            for prefix in out
            for k in range(available + 1)
            if len(prefix) + k <= limit
        ]
    return out
