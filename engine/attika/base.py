"""What Attika's rule modules share: the counts read from the board, a building's id,
events, how a hex is written in them, and a site and the quote of a building's cost on it.

``RulesBase`` is the root of the mixins that ``rules.py`` composes into the one ``Rules``:
``costs.py`` (sites, settlements, where a tile fits, what a building costs: read-only),
``building.py`` (revealing, storing and building, placing a map tile), ``amphorae.py``
(amphorae and drawing cards) and ``turns.py`` (the end of a turn and of the game,
resigning). A mixin calls the others' methods through ``self`` (a build ends a turn, a
turn's end draws cards), so only the composed ``Rules`` is ever made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.attika.actions import Build, Reveal
from engine.attika.board import Board, Building, Hex, hex_distance
from engine.core import Event

if TYPE_CHECKING:
    from engine.attika.state import AttikaState


def hex_text(hex_: Hex) -> str:
    return f"{hex_[0]},{hex_[1]}"


@dataclass(frozen=True, slots=True)
class Site:
    """What the cost of building on one empty map hex depends on, for one player."""

    hex: Hex
    area: tuple[int, ...]  # landscape symbols on the hex and its unoccupied neighbours
    area_all: tuple[int, ...]  # ... on the hex and all its neighbours
    joins: bool  # touches an own building (so founds no new settlement)
    adjacent: int  # bit mask of own buildings on neighbouring hexes


@dataclass(frozen=True, slots=True)
class Quote:
    """The cards a building costs on a site: specific symbols, any cards, and why."""

    need: tuple[int, ...]  # per resource, after the landscape reduction
    any: int  # cards of any type: the road's rest plus the settlement surcharge
    free: bool  # free by an arrow (or road next to an own road)
    surcharge: int  # part of ``any``: one per settlement the player already has

    @property
    def cards(self) -> int:
        """How many cards the building asks for here (none when free), jokers aside."""
        return 0 if self.free else sum(self.need) + self.any


class RulesBase:
    """What the rule mixins share, for one data file: counts and the actions read from the
    board once. Stateless."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.kinds = len(board.resources)
        self.stacks = 1 + board.other_stacks
        self.rotations = len(board.directions)
        self.max_actions = max(board.reveal_actions, board.build_actions)
        self._reveals = [Reveal(s) for s in range(self.stacks)]
        near = {(a[0] + b[0], a[1] + b[1]) for a in board.directions for b in board.directions}
        self._ring2 = sorted(d for d in near if hex_distance(d, (0, 0)) == 2)

    # -- small helpers ---------------------------------------------------------------------------

    def _id(self, building: int) -> str:
        return self.board.buildings[building].id

    @staticmethod
    def _event(kind: str, **data: Any) -> Event:
        return Event(kind, data)

    # -- what the mixins call on one another ----------------------------------------------------

    if TYPE_CHECKING:
        # Defined by the sibling mixins or the composed ``Rules``; declared here so that the
        # type checker knows them in every mixin (and checks that the definitions agree).
        def _unused(self, state: AttikaState) -> int: ...
        def _draw(self, state: AttikaState, seat: int, count: int, events: list[Event]) -> None: ...
        def settlements(self, state: AttikaState, seat: int) -> list[set[Hex]]: ...
        def build_actions(
            self, state: AttikaState, seat: int, buildings: Iterable[int]
        ) -> list[Build]: ...
        def _distinct(self, board: list[int]) -> list[int]: ...
        def _reveals_left(self, state: AttikaState) -> int: ...
        def _maybe_end_turn(self, state: AttikaState, events: list[Event]) -> None: ...
        def site(self, state: AttikaState, seat: int, hex_: Hex) -> Site: ...
        def _quote(
            self, state: AttikaState, b: Building, site: Site, settlements: int
        ) -> Quote: ...
        def auto_payment(self, hand: list[int], quote: Quote) -> list[int] | None: ...
        def _quote_json(self, quote: Quote) -> dict[str, Any]: ...
        def check_payment(self, hand: list[int], quote: Quote, pay: list[int]) -> None: ...
        def _award_amphorae(self, state: AttikaState, seat: int, events: list[Event]) -> None: ...
        def _check_win(self, state: AttikaState, seat: int, events: list[Event]) -> bool: ...
        def _builds_left(self, state: AttikaState) -> int: ...
        def _tile_fits(self, state: AttikaState, taken: set[Hex], centre: Hex) -> bool: ...
