"""Attika's actions and their notation.

Notation (case-insensitive, one action per line; hexes are axial ``q,r`` as printed on the
board picture, buildings by id, cards by resource letter W F H M):

================================  ==========================================================
``reveal 2``                      turn up the top building of the own stack 2 (1 = main stack)
``build temple at 2,-1 pay WWH``  build a building at a hex and pay exactly these cards
``build temple at 2,-1 pay auto`` ... and let the engine pick a cheapest valid payment
``build ship1 at 0,1 pay -``      ... paying nothing (free by the arrow, or fully reduced)
``store``                         put the building just revealed on the storage board
``tile at 3,-4 rot 2``            place the drawn map tile centred at a hex, turned 2 steps
``amphora``                       spend an amphora (one more action, or more cards)
``draw``                          turn the remaining actions into cards; the turn goes on
``end``                           end the turn (one card per unused action)
================================  ==========================================================

``build`` also reads ``(2,-1)`` and leaving out ``at``; without a ``pay`` part it pays
``auto``. Actions hold buildings and resources as indices into the board; a payment is a
sorted tuple of resource indices, or ``None`` for ``pay auto``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.attika.board import Board, Hex
from engine.core import IllegalAction, expect_json, unreadable

#: What a line that reads as no action is told to look like (any notation of the game works).
NOTATION_EXAMPLES = (
    "reveal 2",
    "build temple at 2,-1 pay WWH",
    "build temple at 2,-1 pay auto",
    "store",
    "tile at 3,-4 rot 2",
    "amphora",
    "draw",
    "end",
)


@dataclass(frozen=True, slots=True)
class Reveal:
    kind: ClassVar[str] = "reveal"
    stack: int  # 0-based; written 1-based


@dataclass(frozen=True, slots=True)
class Build:
    kind: ClassVar[str] = "build"
    building: int
    hex: Hex
    pay: tuple[int, ...] | None = None  # None: the engine picks a cheapest payment


@dataclass(frozen=True, slots=True)
class Store:
    kind: ClassVar[str] = "store"


@dataclass(frozen=True, slots=True)
class PlaceTile:
    kind: ClassVar[str] = "tile"
    hex: Hex
    rotation: int


@dataclass(frozen=True, slots=True)
class SpendAmphora:
    kind: ClassVar[str] = "amphora"


@dataclass(frozen=True, slots=True)
class DrawCards:
    kind: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class EndTurn:
    kind: ClassVar[str] = "end"


AttikaAction = Reveal | Build | Store | PlaceTile | SpendAmphora | DrawCards | EndTurn

_BARE: dict[str, AttikaAction] = {
    "store": Store(),
    "amphora": SpendAmphora(),
    "draw": DrawCards(),
    "end": EndTurn(),
}
_HEX = r"\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?"
_REVEAL = re.compile(r"^reveal\s+(\d+)$")
_BUILD = re.compile(rf"^build\s+([a-z0-9_]+)\s+(?:at\s+)?{_HEX}(?:\s+pay\s+(\S+))?$")
_TILE = re.compile(rf"^tile\s+(?:at\s+)?{_HEX}\s+rot(?:ation)?\s*(\d+)$")
_NOTHING = ("-", "none", "nothing")


def format_hex(hex_: Hex) -> str:
    return f"{hex_[0]},{hex_[1]}"


class Notation:
    """Reads and writes actions for one board."""

    def __init__(self, board: Board) -> None:
        self.board = board

    # -- writing --------------------------------------------------------------------------------

    def letters(self, cards: tuple[int, ...]) -> str:
        return "".join(self.board.resources[c].letter for c in cards)

    def format(self, action: AttikaAction) -> str:
        match action:
            case Reveal(stack):
                return f"reveal {stack + 1}"
            case Build(building, where, pay):
                paid = "auto" if pay is None else (self.letters(pay) or "-")
                name = self.board.buildings[building].id
                return f"build {name} at {format_hex(where)} pay {paid}"
            case PlaceTile(where, rotation):
                return f"tile at {format_hex(where)} rot {rotation}"
        return next(text for text, bare in _BARE.items() if bare == action)

    # -- reading --------------------------------------------------------------------------------

    def parse(self, text: str) -> AttikaAction:
        line = " ".join(text.strip().lower().split())
        if line in _BARE:
            return _BARE[line]
        if match := _REVEAL.match(line):
            return Reveal(self._stack(int(match.group(1)), text))
        if match := _BUILD.match(line):
            building, q, r, pay = match.groups()
            return Build(
                self._building(building, text), (int(q), int(r)), self._pay(pay or "auto", text)
            )
        if match := _TILE.match(line):
            q, r, rotation = match.groups()
            return PlaceTile((int(q), int(r)), int(rotation))
        raise unreadable(text, NOTATION_EXAMPLES)

    def _stack(self, number: int, text: str) -> int:
        if number < 1:
            raise IllegalAction(
                "bad-notation", f"stacks are numbered from 1 in {text.strip()!r}", stack=number
            )
        return number - 1

    def _building(self, key: str, text: str) -> int:
        try:
            return self.board.building(key).index
        except KeyError:
            raise IllegalAction(
                "unknown-building", f"no building {key!r} in {text.strip()!r}", building=key
            ) from None

    def _pay(self, token: str, text: str) -> tuple[int, ...] | None:
        if token == "auto":
            return None
        if token in _NOTHING:
            return ()
        return tuple(sorted(self._resource(letter, text) for letter in token.replace(",", "")))

    def _resource(self, key: str, text: str) -> int:
        try:
            return self.board.resource(key).index
        except KeyError:
            raise IllegalAction(
                "unknown-resource", f"no resource {key!r} in {text.strip()!r}", resource=key
            ) from None

    # -- JSON objects ---------------------------------------------------------------------------

    def to_json(self, action: AttikaAction) -> dict[str, Any]:
        out: dict[str, Any] = {"type": action.kind}
        match action:
            case Reveal(stack):
                out["stack"] = stack + 1
            case Build(building, where, pay):
                out["building"] = self.board.buildings[building].id
                out["hex"] = list(where)
                out["pay"] = "auto" if pay is None else [self.board.resources[c].id for c in pay]
            case PlaceTile(where, rotation):
                out["hex"] = list(where)
                out["rotation"] = rotation
        return out

    @property
    def json_types(self) -> frozenset[str]:
        """The ``type``s an action object of this game can have."""
        return frozenset(_JSON_FIELDS)

    def from_json(self, raw: Mapping[str, Any]) -> AttikaAction:
        try:
            return self._from_json(raw)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise IllegalAction(
                "bad-action", f"malformed action object: {error}", action=dict(raw)
            ) from None
        except IllegalAction as error:
            raise IllegalAction(
                "bad-action", f"malformed action object: {error.message}", action=dict(raw)
            ) from None

    def _from_json(self, raw: Mapping[str, Any]) -> AttikaAction:
        kind = raw["type"]
        fields = _JSON_FIELDS.get(kind) if isinstance(kind, str) else None
        if fields is None:
            raise ValueError(f"unknown type {kind!r}; one of {sorted(_JSON_FIELDS)}")
        if set(raw) != {"type", *fields}:
            raise ValueError(f"{kind!r} takes exactly the fields {['type', *fields]}")
        match kind:
            case "reveal":
                return Reveal(self._stack(expect_json(raw["stack"], int), str(raw["stack"])))
            case "build":
                building = self._building(expect_json(raw["building"], str), str(raw["building"]))
                pay = raw["pay"]
                if pay == "auto":
                    cards = None
                else:
                    names = [expect_json(card, str) for card in expect_json(pay, list)]
                    cards = tuple(sorted(self._resource(name, str(pay)) for name in names))
                return Build(building, _json_hex(raw["hex"]), cards)
            case "tile":
                return PlaceTile(_json_hex(raw["hex"]), expect_json(raw["rotation"], int))
        return _BARE[kind]


_JSON_FIELDS: dict[str, tuple[str, ...]] = {
    "reveal": ("stack",),
    "build": ("building", "hex", "pay"),
    "tile": ("hex", "rotation"),
    **{action.kind: () for action in _BARE.values()},
}


def _json_hex(value: Any) -> Hex:
    items = expect_json(value, list)
    if len(items) != 2:
        raise ValueError("a hex is a list [q, r]")
    return (expect_json(items[0], int), expect_json(items[1], int))
