"""Councils and diplomacy: the Lugdunum council (10.1) and the end council (10.4).

Leo I ending a Roman movement phase in Lugdunum while the Burgundians are neutral calls the
council; both players choose a diplomatic card sealed and the server resolves it. Its sides
apply only once the West is invaded ("ambedue però non prima dell'invasione
dell'Occidente"). After the last round the Roman may convene the end council, which decides
what becomes of Attila's papacy.
"""

from __future__ import annotations

from engine.attila_wargame.actions import Convene, Resolve
from engine.attila_wargame.base import RulesBase
from engine.attila_wargame.map_questions import BARBARIAN, NEUTRAL, ROMAN
from engine.attila_wargame.state import COUNCIL_CARD, Council, WargameState
from engine.core import Event


class Councils(RulesBase):
    """Calling, resolving and declining councils, and peoples joining a side."""

    def _council_due(self, state: WargameState) -> bool:
        council = self.b.bindings["council"]
        city = self.b.city_by_id[council["city"]]
        pope = self.roles["pope"]
        return (
            not state.lugdunum_done
            and state.pos.get(pope) == city.hex
            and state.options["POPE_VISIT_TRIGGER"].get(city.id) == "ends_movement_in_hex"
            and state.alignment.get(council["needs_neutral"]) == NEUTRAL
        )

    def _start_council(self, state: WargameState, kind: str, events: list[Event]) -> None:
        state.councils += 1
        state.council = Council(f"council-{state.councils}", kind)
        state.step = COUNCIL_CARD
        events.append(self._event("council_called", ref=state.council.ref, kind=kind))

    def _resolve_council(
        self, state: WargameState, _: int, __: Resolve, events: list[Event]
    ) -> None:
        council = state.council
        assert council is not None
        roman = council.cards[str(self.seat_of[ROMAN])]
        barbarian = council.cards[str(self.seat_of[BARBARIAN])]
        outcome = self.b.diplomacy[roman][barbarian]
        council.result = outcome
        events.append(
            self._event(
                "council_resolved",
                ref=council.ref,
                kind=council.kind,
                roman_card=roman,
                barbarian_card=barbarian,
                result=outcome,
            )
        )
        state.council = None
        if council.kind == "lugdunum":
            changes = self.b.bindings["council"]["outcomes"][str(outcome)]
            if changes:
                state.lugdunum_done = True
            if state.west_invaded:
                self._join_sides(state, changes, events)
            elif changes:
                # 10.1: "ambedue però non prima dell'invasione dell'Occidente".
                state.sides_at_west_invasion = dict(changes)
                events.append(self._event("sides_await_west_invasion", sides=dict(changes)))
            self._start_combat(state, "f", events)
            return
        if outcome > 0:
            state.attila_title = "deposed"
        elif outcome < 0:
            state.attila_title = "pope"
            state.leo = "driven_out"
        self._finish(state, events)

    def _join_sides(self, state: WargameState, sides: dict[str, str], events: list[Event]) -> None:
        for people, side in sides.items():
            state.alignment[people] = side
            events.append(self._event("people_joined", people=people, side=side))

    def _convene(
        self, state: WargameState, seat: int, action: Convene, events: list[Event]
    ) -> None:
        events.append(self._event("end_council", convened=action.convene))
        if action.convene:
            self._start_council(state, "end", events)
        else:
            self._finish(state, events)
