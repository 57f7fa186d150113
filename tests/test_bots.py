"""The computer opponents (engine/bots.py, engine/<game>/bot.py; docs/bots.md): legal moves at
every level, sealed steps included; the same move for the same seed; a move that depends only
on the seat's view (hidden parts scrambled change nothing); the determinizers rebuild the
seat's view exactly; whole games of bots end."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from engine.attila.actions import Boost, DoubleTurn, Play
from engine.attila.state import CONFLICT
from engine.attila_wargame.actions import Attack, Card, End, Move
from engine.attila_wargame.state import BATTLE_CARD, COMBAT, MOVEMENT, NOTES, PUSH
from engine.bots import (
    HARD_CANDIDATES,
    JUDGEMENTS_PER_ITERATION,
    LEVELS,
    REPLY_CANDIDATES,
    Bot,
    Budget,
    Halving,
    Level,
    Replies,
    assess,
    bot_for,
    choose,
    greedy_scores,
    hard_scores,
    reply,
)
from engine.core import SYSTEM, Event, visible_events
from engine.registry import get_game

ROOT = Path(__file__).resolve().parent.parent
#: Small, reproducible searches: the iteration cap binds long before the CPU budget.
BUDGET = Budget(seconds=60.0, iterations=12)
PLAYERS = {"attila": 3, "attika": 2, "attila-wargame": 2}


def _positions(game_id: str, seed: str, moves: int, every: int) -> list[tuple[Any, list[Any]]]:
    """(state, events seen by each seat) along a random game, every ``every`` actions."""
    game = get_game(game_id)
    players = PLAYERS[game_id]
    state = game.new_state(players, seed)
    seen: list[list[Event]] = [[] for _ in range(players)]
    rng = random.Random(seed)
    out = []
    for n in range(moves):
        if game.is_over(state):
            break
        seat = game.pending(state)[0].seat
        if n % every == 0 and seat != SYSTEM:
            out.append((game.load(game.dump(state)), [list(s) for s in seen]))
        events = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        for s in range(players):
            seen[s].extend(visible_events(events, s))
    return out


def _sealed(game_id: str, step: str, seed: str, limit: int) -> tuple[Any, list[Any]]:
    """A position of a random game waiting for a sealed ``step``."""
    game = get_game(game_id)
    players = PLAYERS[game_id]
    for attempt in range(20):
        state = game.new_state(players, f"{seed}-{attempt}")
        seen: list[list[Event]] = [[] for _ in range(players)]
        rng = random.Random(attempt)
        for _ in range(limit):
            if game.is_over(state):
                break
            pending = game.pending(state)
            if pending[0].seat != SYSTEM and pending[0].step == step:
                return state, seen
            seat = pending[0].seat
            events = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
            for s in range(players):
                seen[s].extend(visible_events(events, s))
    raise AssertionError(f"no {step} step reached")


def _move(game_id: str, state: Any, seen: list[Any], seat: int, level: Level, seed: str) -> Any:
    game = get_game(game_id)
    return choose(game_id, game.view(state, seat), seen[seat], seat, level, seed, None, BUDGET)


@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_every_level_plays_legal_moves(game_id: str) -> None:
    game = get_game(game_id)
    for state, seen in _positions(game_id, "legal", 160, 23):
        for decision in game.pending(state):
            if decision.seat == SYSTEM:
                continue
            legal = game.legal_actions(state, decision.seat)
            for level in LEVELS:
                action = _move(game_id, state, seen, decision.seat, level, "s")
                assert action in legal, (game_id, level, decision)


@pytest.mark.parametrize(
    ("game_id", "step", "limit"),
    [
        ("attila", CONFLICT, 400),
        ("attila-wargame", NOTES, 1),
        ("attila-wargame", BATTLE_CARD, 6000),
    ],
)
def test_sealed_steps_are_answered_by_every_level(game_id: str, step: str, limit: int) -> None:
    game = get_game(game_id)
    state, seen = _sealed(game_id, step, "sealed", limit)
    for decision in game.pending(state):
        assert decision.sealed
        legal = game.legal_actions(state, decision.seat)
        for level in LEVELS:
            assert _move(game_id, state, seen, decision.seat, level, "s") in legal


def test_simultaneous_conflicts_are_answered() -> None:
    game = get_game("attila")
    options = {"CONFLICT_COMMIT_ORDER": "simultaneous"}
    rng = random.Random(5)
    state = game.new_state(3, "simultaneous", options)
    for _ in range(400):
        pending = game.pending(state)
        if pending[0].step == CONFLICT and len(pending) > 1:
            break
        seat = pending[0].seat
        game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    else:
        raise AssertionError("no simultaneous conflict reached")
    for decision in game.pending(state):
        view = game.view(state, decision.seat)
        action = choose("attila", view, [], decision.seat, "hard", 1, options, BUDGET)
        assert action in game.legal_actions(state, decision.seat)


@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_a_seed_gives_the_same_move(game_id: str) -> None:
    game = get_game(game_id)
    state, seen = _positions(game_id, "seeded", 60, 59)[-1]
    seat = next(d.seat for d in game.pending(state) if d.seat != SYSTEM)
    for level in LEVELS:
        first = _move(game_id, state, seen, seat, level, "same")
        assert all(_move(game_id, state, seen, seat, level, "same") == first for _ in range(2))


def _scrambled(game_id: str, state: Any, seat: int, rng: random.Random) -> Any:
    """The same position with every part ``seat`` cannot see shuffled anew."""
    game = get_game(game_id)
    other = game.load(game.dump(state))
    other.seed = "another seed"
    if game_id == "attila":
        pool = other.deck + [c for s, h in enumerate(other.hands) if s != seat for c in h]
        rng.shuffle(pool)
        for s, hand in enumerate(other.hands):
            if s != seat:
                other.hands[s], pool = sorted(pool[: len(hand)]), pool[len(hand) :]
        other.deck = pool
    elif game_id == "attika":
        cards = list(other.deck)
        for s, hand in enumerate(other.hands):
            if s != seat:
                cards += [k for k, n in enumerate(hand) for _ in range(n)]
        rng.shuffle(cards)
        for s, hand in enumerate(other.hands):
            if s != seat:
                size = sum(hand)
                other.hands[s] = [0] * len(hand)
                for card in cards[:size]:
                    other.hands[s][card] += 1
                cards = cards[size:]
        other.deck = cards
        rng.shuffle(other.tile_pile)
        for stacks in other.stacks:
            rest = [b for stack in stacks[1:] for b in stack]
            rng.shuffle(rest)
            rng.shuffle(stacks[0])
            for stack in stacks[1:]:
                stack[:], rest = rest[: len(stack)], rest[len(stack) :]
    else:
        rules = game.rules
        if rules.seats[seat] == "roman" and "traitor" in other.notes:
            if "traitor" not in other.notes_fired:
                other.notes["traitor"] = rng.choice(rules.traitor_candidates)
                other.notes["aetius"] = rng.randint(1, 14)
        elif "suborned" in other.notes and "suborned" not in other.notes_fired:
            other.notes["suborned"] = rng.choice(rules.suborned_candidates)
    assert game.view(other, seat) == game.view(state, seat)
    return other


@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_the_move_depends_only_on_the_seats_view(game_id: str) -> None:
    game = get_game(game_id)
    rng = random.Random(1)
    positions = _positions(game_id, "hidden", 400 if game_id != "attila-wargame" else 600, 97)
    for state, seen in positions[1:4]:
        seat = next(d.seat for d in game.pending(state) if d.seat != SYSTEM)
        other = _scrambled(game_id, state, seat, rng)
        assert game.dump(other) != game.dump(state) or game_id == "attila-wargame"
        for level in ("medium", "hard"):
            assert _move(game_id, state, seen, seat, level, "x") == _move(
                game_id, other, seen, seat, level, "x"
            )


@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_a_determinization_shows_the_seat_its_own_view(game_id: str) -> None:
    game, rules = get_game(game_id), bot_for(game_id)
    options = game.resolve_options(None)
    rng = random.Random(2)
    for state, seen in _positions(game_id, "view", 3000, 37 if game_id == "attila" else 250):
        for decision in game.pending(state):
            if decision.seat == SYSTEM:
                continue
            view = game.view(state, decision.seat)
            sample = rules.determinizer(view, seen[decision.seat], decision.seat, options).sample(
                rng
            )
            assert game.view(sample, decision.seat) == view
            assert set(map(repr, game.legal_actions(sample, decision.seat))) == set(
                map(repr, game.legal_actions(state, decision.seat))
            )


@pytest.mark.parametrize(
    ("game_id", "levels", "cap", "from_round"),
    [
        ("attila", ("easy", "medium", "medium"), 400, 0),
        ("attika", ("easy", "medium"), 600, 0),
        # A whole wargame of medium bots is about a thousand moves of 10-30 ms: the test
        # joins a random game at round 15 and lets the bots play the last two rounds.
        ("attila-wargame", ("medium", "medium"), 3000, 15),
    ],
)
def test_bots_play_a_game_to_its_end(
    game_id: str, levels: tuple[Level, ...], cap: int, from_round: int
) -> None:
    game, rules = get_game(game_id), bot_for(game_id)
    players = len(levels)
    options = game.resolve_options(None)
    state = game.new_state(players, "whole", options)
    seen: list[list[Event]] = [[] for _ in range(players)]
    rng = random.Random(0)
    while from_round and state.round < from_round:
        seat = game.pending(state)[0].seat
        events = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        for s in range(players):
            seen[s].extend(visible_events(events, s))
    bots = [Bot(rules, level, f"whole-{s}", BUDGET) for s, level in enumerate(levels)]
    for _ in range(cap):
        if game.is_over(state):
            break
        seat = game.pending(state)[0].seat
        if seat == SYSTEM:
            action = game.legal_actions(state, SYSTEM)[0]
        else:
            action = bots[seat].choose(game.view(state, seat), seen[seat], seat, options)
        events = game.apply(state, seat, action)
        for s in range(players):
            seen[s].extend(visible_events(events, s))
    assert game.is_over(state)
    assert game.result(state)["winners"]


def test_the_benchmark_runs_and_reports(tmp_path: Path) -> None:
    """benchmarks/bots.py plays a tiny match-up, records it, reports from the record, pairs
    two records game by game, and resumes a record with the games it lacks."""
    out = tmp_path / "games.jsonl"
    script = [sys.executable, str(ROOT / "benchmarks" / "bots.py")]
    args = ["--games", "2", "--iterations", "2", "--processes", "1"]
    args += ["--only", "attila3-medium-vs-easy", "--out", str(out)]
    run = subprocess.run([*script, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(row["game"] for row in rows) == [0, 1]  # numbered, to pair two runs
    report = subprocess.run(
        [*script, "--report", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert report.returncode == 0, report.stderr[-2000:]
    assert "attila3-medium-vs-easy" in report.stdout
    assert "first player" in report.stdout
    assert "mean over seats" in report.stdout
    same = [*script, "--paired", str(out), str(out)]
    paired = subprocess.run(same, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert paired.returncode == 0, paired.stderr[-2000:]
    assert "2 pairs" in paired.stdout and "difference +0.0%" in paired.stdout
    more = [*script, *args, "--resume"]
    more[more.index("--games") + 1] = "3"
    resumed = subprocess.run(more, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(row["game"] for row in rows) == [0, 1, 2]  # the third game only


def test_the_benchmark_judges_the_hard_levels_decisions() -> None:
    """benchmarks/bots.py --decisions scores each method's choices against its oracle."""
    script = [sys.executable, str(ROOT / "benchmarks" / "bots.py")]
    args = ["--decisions", "1", "--caps", "1", "--oracle", "2", "--repeats", "1"]
    args += ["--methods", "flat,halving"]
    run = subprocess.run([*script, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["method", "choices", "regret", "best", "CPU/move"]
    assert [line.split()[:3] for line in lines[1:]] == [["flat", "1", "1"], ["halving", "1", "1"]]


# -- the wargame's evaluation pieces ---------------------------------------------------------


def _wargame_movement() -> Any:
    """A wargame at the Barbarian's first movement (the notes written, nothing moved)."""
    game = get_game("attila-wargame")
    state = game.new_state(2, "pieces")
    while state.step != MOVEMENT:
        seat = game.pending(state)[0].seat
        game.apply(state, seat, game.legal_actions(state, seat)[0])
    return state


def test_the_wargame_combat_prior_ends_before_a_losing_assault() -> None:
    """A lone Ostrogoth against Aquileia's walled legion (1:3) loses points on every pair of
    cards: ``end`` ranks before it. Five of them against the same legion worn down to 1 (6:1)
    win: that attack ranks first."""
    game = get_game("attila-wargame")
    board, rules = game.board, game.rules
    state = _wargame_movement()
    aquileia = board.index_of_label["2412"]
    assert [u for u, h in state.pos.items() if h == aquileia] == ["W-IV-INF"]
    around = [n for n in board.neighbours[aquileia] if n not in state.pos.values()]
    goths = [u for u in rules.order if rules.people_of[u] == "ostrogoths" and u in state.pos]
    for unit, h in zip(goths, around, strict=False):
        state.pos[unit] = h
    bot = bot_for("attila-wargame")
    lone = Attack(aquileia, (goths[0],))
    assert bot.attack_value(state, lone) < 0
    state.step = COMBAT
    legal = [End(), lone]
    assert bot.prior(state, 1, legal) == [0.0, bot.attack_value(state, lone)]
    state.cf["W-IV-INF"] = 1
    many = Attack(aquileia, tuple(goths[: len(around)]))
    assert len(many.attackers) == 5
    assert bot.attack_value(state, many) > 2 > bot.attack_value(state, lone)


def test_the_barbarian_marches_on_past_a_walled_garrison() -> None:
    """An Ostrogoth next to Aquileia's walled legion: drawn to its nearest city alone it would
    stay there (no step gains) and assault the walls; the Barbarian's plan, which weighs the
    garrison and the cities the Ostrogoths may enter, moves it on. The plan is the prior, so
    both levels march by it (the hard level has no plan of its own)."""
    game = get_game("attila-wargame")
    board = game.board
    state = _wargame_movement()
    aquileia = board.index_of_label["2412"]
    free = [n for n in board.neighbours[aquileia] if n not in state.pos.values()]
    state.pos["OST-3"] = free[0]
    bot = bot_for("attila-wargame")
    legal = game.legal_actions(state, 1)
    mine = [i for i, a in enumerate(legal) if isinstance(a, Move) and a.unit == "OST-3"]
    prior = bot.prior(state, 1, legal)
    assert prior is not None
    assert max(prior[i] for i in mine) > 0
    medium = Bot(bot, "medium", "march", BUDGET)
    step = medium.choose(game.view(state, 1), [], 1, game.resolve_options(None))
    assert isinstance(step, Move)


def _wargame_siege(legion_cf: int) -> Any:
    """The Barbarian's combat phase with three Ostrogoths (4 each) around Aquileia's walled
    legion (its defence twice ``legion_cf``) and no other battle owed: ``end`` is legal."""
    game = get_game("attila-wargame")
    board, rules = game.board, game.rules
    state = _wargame_movement()
    around = [board.index_of_label[label] for label in ("2513", "2512", "2411")]
    goths = [u for u in rules.order if rules.people_of[u] == "ostrogoths" and u in state.pos]
    for unit, h in zip(goths, around, strict=False):
        state.pos[unit] = h
    state.cf["W-IV-INF"] = legion_cf
    state.phase, state.step = "c", COMBAT
    assert End() in game.legal_actions(state, 1)
    return state


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_attacks_are_taken_by_their_expected_exchange(level: Level, seed: str) -> None:
    """Twelve against Aquileia's legion at 10 is better than even by strength but falls in the
    1:1 column, which costs the attacker on average: both levels end the phase. Against the
    legion at 2 (6:1) they attack with all three."""
    game = get_game("attila-wargame")
    rules, bot = game.rules, bot_for("attila-wargame")
    options = game.resolve_options(None)
    player = Bot(bot, level, seed, BUDGET)
    even = _wargame_siege(5)
    assert rules.strength(even, rules.ctx(even), "W-IV-INF", defending=True) == 10
    assert player.choose(game.view(even, 1), [], 1, options) == End()
    weak = _wargame_siege(1)
    attack = player.choose(game.view(weak, 1), [], 1, options)
    assert isinstance(attack, Attack) and len(attack.attackers) == 3
    assert rules.column(weak, 12, 2) == "6:1"


def test_the_replies_stop_at_the_bots_next_decision() -> None:
    """Medium's look-ahead plays the other seats' moves only: from positions along random
    games, after a card (and its influence) of the active seat, the replies end where that
    seat decides again, or the game ends, or ``reply_moves`` are played; the seat's influence
    is untouched, and the others did move."""
    game, rules = get_game("attila"), bot_for("attila")
    checked = 0
    for state, _ in _positions("attila", "replies", 600, 5):
        seat = game.pending(state)[0].seat
        if state.step != "play_card":
            continue
        rng = random.Random(checked)
        after = rules.copy(state)
        while not game.is_over(after) and game.pending(after)[0].seat == seat:
            game.apply(
                after,
                seat,
                rng.choice(rules.reasonable(after, seat, game.legal_actions(after, seat))),
            )
        if game.is_over(after) or any(d.seat == seat for d in game.pending(after)):
            continue
        influence, turn = list(after.influence[seat]), after.turn
        reply(rules, after, seat, rng)
        assert after.influence[seat] == influence
        assert after.turn > turn
        waits = any(d.seat == seat for d in game.pending(after))
        assert game.is_over(after) or waits or after.turn >= turn + rules.reply_moves // 4
        checked += 1
    assert checked >= 10


def test_an_action_tile_is_judged_with_the_rest_of_the_turn_and_the_replies() -> None:
    """An action that keeps the turn (an Attila action tile) is not judged as if the others
    never answered: the replies first finish the bot's turn by the quick policy (its card
    and influence), then play the others' moves."""
    game, rules = get_game("attila"), bot_for("attila")
    checked = 0
    for state, _ in _positions("attila", "tiles", 600, 2):
        seat = game.pending(state)[0].seat
        tiles = [a for a in game.legal_actions(state, seat) if isinstance(a, Boost | DoubleTurn)]
        if state.step != "play_card" or not tiles:
            continue
        after = rules.copy(state)
        game.apply(after, seat, tiles[0])
        assert any(d.seat == seat for d in game.pending(after))  # the turn is still the bot's
        stones, turn = sum(map(sum, after.stones)), after.turn
        reply(rules, after, seat, random.Random(checked))
        assert sum(map(sum, after.stones)) > stones  # its card was played
        assert game.is_over(after) or after.turn > turn + 1  # and the others moved
        checked += 1
    assert checked >= 3


def test_the_hard_level_is_medium_judgement_over_more_determinizations() -> None:
    """Attila's hard level judges medium's shortlist and more after the others' replies, by
    successive halving over the judgements its cap allows, and plays the halving's winner:
    its shortlist holds the actions medium judged after the replies and medium's choice, its
    move is one of its own shortlist, and the cap is spent to within one round of the last
    phase (two judgements)."""
    game, rules = get_game("attila"), bot_for("attila")
    options = game.resolve_options(None)
    checked = 0
    for state, seen in _positions("attila", "hard-judgement", 400, 9):
        seat = game.pending(state)[0].seat
        view = game.view(state, seat)
        det = rules.determinizer(view, seen[seat], seat, options)
        sample = det.sample(random.Random(checked))
        legal = game.legal_actions(sample, seat)
        if state.step != "play_card" or len(legal) <= REPLY_CANDIDATES:
            continue
        medium = greedy_scores(rules, det, sample, seat, legal, random.Random(1))
        hard, winner, judgements = hard_scores(
            rules, det, sample, seat, legal, random.Random(1), Budget(60.0, iterations=7)
        )
        assert 7 * JUDGEMENTS_PER_ITERATION - 2 < judgements <= 7 * JUDGEMENTS_PER_ITERATION
        judged = {i for i, score in enumerate(hard) if score >= 1.0}
        assert len(judged) == min(HARD_CANDIDATES, len(legal))
        assert {i for i, score in enumerate(medium) if score >= 1.0} <= judged
        assert medium.index(max(medium)) in judged
        assert winner in judged
        bot = Bot(rules, "hard", "h", Budget(60.0, iterations=7))
        assert bot.choose(view, seen[seat], seat, options) in [legal[i] for i in judged]
        assert bot.last_iterations == 7
        checked += 1
    assert checked >= 5


def test_the_halving_spends_its_cap_exactly_and_deterministically() -> None:
    """At every cap the halving makes the judgements the cap allows, to within one round of
    its last phase, however many candidates; the same inputs give the same move and the same
    judgements; and the winner is the best mean of the last phase's two."""
    game, rules = get_game("attila"), bot_for("attila")
    options = game.resolve_options(None)
    state, seen = next(
        (s, e)
        for s, e in _positions("attila", "halving", 200, 7)
        if s.step == "play_card" and len(game.legal_actions(s, game.pending(s)[0].seat)) > 16
    )
    seat = game.pending(state)[0].seat
    view = game.view(state, seat)
    det = rules.determinizer(view, seen[seat], seat, options)
    sample = det.sample(random.Random(0))
    legal = game.legal_actions(sample, seat)
    for candidates in (2, 3, 10, HARD_CANDIDATES):
        for cap in (1, 2, 5, 20):
            allowed = cap * JUDGEMENTS_PER_ITERATION
            runs = [
                hard_scores(
                    rules,
                    det,
                    sample,
                    seat,
                    legal,
                    random.Random(cap),
                    Budget(60.0, iterations=cap),
                    candidates=candidates,
                )
                for _ in range(2)
            ]
            assert runs[0] == runs[1]
            scores, winner, judgements = runs[0]
            if allowed >= candidates:
                assert allowed - 2 < judgements <= allowed, (candidates, cap)
            else:  # one round of every candidate at least
                assert judgements == candidates
            assert scores[winner] >= 1.0


def test_the_halving_shortlist_is_halved_towards_the_best_means() -> None:
    """A halving over fixed candidates: after each phase the better half by mean stays (ties:
    the earlier), and the last phase's winner is the better of its two."""

    class Fixed(Replies[int, int]):
        def __init__(self, values: list[float]) -> None:
            self.candidates, self.values = list(range(len(values))), values
            self.totals, self.counts = [0.0] * len(values), [0] * len(values)
            self.rounds = self.judgements = 0

        def judge_once(self, which: Sequence[int] | None = None) -> None:
            for k in self.candidates if which is None else which:
                self.totals[k] += self.values[k]
                self.counts[k] += 1
                self.judgements += 1
            self.rounds += 1

    values = [0.1, 0.5, 0.3, 0.9, 0.2, 0.8, 0.4, 0.7, 0.6, 0.0]
    fixed = Fixed(values)
    halving = Halving(fixed, contenders=len(values))
    halving.run(Budget(60.0, iterations=20))
    assert fixed.judgements == 20 * JUDGEMENTS_PER_ITERATION
    assert halving.winner() == 3
    assert sorted(halving.alive) == [3, 5]
    assert fixed.counts[9] < fixed.counts[1] < fixed.counts[7] < fixed.counts[5]


def test_the_quick_policy_plays_the_card_that_scores_most_now() -> None:
    """Seat 0 ties the Huns' leader (12 stones on the board) and is alone on the Franks' track
    with none on the board: a Hun and the influence take the lead (12 more points now), a
    Frank and its influence bring 2 (a stone and a province)."""
    game, rules = get_game("attila"), bot_for("attila")
    people = {p.id: p.index for p in game.board.peoples}
    huns, franks = people["huns"], people["franks"]
    state = game.new_state(3, "quick-policy", game.resolve_options(None))
    for province in (0, 1, 2):
        state.stones[province][huns] = 4
    state.supply[huns] -= 12
    state.influence[0][huns] = state.influence[1][huns] = 5
    state.influence[0][franks] = 3
    state.hands[0] = [franks, huns]
    state.active = 0
    legal = game.legal_actions(state, 0)
    for seed in range(5):
        action = rules.policy(state, 0, legal, random.Random(seed))
        assert isinstance(action, Play) and action.people == huns


@pytest.mark.parametrize("seed", ["a", "b", "f"])
def test_the_review_names_the_move_the_hard_level_plays(seed: str) -> None:
    """Where the hard level does not search (the wargame's choice of attack), the review's
    "would have played" is the move the hard bot plays: ``end`` before the 1:1 assault on
    Aquileia (a search of 20 iterations attacks there on these seeds), with a win chance for
    each."""
    game = get_game("attila-wargame")
    options = game.resolve_options(None)
    state = _wargame_siege(5)
    view = game.view(state, 1)
    played = Bot(bot_for("attila-wargame"), "hard", seed, BUDGET).choose(view, [], 1, options)
    assert played == End()
    assault = next(
        a for a in game.legal_actions(state, 1) if isinstance(a, Attack) and len(a.attackers) == 3
    )
    (best, best_chance), (judged, assault_chance) = assess(
        "attila-wargame", view, [], 1, [assault], seed, options, BUDGET
    )
    assert (best, judged) == (End(), assault)
    assert 0 <= best_chance <= 1 and 0 <= assault_chance <= 1


def _wargame_battle(legion_cf: int) -> Any:
    """``_wargame_siege(legion_cf)`` with the three Ostrogoths' attack made: both seats owe
    a battle card."""
    game = get_game("attila-wargame")
    state = _wargame_siege(legion_cf)
    game.apply(state, 1, _three_goths(state))
    assert state.step == BATTLE_CARD
    return state


def _three_goths(state: Any) -> Attack:
    game = get_game("attila-wargame")
    return next(
        a for a in game.legal_actions(state, 1) if isinstance(a, Attack) and len(a.attackers) == 3
    )


def test_the_hard_levels_push_is_medium_one_ply() -> None:
    """A push has one outcome: the hard level takes the push the one-ply evaluation likes best,
    as medium does, without a search. The battle card before it is searched."""
    game = get_game("attila-wargame")
    options = game.resolve_options(None)
    state = _wargame_battle(3)
    assert bot_for("attila-wargame").searched(state, 1)
    game.apply(state, 1, Card("al"))
    game.apply(state, 0, Card("md"))
    game.apply(state, SYSTEM, game.legal_actions(state, SYSTEM)[0])
    assert state.battle is not None and state.battle.result == "DE2"
    assert state.step == PUSH and game.pending(state)[0].seat == 1
    bot = bot_for("attila-wargame")
    legal = game.legal_actions(state, 1)
    scores = greedy_scores(
        bot,
        bot.determinizer(game.view(state, 1), [], 1, options),
        state,
        1,
        legal,
        random.Random(0),
    )
    assert scores[0] != scores[1]
    best = legal[scores.index(max(scores))]
    view = game.view(state, 1)
    for seed in ("a", "b", "c"):
        hard = Bot(bot, "hard", seed, BUDGET)
        assert hard.choose(view, [], 1, options) == best
        assert hard.last_iterations == 0
        assert Bot(bot, "medium", seed, BUDGET).choose(view, [], 1, options) == best
