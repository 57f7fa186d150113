"""Victory at the end of round 16 (rules 7, 8 and the forces sheet's points)."""

from __future__ import annotations

from engine.attila_wargame.actions import End
from tests.test_wargame_helpers import ATTILA, LEO, ROMAN, B, G, R, setup, units_of

HUNS = units_of("huns")
WESTS = units_of("romans_west")


def city(cid: str) -> int:
    return B.city_by_id[cid].hex


def finish(placements: dict[str, int], **options: object) -> dict:
    """Units placed, then the last Roman combat phase ends: the game is scored."""
    state = setup(placements, phase="f", round_=B.rounds, **options)
    G.apply(state, ROMAN, End())
    assert G.is_over(state)
    return state


def first(region: str) -> str:
    return next(c.id for c in B.cities if c.region == region and c.plus)


def test_one_city_in_each_region_wins_for_the_barbarian() -> None:
    regions = sorted({c.region for c in B.cities if c.region})
    state = finish({HUNS[i]: city(first(r)) for i, r in enumerate(regions)})
    result = state.result
    assert result["regional_victory"] and result["winner_side"] == "barbarian"
    assert result["winners"] == [R.seat_of["barbarian"]]


def test_two_regions_are_not_enough() -> None:
    state = finish({HUNS[0]: city(first("east")), HUNS[1]: city(first("gaul"))})
    assert not state.result["regional_victory"]
    assert state.result["winner_side"] == "roman"


def _biggest(total: int) -> list[str]:
    """ "+" cities, biggest first, worth exactly ``total`` (greedy on the data's values)."""
    chosen, left = [], total
    for c in sorted((c for c in B.cities if c.plus), key=lambda c: -c.value):
        if c.value <= left and c.region in ("east", "gaul", None):
            chosen.append(c.id)
            left -= c.value
    assert left == 0
    return chosen


def test_points_threshold_forty_by_default_and_twenty_by_option() -> None:
    threshold = B.raw["options"]["BARBARIAN_POINTS_THRESHOLD"]["default"]
    cities = _biggest(threshold)
    state = finish({HUNS[i]: city(c) for i, c in enumerate(cities)})
    assert state.result["barbarian_points"] == threshold
    assert state.result["points_victory"] and state.result["winner_side"] == "barbarian"
    low = _biggest(20)
    state = finish({HUNS[i]: city(c) for i, c in enumerate(low)})
    assert state.result["winner_side"] == "roman"
    state = finish({HUNS[i]: city(c) for i, c in enumerate(low)}, BARBARIAN_POINTS_THRESHOLD=20)
    assert state.result["winner_side"] == "barbarian"


def test_roman_occupation_of_the_minus_cities_subtracts() -> None:
    threshold = B.raw["options"]["BARBARIAN_POINTS_THRESHOLD"]["default"]
    cities = _biggest(threshold)
    minus = [c for c in B.cities if not c.plus]
    placements = {HUNS[i]: city(c) for i, c in enumerate(cities)}
    placements |= {WESTS[i]: c.hex for i, c in enumerate(minus)}
    state = finish(placements)
    lines = state.result["points_lines"]
    assert {c.id: lines[c.id] for c in minus} == {c.id: -c.value for c in minus}
    assert state.result["barbarian_points"] == threshold - sum(c.value for c in minus)
    assert state.result["winner_side"] == "roman"
    # A Barbarian in a "-" city scores nothing for it.
    state = finish({HUNS[0]: minus[0].hex})
    assert state.result["barbarian_points"] == 0


def test_both_conditions_by_option() -> None:
    regions = sorted({c.region for c in B.cities if c.region})
    placements = {HUNS[i]: city(first(r)) for i, r in enumerate(regions)}
    state = finish(placements, VICTORY_COMBINATION="both")
    assert state.result["regional_victory"] and state.result["winner_side"] == "roman"


def test_other_victory_points() -> None:
    state = setup({}, phase="f", round_=B.rounds)
    roman_cmus = [u for u, d in B.units.items() if not d.combat and d.people == "romans_west"]
    extra = next(u for u in roman_cmus if u != LEO)
    state.gone.update({LEO: "killed", extra: "eliminated", ATTILA: "killed"})
    state.gone["E-THEODOSIUS"] = "died"  # a scripted death scores nothing
    state.leo = "dead"
    state.attila_title = "pope"
    score = R.score(state)
    vp = B.vp
    assert score["lines"] == {
        "leo_dead_or_expelled": vp["leo_dead_or_expelled"],
        "roman_cmu_eliminated": vp["roman_cmu_eliminated"],
        "barbarian_cmu_eliminated": vp["barbarian_cmu_eliminated"],
        "attila_pope_or_antipope": vp["attila_pope_or_antipope"],
    }
    state.options["LEO_COUNTS_ONCE"] = False
    assert R.score(state)["lines"]["roman_cmu_eliminated"] == 2 * vp["roman_cmu_eliminated"]
    state.options["EVENT_DEATHS_SCORE"] = True
    assert R.score(state)["lines"]["roman_cmu_eliminated"] == 3 * vp["roman_cmu_eliminated"]


def test_holding_a_city_by_the_last_unit_to_enter_option() -> None:
    cid = first("east")
    state = setup(
        {}, phase="f", round_=B.rounds, VICTORY_CITY_HOLD_TEST="last_combat_unit_to_enter"
    )
    state.last_in_city[cid] = "barbarian"
    assert R.holder(state, cid) == "barbarian"
    state.options["VICTORY_CITY_HOLD_TEST"] = "occupied_by_own_combat_unit_at_end"
    assert R.holder(state, cid) is None


def test_notes_are_revealed_at_the_end() -> None:
    state = finish({})
    view = G.view(state, None)
    assert set(view["notes"]["known"]) == {"traitor", "aetius", "suborned"}
