"""The Attila wargame's map, forces and tables, read from the package data.

Everything here comes from ``data/attila-wargame.json`` and ``data/attila-wargame-map.json``
(copies of the project spec; the map, factors, start hexes and tables are RECONSTRUCTED) and
from ``data/bindings.json`` (which data ids play which role in the rules). The engine never
names a hex, unit or table value in code, so corrected data replaces the reconstruction.

Hexes become small integers (their position in the map file); ``label`` gives the printed
``CCRR`` name used by the notation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

#: Axial steps of the six directions, in the map file's order (SE, NE, N, NW, SW, S).
_DIRECTIONS_KEY = "directions"


@dataclass(frozen=True)
class UnitDef:
    id: str
    people: str
    combat: bool  # a combat unit (CTU); False for a command unit (CMU)
    cf: int  # printed combat factor (0 for command units)
    mf: int
    start: int  # hex index, -1 when the unit enters later
    doubles: bool  # command units: doubles a unit of its own nation (Leo I does not)
    order: int  # position on the forces sheet (lowest-numbered first)


@dataclass(frozen=True)
class City:
    id: str
    name: str
    hex: int
    value: int
    plus: bool  # "+" city (adds for the Barbarian) or "-" city (subtracts when Roman-held)
    region: str | None  # victory region: gaul, italy, east or None


@dataclass(frozen=True)
class Board:
    labels: tuple[str, ...]
    qr: tuple[tuple[int, int], ...]
    index_of_label: dict[str, int]
    index_of_qr: dict[tuple[int, int], int]
    neighbours: tuple[tuple[int, ...], ...]  # existing neighbour hexes (any terrain)
    passable: tuple[bool, ...]  # land and in play
    empire: tuple[str, ...]  # west, east, barbarian or "" (sea / out of play)
    region: tuple[str, ...]  # map region name after overrides
    river_sides: frozenset[tuple[int, int]]  # (a, b) with a < b
    rivers_of: dict[int, frozenset[str]]  # river hexes and the rivers through them
    cities: tuple[City, ...]
    city_at: dict[int, City]
    city_by_id: dict[str, City]
    fields: dict[str, tuple[int, ...]]  # city id -> its cultivated hexes
    cultivated: frozenset[int]
    units: dict[str, UnitDef]
    unit_order: tuple[str, ...]
    peoples: tuple[str, ...]
    start_alignment: dict[str, str]
    cells: dict[str, dict[str, dict[str, str]]]  # column -> attack card -> defence card
    columns: tuple[str, ...]
    attack_cards: tuple[str, ...]
    defence_cards: tuple[str, ...]
    diplomacy: dict[str, dict[str, int]]  # roman card -> barbarian card -> +1 / 0 / -1
    roman_cards: tuple[str, ...]
    barbarian_cards: tuple[str, ...]
    rounds: int
    phases: tuple[str, ...]
    seasons: tuple[str, ...]
    vp: dict[str, int]  # other victory points by id (signed)
    bindings: dict[str, Any]
    raw: dict[str, Any]
    map_raw: dict[str, Any]

    def label(self, hex_: int) -> str:
        return self.labels[hex_]

    def adjacent(self, a: int, b: int) -> bool:
        return b in self.neighbours[a]

    def river_between(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) in self.river_sides

    def distance(self, a: int, b: int) -> int:
        (qa, ra), (qb, rb) = self.qr[a], self.qr[b]
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def unit_ids_of(self, people: str, combat: bool | None = None) -> list[str]:
        return [
            u
            for u in self.unit_order
            if self.units[u].people == people and (combat is None or self.units[u].combat == combat)
        ]


def _label(col: int, row: int) -> str:
    return f"{col + 1:02d}{row + 1:02d}"


def parse_board(raw: dict[str, Any], map_raw: dict[str, Any], bindings: dict[str, Any]) -> Board:
    hexes = map_raw["hexes"]
    qr = tuple((h["q"], h["r"]) for h in hexes)
    index_of_qr = {c: i for i, c in enumerate(qr)}
    labels = tuple(_label(h["col"], h["row"]) for h in hexes)
    steps = [(d["dq"], d["dr"]) for d in raw["map"][_DIRECTIONS_KEY]]
    neighbours = tuple(
        tuple(index_of_qr[(q + dq, r + dr)] for dq, dr in steps if (q + dq, r + dr) in index_of_qr)
        for q, r in qr
    )
    overrides = {tuple(o["hex"]): o["region"] for o in raw["map"]["region_overrides"]["hexes"]}
    names = bindings["empire_names"]
    empire_of_region = {
        region: names[key]
        for key, regions in raw["map"]["empires"].items()
        if key in names
        for region in regions
    }
    impassable_terrain = set(raw["map"]["impassable"]["terrain"])
    region = tuple(overrides.get(c, h["region"]) or "" for c, h in zip(qr, hexes, strict=True))
    empire = tuple(empire_of_region.get(r, "") for r in region)
    passable = tuple(
        bool(e) and h["terrain"] not in impassable_terrain
        for e, h in zip(empire, hexes, strict=True)
    )
    sides = set()
    rivers: dict[int, set[str]] = {}
    for side in map_raw["river_hexsides"]:
        a, b = index_of_qr[tuple(side["a"])], index_of_qr[tuple(side["b"])]
        sides.add((min(a, b), max(a, b)))
        for h in (a, b):
            if passable[h]:
                rivers.setdefault(h, set()).add(side["river"])
    cities = tuple(
        City(
            c["id"],
            c["name"],
            index_of_qr[tuple(c["hex"])],
            c["value"],
            c["scoring"] == "plus",
            c["victory_region"],
        )
        for c in raw["cities"]
    )
    city_at = {c.hex: c for c in cities}
    fields = {
        c.id: tuple(n for n in neighbours[c.hex] if passable[n] and n not in city_at)
        for c in cities
    }
    types = {t["id"]: t for t in raw["unit_types"]}
    units: dict[str, UnitDef] = {}
    for group in raw["forces"]:
        for u in group["units"]:
            t = types[u["type"]]
            start = index_of_qr[tuple(u["start"])] if u.get("start") else -1
            units[u["id"]] = UnitDef(
                u["id"], group["people"], True, t["cf"], t["mf"], start, False, len(units)
            )
    for extra in bindings.get("extra_units", ()):
        option = raw["options"][extra["option"]]
        own = [u for u in units.values() if u.people == extra["people"] and u.combat]
        prefix = own[-1].id.rsplit("-", 1)[0]
        for k in range(len(own) + 1, max(option["default"], *option.get("alternatives", ())) + 1):
            uid = f"{prefix}-{k}"
            units[uid] = UnitDef(
                uid, own[-1].people, True, own[-1].cf, own[-1].mf, -1, False, len(units)
            )
    for c in raw["cmus"]:
        start = index_of_qr[tuple(c["hex"])] if c.get("hex") else -1
        units[c["id"]] = UnitDef(
            c["id"], c["people"], False, 0, c["mf"], start, bool(c["doubles"]), len(units)
        )
    combat = raw["combat"]
    dip = raw["diplomacy"]
    vp = {
        item["id"]: item["points"] * (1 if item["sign"] == "plus" else -1)
        for item in raw["other_victory_points"]["items"]
    }
    return Board(
        labels=labels,
        qr=qr,
        index_of_label={lab: i for i, lab in enumerate(labels)},
        index_of_qr=index_of_qr,
        neighbours=neighbours,
        passable=passable,
        empire=empire,
        region=region,
        river_sides=frozenset(sides),
        rivers_of={h: frozenset(r) for h, r in rivers.items()},
        cities=cities,
        city_at=city_at,
        city_by_id={c.id: c for c in cities},
        fields=fields,
        cultivated=frozenset(h for f in fields.values() for h in f),
        units=units,
        unit_order=tuple(units),
        peoples=tuple(p["id"] for p in raw["peoples"]),
        start_alignment={p["id"]: p["control_at_start"] for p in raw["peoples"]},
        cells=combat["cells"]["table"],
        columns=tuple(combat["odds"]["columns"]),
        attack_cards=tuple(c["id"] for c in combat["attack_cards"]),
        defence_cards=tuple(c["id"] for c in combat["defence_cards"]),
        diplomacy=dip["cross"]["table"],
        roman_cards=tuple(c["id"] for c in dip["cards"]["roman"]),
        barbarian_cards=tuple(c["id"] for c in dip["cards"]["barbarian"]),
        rounds=raw["calendar"]["rounds"],
        phases=tuple(p["id"] for p in raw["calendar"]["phases"]),
        seasons=tuple(raw["calendar"]["seasons"]),
        vp=vp,
        bindings=bindings,
        raw=raw,
        map_raw=map_raw,
    )


def _read(name: str) -> dict[str, Any]:
    text = resources.files("engine.attila_wargame").joinpath(f"data/{name}").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def load_board() -> Board:
    return parse_board(
        _read("attila-wargame.json"), _read("attila-wargame-map.json"), _read("bindings.json")
    )
