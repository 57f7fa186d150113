"""Properties of the tournament pairings (service/domain/pairing.py), drawn by hypothesis:
every player at one table or a bye each round, no repeated meeting while a round without one
exists (checked against an exhaustive search of its own), byes fair; the round-robin's every
pairing; the standings' tie-breaks."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain import pairing
from service.domain.pairing import Round


def _names(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def _check_round(players: Sequence[str], size: int, played: Round) -> None:
    seen = [p for table in played.tables for p in table] + list(played.byes)
    assert sorted(seen) == sorted(players), "every player once a round"
    assert all(len(table) == size for table in played.tables)
    assert len(played.byes) == len(players) % size


def _tables_exist(left: list[str], size: int, met: Counter[frozenset[str]]) -> bool:
    """Whether ``left`` splits into tables of ``size`` where nobody met: every partition."""
    if not left:
        return True
    first, rest = left[0], left[1:]
    for others in itertools.combinations(rest, size - 1):
        table = (first, *others)
        if any(met[pair] for pair in pairing.pairs(table)):
            continue
        if _tables_exist([p for p in rest if p not in others], size, met):
            return True
    return False


def _repeat_free_possible(players: list[str], size: int, history: list[Round]) -> bool:
    """Some fair bye set (no second bye while someone has none) leaves a repeat-free round."""
    met, byes = pairing.meetings(history), pairing.bye_counts(history)
    for out in itertools.combinations(players, len(players) % size):
        rest = [p for p in players if p not in out]
        if out and rest and max(byes[p] for p in out) > min(byes[p] for p in rest):
            continue
        if _tables_exist(rest, size, met):
            return True
    return False


@settings(max_examples=60, deadline=None)
@given(
    size=st.sampled_from([2, 2, 3, 4]),
    extra=st.integers(0, 7),
    rounds=st.integers(1, 7),
    seed=st.integers(0, 2**32),
)
def test_swiss_rounds(size: int, extra: int, rounds: int, seed: int) -> None:
    players = _names(size + extra if size < 4 else min(size + extra, 9))
    rng = random.Random(seed)
    scores = dict.fromkeys(players, 0.0)
    history: list[Round] = []
    for _ in range(rounds):
        order = sorted(players, key=lambda p: -scores[p])
        possible = _repeat_free_possible(order, size, history)
        byes_before = pairing.bye_counts(history)
        played = pairing.swiss_round(order, size, scores, history)
        _check_round(players, size, played)
        if possible:
            assert pairing.repeats(played.tables, pairing.meetings(history)) == 0
        for player in played.byes:
            others = [byes_before[p] for p in players if p not in played.byes]
            assert byes_before[player] <= min(others), "a second bye while someone had none"
        history.append(played)
        for table in played.tables:
            ranks = {p: rng.randrange(size) for p in table}
            for player, points in pairing.table_points(ranks).items():
                scores[player] += points
        for player in played.byes:
            scores[player] += pairing.bye_points(size)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 14), seed=st.text(max_size=8))
def test_round_robin_two_players_meets_everyone_once(n: int, seed: str) -> None:
    players = _names(n)
    rounds = pairing.round_robin(players, 2, seed)
    assert len(rounds) == pairing.round_robin_rounds(n, 2)
    for played in rounds:
        _check_round(players, 2, played)
    met = pairing.meetings(rounds)
    assert set(met) == set(pairing.pairs(players)) and set(met.values()) == {1}
    byes = pairing.bye_counts(rounds)
    assert all(byes[p] == (n % 2) for p in players)


@settings(max_examples=30, deadline=None)
@given(size=st.integers(3, 5), extra=st.integers(0, 9), seed=st.text(max_size=8))
def test_round_robin_tables_even(size: int, extra: int, seed: str) -> None:
    players = _names(size + extra)
    rounds = pairing.round_robin(players, size, seed)
    assert len(rounds) == pairing.round_robin_rounds(len(players), size)
    for played in rounds:
        _check_round(players, size, played)
    byes = pairing.bye_counts(rounds)
    counts = [byes[p] for p in players]
    assert max(counts) - min(counts) <= 1, "byes rotate"
    assert pairing.round_robin(players, size, seed) == rounds, "the seed decides"


def test_round_robin_of_nine_in_threes_meets_everyone_once() -> None:
    """9 players at tables of 3: the affine plane of order 3 exists (4 rounds, all once)."""
    rounds = pairing.round_robin(_names(9), 3, "kurier")
    assert len(rounds) == 4
    assert set(pairing.meetings(rounds).values()) == {1}
    assert len(pairing.meetings(rounds)) == 36


def test_swiss_byes_to_the_lowest_scorer_first() -> None:
    players = _names(5)
    scores = {"p0": 2.0, "p1": 2.0, "p2": 1.0, "p3": 0.0, "p4": 0.0}
    first = pairing.swiss_round(players, 2, scores, [])
    assert first.byes == ("p4",)  # the lowest score, the lowest place
    second = pairing.swiss_round(players, 2, scores, [first])
    assert second.byes == ("p3",)  # p4 had one: not twice while avoidable


def test_standings_tie_breaks_two_players() -> None:
    # a beat b, b beat c, c beat a: 1 point each; d lost to a and had a bye.
    results = [{"a": 0, "b": 1}, {"b": 0, "c": 1}, {"c": 0, "a": 1}, {"a": 0, "d": 1}]
    rows = {r.player: r for r in pairing.standings(["a", "b", "c", "d"], 2, results, ["d"])}
    assert rows["a"].points == 2 and rows["d"].points == 1
    # Buchholz: a met b (1), c (1), d (1) -> 3; b met a (2), c (1) -> 3; c met b, a -> 3.
    assert rows["a"].buchholz == 3 and rows["b"].buchholz == 3
    # Sonneborn-Berger: b beat c (1); c beat a (2): c ahead of b.
    assert rows["b"].sonneborn_berger == 1 and rows["c"].sonneborn_berger == 2
    order = [r.player for r in pairing.standings(["a", "b", "c", "d"], 2, results, ["d"])]
    assert order[0] == "a" and order.index("c") < order.index("b")


def test_standings_multiplayer_points_by_rank() -> None:
    results = [{"a": 0, "b": 1, "c": 2}, {"a": 2, "b": 0, "c": 1}, {"a": 0, "b": 0, "c": 2}]
    rows = pairing.standings(["a", "b", "c"], 3, results, [])
    by = {r.player: r for r in rows}
    assert pairing.table_points({"a": 0, "b": 0, "c": 2}) == {"a": 1.5, "b": 1.5, "c": 0.0}
    assert by["a"].points == 3.5 and by["b"].points == 4.5 and by["c"].points == 1.0
    assert [r.player for r in rows] == ["b", "a", "c"] and by["b"].firsts == 2
