"""The full state of one Attika game, hidden parts included, and its storage form."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field, fields
from typing import Any

from engine.attika.board import Hex

# Steps of a turn (the ``step`` of the pending decision).
TURN = "turn"  # choose: reveal, build, amphora, draw or end
REVEALED = "place_revealed"  # build the building just revealed, or store it
PLACE_TILE = "place_tile"  # place the map tile just drawn
OVER = "over"

# Which kind of action the active player has chosen this turn.
NO_MODE = ""
REVEAL = "reveal"
BUILD = "build"
DRAW = "draw"  # remaining actions turned into cards; only amphorae and end follow


@dataclass
class AttikaState:
    seed: str
    options: dict[str, Any]
    players: int
    data_version: str
    start_seat: int
    active: int
    land: dict[Hex, int]  # every map hex -> its landscape (resource index, -1 blank)
    shrines: list[Hex]
    tiles: list[list[int]]  # tiles on the map in the order laid: [tile, q, r, rotation]
    tile_pile: list[int]  # face down; the top is the end of the list
    occupant: dict[Hex, tuple[int, int]]  # hex -> (seat, building), in building order
    stacks: list[list[list[int]]]  # [seat][stack] face down; the top is the end of the list
    boards: list[list[int]]  # storage board per seat, sorted building indices
    hands: list[list[int]]  # [seat][resource] -> cards
    deck: list[int]  # resource per card; the top is the end of the list
    discard: list[int]
    amphorae: list[int]
    amphora_supply: int
    rewarded: list[list[int]]  # groups that earned an amphora, per seat
    step: str = TURN
    mode: str = NO_MODE
    actions_left: int = 0
    current: int = -1  # the building just revealed
    current_stack: int = -1
    drawn_tile: int = -1
    progress: bool = False  # a building was revealed or built in this turn
    idle_turns: int = 0  # turns in a row without any reveal or build
    turn: int = 1
    reshuffles: int = 0
    result: dict[str, Any] | None = None
    resigned: list[int] = field(default_factory=list)  # seats skipped from now on, in order
    # Derived from ``occupant`` (not stored): per seat, building -> hex.
    placed: list[dict[int, Hex]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.placed:
            self.placed = [{} for _ in range(self.players)]
            for hex_, (seat, building) in self.occupant.items():
                self.placed[seat][building] = hex_

    def copy(self) -> AttikaState:
        return load_state(dump_state(self))


_DERIVED = {"placed"}
_HEX_MAPS = {"land", "occupant"}


def dump_state(state: AttikaState) -> dict[str, Any]:
    """JSON-compatible data: hex-keyed maps become lists of ``[q, r, ...values]``."""
    out: dict[str, Any] = {}
    for f in fields(state):
        if f.name in _DERIVED:
            continue
        value = getattr(state, f.name)
        if f.name == "land":
            value = [[q, r, kind] for (q, r), kind in value.items()]
        elif f.name == "occupant":
            value = [[q, r, seat, building] for (q, r), (seat, building) in value.items()]
        elif f.name == "shrines":
            value = [list(h) for h in value]
        out[f.name] = deepcopy(value)
    if not out["resigned"]:
        del out["resigned"]  # stored only when set: older games replay to the same state
    return out


def load_state(raw: dict[str, Any]) -> AttikaState:
    data = deepcopy({k: v for k, v in raw.items() if k not in _HEX_MAPS | _DERIVED})
    data["shrines"] = [(q, r) for q, r in data["shrines"]]
    data["land"] = {(q, r): kind for q, r, kind in raw["land"]}
    data["occupant"] = {(q, r): (seat, building) for q, r, seat, building in raw["occupant"]}
    return AttikaState(**data)
