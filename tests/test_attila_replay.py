"""Determinism: a game is fully defined by (players, seed, options, actions); dump and load
mid-game continue identically."""

from __future__ import annotations

import json
import random

import pytest

from tests.attila_helpers import G, norm, play_random, random_step

OPTION_SETS = [
    {},
    {"CONFLICT_COMMIT_ORDER": "simultaneous"},
    {"LAST_TILE_FINAL_SCORING": "score_twice", "NEW_COUNTER_ENTRY": "entry_consumes_all_steps"},
    {"START_PLAYER": "host_chooses", "TWO_PLAYER_SECOND_VOID_MIN_DIFFERENCE": 2},
]


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_replay_reproduces_final_state(players: int, options: dict) -> None:
    seed = f"replay-{players}"
    state = G.new_state(players, seed, options)
    record: list[tuple[int, str]] = []
    play_random(state, random.Random(players * 31), record=record)
    assert G.is_over(state)
    # the record travels as text (e.g. by email or JSON)
    record = [tuple(move) for move in json.loads(json.dumps(record))]
    replayed = G.replay(players, seed, options, record)
    assert norm(G.dump(replayed)) == norm(G.dump(state))
    assert G.result(replayed) == G.result(state)


def test_same_actions_same_events() -> None:
    one, two = G.new_state(4, "events"), G.new_state(4, "events")
    rng = random.Random(3)
    while not G.is_over(one):
        seat, action, events = random_step(one, rng)
        assert [e.to_json() for e in G.apply(two, seat, action)] == [e.to_json() for e in events]
    assert norm(G.dump(one)) == norm(G.dump(two))


def test_different_seed_different_game() -> None:
    a, b = G.new_state(4, "seed-a"), G.new_state(4, "seed-b")
    assert norm(G.dump(a)) != norm(G.dump(b))


@pytest.mark.parametrize("players", [2, 4, 5])
def test_dump_load_mid_game_continues_identically(players: int) -> None:
    rng = random.Random(players)
    state = G.new_state(players, f"midgame-{players}")
    cut_points = {5, 17, 40, 80}
    step = 0
    while not G.is_over(state):
        if step in cut_points:
            raw = json.loads(json.dumps(G.dump(state)))
            copy = G.load(raw)
            assert norm(G.dump(copy)) == norm(G.dump(state))
            for seat in [*range(players), None]:
                assert norm(G.view(copy, seat)) == norm(G.view(state, seat))
            a, b = state.copy(), copy
            ra, rb = random.Random(step), random.Random(step)
            while not G.is_over(a):
                _, _, ea = random_step(a, ra)
                _, _, eb = random_step(b, rb)
                assert [e.to_json() for e in ea] == [e.to_json() for e in eb]
            assert G.is_over(b)
            assert norm(G.dump(a)) == norm(G.dump(b))
        random_step(state, rng)
        step += 1
    assert step > max(cut_points)


def test_dump_load_during_a_conflict() -> None:
    rng = random.Random(11)
    state = G.new_state(3, "conflict-dump", {"CONFLICT_COMMIT_ORDER": "simultaneous"})
    while state.conflict is None or not state.conflict.commits:
        random_step(state, rng)
        assert not G.is_over(state)
    copy = G.load(json.loads(json.dumps(G.dump(state))))
    assert copy.conflict == state.conflict
    assert G.pending(copy) == G.pending(state)
