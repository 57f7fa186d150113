"""Property tests: random legal play from any seed and 2 to 4 players ends, keeps every card
and building, never shows a secret in a view, refuses illegal actions without a trace, and
replays from (seed, moves) to the same stored state."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.attika.actions import (
    Build,
    DrawCards,
    EndTurn,
    PlaceTile,
    Reveal,
    SpendAmphora,
    Store,
)
from engine.attika.state import AttikaState
from engine.core import IllegalAction
from tests.test_attika_data import (
    KINDS,
    PER_PLAYER,
    TOTAL_CARDS,
    B,
    G,
    buildings_accounted,
    cards_accounted,
)

PLAYERS = st.integers(min_value=G.min_players, max_value=G.max_players)
SEEDS = st.text(max_size=10)
CHOICES = st.integers(min_value=0, max_value=2**32)
SLOW = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def bound(players: int) -> int:
    """A generous cap on the length of a random game (random play needs about 3.5 actions
    per building in our runs); the blocked-game rule is what guarantees an end."""
    return 10 * players * PER_PLAYER


def hide_check(state: AttikaState, rng: random.Random) -> None:
    """Views stay the same when everything hidden changes: the order of every stack, which
    stack holds which building (main stack apart), the deck, the tile pile and the hands of
    the other players."""
    viewers = [None, *range(state.players)]
    views = {viewer: G.view(state, viewer) for viewer in viewers}
    json.dumps(views)
    assert "hand" not in views[None]
    for viewer in viewers:
        other = state.copy()
        for seat in range(other.players):
            main, *rest = other.stacks[seat]
            rng.shuffle(main)
            pool = [b for stack in rest for b in stack]
            rng.shuffle(pool)
            for stack in rest:
                n = len(stack)
                stack[:], pool = pool[:n], pool[n:]
            if seat != viewer:  # same number of cards, other kinds
                cards = [k for k in range(KINDS) for _ in range(other.hands[seat][k])]
                mixed = other.deck + cards
                rng.shuffle(mixed)
                other.hands[seat] = [0] * KINDS
                for card in mixed[: len(cards)]:
                    other.hands[seat][card] += 1
                other.deck = mixed[len(cards) :]
        rng.shuffle(other.deck)
        rng.shuffle(other.tile_pile)
        assert G.view(other, viewer) == views[viewer]
        if viewer is not None:
            hand = views[viewer]["hand"]
            assert [hand[r.id] for r in B.resources] == state.hands[viewer]


@SLOW
@given(PLAYERS, SEEDS, CHOICES)
def test_random_play_ends_and_keeps_every_card_and_building(
    players: int, seed: str, choice: int
) -> None:
    state = G.new_state(players, seed)
    rng = random.Random(choice)
    moves: list[tuple[int, str]] = []
    while not G.is_over(state):
        assert len(moves) < bound(players)
        [decision] = G.pending(state)
        legal = G.legal_actions(state, decision.seat)
        assert legal and decision.kind == "move"
        action = rng.choice(legal)
        if isinstance(action, Build):  # pay auto == paying the same cards explicitly
            twin = state.copy()
        events = G.apply(state, decision.seat, action)
        if isinstance(action, Build):
            paid = next(e for e in events if e.kind == "building_built").data["paid"]
            cards = tuple(sorted(B.resource(p).index for p in paid))
            G.apply(twin, decision.seat, Build(action.building, action.hex, cards))
            assert G.dump(twin) == G.dump(state)
        moves.append((decision.seat, G.notation(action)))
        assert cards_accounted(state) == TOTAL_CARDS
        assert all(buildings_accounted(state, s) == PER_PLAYER for s in range(players))
        assert sum(state.amphorae) + state.amphora_supply == B.amphora_supply
        if len(moves) % 25 == 0:
            hide_check(state, rng)
    result = G.result(state)
    assert result is not None and result["winners"]
    [reason] = result["reasons"]
    if reason == "all_buildings":
        assert result["scores"][result["winners"][0]] == PER_PLAYER
    if reason == "shrines_connected":
        assert G.rules.shrines_connected(state, result["winners"][0])
    replayed = G.replay(players, seed, None, moves)
    assert G.dump(replayed) == G.dump(state)


@SLOW
@given(PLAYERS, SEEDS, CHOICES, st.integers(min_value=0, max_value=300))
def test_a_stored_game_continues_exactly_like_the_original(
    players: int, seed: str, choice: int, cut: int
) -> None:
    state = G.new_state(players, seed)
    rng = random.Random(choice)
    for _ in range(cut):
        if G.is_over(state):
            break
        seat = G.pending(state)[0].seat
        G.apply(state, seat, rng.choice(G.legal_actions(state, seat)))
    stored = json.loads(json.dumps(G.dump(state)))
    loaded = G.load(stored)
    assert G.dump(loaded) == G.dump(state)
    assert G.view(loaded, 0) == G.view(state, 0)
    twin_rng = random.Random(choice + 1)
    other_rng = random.Random(choice + 1)
    for _ in range(40):
        if G.is_over(state):
            break
        seat = G.pending(state)[0].seat
        legal = G.legal_actions(state, seat)
        assert G.legal_actions(loaded, seat) == legal
        G.apply(state, seat, twin_rng.choice(legal))
        G.apply(loaded, seat, other_rng.choice(legal))
    assert G.dump(loaded) == G.dump(state)


HEXES = st.tuples(st.integers(-7, 9), st.integers(-7, 11))
ACTIONS = st.one_of(
    st.builds(Reveal, st.integers(-1, 5)),
    st.builds(
        Build,
        st.integers(-1, len(B.buildings)),
        HEXES,
        st.none() | st.lists(st.integers(0, KINDS - 1), max_size=7).map(lambda x: tuple(sorted(x))),
    ),
    st.builds(PlaceTile, HEXES, st.integers(-1, 7)),
    st.sampled_from([Store(), SpendAmphora(), DrawCards(), EndTurn()]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLAYERS, CHOICES, st.integers(min_value=0, max_value=250), st.data())
def test_illegal_actions_leave_the_state_unchanged(
    players: int, choice: int, steps: int, data: st.DataObject
) -> None:
    state = G.new_state(players, f"illegal-{choice}")
    rng = random.Random(choice)
    for _ in range(steps):
        if G.is_over(state):
            break
        seat = G.pending(state)[0].seat
        G.apply(state, seat, rng.choice(G.legal_actions(state, seat)))
    before = G.dump(state)
    for _ in range(15):
        action = data.draw(ACTIONS)
        seat = data.draw(st.just(state.active) | st.integers(-1, players))
        trial = G.load(before)
        try:
            G.apply(trial, seat, action)
        except IllegalAction as error:
            assert error.code and error.message
            assert G.dump(trial) == before
        else:
            assert seat == state.active
    assert G.dump(state) == before
