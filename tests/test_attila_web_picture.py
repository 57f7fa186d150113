"""Attila's web board (service/pictures/attila_web.py): the map alone, every province its
region with its name and each people's stones as a count, no panel; the mailed picture draws
the same map, and the panels beside it are worded from the same facts the mailed picture
draws (attila.panel_facts)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from engine.attila.game import GAME
from engine.attila.state import AttilaState
from service.pictures import attila, attila_map, attila_web, svg_points
from service.pictures.attila_regions import regions
from tests.engine_helpers import play_randomly

SVG = "{http://www.w3.org/2000/svg}"


def _played(moves: int, seed: str = "web-picture") -> AttilaState:
    return play_randomly(GAME, GAME.new_state(4, seed), moves, seed)


def _words(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_the_web_board_is_every_province_with_its_stones_counted_and_no_panel() -> None:
    state = _played(150)
    view = GAME.view(state, None)
    root = ET.fromstring(attila_web.render(GAME.board, view, "T", names=["A", "B", "C", "D"]))
    boxes = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    assert set(boxes) == {f"province-{p.id}" for p in GAME.board.provinces}
    for province in GAME.board.provinces:
        box = boxes[f"province-{province.id}"]
        words = [t for t in box.iter(f"{SVG}text") if t.get("class") == "info"]
        assert words[0].text == province.name
        counts = {
            p.letter: n
            for p, n in zip(GAME.board.peoples, state.stones[province.index], strict=True)
        }
        shown = [t.text for t in words[1:]]
        expected = [
            x
            for p in GAME.board.peoples
            if counts[p.letter]
            for x in (p.letter, str(counts[p.letter]))
        ]
        assert shown[: len(expected)] == expected, province.id
    texts = " ".join(_words(root))
    for panel_word in ("Scores", "Influence", "Century", "Peoples"):
        assert panel_word not in texts
    # Each province is its region of the map, outlined first (the page's CSS lights it).
    shapes = regions().shapes
    for province in GAME.board.provinces:
        outline = boxes[f"province-{province.id}"][0]
        assert outline.tag == f"{SVG}polygon"
        assert outline.get("points") == svg_points(shapes[province.id])


def test_the_mailed_picture_draws_the_same_map_without_the_lit_markers() -> None:
    """The mail (a print) and the web table agree: the same provinces drawn the same way,
    the mail without the markers that only the page's CSS shows."""
    state = _played(150)
    view = GAME.view(state, None)
    names = ["A", "B", "C", "D"]
    web = ET.fromstring(attila_web.render(GAME.board, view, "T", names=names))
    mail = ET.fromstring(attila.render(GAME.board, view, "T", names=names))
    for province in GAME.board.provinces:
        key = f"province-{province.id}"
        (on_web,) = [g for g in web.iter(f"{SVG}g") if g.get("id") == key]
        (in_mail,) = [g for g in mail.iter(f"{SVG}g") if g.get("id") == key]
        marks = [m for m in on_web if m.get("class") == "lit-mark"]
        # One marker each, but where a crowded province's chips took its corner.
        assert len(marks) == (1 if _marker_clear(view, province.id) else 0), province.id
        for mark in marks:
            on_web.remove(mark)
        assert ET.tostring(on_web) == ET.tostring(in_mail), province.id


def _marker_clear(view: dict[str, Any], pid: str) -> bool:
    """Whether the province's chips leave the lit marker's corner clear."""
    info = view["provinces"][pid]
    chips = sum(1 for n in info["stones"].values() if n) + (1 if info["pacified"] else 0)
    box = regions().inner[pid]
    name = GAME.board.provinces[GAME.board.province(pid).index].name
    lines = attila_map.name_lines(name, box)
    return attila_map.marker_clear(box, attila_map.chip_places(box, chips, len(lines)))


def test_the_panel_facts_are_what_the_mailed_picture_draws() -> None:
    state = _played(150)
    view = GAME.view(state, None)
    names = ["Ann", "Bob", "Cy", "Di"]
    facts = attila.panel_facts(GAME.board, view, names)
    texts = _words(ET.fromstring(attila.render(GAME.board, view, "T", names=names)))
    assert facts["century"] in texts
    assert all(tiles in texts for tiles in facts["tiles"])
    for people in facts["peoples"]:
        assert f"{people['letter']}  {people['name']} ({people['supply']})" in texts
    for seat in facts["seats"]:
        assert f"{seat['label']}: {seat['points']}{seat['marks']}" in texts
        assert f"{seat['cards']} · {seat['tiles']}" in texts
