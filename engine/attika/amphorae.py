"""Amphorae and cards (docs/rules/attika.md, "Amphorae", "Amphorae in the turn").

A player earns an amphora when a group of buildings is on the map and connected
(``AMPHORA_GROUP_CONNECTION``; a card instead when the supply is empty), spends one to
extend the turn by an action or, after ``draw``, for more cards. Cards are drawn from the
deck, which reshuffles the discards when it runs out (``DECK_EXHAUSTED``).
"""

from __future__ import annotations

from engine.attika.actions import DrawCards, SpendAmphora
from engine.attika.base import RulesBase
from engine.attika.costs import _components
from engine.attika.state import DRAW, NO_MODE, AttikaState
from engine.core import Event, IllegalAction, seeded_rng
from engine.sentences import N_


class Amphorae(RulesBase):
    """Earning and spending amphorae, turning actions into cards, drawing cards."""

    def _award_amphorae(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        placed = state.placed[seat]
        via_any = state.options["AMPHORA_GROUP_CONNECTION"] == "connected_via_any_own_buildings"
        settlements = self.settlements(state, seat) if via_any else []
        for group in self.board.groups:
            if group.index in state.rewarded[seat]:
                continue
            if not all(m in placed for m in group.members):
                continue
            hexes = {placed[m] for m in group.members}
            if via_any:
                connected = any(hexes <= s for s in settlements)
            else:
                links = {h: [n for n in self.board.neighbours(h) if n in hexes] for h in hexes}
                connected = len(_components(hexes, links)) == 1
            if not connected:
                continue
            state.rewarded[seat].append(group.index)
            if state.amphora_supply:
                state.amphora_supply -= 1
                state.amphorae[seat] += 1
                events.append(self._event("amphora_earned", seat=seat, group=group.id))
            else:
                events.append(self._event("amphora_supply_empty", seat=seat, group=group.id))
                self._draw(state, seat, 1, events)

    def _amphora(self, state: AttikaState, seat: int, _: SpendAmphora, events: list[Event]) -> None:
        if not state.amphorae[seat]:
            raise IllegalAction("no-amphora", N_("you have no amphora"))
        if state.mode == NO_MODE:
            raise IllegalAction(
                "no-action-chosen", N_("reveal, build or draw first; an amphora extends that")
            )
        if state.mode != DRAW and state.actions_left:
            raise IllegalAction(
                "actions-left",
                N_("an amphora is spent at the end of the turn, once your actions are used up"),
                actions_left=state.actions_left,
            )
        state.amphorae[seat] -= 1
        if state.options["AMPHORA_SPENT_RETURNS_TO_SUPPLY"]:
            state.amphora_supply += 1
        events.append(self._event("amphora_spent", seat=seat, mode=state.mode))
        if state.mode == DRAW:
            self._draw(state, seat, state.options["AMPHORA_CARD_DRAW_RATE"], events)
        else:
            state.actions_left += 1
        self._maybe_end_turn(state, events)

    def _draw_instead(
        self, state: AttikaState, seat: int, _: DrawCards, events: list[Event]
    ) -> None:
        if not state.amphorae[seat]:
            raise IllegalAction(
                "no-amphora", N_("only a player with an amphora may draw and go on")
            )
        if state.mode == DRAW:
            raise IllegalAction("already-drawn", N_("the remaining actions are already cards"))
        unused = self._unused(state)
        if not unused:
            raise IllegalAction("no-actions-left", N_("no action is left to turn into cards"))
        state.mode = DRAW
        state.actions_left = 0
        events.append(self._event("actions_converted", seat=seat, actions=unused))
        self._draw(state, seat, unused * self.board.card_per_unused_action, events)
        self._maybe_end_turn(state, events)

    def _draw(self, state: AttikaState, seat: int, count: int, events: list[Event]) -> None:
        drawn: list[int] = []
        for _ in range(max(count, 0)):
            if not state.deck and not self._reshuffle(state, events):
                break
            drawn.append(state.deck.pop())
        if not drawn:
            return
        for card in drawn:
            state.hands[seat][card] += 1
        events.append(self._event("cards_drawn", seat=seat, count=len(drawn)))
        events.append(
            Event(
                "cards_drawn_own",
                {"seat": seat, "cards": [self.board.resources[c].id for c in sorted(drawn)]},
                audience=(seat,),
            )
        )

    def _reshuffle(self, state: AttikaState, events: list[Event]) -> bool:
        if state.options["DECK_EXHAUSTED"] != "reshuffle_discards" or not state.discard:
            return False
        state.reshuffles += 1
        state.deck, state.discard = sorted(state.discard), []
        seeded_rng(state.seed, "reshuffle", state.reshuffles).shuffle(state.deck)
        events.append(self._event("discards_reshuffled", cards=len(state.deck)))
        return True
