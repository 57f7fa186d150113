"""Attila's map (engine/attila/data/regions.json, drawn by service/pictures/attila_regions.py):
a geometry check of its outlines against the board. Land neighbours share a border, every
other pair keeps apart (no shared point, no overlap), the sea arrows cross only water, the
frontier provinces are those along the start line, and every province's inner box lies inside
it, large enough for its name and its chips."""

from __future__ import annotations

import itertools
import json
from importlib import resources
from typing import Any

import pytest

from engine.attila.game import GAME
from service.common.i18n import word
from service.pictures import attila_map
from service.pictures.attila_regions import Point, Regions, build, nearest, regions
from service.pictures.png import DEJAVU_DIR

Segment = tuple[Point, Point]
BOARD = GAME.board
IDS = [p.id for p in BOARD.provinces]


def _raw() -> dict[str, Any]:
    text = resources.files("engine.attila").joinpath("data/regions.json").read_text("utf-8")
    raw: dict[str, Any] = json.loads(text)
    return raw


def _land_pairs() -> set[frozenset[str]]:
    sea = {frozenset((BOARD.provinces[a].id, BOARD.provinces[b].id)) for a, b in BOARD.sea_arrows}
    return {
        frozenset((a.id, b.id))
        for a, b in itertools.combinations(BOARD.provinces, 2)
        if BOARD.neighbours[a.index] >> b.index & 1
    } - sea


def _edges(shape: list[Point]) -> list[Segment]:
    return list(itertools.pairwise([*shape, shape[0]]))


def _turn(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _cross(s: Segment, t: Segment) -> bool:
    """Whether two segments cross at a point inside both (touching ends or lying along each
    other is not crossing)."""
    (a, b), (c, d) = s, t
    return _turn(a, b, c) * _turn(a, b, d) < 0 and _turn(c, d, a) * _turn(c, d, b) < 0


def _inside(p: Point, shape: list[Point]) -> bool:
    """Whether ``p`` lies inside an outline (even-odd rule)."""
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in _edges(shape):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _box_corners(box: tuple[float, float, float, float]) -> list[Point]:
    left, top, w, h = box
    return [(left, top), (left + w, top), (left + w, top + h), (left, top + h)]


def _apart(a: list[Point], b: list[Point]) -> bool:
    """No edge of one outline crosses the other's, neither holds a corner of the other."""
    if any(_cross(s, t) for s in _edges(a) for t in _edges(b)):
        return False
    shared = set(a) & set(b)
    return not any(_inside(p, b) for p in a if p not in shared) and not any(
        _inside(p, a) for p in b if p not in shared
    )


def test_every_province_is_one_region_and_the_scenery_is_named() -> None:
    shapes = regions()
    assert set(shapes.shapes) == set(IDS) | set(shapes.scenery)
    assert set(shapes.scenery.values()) >= {"Corsica", "Sardinia", "Germania Magna"}
    for rid, shape in shapes.shapes.items():
        edges = _edges(shape)
        crossing = [(s, t) for s, t in itertools.combinations(edges, 2) if _cross(s, t)]
        assert crossing == [], f"{rid}'s outline crosses itself"


def test_land_neighbours_share_a_border_and_no_other_pair_touches_or_overlaps() -> None:
    shapes = regions()
    land = _land_pairs()
    for a, b in itertools.combinations(sorted(shapes.shapes), 2):
        pa, pb = shapes.shapes[a], shapes.shapes[b]
        shared_edges = {frozenset(e) for e in _edges(pa)} & {frozenset(e) for e in _edges(pb)}
        if frozenset((a, b)) in land:
            assert shared_edges, f"{a} and {b} are land neighbours without a shared border"
        elif {a, b} <= set(IDS):
            assert not set(pa) & set(pb), f"{a} and {b} touch but are not land neighbours"
        assert _apart(pa, pb), f"{a} and {b} overlap"


def test_the_frontier_provinces_are_those_along_germania_magna() -> None:
    shapes = regions()
    beyond = {rid for pair in shapes.borders if attila_map.BEYOND in pair for rid in pair} - {
        attila_map.BEYOND
    }
    assert beyond == {p.id for p in BOARD.provinces if p.frontier}


def test_sea_arrows_cross_only_water() -> None:
    shapes = regions()
    for a, b in BOARD.sea_arrows:
        one, other = BOARD.provinces[a].id, BOARD.provinces[b].id
        link = nearest(shapes.shapes[one], shapes.shapes[other])
        assert not set(shapes.shapes[one]) & set(shapes.shapes[other]), (one, other)
        for rid, shape in shapes.shapes.items():
            assert not any(_cross(link, e) for e in _edges(shape)), (one, other, rid)
            middle = ((link[0][0] + link[1][0]) / 2, (link[0][1] + link[1][1]) / 2)
            assert not _inside(middle, shape), (one, other, rid)


def test_the_seas_are_named_on_the_water() -> None:
    shapes = regions()
    assert shapes.seas
    for name, at, _turn in shapes.seas:
        assert not any(_inside(at, shape) for shape in shapes.shapes.values()), name


def test_each_inner_box_lies_inside_its_province_and_holds_a_name_and_three_chips() -> None:
    shapes = regions()
    for pid in IDS:
        box, shape = shapes.inner[pid], shapes.shapes[pid]
        corners = _box_corners(box)
        assert all(_inside(p, shape) for p in corners), pid
        assert not any(_cross(s, e) for s in _edges(corners) for e in _edges(shape)), pid
        _left, top, w, h = box
        assert w >= 3 * 24, pid  # a short name unsqueezed, a long one condensed
        places = attila_map.chip_places(box, 3)
        assert all(y + attila_map.CHIP <= top + h for _x, y in places), pid


#: The least a province's name is condensed to: its lines written this fraction of their
#: width in the regular face (DejaVu Sans Condensed is about 0.9 of it; narrower still, the
#: letters crowd and the name stops reading at a glance).
READABLE_FIT = 0.6


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_provinces_name_fits_its_inner_box_readably_over_three_chips(lang: str) -> None:
    for face in (attila_map.REGULAR_FACE, attila_map.CONDENSED_FACE):
        assert (DEJAVU_DIR / face).is_file(), f"the names are measured with {face}"
    shapes = regions()
    for province in BOARD.provinces:
        name = word(lang, province.name)
        box = shapes.inner[province.id]
        _left, top, w, h = box
        lines = attila_map.name_lines(name, box)
        assert " ".join(lines).replace("/ ", "/") == name.replace("/ ", "/"), (name, lines)
        assert len(lines) <= attila_map.MAX_NAME_LINES, (name, lines)
        fit = attila_map.name_fit(lines, w)
        assert fit >= READABLE_FIT, (province.id, name, lines, round(fit, 2))
        for line in lines:
            assert attila_map._name_width(line, attila_map.REGULAR_FACE) * fit <= w + 0.1
        name_bottom = top + attila_map.NAME_SIZE + attila_map.NAME_LEADING * (len(lines) - 1)
        assert name_bottom <= top + h - 2 * attila_map.MARK_R, (province.id, lines)  # lit mark
        places = attila_map.chip_places(box, 3, len(lines))
        assert all(y >= name_bottom and y + attila_map.CHIP <= top + h for _x, y in places), (
            province.id,
            lines,
        )


#: A province holds at most five stones; four peoples (or three and a century) in one are
#: common in play.
CROWDED = 4


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_crowded_provinces_chips_stay_in_its_inner_box_under_its_name(lang: str) -> None:
    """Four chips and their counts fit every province's inner box under its name (the rows
    closed up where need be); the lit marker's corner is left clear wherever they allow."""
    shapes = regions()
    for province in BOARD.provinces:
        box = shapes.inner[province.id]
        left, top, w, h = box
        lines = attila_map.name_lines(word(lang, province.name), box)
        name_bottom = top + attila_map.NAME_SIZE + attila_map.NAME_LEADING * (len(lines) - 1)
        for count in range(1, CROWDED + 1):
            places = attila_map.chip_places(box, count, len(lines))
            width = attila_map.CHIP + attila_map.COUNT_WIDTH
            assert all(
                left <= x and x + width <= left + w + 0.1 and y >= name_bottom for x, y in places
            ), (province.id, count, places)
            assert all(y + attila_map.CHIP <= top + h for _x, y in places), (
                province.id,
                count,
                places,
            )
            overlapping = [
                (a, b)
                for a, b in itertools.combinations(places, 2)
                if abs(a[0] - b[0]) < width and abs(a[1] - b[1]) < attila_map.CHIP
            ]
            assert overlapping == [], (province.id, count)
        assert attila_map.marker_clear(box, attila_map.chip_places(box, 3, len(lines)))


def test_a_long_name_breaks_at_a_space_or_after_a_slash_only_where_the_box_has_room() -> None:
    wide_and_high = (0.0, 0.0, 120.0, 200.0)
    assert attila_map.name_lines("Africa", wide_and_high) == ("Africa",)
    assert attila_map.name_lines("Africa (Karthago)", wide_and_high) == ("Africa", "(Karthago)")
    assert attila_map.name_lines("Mittel-/Süditalien", wide_and_high) == ("Mittel-/", "Süditalien")
    assert attila_map.name_lines("Belgien / Niederrhein", wide_and_high) == (
        "Belgien /",
        "Niederrhein",
    )
    low = (0.0, 0.0, 120.0, 60.0)
    assert attila_map.name_lines("Africa (Karthago)", low) == ("Africa (Karthago)",)


def test_the_map_is_as_wide_as_todays_board_so_a_phone_shows_it_whole() -> None:
    shapes = regions()
    assert shapes.width <= 768
    assert 1 < shapes.height / shapes.width < 1.4


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        (["aa.", ".aa", "..."], None),
        (["a.", ".a"], "corner only"),
        (["a.a"], "one piece"),
        (["aaa", "a.a", "aaa"], "one piece"),
        (["aa", "a"], "differ in length"),
    ],
)
def test_a_broken_map_is_refused(rows: list[str], problem: str | None) -> None:
    raw = {**_raw(), "rows": rows, "legend": {"a": "A"}, "scenery": {}}
    if problem is None:
        assert isinstance(build(raw), Regions)
        return
    with pytest.raises(ValueError, match=problem):
        build(raw)
