"""The Attila board picture: well-formed SVG, the whole board, nothing hidden."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from engine.attila.game import GAME
from engine.attila.state import AttilaState
from service.pictures.attila import render
from tests.engine_helpers import play_randomly

SVG = "{http://www.w3.org/2000/svg}"


def _played(moves: int, seed: str = "picture") -> AttilaState:
    return play_randomly(GAME, GAME.new_state(4, seed), moves, seed)


def test_picture_is_svg_with_every_province_and_its_stones() -> None:
    state = _played(120)
    root = ET.fromstring(render(GAME.board, GAME.view(state, None)))
    assert root.tag == f"{SVG}svg"
    groups = {g.get("id") for g in root.iter(f"{SVG}g")}
    assert groups == {f"province-{p.id}" for p in GAME.board.provinces}
    # Each people's stones in a province are one chip: its letter, then its count.
    stones_drawn = 0
    for g in root.iter(f"{SVG}g"):
        chips = [t.text or "" for t in g.iter(f"{SVG}text") if t.get("class") == "info"][1:]
        stones_drawn += sum(int(count) for count in chips[1::2])
    assert stones_drawn == sum(sum(row) for row in state.stones)


def test_picture_marks_pacified_provinces_with_their_century() -> None:
    state = _played(200)
    pacified = [p.id for p in GAME.board.provinces if state.pacified[p.index]]
    assert pacified
    svg = render(GAME.board, GAME.view(state, None))
    root = ET.fromstring(svg)
    for g in root.iter(f"{SVG}g"):
        pid = g.get("id").removeprefix("province-")
        texts = [t.text for t in g.iter(f"{SVG}text") if t.get("class") == "info century"]
        has_tile = any(t in {"IV", "V", "VI", "VII"} for t in texts)
        assert has_tile == (pid in pacified)


def test_picture_is_the_same_whoever_holds_which_cards() -> None:
    """Drawn from the spectator view: other cards in hand (hidden) change not a byte."""
    state = _played(60)
    before = render(GAME.board, GAME.view(state, None))
    state.hands = [[(card + 1) % len(GAME.board.peoples) for card in h] for h in state.hands]
    state.deck.reverse()
    assert render(GAME.board, GAME.view(state, None)) == before
