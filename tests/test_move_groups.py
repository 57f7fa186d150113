"""The legal moves grouped by kind for mails (``Game.move_groups``): every legal action in
exactly one group, the counts add up, the examples are moves of that kind, and every kind a
game can offer a player has a rule in the game's own words."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

import pytest

from engine.core import MOVE_GROUP_ALL, SYSTEM, Game
from engine.registry import get_game

SEATS = {"attila": 3, "attika": 3, "attila-wargame": 2}


def positions(game: Game, players: int, seed: str, moves: int) -> list[tuple[object, int]]:
    """(state, seat) pairs along a random game, for the seats that have legal moves."""
    state = game.new_state(players, seed, None)
    rng = random.Random(seed)
    out = []
    for _ in range(moves):
        pending = [d for d in game.pending(state) if d.seat != SYSTEM]
        if not pending:
            break
        seat = pending[0].seat
        legal = game.legal_actions(state, seat)
        if not legal:
            break
        out.append((game.load(game.dump(state)), seat))
        game.apply(state, seat, rng.choice(legal))
    return out


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_every_legal_action_is_in_exactly_one_group(game_type: str) -> None:
    game = get_game(game_type)
    seen_kinds: set[str] = set()
    for state, seat in positions(game, SEATS[game_type], f"groups-{game_type}", 40):
        legal = game.legal_actions(state, seat)
        groups = game.move_groups(legal)
        assert sum(g.count for g in groups) == len(legal)
        assert len({g.kind for g in groups}) == len(groups)  # one group per kind
        for group in groups:
            of_kind = [game.notation(a) for a in legal if a.kind == group.kind]
            assert group.count == len(of_kind)
            assert set(group.examples) <= set(of_kind) and group.examples
            if group.count <= MOVE_GROUP_ALL:
                assert list(group.examples) == of_kind  # a small group is listed whole
            assert group.rule, f"{game_type}: no rule for {group.kind}"
            assert "[" not in group.rule and "{" not in group.rule
            seen_kinds.add(group.kind)
    assert seen_kinds


def test_a_game_without_rules_still_groups_by_kind() -> None:
    """The engine's default: one group per kind, no rule, the examples in notation."""
    game = get_game("attila")

    class Bare(type(game)):
        move_rules: ClassVar[Mapping[str, str]] = {}

    bare = Bare(game.board)
    state = bare.new_state(2, "groups-default", None)
    seat = next(d.seat for d in bare.pending(state) if d.seat != SYSTEM)
    legal = bare.legal_actions(state, seat)
    groups = bare.move_groups(legal)
    assert sum(g.count for g in groups) == len(legal)
    assert groups and all(g.rule == "" and g.examples for g in groups)
