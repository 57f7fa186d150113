"""The calendar: rounds and seasons, the start of each phase, and what happens at fixed
points of a round.

A round runs (a) Barbarian movement, (b) devastation, (c) Barbarian combat, (d) siege losses,
(e) Roman movement, (f) Roman combat. Devastation (3) marks hexes at the end of (a) and
recovery lifts the marks each spring; sieges (6, 11) cost besieged units points in (d). The
scripted events of ``bindings.json`` (the emperors, 9; Merovaeus, 12; Theodoric, 13) bring
units in or take them off at the start or end of a phase.
"""

from __future__ import annotations

from typing import Any

from engine.attila_wargame.base import RulesBase
from engine.attila_wargame.map_questions import NEUTRAL
from engine.attila_wargame.state import MOVEMENT, WargameState
from engine.core import Event


class Calendar(RulesBase):
    """Starting rounds and phases, scripted events, devastation, recovery and sieges."""

    def _start_round(self, state: WargameState, events: list[Event]) -> None:
        season = self.b.seasons[(state.round - 1) % len(self.b.seasons)]
        events.append(self._event("round_started", round=state.round, season=season))
        if season == self.b.seasons[0] and state.round > 1:
            self._recovery(state, events)
        self._start_movement(state, "a", events)

    def _start_movement(self, state: WargameState, phase: str, events: list[Event]) -> None:
        state.phase = phase
        state.step = MOVEMENT
        state.moved = {}
        if phase == "a":
            state.attila_trail = []
        self._run_events(state, "start", events)
        events.append(self._event("phase_started", round=state.round, phase=phase))

    def _run_events(self, state: WargameState, at: str, events: list[Event]) -> None:
        for ev in self.b.bindings["events"]:
            if ev["round"] != state.round or ev["phase"] != state.phase or ev["at"] != at:
                continue
            unit = ev["unit"]
            if ev["kind"] == "remove":
                if unit in state.pos:
                    self._remove(state, unit, "died", events)
                continue
            where = self._entry_hex(state, ev)
            if where is None:
                state.gone[unit] = "never_entered"
                events.append(self._event("unit_not_entered", unit=unit))
                continue
            state.pos[unit] = where
            if "frozen_until_round" in ev:
                state.frozen[unit] = ev["frozen_until_round"]
            events.append(self._event("unit_entered", unit=unit, hex=self.b.label(where)))

    def _entry_hex(self, state: WargameState, ev: dict[str, Any]) -> int | None:
        people = self.people_of[ev["unit"]]
        side = state.alignment.get(people, NEUTRAL)

        def free(h: int) -> bool:
            return all(self.side(state, u) == side for u, at in state.pos.items() if at == h)

        if ev["place"] == "with_first_combat_unit_of_people":
            for u in self.b.unit_ids_of(ev["people"], combat=True):
                if u in state.pos:
                    return state.pos[u]
            city = self.b.city_by_id[ev["fallback_city"]]
            return city.hex if free(city.hex) else None
        city = self.b.city_by_id[ev["city"]]
        if not any(
            self.is_combat[u] and self.side(state, u) not in (side, NEUTRAL)
            for u, at in state.pos.items()
            if at == city.hex
        ):
            return city.hex
        held = [
            c
            for c in self.b.cities
            if c.region == ev["region"]
            and any(
                self.is_combat[u] and self.side(state, u) == side
                for u, at in state.pos.items()
                if at == c.hex
            )
        ]
        if not held:
            return None
        return max(held, key=lambda c: (c.value, -self.b.cities.index(c))).hex

    # -- devastation (3) -------------------------------------------------------------------------

    def _devastation(self, state: WargameState, events: list[Event]) -> None:
        ctx = self.ctx(state)
        marked = set(state.temp_devastated) | set(state.perm_devastated)
        new = sorted(
            h for h in self.b.cultivated if h not in marked and self.barbarian_holds(state, ctx, h)
        )
        if new:
            state.temp_devastated = sorted(set(state.temp_devastated) | set(new))
            events.append(self._event("devastated", hexes=[self.b.label(h) for h in new]))

    def _recovery(self, state: WargameState, events: list[Event]) -> None:
        ctx = self.ctx(state)
        back = [h for h in state.temp_devastated if not self.barbarian_holds(state, ctx, h)]
        if back:
            state.temp_devastated = [h for h in state.temp_devastated if h not in set(back)]
            events.append(self._event("recovered", hexes=[self.b.label(h) for h in back]))

    # -- sieges (6, 11) --------------------------------------------------------------------------

    def _sieges(self, state: WargameState, events: list[Event]) -> None:
        ctx = self.ctx(state)
        siege = self.b.bindings["siege"]
        for unit in sorted(state.pos, key=self.order.__getitem__):
            if unit not in state.pos or not self.is_combat[unit]:
                continue
            if not self.besieged(state, ctx, unit):
                if unit in state.siege_hit:
                    state.siege_hit.remove(unit)
                continue
            city = self.b.city_at[state.pos[unit]]
            loss = siege["loss_by_city"].get(city.id, siege["default_loss"])
            events.append(self._event("siege_loss", unit=unit, city=city.id, points=loss))
            if not self._lose(state, unit, loss, events) and unit not in state.siege_hit:
                state.siege_hit.append(unit)
