"""What makes the wargame bots' moves cheaper changes none of them (engine/attila_wargame/bot.py;
docs/bots.md, "A wargame game for half the CPU, the same moves"): a copied state shares no
container with its original; the march's plan, read by people and by unit, is the pull less
crowd and distance of every city the unit may enter; the crowd by a city counts the Barbarian
combat units within one hex; the evaluation's nearest "+" city of a region is the nearest of
its cities; the events a determinizer reads are read afresh unless they continue a list read
before."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.attila_wargame.bot import (
    BOT,
    CROWD_PULL,
    FAR,
    REGIONS,
    WEST_REGIONS,
    EventFacts,
    Potential,
    _distances,
    _from_events,
    _region_distances,
    copy_state,
)
from engine.attila_wargame.map_questions import BARBARIAN, NEUTRAL
from engine.attila_wargame.state import Battle, Council
from engine.core import Event
from tests.test_bots import _wargame_movement
from tests.test_wargame_helpers import B, R


def _containers(value: Any, found: dict[int, Any]) -> None:
    """Every list, dict and set reachable from ``value`` (dataclasses' fields included but
    the options, which the rules only read and a copy shares)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name != "options":
                _containers(getattr(value, f.name), found)
    elif isinstance(value, dict):
        found[id(value)] = value
        for item in value.values():
            _containers(item, found)
    elif isinstance(value, list | set):
        found[id(value)] = value
        for item in value:
            _containers(item, found)


def test_a_copied_state_is_equal_and_shares_no_container() -> None:
    """Every field filled, a battle and a council in progress and the notes written: the copy
    equals the state and no list, dict or set of one is the other's (the rules change them in
    place), so a look-ahead on the copy leaves the state as it was; the options (read only)
    are shared."""
    state = _wargame_movement()
    unit, other = sorted(state.pos)[:2]
    state.moved = {unit: {"used": 1, "stopped": False, "run": ["danube"]}}
    state.battle = Battle(
        "battle-3",
        0,
        state.pos[other],
        [unit],
        [other],
        4,
        2,
        "2:1",
        cards={"0": "al"},
        losers=[other],
        retreating=[other],
        vacated=[state.pos[other]],
        origin={unit: state.pos[unit]},
    )
    state.council = Council("council-1", "lugdunum", cards={"1": "x"})
    state.notes = {"written": {"0": True, "1": True}, "traitor": unit, "aetius": 4}
    for name in ("neutralised", "siege_hit", "fought", "attacked", "taken", "notes_fired"):
        getattr(state, name).append(unit)
    state.frozen[unit] = 3
    state.gone["x"] = "eliminated"
    state.temp_devastated.append(state.pos[other])
    state.perm_devastated.append(state.pos[other])
    state.attila_trail.append(state.pos[other])
    state.last_in_city["x"] = BARBARIAN
    state.sides_at_west_invasion["huns"] = BARBARIAN
    state.resigned.append(0)
    empty = [f.name for f in dataclasses.fields(state) if getattr(state, f.name) in ([], {})]
    assert empty == []
    copied = copy_state(state)
    assert copied == state
    original: dict[int, Any] = {}
    _containers(state, original)
    mine: dict[int, Any] = {}
    _containers(copied, mine)
    assert len(original) >= 30
    assert not set(original) & set(mine)
    assert copied.options is state.options


def _planned_by_definition(potential: Potential, unit: str, h: int) -> float:
    """``Potential._planned`` as defined: the best pull, less the crowd (its own presence not
    counted) and the distance, over the plan's cities ``unit`` may enter."""
    assert potential.plan is not None
    state, people = potential.state, R.people_of[unit]
    best = -float(FAR)
    for city, pull in potential.plan:
        if unit in potential.west_army and B.city_at[city].region not in WEST_REGIONS:
            continue
        if not R.may_enter_land(potential.ctx, people, city):
            continue
        if not R.may_occupy_city(state, people, city):
            continue
        crowd = potential.crowd[city] - (1 if B.distance(state.pos[unit], city) <= 1 else 0)
        best = max(best, pull - CROWD_PULL * crowd - _distances(city)[h])
    return best


def _next_to_a_planned_city(state: Any) -> Any:
    """``state`` with the first Barbarian combat unit that may enter a "+" city of the plan
    moved next to it (its own presence then counts in that city's crowd)."""
    potential = Potential(BOT, state, R.seat_of[BARBARIAN])
    assert potential.plan is not None
    taken = set(state.pos.values())
    for unit in [u for u in R.order if u in state.pos and R.is_combat[u]]:
        if R.side(state, unit) != BARBARIAN:
            continue
        for city, _ in potential._open_plan(R.people_of[unit], unit in potential.west_army):
            free = [n for n in B.neighbours[city] if B.passable[n] and n not in taken]
            if free:
                state.pos[unit] = free[0]
                return state
    raise AssertionError("no Barbarian unit may enter a city of the plan")


def test_the_march_plan_read_by_unit_is_the_plan_as_defined() -> None:
    """At the Barbarian's movement, at round 8 and at round 9 (the western army), a unit moved
    next to a city of the plan: each combat unit's planned value at its hex and at each
    neighbour is the definition's, to the bit; the crowd by each city is the count of
    Barbarian combat units within one hex."""
    for round_ in (8, 9):
        state = _wargame_movement()
        state.round = round_
        state = _next_to_a_planned_city(state)
        potential = Potential(BOT, state, R.seat_of[BARBARIAN])
        barbarians = [
            h for u, h in state.pos.items() if R.is_combat[u] and R.side(state, u) == BARBARIAN
        ]
        for city, count in potential.crowd.items():
            assert count == sum(1 for h in barbarians if B.distance(h, city) <= 1)
        units = [u for u in state.pos if R.is_combat[u] and R.side(state, u) == BARBARIAN]
        for unit in units:
            for h in (state.pos[unit], *B.neighbours[state.pos[unit]]):
                assert potential._planned(unit, h) == _planned_by_definition(potential, unit, h)
        assert (round_ == 9) == bool(potential.west_army)


def test_the_nearest_city_of_a_region_is_the_nearest_of_its_cities() -> None:
    """The evaluation's distance to a victory region, by hex: the least of its "+" cities'."""
    for region in REGIONS:
        cities = [c for c in B.cities if c.plus and c.region == region]
        assert cities
        nearest = _region_distances(region)
        for h in range(len(B.labels)):
            assert nearest[h] == min(_distances(c.hex)[h] for c in cities)


def test_the_holders_of_every_city_at_once_are_each_city_s_holder() -> None:
    """``holders`` (the score's one pass) agrees with the first combat unit not neutralised
    standing in each city, by side, neutral as none."""
    state = _wargame_movement()
    holders = R.holders(state)
    for city in B.cities:
        here = [u for u, h in state.pos.items() if h == city.hex and R.is_combat[u]]
        side = R.side(state, here[0]) if here else None
        assert holders.get(city.id) == (None if side == NEUTRAL else side)
        assert R.holder(state, city.id) == holders.get(city.id)
    assert len(holders) > 10


def test_events_read_since_a_list_read_before_give_what_reading_them_all_gives() -> None:
    """``EventFacts`` reads on from a list read before only where the events begin with that
    list's: a seat's events grown by a council give what the whole list gives; another list
    as long (a different battle first) and a shorter one are read afresh, whatever was read
    before; equal events that are not the same objects serve as the same."""
    facts = EventFacts()
    events = [
        Event("battle_declared", {"ref": "battle-5"}),
        Event("siege_loss", {"unit": "HUN-1"}),
    ]
    assert facts.read(events) == (5, 0, {"HUN-1"})
    events.append(Event("council_started", {"ref": "council-2"}))
    assert facts.read(events) == _from_events(events) == (5, 2, {"HUN-1"})
    other = [Event("battle_declared", {"ref": "battle-2"}), *events[1:]]
    assert facts.read(other) == (2, 2, {"HUN-1"})
    assert facts.read(events[:1]) == (5, 0, set())
    copied = [Event.from_json(e.to_json()) for e in events]
    copied.append(Event("battle_declared", {"ref": "battle-6"}))
    assert facts.read(copied) == (6, 2, {"HUN-1"})
    assert facts.read([]) == (0, 0, set())
