"""The wargame's hard level (engine/attila_wargame/bot.py, ``look_ahead``; docs/bots.md): its
battle cards drawn at random, its attacks medium's unless a play-out to the end of the phase
clearly gains, its cap counted in play-outs."""

from __future__ import annotations

import random

import pytest

from engine.attila_wargame.actions import Attack, End
from engine.attila_wargame.bot import ATTACK_CANDIDATES, OVERRIDE
from engine.attila_wargame.state import BATTLE_CARD, COMBAT
from engine.bots import Bot, Budget, bot_for, greedy
from engine.registry import get_game
from tests.test_bots import _wargame_siege


def test_every_column_of_the_battle_table_is_a_latin_square() -> None:
    """Why a random card is the hard level's: in every column each result comes once in each
    row and each column of the cards, so no card does better than another against a card
    drawn at random."""
    board = get_game("attila-wargame").board
    for column, table in board.cells.items():
        rows = [[table[a][d] for d in board.defence_cards] for a in board.attack_cards]
        results = sorted(rows[0])
        for row in rows:
            assert sorted(row) == results, column
        for d in range(len(board.defence_cards)):
            assert sorted(row[d] for row in rows) == results, column


def test_the_hard_level_draws_its_battle_card_at_random() -> None:
    """The Barbarian's battle card against Aquileia's worn legion: over a few seeds the hard
    bot lays more than one card (a card always the same could be read), every one legal."""
    game = get_game("attila-wargame")
    options = game.resolve_options(None)
    state = _wargame_siege(1)
    attack = next(a for a in game.legal_actions(state, 1) if isinstance(a, Attack))
    game.apply(state, 1, attack)
    assert state.step == BATTLE_CARD
    view = game.view(state, 1)
    legal = game.legal_actions(state, 1)
    cards = {
        Bot(bot_for("attila-wargame"), "hard", seed, Budget(60.0, 12)).choose(view, [], 1, options)
        for seed in range(8)
    }
    assert len(cards) > 1 and cards <= set(legal)


@pytest.mark.parametrize("legion_cf", [1, 3, 5])
def test_the_hard_attack_is_mediums_unless_a_play_out_clearly_gains(legion_cf: int) -> None:
    """At the Barbarian's combat before Aquileia: the look-ahead judges medium's attack, the
    next best by expected exchange and ``end``; it plays medium's unless another one's mean
    win chance is above it by ``OVERRIDE``; every chance is in [0, 1]; the cap is spent in
    whole rounds of play-outs."""
    game = get_game("attila-wargame")
    bot = bot_for("attila-wargame")
    state = _wargame_siege(legion_cf)
    assert state.step == COMBAT
    legal = game.legal_actions(state, 1)
    det = bot.determinizer(game.view(state, 1), [], 1, game.resolve_options(None))
    sample = det.sample(random.Random(0))
    medium = greedy(bot, det, sample, 1, legal, random.Random(0))
    chosen, chances, playouts = bot.look_ahead(
        det, sample, 1, legal, random.Random(0), Budget(60.0, 12)
    )
    assert medium in chances and End() in chances
    assert len(chances) <= ATTACK_CANDIDATES + 1
    assert all(0.0 <= chance <= 1.0 for chance in chances.values())
    assert playouts >= 12 and playouts % len(chances) == 0
    if chosen != medium:
        assert chances[chosen] > chances[medium] + OVERRIDE
    again = bot.look_ahead(det, sample, 1, legal, random.Random(0), Budget(60.0, 12))
    assert again == (chosen, chances, playouts)
