"""The Attila wargame's actions and their notation.

Notation (case-insensitive for keywords, one action per line; hexes by their printed ``CCRR``
label, units by their forces-sheet id such as ``HUN-7`` or ``W-III-INF``):

===============================  ===========================================================
``note W-III-INF 5``             Barbarian's secret notes (sealed): the traitor unit and the
                                 first of Aetius's three rounds (here rounds 5, 6 and 7)
``note HER-3``                   Roman's secret note (sealed): the suborned allied unit
``move HUN-7 3110-3111``         move a unit along this path (hexes entered, in order)
``end``                          end the current movement or combat phase
``raze 3110 3111``               Attila's permanent devastation (``raze -``: none)
``attack 3213 by HUN-3 HUN-4``   a battle: the target hex and the attacking units
``card al``                      a battle card or a diplomatic card (sealed)
``resolve``                      reveal the sealed cards and apply the result (the server)
``push`` / ``spare``             the winner makes the losers of an AE/DE result retreat or not
``retreat W-III-INF 2114``       a retreating unit's hex (its command units go with it)
``advance HUN-3 3213``           advance after combat into a vacated hex; ``stay``: none
``convene`` / ``decline``        Leo I calls (or not) the end-of-game council
===============================  ===========================================================

Actions hold hexes as indices into the board and units by id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.attila_wargame.board import Board
from engine.core import IllegalAction, expect_json, unreadable

#: What a line that reads as no action is told to look like (any notation of the game works).
NOTATION_EXAMPLES = (
    "move HUN-7 3110-3111",
    "end",
    "attack 3213 by HUN-3 HUN-4",
    "card al",
    "retreat W-III-INF 2114",
    "advance HUN-3 3213",
    "stay",
    "push",
    "spare",
    "raze 3110",
    "note HER-3",
    "convene",
    "decline",
)


@dataclass(frozen=True, slots=True)
class Note:
    kind: ClassVar[str] = "note"
    unit: str  # the traitor (Barbarian) or the suborned unit (Roman)
    aetius: int | None = None  # first of Aetius's three rounds (Barbarian only)


@dataclass(frozen=True, slots=True)
class Move:
    kind: ClassVar[str] = "move"
    unit: str
    path: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class End:
    kind: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Raze:
    kind: ClassVar[str] = "raze"
    hexes: tuple[int, ...]  # sorted


@dataclass(frozen=True, slots=True)
class Attack:
    kind: ClassVar[str] = "attack"
    target: int
    attackers: tuple[str, ...]  # sorted by forces-sheet order


@dataclass(frozen=True, slots=True)
class Card:
    kind: ClassVar[str] = "card"
    card: str


@dataclass(frozen=True, slots=True)
class Resolve:
    kind: ClassVar[str] = "resolve"


@dataclass(frozen=True, slots=True)
class Push:
    kind: ClassVar[str] = "push"
    push: bool


@dataclass(frozen=True, slots=True)
class Retreat:
    kind: ClassVar[str] = "retreat"
    unit: str
    to: int


@dataclass(frozen=True, slots=True)
class Advance:
    kind: ClassVar[str] = "advance"
    unit: str | None  # None: no advance
    to: int = -1


@dataclass(frozen=True, slots=True)
class Convene:
    kind: ClassVar[str] = "convene"
    convene: bool


WargameAction = (
    Note | Move | End | Raze | Attack | Card | Resolve | Push | Retreat | Advance | Convene
)

_BARE: dict[str, WargameAction] = {
    "end": End(),
    "resolve": Resolve(),
    "push": Push(True),
    "spare": Push(False),
    "stay": Advance(None),
    "convene": Convene(True),
    "decline": Convene(False),
    "raze -": Raze(()),
}


class Notation:
    """Reads and writes actions for one board."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._units = {u.upper(): u for u in board.units}

    # -- writing --------------------------------------------------------------------------------

    def format(self, action: WargameAction) -> str:
        lab = self.board.labels
        match action:
            case Note(unit, aetius):
                return f"note {unit}" if aetius is None else f"note {unit} {aetius}"
            case Move(unit, path):
                return f"move {unit} " + "-".join(lab[h] for h in path)
            case Raze(hexes) if hexes:
                return "raze " + " ".join(lab[h] for h in hexes)
            case Attack(target, attackers):
                return f"attack {lab[target]} by " + " ".join(attackers)
            case Card(card):
                return f"card {card}"
            case Retreat(unit, to):
                return f"retreat {unit} {lab[to]}"
            case Advance(unit, to) if unit is not None:
                return f"advance {unit} {lab[to]}"
        return next(text for text, bare in _BARE.items() if bare == action)

    # -- reading --------------------------------------------------------------------------------

    def parse(self, text: str) -> WargameAction:
        words = text.strip().split()
        line = " ".join(words).lower()
        if line in _BARE:
            return _BARE[line]
        try:
            action = self._parse_words(words)
        except (KeyError, ValueError, IndexError):
            action = None
        if action is None:
            raise unreadable(text, NOTATION_EXAMPLES)
        return action

    def _parse_words(self, words: list[str]) -> WargameAction | None:
        head, rest = words[0].lower(), words[1:]
        if head == "note" and len(rest) in (1, 2):
            aetius = int(rest[1]) if len(rest) == 2 else None
            return Note(self.unit(rest[0]), aetius)
        if head == "move" and len(rest) == 2:
            return Move(self.unit(rest[0]), tuple(self.hex(h) for h in rest[1].split("-")))
        if head == "raze" and rest:
            return Raze(tuple(sorted({self.hex(h) for h in rest})))
        if head == "attack" and len(rest) >= 3 and rest[1].lower() == "by":
            return Attack(self.hex(rest[0]), self.units(rest[2:]))
        if head == "card" and len(rest) == 1:
            return Card(rest[0].lower())
        if head == "retreat" and len(rest) == 2:
            return Retreat(self.unit(rest[0]), self.hex(rest[1]))
        if head == "advance" and len(rest) == 2:
            return Advance(self.unit(rest[0]), self.hex(rest[1]))
        return None

    def unit(self, key: str) -> str:
        return self._units[key.upper()]

    def units(self, keys: list[str]) -> tuple[str, ...]:
        ids = {self.unit(k) for k in keys}
        if len(ids) != len(keys):
            raise ValueError("a unit is named twice")
        return tuple(sorted(ids, key=lambda u: self.board.units[u].order))

    def hex(self, key: str) -> int:
        return self.board.index_of_label[key]

    # -- JSON objects ---------------------------------------------------------------------------

    def to_json(self, action: WargameAction) -> dict[str, Any]:
        out: dict[str, Any] = {"type": action.kind}
        lab = self.board.labels
        match action:
            case Note(unit, aetius):
                out["unit"] = unit
                if aetius is not None:
                    out["aetius"] = aetius
            case Move(unit, path):
                out |= {"unit": unit, "path": [lab[h] for h in path]}
            case Raze(hexes):
                out["hexes"] = [lab[h] for h in hexes]
            case Attack(target, attackers):
                out |= {"target": lab[target], "attackers": list(attackers)}
            case Card(card):
                out["card"] = card
            case Push(push):
                out["push"] = push
            case Retreat(unit, to):
                out |= {"unit": unit, "to": lab[to]}
            case Advance(unit, to):
                out |= {"unit": unit, "to": None if unit is None else lab[to]}
            case Convene(convene):
                out["convene"] = convene
        return out

    @property
    def json_types(self) -> frozenset[str]:
        """The ``type``s an action object of this game can have."""
        return frozenset(_JSON_FIELDS)

    def from_json(self, raw: Mapping[str, Any]) -> WargameAction:
        try:
            return self._from_json(raw)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise IllegalAction(
                "bad-action", f"malformed action object: {error}", action=dict(raw)
            ) from None

    def _from_json(self, raw: Mapping[str, Any]) -> WargameAction:
        kind = raw["type"]
        fields = _JSON_FIELDS.get(kind)
        if fields is None:
            raise ValueError(f"unknown type {kind!r}; one of {sorted(_JSON_FIELDS)}")
        optional = {"aetius"} if kind == "note" else set()
        if not set(fields) <= set(raw) <= {"type", *fields, *optional}:
            raise ValueError(f"{kind!r} takes the fields {['type', *fields, *optional]}")
        match kind:
            case "note":
                aetius = raw.get("aetius")
                if aetius is not None and (not isinstance(aetius, int) or isinstance(aetius, bool)):
                    raise TypeError("aetius is a round number")
                return Note(self.unit(expect_json(raw["unit"], str)), aetius)
            case "move":
                return Move(
                    self.unit(expect_json(raw["unit"], str)),
                    tuple(self.hex(expect_json(h, str)) for h in expect_json(raw["path"], list)),
                )
            case "raze":
                return Raze(
                    tuple(
                        sorted(
                            {self.hex(expect_json(h, str)) for h in expect_json(raw["hexes"], list)}
                        )
                    )
                )
            case "attack":
                return Attack(
                    self.hex(expect_json(raw["target"], str)),
                    self.units([expect_json(u, str) for u in expect_json(raw["attackers"], list)]),
                )
            case "card":
                return Card(expect_json(raw["card"], str).lower())
            case "push":
                return Push(expect_json(raw["push"], bool))
            case "retreat":
                return Retreat(
                    self.unit(expect_json(raw["unit"], str)), self.hex(expect_json(raw["to"], str))
                )
            case "advance":
                if raw["unit"] is None:
                    if raw["to"] is not None:
                        raise ValueError("'stay' has no hex")
                    return Advance(None)
                return Advance(
                    self.unit(expect_json(raw["unit"], str)), self.hex(expect_json(raw["to"], str))
                )
            case "convene":
                return Convene(expect_json(raw["convene"], bool))
        return _SIMPLE[kind]


_SIMPLE: dict[str, WargameAction] = {"end": End(), "resolve": Resolve()}
_JSON_FIELDS: dict[str, tuple[str, ...]] = {
    "note": ("unit",),
    "move": ("unit", "path"),
    "raze": ("hexes",),
    "attack": ("target", "attackers"),
    "card": ("card",),
    "push": ("push",),
    "retreat": ("unit", "to"),
    "advance": ("unit", "to"),
    "convene": ("convene",),
    **{kind: () for kind in _SIMPLE},
}
