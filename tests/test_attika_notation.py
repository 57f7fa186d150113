"""Attika's notation and JSON action objects: readable forms, variants, round trips for every
legal action of random games, and malformed input refused with a stable code."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.attika.actions import (
    Build,
    DrawCards,
    EndTurn,
    PlaceTile,
    Reveal,
    SpendAmphora,
    Store,
)
from engine.core import IllegalAction
from tests.test_attika_data import B, G, pay

NAME = B.buildings[-1].id
INDEX = B.buildings[-1].index
W, H = B.resources[0].letter, B.resources[2].letter


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("reveal 2", Reveal(1)),
        (f"build {NAME} at 2,-1 pay {W}{W}{H}", Build(INDEX, (2, -1), pay(W + W + H))),
        (f"build {NAME} at 2,-1 pay auto", Build(INDEX, (2, -1), None)),
        (f"build {NAME} at -3,0 pay -", Build(INDEX, (-3, 0), ())),
        ("tile at 3,-4 rot 2", PlaceTile((3, -4), 2)),
        ("store", Store()),
        ("amphora", SpendAmphora()),
        ("draw", DrawCards()),
        ("end", EndTurn()),
    ],
)
def test_canonical_notation(text: str, action) -> None:
    assert G.parse(text) == action
    assert G.notation(action) == text


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("  REVEAL   1 ", Reveal(0)),
        (f"Build {NAME.upper()} (2, -1) pay {H}{W}{W}", Build(INDEX, (2, -1), pay(W + W + H))),
        (f"build {NAME} at (0,0)", Build(INDEX, (0, 0), None)),
        (f"build {NAME} 0,0 pay none", Build(INDEX, (0, 0), ())),
        ("tile (3, -4) rotation 5", PlaceTile((3, -4), 5)),
        ("tile at 0,7 rot0", PlaceTile((0, 7), 0)),
        ("End", EndTurn()),
    ],
)
def test_notation_variants(text: str, action) -> None:
    assert G.parse(text) == action


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "bad-notation"),
        ("reveal", "bad-notation"),
        ("reveal 0", "bad-notation"),
        ("reveal -1", "bad-notation"),
        ("build nosuchbuilding at 1,1", "unknown-building"),
        (f"build {NAME} at 1,1 pay WXZ", "unknown-resource"),
        (f"build {NAME} at 1", "bad-notation"),
        ("tile at 1,1", "bad-notation"),
        ("pass", "bad-notation"),
    ],
)
def test_bad_notation(text: str, code: str) -> None:
    with pytest.raises(IllegalAction) as error:
        G.parse(text)
    assert error.value.code == code


def test_json_objects() -> None:
    build = Build(INDEX, (2, -1), pay(W + W + H))
    raw = G.action_to_json(build)
    assert raw == {
        "type": "build",
        "building": NAME,
        "hex": [2, -1],
        "pay": sorted(
            [B.resources[0].id, B.resources[0].id, B.resources[2].id],
            key=lambda r: B.resource(r).index,
        ),
    }
    assert G.action_from_json(raw) == build
    assert G.action_to_json(Build(INDEX, (0, 0), None))["pay"] == "auto"
    assert G.action_from_json({"type": "reveal", "stack": 4}) == Reveal(3)
    assert G.action_from_json({"type": "tile", "hex": [1, 2], "rotation": 3}) == PlaceTile(
        (1, 2), 3
    )
    assert G.action_from_json({"type": "end"}) == EndTurn()


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"type": "fly"},
        {"type": 3},
        {"type": "end", "extra": 1},
        {"type": "reveal"},
        {"type": "reveal", "stack": "2"},
        {"type": "reveal", "stack": True},
        {"type": "reveal", "stack": 0},
        {"type": "build", "building": NAME, "hex": [1], "pay": "auto"},
        {"type": "build", "building": NAME, "hex": [1, "2"], "pay": "auto"},
        {"type": "build", "building": NAME, "hex": [1, 2], "pay": "WW"},
        {"type": "build", "building": NAME, "hex": [1, 2], "pay": ["plutonium"]},
        {"type": "build", "building": "nope", "hex": [1, 2], "pay": []},
        {"type": "tile", "hex": [1, 2], "rotation": None},
        ["end"],
        "end",
    ],
)
def test_malformed_json_is_a_bad_action(raw) -> None:
    with pytest.raises(IllegalAction) as error:
        G.action_from_json(raw)
    assert error.value.code == "bad-action"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
FIELDS = st.sampled_from(["type", "stack", "building", "hex", "pay", "rotation"])
TYPES = st.sampled_from(["reveal", "build", "tile", "store", "amphora", "draw", "end", "x"])


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(FIELDS, JSON | TYPES | st.just(NAME), max_size=5) | JSON,
)
def test_any_json_gives_an_action_or_bad_action(raw) -> None:
    try:
        action = G.action_from_json(raw)
    except IllegalAction as error:
        assert error.code == "bad-action"
    else:
        assert G.action_from_json(G.action_to_json(action)) == action


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_or_is_refused_with_a_code(text: str) -> None:
    try:
        action = G.parse(text)
    except IllegalAction as error:
        assert error.code in {"bad-notation", "unknown-building", "unknown-resource"}
    else:
        assert G.parse(G.notation(action)) == action


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_action_round_trips(players: int) -> None:
    state = G.new_state(players, f"notation-{players}")
    rng = random.Random(players)
    kinds = set()
    while not G.is_over(state):
        seat = G.pending(state)[0].seat
        legal = G.legal_actions(state, seat)
        for action in legal:
            kinds.add(action.kind)
            text = G.notation(action)
            assert G.parse(text) == action, text
            assert G.action_from_json(G.action_to_json(action)) == action
        G.apply(state, seat, rng.choice(legal))
    assert {"reveal", "build", "store", "tile", "end"} <= kinds
