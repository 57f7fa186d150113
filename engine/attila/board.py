"""Attila's components and board, read from ``data/board.json``.

The board is a reconstruction (see docs/rules/attila.md): the engine only ever uses what the
data file says, so a corrected file replaces it without code changes. Provinces and peoples
become small integers here (their position in the file) so rules work on bit masks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class People:
    index: int
    id: str
    letter: str
    name_de: str
    name_en: str
    colour: str


@dataclass(frozen=True)
class Province:
    index: int
    id: str
    name: str
    frontier: bool


@dataclass(frozen=True)
class Board:
    data_version: str
    peoples: tuple[People, ...]  # in scoring order
    provinces: tuple[Province, ...]
    neighbours: tuple[int, ...]  # bit mask of adjacent provinces (land or sea arrow)
    frontier_mask: int
    sea_arrows: tuple[tuple[int, int], ...]
    cards_per_people: int
    stones_per_people: int
    hand_size: int
    province_capacity: int
    action_tiles: tuple[str, ...]
    tiles_by_century: tuple[int, ...]  # pacification tiles on the 4th, 5th, ... century field
    influence_steps: tuple[int, ...]  # steps per stone in the same centuries
    first_century: int
    influence_top: int
    two_player_cards_per_turn: int
    double_turn_extra_cards: int
    raw: dict[str, Any]

    def people(self, key: str) -> People:
        key = key.strip()
        for people in self.peoples:
            if key.upper() == people.letter or key.lower() == people.id:
                return people
        raise KeyError(key)

    def province(self, key: str) -> Province:
        wanted = key.strip().upper()
        for province in self.provinces:
            if province.id.upper() == wanted:
                return province
        raise KeyError(key)

    def neighbours_of(self, mask: int) -> int:
        """All provinces adjacent to any province in ``mask``."""
        out = 0
        while mask:
            low = mask & -mask
            out |= self.neighbours[low.bit_length() - 1]
            mask ^= low
        return out


def _centuries(constants: dict[str, Any], key: str) -> tuple[list[int], tuple[int, ...]]:
    by_century = constants[key]
    centuries = sorted(int(c) for c in by_century)
    return centuries, tuple(by_century[str(c)] for c in centuries)


def parse_board(raw: dict[str, Any]) -> Board:
    constants = raw["constants"]
    order = raw["scoring_order"]["order"]
    by_id = {p["id"]: p for p in raw["peoples"]}
    peoples = tuple(
        People(
            i,
            pid,
            by_id[pid]["letter"],
            by_id[pid]["name_de"],
            by_id[pid]["name_en"],
            by_id[pid]["colour"],
        )
        for i, pid in enumerate(order)
    )
    board = raw["board"]
    provinces = tuple(
        Province(i, p["id"], p["name"], bool(p["frontier"]))
        for i, p in enumerate(board["provinces"])
    )
    index = {p.id: p.index for p in provinces}
    neighbours = [0] * len(provinces)
    arrows = tuple((index[a], index[b]) for a, b in (s["between"] for s in board["sea_arrows"]))
    for a, b in [(index[a], index[b]) for a, b in board["land_borders"]] + list(arrows):
        neighbours[a] |= 1 << b
        neighbours[b] |= 1 << a
    centuries, tiles = _centuries(constants, "pacification_tiles_by_century")
    _, steps = _centuries(constants, "influence_steps_by_century")
    return Board(
        data_version=raw.get("data_version", "unversioned"),
        peoples=peoples,
        provinces=provinces,
        neighbours=tuple(neighbours),
        frontier_mask=sum(1 << p.index for p in provinces if p.frontier),
        sea_arrows=arrows,
        cards_per_people=constants["cards_per_people"],
        stones_per_people=constants["stones_per_people"],
        hand_size=constants["hand_size"],
        province_capacity=constants["province_capacity"],
        action_tiles=tuple(t["id"] for t in constants["action_tiles"]),
        tiles_by_century=tiles,
        influence_steps=steps,
        first_century=centuries[0],
        influence_top=raw["influence_track"]["top_field"],
        two_player_cards_per_turn=constants["two_player_cards_per_turn"],
        double_turn_extra_cards=constants["two_player_double_turn_extra_cards"],
        raw=raw,
    )


@cache
def load_board() -> Board:
    text = resources.files("engine.attila").joinpath("data/board.json").read_text("utf-8")
    return parse_board(json.loads(text))
