"""A seat that resigned is marked in the pictures and the text summaries (issue 13's players at
the table): in a game of three or more the others play on, and the table shows who left."""

from __future__ import annotations

import re

import pytest

from engine.core import Resign
from engine.registry import get_game
from service import pictures

NAMES = ["Anna", "Bruno", "Carla"]


@pytest.mark.parametrize("game_type", ["attila", "attika"])
@pytest.mark.parametrize(("lang", "word"), [("en", "resigned"), ("de", "aufgegeben")])
def test_a_resigned_seat_is_marked_and_only_it(game_type: str, lang: str, word: str) -> None:
    game = get_game(game_type)
    state = game.new_state(3, f"resigned-{game_type}", game.resolve_options(None))
    before = game.view(state, None)
    assert before["resigned"] == []
    game.apply(state, 1, Resign())
    view = game.view(state, None)
    assert view["resigned"] == [1] and not view["result"]  # two play on
    svg = pictures.board_svg(game_type, view, "t", names=NAMES, lang=lang)
    text = pictures.text_summary(game_type, view, names=NAMES, lang=lang)
    for shown in (svg, text):
        assert shown.count(f"✗ {word}") == 1, shown
        line = next(part for part in re.split(r"</text>|\n", shown) if f"✗ {word}" in part)
        assert "Bruno" in line and "Anna" not in line and "Carla" not in line, line
    assert "✗" not in pictures.board_svg(game_type, before, "t", names=NAMES, lang=lang)
