"""Attila's actions and their notation.

Notation (case-insensitive, one action per line; people by letter, provinces by id):

=================  ===========================================================================
``V ITA``          play a Vandals card and set a Vandals stone into ITA
``inf``            take the influence for the stone just set
``waive ROM``      waive the influence; set a second stone of that people into ROM
``waive``          waive the influence and set no second stone
``commit VVH``     lay these cards face down in the current conflict (sealed)
``pass``           lay no card in the current conflict (sealed)
``double``         tile double turn (Doppelzug): one more card this turn
``swap VF``        tile swap (Tausch): these hand cards for as many from the pile
``boost V``        tile two influence (2 Einfluss): +2 on one people (``boost V H``: +1 on two)
``discard V``      no card can be played: discard one, the turn ends
``end``            end the turn without a tile (after a conflict, or with an empty hand)
``resolve``        reveal and resolve the conflict (the server does this, never a player)
=================  ===========================================================================

Actions hold people and provinces as indices into the board; cards are sorted tuples.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.attila.board import Board
from engine.core import IllegalAction, expect_json, unreadable

#: What a line that reads as no action is told to look like (any notation of the game works).
NOTATION_EXAMPLES = (
    "V ITA",
    "inf",
    "waive ROM",
    "waive",
    "commit VVH",
    "pass",
    "double",
    "swap VF",
    "boost V",
    "discard V",
    "end",
)


@dataclass(frozen=True, slots=True)
class Play:
    kind: ClassVar[str] = "play"
    people: int
    province: int


@dataclass(frozen=True, slots=True)
class TakeInfluence:
    kind: ClassVar[str] = "influence"


@dataclass(frozen=True, slots=True)
class Waive:
    kind: ClassVar[str] = "waive"
    province: int | None = None  # None: no second stone (rulebook §2, "darf")


@dataclass(frozen=True, slots=True)
class Commit:
    kind: ClassVar[str] = "commit"
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DoubleTurn:
    kind: ClassVar[str] = "double"


@dataclass(frozen=True, slots=True)
class Swap:
    kind: ClassVar[str] = "swap"
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Boost:
    kind: ClassVar[str] = "boost"
    peoples: tuple[int, ...]  # one people (+2) or two different peoples (+1 each)


@dataclass(frozen=True, slots=True)
class Discard:
    kind: ClassVar[str] = "discard"
    people: int


@dataclass(frozen=True, slots=True)
class EndTurn:
    kind: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Resolve:
    kind: ClassVar[str] = "resolve"


AttilaAction = (
    Play | TakeInfluence | Waive | Commit | DoubleTurn | Swap | Boost | Discard | EndTurn | Resolve
)

_BARE: dict[str, AttilaAction] = {
    "inf": TakeInfluence(),
    "double": DoubleTurn(),
    "end": EndTurn(),
    "resolve": Resolve(),
}
_BARE["pass"] = Commit(())
_BARE["waive"] = Waive()
_WORD = re.compile(r"^(waive|commit|swap|boost|discard)\s+(.+)$")
_PLAY = re.compile(r"^(?:play\s+)?([a-z])\s*[\s@-]\s*([a-z]+)$")


class Notation:
    """Reads and writes actions for one board."""

    def __init__(self, board: Board) -> None:
        self.board = board

    # -- writing --------------------------------------------------------------------------------

    def letters(self, cards: tuple[int, ...]) -> str:
        return "".join(self.board.peoples[c].letter for c in cards)

    def format(self, action: AttilaAction) -> str:
        province = self.board.provinces
        match action:
            case Play(people, where):
                return f"{self.board.peoples[people].letter} {province[where].id}"
            case Waive(where) if where is not None:
                return f"waive {province[where].id}"
            case Commit(cards):
                return f"commit {self.letters(cards)}" if cards else "pass"
            case Swap(cards):
                return f"swap {self.letters(cards)}"
            case Boost(peoples):
                return "boost " + " ".join(self.board.peoples[p].letter for p in peoples)
            case Discard(people):
                return f"discard {self.board.peoples[people].letter}"
        return next(text for text, bare in _BARE.items() if bare == action)

    # -- reading --------------------------------------------------------------------------------

    def parse(self, text: str) -> AttilaAction:
        line = " ".join(text.strip().lower().split())
        if line in _BARE:
            return _BARE[line]
        if line == "commit -":
            return Commit(())
        word = _WORD.match(line)
        if word:
            return self._parse_word(word.group(1), word.group(2), text)
        play = _PLAY.match(line)
        if play:
            return Play(self._people(play.group(1), text), self._province(play.group(2), text))
        raise unreadable(text, NOTATION_EXAMPLES)

    def _parse_word(self, word: str, rest: str, text: str) -> AttilaAction:
        if word == "waive":
            return Waive(self._province(rest, text))
        if word == "discard":
            return Discard(self._people(rest, text))
        if word == "boost":
            return Boost(tuple(self._people(p, text) for p in rest.split()))
        cards = self._cards(rest.replace(" ", "").replace(",", ""), text)
        return Commit(cards) if word == "commit" else Swap(cards)

    def _people(self, key: str, text: str) -> int:
        try:
            return self.board.people(key).index
        except KeyError:
            raise IllegalAction(
                "unknown-people", f"no people {key!r} in {text.strip()!r}", people=key
            ) from None

    def _province(self, key: str, text: str) -> int:
        try:
            return self.board.province(key).index
        except KeyError:
            raise IllegalAction(
                "unknown-province",
                f"no province {key.upper()!r} in {text.strip()!r}",
                province=key.upper(),
            ) from None

    def _cards(self, letters: str, text: str) -> tuple[int, ...]:
        return tuple(sorted(self._people(letter, text) for letter in letters))

    # -- JSON objects ---------------------------------------------------------------------------

    def to_json(self, action: AttilaAction) -> dict[str, Any]:
        out: dict[str, Any] = {"type": action.kind}
        ids = [p.id for p in self.board.peoples]
        match action:
            case Play(people, where):
                out |= {"people": ids[people], "province": self.board.provinces[where].id}
            case Waive(where) if where is not None:
                out["province"] = self.board.provinces[where].id
            case Commit(cards) | Swap(cards):
                out["cards"] = [ids[c] for c in cards]
            case Boost(peoples):
                out["peoples"] = [ids[p] for p in peoples]
            case Discard(people):
                out["people"] = ids[people]
        return out

    @property
    def json_types(self) -> frozenset[str]:
        """The ``type``s an action object of this game can have."""
        return frozenset(_JSON_FIELDS)

    def from_json(self, raw: Mapping[str, Any]) -> AttilaAction:
        try:
            return self._from_json(raw)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise IllegalAction(
                "bad-action", f"malformed action object: {error}", action=dict(raw)
            ) from None

    def _from_json(self, raw: Mapping[str, Any]) -> AttilaAction:
        kind = raw["type"]
        fields = _JSON_FIELDS.get(kind)
        if fields is None:
            raise ValueError(f"unknown type {kind!r}; one of {sorted(_JSON_FIELDS)}")
        optional = _OPTIONAL_JSON_FIELDS.get(kind, ())
        if not {"type", *fields} - set(optional) <= set(raw) <= {"type", *fields}:
            leave_out = f" ({', '.join(optional)} may be left out)" if optional else ""
            raise ValueError(f"{kind!r} takes exactly the fields {['type', *fields]}{leave_out}")
        match kind:
            case "play":
                return Play(self._json_people(raw["people"]), self._json_province(raw["province"]))
            case "waive" if "province" in raw:
                return Waive(self._json_province(raw["province"]))
            case "commit":
                return Commit(self._json_cards(raw["cards"]))
            case "swap":
                return Swap(self._json_cards(raw["cards"]))
            case "boost":
                return Boost(tuple(self._json_people(p) for p in expect_json(raw["peoples"], list)))
            case "discard":
                return Discard(self._json_people(raw["people"]))
        return _SIMPLE[kind]

    def _json_people(self, value: Any) -> int:
        return self._people(expect_json(value, str), str(value))

    def _json_province(self, value: Any) -> int:
        return self._province(expect_json(value, str), str(value))

    def _json_cards(self, value: Any) -> tuple[int, ...]:
        return tuple(sorted(self._json_people(card) for card in expect_json(value, list)))


#: Fields an action object may leave out (then it is the ``_SIMPLE`` action of its type).
_OPTIONAL_JSON_FIELDS: dict[str, tuple[str, ...]] = {"waive": ("province",)}
_SIMPLE: dict[str, AttilaAction] = {
    "influence": TakeInfluence(),
    "double": DoubleTurn(),
    "end": EndTurn(),
    "resolve": Resolve(),
    "waive": Waive(),  # without "province": no second stone
}
_JSON_FIELDS: dict[str, tuple[str, ...]] = {
    "play": ("people", "province"),
    "waive": ("province",),
    "commit": ("cards",),
    "swap": ("cards",),
    "boost": ("peoples",),
    "discard": ("people",),
    **{kind: () for kind in _SIMPLE if kind not in _OPTIONAL_JSON_FIELDS},
}
