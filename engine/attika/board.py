"""Attika's components, read from ``data/attika.json``.

Much of the data is a reconstruction (see docs/rules/attika.md): building costs, the City
arrows, every map-tile face and the starting layouts. The engine only ever uses what the
data file says, so a corrected file replaces it without code changes. Resources, buildings,
groups and tiles become small integers here (their position in the file).

Hexes are axial coordinates ``(q, r)`` (pointy-top); the six directions and their order come
from the data file too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

Hex = tuple[int, int]


@dataclass(frozen=True)
class Resource:
    index: int
    id: str
    letter: str
    name_de: str
    cards: int


@dataclass(frozen=True)
class Group:
    index: int
    id: str
    name_en: str
    size: int
    members: tuple[int, ...]  # building indices


@dataclass(frozen=True)
class Building:
    index: int
    id: str
    name_de: str
    name_en: str
    group: int
    main: bool
    cost: tuple[int, ...]  # printed symbols per resource
    any_cost: int  # symbols of any type (roads)
    predecessors: int  # bit mask of buildings whose arrow points here
    copy_of: int  # lowest index of the interchangeable copies (itself if none)


@dataclass(frozen=True)
class Tile:
    index: int
    id: str
    hexes: tuple[int, ...]  # centre, then outer hexes 1..6; resource index or -1 (blank)


@dataclass(frozen=True)
class Layout:
    tile_centres: tuple[Hex, ...]
    shrines: tuple[Hex, ...]


@dataclass(frozen=True)
class Board:
    data_version: str
    resources: tuple[Resource, ...]
    groups: tuple[Group, ...]
    buildings: tuple[Building, ...]
    tiles: tuple[Tile, ...]
    directions: tuple[Hex, ...]  # (dq, dr) of outer hex 1..6
    lattice: tuple[Hex, Hex]  # basis of the super-lattice of tile centres
    layouts: dict[int, Layout]  # by player count
    main_stack: int
    other_stacks: int
    other_stack_size: int
    starting_cards: tuple[int, ...]  # in turn order from the start player
    reveal_actions: int
    build_actions: int
    card_per_unused_action: int
    amphora_supply: int
    joker_cards: int  # this many cards of any type ...
    joker_replaces: int  # ... stand for this many symbols
    raw: dict[str, Any]

    # -- lookups -------------------------------------------------------------------------------

    def building(self, key: str) -> Building:
        wanted = key.strip().lower()
        for building in self.buildings:
            if building.id.lower() == wanted:
                return building
        raise KeyError(key)

    def resource(self, key: str) -> Resource:
        wanted = key.strip()
        for resource in self.resources:
            if wanted.upper() == resource.letter or wanted.lower() == resource.id:
                return resource
        raise KeyError(key)

    def tile(self, key: str) -> Tile:
        wanted = key.strip().upper()
        for tile in self.tiles:
            if tile.id.upper() == wanted:
                return tile
        raise KeyError(key)

    # -- geometry ------------------------------------------------------------------------------

    def neighbours(self, hex_: Hex) -> tuple[Hex, ...]:
        return _neighbours(self.directions, hex_)

    def tile_hexes(self, tile: int, centre: Hex, rotation: int) -> list[tuple[Hex, int]]:
        """The seven hexes a tile covers and their landscape, rotated ``rotation`` steps
        counter-clockwise (outer index i moves to ((i - 1 + k) mod 6) + 1)."""
        face = self.tiles[tile].hexes
        q, r = centre
        out = [(centre, face[0])]
        n = len(self.directions)
        for i in range(1, n + 1):
            dq, dr = self.directions[(i - 1 + rotation) % n]
            out.append(((q + dq, r + dr), face[i]))
        return out

    def on_lattice(self, hex_: Hex) -> bool:
        (aq, ar), (bq, br) = self.lattice
        det = aq * br - ar * bq
        q, r = hex_
        return (q * br - r * bq) % det == 0 and (aq * r - ar * q) % det == 0


@cache
def _neighbours(directions: tuple[Hex, ...], hex_: Hex) -> tuple[Hex, ...]:
    q, r = hex_
    return tuple((q + dq, r + dr) for dq, dr in directions)


def hex_distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _stem(building_id: str) -> str:
    """The id without its copy number: ``tower2`` -> ``tower``."""
    return re.sub(r"\d+$", "", building_id)


def _predecessor_mask(entries: list[str], buildings: list[dict[str, Any]]) -> int:
    """``*stem`` names every building of that stem (``*road``: any road); else an id."""
    mask = 0
    for entry in entries:
        for i, other in enumerate(buildings):
            wildcard = entry.startswith("*") and _stem(other["id"]) == entry[1:]
            if wildcard or other["id"] == entry:
                mask |= 1 << i
    return mask


def parse_board(raw: dict[str, Any]) -> Board:
    constants = raw["constants"]
    res = tuple(
        Resource(i, r["id"], r["symbol"].upper(), r["name_de"], r["cards"])
        for i, r in enumerate(raw["resources"])
    )
    res_index = {r.id: r.index for r in res}
    group_index = {g["id"]: i for i, g in enumerate(raw["groups"])}
    raw_buildings = raw["buildings"]

    def copy_key(b: dict[str, Any]) -> tuple[Any, ...]:
        return (
            b["name_de"],
            b["group"],
            b["main"],
            tuple(sorted(b["predecessors"])),
            tuple(sorted(b["cost"].items())),
        )

    first_of: dict[tuple[Any, ...], int] = {}
    buildings = []
    for i, b in enumerate(raw_buildings):
        cost = [0] * len(res)
        for key, n in b["cost"].items():
            if key != "any":
                cost[res_index[key]] += n
        buildings.append(
            Building(
                index=i,
                id=b["id"],
                name_de=b["name_de"],
                name_en=b["name_en"],
                group=group_index[b["group"]],
                main=bool(b["main"]),
                cost=tuple(cost),
                any_cost=b["cost"].get("any", 0),
                predecessors=_predecessor_mask(b["predecessors"], raw_buildings),
                copy_of=first_of.setdefault(copy_key(b), i),
            )
        )
    groups = tuple(
        Group(
            i,
            g["id"],
            g["name_en"],
            g["size"],
            tuple(b.index for b in buildings if b.group == i),
        )
        for i, g in enumerate(raw["groups"])
    )
    tiles = tuple(
        Tile(i, t["id"], tuple(-1 if h is None else res_index[h] for h in t["hexes"]))
        for i, t in enumerate(raw["tiles"]["faces"])
    )
    geometry = raw["hex_geometry"]
    directions = tuple(
        (d["dq"], d["dr"]) for d in sorted(geometry["directions"], key=lambda d: d["index"])
    )
    basis = geometry["lattice"]["basis"]
    layouts = {
        int(players): Layout(
            tuple((q, r) for q, r in layout["tile_centres"]),
            tuple((q, r) for q, r in layout["shrines"]),
        )
        for players, layout in raw["initial_layouts"].items()
        if players.isdigit()
    }
    stacks = constants["stacks"]
    if constants["joker"]["replaces"] != 1:
        raise ValueError("the engine supports jokers that replace exactly one symbol")
    return Board(
        data_version=raw.get("data_version", "unversioned"),
        resources=res,
        groups=groups,
        buildings=tuple(buildings),
        tiles=tiles,
        directions=directions,
        lattice=((basis[0][0], basis[0][1]), (basis[1][0], basis[1][1])),
        layouts=layouts,
        main_stack=stacks["main_stack"],
        other_stacks=stacks["other_stacks"],
        other_stack_size=stacks["other_stack_size"],
        starting_cards=tuple(constants["starting_cards_in_turn_order"]),
        reveal_actions=constants["actions"]["reveal"],
        build_actions=constants["actions"]["build"],
        card_per_unused_action=constants["card_per_unused_action"],
        amphora_supply=constants["amphora_supply"],
        joker_cards=constants["joker"]["cards"],
        joker_replaces=constants["joker"]["replaces"],
        raw=raw,
    )


@cache
def load_board() -> Board:
    text = resources.files("engine.attika").joinpath("data/attika.json").read_text("utf-8")
    return parse_board(json.loads(text))
