"""The movement phases (a) and (e), rules 1 and 2, and what entering a hex sets off.

A unit moves one hex at a time: ``legal_actions`` offers single steps, and a longer ``move``
is checked in full and then taken as the same steps one after another (``_take_step``), so a
secret note that fires on the way (notes.py) can cut it short. Zones of control stop a combat
unit that enters them and hold one that begins in them (1.3; none in a city, 2.2, 2.3);
rivers stop units by ``RIVER_STOP_MODEL`` (1.4). Entering a hex records invasions, cities
taken, the Pope's visits (10.1) and sets off the traitor and suborned checks. Phase (a) ends
with devastation (calendar.py) and, when Attila entered cultivated hexes he may devastate for
good, the Barbarian's razing (3.2).
"""

from __future__ import annotations

from engine.attila_wargame.actions import End, Move, Raze, WargameAction
from engine.attila_wargame.base import RulesBase
from engine.attila_wargame.map_questions import BARBARIAN, NEUTRAL, ROMAN, Ctx
from engine.attila_wargame.state import RAZE, WargameState
from engine.core import Event, IllegalAction
from engine.sentences import N_


class Movement(RulesBase):
    """Moving units step by step, ending a movement phase, and what entering a hex does."""

    def movable(self, state: WargameState, ctx: Ctx, unit: str, side: str) -> bool:
        """Whether ``unit`` may still take a step in this movement phase."""
        if self.side(state, unit) != side or unit in ctx.neutralised:
            return False
        if state.frozen.get(unit, 0) > state.round:
            return False
        done = state.moved.get(unit)
        used = done["used"] if done else 0
        if (done and done["stopped"]) or used >= self.b.units[unit].mf:
            return False
        if self.is_combat[unit] and not done:
            # 1.3: a combat unit that begins in an enemy zone of control stays there
            # (a unit in a city never is in one, 2.2, so it may always leave, 2.3).
            return not self.in_enemy_zoc(ctx, unit, state.pos[unit])
        return True

    def _step_actions(self, state: WargameState, seat: int) -> list[WargameAction]:
        ctx = self.ctx(state)
        side = self.seats[seat]
        own = {p for p, s in state.alignment.items() if s == side}
        out: list[WargameAction] = []
        for unit in self.b.unit_order:
            if unit in state.pos and self.people_of[unit] in own:
                out += [Move(unit, (n,)) for n in self.unit_steps(state, ctx, unit, side)]
        return out

    def unit_steps(self, state: WargameState, ctx: Ctx, unit: str, side: str) -> list[int]:
        """The hexes ``unit`` (on the map, of ``side``) may step into next: ``legal_actions``'
        single steps of one unit (the web table's marches are built from them)."""
        if not self.movable(state, ctx, unit, side):
            return []
        closed = self.closed_reason  # ``may_stand``, on the move generator's hot path
        at = state.pos[unit]
        return [n for n in self.b.neighbours[at] if closed(state, ctx, unit, n) is None]

    def _move(self, state: WargameState, seat: int, action: Move, events: list[Event]) -> None:
        unit, path = action.unit, action.path
        if unit not in state.pos:
            raise IllegalAction("unit-not-on-map", f"{unit} is not on the map", unit=unit)
        ctx = self.ctx(state)
        side = self.seats[seat]
        if self.side(state, unit) != side:
            raise IllegalAction("not-your-unit", f"{unit} is not yours to move", unit=unit)
        if not path:
            raise IllegalAction("empty-path", N_("a move names at least one hex"))
        if not self.movable(state, ctx, unit, side):
            raise IllegalAction(
                "unit-cannot-move",
                f"{unit} cannot move now (moved its full factor, stopped, locked in an enemy "
                "zone of control, neutralised or not yet arrived)",
                unit=unit,
            )
        # Validate the whole path first (nothing but this unit moves along it).
        done = state.moved.get(unit)
        used = done["used"] if done else 0
        at = state.pos[unit]
        run = set(done["run"]) if done else set(self.b.rivers_of.get(at, ()))
        mf = self.b.units[unit].mf
        moving = self._without(ctx, unit, at)
        stopped = False
        for h in path:
            if stopped:
                raise IllegalAction(
                    "must-stop", f"{unit} must stop at {self.b.label(at)}", unit=unit
                )
            if used >= mf:
                raise IllegalAction("too-far", f"{unit} moves at most {mf} hexes", unit=unit)
            if h not in self.b.neighbours[at]:
                raise IllegalAction(
                    "not-adjacent",
                    f"{self.b.label(h)} is not next to {self.b.label(at)}",
                    unit=unit,
                )
            if not self.may_stand(state, moving, unit, h):
                raise IllegalAction(
                    "cannot-enter",
                    f"{unit} may not enter {self.b.label(h)} (sea, closed territory, another "
                    "combat unit, an enemy or neutral unit, or a city it may not occupy yet)",
                    unit=unit,
                    hex=self.b.label(h),
                )
            stopped, run = self._step_stops(state, moving, unit, at, h, run)
            used += 1
            at = h
        # Apply, step by step (a secret note may end the move early); the first step from
        # the tables above, the state unchanged since.
        for step, h in enumerate(path):
            self._take_step(state, unit, h, events, moving if step == 0 else None)
            if unit not in state.pos:
                break
            if state.moved[unit]["stopped"] and h != path[-1]:
                events.append(self._event("move_cut_short", unit=unit))
                break

    def _step_stops(
        self, state: WargameState, ctx: Ctx, unit: str, at: int, into: int, run: set[str]
    ) -> tuple[bool, set[str]]:
        """Whether entering ``into`` ends the unit's move (1.3, 1.4), and the river it follows."""
        stop = False
        rivers = self.b.rivers_of.get(into)
        if state.options["RIVER_STOP_MODEL"] == "stop_after_crossing_river_hexside":
            stop = self.b.river_between(at, into)
            run = set()
        elif rivers:
            common = run & rivers
            stop = not common
            run = set(common)
        else:
            run = set()
        if self.is_combat[unit] and self.in_enemy_zoc(ctx, unit, into):
            stop = True
        return stop, run

    def _take_step(
        self, state: WargameState, unit: str, h: int, events: list[Event], lifted: Ctx | None = None
    ) -> None:
        """One step into ``h``. ``lifted``: this state's lookup tables with ``unit`` lifted
        off the map, when the caller has them (the web table's march trial, targets.py: the
        tables over every counter were most of its time)."""
        at = state.pos[unit]
        ctx = lifted if lifted is not None else self._without(self.ctx(state), unit, at)
        done = state.moved.get(unit)
        run = set(done["run"]) if done else set(self.b.rivers_of.get(at, ()))
        stopped, run = self._step_stops(state, ctx, unit, at, h, run)
        used = (done["used"] if done else 0) + 1
        state.moved[unit] = {"used": used, "stopped": stopped, "run": sorted(run)}
        state.pos[unit] = h
        if unit in state.siege_hit:
            state.siege_hit.remove(unit)
        events.append(self._event("moved", unit=unit, to=self.b.label(h), stopped=stopped))
        if unit == self.roles["attila"] and state.phase == "a":
            state.attila_trail.append(h)
        self._entered(state, unit, h, events)
        self._check_aetius(state, events)

    def _end_movement(self, state: WargameState, seat: int, _: End, events: list[Event]) -> None:
        events.append(self._event("movement_ended", phase=state.phase, round=state.round))
        state.moved = {}
        if state.phase == "a":
            self._devastation(state, events)
            if self._raze_candidates(state):
                state.step = RAZE
                return
            self._start_combat(state, "c", events)
        else:
            if self._council_due(state):
                self._start_council(state, "lugdunum", events)
                return
            self._start_combat(state, "f", events)

    # -- what happens when a unit enters a hex ---------------------------------------------------

    def _entered(self, state: WargameState, unit: str, h: int, events: list[Event]) -> None:
        """Invasion markers, city records, the Pope's visits and the secret notes."""
        b = self.b
        side = self.side(state, unit)
        people = self.people_of[unit]
        if self.is_combat[unit]:
            invasion = b.bindings["west_invasion"]
            if people == invasion["people"]:
                if b.empire[h] == "west" and not state.west_invaded:
                    state.west_invaded = True
                    events.append(self._event("west_invaded", unit=unit, hex=b.label(h)))
                    self._join_sides(state, state.sides_at_west_invasion, events)
                    state.sides_at_west_invasion = {}
                if b.region[h] == b.bindings["gaul_region"] and not state.gaul_invaded:
                    state.gaul_invaded = True
                    events.append(self._event("gaul_invaded", unit=unit, hex=b.label(h)))
            city = b.city_at.get(h)
            if city is not None:
                state.last_in_city[city.id] = side
                if side == BARBARIAN and city.id not in state.taken:
                    state.taken.append(city.id)
                    events.append(self._event("city_taken", city=city.id, unit=unit))
        elif people in self.roman_nations:
            for other in list(state.neutralised):
                if state.pos.get(other) == h:
                    state.neutralised.remove(other)
                    events.append(self._event("traitor_restored", unit=other, by=unit))
        if unit == self.roles["pope"]:
            self._pope_visits(state, h, events)
            self._traitor_check(state, unit, h, events)
        elif unit == self.roles["attila"]:
            self._traitor_check(state, unit, h, events)
            if unit in state.pos:
                self._suborned_check(state, h, events)

    def _pope_visits(self, state: WargameState, h: int, events: list[Event]) -> None:
        city = self.b.city_at.get(h)
        if city is None:
            return
        trigger = state.options["POPE_VISIT_TRIGGER"].get(city.id)
        people = self.b.bindings["federation_peoples"].get(city.id)
        if trigger == "enters_hex" and people and state.alignment.get(people) == NEUTRAL:
            state.alignment[people] = ROMAN
            events.append(self._event("federated", people=people, city=city.id))

    # -- permanent devastation (3.2) -------------------------------------------------------------

    def _raze_candidates(self, state: WargameState) -> list[int]:
        perm = set(state.perm_devastated)
        return sorted(
            h for h in set(state.attila_trail) if h in self.b.cultivated and h not in perm
        )

    def _raze(self, state: WargameState, seat: int, action: Raze, events: list[Event]) -> None:
        allowed = set(self._raze_candidates(state))
        wrong = [h for h in action.hexes if h not in allowed]
        if wrong:
            raise IllegalAction(
                "cannot-raze",
                N_("Attila devastates for good only cultivated hexes he entered this phase"),
                hex=self.b.label(wrong[0]),
            )
        if action.hexes:
            state.perm_devastated = sorted(set(state.perm_devastated) | set(action.hexes))
            state.temp_devastated = [h for h in state.temp_devastated if h not in action.hexes]
            events.append(self._event("razed", hexes=[self.b.label(h) for h in action.hexes]))
        self._start_combat(state, "c", events)
