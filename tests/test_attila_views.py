"""Hidden information: a player's view and a spectator's view never show another player's
hand, the draw pile's order or unrevealed conflict cards; private events reach only their
seat."""

from __future__ import annotations

import json
import random

import pytest

from engine.core import visible_events
from tests.attila_helpers import (
    G,
    P,
    do,
    fresh,
    frontier,
    norm,
    pid,
    put,
    qid,
    random_step,
    set_hands,
)

V, S = P("V"), P("S")


def scramble(state, seat: int | None, rng: random.Random):
    """A copy where every secret hidden from ``seat`` is dealt anew (same sizes)."""
    other = state.copy()
    others = [s for s in range(state.players) if s != seat]
    pool = list(other.deck)
    for s in others:
        pool += other.hands[s]
    commits = other.conflict.commits if other.conflict else {}
    for s in others:
        pool += list(commits.get(s, ()))
    rng.shuffle(pool)
    for s in others:
        size = len(other.hands[s])
        other.hands[s], pool = sorted(pool[:size]), pool[size:]
    for s in others:
        if s in commits:
            size = len(commits[s])
            commits[s], pool = tuple(sorted(pool[:size])), pool[size:]
    other.deck = pool
    return other


@pytest.mark.parametrize("options", [{}, {"CONFLICT_COMMIT_ORDER": "simultaneous"}])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_views_do_not_depend_on_hidden_information(players: int, options: dict) -> None:
    rng = random.Random(players)
    checked = 0
    for game in range(3):
        state = G.new_state(players, f"views-{game}", options)
        while not G.is_over(state):
            if rng.random() < 0.2 or state.conflict is not None:
                for seat in [*range(players), None]:
                    view = norm(G.view(state, seat))
                    assert view == norm(G.view(scramble(state, seat, rng), seat))
                    checked += 1
            random_step(state, rng)
    assert checked > 50


def test_own_hand_only_in_own_view() -> None:
    state = G.new_state(4, "hands")
    for seat in range(4):
        view = G.view(state, seat)
        assert view["hand"] == [pid(c) for c in state.hands[seat]]
        assert view["hand_counts"] == [len(h) for h in state.hands]
        json.dumps(view)
    spectator = G.view(state, None)
    assert "hand" not in spectator
    assert spectator["draw_pile"] == len(state.deck)
    assert not any(isinstance(v, list) and len(v) == len(state.deck) for v in spectator.values())


def test_conflict_own_cards_only_for_their_seat() -> None:
    state = fresh(3)
    t = frontier()[0]
    put(state, t, S, 4)
    set_hands(state, {0: [V] * 6, 1: [S, S, V, V, P("H"), P("H")]})
    do(state, 0, f"V {qid(t)}", "inf", "commit VV")
    do(state, 1, "commit S")
    assert G.view(state, 0)["conflict"]["own_cards"] == [pid(V)] * 2
    assert G.view(state, 1)["conflict"]["own_cards"] == [pid(S)]
    assert "own_cards" not in G.view(state, 2)["conflict"]
    assert "own_cards" not in G.view(state, None)["conflict"]


def test_private_events_reach_only_their_seat() -> None:
    rng = random.Random(5)
    state = G.new_state(3, "events")
    private_kinds = set()
    while not G.is_over(state):
        _, _, events = random_step(state, rng)
        for event in events:
            if event.audience is not None:
                private_kinds.add(event.kind)
                assert len(event.audience) == 1
                owner = event.audience[0]
                assert event.data["seat"] == owner
                for other in [*range(3), None]:
                    assert (event in visible_events(events, other)) == (other == owner)
            if event.kind in ("cards_drawn", "conflict_committed"):
                assert event.audience is None and "cards" not in event.data
    assert {"cards_drawn_own", "conflict_committed_own"} <= private_kinds
