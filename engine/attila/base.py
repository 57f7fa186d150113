"""What Attila's rule modules share: the actions read from the board once, names of
peoples, events.

``RulesBase`` is the root of the mixins that ``rules.py`` composes into the one ``Rules``:
``cards.py`` (a card, its stones and the influence it brings, §2), ``conflicts.py``
(conflicts and pacification), ``tiles.py`` (action tiles, §5, and the draw pile) and
``turns.py`` (the end of a card, a turn and the game, §6, §8; scoring, §4; resigning). A
mixin calls the others' methods through ``self`` (a card's stones start conflicts, a
conflict ends the card), so only the composed ``Rules`` is ever made.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from engine.attila.actions import AttilaAction, Boost, Play, Waive
from engine.attila.board import Board
from engine.attila.state import AttilaState, Conflict
from engine.core import Event


class RulesBase:
    """What the rule mixins share, on one board: the actions built once. Stateless."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._plays = [
            [Play(p, q) for q in range(len(board.provinces))] for p in range(len(board.peoples))
        ]
        self._waives = [Waive(q) for q in range(len(board.provinces))]
        self._boosts = [Boost((p,)) for p in range(len(board.peoples))] + [
            Boost(pair) for pair in combinations(range(len(board.peoples)), 2)
        ]

    # -- small helpers ---------------------------------------------------------------------------

    def _people_id(self, people: int) -> str:
        return self.board.peoples[people].id

    def _people_ids(self, cards: tuple[int, ...] | list[int]) -> list[str]:
        return [self.board.peoples[c].id for c in cards]

    @staticmethod
    def _event(kind: str, **data: Any) -> Event:
        return Event(kind, data)

    # -- what the mixins call on one another ----------------------------------------------------

    if TYPE_CHECKING:
        # Defined by the sibling mixins or the composed ``Rules``; declared here so that the
        # type checker knows them in every mixin (and checks that the definitions agree).
        def _draw(self, state: AttilaState, seat: int, count: int, events: list[Event]) -> None: ...
        def _drawable(self, state: AttilaState) -> int: ...
        def _pass_resigned(
            self, state: AttilaState, conflict: Conflict, seat: int, events: list[Event]
        ) -> None: ...
        def _after_placements(self, state: AttilaState, events: list[Event]) -> None: ...
        def _skip_if_handless(self, state: AttilaState, events: list[Event]) -> None: ...
        def _raise_influence(
            self, state: AttilaState, seat: int, people: int, steps: int, events: list[Event]
        ) -> None: ...
        def _end_turn(self, state: AttilaState, events: list[Event]) -> None: ...
        def _card_done(self, state: AttilaState, events: list[Event]) -> None: ...
        def current_century(self, state: AttilaState) -> int: ...
        def _score(
            self, state: AttilaState, kind: str, events: list[Event], **extra: Any
        ) -> None: ...
        def _finish_game(self, state: AttilaState, events: list[Event], score: bool) -> None: ...
        def placement_mask(self, state: AttilaState, people: int) -> int: ...
        def _card_actions(self, state: AttilaState) -> list[AttilaAction]: ...
        def _start_conflict(
            self, state: AttilaState, province: int, events: list[Event]
        ) -> None: ...
