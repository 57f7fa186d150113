"""Benchmark the rules engines: random full games on one core.

Prints games/s and actions/s per player count, and a machine baseline measured in the same
run (a fixed pure-Python workload), so figures from different machines can be compared by
their ratio. Not a test: run it with ``make bench`` or ``python scripts/bench_engine.py``.

Each game picks uniformly among ``legal_actions`` (the cost of generating every legal action
is part of the figure), applies the action, and stops when the game is over. Bounded: at most
``--games`` games and ``--seconds`` per player count.
"""

from __future__ import annotations

import argparse
import random
import time

from engine.registry import get_game

TARGET_4P_GAMES_PER_SECOND = 200


def play_random_game(game_id: str, players: int, seed: int) -> int:
    game = get_game(game_id)
    state = game.new_state(players, f"bench-{seed}")
    rng = random.Random(seed)
    actions = 0
    while not game.is_over(state):
        seat = game.pending(state)[0].seat
        game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        actions += 1
    return actions


def baseline_units_per_second(seconds: float = 0.5) -> float:
    """A fixed workload (shuffle and sort a 54-card deck): how fast is this machine today."""
    rng = random.Random(0)
    deck = list(range(54))
    units = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            rng.shuffle(deck)
            deck.sort()
        units += 1
    return units / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="attila")
    parser.add_argument("--games", type=int, default=400, help="games per player count (max)")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per player count (max)")
    args = parser.parse_args()

    game = get_game(args.game)
    baseline = baseline_units_per_second()
    print(f"baseline: {baseline:.1f} units/s (1 unit = 1000 shuffles+sorts of 54 cards)")
    print(
        f"{'players':>7} {'games':>6} {'games/s':>9} {'actions/s':>10} {'actions/game':>13}"
        f" {'games/s per baseline unit':>26}"
    )
    for players in range(game.min_players, game.max_players + 1):
        games = actions = 0
        start = time.perf_counter()
        while games < args.games and time.perf_counter() - start < args.seconds:
            actions += play_random_game(args.game, players, games)
            games += 1
        elapsed = time.perf_counter() - start
        rate = games / elapsed
        print(
            f"{players:>7} {games:>6} {rate:>9.1f} {actions / elapsed:>10.0f}"
            f" {actions / games:>13.1f} {rate / baseline:>26.3f}"
        )
        if args.game == "attila" and players == 4:
            verdict = "meets" if rate >= TARGET_4P_GAMES_PER_SECOND else "MISSES"
            print(
                f"        4-player target {TARGET_4P_GAMES_PER_SECOND} games/s: {verdict}"
                f" (ratio {rate / TARGET_4P_GAMES_PER_SECOND:.2f})"
            )


if __name__ == "__main__":
    main()
