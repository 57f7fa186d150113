"""Attila's side of the computer opponents (engine/bots.py, docs/bots.md): the determinizer
that rebuilds a state from one seat's view, the evaluation, the reasonable moves.

Unseen by a seat: the other hands, the order of the draw pile, and the cards the others laid
face down in the current conflict. Every card not in the seat's hand, not on the (public)
discard pile and not among its own conflict cards is one of those; the determinizer deals
them out at random to the other hands (their sizes are public), to the others' conflict
cards (of the peoples present, as many as each laid when the count is public) and to the
pile.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from copy import deepcopy
from dataclasses import replace
from typing import Any

from engine.attila.actions import (
    AttilaAction,
    Boost,
    Commit,
    EndTurn,
    Play,
    Swap,
    TakeInfluence,
    Waive,
)
from engine.attila.game import GAME, AttilaGame
from engine.attila.state import (
    CONFLICT,
    FINISH,
    INFLUENCE,
    OVER,
    PLAY_CARD,
    AttilaState,
    Conflict,
)
from engine.attila.turns import awards
from engine.bots import Level, result_chances, win_chances
from engine.core import Event

#: Points lead that makes a seat e times likelier to win (a typical game ends near 60-90).
SPREAD = 6.0


class Determinizer:
    """The public part of the state, read once from the view; ``sample`` deals the rest."""

    def __init__(
        self, game: AttilaGame, view: Mapping[str, Any], seat: int, options: Mapping[str, Any]
    ) -> None:
        b = game.board
        self.game, self.seat = game, seat
        people = {p.id: p.index for p in b.peoples}
        province = {p.id: p.index for p in b.provinces}
        players = view["players"]
        stones = [[0] * len(b.peoples) for _ in b.provinces]
        pacified = [0] * len(b.provinces)
        for pid, entry in view["provinces"].items():
            for people_id, n in entry["stones"].items():
                stones[province[pid]][people[people_id]] = n
            pacified[province[pid]] = entry["pacified"] or 0
        tiles_left = [view["pacification_tiles"][str(b.first_century + i)] for i in range(4)]
        influence = [[0] * len(b.peoples) for _ in range(players)]
        for people_id, fields in view["influence"].items():
            for s, f in enumerate(fields):
                influence[s][people[people_id]] = f
        self.hand = sorted(people[c] for c in view.get("hand", []))
        discard = [people[c] for c, n in sorted(view["discard_pile"].items()) for _ in range(n)]
        conflict = None
        own_commit: tuple[int, ...] = ()
        self.own_committed = False
        c = view["conflict"]
        if c is not None:
            conflict = Conflict(
                c["ref"],
                province[c["province"]],
                tuple(people[p] for p in c["peoples"]),
                tuple(c["order"]),
            )
            own_commit = tuple(people[p] for p in c.get("own_cards", []))
            self.own_committed = "own_cards" in c
        self.conflict_counts: dict[int, int | None] = {}
        if c is not None:
            for s, n in c["committed"].items():
                self.conflict_counts[int(s)] = None if n is True else int(n)
        step = view["step"]
        supply = [view["supply"][p.id] for p in b.peoples]
        top = b.influence_top
        reasons = []
        if 0 in supply and step in (PLAY_CARD, FINISH, OVER):
            reasons.append("supply_empty")  # set when a card is done, so not mid-card
        if any(f == top for track in influence for f in track):
            reasons.append("influence_top")
        if not any(tiles_left):
            reasons.append("last_tile")
        queued = [
            q
            for q, row in enumerate(stones)
            if sum(row) > b.province_capacity
            and not pacified[q]
            and (conflict is None or q != conflict.province)
        ]
        current = view["current_people"]
        self.base = AttilaState(
            seed="",
            options=dict(options),
            players=players,
            start_seat=0,
            hands=[[] for _ in range(players)],
            deck=[],
            discard=discard,
            stones=stones,
            pacified=pacified,
            supply=supply,
            tiles_left=tiles_left,
            influence=influence,
            scores=list(view["scores"]),
            action_tiles=[list(t) for t in view["action_tiles"]],
            active=view["active"],
            step=step,
            cards_left=view["cards_left_this_turn"],
            tile_used=view["tile_used_this_turn"],
            people=people[current] if current else -1,
            queued=queued,
            conflict=conflict,
            conflicts=int(c["ref"].rsplit("-", 1)[1]) if c else sum(1 for p in pacified if p),
            conflict_this_card=step == CONFLICT,
            end_reasons=reasons,
            turn=view["turn"],
            resigned=list(view["resigned"]),
            result=view["result"],
        )
        self.own_commit = own_commit
        self.hand_counts = list(view["hand_counts"])
        self.deck_size = view["draw_pile"]
        everything = Counter(p.index for p in b.peoples for _ in range(b.cards_per_people))
        seen = Counter(self.hand) + Counter(discard) + Counter(own_commit)
        self.unseen = sorted((everything - seen).elements())

    def sample(self, rng: random.Random) -> AttilaState:
        state = copy_state(self.base)
        state.seed = f"determinized-{rng.getrandbits(64)}"  # its own reshuffles
        pool = list(self.unseen)
        rng.shuffle(pool)
        state.hands[self.seat] = list(self.hand)
        conflict = state.conflict
        if conflict is not None and self.own_committed:
            conflict.commits[self.seat] = self.own_commit
        others = [s for s in range(state.players) if s != self.seat]
        laid: dict[int, list[int]] = {}
        if conflict is not None:  # first the cards laid, which must be of the peoples present
            for s in others:
                count = self.conflict_counts.get(s)
                if count:
                    eligible = [i for i, card in enumerate(pool) if card in conflict.present]
                    laid[s] = [pool[i] for i in eligible[:count]]
                    for i in reversed(eligible[:count]):
                        del pool[i]
        for s in others:
            hand, pool = pool[: self.hand_counts[s]], pool[self.hand_counts[s] :]
            if conflict is not None and s in self.conflict_counts:
                if self.conflict_counts[s] is None:
                    # Simultaneous conflicts hide the count (the hand count includes the
                    # laid cards): lay a random share of the eligible cards.
                    eligible = [card for card in hand if card in conflict.present]
                    rng.shuffle(eligible)
                    laid[s] = eligible[: rng.randint(0, len(eligible))]
                    for card in laid[s]:
                        hand.remove(card)
                conflict.commits[s] = tuple(sorted(laid.get(s, ())))
            state.hands[s] = sorted(hand)
        state.deck = pool[: self.deck_size]
        return state


def copy_state(state: AttilaState) -> AttilaState:
    """``state.copy()`` without the round trip through JSON (the search copies thousands);
    the options are shared, as nothing changes them."""
    conflict = state.conflict
    return replace(
        state,
        hands=[list(hand) for hand in state.hands],
        deck=list(state.deck),
        discard=list(state.discard),
        stones=[list(row) for row in state.stones],
        pacified=list(state.pacified),
        supply=list(state.supply),
        tiles_left=list(state.tiles_left),
        influence=[list(track) for track in state.influence],
        scores=list(state.scores),
        action_tiles=[list(tiles) for tiles in state.action_tiles],
        queued=list(state.queued),
        conflict=None if conflict is None else replace(conflict, commits=dict(conflict.commits)),
        end_reasons=list(state.end_reasons),
        resigned=list(state.resigned),
        result=deepcopy(state.result),
    )


class AttilaBot:
    game: AttilaGame = GAME
    playout_depth = 6
    reply_moves = 8  # the two other seats' turns in a 3-player game: card, influence, conflict

    def copy(self, state: AttilaState) -> AttilaState:
        return copy_state(state)

    def determinizer(
        self,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> Determinizer:
        return Determinizer(self.game, view, seat, options)

    def evaluate(self, state: AttilaState) -> list[float]:
        """Points so far plus what each people would pay if it were scored now (the rules'
        ``awards``), plus a little for cards in hand and unused action tiles. Weighting the
        scorings still to come, or a track lead by its margin, was measured to play worse
        (docs/bots.md, "Why the bots lost to a biased random player")."""
        if state.result is not None:
            return result_chances(state.result, state.players)
        gap = state.options["TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE"]
        values = [float(p) for p in state.scores]
        peoples = len(state.supply)
        stones, provinces = [0] * peoples, [0] * peoples
        for row in state.stones:
            for people, n in enumerate(row):
                if n:
                    stones[people] += n
                    provinces[people] += 1
        for people in range(peoples):
            fields = [track[people] for track in state.influence]
            for s, points in awards(fields, stones[people], provinces[people], gap).items():
                values[s] += points
        for s in range(state.players):
            values[s] += 0.3 * len(state.hands[s]) + 1.0 * len(state.action_tiles[s])
        return win_chances(values, SPREAD)

    def reasonable(
        self, state: AttilaState, seat: int, legal: list[AttilaAction]
    ) -> list[AttilaAction]:
        """Never waive the influence for nothing when it could be taken, never throw cards
        away by a swap, and keep the action tiles for the search and the evaluation."""
        out: list[AttilaAction] = [
            a
            for a in legal
            if not isinstance(a, Swap | Boost)
            and not (isinstance(a, Waive) and a.province is None and TakeInfluence() in legal)
        ]
        return out or legal

    def prior(self, state: AttilaState, seat: int, legal: list[AttilaAction]) -> list[float] | None:
        """The search widens to cards and influence first, to swaps last."""
        return [_KIND_PRIOR.get(type(a), 1.0) - 0.5 * _is_pair(a) for a in legal]

    def by_prior(self, state: AttilaState, seat: int) -> bool:
        return False  # a few dozen actions at most: medium applies each one

    def searched(self, state: AttilaState, seat: int) -> bool:
        """Every decision but the conflict cards: their effect is known once the conflict is
        resolved, which one ply over several determinizations judges, where a search of a
        few hundred iterations mostly adds the noise of its playouts."""
        return state.step != CONFLICT

    def for_level(self, level: Level) -> AttilaBot:
        return self  # every level plays by the same prior

    def continues(self, state: AttilaState, seat: int) -> bool:
        """A card's influence decision completes the card."""
        return state.step == INFLUENCE and state.active == seat

    def policy(
        self, state: AttilaState, seat: int, legal: list[AttilaAction], rng: random.Random
    ) -> AttilaAction:
        """The card whose stone and influence raise the seat's points the most were its
        people scored now (ties at random), the influence taken, no tile; conflict cards
        at random as ``reasonable`` has them."""
        if state.step == PLAY_CARD:
            plays = [a for a in legal if isinstance(a, Play)]
            if plays:
                gains: dict[tuple[int, bool], int] = {}
                for play in plays:
                    key = (play.people, state.stones[play.province][play.people] == 0)
                    if key not in gains:
                        gains[key] = quick_gain(state, seat, *key)
                scores = [gains[(p.people, state.stones[p.province][p.people] == 0)] for p in plays]
                top = max(scores)
                return rng.choice([p for p, g in zip(plays, scores, strict=True) if g >= top])
        elif state.step == INFLUENCE and TakeInfluence() in legal:
            return TakeInfluence()
        elif state.step == FINISH:
            return EndTurn()
        return rng.choice(self.reasonable(state, seat, legal))


def quick_gain(state: AttilaState, seat: int, people: int, new_province: bool) -> int:
    """What a stone of ``people`` (in a province it is not yet in, if ``new_province``) and
    the influence after it add to ``seat``'s points were the people scored now (its
    conflicts aside)."""
    board = GAME.board
    stones = provinces = 0
    for row in state.stones:
        if row[people]:
            stones += row[people]
            provinces += 1
    fields = [track[people] for track in state.influence]
    gap = state.options["TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE"]
    before = awards(fields, stones, provinces, gap).get(seat, 0)
    steps = board.influence_steps[GAME.rules.current_century(state)]
    if fields[seat] == 0 and state.options["NEW_COUNTER_ENTRY"] == "entry_consumes_all_steps":
        fields[seat] = 1
    else:
        fields[seat] = min(fields[seat] + steps, board.influence_top)
    after = awards(fields, stones + 1, provinces + new_province, gap).get(seat, 0)
    return after - before


_KIND_PRIOR: dict[type, float] = {Play: 3.0, TakeInfluence: 3.0, Commit: 2.0, Swap: 0.0}


def _is_pair(action: AttilaAction) -> bool:
    return (isinstance(action, Boost) and len(action.peoples) == 2) or action == Waive()


BOT = AttilaBot()
