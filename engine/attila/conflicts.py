"""Conflicts and pacification (docs/rules/attila.md, "Conflicts").

A province's fifth stone starts a conflict: each player lays cards of the peoples present,
sealed (``CONFLICT_COMMIT_ORDER``), the server resolves it (the weakest peoples leave), and
the province is pacified with a tile from the lowest century field. Taking a field's last
tile scores the century (turns.py; ``LAST_TILE_FINAL_SCORING`` for the very last one).
"""

from __future__ import annotations

from collections import Counter

from engine.attila.actions import Commit, Resolve
from engine.attila.base import RulesBase
from engine.attila.state import CONFLICT, OVER, AttilaState, Conflict
from engine.core import Event, IllegalAction
from engine.sentences import N_


class Conflicts(RulesBase):
    """Starting, committing to, resolving conflicts, and pacifying their provinces."""

    def _pass_resigned(
        self, state: AttilaState, conflict: Conflict, seat: int, events: list[Event]
    ) -> None:
        conflict.commits[seat] = ()
        events.append(self._event("conflict_passed_resigned", ref=conflict.ref, seat=seat))

    def _start_conflict(self, state: AttilaState, province: int, events: list[Event]) -> None:
        state.conflicts += 1
        state.conflict_this_card = True
        present = tuple(p for p, n in enumerate(state.stones[province]) if n)
        order = tuple((state.active + i) % state.players for i in range(state.players))
        conflict = Conflict(f"conflict-{state.conflicts}", province, present, order)
        state.conflict = conflict
        state.step = CONFLICT
        events.append(
            self._event(
                "conflict_started",
                ref=conflict.ref,
                province=self.board.provinces[province].id,
                peoples=[self._people_id(p) for p in present],
                order=list(order),
            )
        )
        # A seat whose hand is empty (public knowledge) can only pass; don't make it wait.
        for seat in order:
            if seat in state.resigned:
                self._pass_resigned(state, conflict, seat, events)
            elif not state.hands[seat]:
                conflict.commits[seat] = ()
                events.append(
                    self._event("conflict_passed_empty_hand", ref=conflict.ref, seat=seat)
                )

    def _commit(self, state: AttilaState, seat: int, action: Commit, events: list[Event]) -> None:
        conflict = state.conflict
        assert conflict is not None
        wrong = [c for c in action.cards if c not in conflict.present]
        if wrong:
            raise IllegalAction(
                "people-not-in-conflict",
                N_("cards may only be of peoples present in the province"),
                people=self._people_id(wrong[0]),
            )
        if Counter(action.cards) - Counter(state.hands[seat]):
            raise IllegalAction("card-not-in-hand", N_("you do not hold all of these cards"))
        for card in action.cards:
            state.hands[seat].remove(card)
        conflict.commits[seat] = action.cards
        public = {"ref": conflict.ref, "seat": seat}
        if state.options["CONFLICT_COMMIT_ORDER"] != "simultaneous":
            public["count"] = len(action.cards)
        events.append(self._event("conflict_committed", **public))
        events.append(
            Event(
                "conflict_committed_own",
                {
                    "ref": conflict.ref,
                    "seat": seat,
                    "cards": self._people_ids(action.cards),
                },
                audience=(seat,),
            )
        )

    def _resolve(self, state: AttilaState, seat: int, _: Resolve, events: list[Event]) -> None:
        conflict = state.conflict
        assert conflict is not None
        if conflict.waiting_for():
            raise IllegalAction("conflict-open", N_("not every player has committed yet"))
        stones = state.stones[conflict.province]
        played = Counter(card for cards in conflict.commits.values() for card in cards)
        strength = {p: stones[p] + played[p] for p in conflict.present}
        weakest = min(strength.values())
        leaving = [p for p in conflict.present if strength[p] == weakest]
        for people in leaving:
            state.supply[people] += stones[people]
            stones[people] = 0
        for seat in conflict.order:  # seat order, not arrival order: replays must not vary
            state.discard.extend(conflict.commits[seat])
        events.append(
            self._event(
                "conflict_resolved",
                ref=conflict.ref,
                province=self.board.provinces[conflict.province].id,
                cards={str(s): self._people_ids(c) for s, c in sorted(conflict.commits.items())},
                strength={self._people_id(p): n for p, n in strength.items()},
                removed=self._people_ids(tuple(leaving)),
            )
        )
        state.conflict = None
        self._pacify(state, conflict.province, events)
        if state.step == OVER:
            return
        if state.queued:
            self._start_conflict(state, state.queued.pop(0), events)
        else:
            self._card_done(state, events)

    def _pacify(self, state: AttilaState, province: int, events: list[Event]) -> None:
        century = self.current_century(state)
        state.tiles_left[century] -= 1
        state.pacified[province] = self.board.first_century + century
        events.append(
            self._event(
                "province_pacified",
                province=self.board.provinces[province].id,
                century=self.board.first_century + century,
            )
        )
        if state.tiles_left[century]:
            return
        if any(state.tiles_left):
            self._score(state, "century", events, century=self.board.first_century + century)
            return
        rule = state.options["LAST_TILE_FINAL_SCORING"]
        if rule != "single_scoring_after_turn":
            self._score(state, "century", events, century=self.board.first_century + century)
        state.end_reasons.append("last_tile")
        if rule == "score_at_once_and_end":
            self._finish_game(state, events, score=False)
