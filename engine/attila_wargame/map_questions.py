"""The wargame's read-only map questions: sides, hostility, territory, zones of control,
stacking, combat contact and strength, sieges, devastation and who holds a city.

Nothing here changes a state or calls back into the sequence of play (``rules.py`` and the
phase modules it composes), which asks these questions through ``RulesBase`` (base.py), a
subclass of ``MapQuestions``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from engine.attila_wargame.board import Board
from engine.attila_wargame.state import WargameState
from engine.translatable import N_

ROMAN, BARBARIAN, NEUTRAL = "roman", "barbarian", "neutral"

#: Why a unit may not enter a hex (``closed_reason``), marked once here: ``may_stand`` asks on
#: the move generator's hot path, and the web table says them translated.
IMPASSABLE = N_("impassable")
CLOSED_TERRITORY = N_("closed territory")
STACKING = N_("stacking: another combat unit")
NEUTRALISED = N_("a neutralised unit")
ENEMY_OR_NEUTRAL = N_("an enemy or neutral unit")
CITY_NOT_YET = N_("a city it may not occupy yet")


@dataclass
class Ctx:
    """What the rules look up many times while answering one question about a state."""

    combat_at: dict[int, str]
    units_at: dict[int, list[str]]
    hostile: dict[tuple[str, str], bool]
    neutralised: frozenset[str]
    forbidden: dict[str, frozenset[str]]  # people -> empires it may not enter now


class MapQuestions:
    """Questions about one board and a state. Stateless; every method takes the state."""

    def __init__(self, board: Board) -> None:
        self.b = board
        self.roman_nations = frozenset(board.bindings["roman_nations"])
        self.people_of = {u: d.people for u, d in board.units.items()}
        self.is_combat = {u: d.combat for u, d in board.units.items()}
        self.order = {u: d.order for u, d in board.units.items()}
        self._hostility_cache: dict[tuple[Any, ...], dict[tuple[str, str], bool]] = {}
        self._territory_options = sorted(
            {o for rule in board.bindings["territory"].values()
             for o in rule.get("never_unless_option", {}).values()}
        )  # fmt: skip
        self._forbidden_cache: dict[tuple[Any, ...], dict[str, frozenset[str]]] = {}

    # -- sides and hostility -----------------------------------------------------------------

    def side(self, state: WargameState, unit: str) -> str:
        return state.alignment.get(self.people_of[unit], NEUTRAL)

    def ctx(self, state: WargameState) -> Ctx:
        is_combat = self.is_combat
        combat_at: dict[int, str] = {}
        units_at: dict[int, list[str]] = {}
        for unit, h in state.pos.items():
            here = units_at.get(h)
            if here is None:
                units_at[h] = [unit]
            else:
                here.append(unit)
            if is_combat[unit]:
                combat_at[h] = unit
        return Ctx(
            combat_at,
            units_at,
            self._hostility(state),
            frozenset(state.neutralised),
            self._forbidden(state),
        )

    def _forbidden(self, state: WargameState) -> dict[str, frozenset[str]]:
        """Each people's closed empires now (by the invasion, the round and the options: a
        few answers in a game, each kept once; nothing changes the tables returned)."""
        key = (
            state.west_invaded,
            state.round,
            tuple(bool(state.options.get(o)) for o in self._territory_options),
        )
        cached = self._forbidden_cache.get(key)
        if cached is None:
            cached = self._forbidden_now(state)
            self._forbidden_cache[key] = cached
        return cached

    def _forbidden_now(self, state: WargameState) -> dict[str, frozenset[str]]:
        out = {}
        for people, rule in self.b.bindings["territory"].items():
            banned = set(rule.get("never", ()))
            if not state.west_invaded:
                banned |= set(rule.get("until_west_invaded", ()))
            banned |= {e for e, r in rule.get("before_round", {}).items() if state.round < r}
            banned |= {
                e
                for e, o in rule.get("never_unless_option", {}).items()
                if not state.options.get(o)
            }
            out[people] = frozenset(banned)
        return out

    def _hostility(self, state: WargameState) -> dict[tuple[str, str], bool]:
        peoples = self.b.peoples
        key = (
            tuple(map(state.alignment.get, peoples)),
            state.west_invaded,
            state.gaul_invaded,
        )
        cached = self._hostility_cache.get(key)
        if cached is None:
            cached = {(p, q): self._people_hostile(state, p, q) for p in peoples for q in peoples}
            self._hostility_cache[key] = cached
        return cached

    def _people_hostile(self, state: WargameState, p: str, q: str) -> bool:
        """HOSTILE_PAIRS: a pair may fight when some rule names it and every rule naming it
        allows it now (so federates wait for the invasion of Gaul even against the Huns).
        A people bound by ``fights_only`` (rule 15: the Gepids) fights no one else at all."""
        sp, sq = state.alignment.get(p, NEUTRAL), state.alignment.get(q, NEUTRAL)
        if sp == sq or NEUTRAL in (sp, sq):
            return False
        only = self.b.bindings["fights_only"]
        if q not in only.get(p, (q,)) or p not in only.get(q, (p,)):
            return False
        matched = False
        for rule in state.options["HOSTILE_PAIRS"]:
            if self._rule_names(state, rule, p, q) or self._rule_names(state, rule, q, p):
                matched = True
                if not self._when(state, rule["when"]):
                    return False
        return matched

    def _rule_names(self, state: WargameState, rule: dict[str, Any], p: str, q: str) -> bool:
        return self._in_group(state, rule["a"], p, q) and self._in_group(state, rule["b"], q, p)

    def _in_group(self, state: WargameState, group: str | list[str], p: str, other: str) -> bool:
        if isinstance(group, list):
            return p in group
        if group in self.b.peoples:
            return p == group
        spec = self.b.bindings["hostility_groups"].get(group, {"none": True})
        if spec.get("none"):
            return False
        if spec.get("any"):
            return True
        side = state.alignment.get(p, NEUTRAL)
        if spec.get("opposite"):
            return side != NEUTRAL and side != state.alignment.get(other, NEUTRAL)
        wanted: str = spec["side"]
        excepted: Collection[str] = spec.get("except", ())
        return side == wanted and p not in excepted

    def _when(self, state: WargameState, when: str) -> bool:
        return {
            "always": True,
            "west_invaded": state.west_invaded,
            "gaul_invaded": state.gaul_invaded,
        }.get(when, False)

    def hostile(self, ctx: Ctx, u: str, v: str) -> bool:
        if u in ctx.neutralised or v in ctx.neutralised:
            return False
        return ctx.hostile[(self.people_of[u], self.people_of[v])]

    # -- territory, zones of control, stacking -----------------------------------------------

    def may_enter_land(self, ctx: Ctx, people: str, h: int) -> bool:
        b = self.b
        return b.passable[h] and b.empire[h] not in ctx.forbidden.get(people, ())

    def may_occupy_city(self, state: WargameState, people: str, h: int) -> bool:
        city = self.b.city_at.get(h)
        if city is None:
            return True
        rule = self.b.bindings["city_entry"].get(people)
        if not rule:
            return True
        region = city.region
        if region in rule.get("regions_after_west_invaded", ()) and not state.west_invaded:
            return False
        taken = set(state.taken)
        need_all = rule.get("region_needs_all_of", {}).get(region)
        if need_all and not all(c.id in taken for c in self.b.cities if c.region == need_all):
            return False
        need_one = rule.get("region_needs_one_of", {}).get(region)
        return not need_one or any(c.id in taken for c in self.b.cities if c.region == need_one)

    def projects(self, ctx: Ctx, unit: str, at: int, into: int) -> bool:
        """Whether a combat unit's zone of control reaches ``into`` (2.1, 2.2, 2.4)."""
        b = self.b
        if unit in ctx.neutralised or at in b.city_at or into in b.city_at:
            return False
        if b.river_between(at, into):
            return False
        return self.may_enter_land(ctx, self.people_of[unit], into)

    def in_enemy_zoc(self, ctx: Ctx, unit: str, h: int) -> bool:
        for n in self.b.neighbours[h]:
            other = ctx.combat_at.get(n)
            if (
                other
                and other != unit
                and self.hostile(ctx, other, unit)
                and self.projects(ctx, other, n, h)
            ):
                return True
        return False

    def may_stand(self, state: WargameState, ctx: Ctx, unit: str, h: int) -> bool:
        """Whether ``unit`` may enter hex ``h`` at all: land, territory, other units, cities."""
        return self.closed_reason(state, ctx, unit, h) is None

    def closed_reason(self, state: WargameState, ctx: Ctx, unit: str, h: int) -> str | None:
        """Why ``unit`` may not enter hex ``h`` (``may_stand``'s answer in words: the web table
        says it on a closed hex, translated), or None when it may."""
        people = self.people_of[unit]
        if not self.b.passable[h]:
            return IMPASSABLE
        if self.b.empire[h] in ctx.forbidden.get(people, ()):  # ``may_enter_land``, inlined
            return CLOSED_TERRITORY
        side = state.alignment.get(people)
        combat = self.is_combat[unit]
        for other in ctx.units_at.get(h, ()):
            if other == unit:
                continue
            if combat and self.is_combat[other]:
                return STACKING
            if other in ctx.neutralised:
                if combat or people not in self.roman_nations:
                    return NEUTRALISED
            elif self.side(state, other) != side:
                return ENEMY_OR_NEUTRAL
        if combat and h in self.b.city_at and not self.may_occupy_city(state, people, h):
            return CITY_NOT_YET
        return None

    def _without(self, ctx: Ctx, unit: str, at: int) -> Ctx:
        """The lookup tables with ``unit`` lifted off the map (for the hexes it moves through)."""
        units_at = dict(ctx.units_at)
        units_at[at] = [u for u in units_at.get(at, ()) if u != unit]
        combat_at = ctx.combat_at
        if combat_at.get(at) == unit:
            combat_at = {h: u for h, u in combat_at.items() if h != at}
        return Ctx(combat_at, units_at, ctx.hostile, ctx.neutralised, ctx.forbidden)

    # -- combat ------------------------------------------------------------------------------

    def contact(self, ctx: Ctx, a: str, at: int, d: str, dt: int) -> bool:
        """Attacker ``a`` at ``at`` may fight ``d`` at ``dt``: hostile, adjacent, no river
        between, and the border between them is open to one of them (2.4)."""
        if not self.hostile(ctx, a, d) or self.b.river_between(at, dt):
            return False
        return self.may_enter_land(ctx, self.people_of[a], dt) or self.may_enter_land(
            ctx, self.people_of[d], at
        )

    def strength(self, state: WargameState, ctx: Ctx, unit: str, defending: bool) -> int:
        """A combat unit's factor with the doublings of 4.5 and 4.6 (never more than x2)."""
        cf = state.cf[unit]
        at = state.pos[unit]
        people = self.people_of[unit]
        led = any(
            not self.is_combat[c] and self.b.units[c].doubles and self.people_of[c] == people
            for c in ctx.units_at.get(at, ())
        )
        walled = (
            defending
            and at in self.b.city_at
            and not (unit in state.siege_hit and self.besieged(state, ctx, unit))
        )
        return cf * 2 if led or walled else cf

    def retreat_hexes(self, state: WargameState, ctx: Ctx, unit: str) -> list[int]:
        """5.5: one hex, not across a river, not onto any combat unit or enemy unit, not into
        an enemy zone of control."""
        at = state.pos[unit]
        out = []
        moving = self._without(ctx, unit, at)
        for n in self.b.neighbours[at]:
            if self.b.river_between(at, n) or n in ctx.combat_at:
                continue
            if not self.may_stand(state, moving, unit, n):
                continue
            if self.in_enemy_zoc(moving, unit, n):
                continue
            out.append(n)
        return out

    # -- sieges, devastation, cities held ----------------------------------------------------

    def besieged(self, state: WargameState, ctx: Ctx, unit: str) -> bool:
        """6: a Roman combat unit in a city whose fields are all devastated and (or, by
        option) one of them is occupied by the enemy."""
        if self.people_of[unit] not in self.roman_nations or unit not in state.pos:
            return False
        city = self.b.city_at.get(state.pos[unit])
        if city is None:
            return False
        fields = self.b.fields[city.id]
        marked = set(state.temp_devastated) | set(state.perm_devastated)
        wasted = bool(fields) and all(h in marked for h in fields)
        occupied = any(
            self.side(state, u) == BARBARIAN and u not in ctx.neutralised
            for h in fields
            for u in ctx.units_at.get(h, ())
        )
        if state.options["SIEGE_CONDITION"] == "all_fields_devastated_or_one_enemy_occupied":
            return wasted or occupied
        return wasted and occupied

    def barbarian_holds(self, state: WargameState, ctx: Ctx, h: int) -> bool:
        """3: occupied by a Barbarian unit, or in a Barbarian zone of control that no Roman
        unit occupies or controls."""
        sides = {self.side(state, u) for u in ctx.units_at.get(h, ()) if u not in ctx.neutralised}
        if BARBARIAN in sides:
            return True
        if ROMAN in sides:
            return False
        zoc = {
            self.side(state, u)
            for n in self.b.neighbours[h]
            if (u := ctx.combat_at.get(n)) and self.projects(ctx, u, n, h)
        }
        return BARBARIAN in zoc and ROMAN not in zoc

    def holder(self, state: WargameState, city_id: str) -> str | None:
        """Who holds a city at the end (VICTORY_CITY_HOLD_TEST)."""
        return self.holders(state).get(city_id)

    def holders(self, state: WargameState) -> dict[str, str]:
        """Who holds each city held by a side at the end (``holder``), in one pass over the
        units: the side of the first combat unit not neutralised standing in it (in the
        units' order on the map), or of the last one to enter, by VICTORY_CITY_HOLD_TEST."""
        if state.options["VICTORY_CITY_HOLD_TEST"] == "last_combat_unit_to_enter":
            return dict(state.last_in_city)
        neutralised = set(state.neutralised)
        first: dict[int, str] = {}
        for u, at in state.pos.items():
            if self.is_combat[u] and u not in neutralised:
                first.setdefault(at, u)
        out = {}
        for city in self.b.cities:
            unit = first.get(city.hex)
            side = NEUTRAL if unit is None else self.side(state, unit)
            if side != NEUTRAL:
                out[city.id] = side
        return out
