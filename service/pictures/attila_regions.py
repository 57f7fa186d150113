"""Attila's board as a map: each province a region of a stylised (reconstructed) map of the
late Roman world, the outlines that the web board and the mailed picture both draw
(``attila_map``).

The map is data (engine/attila/data/regions.json, as RECONSTRUCTED as the board): a grid of
cells, one letter a cell, each letter a province, a piece of scenery (Germania Magna beyond
the start line, Corsica, Sardinia) or the sea. Here the cells become polygons:

- each region's outline runs along its cells' edges, so that two land neighbours share a
  border and every other pair is kept apart by sea or by a third region;
- the grid's corners are moved the same way for every region that has them: a border's
  corners drawn towards their two neighbours along it (a staircase of cells reads as a slope),
  then nudged by a jitter fixed by the corner's place (a coast reads as a coast, not a ruler);
  where three regions meet the corner only takes the jitter;
- each region's inner box is the largest rectangle inside its outline: where its name and
  chips go.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

Point = tuple[float, float]
Corner = tuple[int, int]
#: A box as (left, top, width, height), in the picture's units.
Box = tuple[float, float, float, float]

SEA = "."
#: How far a border's corner is drawn towards its neighbours, each of the rounds.
SMOOTHING = 0.5
SMOOTHING_ROUNDS = 2
#: The inner box: found among sample points this far apart, the most of it worth having
#: (wide enough for a long name, high enough for a name on two lines over three chips one
#: under the other, as a narrow box places them), kept this far in.
SAMPLE = 8
USEFUL = (170.0, 136.0)
MARGIN = 3.0


@dataclass(frozen=True)
class Regions:
    """The map's regions in the picture's units."""

    width: int
    height: int
    #: Each region's outline (provinces by id, scenery by its name), clockwise.
    shapes: dict[str, list[Point]]
    #: Each region's inner box.
    inner: dict[str, Box]
    #: The borders between two regions, each as its polyline, by the pair's ids.
    borders: dict[frozenset[str], list[list[Point]]]
    #: Which regions are scenery, with their names as the map writes them.
    scenery: dict[str, str]
    #: The seas' names, each with its middle and its turn (degrees).
    seas: list[tuple[str, Point, float]]


@cache
def regions() -> Regions:
    """The map of engine/attila/data/regions.json, worked out once."""
    text = resources.files("engine.attila").joinpath("data/regions.json").read_text("utf-8")
    return build(json.loads(text))


def build(raw: dict[str, Any]) -> Regions:
    """The regions of a map (regions.json's shape: ``cell``, ``jitter``, ``legend``,
    ``rows``, ``scenery`` and, optionally, ``seas``)."""
    rows: list[str] = raw["rows"]
    legend: dict[str, str] = raw["legend"]
    cell: int = raw["cell"]
    grid = _Grid(rows, legend)
    at = _corner_places(grid, cell, raw["jitter"])
    shapes = {rid: [at[c] for c in _outline(grid, rid)] for rid in grid.ids()}
    inner = {rid: _inner_box(shape) for rid, shape in shapes.items()}
    return Regions(
        width=cell * grid.width,
        height=cell * len(rows),
        shapes=shapes,
        inner=inner,
        borders=_borders(grid, at),
        scenery=dict(raw["scenery"]),
        seas=[
            (sea["name"], (float(sea["at"][0]), float(sea["at"][1])), float(sea["rotate"]))
            for sea in raw.get("seas", [])
        ],
    )


class _Grid:
    """The cells' owners: a region's id, or the sea (also everywhere off the grid)."""

    def __init__(self, rows: list[str], legend: dict[str, str]) -> None:
        widths = {len(row) for row in rows}
        if len(widths) != 1:
            raise ValueError(f"the map's rows differ in length: {sorted(widths)}")
        self.width = widths.pop()
        self.height = len(rows)
        self.owner = {
            (x, y): legend[ch] if ch != SEA else SEA
            for y, row in enumerate(rows)
            for x, ch in enumerate(row)
        }

    def at(self, x: int, y: int) -> str:
        return self.owner.get((x, y), SEA)

    def ids(self) -> list[str]:
        return sorted({o for o in self.owner.values() if o != SEA})

    def cells(self, rid: str) -> set[Corner]:
        return {xy for xy, owner in self.owner.items() if owner == rid}

    def around(self, corner: Corner) -> tuple[str, str, str, str]:
        """The owners of the four cells round a corner: north-west, north-east, south-east,
        south-west."""
        x, y = corner
        return self.at(x - 1, y - 1), self.at(x, y - 1), self.at(x, y), self.at(x - 1, y)


#: A corner's four grid edges, each with the two cells it lies between (as offsets from the
#: corner's south-east cell).
_EDGES = (
    ((0, -1), (-1, -1), (0, -1)),  # north: between the north-west and north-east cells
    ((1, 0), (0, -1), (0, 0)),  # east: between the north-east and south-east cells
    ((0, 1), (-1, 0), (0, 0)),  # south: between the south-west and south-east cells
    ((-1, 0), (-1, -1), (-1, 0)),  # west: between the north-west and south-west cells
)


def _border_steps(grid: _Grid, corner: Corner) -> list[Corner]:
    """The corners one grid edge away along a border (an edge between two owners)."""
    x, y = corner
    out = []
    for (dx, dy), (ax, ay), (bx, by) in _EDGES:
        if grid.at(x + ax, y + ay) != grid.at(x + bx, y + by):
            out.append((x + dx, y + dy))
    return out


def _corner_places(grid: _Grid, cell: int, jitter: float) -> dict[Corner, Point]:
    """Where each corner on a border is drawn: smoothed along its border, then jittered."""
    corners = [(x, y) for x in range(grid.width + 1) for y in range(grid.height + 1)]
    steps = {c: _border_steps(grid, c) for c in corners}
    steps = {c: s for c, s in steps.items() if s}
    free = {c for c, s in steps.items() if len(s) == 2 and len(set(grid.around(c))) == 2}
    place: dict[Corner, Point] = {c: (float(c[0] * cell), float(c[1] * cell)) for c in steps}
    for _round in range(SMOOTHING_ROUNDS):
        moved = dict(place)
        for c in free:
            (ax, ay), (bx, by) = (place[s] for s in steps[c])
            x, y = place[c]
            moved[c] = (
                (1 - SMOOTHING) * x + SMOOTHING * (ax + bx) / 2,
                (1 - SMOOTHING) * y + SMOOTHING * (ay + by) / 2,
            )
        place = moved
    return {c: _jittered(c, p, jitter) for c, p in place.items()}


def _jittered(corner: Corner, at: Point, jitter: float) -> Point:
    digest = hashlib.blake2s(f"{corner[0]},{corner[1]}".encode(), digest_size=2).digest()
    dx, dy = (digest[0] / 255 - 0.5) * 2 * jitter, (digest[1] / 255 - 0.5) * 2 * jitter
    return round(at[0] + dx, 1), round(at[1] + dy, 1)


def _outline(grid: _Grid, rid: str) -> list[Corner]:
    """A region's corners in order round it, clockwise on the screen; a region must be one
    piece without holes, its cells touching edge to edge."""
    cells = grid.cells(rid)
    following: dict[Corner, Corner] = {}
    for x, y in cells:
        sides = (
            ((x, y - 1), (x, y), (x + 1, y)),
            ((x + 1, y), (x + 1, y), (x + 1, y + 1)),
            ((x, y + 1), (x + 1, y + 1), (x, y + 1)),
            ((x - 1, y), (x, y + 1), (x, y)),
        )
        for beyond, start, end in sides:
            if beyond not in cells:
                if start in following:
                    raise ValueError(f"{rid}'s cells touch at a corner only, at {start}")
                following[start] = end
    start = min(following)
    loop = [start]
    while (nxt := following[loop[-1]]) != start:
        loop.append(nxt)
    if len(loop) != len(following):
        raise ValueError(f"{rid} is not one piece without holes")
    return loop


def _borders(grid: _Grid, at: dict[Corner, Point]) -> dict[frozenset[str], list[list[Point]]]:
    """Each pair of regions' shared border, as segments."""
    out: dict[frozenset[str], list[list[Point]]] = {}
    for (x, y), owner in grid.owner.items():
        for (nx, ny), a, b in (
            ((x + 1, y), (x + 1, y), (x + 1, y + 1)),
            ((x, y + 1), (x, y + 1), (x + 1, y + 1)),
        ):
            other = grid.at(nx, ny)
            if owner not in (SEA, other) and other != SEA:
                out.setdefault(frozenset((owner, other)), []).append([at[a], at[b]])
    return out


def _inner_box(shape: list[Point]) -> Box:
    """The box inside an outline that best holds a name over rows of chips: of the
    rectangles whose sample points (every ``SAMPLE`` units) all lie inside, the largest once
    cut to ``USEFUL`` (a longer box holds no more), then the largest, then the wider; inset by
    ``MARGIN`` and fitted inside the outline between the samples."""
    xs = [x for x, _y in shape]
    ys = [y for _x, y in shape]
    x0, y0 = math.ceil(min(xs) / SAMPLE) * SAMPLE, math.ceil(min(ys) / SAMPLE) * SAMPLE
    columns = range(int((max(xs) - x0) // SAMPLE) + 1)
    inside = [
        [_inside((x0 + SAMPLE * c, y), shape) for c in columns]
        for y in range(int(y0), int(max(ys)) + 1, SAMPLE)
    ]
    best: tuple[float, float, float, Box] = (0.0, 0.0, 0.0, (x0, y0, 0.0, 0.0))
    for top in range(len(inside)):
        all_in = [True] * len(columns)
        for bottom in range(top, len(inside)):
            all_in = [a and b for a, b in zip(all_in, inside[bottom], strict=True)]
            h = SAMPLE * (bottom - top)
            for start, length in _runs(all_in):
                w = SAMPLE * (length - 1)
                useful = min(w, USEFUL[0]) * min(h, USEFUL[1])
                box = (x0 + SAMPLE * start, y0 + SAMPLE * top, float(w), float(h))
                best = max(best, (useful, w * h, w, box))
    left, top_, width, height = best[3]
    inset = (left + MARGIN, top_ + MARGIN, width - 2 * MARGIN, height - 2 * MARGIN)
    return _fitted(inset, shape)


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """The runs of True in ``flags``: (start, length)."""
    out = []
    start = None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            out.append((start, i - start))
            start = None
    return out


def _fitted(box: Box, shape: list[Point]) -> Box:
    """A box drawn in from each corner that the outline leaves outside (where the outline was
    drawn in from its cells), a step at a time, until it lies inside."""
    left, top, w, h = box
    for _step in range(40):
        out = [not _inside(p, shape) for p in _corners((left, top, w, h))]
        if not any(out):
            break
        north_west, north_east, south_east, south_west = out
        if north_west or north_east:
            top, h = top + 1, h - 1
        if south_west or south_east:
            h -= 1
        if north_west or south_west:
            left, w = left + 1, w - 1
        if north_east or south_east:
            w -= 1
    return left, top, w, h


def _corners(box: Box) -> list[Point]:
    left, top, w, h = box
    return [(left, top), (left + w, top), (left + w, top + h), (left, top + h)]


def _inside(p: Point, shape: list[Point]) -> bool:
    """Whether ``p`` lies inside an outline (even-odd rule)."""
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(shape, [*shape[1:], shape[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def nearest(a: list[Point], b: list[Point]) -> tuple[Point, Point]:
    """The closest pair of corners of two outlines (where a sea link crosses the water)."""
    return min(
        ((p, q) for p in a for q in b),
        key=lambda pq: (pq[0][0] - pq[1][0]) ** 2 + (pq[0][1] - pq[1][1]) ** 2,
    )
