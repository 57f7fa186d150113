"""The Attila wargame's rules: setup, movement, devastation, combat, sieges, events, victory.

Every handler validates completely before it changes anything, so an illegal action leaves
the state as it was. Rulings beyond the rulebook are named options (the spec's UPPER_SNAKE
names) and are written down in docs/rules/attila-wargame.md. Seats follow
``bindings.json`` ``seats``: seat 0 the Roman player, seat 1 the Barbarian.

Movement is offered one hex at a time (``legal_actions`` lists every single-hex step of
every unit that may still move, plus ``end``); ``apply`` accepts any longer path and treats
it exactly as the same steps taken one after the other.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
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
from engine.attila_wargame.board import Board
from engine.attila_wargame.map_questions import BARBARIAN, NEUTRAL, ROMAN, Ctx, MapQuestions
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
    Council,
    WargameState,
)
from engine.core import (
    SYSTEM,
    Decision,
    Event,
    IllegalAction,
    check_turn,
    dispatch,
    rank_with_resigned,
    start_rejoin,
    start_resign,
)
from engine.sentences import N_

#: Phase id -> the side that moves or attacks in it (a..f per the calendar).
_PHASE_SIDE = {"a": BARBARIAN, "c": BARBARIAN, "e": ROMAN, "f": ROMAN}


class Rules(MapQuestions):
    """The rules on one board. Stateless; every method takes the state. The read-only map
    questions (hostility, territory, zones of control, stacking, strength, sieges) are
    inherited from ``MapQuestions``."""

    def __init__(self, board: Board) -> None:
        super().__init__(board)
        bind = board.bindings
        self.seats: list[str] = list(bind["seats"])
        self.seat_of = {side: i for i, side in enumerate(self.seats)}
        self.roles: dict[str, str] = bind["roles"]
        self.barbarian_cmu_peoples = frozenset(bind["barbarian_cmu_peoples"])
        notes = bind["secret_notes"]
        self.traitor_candidates = [
            u for p in notes["traitor_peoples"] for u in board.unit_ids_of(p, combat=True)
        ]
        self.suborned_candidates = [
            u for p in notes["suborned_peoples"] for u in board.unit_ids_of(p, combat=True)
        ]
        self.aetius_span = notes["aetius_rounds"]
        self.aetius_distance = notes["aetius_distance"]

    # == setup ================================================================================

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

    # == who acts ===========================================================================

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

    # == small lookups ========================================================================

    def _seat_of_unit(self, state: WargameState, unit: str) -> int:
        side = self.side(state, unit)
        return self.seat_of.get(side, -2)

    def phase_side(self, state: WargameState) -> str:
        return _PHASE_SIDE.get(state.phase, "")

    # == legal actions ========================================================================

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

    def _note_actions(self, seat: int) -> list[WargameAction]:
        if self.seats[seat] == BARBARIAN:
            last = self.b.rounds - self.aetius_span + 1
            return [Note(u, r) for u in self.traitor_candidates for r in range(1, last + 1)]
        return [Note(u) for u in self.suborned_candidates]

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
        out: list[WargameAction] = []
        neighbours = self.b.neighbours
        own = {p for p, s in state.alignment.items() if s == side}
        for unit in self.b.unit_order:
            at = state.pos.get(unit)
            if at is None or self.people_of[unit] not in own:
                continue
            if not self.movable(state, ctx, unit, side):
                continue
            for n in neighbours[at]:
                if self.may_stand(state, ctx, unit, n):
                    out.append(Move(unit, (n,)))
        return out

    def _raze_candidates(self, state: WargameState) -> list[int]:
        perm = set(state.perm_devastated)
        return sorted(
            h for h in set(state.attila_trail) if h in self.b.cultivated and h not in perm
        )

    # == applying =============================================================================

    def apply(self, state: WargameState, seat: int, action: WargameAction) -> list[Event]:
        check_turn(self.pending(state), state.step == OVER, seat, action)
        events: list[Event] = []
        dispatch(_HANDLERS, self, state, seat, action, events)
        self._check_aetius(state, events)
        return events

    def _event(self, name: str, /, **data: Any) -> Event:
        return Event(name, data)

    # -- secret notes ------------------------------------------------------------------------

    def _note(self, state: WargameState, seat: int, action: Note, events: list[Event]) -> None:
        if self.seats[seat] == BARBARIAN:
            if action.unit not in self.traitor_candidates:
                raise IllegalAction(
                    "bad-note", N_("the traitor must be a Roman combat unit"), unit=action.unit
                )
            last = self.b.rounds - self.aetius_span + 1
            if action.aetius is None or not 1 <= action.aetius <= last:
                raise IllegalAction(
                    "bad-note",
                    f"name the first of Aetius's {self.aetius_span} rounds, 1 to {last}",
                    aetius=action.aetius,
                )
            mine = {"traitor": action.unit, "aetius": action.aetius}
        else:
            if action.unit not in self.suborned_candidates or action.aetius is not None:
                raise IllegalAction(
                    "bad-note",
                    N_(
                        "the suborned unit must be a combat unit of the Heruli, Longobards or "
                        "Ostrogoths, with no round"
                    ),
                    unit=action.unit,
                )
            mine = {"suborned": action.unit}
        state.notes.setdefault("written", {})[str(seat)] = True
        state.notes.update(mine)
        events.append(self._event("note_written", seat=seat))
        events.append(Event("note_written_own", {"seat": seat, **mine}, audience=(seat,)))
        if len(state.notes["written"]) == len(self.seats):
            self._start_round(state, events)

    # -- movement ----------------------------------------------------------------------------

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
        # Apply, step by step (a secret note may end the move early).
        for h in path:
            self._take_step(state, unit, h, events)
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

    def _take_step(self, state: WargameState, unit: str, h: int, events: list[Event]) -> None:
        at = state.pos[unit]
        ctx = self._without(self.ctx(state), unit, at)
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

    # -- what happens when a unit enters a hex -----------------------------------------------

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

    def _traitor_check(self, state: WargameState, unit: str, h: int, events: list[Event]) -> None:
        traitor = state.notes.get("traitor")
        if not traitor or "traitor" in state.notes_fired or traitor not in state.pos:
            return
        ctx = self.ctx(state)
        if traitor in ctx.neutralised:
            return
        at = state.pos[traitor]
        in_zoc = h in self.b.neighbours[at] and self.projects(ctx, traitor, at, h)
        pope = unit == self.roles["pope"]
        if not (in_zoc or (pope and h == at)):
            return
        state.notes_fired.append("traitor")
        state.neutralised.append(traitor)
        if pope:
            state.attila_title = "pope"
            dead = [u for u in ctx.units_at.get(h, ()) if not self.is_combat[u]]
            for cmu in sorted(dead, key=self.order.__getitem__):
                self._remove(state, cmu, "killed", events)
            state.leo = "dead"
        elif state.attila_title == "":
            state.attila_title = "antipope"
        events.append(
            self._event(
                "traitor_revealed",
                unit=traitor,
                by=unit,
                attila=state.attila_title,
                leo=state.leo,
            )
        )

    def _suborned_check(self, state: WargameState, h: int, events: list[Event]) -> None:
        suborned = state.notes.get("suborned")
        if not suborned or "suborned" in state.notes_fired or suborned not in state.pos:
            return
        if self.b.distance(state.pos[suborned], h) != 1:
            return
        state.notes_fired.append("suborned")
        attila = self.roles["attila"]
        self._remove(state, attila, "killed", events)
        events.append(self._event("suborned_revealed", unit=suborned, killed=attila))

    def _check_aetius(self, state: WargameState, events: list[Event]) -> None:
        first = state.notes.get("aetius")
        if first is None or "aetius" in state.notes_fired or state.phase == "notes":
            return
        if not first <= state.round < first + self.aetius_span:
            return
        aetius, emperor = self.roles["aetius"], self.roles["emperor_west"]
        if aetius not in state.pos or emperor not in state.pos:
            return
        if self.b.distance(state.pos[aetius], state.pos[emperor]) > self.aetius_distance:
            return
        state.notes_fired.append("aetius")
        self._remove(state, aetius, "murdered", events)
        events.append(
            self._event(
                "aetius_murdered",
                rounds=list(range(first, first + self.aetius_span)),
                round=state.round,
            )
        )

    def _remove(self, state: WargameState, unit: str, why: str, events: list[Event]) -> None:
        """Take a unit off the map (``why``: eliminated, killed, murdered, died)."""
        at = state.pos.pop(unit, None)
        state.cf.pop(unit, None)
        state.moved.pop(unit, None)
        if unit in state.neutralised:
            state.neutralised.remove(unit)
        if unit in state.siege_hit:
            state.siege_hit.remove(unit)
        state.gone[unit] = why
        events.append(
            self._event(
                "unit_removed", unit=unit, reason=why, hex=None if at is None else self.b.label(at)
            )
        )

    def _eliminate(self, state: WargameState, unit: str, events: list[Event]) -> None:
        """A combat unit is eliminated; the command units with it share its fate (5.6)."""
        at = state.pos[unit]
        side = self.side(state, unit)
        self._remove(state, unit, "eliminated", events)
        for other in sorted(
            [u for u, h in state.pos.items() if h == at and not self.is_combat[u]],
            key=self.order.__getitem__,
        ):
            if self.side(state, other) == side:
                self._remove(state, other, "eliminated", events)
                if other == self.roles["pope"]:
                    state.leo = "dead"

    def _lose(self, state: WargameState, unit: str, points: int, events: list[Event]) -> bool:
        """A combat unit loses points; True when it is eliminated."""
        left = state.cf[unit] - points
        events.append(self._event("strength_lost", unit=unit, points=points, cf=max(left, 0)))
        if left <= 0:
            self._eliminate(state, unit, events)
            return True
        state.cf[unit] = left
        return False

    # -- devastation -------------------------------------------------------------------------

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

    # -- sieges ------------------------------------------------------------------------------

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

    # -- combat ------------------------------------------------------------------------------

    def _start_combat(self, state: WargameState, phase: str, events: list[Event]) -> None:
        state.phase = phase
        state.step = COMBAT
        state.fought = []
        state.attacked = []
        self._run_events(state, "start", events)
        events.append(self._event("phase_started", round=state.round, phase=phase))
        self._maybe_end_combat(state, events)

    def _maybe_end_combat(self, state: WargameState, events: list[Event]) -> None:
        options, _ = self._battle_options(state)
        if not options:
            self._end_combat_phase(state, events)

    def _battle_options(self, state: WargameState) -> tuple[dict[int, tuple[str, ...]], bool]:
        """Target hex -> the attackers that may take part; and whether a battle is owed."""
        options, owed_by = self._battle_duties(state)
        return options, bool(owed_by)

    def _battle_duties(
        self, state: WargameState
    ) -> tuple[dict[int, tuple[str, ...]], dict[str, set[int]]]:
        """Target hex -> the attackers that may take part; and, for each unfought unit that
        owes a battle (4.1, 4.2: neither it nor its enemy in a city), the targets it owes."""
        side = self.phase_side(state)
        ctx = self.ctx(state)
        fought, attacked = set(state.fought), set(state.attacked)
        cities = self.b.city_at
        options: dict[int, tuple[str, ...]] = {}
        owed_by: dict[str, set[int]] = {}
        for t, units in ctx.units_at.items():
            defenders = [
                u
                for u in units
                if self.side(state, u) not in (side, NEUTRAL) and u not in ctx.neutralised
            ]
            if not defenders or any(u in attacked for u in defenders):
                continue
            combat = [u for u in defenders if self.is_combat[u]]
            if not combat and state.options["LONE_CMU_ATTACK"] != "voluntary_automatic_elimination":
                continue
            eligible = []
            for n in self.b.neighbours[t]:
                a = ctx.combat_at.get(n)
                if a is None or a in fought or a in ctx.neutralised or self.side(state, a) != side:
                    continue
                if any(self.contact(ctx, a, n, d, t) for d in (combat or defenders)):
                    eligible.append(a)
                    if combat and n not in cities and t not in cities:
                        owed_by.setdefault(a, set()).add(t)
            if eligible:
                options[t] = tuple(sorted(eligible, key=self.order.__getitem__))
        return options, owed_by

    @staticmethod
    def _must_join(owed_by: dict[str, set[int]], target: int) -> list[str]:
        """4.1: the units that owe a battle to ``target`` and to no other enemy. Each enemy is
        attacked once, so a battle at ``target`` without them would leave them none to fight."""
        return sorted(a for a, targets in owed_by.items() if targets == {target})

    def _attack(self, state: WargameState, seat: int, action: Attack, events: list[Event]) -> None:
        options, owed_by = self._battle_duties(state)
        eligible = options.get(action.target)
        if eligible is None or state.battle is not None:
            raise IllegalAction(
                "no-target",
                f"there is no enemy you may attack at {self.b.label(action.target)}",
                hex=self.b.label(action.target),
            )
        wrong = [u for u in action.attackers if u not in eligible]
        if not action.attackers or wrong:
            raise IllegalAction(
                "bad-attackers",
                N_(
                    "attackers must be your combat units next to the target that have not fought "
                    "in this phase and may fight it"
                ),
                units=wrong,
            )
        left_out = [u for u in self._must_join(owed_by, action.target) if u not in action.attackers]
        if left_out:
            raise IllegalAction(
                "must-join",
                N_(
                    "every unit in an enemy zone of control must take part in a combat (4.1): "
                    "these could fight no other enemy, so they join this battle"
                ),
                units=left_out,
            )
        ctx = self.ctx(state)
        t = action.target
        defenders = [u for u in ctx.units_at[t] if self.is_combat[u] and u not in ctx.neutralised]
        state.fought.extend(action.attackers)
        state.battles += 1
        ref = f"battle-{state.battles}"
        if not defenders:  # command units attacked alone are eliminated (5.6)
            lone = sorted(ctx.units_at[t], key=self.order.__getitem__)
            state.attacked.extend(lone)
            events.append(
                self._event("command_units_overrun", ref=ref, hex=self.b.label(t), units=lone)
            )
            for cmu in lone:
                self._remove(state, cmu, "eliminated", events)
                if cmu == self.roles["pope"]:
                    state.leo = "dead"
            state.battle = Battle(
                ref, seat, t, list(action.attackers), lone, 0, 0, "", losers=lone, vacated=[t]
            )
            self._to_advance(state, events)
            return
        attack = sum(self.strength(state, ctx, u, defending=False) for u in action.attackers)
        defence = sum(self.strength(state, ctx, u, defending=True) for u in defenders)
        column = self.column(state, attack, defence)
        state.attacked.extend(defenders)
        state.battle = Battle(
            ref, seat, t, list(action.attackers), defenders, attack, defence, column
        )
        state.battle.origin = {u: state.pos[u] for u in action.attackers}
        state.step = BATTLE_CARD
        events.append(
            self._event(
                "battle_declared",
                ref=ref,
                target=self.b.label(t),
                attackers=list(action.attackers),
                defenders=defenders,
                attack=attack,
                defence=defence,
                column=column,
            )
        )

    def column(self, state: WargameState, attack: int, defence: int) -> str:
        """5.1: the odds column, rounded in the defender's favour, clamped to the table."""
        if attack >= defence:
            ratio = Fraction(attack // defence)
        elif state.options["ODDS_ROUNDING"] == "defender_favourable":
            ratio = Fraction(1, -(-defence // attack))
        else:
            ratio = Fraction(1, defence // attack)
        best = self.b.columns[0]
        for col in self.b.columns:
            a, d = (int(x) for x in col.split(":"))
            if Fraction(a, d) <= ratio:
                best = col
        return best

    def _card(self, state: WargameState, seat: int, action: Card, events: list[Event]) -> None:
        allowed = [a.card for a in self.legal_actions(state, seat) if isinstance(a, Card)]
        if action.card not in allowed:
            raise IllegalAction("bad-card", f"choose one of {allowed}", card=action.card)
        holder = state.battle if state.step == BATTLE_CARD else state.council
        assert holder is not None
        if str(seat) in holder.cards:
            raise IllegalAction("already-chosen", N_("you have already chosen a card"))
        holder.cards[str(seat)] = action.card
        events.append(self._event("card_chosen", ref=holder.ref, seat=seat))
        events.append(
            Event("card_chosen_own", {"ref": holder.ref, "card": action.card}, audience=(seat,))
        )

    def _resolve_battle(
        self, state: WargameState, _: int, __: Resolve, events: list[Event]
    ) -> None:
        battle = state.battle
        assert battle is not None
        attacker, defender = battle.attacker_seat, 1 - battle.attacker_seat
        att, dfn = battle.cards[str(attacker)], battle.cards[str(defender)]
        result = self.b.cells[battle.column][att][dfn]
        battle.result = result
        events.append(
            self._event(
                "battle_resolved",
                ref=battle.ref,
                attack_card=att,
                defence_card=dfn,
                column=battle.column,
                result=result,
            )
        )
        losers = battle.attackers if result[0] == "A" else battle.defenders
        battle.losers = [u for u in losers if u in state.pos]
        if result[1] == "R":
            battle.retreating = list(battle.losers)
            state.step = RETREAT
            self._continue_retreats(state, events)
            return
        points = int(result[2:])
        for unit in list(battle.losers):
            if self._lose(state, unit, points, events):
                battle.vacated.append(self._last_hex(state, unit, battle))
        survivors = [u for u in battle.losers if u in state.pos]
        if survivors:
            battle.losers = survivors
            state.step = PUSH
        else:
            self._to_advance(state, events)

    def _last_hex(self, state: WargameState, unit: str, battle: Battle) -> int:
        return battle.target if unit in battle.defenders else battle.origin[unit]

    def _push(self, state: WargameState, seat: int, action: Push, events: list[Event]) -> None:
        battle = state.battle
        assert battle is not None
        events.append(self._event("push_decided", ref=battle.ref, push=action.push))
        if action.push:
            battle.retreating = [u for u in battle.losers if u in state.pos]
            state.step = RETREAT
            self._continue_retreats(state, events)
        else:
            self._to_advance(state, events)

    def _continue_retreats(self, state: WargameState, events: list[Event]) -> None:
        """Wait while a retreating unit has somewhere to go; then blocked ones lose points."""
        battle = state.battle
        assert battle is not None
        battle.retreating = [u for u in battle.retreating if u in state.pos]
        ctx = self.ctx(state)
        if any(self.retreat_hexes(state, ctx, u) for u in battle.retreating):
            state.step = RETREAT
            return
        loss = state.options["BLOCKED_RETREAT_LOSS_PER_UNIT"]
        for unit in list(battle.retreating):
            at = state.pos[unit]
            events.append(self._event("retreat_blocked", ref=battle.ref, unit=unit))
            if self._lose(state, unit, loss, events):
                battle.vacated.append(at)
        battle.retreating = []
        self._to_advance(state, events)

    def _retreat(
        self, state: WargameState, seat: int, action: Retreat, events: list[Event]
    ) -> None:
        battle = state.battle
        assert battle is not None
        if action.unit not in battle.retreating:
            raise IllegalAction(
                "not-retreating", f"{action.unit} has no retreat to make", unit=action.unit
            )
        ctx = self.ctx(state)
        if action.to not in self.retreat_hexes(state, ctx, action.unit):
            raise IllegalAction(
                "bad-retreat",
                f"{action.unit} may not retreat to {self.b.label(action.to)}",
                unit=action.unit,
                hex=self.b.label(action.to),
            )
        at = state.pos[action.unit]
        battle.retreating.remove(action.unit)
        battle.vacated.append(at)
        events.append(
            self._event("retreated", ref=battle.ref, unit=action.unit, to=self.b.label(action.to))
        )
        self._relocate(state, action.unit, at, action.to, events)
        self._continue_retreats(state, events)

    def _relocate(
        self, state: WargameState, unit: str, at: int, to: int, events: list[Event]
    ) -> None:
        """Move a combat unit one hex after combat, with the command units stacked on it."""
        side = self.side(state, unit)
        riders = [
            u
            for u, h in state.pos.items()
            if h == at and not self.is_combat[u] and self.side(state, u) == side
        ]
        for mover in [unit, *sorted(riders, key=self.order.__getitem__)]:
            if mover not in state.pos:
                continue
            state.pos[mover] = to
            if mover in state.siege_hit:
                state.siege_hit.remove(mover)
            self._entered(state, mover, to, events)

    def _advance_options(self, state: WargameState) -> list[tuple[str, int]]:
        battle = state.battle
        assert battle is not None
        losers = set(battle.losers)
        winners = battle.defenders if losers & set(battle.attackers) else battle.attackers
        ctx = self.ctx(state)
        out = []
        for h in sorted(set(battle.vacated)):
            if h in ctx.combat_at:
                continue
            for unit in winners:
                if unit not in state.pos or unit in ctx.neutralised:
                    continue
                at = state.pos[unit]
                if h in self.b.neighbours[at] and self.may_stand(
                    state, self._without(ctx, unit, at), unit, h
                ):
                    out.append((unit, h))
        return out

    def _to_advance(self, state: WargameState, events: list[Event]) -> None:
        if self._advance_options(state):
            state.step = ADVANCE
        else:
            self._battle_done(state, events)

    def _advance(
        self, state: WargameState, seat: int, action: Advance, events: list[Event]
    ) -> None:
        battle = state.battle
        assert battle is not None
        if action.unit is not None:
            if (action.unit, action.to) not in self._advance_options(state):
                raise IllegalAction(
                    "bad-advance",
                    N_(
                        "only a winning unit may advance, "
                        "into a hex vacated in this battle next to it"
                    ),
                    unit=action.unit,
                    hex=self.b.label(action.to) if action.to >= 0 else None,
                )
            at = state.pos[action.unit]
            events.append(
                self._event(
                    "advanced", ref=battle.ref, unit=action.unit, to=self.b.label(action.to)
                )
            )
            self._relocate(state, action.unit, at, action.to, events)
        self._battle_done(state, events)

    def _battle_done(self, state: WargameState, events: list[Event]) -> None:
        battle = state.battle
        assert battle is not None
        events.append(self._event("battle_over", ref=battle.ref))
        state.battle = None
        state.step = COMBAT
        self._check_aetius(state, events)
        self._maybe_end_combat(state, events)

    def _end_combat(self, state: WargameState, seat: int, _: End, events: list[Event]) -> None:
        _, owed = self._battle_options(state)
        if owed:
            raise IllegalAction(
                "combat-owed",
                N_("units in enemy zones of control must still fight (4.1, 4.2)"),
            )
        self._end_combat_phase(state, events)

    def _end_combat_phase(self, state: WargameState, events: list[Event]) -> None:
        events.append(self._event("combat_ended", round=state.round, phase=state.phase))
        state.fought, state.attacked = [], []
        if state.phase == "c":
            state.phase = "d"
            self._sieges(state, events)
            self._start_movement(state, "e", events)
            return
        self._run_events(state, "end", events)
        if state.round >= self.b.rounds:
            self._game_end(state, events)
            return
        state.round += 1
        self._start_round(state, events)

    # -- councils ----------------------------------------------------------------------------

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

    # == the calendar =========================================================================

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

    # == the end ===============================================================================

    def _game_end(self, state: WargameState, events: list[Event]) -> None:
        pope = self.roles["pope"]
        if (
            state.leo == "alive"
            and state.attila_title == "antipope"
            and state.pos.get(pope) in self.b.city_at
        ):
            state.step = CONVENE
            return
        self._finish(state, events)

    def score(self, state: WargameState) -> dict[str, Any]:
        """The Barbarian's points and regions (7, 8 and the forces sheet's other points)."""
        b = self.b
        vp = b.vp
        lines: dict[str, int] = {}
        regions: dict[str, list[str]] = {}
        for city in b.cities:
            side = self.holder(state, city.id)
            if city.plus and side == BARBARIAN:
                lines[city.id] = city.value
                if city.region:
                    regions.setdefault(city.region, []).append(city.id)
            elif not city.plus and side == ROMAN:
                lines[city.id] = -city.value
        if state.leo != "alive":
            lines["leo_dead_or_expelled"] = vp["leo_dead_or_expelled"]
        pope = self.roles["pope"]
        counted = {"eliminated", "killed", "murdered"}
        if state.options["EVENT_DEATHS_SCORE"]:
            counted.add("died")
        roman_cmus = barbarian_cmus = 0
        for unit, why in state.gone.items():
            if self.is_combat[unit] or why not in counted:
                continue
            people = self.people_of[unit]
            if people in self.roman_nations:
                if unit == pope and state.options["LEO_COUNTS_ONCE"]:
                    continue
                roman_cmus += 1
            elif people in self.barbarian_cmu_peoples:
                barbarian_cmus += 1
        if roman_cmus:
            lines["roman_cmu_eliminated"] = vp["roman_cmu_eliminated"] * roman_cmus
        if barbarian_cmus:
            lines["barbarian_cmu_eliminated"] = vp["barbarian_cmu_eliminated"] * barbarian_cmus
        if state.attila_title in ("pope", "antipope"):
            lines["attila_pope_or_antipope"] = vp["attila_pope_or_antipope"]
        return {"points": sum(lines.values()), "lines": lines, "regions": regions}

    # -- resigning (docs/rules/attila-wargame.md, "Resigning") ----------------------------------

    def resign(self, state: WargameState, seat: int, forfeit: bool) -> list[Event]:
        """Two players: the opponent wins at once; the secret notes are revealed as at an end."""
        events: list[Event] = []
        start_resign(state.step == OVER, len(self.seats), state.resigned, seat, forfeit, events)
        winner = 1 - seat
        result = {
            "winners": [winner],
            "winner_side": self.seats[winner],
            "scores": [1 if s == winner else 0 for s in range(len(self.seats))],
            "reasons": ["resigned"],
        }
        state.result = rank_with_resigned(result, state.resigned, len(self.seats))
        state.battle = state.council = None  # a battle or council half fought is left
        self._end(state, events)
        return events

    def rejoin(self, state: WargameState, seat: int) -> list[Event]:
        events: list[Event] = []  # a resignation ends a two-player game: nothing to rejoin
        start_rejoin(state.step == OVER, state.resigned, seat, events)
        return events

    def _end(self, state: WargameState, events: list[Event]) -> None:
        state.step = OVER
        state.phase = "over"
        notes = {k: v for k, v in state.notes.items() if k != "written"}
        events.append(self._event("notes_revealed", **notes))
        # Every game's game_ended names its reasons: the calendar's end unless the result has
        # its own (a resignation). The event only: results of stored games replay unchanged.
        ended = {"reasons": ["last_round"], **(state.result or {})}
        events.append(self._event("game_ended", **ended))

    def _finish(self, state: WargameState, events: list[Event]) -> None:
        score = self.score(state)
        wanted = {c.region for c in self.b.cities if c.region}
        regional = wanted <= set(score["regions"])
        threshold = state.options["BARBARIAN_POINTS_THRESHOLD"]
        on_points = score["points"] >= threshold
        if state.options["VICTORY_COMBINATION"] == "both":
            barbarian_wins = regional and on_points
        else:
            barbarian_wins = regional or on_points
        winner = BARBARIAN if barbarian_wins else ROMAN
        seat = self.seat_of[winner]
        state.result = {
            "winners": [seat],
            "winner_side": winner,
            "scores": [1 if s == seat else 0 for s in range(len(self.seats))],
            "barbarian_points": score["points"],
            "points_lines": score["lines"],
            "threshold": threshold,
            "regions_held": score["regions"],
            "regional_victory": regional,
            "points_victory": on_points,
        }
        self._end(state, events)


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
