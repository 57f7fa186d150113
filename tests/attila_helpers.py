"""Shared helpers for the Attila engine tests: board facts computed from the data, positions
built by hand, and a random legal player."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

from engine.attila.state import AttilaState
from engine.core import SYSTEM, Event
from engine.registry import get_game

G = get_game("attila")
B = G.board
PEOPLES = range(len(B.peoples))
PROVINCES = range(len(B.provinces))
CAPACITY = B.province_capacity
TOTAL_CARDS = B.cards_per_people * len(B.peoples)


# -- board facts, from the data ------------------------------------------------------------


def P(key: str) -> int:
    """A people's index from its letter or id."""
    return B.people(key).index


def pid(people: int) -> str:
    return B.peoples[people].id


def letter(people: int) -> str:
    return B.peoples[people].letter


def qid(province: int) -> str:
    return B.provinces[province].id


def bits(mask: int) -> set[int]:
    return {q for q in PROVINCES if mask >> q & 1}


def neighbours(q: int) -> set[int]:
    return bits(B.neighbours[q])


def frontier() -> list[int]:
    return [p.index for p in B.provinces if p.frontier]


def inland() -> list[int]:
    return [p.index for p in B.provinces if not p.frontier]


def land_neighbours(q: int) -> set[int]:
    """Neighbours by land border only (from the raw data)."""
    out = set()
    for a, b in B.raw["board"]["land_borders"]:
        ia, ib = B.province(a).index, B.province(b).index
        if ia == q:
            out.add(ib)
        if ib == q:
            out.add(ia)
    return out


def sea_pairs() -> list[tuple[int, int]]:
    out = []
    for arrow in B.raw["board"]["sea_arrows"]:
        a, b = arrow["between"]
        out.append((B.province(a).index, B.province(b).index))
    return out


def far_inland(avoid: Iterable[int] = ()) -> int:
    """A non-frontier province that is neither in ``avoid`` nor adjacent to any of it."""
    avoid = set(avoid)
    near = set(avoid)
    for q in avoid:
        near |= neighbours(q)
    for q in inland():
        if q not in near:
            return q
    raise AssertionError("the board has no such province")


def inland_not_touching_frontier() -> list[int]:
    front = set(frontier())
    return [q for q in inland() if not neighbours(q) & front]


# -- positions --------------------------------------------------------------------------------


def fresh(
    players: int = 3, seed: str = "test", options: dict[str, Any] | None = None, active: int = 0
) -> AttilaState:
    """A new game with seat ``active`` to play its first card."""
    state = G.new_state(players, seed, options)
    state.active = active
    state.turn = 1
    return state


def set_hands(state: AttilaState, hands: list[list[int]] | dict[int, list[int]]) -> None:
    """Give seats these hands; the other seats are dealt anew from the remaining cards (same
    hand sizes) and the rest is the draw pile, so the 54 cards stay conserved."""
    if isinstance(hands, list):
        hands = dict(enumerate(hands))
    full = Counter({p: B.cards_per_people for p in PEOPLES})
    used = Counter(c for hand in hands.values() for c in hand) + Counter(state.discard)
    assert not used - full, "more cards of a people than exist"
    rest = sorted((full - used).elements())
    random.Random(7).shuffle(rest)
    for seat in range(state.players):
        if seat in hands:
            state.hands[seat] = sorted(hands[seat])
        else:
            size = len(state.hands[seat])
            state.hands[seat], rest = sorted(rest[:size]), rest[size:]
    state.deck = rest


def put(state: AttilaState, province: int, people: int, n: int = 1) -> None:
    """Put ``n`` stones of ``people`` from the supply into ``province``."""
    assert state.supply[people] >= n
    state.stones[province][people] += n
    state.supply[people] -= n


def stones_of(state: AttilaState, people: int) -> int:
    return sum(row[people] for row in state.stones)


def total_in(state: AttilaState, province: int) -> int:
    return sum(state.stones[province])


def do(state: AttilaState, seat: int, *moves: str) -> list[Event]:
    """Apply notations in order by ``seat``; returns all events."""
    events: list[Event] = []
    for text in moves:
        events += G.apply(state, seat, G.parse(text))
    return events


def resolve(state: AttilaState) -> list[Event]:
    return G.apply(state, SYSTEM, G.parse("resolve"))


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def first(events: Iterable[Event], kind: str) -> Event:
    return next(e for e in events if e.kind == kind)


def norm(data: Any) -> Any:
    """JSON-normalised data (tuples become lists, int keys strings)."""
    return json.loads(json.dumps(data, sort_keys=True))


# -- invariants -----------------------------------------------------------------------------


def all_cards(state: AttilaState) -> Counter[int]:
    cards = Counter(c for hand in state.hands for c in hand)
    cards += Counter(state.deck) + Counter(state.discard)
    if state.conflict is not None:
        for committed in state.conflict.commits.values():
            cards += Counter(committed)
    return cards


def check_invariants(state: AttilaState) -> None:
    assert all_cards(state) == Counter({p: B.cards_per_people for p in PEOPLES})
    for people in PEOPLES:
        assert stones_of(state, people) + state.supply[people] == B.stones_per_people
        assert state.supply[people] >= 0
    for track in state.influence:
        assert all(0 <= f <= B.influence_top for f in track)
    for q in PROVINCES:
        assert total_in(state, q) <= CAPACITY + 1
        if state.step == "play_card" and state.conflict is None and not state.queued:
            assert total_in(state, q) <= CAPACITY, f"{qid(q)} over capacity after a turn"
    assert all(n >= 0 for n in state.tiles_left)


# -- random play ----------------------------------------------------------------------------


def random_step(state: AttilaState, rng: random.Random) -> tuple[int, Any, list[Event]]:
    """One random legal action by whoever must act (the SYSTEM resolves)."""
    decisions = G.pending(state)
    decision = rng.choice(decisions)
    legal = G.legal_actions(state, decision.seat)
    assert legal, f"no legal action for {decision}"
    action = rng.choice(legal)
    return decision.seat, action, G.apply(state, decision.seat, action)


def play_random(
    state: AttilaState,
    rng: random.Random,
    max_steps: int = 5000,
    record: list[tuple[int, str]] | None = None,
) -> int:
    steps = 0
    while not G.is_over(state):
        seat, action, _ = random_step(state, rng)
        if record is not None:
            record.append((seat, G.notation(action)))
        steps += 1
        assert steps < max_steps, "random game did not end"
    return steps


def whole_hand_laid_in_a_conflict(seat_1_tiles: list[str] | None = None) -> AttilaState:
    """Seat 0 starts a conflict in a frontier province (Saxons 2, Franks 2, one Vandal); seat 1
    lays its whole hand (SSSFFF) in it and the conflict is resolved: seat 1 comes next with no
    card. ``seat_1_tiles``: the action tiles seat 1 still holds (default: all three)."""
    saxons, franks, vandals, huns = P("S"), P("F"), P("V"), P("H")
    state = fresh(3)
    t = frontier()[0]
    put(state, t, saxons, 2)
    put(state, t, franks, 2)
    set_hands(state, {0: [vandals] * 6, 1: [saxons] * 3 + [franks] * 3, 2: [huns] * 6})
    state.action_tiles[0] = []
    if seat_1_tiles is not None:
        state.action_tiles[1] = list(seat_1_tiles)
    do(state, 0, f"V {qid(t)}", "inf", "pass")
    do(state, 1, "commit SSSFFF")
    do(state, 2, "pass")
    resolve(state)
    return state
