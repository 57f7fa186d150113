"""Opponents that anchor the bots' strength (benchmarks/bots.py, docs/bots.md).

Test and benchmark opponents, not product bots: they live beside the benchmark so that the
service can never offer them and so that nothing of engine/<game>/bot.py's evaluation, priors
or reasonable moves leaks into them (a baseline that shared the bots' evaluation would measure
the bots against themselves). Like the bots, a baseline sees only its seat's view, the events
that seat saw and the public options: it rebuilds a state consistent with the view by the
game's determinizer (which reads the view, nothing else) and reads only public facts or its
own hand from it.

- ``uniform``: uniform among all legal actions.
- ``biased``: random with one habit per game. Attila: takes the influence 80% of the time
  (else waives, with or without a second stone), lays cards in half the conflicts (a random
  non-empty set of its eligible cards), plays a card nine times in ten when a tile could be
  used instead. Attika: builds when it can. Wargame: attacks when it can.
- ``heuristic``: a short script. Attila: plays the card whose stone and influence raise its
  own score now the most, takes the influence, lays every eligible card for the present
  people it leads on if that people is the weakest there, never uses a tile. Attika: builds
  the cheapest building it can (fewest cards), else reveals, else ends the turn. Wargame:
  attacks at the best odds (attack strength over defence strength, at least 1:1), else
  steps a combat unit toward the nearest objective ("+" city not held by its side), else ends
  the phase.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from engine.attika.actions import Build, EndTurn, Reveal, Store
from engine.attika.state import REVEALED, TURN
from engine.attila.actions import Commit, Discard, Play, TakeInfluence, Waive
from engine.attila.bot import copy_state
from engine.attila.state import CONFLICT, INFLUENCE, PLAY_CARD
from engine.attila_wargame.actions import Attack, End, Move
from engine.attila_wargame.state import COMBAT, MOVEMENT
from engine.bots import bot_for
from engine.core import Event

BASELINES: Final = ("uniform", "biased", "heuristic")

Chooser = Callable[[Any, Any, int, list[Any], random.Random], Any]


class Baseline:
    """One baseline player of one game: ``choose`` answers the seat's pending decision."""

    def __init__(self, game_id: str, kind: str, seed: str) -> None:
        if kind not in BASELINES:
            raise ValueError(f"unknown baseline {kind!r}")
        self.rules = bot_for(game_id)
        self.game = self.rules.game
        self.kind = kind
        self.rng = random.Random(f"{seed}/{kind}")
        self.chooser: Chooser = _CHOOSERS[(game_id, kind)]

    def choose(
        self,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> Any:
        state = self.rules.determinizer(view, events, seat, options).sample(self.rng)
        legal = self.game.legal_actions(state, seat)
        if len(legal) == 1:
            return legal[0]
        return self.chooser(self.game, state, seat, legal, self.rng)


def _uniform(game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
    return rng.choice(legal)


# -- Attila --------------------------------------------------------------------------------------


def _attila_biased(game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
    if state.step == INFLUENCE:
        if rng.random() < 0.8:
            return TakeInfluence()
        return rng.choice([a for a in legal if isinstance(a, Waive)])
    if state.step == CONFLICT:
        laid = [a for a in legal if a.cards]
        return rng.choice(laid) if laid and rng.random() < 0.5 else Commit(())
    if state.step == PLAY_CARD:
        cards = [a for a in legal if isinstance(a, Play | Discard)]
        if cards and rng.random() < 0.9:
            return rng.choice(cards)
    return rng.choice(legal)


def _attila_heuristic(
    game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random
) -> Any:
    rules = game.rules
    if state.step == PLAY_CARD:
        plays = [a for a in legal if isinstance(a, Play)]
        if not plays:
            return rng.choice([a for a in legal if isinstance(a, Discard)] or legal)
        before = _attila_points(rules, state, seat)
        gains = []
        for play in plays:
            after = copy_state(state)
            game.apply(after, seat, play)
            game.apply(after, seat, TakeInfluence())
            gains.append(_attila_points(rules, after, seat) - before)
        return _best(plays, gains, rng)
    if state.step == INFLUENCE:
        return TakeInfluence()
    if state.step == CONFLICT:
        return _attila_heuristic_commit(state, seat, legal)
    cardless = [a for a in legal if a.kind in ("end", "commit")]
    return cardless[0] if cardless else rng.choice(legal)


def _attila_heuristic_commit(state: Any, seat: int, legal: list[Any]) -> Any:
    """Every eligible card for the present people it leads on, if that people is the
    weakest in the province (so it would leave); else pass."""
    conflict = state.conflict
    stones = state.stones[conflict.province]
    weakest = min(stones[p] for p in conflict.present)
    for people in conflict.present:
        track = [row[people] for row in state.influence]
        leads = track[seat] > 0 and track[seat] == max(track)
        if leads and stones[people] == weakest:
            cards = tuple(c for c in sorted(state.hands[seat]) if c == people)
            if Commit(cards) in legal:
                return Commit(cards)
    return Commit(())


def _attila_points(rules: Any, state: Any, seat: int) -> int:
    """What ``seat`` would score if every people were scored now, plus its points."""
    peoples = range(len(state.supply))
    now = sum(int(rules.score_people(state, p).get(seat, 0)) for p in peoples)
    return int(state.scores[seat]) + now


# -- Attika --------------------------------------------------------------------------------------


def _attika_biased(game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
    builds = [a for a in legal if isinstance(a, Build)]
    return rng.choice(builds or legal)


def _attika_heuristic(
    game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random
) -> Any:
    rules = game.rules
    builds = [a for a in legal if isinstance(a, Build)]
    if builds:
        costs = [rules.quote(state, seat, b.building, b.hex).cards for b in builds]
        return _best(builds, [-c for c in costs], rng)
    if state.step == REVEALED:
        return Store()
    if state.step == TURN:
        reveals = [a for a in legal if isinstance(a, Reveal)]
        return reveals[0] if reveals else EndTurn()
    return rng.choice(legal)


# -- the wargame ---------------------------------------------------------------------------------


def _wargame_biased(game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
    attacks = [a for a in legal if isinstance(a, Attack)]
    return rng.choice(attacks or legal)


def _wargame_heuristic(
    game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random
) -> Any:
    if state.step == COMBAT:
        return _wargame_attack(game, state, legal, rng)
    if state.step == MOVEMENT:
        return _wargame_march(game, state, seat, legal, rng)
    return rng.choice(legal)


def _wargame_attack(game: Any, state: Any, legal: list[Any], rng: random.Random) -> Any:
    """The attack at the best odds, if at least 1:1 (or if an attack is owed)."""
    rules = game.rules
    ctx = rules.ctx(state)
    attacks = [a for a in legal if isinstance(a, Attack)]
    if not attacks:
        return rng.choice(legal)
    odds = []
    for attack in attacks:
        defenders = [
            u
            for u in ctx.units_at.get(attack.target, ())
            if rules.is_combat[u] and u not in ctx.neutralised
        ]
        defence = sum(rules.strength(state, ctx, u, defending=True) for u in defenders)
        strength = sum(rules.strength(state, ctx, u, defending=False) for u in attack.attackers)
        odds.append(strength / defence if defence else 10.0)
    best = _best(attacks, odds, rng)
    if End() in legal and max(odds) < 1.0:
        return End()
    return best


def _wargame_march(game: Any, state: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
    """The step that brings a combat unit nearest an objective of its side (a "+" city no
    combat unit of its side holds), if it brings it nearer; else ``end``."""
    rules, board = game.rules, game.board
    side = rules.seats[seat]
    held = {h for u, h in state.pos.items() if rules.is_combat[u] and rules.side(state, u) == side}
    objectives = [c.hex for c in board.cities if c.plus and c.hex not in held]
    if not objectives:
        return End() if End() in legal else rng.choice(legal)

    distances: dict[int, int] = {}  # a unit's hex is asked once per step it may take

    def nearest(h: int) -> int:
        got = distances.get(h)
        if got is None:
            got = distances[h] = min(int(board.distance(h, c)) for c in objectives)
        return got

    steps = [a for a in legal if isinstance(a, Move) and rules.is_combat[a.unit]]
    gains = [nearest(state.pos[m.unit]) - nearest(m.path[-1]) for m in steps]
    if steps and max(gains) > 0:
        return _best(steps, [float(g) for g in gains], rng)
    return End() if End() in legal else rng.choice(legal)


def _best(actions: list[Any], scores: Sequence[float], rng: random.Random) -> Any:
    top = max(scores)
    return rng.choice([a for a, s in zip(actions, scores, strict=True) if s >= top - 1e-9])


_CHOOSERS: dict[tuple[str, str], Chooser] = {
    ("attila", "uniform"): _uniform,
    ("attila", "biased"): _attila_biased,
    ("attila", "heuristic"): _attila_heuristic,
    ("attika", "uniform"): _uniform,
    ("attika", "biased"): _attika_biased,
    ("attika", "heuristic"): _attika_heuristic,
    ("attila-wargame", "uniform"): _uniform,
    ("attila-wargame", "biased"): _wargame_biased,
    ("attila-wargame", "heuristic"): _wargame_heuristic,
}
