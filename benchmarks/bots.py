"""How strong the computer opponents are (engine/bots.py), and how balanced the seats are.

Plays match-ups with the seats rotated (the stronger player takes each seat in turn): each
bot level against the weaker levels, and each level (medium, hard) against the baselines of
benchmarks/baselines.py (uniform, biased, heuristic; in 3-player Attila one bot against two
seats of the baseline). Prints, per match-up, the stronger player's win rate with a 95%
Wilson interval and whether its lower end meets the target, in Attila the bot's conflicts
(entered, won, cards laid), and per game the win rate of each seat and of the start player
(balance data, from every table played). Shared victories count as a share (1/winners).
Moves are made from each seat's view and the events it saw, as the service would hand them
to a bot.

    PYTHONPATH=$PWD nice -n 19 python benchmarks/bots.py --games 200 --seconds 1800 \
        --only 'attila3-*-vs-heuristic' --out games.jsonl
    PYTHONPATH=$PWD python benchmarks/bots.py --report games.jsonl
    # later, the games of the same match-ups that file does not hold yet:
    PYTHONPATH=$PWD nice -n 19 python benchmarks/bots.py --games 200 --seconds 1800 \
        --only 'attila3-*-vs-heuristic' --out games.jsonl --resume
    PYTHONPATH=$PWD python benchmarks/bots.py --time-hard 5   # a hard move at 2 s

Each hard move is capped at ``--iterations`` (the seconds are set far above it), so a run is
reproducible; ``--seconds`` bounds its wall time on a shared machine (one process by
default). Results: docs/bots.md.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: the repo

from benchmarks.baselines import BASELINES, Baseline
from engine.bots import (
    HARD_CANDIDATES,
    Bot,
    Budget,
    Level,
    Replies,
    bot_for,
    greedy_scores,
    hard_scores,
    one_ply_scores,
)
from engine.core import SYSTEM, Event, visible_events
from engine.registry import get_game

#: Actions after which a game is abandoned (counted as nobody's win).
MOVE_CAP = 30_000


@dataclass(frozen=True)
class Matchup:
    name: str
    game: str
    players: int
    strong: Level
    weak: str  # a bot level, or a baseline of benchmarks/baselines.py
    target: float  # the lower end of the 95% interval asked of the stronger player


#: What each level must win against each baseline (issue 51), by the interval's lower end.
BASELINE_TARGETS: dict[tuple[Level, str], float] = {
    ("medium", "uniform"): 0.90,
    ("medium", "biased"): 0.60,
    ("medium", "heuristic"): 0.50,
    ("hard", "uniform"): 0.95,
    ("hard", "biased"): 0.75,
    ("hard", "heuristic"): 0.65,
}
GAMES = (("attila3", "attila", 3), ("attika2", "attika", 2), ("wargame", "attila-wargame", 2))

MATCHUPS = (
    Matchup("attila3-hard-vs-medium", "attila", 3, "hard", "medium", 0.55),
    Matchup("attila3-medium-vs-easy", "attila", 3, "medium", "easy", 0.55),
    Matchup("attika2-hard-vs-easy", "attika", 2, "hard", "easy", 0.70),
    Matchup("attika2-hard-vs-medium", "attika", 2, "hard", "medium", 0.55),
    Matchup("wargame-hard-vs-easy", "attila-wargame", 2, "hard", "easy", 0.70),
    Matchup("wargame-hard-vs-medium", "attila-wargame", 2, "hard", "medium", 0.55),
    *(
        Matchup(f"{prefix}-{level}-vs-{baseline}", game, players, level, baseline, target)
        for prefix, game, players in GAMES
        for (level, baseline), target in BASELINE_TARGETS.items()
    ),
)


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def player(game_id: str, kind: str, seed: str, budget: Budget) -> Bot[Any, Any] | Baseline:
    """A bot of a level, or a baseline player (benchmarks/baselines.py)."""
    if kind in BASELINES:
        return Baseline(game_id, kind, seed)
    return Bot(bot_for(game_id), kind, seed, budget)  # type: ignore[arg-type]


def play(
    game_id: str, players: int, levels: Sequence[str], seed: str, budget: Budget
) -> dict[str, Any]:
    """One game to its end (or the move cap); who won, where they sat, each seat's CPU and
    the whole game's (the rules' included), and each seat's Attila conflicts
    (``count_conflict``)."""
    game = get_game(game_id)
    options = game.resolve_options(None)
    state = game.new_state(players, seed, options)
    seats = [player(game_id, levels[s], f"{seed}/bot{s}", budget) for s in range(players)]
    seen: list[list[Event]] = [[] for _ in range(players)]
    cpu = [0.0] * players
    started = time.process_time()
    moves = 0
    conflicts = [[0, 0, 0, 0] for _ in range(players)]
    while not game.is_over(state) and moves < MOVE_CAP:
        decision = game.pending(state)[0]
        if decision.seat == SYSTEM:
            action = game.legal_actions(state, SYSTEM)[0]
        else:
            start = time.process_time()
            view = game.view(state, decision.seat)
            action = seats[decision.seat].choose(view, seen[decision.seat], decision.seat, options)
            cpu[decision.seat] += time.process_time() - start
        events = game.apply(state, decision.seat, action)
        for event in events:
            if event.kind == "conflict_resolved":
                count_conflict(conflicts, event.data)
        for s in range(players):
            seen[s].extend(visible_events(events, s))
        moves += 1
    result = game.result(state) or {"winners": []}
    return {
        "winners": list(result["winners"]),
        "start": getattr(state, "start_seat", 1 if game_id == "attila-wargame" else 0),
        "moves": moves,
        "cpu": cpu,
        "game_cpu": time.process_time() - started,
        "conflicts": conflicts,
    }


def count_conflict(conflicts: list[list[int]], data: Mapping[str, Any]) -> None:
    """Per seat: conflicts, those it laid cards in, those of these it won (none of the peoples
    it laid cards for left), and the cards it laid."""
    removed = set(data["removed"])
    for seat, cards in data["cards"].items():
        row = conflicts[int(seat)]
        row[0] += 1
        if cards:
            row[1] += 1
            row[2] += not removed & set(cards)
            row[3] += len(cards)


def _task(args: tuple[Matchup, int, int]) -> tuple[str, int, list[str], dict[str, Any]]:
    matchup, index, iterations = args
    strong_seat = index % matchup.players
    levels: list[str] = [matchup.weak] * matchup.players
    levels[strong_seat] = matchup.strong
    budget = Budget(seconds=1e9, iterations=iterations)
    outcome = play(matchup.game, matchup.players, levels, f"{matchup.name}-{index}", budget)
    return matchup.name, index, levels, outcome


def run(
    matchups: Sequence[Matchup],
    games: dict[str, int],
    iterations: int,
    processes: int,
    out: Path | None,
    first: int = 0,
    seconds: float | None = None,
    played: frozenset[tuple[str, int]] = frozenset(),
) -> None:
    """Play the games (shuffled, so that a run stopped early still covers every match-up),
    appending each outcome to ``out`` as it comes, then report. ``seconds``: wall time after
    which the games still running are abandoned (the finished ones are reported). ``played``:
    (match-up, game number) pairs left out, as already played."""
    tasks = [
        (m, first + i, iterations)
        for m in matchups
        for i in range(games[m.game])
        if (m.name, first + i) not in played
    ]
    random.Random(0).shuffle(tasks)
    started = time.time()
    outcomes: list[dict[str, Any]] = []
    pool = multiprocessing.Pool(processes)
    try:
        pending = pool.imap_unordered(_task, tasks)
        while len(outcomes) < len(tasks):
            left = None if seconds is None else seconds - (time.time() - started)
            if left is not None and left <= 0:
                break
            try:
                name, index, levels, outcome = pending.next(timeout=left)
            except multiprocessing.TimeoutError:
                break
            row = {
                "matchup": name,
                "game": index,
                "levels": levels,
                "iterations": iterations,
                **outcome,
            }
            outcomes.append(row)
            if out is not None:
                with out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
    finally:
        pool.terminate()
        pool.join()
    print(f"{len(outcomes)} of {len(tasks)} games in {time.time() - started:.0f} s wall")
    report(outcomes)


def report(outcomes: Sequence[dict[str, Any]]) -> None:
    """Win rates of the stronger player per match-up (with the Attila conflicts of its seat:
    entered, won, cards laid), and the seats' win rates per game."""
    by_name = {m.name: m for m in MATCHUPS}
    header = f"{'match-up':28} {'games':>5} {'strong wins':>11} {'95% CI':>15} {'target':>6}"
    print(f"{header}  {'met':>3}  iterations  CPU/move")
    for name, m in by_name.items():
        rows = [o for o in outcomes if o["matchup"] == name]
        if not rows:
            continue
        share = strong_cpu = strong_moves = 0.0
        for o in rows:
            strong = [s for s in range(m.players) if o["levels"][s] == m.strong]
            if o["winners"]:
                share += sum(1 for s in strong if s in o["winners"]) / len(o["winners"])
            strong_cpu += sum(o["cpu"][s] for s in strong)
            strong_moves += o["moves"] / m.players
        low, high = wilson(share, len(rows))
        print(
            f"{name:28} {len(rows):5d} {share / len(rows):10.1%} [{low:5.1%}, {high:5.1%}]"
            f" {m.target:6.0%}  {'yes' if low >= m.target else 'no':>3}"
            f"  {sorted({o['iterations'] for o in rows})}"
            f"  {1000 * strong_cpu / max(strong_moves, 1):.0f} ms"
        )
        print(f"{'':28} by the stronger player's seat: {by_seat(rows, m)}")
        print(f"{'':28} a game: {game_length(rows)}")
        if m.game == "attila":
            print(f"{'':28} its conflicts: {conflict_summary(rows, m)}")
    print("\nseat balance (every table of the game; shares of wins, 95% Wilson intervals)")
    for game_id in sorted({m.game for m in by_name.values()}):
        rows = [o for o in outcomes if by_name[o["matchup"]].game == game_id]
        if not rows:
            continue
        players = by_name[rows[0]["matchup"]].players
        seats = [0.0] * players
        first = 0.0
        undecided = 0
        for o in rows:
            if not o["winners"]:
                undecided += 1
                continue
            for w in o["winners"]:
                seats[w] += 1 / len(o["winners"])
            if o["start"] in o["winners"]:
                first += 1 / len(o["winners"])
        n = len(rows)
        cells = ", ".join(
            f"seat {s} {v / n:.1%} [{wilson(v, n)[0]:.0%}-{wilson(v, n)[1]:.0%}]"
            for s, v in enumerate(seats)
        )
        lo, hi = wilson(first, n)
        print(
            f"{game_id:15} {n:4d} games: {cells}; first player {first / n:.1%} "
            f"[{lo:.0%}-{hi:.0%}]; undecided {undecided}"
        )


def paired(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> None:
    """Two runs on the same seeds (``--first``/``--games``, a bot changed between them): per
    match-up, the games both finished, the stronger player's wins in each, and the mean
    difference per game with a 95% interval (normal, over the pairs)."""
    by_name = {m.name: m for m in MATCHUPS}
    for name in sorted({o["matchup"] for o in after}):
        m = by_name[name]
        first = {o["game"]: o for o in before if o["matchup"] == name}
        pairs = [
            (first[o["game"]], o) for o in after if o["matchup"] == name and o["game"] in first
        ]
        if not pairs:
            continue
        differences = [strong_share(b, m) - strong_share(a, m) for a, b in pairs]
        n = len(differences)
        mean = sum(differences) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / max(n - 1, 1) / n)
        won_before = sum(strong_share(a, m) for a, _ in pairs)
        won_after = sum(strong_share(b, m) for _, b in pairs)
        print(
            f"{name:28} {n:4d} pairs: {won_before:g} -> {won_after:g} won"
            f" ({won_before / n:.1%} -> {won_after / n:.1%}); difference {mean:+.1%}"
            f" [{mean - 1.96 * spread:+.1%}, {mean + 1.96 * spread:+.1%}];"
            f" games that changed: {sum(1 for d in differences if d)}"
        )


def strong_share(o: Mapping[str, Any], m: Matchup) -> float:
    """The stronger player's share of one game's win."""
    strong = [s for s in range(m.players) if o["levels"][s] == m.strong]
    winners = o["winners"]
    return sum(1 for s in strong if s in winners) / len(winners) if winners else 0.0


def game_length(rows: Sequence[dict[str, Any]]) -> str:
    """The median and longest game in actions, and in CPU seconds where recorded."""
    moves = sorted(o["moves"] for o in rows)
    text = f"median {moves[len(moves) // 2]} actions (at most {moves[-1]})"
    seconds = sorted(o["game_cpu"] for o in rows if "game_cpu" in o)
    if seconds:
        text += f", {seconds[len(seconds) // 2]:.1f} s of CPU (at most {seconds[-1]:.1f} s)"
    return text


def conflict_summary(rows: Sequence[dict[str, Any]], m: Matchup) -> str:
    """The stronger player's conflicts: how many it laid cards in, won, and the cards."""
    total = [0, 0, 0, 0]
    for o in rows:
        for seat in range(m.players):
            if o["levels"][seat] == m.strong and "conflicts" in o:
                total = [a + b for a, b in zip(total, o["conflicts"][seat], strict=True)]
    conflicts, entered, won, cards = total
    return (
        f"{conflicts} conflicts, entered {entered} ({entered / max(conflicts, 1):.0%}),"
        f" won {won} of those ({won / max(entered, 1):.0%}),"
        f" {cards} cards laid ({cards / max(entered, 1):.1f} a conflict entered,"
        f" {cards / max(len(rows), 1):.1f} a game)"
    )


def by_seat(rows: Sequence[dict[str, Any]], m: Matchup) -> str:
    """The stronger level's wins at each seat, and their mean: a run stopped early has the
    seats unevenly (the games are shuffled), and in a lopsided game such as the wargame the
    plain share then follows the seats more than the levels."""
    cells, rates = [], []
    for seat in range(m.players):
        mine = [o for o in rows if o["levels"][seat] == m.strong]
        won = sum(1 / len(o["winners"]) for o in mine if seat in o["winners"])
        cells.append(f"seat {seat} {won:g}/{len(mine)}")
        if mine:
            rates.append(won / len(mine))
    mean = f"{sum(rates) / len(rates):.1%}" if len(rates) == m.players else "n/a"
    return f"{', '.join(cells)}; mean over seats {mean}"


def time_hard(positions: int) -> None:
    """CPU time and iterations of hard moves at the default budget (2 s), from positions of
    games between medium bots."""
    for game_id, players in (("attila", 3), ("attika", 2), ("attila-wargame", 2)):
        game, rules = get_game(game_id), bot_for(game_id)
        options = game.resolve_options(None)
        state = game.new_state(players, "time-hard", options)
        medium = [Bot(rules, "medium", f"m{s}") for s in range(players)]
        seen: list[list[Event]] = [[] for _ in range(players)]
        rng = random.Random(0)
        timed = 0
        while not game.is_over(state) and timed < positions:
            decision = game.pending(state)[0]
            seat = decision.seat
            if seat == SYSTEM:
                action = game.legal_actions(state, SYSTEM)[0]
            else:
                view = game.view(state, seat)
                hard = Bot(rules, "hard", "timed")
                probe = rules.determinizer(view, seen[seat], seat, options).sample(rng)
                if len(game.legal_actions(probe, seat)) > 1 and rules.searched(probe, seat):
                    start = time.process_time()
                    hard.choose(view, seen[seat], seat, options)
                    spent = time.process_time() - start
                    print(
                        f"{game_id:15} step {decision.step:22} {spent:5.2f} s CPU, "
                        f"{hard.last_iterations} iterations"
                    )
                    timed += 1
                action = medium[seat].choose(view, seen[seat], seat, options)
            events = game.apply(state, seat, action)
            for s in range(players):
                seen[s].extend(visible_events(events, s))


def decision_positions(count: int, first: int = 0) -> list[tuple[Any, list[Event], int]]:
    """Attila card decisions (view, events seen, seat) of games between medium bots (numbered
    from ``first``), every third card decision with at least three actions, from as many
    games as it takes."""
    game, rules = get_game("attila"), bot_for("attila")
    options = game.resolve_options(None)
    positions: list[tuple[Any, list[Event], int]] = []
    for number in range(first, first + count):
        state = game.new_state(3, f"decisions-{number}", options)
        medium = [Bot(rules, "medium", f"decisions-{number}/{s}") for s in range(3)]
        seen: list[list[Event]] = [[] for _ in range(3)]
        cards = 0
        while not game.is_over(state) and len(positions) < count:
            seat = game.pending(state)[0].seat
            if seat == SYSTEM:
                action = game.legal_actions(state, SYSTEM)[0]
            else:
                view = game.view(state, seat)
                if state.step == "play_card" and len(game.legal_actions(state, seat)) > 2:
                    cards += 1
                    if cards % 3 == 0:
                        positions.append((view, list(seen[seat]), seat))
                action = medium[seat].choose(view, seen[seat], seat, options)
            events = game.apply(state, seat, action)
            for s in range(3):
                seen[s].extend(visible_events(events, s))
        if len(positions) >= count:
            break
    return positions


#: The methods of ``decisions``.
DECISION_METHODS = ("medium", "flat", "halving", "halving6", "halving10")


#: The actions the oracle of ``decisions`` judges up front: the best by one ply (any other
#: action a method chooses is judged when chosen, on the same draws).
ORACLE_ACTIONS = 20


def decisions(
    count: int,
    caps: Sequence[int],
    oracle_rounds: int,
    repeats: int,
    methods: Sequence[str] = DECISION_METHODS,
    first: int = 0,
) -> None:
    """How well the hard level spends its judgements (Attila's card decisions). An oracle
    judges the actions after the replies over ``oracle_rounds`` determinizations of its own
    (the ``ORACLE_ACTIONS`` best by one ply, and any other a method chooses); each method
    then chooses at each cap (``repeats`` seeds a position), and is scored by its regret (the
    oracle's best mean less the mean of the action it chose, in points of win chance) and the
    share of its choices that are the oracle's best. Methods: ``halving`` (the hard level),
    ``flat`` (the ten best by one ply, every one on every determinization: the same
    judgements at a cap), ``halving6`` and ``halving10`` (the halving of six and ten
    candidates), and medium."""
    game, rules = get_game("attila"), bot_for("attila")
    options = game.resolve_options(None)
    cells: dict[str, list[tuple[float, bool, float]]] = {}
    for p, (view, seen, seat) in enumerate(decision_positions(count, first), start=first):
        det = rules.determinizer(view, seen, seat, options)
        sample = det.sample(random.Random(f"oracle-{p}"))
        legal = game.legal_actions(sample, seat)
        values = _oracle(rules, det, sample, seat, legal, f"oracle-{p}", oracle_rounds)
        chosen: list[tuple[str, int, float]] = []
        for r in range(repeats):
            for name, choose in _decision_methods(rules, det, seat, caps, methods):
                rng = random.Random(f"decision-{p}-{r}")
                state = det.sample(rng)
                start = time.process_time()
                action = choose(state, legal, rng)
                chosen.append((name, action, time.process_time() - start))
                values.judge(action)
        top = max(values.values.values())
        for name, action, spent in chosen:
            value = values.values[action]
            cells.setdefault(name, []).append((top - value, value >= top, spent))
        print(f"position {p + 1 - first} of {count}: {len(legal)} actions", file=sys.stderr)
    print(f"{'method':16} {'choices':>7} {'regret':>8} {'best':>6} {'CPU/move':>9}")
    for name, rows in cells.items():
        n = len(rows)
        regret = 100 * sum(row[0] for row in rows) / n
        best = sum(row[1] for row in rows) / n
        cpu = 1000 * sum(row[2] for row in rows) / n
        print(f"{name:16} {n:7d} {regret:8.2f} {best:6.1%} {cpu:7.0f} ms")


@dataclass
class _Oracle:
    """Actions' means after the replies, every action on the same determinizations and
    draws whenever it is judged (``Replies``' draws do not depend on the candidates)."""

    rules: Any
    det: Any
    first: Any
    seat: int
    legal: list[Any]
    seed: str
    rounds: int
    values: dict[int, float]

    def judge(self, *indices: int) -> None:
        wanted = [i for i in indices if i not in self.values]
        if not wanted:
            return
        rng = random.Random(self.seed)
        candidates = [self.legal[i] for i in wanted]
        replies = Replies(self.rules, self.det, self.first, self.seat, candidates, rng)
        for _ in range(self.rounds):
            replies.judge_once()
        self.values.update(zip(wanted, replies.means(), strict=True))


def _oracle(
    rules: Any, det: Any, first: Any, seat: int, legal: list[Any], seed: str, rounds: int
) -> _Oracle:
    oracle = _Oracle(rules, det, first, seat, legal, seed, rounds, {})
    one_ply = one_ply_scores(rules, det, first, seat, legal, random.Random(seed))
    oracle.judge(*sorted(range(len(legal)), key=lambda i: -one_ply[i])[:ORACLE_ACTIONS])
    return oracle


def _decision_methods(
    rules: Any, det: Any, seat: int, caps: Sequence[int], methods: Sequence[str]
) -> list[tuple[str, Any]]:
    """(name, choose(state, legal, rng) -> index in legal) of each of ``methods`` at each
    cap."""

    def halving(cap: int, candidates: int) -> Any:
        def choose(state: Any, legal: list[Any], rng: random.Random) -> int:
            budget = Budget(seconds=1e9, iterations=cap)
            return hard_scores(rules, det, state, seat, legal, rng, budget, (), candidates)[1]

        return choose

    def flat(cap: int) -> Any:
        def choose(state: Any, legal: list[Any], rng: random.Random) -> int:
            scores = one_ply_scores(rules, det, state, seat, legal, rng)
            shortlist = sorted(range(len(legal)), key=lambda i: -scores[i])[:10]
            replies = Replies(rules, det, state, seat, [legal[i] for i in shortlist], rng)
            for _ in range(cap):
                replies.judge_once()
            means = replies.means()
            return shortlist[max(range(len(shortlist)), key=lambda k: (means[k], -k))]

        return choose

    def medium(state: Any, legal: list[Any], rng: random.Random) -> int:
        scores = greedy_scores(rules, det, state, seat, legal, rng)
        return max(range(len(legal)), key=lambda i: (scores[i], -i))

    out: list[tuple[str, Any]] = [("medium", medium)]
    for cap in caps:
        out += [(f"flat {cap}", flat(cap)), (f"halving {cap}", halving(cap, HARD_CANDIDATES))]
        out += [(f"halving6 {cap}", halving(cap, 6)), (f"halving10 {cap}", halving(cap, 10))]
    return [(name, choose) for name, choose in out if name.split()[0] in methods]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, default=200, help="games per match-up (fewer while developing)"
    )
    parser.add_argument(
        "--wargame-games", type=int, default=None, help="games per wargame match-up"
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=40,
        help="hard: iterations a move (Attila: determinizations)",
    )
    parser.add_argument("--processes", type=int, default=1, help="at most 2")
    parser.add_argument(
        "--seconds", type=float, default=None, help="stop after this much wall time"
    )
    parser.add_argument(
        "--only",
        default="",
        help="match-up names or patterns (attila3-*-vs-biased), comma-separated",
    )
    parser.add_argument("--time-hard", type=int, default=0, help="time N hard moves per game")
    parser.add_argument(
        "--decisions", type=int, default=0, help="judge the hard level's search at N positions"
    )
    parser.add_argument("--caps", default="2,5,20", help="--decisions: iteration caps")
    parser.add_argument(
        "--oracle", type=int, default=100, help="--decisions: the oracle's determinizations"
    )
    parser.add_argument("--repeats", type=int, default=2, help="--decisions: seeds a position")
    parser.add_argument(
        "--methods", default=",".join(DECISION_METHODS), help="--decisions: methods compared"
    )
    parser.add_argument(
        "--first", type=int, default=0, help="number of the first game (more of a match-up)"
    )
    parser.add_argument("--out", type=Path, default=None, help="append each game (JSON lines)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --out: play only the games that file does not hold yet",
    )
    parser.add_argument("--report", type=Path, default=None, help="report on such a file only")
    parser.add_argument(
        "--paired",
        type=Path,
        nargs=2,
        default=None,
        metavar=("BEFORE", "AFTER"),
        help="compare two such files game by game (the same seeds)",
    )
    args = parser.parse_args()
    if args.time_hard:
        time_hard(args.time_hard)
        return
    if args.decisions:
        caps = [int(c) for c in args.caps.split(",")]
        methods = args.methods.split(",")
        decisions(args.decisions, caps, args.oracle, args.repeats, methods, args.first)
        return
    if args.paired:
        before, after = (
            [json.loads(line) for line in p.read_text().splitlines() if line] for p in args.paired
        )
        paired(before, after)
        return
    if args.report:
        report([json.loads(line) for line in args.report.read_text().splitlines() if line])
        return
    patterns = args.only.split(",") if args.only else ["*"]
    chosen = [m for m in MATCHUPS if any(fnmatch(m.name, p) for p in patterns)]
    games = {m.game: args.games for m in chosen}
    if args.wargame_games is not None:
        games["attila-wargame"] = args.wargame_games
    played = played_games(args.out) if args.resume and args.out else frozenset()
    processes = min(args.processes, 2)
    run(chosen, games, args.iterations, processes, args.out, args.first, args.seconds, played)


def played_games(rows: Path) -> frozenset[tuple[str, int]]:
    """The (match-up, game number) pairs a file of rows (``--out``) holds, if it exists."""
    if not rows.exists():
        return frozenset()
    lines = [json.loads(line) for line in rows.read_text().splitlines() if line]
    return frozenset((row["matchup"], row["game"]) for row in lines)


if __name__ == "__main__":
    main()
