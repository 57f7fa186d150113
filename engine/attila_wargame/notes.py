"""The secret notes: written sealed before round 1, fired at most once during play.

The Barbarian names the traitor and Aetius's first round, the Roman the suborned unit
(docs/rules/attila-wargame.md, "Secret notes first"). The traitor (10.2) fires when the Pope
or Attila enters its hex or zone of control, the suborned unit (14.2) when Attila enters a
hex next to it, Aetius (10.3) when he stands near the Western emperor in his rounds (checked
after every step, action and phase change).
"""

from __future__ import annotations

from engine.attila_wargame.actions import Note, WargameAction
from engine.attila_wargame.base import RulesBase
from engine.attila_wargame.map_questions import BARBARIAN
from engine.attila_wargame.state import WargameState
from engine.core import Event, IllegalAction
from engine.sentences import N_


class SecretNotes(RulesBase):
    """Writing the secret notes, and the three checks that reveal them."""

    def _note_actions(self, seat: int) -> list[WargameAction]:
        if self.seats[seat] == BARBARIAN:
            last = self.b.rounds - self.aetius_span + 1
            return [Note(u, r) for u in self.traitor_candidates for r in range(1, last + 1)]
        return [Note(u) for u in self.suborned_candidates]

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

    # -- notes that fire -------------------------------------------------------------------------

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
