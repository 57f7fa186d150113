"""The full state of one Attila wargame, hidden parts included, and its storage form."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

# Steps (the ``step`` of the pending decision).
NOTES = "secret_notes"
MOVEMENT = "movement"
RAZE = "permanent_devastation"
COMBAT = "combat"
BATTLE_CARD = "battle_card"
PUSH = "push_back"
RETREAT = "retreat"
ADVANCE = "advance"
COUNCIL_CARD = "council_card"
CONVENE = "end_council"
OVER = "over"


@dataclass
class Battle:
    """One battle in progress, from its declaration to its last advance."""

    ref: str
    attacker_seat: int
    target: int
    attackers: list[str]
    defenders: list[str]  # the defending combat unit (command units follow their unit)
    attack_strength: int
    defence_strength: int
    column: str
    cards: dict[str, str] = field(default_factory=dict)  # seat (as str) -> card, until resolved
    result: str | None = None
    stage: str = BATTLE_CARD  # BATTLE_CARD, PUSH, RETREAT, ADVANCE
    losers: list[str] = field(default_factory=list)  # side that retreats / is pushed
    retreating: list[str] = field(default_factory=list)  # units still to retreat
    vacated: list[int] = field(default_factory=list)
    origin: dict[str, int] = field(default_factory=dict)  # attackers' hexes when declared


@dataclass
class Council:
    """A council with the diplomatic cards (Lugdunum, or the end-of-game council)."""

    ref: str
    kind: str  # "lugdunum" or "end"
    cards: dict[str, str] = field(default_factory=dict)
    result: int | None = None


@dataclass
class WargameState:
    seed: str
    options: dict[str, Any]
    round: int = 1
    phase: str = "notes"  # notes, a .. f, over
    step: str = NOTES
    pos: dict[str, int] = field(default_factory=dict)  # units on the map -> hex
    cf: dict[str, int] = field(default_factory=dict)  # combat units' current factor
    gone: dict[str, str] = field(default_factory=dict)  # units off the map -> why
    alignment: dict[str, str] = field(default_factory=dict)  # people -> roman/barbarian/neutral
    neutralised: list[str] = field(default_factory=list)
    siege_hit: list[str] = field(default_factory=list)  # besieged units already reduced
    frozen: dict[str, int] = field(default_factory=dict)  # unit -> first round it may move
    temp_devastated: list[int] = field(default_factory=list)
    perm_devastated: list[int] = field(default_factory=list)
    # movement this phase: unit -> {"used": hexes used, "stopped": bool, "run": rivers still
    # followed}
    moved: dict[str, dict[str, Any]] = field(default_factory=dict)
    attila_trail: list[int] = field(default_factory=list)  # hexes Attila entered in phase a
    fought: list[str] = field(default_factory=list)  # units that attacked this combat phase
    attacked: list[str] = field(default_factory=list)  # units attacked this combat phase
    battle: Battle | None = None
    battles: int = 0
    council: Council | None = None
    councils: int = 0
    notes: dict[str, Any] = field(default_factory=dict)  # traitor, aetius, suborned (secret)
    notes_fired: list[str] = field(default_factory=list)  # notes revealed (fired or lapsed)
    west_invaded: bool = False
    gaul_invaded: bool = False
    taken: list[str] = field(default_factory=list)  # cities a barbarian combat unit entered
    last_in_city: dict[str, str] = field(default_factory=dict)  # city -> side last to enter
    leo: str = "alive"  # alive, dead, driven_out
    attila_title: str = ""  # "", pope, antipope, deposed
    lugdunum_done: bool = False
    # 10.1: the sides the council gave, taken only when the West is invaded (people -> side)
    sides_at_west_invasion: dict[str, str] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    resigned: list[int] = field(default_factory=list)  # the seat that resigned (the game ends)

    def copy(self) -> WargameState:
        return load_state(dump_state(self))


#: Fields added after rules ``attila-wargame-1``, stored only when set: a game that never
#: used them then replays to exactly the state stored under the old rules, so
#: ``kurier games verify --upgrade`` can move it on (a missing field loads as its default).
_STORED_WHEN_SET = ("sides_at_west_invasion", "resigned")


def dump_state(state: WargameState) -> dict[str, Any]:
    """JSON-compatible data; the hex-keyed maps are stored with string keys. The same as
    ``dataclasses.asdict``, several times faster (it deep-copies each number and string): a
    march of six hexes is six actions, each stored (issue 33's 50 ms)."""
    out: dict[str, Any] = _plain(state)
    for name in _STORED_WHEN_SET:
        if not out[name]:
            del out[name]
    return out


#: What a stored state holds that is immutable, so copied by reference.
_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """A copy of ``value`` sharing no container with it, dataclasses as dicts."""
    if isinstance(value, dict):
        return {k: v if type(v) in _SCALARS else _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in _SCALARS else _plain(v) for v in value]
    if isinstance(value, WargameState | Battle | Council):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value  # str, int, float, bool, None: immutable


def load_state(raw: dict[str, Any]) -> WargameState:
    # Stored data is JSON (dicts, lists, scalars): ``_plain`` copies it as deepcopy would.
    data = _plain({k: v for k, v in raw.items() if k not in ("battle", "council")})
    state = WargameState(**data)
    if raw.get("battle") is not None:
        state.battle = Battle(**_plain(raw["battle"]))
    if raw.get("council") is not None:
        state.council = Council(**_plain(raw["council"]))
    return state
