"""The end of a card, a turn and the game; scoring; resigning (docs/rules/attila.md, "The
end of the game", "Scoring", "Resigning").

After a card the turn goes on with the next card, waits at ``finish`` for an action tile or
ends with the refill. The game ends after the turn in which an end condition arose (§6; §8's
exception is why the supply is checked once the card's conflicts are over), with a final
scoring, or at once by ``LAST_TILE_FINAL_SCORING``. Each people scores by rulebook §4, cases
(a) to (e), and the 2-player gap (``TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE``).
"""

from __future__ import annotations

from typing import Any

from engine.attila.actions import EndTurn
from engine.attila.base import RulesBase
from engine.attila.state import FINISH, INFLUENCE, OVER, PLAY_CARD, AttilaState
from engine.core import Event, next_seat, rank_with_resigned, start_rejoin, start_resign


class Turns(RulesBase):
    """Finishing cards, turns and the game, scoring, and resigning."""

    def _end(self, state: AttilaState, seat: int, _: EndTurn, events: list[Event]) -> None:
        self._end_turn(state, events)

    def _card_done(self, state: AttilaState, events: list[Event]) -> None:
        # §6 "sobald": checked once the card's stones are set and its conflicts resolved
        # (short rules: "nach Befriedung"), so that only §8's case — the last stone set as a
        # 5th stone and sent back by its own conflict — escapes; a later card of the same
        # turn that sends stones back does not undo the end.
        if 0 in state.supply and "supply_empty" not in state.end_reasons:
            state.end_reasons.append("supply_empty")
        state.cards_left -= 1
        state.people = -1
        if state.active in state.resigned:
            self._end_turn(state, events)  # its card is over: the rest of its turn is skipped
        elif state.cards_left > 0:
            state.step = PLAY_CARD
            self._skip_if_handless(state, events)
        elif state.conflict_this_card and self._tile_usable(state):
            state.step = FINISH
        else:
            self._end_turn(state, events)

    def _skip_if_handless(self, state: AttilaState, events: list[Event]) -> None:
        """With no card to play the turn is over, but §5 lets the player use an action tile
        "jederzeit in seinem Zug": if one is usable without a card, wait for it or ``end``."""
        if not state.hands[state.active]:
            state.cards_left = 0
            if self._cardless_tile_usable(state):
                state.step = FINISH
            else:
                self._end_turn(state, events)

    def _tile_usable(self, state: AttilaState) -> bool:
        return not state.tile_used and bool(state.action_tiles[state.active])

    def _cardless_tile_usable(self, state: AttilaState) -> bool:
        """Two influence needs no card; double turn needs one to play, swap one to give."""
        return not state.tile_used and "two_influence" in state.action_tiles[state.active]

    def _end_turn(self, state: AttilaState, events: list[Event]) -> None:
        if state.active not in state.resigned:  # a resigned seat's hand is out of play
            self._draw(
                state, state.active, self.board.hand_size - len(state.hands[state.active]), events
            )
        events.append(self._event("turn_ended", seat=state.active, turn=state.turn))
        playing = [h for s, h in enumerate(state.hands) if s not in state.resigned]
        if not any(playing) and not self._drawable(state):
            state.end_reasons.append("no_cards_left")  # nobody can ever play again
        if state.end_reasons:
            self._finish_game(state, events, score=True)
            return
        state.turn += 1
        self._start_turn(state, next_seat(state.active, state.players, state.resigned), events)

    def _start_turn(self, state: AttilaState, seat: int, events: list[Event]) -> None:
        state.active = seat
        state.step = PLAY_CARD
        state.cards_left = self.board.two_player_cards_per_turn if state.players == 2 else 1
        state.tile_used = False
        state.conflict_this_card = False
        events.append(self._event("turn_started", seat=seat, turn=state.turn))
        self._skip_if_handless(state, events)

    def _finish_game(self, state: AttilaState, events: list[Event], score: bool) -> None:
        if score:
            self._score(state, "final", events)
        top = max(state.scores)
        winners = [seat for seat, points in enumerate(state.scores) if points == top]
        state.step = OVER
        state.conflict = None
        result = {
            "scores": list(state.scores),
            "winners": winners,
            "reasons": list(dict.fromkeys(state.end_reasons)),
        }
        state.result = rank_with_resigned(result, state.resigned, state.players)
        events.append(self._event("game_ended", **state.result, seed=state.seed))

    # -- scoring ---------------------------------------------------------------------------------

    def _score(self, state: AttilaState, kind: str, events: list[Event], **extra: Any) -> None:
        lines = []
        for people in range(len(self.board.peoples)):
            awards = self.score_people(state, people)
            for seat, points in awards.items():
                state.scores[seat] += points
            lines.append(
                {
                    "people": self._people_id(people),
                    "points": {str(s): p for s, p in sorted(awards.items())},
                }
            )
        events.append(
            self._event("scored", scoring=kind, peoples=lines, scores=list(state.scores), **extra)
        )

    def score_people(self, state: AttilaState, people: int) -> dict[int, int]:
        """Points per seat for one people, rulebook §4 cases (a) to (e) and the 2-player gap."""
        stones = sum(row[people] for row in state.stones)
        provinces = sum(1 for row in state.stones if row[people])
        fields = [track[people] for track in state.influence]
        gap = state.options["TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE"]
        return awards(fields, stones, provinces, gap)

    # -- leaving and coming back (docs/rules/attila.md, "Resigning") -----------------------------

    def resign(self, state: AttilaState, seat: int, forfeit: bool) -> list[Event]:
        events: list[Event] = []
        if start_resign(state.step == OVER, state.players, state.resigned, seat, forfeit, events):
            state.end_reasons.append("resigned")
            self._finish_game(state, events, score=False)
            return events
        conflict = state.conflict
        if conflict is not None and seat in conflict.waiting_for():
            self._pass_resigned(state, conflict, seat, events)
        if seat == state.active:
            self._leave_turn(state, events)
        return events

    def _leave_turn(self, state: AttilaState, events: list[Event]) -> None:
        """The active seat resigned: a card half played ends without influence, conflicts the
        card started are still fought, and the turn then passes on."""
        if state.step == INFLUENCE:
            events.append(self._event("influence_waived", seat=state.active))
            self._after_placements(state, events)
        elif state.step in (PLAY_CARD, FINISH):
            self._end_turn(state, events)

    def rejoin(self, state: AttilaState, seat: int) -> list[Event]:
        events: list[Event] = []
        start_rejoin(state.step == OVER, state.resigned, seat, events)
        return events


def awards(fields: list[int], stones: int, provinces: int, gap: int) -> dict[int, int]:
    """Points per seat for one people from the seats' track fields and the people's stones
    and provinces on the board: rulebook §4 cases (a) to (e), and with two players the gap
    (``TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE``) that voids the second place."""
    on = {seat: f for seat, f in enumerate(fields) if f}
    if not on:
        return {}
    ranked = sorted(set(on.values()), reverse=True)
    first = [seat for seat, f in on.items() if f == ranked[0]]
    if len(on) == 1:
        return {first[0]: stones + provinces}  # (e)
    if len(first) > 1:
        share = -(-(stones + provinces) // len(first))  # (c): no second place
        return dict.fromkeys(first, share)
    out = {first[0]: stones}  # (a)
    second = [seat for seat, f in on.items() if f == ranked[1]]
    if len(fields) == 2 and ranked[0] - ranked[1] >= gap:
        return out
    share = -(-provinces // len(second))  # (b), (d)
    out.update(dict.fromkeys(second, share))
    return out
