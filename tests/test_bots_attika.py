"""Attika's bots at the shrines (docs/bots.md, "Attika against the baselines"): the medium
level takes a win that one build gives, and blocks the opponent's settlement one building short
of its second shrine when one build can; the hard level's playouts build the cheapest building.
Positions along seeded games of easy bots, fixed bot seeds, engine only."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from engine.attika.actions import AttikaAction, Build
from engine.attika.bot import BOT
from engine.attika.state import REVEALED, TURN, AttikaState
from engine.bots import Bot, Budget
from engine.core import Event, visible_events
from engine.registry import get_game

GAME = get_game("attika")
OPTIONS = GAME.resolve_options(None)
BUDGET = Budget(seconds=60.0, iterations=12)
#: Seeded games of easy bots with positions of both kinds (found by playing them).
SEEDS = range(6)


def _build_positions() -> Iterator[tuple[AttikaState, list[Event], int, list[AttikaAction]]]:
    """(state, events the seat saw, seat, its legal builds) wherever the seat to move could
    build, along the seeded games."""
    for number in SEEDS:
        state = GAME.new_state(2, f"scan-{number}", OPTIONS)
        seen: list[list[Event]] = [[], []]
        easy = [Bot(BOT, "easy", f"e{s}", BUDGET) for s in range(2)]
        while not GAME.is_over(state):
            seat = GAME.pending(state)[0].seat
            if state.step in (TURN, REVEALED):
                builds = [a for a in GAME.legal_actions(state, seat) if isinstance(a, Build)]
                if builds:
                    yield state, seen[seat], seat, builds
            action = easy[seat].choose(GAME.view(state, seat), seen[seat], seat, OPTIONS)
            events = GAME.apply(state, seat, action)
            for s in range(2):
                seen[s].extend(visible_events(events, s))


def _after(state: AttikaState, seat: int, action: Any) -> AttikaState:
    after = BOT.copy(state)
    GAME.apply(after, seat, action)
    return after


def _medium(state: AttikaState, seen: list[Event], seat: int) -> Any:
    return Bot(BOT, "medium", "shrines", BUDGET).choose(GAME.view(state, seat), seen, seat, OPTIONS)


def test_medium_takes_a_win_and_blocks_one_when_a_build_can() -> None:
    wins = blocks = 0
    for state, seen, seat, builds in _build_positions():
        winning = [
            a for a in builds if (_after(state, seat, a).result or {}).get("winners") == [seat]
        ]
        other = 1 - seat
        threatened = BOT.shrine_gap(state, other) == 1
        blocking = [
            a for a in builds if threatened and BOT.shrine_gap(_after(state, seat, a), other) > 1
        ]
        if not winning and not blocking:
            continue
        chosen = _medium(state, seen, seat)
        if winning:
            wins += 1
            assert chosen in winning
        else:
            blocks += 1
            assert chosen in blocking
    assert wins >= 3 and blocks >= 1  # the seeds hold positions of both kinds


def test_the_playouts_build_the_cheapest_building() -> None:
    rules = GAME.rules
    for checked, (state, _, seat, builds) in enumerate(_build_positions()):
        if checked >= 40:
            break
        quotes = rules.quotes(state, seat, [(a.building, a.hex) for a in builds])
        costs = {
            a: 0 if q.free else sum(q.need) + q.any for a, q in zip(builds, quotes, strict=True)
        }
        chosen = BOT.policy(state, seat, GAME.legal_actions(state, seat), random.Random(checked))
        assert costs[chosen] == min(costs.values())


def test_the_search_widens_into_builds_by_their_gain_in_the_evaluation() -> None:
    """The prior's build score is what the build adds to the seat's value (paid cards against
    the debt, the shrine gap): the search tries a build paid at its share before one paid far
    above it, and reveals before a build that loses."""
    compared = 0
    for checked, (state, _, seat, builds) in enumerate(_build_positions()):
        if checked >= 30:
            break
        gains = BOT.build_gains(state, seat, builds)
        legal = GAME.legal_actions(state, seat)
        prior = dict(zip(legal, BOT.prior(state, seat, legal) or [], strict=True))
        before = BOT.value(state, seat)
        for action, gain in zip(builds, gains, strict=True):
            assert prior[action] == 2.0 + gain
            after = _after(state, seat, action)
            paid = sum(state.hands[seat]) - sum(after.hands[seat])
            quoted = GAME.rules.quote(state, seat, action.building, action.hex).cards
            if paid == quoted and after.amphorae[seat] == state.amphorae[seat]:
                assert abs(BOT.value(after, seat) - before - gain) < 1e-9
                compared += 1
    assert compared >= 100
