"""Attika on the web table (issue 32): where a drawn map tile may go is drawn in the picture
as empty places with stable ids, its shape per rotation is the engine's, and each legal build
says what it costs on its hex (engine/attika/targets.py, service/http/web/table.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from engine.attika import targets
from engine.attika.actions import format_hex
from engine.attika.game import GAME
from engine.attika.state import AttikaState
from service.pictures.attika import render

SVG = "{http://www.w3.org/2000/svg}"
B = GAME.board


def _with_drawn_tile(seed: str = "targets") -> AttikaState:
    """A 2-player game steered to its first drawn map tile: reveal from the smallest stack,
    store what was revealed, end the turn otherwise (bounded)."""
    state = GAME.new_state(2, seed)
    for _ in range(200):
        seat = state.active
        legal = GAME.legal_actions(state, seat)
        kinds = [GAME.action_to_json(a)["type"] for a in legal]
        if "tile" in kinds:
            return state
        if "store" in kinds:
            pick = kinds.index("store")
        elif "reveal" in kinds:
            stacks = GAME.view(state, seat)["seats"][seat]["stacks"]
            reveals = [i for i, k in enumerate(kinds) if k == "reveal"]
            pick = min(reveals, key=lambda i: stacks[GAME.action_to_json(legal[i])["stack"] - 1])
        else:
            pick = kinds.index("end")
        GAME.apply(state, seat, legal[pick])
    raise AssertionError("no tile drawn")


def test_every_legal_tile_place_is_drawn_with_its_id_and_the_shape_turns() -> None:
    state = _with_drawn_tile()
    view = GAME.view(state, None)
    legal = [GAME.action_to_json(a) for a in GAME.legal_actions(state, state.active)]
    centres = {format_hex(tuple(a["hex"])) for a in legal}
    places = targets.open_hexes(B, legal)
    assert centres <= set(places)
    on_map = {c["hex"] for c in view["map"]}
    assert not set(places) & on_map
    root = ET.fromstring(render(B, view, open_hexes=places))
    drawn = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("class") == "open-hex"}
    assert set(drawn) == {f"hex-{h}" for h in places}
    assert all(g.get("data-hex") == g.get("id", "")[4:] for g in drawn.values())
    for action in legal:  # every target a legal placement names is in the picture
        assert targets.target(B, action)["target"] in drawn
    # Without open places (the spectators' picture) none is drawn.
    plain = ET.fromstring(render(B, view))
    assert not [g for g in plain.iter(f"{SVG}g") if g.get("class") == "open-hex"]
    shape = targets.tile_shape(B, view)
    assert shape is not None and len(shape) == len(B.directions)
    tile = B.tile(view["drawn_tile"]).index
    for k, hexes in enumerate(shape):
        expected = B.tile_hexes(tile, (0, 0), k)
        assert [(q, r) for q, r, _land in hexes] == [h for h, _kind in expected]
        # Each placement covers only places the picture drew (or the centre's neighbours).
        for centre in centres:
            cq, cr = (int(n) for n in centre.split(","))
            assert {f"{cq + q},{cr + r}" for q, r, _land in hexes} <= set(places)


def test_a_build_says_what_it_costs_there() -> None:
    state = GAME.new_state(2, "targets-cost")
    seat = state.active
    builds = [
        a for a in map(GAME.action_to_json, GAME.legal_actions(state, seat)) if a["type"] == "build"
    ]
    assert builds
    texts = targets.costs(GAME.rules, state, seat, builds)
    for action, text in zip(builds, texts, strict=True):
        where = (action["hex"][0], action["hex"][1])
        quote = GAME.rules.quote(state, seat, B.building(action["building"]).index, where)
        if quote.free:
            assert text == "free"
        else:  # each symbol still needed, then the cards of any kind
            for i, n in enumerate(quote.need):
                assert (f"{n} {B.resources[i].letter}" in text) == bool(n), text
            assert text.endswith(f"{quote.any} any") == bool(quote.any), text
    assert targets.costs(GAME.rules, state, seat, [{"type": "end"}]) == [None]
