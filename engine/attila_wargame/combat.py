"""The combat phases (c) and (f), rules 4 and 5: attacks, battles and their aftermath.

Which battles may and must be fought (4.1, 4.2: every unit in an enemy zone of control fights,
neither it nor its enemy in a city), the odds column (5.1), the sealed battle cards and their
resolution, then the loser's retreats or losses, the winner's push and advance (5.6), until
the attacker ends the phase. The diplomatic council's cards (councils.py) are chosen by the
same ``_card`` handler.
"""

from __future__ import annotations

from fractions import Fraction

from engine.attila_wargame.actions import Advance, Attack, Card, End, Push, Resolve, Retreat
from engine.attila_wargame.base import RulesBase
from engine.attila_wargame.map_questions import NEUTRAL
from engine.attila_wargame.state import (
    ADVANCE,
    BATTLE_CARD,
    COMBAT,
    PUSH,
    RETREAT,
    Battle,
    WargameState,
)
from engine.core import Event, IllegalAction
from engine.sentences import N_


class Combat(RulesBase):
    """Declaring, resolving and finishing battles, and ending a combat phase."""

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
        # Each unit's side (``side``), looked up once: the loop below asks it of every unit.
        alignment, people_of = state.alignment, self.people_of
        side_of = {u: alignment.get(people_of[u], NEUTRAL) for u in state.pos}
        # The hexes next to a unit that may still attack: no other hex has an attacker.
        ready = [
            h
            for h, a in ctx.combat_at.items()
            if side_of[a] == side and a not in fought and a not in ctx.neutralised
        ]
        reach = {n for h in ready for n in self.b.neighbours[h]}
        for t, units in ctx.units_at.items():
            if t not in reach:
                continue
            defenders = [
                u for u in units if side_of[u] not in (side, NEUTRAL) and u not in ctx.neutralised
            ]
            if not defenders or any(u in attacked for u in defenders):
                continue
            combat = [u for u in defenders if self.is_combat[u]]
            if not combat and state.options["LONE_CMU_ATTACK"] != "voluntary_automatic_elimination":
                continue
            eligible = []
            for n in self.b.neighbours[t]:
                a = ctx.combat_at.get(n)
                if a is None or a in fought or a in ctx.neutralised or side_of[a] != side:
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

    # -- after the cards: losses, retreats, advances ---------------------------------------------

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
        # "from": where it stood (an attacker's own hex, the target's for a defender), for the
        # page's arrow of the retreat (service/pictures/attila_wargame_table.py).
        events.append(
            self._event(
                "retreated",
                ref=battle.ref,
                unit=action.unit,
                to=self.b.label(action.to),
                **{"from": self.b.label(at)},
            )
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
                    "advanced",
                    ref=battle.ref,
                    unit=action.unit,
                    to=self.b.label(action.to),
                    **{"from": self.b.label(at)},
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

    # -- the end of a combat phase ---------------------------------------------------------------

    def _end_combat(self, state: WargameState, seat: int, _: End, events: list[Event]) -> None:
        owed = self._battle_options(state)[1]
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
