"""The full state of one Attila game, hidden parts included, and its storage form."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from engine.core import json_copy

# Steps of a turn (the ``step`` of the pending decision).
PLAY_CARD = "play_card"
INFLUENCE = "influence"
CONFLICT = "conflict_cards"
FINISH = "finish"
OVER = "over"


@dataclass
class Conflict:
    """A conflict in progress: the cards laid face down so far, keyed by seat."""

    ref: str
    province: int
    present: tuple[int, ...]  # peoples with stones in the province when it started
    order: tuple[int, ...]  # seats in commit order, the active player first
    commits: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def waiting_for(self) -> list[int]:
        return [seat for seat in self.order if seat not in self.commits]


@dataclass
class AttilaState:
    seed: str
    options: dict[str, Any]
    players: int
    start_seat: int
    hands: list[list[int]]  # sorted people indices per seat
    deck: list[int]  # the top of the pile is the end of the list
    discard: list[int]
    stones: list[list[int]]  # [province][people] -> stones
    pacified: list[int]  # per province: the century of its tile, 0 when not pacified
    supply: list[int]  # per people
    tiles_left: list[int]  # pacification tiles still on each century field
    influence: list[list[int]]  # [seat][people] -> field, 0 = not on the track
    scores: list[int]
    action_tiles: list[list[str]]  # unused action tiles per seat
    active: int
    step: str = PLAY_CARD
    cards_left: int = 1  # card plays still owed this turn, the current one included
    tile_used: bool = False  # an action tile was used this turn
    people: int = -1  # the people of the current card
    placed: int = 0  # stones set for the current card
    queued: list[int] = field(default_factory=list)  # provinces whose conflict is still to come
    conflict: Conflict | None = None
    conflicts: int = 0  # conflicts started so far; names the next one
    conflict_this_card: bool = False
    reshuffles: int = 0
    end_reasons: list[str] = field(default_factory=list)
    turn: int = 1
    resigned: list[int] = field(default_factory=list)  # seats skipped from now on, in order
    result: dict[str, Any] | None = None

    def copy(self) -> AttilaState:
        return load_state(dump_state(self))


def dump_state(state: AttilaState) -> dict[str, Any]:
    """JSON-compatible data (tuples become lists, seat keys strings), sharing nothing with
    ``state``."""
    out = {name: getattr(state, name) for name in _FIELDS}
    if state.conflict is not None:
        out["conflict"] = {name: getattr(state.conflict, name) for name in _CONFLICT_FIELDS}
    if not out["resigned"]:
        del out["resigned"]  # stored only when set: older games replay to the same state
    data: dict[str, Any] = json_copy(out)
    return data


def load_state(raw: dict[str, Any]) -> AttilaState:
    data = json_copy({k: v for k, v in raw.items() if k != "conflict"})
    state = AttilaState(**data)
    c = raw.get("conflict")
    if c is not None:
        state.conflict = Conflict(
            c["ref"],
            c["province"],
            tuple(c["present"]),
            tuple(c["order"]),
            {int(seat): tuple(cards) for seat, cards in c["commits"].items()},
        )
    return state


_FIELDS = tuple(f.name for f in fields(AttilaState))
_CONFLICT_FIELDS = tuple(f.name for f in fields(Conflict))
