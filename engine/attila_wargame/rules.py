"""The Attila wargame's rules: one ``Rules`` composed of its phases.

Every handler validates completely before it changes anything, so an illegal action leaves
the state as it was. Rulings beyond the rulebook are named options (the spec's UPPER_SNAKE
names) and are written down in docs/rules/attila-wargame.md. Seats follow
``bindings.json`` ``seats``: seat 0 the Roman player, seat 1 the Barbarian.

Movement is offered one hex at a time (``legal_actions`` lists every single-hex step of
every unit that may still move, plus ``end``); ``apply`` accepts any longer path and treats
it exactly as the same steps taken one after the other.

This module holds the setup, who acts, the legal actions and the dispatch of an action to
its handler; the handlers live with their phase, one mixin each (base.py lists them):
movement.py, notes.py, combat.py, councils.py, calendar.py, victory.py.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

from engine.attila_wargame.actions import (
    Advance,
    Attack,
    Card,
    Convene,
    End,
    Move,
    Note,
    Push,
    Raze,
    Resolve,
    Retreat,
    WargameAction,
)
from engine.attila_wargame.base import _PHASE_SIDE
from engine.attila_wargame.calendar import Calendar
from engine.attila_wargame.combat import Combat
from engine.attila_wargame.councils import Councils
from engine.attila_wargame.map_questions import BARBARIAN, ROMAN
from engine.attila_wargame.movement import Movement
from engine.attila_wargame.notes import SecretNotes
from engine.attila_wargame.state import (
    ADVANCE,
    BATTLE_CARD,
    COMBAT,
    CONVENE,
    COUNCIL_CARD,
    MOVEMENT,
    NOTES,
    OVER,
    PUSH,
    RAZE,
    RETREAT,
    Battle,
    WargameState,
)
from engine.attila_wargame.victory import Victory
from engine.core import SYSTEM, Decision, Event, check_turn, dispatch


class Rules(Movement, SecretNotes, Combat, Councils, Calendar, Victory):
    """The rules on one board. Stateless; every method takes the state. The read-only map
    questions (hostility, territory, zones of control, stacking, strength, sieges) are
    inherited from ``MapQuestions``, the phases' handlers from their mixins."""

    # == setup ===================================================================================

    def new_state(self, seed: str, options: dict[str, Any]) -> WargameState:
        b = self.b
        state = WargameState(seed=seed, options=dict(options))
        state.alignment = dict(b.start_alignment)
        for uid in b.unit_order:
            unit = b.units[uid]
            if unit.start >= 0:
                state.pos[uid] = unit.start
                if unit.combat:
                    state.cf[uid] = unit.cf
        self._adjust_people_count(state, options)
        return state

    def _adjust_people_count(self, state: WargameState, options: dict[str, Any]) -> None:
        """Extra counters by option (BURGUNDIAN_COUNT = 6): each on the nearest free hex of
        the people's area, searched outwards from its first counter."""
        b = self.b
        for extra in b.bindings.get("extra_units", ()):
            units = b.unit_ids_of(extra["people"], combat=True)
            placed = [u for u in units if b.units[u].start >= 0]
            for unit in units[len(placed) : options[extra["option"]]]:
                h = self._nearest_free(state, b.units[placed[0]].start)
                if h is not None:
                    state.pos[unit] = h
                    state.cf[unit] = b.units[unit].cf

    def _nearest_free(self, state: WargameState, start: int) -> int | None:
        b = self.b
        taken = set(state.pos.values())
        seen, frontier = {start}, [start]
        while frontier:
            nxt = []
            for h in frontier:
                for n in b.neighbours[h]:
                    if n in seen or not b.passable[n]:
                        continue
                    seen.add(n)
                    nxt.append(n)
                    if n not in taken and n not in b.city_at and b.region[n] == b.region[start]:
                        return n
            frontier = nxt
        return None

    # == who acts ================================================================================

    def pending(self, state: WargameState) -> list[Decision]:
        step = state.step
        if step == OVER:
            return []
        if step == NOTES:
            return [
                Decision(seat, "sealed", NOTES, "notes")
                for seat in range(len(self.seats))
                if str(seat) not in state.notes.get("written", {})
            ]
        battle = state.battle
        if step in (BATTLE_CARD, PUSH, RETREAT, ADVANCE) and battle is not None:
            if step == BATTLE_CARD:
                waiting = [s for s in (0, 1) if str(s) not in battle.cards]
                if not waiting:
                    return [Decision(SYSTEM, "resolve", "resolve_battle", battle.ref)]
                return [Decision(s, "sealed", BATTLE_CARD, battle.ref) for s in waiting]
            return [Decision(self._stage_seat(state, battle), "move", step, battle.ref)]
        if step == COUNCIL_CARD and state.council is not None:
            waiting = [s for s in (0, 1) if str(s) not in state.council.cards]
            if not waiting:
                return [Decision(SYSTEM, "resolve", "resolve_council", state.council.ref)]
            return [Decision(s, "sealed", COUNCIL_CARD, state.council.ref) for s in waiting]
        if step == CONVENE:
            return [Decision(self.seat_of[ROMAN], "move", CONVENE)]
        if step == RAZE:
            return [Decision(self.seat_of[BARBARIAN], "move", RAZE)]
        return [Decision(self.seat_of[_PHASE_SIDE[state.phase]], "move", step)]

    def _stage_seat(self, state: WargameState, battle: Battle) -> int:
        """Who decides a battle's follow-up: the loser retreats, the winner pushes/advances."""
        loser_seat = self._seat_of_unit(state, battle.losers[0])
        if state.step == RETREAT:
            return loser_seat
        return 1 - loser_seat

    # == legal actions ===========================================================================

    def legal_actions(self, state: WargameState, seat: int) -> list[WargameAction]:
        if not any(d.seat == seat for d in self.pending(state)):
            return []
        step = state.step
        if step == NOTES:
            return self._note_actions(seat)
        if seat == SYSTEM:
            return [Resolve()]
        if step == MOVEMENT:
            return [*self._step_actions(state, seat), End()]
        if step == RAZE:
            hexes = self._raze_candidates(state)
            return [Raze(c) for k in range(len(hexes) + 1) for c in combinations(hexes, k)]
        if step == COMBAT:
            options, owed_by = self._battle_duties(state)
            actions: list[WargameAction] = []
            for target, attackers in sorted(options.items()):
                bound = self._must_join(owed_by, target)
                free = [a for a in attackers if a not in bound]
                actions += [
                    Attack(target, tuple(sorted([*bound, *extra], key=self.order.__getitem__)))
                    for k in range(0 if bound else 1, len(free) + 1)
                    for extra in combinations(free, k)
                ]
            return actions if owed_by else [*actions, End()]
        if step == BATTLE_CARD:
            assert state.battle is not None
            cards = (
                self.b.attack_cards if seat == state.battle.attacker_seat else self.b.defence_cards
            )
            return [Card(c) for c in cards]
        if step == COUNCIL_CARD:
            cards = self.b.roman_cards if self.seats[seat] == ROMAN else self.b.barbarian_cards
            return [Card(c) for c in cards]
        if step == PUSH:
            return [Push(True), Push(False)]
        if step == RETREAT:
            ctx = self.ctx(state)
            assert state.battle is not None
            return [
                Retreat(u, h)
                for u in state.battle.retreating
                for h in self.retreat_hexes(state, ctx, u)
            ]
        if step == ADVANCE:
            return [*(Advance(u, h) for u, h in self._advance_options(state)), Advance(None)]
        if step == CONVENE:
            return [Convene(True), Convene(False)]
        return []

    # == applying ================================================================================

    def apply(self, state: WargameState, seat: int, action: WargameAction) -> list[Event]:
        check_turn(self.pending(state), state.step == OVER, seat, action)
        events: list[Event] = []
        dispatch(_HANDLERS, self, state, seat, action, events)
        self._check_aetius(state, events)
        return events


Handler = Callable[[Rules, WargameState, int, Any, list[Event]], None]
_HANDLERS: dict[tuple[str, type], Handler] = {
    (NOTES, Note): Rules._note,
    (MOVEMENT, Move): Rules._move,
    (MOVEMENT, End): Rules._end_movement,
    (RAZE, Raze): Rules._raze,
    (COMBAT, Attack): Rules._attack,
    (COMBAT, End): Rules._end_combat,
    (BATTLE_CARD, Card): Rules._card,
    (BATTLE_CARD, Resolve): Rules._resolve_battle,
    (PUSH, Push): Rules._push,
    (RETREAT, Retreat): Rules._retreat,
    (ADVANCE, Advance): Rules._advance,
    (COUNCIL_CARD, Card): Rules._card,
    (COUNCIL_CARD, Resolve): Rules._resolve_council,
    (CONVENE, Convene): Rules._convene,
}
