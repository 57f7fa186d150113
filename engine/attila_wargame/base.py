"""What every phase of the wargame's rules shares: the seats, roles and secret-note
candidates read from ``bindings.json``, small lookups, events, and taking units off the map
(a unit eliminated takes its command units with it, 5.6).

``RulesBase`` is the root of the phase mixins, one module per phase or concern:
``movement.py`` (1, 2, and 3.2's razing), ``notes.py`` (the secret notes, 10.2, 10.3, 14.2),
``combat.py`` (4, 5), ``councils.py`` (10.1, 10.4), ``calendar.py`` (the round, 3, 6, the
scripted events 9, 12, 13) and ``victory.py`` (7, 8, resigning). ``rules.py`` composes them
into the one ``Rules`` (with setup, ``pending``, ``legal_actions`` and ``apply``). A mixin
calls the other phases' methods through ``self`` (movement ends in combat or a council,
combat in the calendar), so only the composed ``Rules`` is ever made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.attila_wargame.actions import WargameAction
from engine.attila_wargame.board import Board
from engine.attila_wargame.map_questions import BARBARIAN, ROMAN, MapQuestions
from engine.attila_wargame.state import WargameState
from engine.core import Event

#: Phase id -> the side that moves or attacks in it (a..f per the calendar).
_PHASE_SIDE = {"a": BARBARIAN, "c": BARBARIAN, "e": ROMAN, "f": ROMAN}


class RulesBase(MapQuestions):
    """What the phase mixins share, on one board. Stateless; every method takes the
    state. The read-only map questions (hostility, territory, zones of control,
    stacking, strength, sieges) are inherited from ``MapQuestions``."""

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

    # == small lookups ===========================================================================

    def _seat_of_unit(self, state: WargameState, unit: str) -> int:
        side = self.side(state, unit)
        return self.seat_of.get(side, -2)

    def phase_side(self, state: WargameState) -> str:
        return _PHASE_SIDE.get(state.phase, "")

    def _event(self, name: str, /, **data: Any) -> Event:
        return Event(name, data)

    # -- taking units off the map ----------------------------------------------------------------

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

    # -- what the mixins call on one another ----------------------------------------------------

    if TYPE_CHECKING:
        # Defined by the sibling mixins or the composed ``Rules``; declared here so that the
        # type checker knows them in every mixin (and checks that the definitions agree).
        def _check_aetius(self, state: WargameState, events: list[Event]) -> None: ...
        def _council_due(self, state: WargameState) -> bool: ...
        def _devastation(self, state: WargameState, events: list[Event]) -> None: ...
        def _entered(self, state: WargameState, unit: str, h: int, events: list[Event]) -> None: ...
        def _finish(self, state: WargameState, events: list[Event]) -> None: ...
        def _game_end(self, state: WargameState, events: list[Event]) -> None: ...
        def _join_sides(
            self, state: WargameState, sides: dict[str, str], events: list[Event]
        ) -> None: ...
        def _run_events(self, state: WargameState, at: str, events: list[Event]) -> None: ...
        def _sieges(self, state: WargameState, events: list[Event]) -> None: ...
        def _start_combat(self, state: WargameState, phase: str, events: list[Event]) -> None: ...
        def _start_council(self, state: WargameState, kind: str, events: list[Event]) -> None: ...
        def _start_movement(self, state: WargameState, phase: str, events: list[Event]) -> None: ...
        def _start_round(self, state: WargameState, events: list[Event]) -> None: ...
        def _suborned_check(self, state: WargameState, h: int, events: list[Event]) -> None: ...
        def _traitor_check(
            self, state: WargameState, unit: str, h: int, events: list[Event]
        ) -> None: ...
        def legal_actions(self, state: WargameState, seat: int) -> list[WargameAction]: ...
