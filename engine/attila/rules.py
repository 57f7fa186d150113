"""Attila's rules: setup, legal actions, applying actions, conflicts and scoring.

Every action handler validates completely before it changes anything, so an illegal
action leaves the state as it was. Rule decisions beyond the rulebook are options (the
``rule_options`` of engine/attila/data/board.json, read in ``engine.attila.game``) and are
written down in docs/rules/attila.md.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from engine.attila.actions import (
    AttilaAction,
    Boost,
    Commit,
    Discard,
    DoubleTurn,
    EndTurn,
    Play,
    Resolve,
    Swap,
    TakeInfluence,
    Waive,
)
from engine.attila.board import Board
from engine.attila.state import CONFLICT, FINISH, INFLUENCE, OVER, PLAY_CARD, AttilaState, Conflict
from engine.core import (
    SYSTEM,
    Decision,
    Event,
    IllegalAction,
    check_turn,
    dispatch,
    next_seat,
    rank_with_resigned,
    seeded_rng,
    start_rejoin,
    start_resign,
)
from engine.sentences import N_

TILE_OF = {DoubleTurn: "double_turn", Swap: "swap", Boost: "two_influence"}
TILE_STEPS = (PLAY_CARD, INFLUENCE, FINISH)


class Rules:
    """The rules of Attila on one board. Stateless; every method takes the state."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._plays = [
            [Play(p, q) for q in range(len(board.provinces))] for p in range(len(board.peoples))
        ]
        self._waives = [Waive(q) for q in range(len(board.provinces))]
        self._boosts = [Boost((p,)) for p in range(len(board.peoples))] + [
            Boost(pair) for pair in combinations(range(len(board.peoples)), 2)
        ]

    # == setup ================================================================================

    def new_state(self, players: int, seed: str, options: dict[str, Any]) -> AttilaState:
        b = self.board
        deck = [p.index for p in b.peoples for _ in range(b.cards_per_people)]
        seeded_rng(seed, "deal").shuffle(deck)
        hands = [sorted(deck.pop() for _ in range(b.hand_size)) for _ in range(players)]
        if options["START_PLAYER"] == "random_from_game_seed":
            start = seeded_rng(seed, "start").randrange(players)
        else:
            start = 0  # the host arranged the seats so that the first seat begins
        state = AttilaState(
            seed=seed,
            options=dict(options),
            players=players,
            start_seat=start,
            hands=hands,
            deck=deck,
            discard=[],
            stones=[[0] * len(b.peoples) for _ in b.provinces],
            pacified=[0] * len(b.provinces),
            supply=[b.stones_per_people] * len(b.peoples),
            tiles_left=list(b.tiles_by_century),
            influence=[[0] * len(b.peoples) for _ in range(players)],
            scores=[0] * players,
            action_tiles=[list(b.action_tiles) for _ in range(players)],
            active=start,
        )
        self._start_turn(state, start, [])
        return state

    # == who acts ===========================================================================

    def pending(self, state: AttilaState) -> list[Decision]:
        if state.step == OVER:
            return []
        if state.step != CONFLICT:
            return [Decision(state.active, "move", state.step)]
        conflict = state.conflict
        assert conflict is not None
        waiting = conflict.waiting_for()
        if not waiting:
            return [Decision(SYSTEM, "resolve", "resolve_conflict", conflict.ref)]
        if state.options["CONFLICT_COMMIT_ORDER"] == "simultaneous":
            return [Decision(seat, "sealed", CONFLICT, conflict.ref) for seat in waiting]
        return [Decision(waiting[0], "sealed", CONFLICT, conflict.ref)]

    def current_century(self, state: AttilaState) -> int:
        """Index of the lowest century field that still holds a tile (the last when all empty)."""
        for index, left in enumerate(state.tiles_left):
            if left:
                return index
        return len(state.tiles_left) - 1

    # == legal actions ========================================================================

    def legal_actions(self, state: AttilaState, seat: int) -> list[AttilaAction]:
        if not any(d.seat == seat for d in self.pending(state)):
            return []
        step = state.step
        if step == CONFLICT:
            if seat == SYSTEM:
                return [Resolve()]
            assert state.conflict is not None
            eligible = [c for c in state.hands[seat] if c in state.conflict.present]
            return [Commit(cards) for cards in _sub_multisets(eligible, len(eligible))]
        actions: list[AttilaAction] = []
        if step == PLAY_CARD:
            actions = self._card_actions(state)
        elif step == INFLUENCE:
            actions = [TakeInfluence(), Waive()]  # `inf` first: the deadline default
            if state.supply[state.people]:
                masks = self.placement_mask(state, state.people)
                actions += [self._waives[q] for q in _bits(masks)]
        elif step == FINISH:
            actions = [EndTurn()]
        return actions + self._tile_actions(state)

    def _card_actions(self, state: AttilaState) -> list[AttilaAction]:
        hand = state.hands[state.active]
        plays: list[AttilaAction] = []
        present, closed = self._occupation(state)
        for people in sorted(set(hand)):
            if state.supply[people]:
                row = self._plays[people]
                plays += [row[q] for q in _bits(self._reachable(present[people]) & ~closed)]
        return plays or [Discard(people) for people in sorted(set(hand))]

    def _tile_actions(self, state: AttilaState) -> list[AttilaAction]:
        if state.tile_used:
            return []
        tiles = state.action_tiles[state.active]
        out: list[AttilaAction] = []
        if "double_turn" in tiles:
            out.append(DoubleTurn())
        if "swap" in tiles:
            hand = state.hands[state.active]
            out += [Swap(c) for c in _sub_multisets(hand, self._drawable(state)) if c]
        if "two_influence" in tiles:
            out += self._boosts
        return out

    def placement_mask(self, state: AttilaState, people: int) -> int:
        """Provinces where a stone of ``people`` may go now, as a bit mask."""
        present, closed = self._occupation(state)
        return self._reachable(present[people]) & ~closed

    def _occupation(self, state: AttilaState) -> tuple[list[int], int]:
        """Per people the provinces holding it, and the provinces no stone may enter."""
        b = self.board
        present = [0] * len(b.peoples)
        full = closed = 0
        for q, row in enumerate(state.stones):
            count = sum(row)
            if count:
                bit = 1 << q
                for people, stones in enumerate(row):
                    if stones:
                        present[people] |= bit
                if count >= b.province_capacity:
                    full |= bit
                    if count > b.province_capacity:
                        closed |= bit
        closed |= self._pacified_mask(state)
        if not self._fifth_stone_allowed(state):
            closed |= full
        return present, closed

    def _pacified_mask(self, state: AttilaState) -> int:
        return sum(1 << q for q, century in enumerate(state.pacified) if century)

    def _reachable(self, present: int) -> int:
        return self.board.frontier_mask | present | self.board.neighbours_of(present)

    def _fifth_stone_allowed(self, state: AttilaState) -> bool:
        """A 5th stone needs a pacification tile that no earlier conflict has claimed."""
        claimed = len(state.queued) + (state.conflict is not None)
        return sum(state.tiles_left) - claimed > 0

    def _drawable(self, state: AttilaState) -> int:
        if state.options["DRAW_PILE_EXHAUSTED"] == "reshuffle_discards":
            return len(state.deck) + len(state.discard)
        return len(state.deck)

    # == applying ===============================================================================

    def apply(self, state: AttilaState, seat: int, action: AttilaAction) -> list[Event]:
        check_turn(
            self.pending(state),
            state.step == OVER,
            seat,
            action,
            "only the server resolves a conflict, once every card is laid",
        )
        events: list[Event] = []
        if type(action) in TILE_OF:
            self._apply_tile(state, action, events)
        else:
            dispatch(_HANDLERS, self, state, seat, action, events)
        return events

    # -- leaving and coming back (docs/rules/attila.md, "Resigning") ---------------------------

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
        # In a conflict: _card_done ends the turn once the card's conflicts are over.

    def rejoin(self, state: AttilaState, seat: int) -> list[Event]:
        events: list[Event] = []
        start_rejoin(state.step == OVER, state.resigned, seat, events)
        return events

    def _pass_resigned(
        self, state: AttilaState, conflict: Conflict, seat: int, events: list[Event]
    ) -> None:
        conflict.commits[seat] = ()
        events.append(self._event("conflict_passed_resigned", ref=conflict.ref, seat=seat))

    # -- a card and its stones ---------------------------------------------------------------

    def _play(self, state: AttilaState, seat: int, action: Play, events: list[Event]) -> None:
        hand = state.hands[seat]
        if action.people not in hand:
            raise IllegalAction(
                "card-not-in-hand",
                N_("you hold no card of that people"),
                people=self._people_id(action.people),
            )
        self._check_placement(state, action.people, action.province)
        hand.remove(action.people)
        state.discard.append(action.people)
        state.people = action.people
        state.placed = 0
        state.conflict_this_card = False
        events.append(self._event("card_played", seat=seat, people=self._people_id(action.people)))
        self._place(state, action.province, events)
        state.step = INFLUENCE

    def _check_placement(self, state: AttilaState, people: int, province: int) -> None:
        if not state.supply[people]:
            raise IllegalAction(
                "supply-empty",
                N_("no stone of that people is left in the supply"),
                people=self._people_id(people),
            )
        if not self.placement_mask(state, people) >> province & 1:
            raise IllegalAction(
                "illegal-province",
                self._placement_reason(state, people, province),
                people=self._people_id(people),
                province=self.board.provinces[province].id,
            )

    def _placement_reason(self, state: AttilaState, people: int, province: int) -> str:
        name = self.board.provinces[province].id
        count = sum(state.stones[province])
        if state.pacified[province]:
            return f"{name} is pacified: no stone may enter it"
        if count > self.board.province_capacity:
            return f"{name} already holds a fifth stone: a sixth is never allowed"
        if count == self.board.province_capacity:
            return f"{name} is full and no pacification tile is left for a conflict"
        return (
            f"{name} is not a frontier province and does not hold or border a province "
            f"holding {self._people_id(people)}"
        )

    def _place(self, state: AttilaState, province: int, events: list[Event]) -> None:
        people = state.people
        state.stones[province][people] += 1
        state.supply[people] -= 1
        state.placed += 1
        events.append(
            self._event(
                "stone_placed",
                people=self._people_id(people),
                province=self.board.provinces[province].id,
                seat=state.active,
            )
        )
        if sum(state.stones[province]) > self.board.province_capacity:
            state.queued.append(province)

    def _take_influence(
        self, state: AttilaState, seat: int, _: TakeInfluence, events: list[Event]
    ) -> None:
        steps = self.board.influence_steps[self.current_century(state)]
        self._raise_influence(state, seat, state.people, steps, events)
        self._after_placements(state, events)

    def _waive(self, state: AttilaState, seat: int, action: Waive, events: list[Event]) -> None:
        # §2: after waiving the player *may* set a second stone (``waive ROM``), or none.
        if action.province is not None:
            self._check_placement(state, state.people, action.province)
        events.append(self._event("influence_waived", seat=seat))
        if action.province is not None:
            self._place(state, action.province, events)
        self._after_placements(state, events)

    def _discard(self, state: AttilaState, seat: int, action: Discard, events: list[Event]) -> None:
        if action.people not in state.hands[seat]:
            raise IllegalAction(
                "card-not-in-hand",
                N_("you hold no card of that people"),
                people=self._people_id(action.people),
            )
        if not isinstance(self._card_actions(state)[0], Discard):
            raise IllegalAction("card-playable", N_("you can play a card, so you may not discard"))
        state.hands[seat].remove(action.people)
        state.discard.append(action.people)
        events.append(
            self._event("card_discarded", seat=seat, people=self._people_id(action.people))
        )
        state.cards_left = 1  # no other card is playable either: the turn ends
        state.conflict_this_card = False
        self._card_done(state, events)

    def _end(self, state: AttilaState, seat: int, _: EndTurn, events: list[Event]) -> None:
        self._end_turn(state, events)

    def _raise_influence(
        self, state: AttilaState, seat: int, people: int, steps: int, events: list[Event]
    ) -> None:
        track = state.influence[seat]
        before = track[people]
        if before == 0 and state.options["NEW_COUNTER_ENTRY"] == "entry_consumes_all_steps":
            after = 1
        else:
            after = min(before + steps, self.board.influence_top)
        track[people] = after
        events.append(
            self._event(
                "influence_raised",
                seat=seat,
                people=self._people_id(people),
                field=after,
                steps=after - before,
            )
        )
        if after == self.board.influence_top and "influence_top" not in state.end_reasons:
            state.end_reasons.append("influence_top")

    def _after_placements(self, state: AttilaState, events: list[Event]) -> None:
        if state.queued:
            self._start_conflict(state, state.queued.pop(0), events)
        else:
            self._card_done(state, events)

    # -- conflicts -----------------------------------------------------------------------------

    def _start_conflict(self, state: AttilaState, province: int, events: list[Event]) -> None:
        state.conflicts += 1
        state.conflict_this_card = True
        present = tuple(p for p, n in enumerate(state.stones[province]) if n)
        order = tuple((state.active + i) % state.players for i in range(state.players))
        conflict = Conflict(f"conflict-{state.conflicts}", province, present, order)
        state.conflict = conflict
        state.step = CONFLICT
        events.append(
            self._event(
                "conflict_started",
                ref=conflict.ref,
                province=self.board.provinces[province].id,
                peoples=[self._people_id(p) for p in present],
                order=list(order),
            )
        )
        # A seat whose hand is empty (public knowledge) can only pass; don't make it wait.
        for seat in order:
            if seat in state.resigned:
                self._pass_resigned(state, conflict, seat, events)
            elif not state.hands[seat]:
                conflict.commits[seat] = ()
                events.append(
                    self._event("conflict_passed_empty_hand", ref=conflict.ref, seat=seat)
                )

    def _commit(self, state: AttilaState, seat: int, action: Commit, events: list[Event]) -> None:
        conflict = state.conflict
        assert conflict is not None
        wrong = [c for c in action.cards if c not in conflict.present]
        if wrong:
            raise IllegalAction(
                "people-not-in-conflict",
                N_("cards may only be of peoples present in the province"),
                people=self._people_id(wrong[0]),
            )
        if Counter(action.cards) - Counter(state.hands[seat]):
            raise IllegalAction("card-not-in-hand", N_("you do not hold all of these cards"))
        for card in action.cards:
            state.hands[seat].remove(card)
        conflict.commits[seat] = action.cards
        public = {"ref": conflict.ref, "seat": seat}
        if state.options["CONFLICT_COMMIT_ORDER"] != "simultaneous":
            public["count"] = len(action.cards)
        events.append(self._event("conflict_committed", **public))
        events.append(
            Event(
                "conflict_committed_own",
                {
                    "ref": conflict.ref,
                    "seat": seat,
                    "cards": self._people_ids(action.cards),
                },
                audience=(seat,),
            )
        )

    def _resolve(self, state: AttilaState, seat: int, _: Resolve, events: list[Event]) -> None:
        conflict = state.conflict
        assert conflict is not None
        if conflict.waiting_for():
            raise IllegalAction("conflict-open", N_("not every player has committed yet"))
        stones = state.stones[conflict.province]
        played = Counter(card for cards in conflict.commits.values() for card in cards)
        strength = {p: stones[p] + played[p] for p in conflict.present}
        weakest = min(strength.values())
        leaving = [p for p in conflict.present if strength[p] == weakest]
        for people in leaving:
            state.supply[people] += stones[people]
            stones[people] = 0
        for seat in conflict.order:  # seat order, not arrival order: replays must not vary
            state.discard.extend(conflict.commits[seat])
        events.append(
            self._event(
                "conflict_resolved",
                ref=conflict.ref,
                province=self.board.provinces[conflict.province].id,
                cards={str(s): self._people_ids(c) for s, c in sorted(conflict.commits.items())},
                strength={self._people_id(p): n for p, n in strength.items()},
                removed=self._people_ids(tuple(leaving)),
            )
        )
        state.conflict = None
        self._pacify(state, conflict.province, events)
        if state.step == OVER:
            return
        if state.queued:
            self._start_conflict(state, state.queued.pop(0), events)
        else:
            self._card_done(state, events)

    def _pacify(self, state: AttilaState, province: int, events: list[Event]) -> None:
        century = self.current_century(state)
        state.tiles_left[century] -= 1
        state.pacified[province] = self.board.first_century + century
        events.append(
            self._event(
                "province_pacified",
                province=self.board.provinces[province].id,
                century=self.board.first_century + century,
            )
        )
        if state.tiles_left[century]:
            return
        if any(state.tiles_left):
            self._score(state, "century", events, century=self.board.first_century + century)
            return
        rule = state.options["LAST_TILE_FINAL_SCORING"]
        if rule != "single_scoring_after_turn":
            self._score(state, "century", events, century=self.board.first_century + century)
        state.end_reasons.append("last_tile")
        if rule == "score_at_once_and_end":
            self._finish_game(state, events, score=False)

    # -- the end of a card, a turn and the game -------------------------------------------------

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

    # -- scoring -----------------------------------------------------------------------------

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
        fields = {
            seat: track[people] for seat, track in enumerate(state.influence) if track[people]
        }
        if not fields:
            return {}
        ranked = sorted(set(fields.values()), reverse=True)
        first = [seat for seat, f in fields.items() if f == ranked[0]]
        if len(fields) == 1:
            return {first[0]: stones + provinces}  # (e)
        if len(first) > 1:
            share = -(-(stones + provinces) // len(first))  # (c): no second place
            return dict.fromkeys(first, share)
        awards = {first[0]: stones}  # (a)
        second = [seat for seat, f in fields.items() if f == ranked[1]]
        gap = state.options["TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE"]
        if state.players == 2 and ranked[0] - ranked[1] >= gap:
            return awards
        share = -(-provinces // len(second))  # (b), (d)
        awards.update(dict.fromkeys(second, share))
        return awards

    # -- action tiles ----------------------------------------------------------------------------

    def _apply_tile(self, state: AttilaState, action: AttilaAction, events: list[Event]) -> None:
        tile = TILE_OF[type(action)]
        if state.step not in TILE_STEPS:
            raise IllegalAction(
                "wrong-step",
                N_("action tiles are used in your own turn, never while conflict cards are laid"),
                step=state.step,
            )
        if tile not in state.action_tiles[state.active]:
            raise IllegalAction("tile-used-up", f"your {tile} tile is already used", tile=tile)
        if state.tile_used:
            raise IllegalAction("one-tile-per-turn", N_("at most one action tile per turn"))
        if isinstance(action, Swap):
            self._check_swap(state, action)
        if isinstance(action, Boost):
            self._check_boost(action)
        state.action_tiles[state.active].remove(tile)
        state.tile_used = True
        events.append(self._event("action_tile_used", seat=state.active, tile=tile))
        if isinstance(action, DoubleTurn):
            state.cards_left += self.board.double_turn_extra_cards
            if state.step == FINISH:
                state.step = PLAY_CARD
                self._skip_if_handless(state, events)
        elif isinstance(action, Swap):
            self._swap(state, action, events)
        elif isinstance(action, Boost):
            steps = 2 if len(action.peoples) == 1 else 1
            for people in action.peoples:
                self._raise_influence(state, state.active, people, steps, events)
        if state.step == FINISH:
            self._end_turn(state, events)  # nothing is left to do in this turn

    def _check_swap(self, state: AttilaState, action: Swap) -> None:
        if not action.cards:
            raise IllegalAction("swap-empty", N_("name at least one card to swap"))
        if Counter(action.cards) - Counter(state.hands[state.active]):
            raise IllegalAction("card-not-in-hand", N_("you do not hold all of these cards"))
        if len(action.cards) > self._drawable(state):
            raise IllegalAction(
                "swap-too-many",
                N_("not that many cards are left to draw"),
                available=self._drawable(state),
            )

    def _check_boost(self, action: Boost) -> None:
        if len(action.peoples) not in (1, 2) or len(set(action.peoples)) != len(action.peoples):
            raise IllegalAction(
                "bad-boost", N_("boost one people by 2 or two different peoples by 1")
            )

    def _swap(self, state: AttilaState, action: Swap, events: list[Event]) -> None:
        seat = state.active
        self._draw(state, seat, len(action.cards), events)
        for card in action.cards:
            state.hands[seat].remove(card)
        state.discard.extend(action.cards)
        events.append(self._event("cards_swapped", seat=seat, cards=self._people_ids(action.cards)))

    # -- the draw pile -----------------------------------------------------------------------

    def _draw(self, state: AttilaState, seat: int, count: int, events: list[Event]) -> None:
        drawn: list[int] = []
        for _ in range(max(count, 0)):
            if not state.deck and not self._reshuffle(state, events):
                break
            drawn.append(state.deck.pop())
        if not drawn:
            return
        state.hands[seat].extend(drawn)
        state.hands[seat].sort()
        events.append(self._event("cards_drawn", seat=seat, count=len(drawn)))
        events.append(
            Event(
                "cards_drawn_own",
                {"seat": seat, "cards": self._people_ids(tuple(sorted(drawn)))},
                audience=(seat,),
            )
        )

    def _reshuffle(self, state: AttilaState, events: list[Event]) -> bool:
        if state.options["DRAW_PILE_EXHAUSTED"] != "reshuffle_discards" or not state.discard:
            return False
        state.reshuffles += 1
        state.deck, state.discard = state.discard, []
        seeded_rng(state.seed, "reshuffle", state.reshuffles).shuffle(state.deck)
        events.append(self._event("discards_reshuffled", cards=len(state.deck)))
        return True

    # -- small helpers ------------------------------------------------------------------------

    def _people_id(self, people: int) -> str:
        return self.board.peoples[people].id

    def _people_ids(self, cards: tuple[int, ...] | list[int]) -> list[str]:
        return [self.board.peoples[c].id for c in cards]

    @staticmethod
    def _event(kind: str, **data: Any) -> Event:
        return Event(kind, data)


_HANDLERS: dict[tuple[str, type], Any] = {
    (PLAY_CARD, Play): Rules._play,
    (PLAY_CARD, Discard): Rules._discard,
    (INFLUENCE, TakeInfluence): Rules._take_influence,
    (INFLUENCE, Waive): Rules._waive,
    (CONFLICT, Commit): Rules._commit,
    (CONFLICT, Resolve): Rules._resolve,
    (FINISH, EndTurn): Rules._end,
}


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _sub_multisets(cards: list[int], limit: int) -> list[tuple[int, ...]]:
    """Every distinct sorted sub-multiset of ``cards`` with at most ``limit`` cards."""
    counts = sorted(Counter(cards).items())
    out: list[tuple[int, ...]] = [()]
    for card, available in counts:
        out = [
            prefix + (card,) * k
            for prefix in out
            for k in range(available + 1)
            if len(prefix) + k <= limit
        ]
    return out
