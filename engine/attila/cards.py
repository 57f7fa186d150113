"""A card and its stones (docs/rules/attila.md, "A turn"): play a card and set a stone,
take influence or waive it for a second stone (§2), or discard when no card is playable
(``NO_PLAYABLE_CARD``).

A stone that makes a fifth in a province queues its conflict (conflicts.py), fought once the
card's stones are set. Influence climbs a people's track by the century's steps
(``NEW_COUNTER_ENTRY``); the top field ends the game after the turn.
"""

from __future__ import annotations

from engine.attila.actions import Discard, Play, TakeInfluence, Waive
from engine.attila.base import RulesBase
from engine.attila.state import INFLUENCE, AttilaState
from engine.core import Event, IllegalAction
from engine.sentences import N_


class Cards(RulesBase):
    """Playing, placing, influence and discarding."""

    def _play(self, state: AttilaState, seat: int, action: Play, events: list[Event]) -> None:
        hand = state.hands[seat]
        if action.people not in hand:
            raise IllegalAction(
                "card-not-in-hand",
                N_("you hold no card of that people"),
                people=self._people_id(action.people),
            )
        self._check_placement(state, action.people, action.province)
        hand.remove(action.people)
        state.discard.append(action.people)
        state.people = action.people
        state.placed = 0
        state.conflict_this_card = False
        events.append(self._event("card_played", seat=seat, people=self._people_id(action.people)))
        self._place(state, action.province, events)
        state.step = INFLUENCE

    def _check_placement(self, state: AttilaState, people: int, province: int) -> None:
        if not state.supply[people]:
            raise IllegalAction(
                "supply-empty",
                N_("no stone of that people is left in the supply"),
                people=self._people_id(people),
            )
        if not self.placement_mask(state, people) >> province & 1:
            raise IllegalAction(
                "illegal-province",
                self._placement_reason(state, people, province),
                people=self._people_id(people),
                province=self.board.provinces[province].id,
            )

    def _placement_reason(self, state: AttilaState, people: int, province: int) -> str:
        name = self.board.provinces[province].id
        count = sum(state.stones[province])
        if state.pacified[province]:
            return f"{name} is pacified: no stone may enter it"
        if count > self.board.province_capacity:
            return f"{name} already holds a fifth stone: a sixth is never allowed"
        if count == self.board.province_capacity:
            return f"{name} is full and no pacification tile is left for a conflict"
        return (
            f"{name} is not a frontier province and does not hold or border a province "
            f"holding {self._people_id(people)}"
        )

    def _place(self, state: AttilaState, province: int, events: list[Event]) -> None:
        people = state.people
        state.stones[province][people] += 1
        state.supply[people] -= 1
        state.placed += 1
        events.append(
            self._event(
                "stone_placed",
                people=self._people_id(people),
                province=self.board.provinces[province].id,
                seat=state.active,
            )
        )
        if sum(state.stones[province]) > self.board.province_capacity:
            state.queued.append(province)

    def _take_influence(
        self, state: AttilaState, seat: int, _: TakeInfluence, events: list[Event]
    ) -> None:
        steps = self.board.influence_steps[self.current_century(state)]
        self._raise_influence(state, seat, state.people, steps, events)
        self._after_placements(state, events)

    def _waive(self, state: AttilaState, seat: int, action: Waive, events: list[Event]) -> None:
        # §2: after waiving the player *may* set a second stone (``waive ROM``), or none.
        if action.province is not None:
            self._check_placement(state, state.people, action.province)
        events.append(self._event("influence_waived", seat=seat))
        if action.province is not None:
            self._place(state, action.province, events)
        self._after_placements(state, events)

    def _discard(self, state: AttilaState, seat: int, action: Discard, events: list[Event]) -> None:
        if action.people not in state.hands[seat]:
            raise IllegalAction(
                "card-not-in-hand",
                N_("you hold no card of that people"),
                people=self._people_id(action.people),
            )
        if not isinstance(self._card_actions(state)[0], Discard):
            raise IllegalAction("card-playable", N_("you can play a card, so you may not discard"))
        state.hands[seat].remove(action.people)
        state.discard.append(action.people)
        events.append(
            self._event("card_discarded", seat=seat, people=self._people_id(action.people))
        )
        state.cards_left = 1  # no other card is playable either: the turn ends
        state.conflict_this_card = False
        self._card_done(state, events)

    def _raise_influence(
        self, state: AttilaState, seat: int, people: int, steps: int, events: list[Event]
    ) -> None:
        track = state.influence[seat]
        before = track[people]
        if before == 0 and state.options["NEW_COUNTER_ENTRY"] == "entry_consumes_all_steps":
            after = 1
        else:
            after = min(before + steps, self.board.influence_top)
        track[people] = after
        events.append(
            self._event(
                "influence_raised",
                seat=seat,
                people=self._people_id(people),
                field=after,
                steps=after - before,
            )
        )
        if after == self.board.influence_top and "influence_top" not in state.end_reasons:
            state.end_reasons.append("influence_top")

    def _after_placements(self, state: AttilaState, events: list[Event]) -> None:
        if state.queued:
            self._start_conflict(state, state.queued.pop(0), events)
        else:
            self._card_done(state, events)
