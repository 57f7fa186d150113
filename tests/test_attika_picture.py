"""The Attika board picture and text summary: well-formed SVG, every hex with its coordinate,
every building, the players' panel, and nothing hidden (same output whatever is hidden)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from engine.attika.actions import format_hex
from engine.attika.game import GAME
from engine.attika.state import AttikaState
from service.pictures import board_svg, has_picture, text_summary
from service.pictures.attika import render
from service.pictures.attika_text import summary
from tests.engine_helpers import play_randomly

SVG = "{http://www.w3.org/2000/svg}"
B = GAME.board


def _played(players: int, moves: int, seed: str = "picture") -> AttikaState:
    return play_randomly(GAME, GAME.new_state(players, seed), moves, seed)


def _groups(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {
        g.get("id", "").removeprefix(prefix): g
        for g in root.iter(f"{SVG}g")
        if g.get("id", "").startswith(prefix)
    }


def _texts(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{SVG}text")]


def _hide_differently(state: AttikaState, rng: random.Random) -> AttikaState:
    """The same public game with every hidden thing changed: stack order and contents of
    stacks 2-4, the deck, the tile pile and the cards in every hand (same counts)."""
    other = state.copy()
    for seat in range(other.players):
        main, *rest = other.stacks[seat]
        rng.shuffle(main)
        pool = [b for stack in rest for b in stack]
        rng.shuffle(pool)
        sizes = [len(stack) for stack in rest]
        rest_new, at = [], 0
        for size in sizes:
            rest_new.append(pool[at : at + size])
            at += size
        other.stacks[seat] = [main, *rest_new]
        hand = other.hands[seat]
        total = sum(hand)
        other.hands[seat] = [0] * len(hand)
        for _ in range(total):
            other.hands[seat][rng.randrange(len(hand))] += 1
    rng.shuffle(other.deck)
    other.deck = [(card + 1) % len(B.resources) for card in other.deck]
    rng.shuffle(other.tile_pile)
    return other


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_hex_shrine_and_building_is_drawn_with_its_label(players: int) -> None:
    state = _played(players, 60 * players, seed=f"picture-{players}")
    assert state.occupant, "no building yet: play longer"
    root = ET.fromstring(render(B, GAME.view(state, None), "Attika"))
    assert root.tag == f"{SVG}svg"

    hexes = _groups(root, "hex-")
    assert set(hexes) == {format_hex(h) for h in state.land}
    for label, g in hexes.items():
        assert label in _texts(g), f"hex {label} has no coordinate label"
        assert g.find(f"{SVG}polygon") is not None

    shrines = _groups(root, "shrine-")
    assert set(shrines) == {format_hex(h) for h in state.shrines}
    for label, g in shrines.items():
        assert label in _texts(g) and "Shrine" in _texts(g)

    drawn = _groups(root, "building-")
    expected = {f"{seat}-{B.buildings[b].id}": hex_ for hex_, (seat, b) in state.occupant.items()}
    assert set(drawn) == set(expected)
    for key, g in drawn.items():
        seat, building_id = key.split("-", 1)
        building = B.building(building_id)
        label, *star = _texts(g)
        assert building.name_en.startswith(label.rstrip("."))
        assert star == (["★"] if building.main else [])
        title = g.find(f"{SVG}title")
        assert title is not None and f"at {format_hex(expected[key])}" in (title.text or "")
        assert f"seat {seat}" in (title.text or "")


def test_panel_shows_every_players_score_amphorae_and_cards() -> None:
    state = _played(3, 150)
    state.amphorae[1] = 2  # a public number: it must show
    texts = " | ".join(_texts(ET.fromstring(render(B, GAME.view(state, None)))))
    for seat in range(state.players):
        built = len(state.placed[seat])
        cards = sum(state.hands[seat])
        assert f"{built}/{len(B.buildings)} built" in texts
        assert f"{cards} card{'s' if cards != 1 else ''}" in texts
        stacks = " ".join(str(len(s)) for s in state.stacks[seat])
        assert f"Stacks (1 = main): {stacks}" in texts
    assert "2 amphorae" in texts
    assert f"Turn {state.turn} · Seat {state.active}" in texts


def test_picture_is_the_same_whatever_is_hidden() -> None:
    rng = random.Random(5)
    for players, moves in ((2, 40), (3, 120), (4, 200)):
        state = _played(players, moves, seed=f"hidden-{players}")
        before = render(B, GAME.view(state, None), "t")
        for _ in range(3):
            other = _hide_differently(state, rng)
            assert other.stacks != state.stacks or other.deck != state.deck
            assert render(B, GAME.view(other, None), "t") == before
        # ... while a public change does show (the comparison can fail).
        state.amphora_supply -= 1
        assert render(B, GAME.view(state, None), "t") != before


def test_finished_game_names_the_winner() -> None:
    state = _played(2, 10_000, seed="end")
    assert GAME.is_over(state)
    texts = " ".join(_texts(ET.fromstring(render(B, GAME.view(state, None)))))
    winners = state.result["winners"]
    assert "Game over" in texts and "★ winner" in texts
    assert texts.count("★ winner") == len(winners)
    assert "to play" not in texts


def test_registry_serves_the_picture_and_the_summary() -> None:
    state = _played(2, 30)
    assert has_picture("attika")
    view = GAME.view(state, None)
    assert board_svg("attika", view, "x") == render(B, view, "x")
    assert text_summary("attika", view) == summary(B, view)


def test_summary_shows_only_the_own_hand() -> None:
    state = _played(3, 90, seed="summary")
    state.hands = [[1, 0, 2, 0], [0, 3, 0, 0], [0, 0, 0, 4]]
    spectator = summary(B, GAME.view(state, None))
    assert "Your hand" not in spectator
    assert "Your hand: 1W 2H (3 cards)" in summary(B, GAME.view(state, 0))
    assert "Your hand: 3F (3 cards)" in summary(B, GAME.view(state, 1))
    assert "Your hand: 4M (4 cards)" in summary(B, GAME.view(state, 2))
    assert "seat 1 (yellow) (you)" in summary(B, GAME.view(state, 1))
    for hex_, (_, b) in state.occupant.items():
        # "temple 4,1", or with the name where it differs: "Silver mine (silvermine) -1,5".
        building, at = B.buildings[b].id, format_hex(hex_)
        assert f"{building} {at}" in spectator or f"({building}) {at}" in spectator
    # Everything hidden changed: the spectator's text and each seat's text apart from the
    # own hand stay the same.
    other = _hide_differently(state, random.Random(1))
    assert summary(B, GAME.view(other, None)) == spectator
    other.hands[0] = list(state.hands[0])
    assert summary(B, GAME.view(other, 0)) == summary(B, GAME.view(state, 0))


def test_the_german_summary_names_buildings_in_german_with_their_ids() -> None:
    """The text part of a German mail: "Tempel (temple) 4,1"; the id is what a move names."""
    state = _played(3, 90, seed="summary")
    german = text_summary("attika", GAME.view(state, None), lang="de")
    english = text_summary("attika", GAME.view(state, None))
    built = {B.buildings[b].id for _, (_, b) in state.occupant.items()}
    assert "temple" in built or "quarry" in built, built
    if "temple" in built:
        assert "Tempel (temple)" in german and "Tempel" not in english
    if "quarry" in built:
        assert "Steinbruch (quarry)" in german and "Steinbruch" not in english
