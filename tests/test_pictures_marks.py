"""Pictures name the players, mark seats apart from the games' own colours, mark and tell the
last move, keep hidden events out, and the wargame's map stays readable: stacks that hide
nothing and a crop around the last move (issues 13 and 15)."""

from __future__ import annotations

import io
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from engine.attila_wargame.touched import touched, touched_units
from engine.core import Event
from engine.registry import get_game
from service.pictures import (
    board_crop_box,
    board_crop_svg,
    board_overview_svg,
    board_svg,
    text_summary,
)
from service.pictures.attila_map import PEOPLE_FILL
from service.pictures.attila_wargame import COUNTER, DISC, H, R, Spot, city_label, stack_spots
from service.pictures.attila_wargame_map import Frame
from service.pictures.png import svg_to_png

SVG = "{http://www.w3.org/2000/svg}"
NAMES = ["Anna", "Bruno", "Carla"]


def _play_until(
    game_type: str, players: int, seed: str, stop: Callable[[list[Event]], bool], limit: int
) -> tuple[Any, list[Event]]:
    """Random legal play until the events of one action satisfy ``stop``: the position and
    those events (the last move)."""
    game = get_game(game_type)
    state = game.new_state(players, seed)
    rng = random.Random(seed)
    for _ in range(limit):
        decision = game.pending(state)[0]
        events = game.apply(
            state, decision.seat, rng.choice(game.legal_actions(state, decision.seat))
        )
        if stop(events):
            return state, events
    raise AssertionError(f"no such move in {limit} actions: pick another seed")


def _kinds(*kinds: str) -> Callable[[list[Event]], bool]:
    return lambda events: any(e.kind in kinds for e in events)


def _texts(root: ET.Element) -> str:
    return " | ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def _ids(root: ET.Element, prefix: str) -> set[str]:
    return {
        e.get("id", "").removeprefix(prefix)
        for e in root.iter()
        if e.get("id", "").startswith(prefix)
    }


def test_attila_names_players_marks_seats_by_shape_and_the_last_stone() -> None:
    game = get_game("attila")
    state, events = _play_until("attila", 3, "marks", _kinds("stone_placed"), 200)
    svg = board_svg("attila", game.view(state, None), "t", names=NAMES, last_events=events)
    root = ET.fromstring(svg)
    texts = _texts(root)
    for seat, name in enumerate(NAMES):
        assert f"{name} (seat {seat})" in texts
    # Seats are shapes in black and white: no seat mark is filled with a people's colour.
    assert "Seat 0 (red)" not in texts and "(red)" not in texts
    peoples = {c.lower() for c in PEOPLE_FILL.values()}
    for shape in root.iter():
        if shape.tag in (f"{SVG}circle", f"{SVG}polygon"):
            assert (shape.get("fill") or "").lower() not in peoples
    # Every mark is in the legend.
    for mark in ("frontier province", "pacified (century)", "last move", "players (by shape)"):
        assert mark in texts
    # The last move: its province framed, its sentence told with the player's name.
    (placed,) = [e for e in events if e.kind == "stone_placed"]
    assert _ids(root, "last-move-") == {placed.data["province"]}
    province = game.board.province(placed.data["province"]).name
    assert re.search(rf"{NAMES[placed.data['seat']]} placed an? \w+ in {province}\.", texts)


def test_without_names_or_last_events_the_old_call_still_draws() -> None:
    game = get_game("attila")
    state, _ = _play_until("attila", 3, "marks", _kinds("stone_placed"), 200)
    root = ET.fromstring(board_svg("attila", game.view(state, None), "t"))
    assert "Seat 0:" in _texts(root)
    assert not _ids(root, "last-move-")


def test_a_spectator_picture_tells_no_hidden_event_and_shows_no_hand() -> None:
    game = get_game("attila")
    state, events = _play_until("attila", 3, "hand", _kinds("cards_drawn_own"), 200)
    (own,) = [e for e in events if e.kind == "cards_drawn_own"]
    svg = board_svg("attila", game.view(state, None), "t", names=NAMES, last_events=events)
    texts = _texts(ET.fromstring(svg))
    assert "only you see this" not in texts
    assert "drew" in texts  # the public sentence is told
    # A log entry's JSON is accepted as well, filtered the same way.
    as_json = [e.to_json() for e in events]
    assert board_svg("attila", game.view(state, None), "t", names=NAMES, last_events=as_json) == svg
    hand = game.view(state, own.data["seat"])
    assert "hand" not in game.view(state, None) or not game.view(state, None)["hand"]
    assert hand  # the seat's own view has more than the picture draws


def test_attika_names_players_and_frames_the_last_building() -> None:
    game = get_game("attika")
    state, events = _play_until("attika", 3, "marks", _kinds("building_built"), 400)
    svg = board_svg("attika", game.view(state, None), "t", names=NAMES, last_events=events)
    root = ET.fromstring(svg)
    texts = _texts(root)
    for seat, name in enumerate(NAMES):
        assert f"{name} (seat {seat})" in texts
    (built,) = [e for e in events if e.kind == "building_built"]
    assert _ids(root, "last-move-") == {built.data["hex"]}
    assert "hex of the last move" in texts and "Last move: " in texts


def _moved() -> tuple[Any, list[Event]]:
    return _play_until(
        "attila-wargame", 2, "marks", lambda es: any(e.kind == "moved" for e in es), 400
    )


def test_wargame_names_sides_marks_the_moved_unit_and_crops_around_it() -> None:
    game = get_game("attila-wargame")
    state, events = _moved()
    view = game.view(state, None)
    svg = board_svg("attila-wargame", view, "t", names=NAMES[:2], last_events=events)
    root = ET.fromstring(svg)
    texts = _texts(root)
    assert "Anna (seat 0)" in texts and "Bruno (seat 1)" in texts
    hexes = touched(game.board, events)
    units = touched_units(events)
    assert hexes and units
    assert _ids(root, "last-move-") == set(hexes)
    assert "last move (hexes, units)" in texts

    crop = board_crop_svg("attila-wargame", view, "t", names=NAMES[:2], last_events=events)
    assert crop is not None
    crop_root = ET.fromstring(crop)
    assert crop_root.get("width") == "600"
    x, y, w, h = (float(v) for v in crop_root.get("viewBox", "").split())
    for unit in units:
        hex_ = view["units"][unit]["hex"]
        (polygon,) = [
            p for p in crop_root.iter(f"{SVG}polygon") if p.get("id") == f"last-move-{hex_}"
        ]
        corners = [tuple(map(float, c.split(","))) for c in polygon.get("points", "").split()]
        assert all(x <= cx <= x + w and y <= cy <= y + h for cx, cy in corners)
    png = Image.open(io.BytesIO(svg_to_png(crop)))
    assert png.size[0] == 600 and png.getextrema() != ((255, 255), (255, 255), (255, 255))


def test_no_crop_for_the_small_pictures_or_without_a_last_move() -> None:
    game = get_game("attila-wargame")
    state, _ = _moved()
    assert board_crop_svg("attila-wargame", game.view(state, None), "t") is None
    attila = get_game("attila")
    start = attila.new_state(3, "x")
    assert board_crop_svg("attila", attila.view(start, None), "t") is None


def _box(spot: Spot, half: float, x: float = 0, y: float = 0) -> tuple[float, ...]:
    r = half * spot.scale
    return (x + spot.dx - r, y + spot.dy - r, x + spot.dx + r, y + spot.dy + r)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


#: Relative to the hex's centre: the hex label's digits along the top edge (font 6.8: from
#: 5 px above the baseline to it) and
#: a city's name box along the bottom edge (as wide as a short name; long names are wider,
#: and the test checks the units stay above the box's top).
LABEL = (-8.0, -H + 3.2, 8.0, -H + 8.2)
CITY_NAME_TOP = H - 5.5


@pytest.mark.parametrize("combat", [0, 1, 2, 3])
@pytest.mark.parametrize("command", [0, 1, 2, 3, 4])
def test_a_dense_stack_hides_no_unit_label_or_city_name(combat: int, command: int) -> None:
    counters, discs = stack_spots(combat, command)
    assert len(counters) == combat and len(discs) == command
    boxes = [_box(s, COUNTER / 2) for s in counters] + [_box(s, DISC) for s in discs]
    for i, a in enumerate(boxes):
        assert not _overlap(a, LABEL), (i, a)
        assert a[3] <= CITY_NAME_TOP + 0.5, (i, a)
        for b in boxes[i + 1 :]:
            assert not _overlap(a, b), (a, b)


def test_city_names_stay_clear_of_the_neighbours_units_and_labels() -> None:
    """A name box along the city hex's bottom edge reaches into the three hexes below: it
    must miss their counters and labels (as if every neighbour held a unit). Names are drawn
    over units, so a command disc beside a counter there may lose an edge, never a name. A
    name on two lines ("Augusta / Treverorum") covers the label of the hex right below: a
    known limit, the label is in that hex's tooltip and the crop's neighbours."""
    one, _ = stack_spots(1, 0)
    below = [(-1.5 * R, H), (1.5 * R, H), (0.0, 2 * H)]
    for city in get_game("attila-wargame").board.cities:
        label = city_label(city.name)
        box = (label.left, label.top, label.left + label.width, label.top + label.height)
        assert label.size >= 5.0, city.name  # Costantinopolis, one word, is the smallest
        for nx, ny in below:
            assert not _overlap(box, _box(one[0], COUNTER / 2, nx, ny)), (city.name, nx, ny)
            shifted = (LABEL[0] + nx, LABEL[1] + ny, LABEL[2] + nx, LABEL[3] + ny)
            if len(label.lines) == 1:
                assert not _overlap(box, shifted), (city.name, nx, ny)


@pytest.mark.parametrize(("game_type", "players"), [("attila", 3), ("attika", 3)])
def test_text_summaries_name_the_players_and_stay_as_they_were_without_names(
    game_type: str, players: int
) -> None:
    game = get_game(game_type)
    state = game.new_state(players, "names")
    view = game.view(state, None)
    named = text_summary(game_type, view, names=NAMES[:players])
    assert all(f"{name} (seat {seat})" in named for seat, name in enumerate(NAMES[:players]))
    plain = text_summary(game_type, view)
    assert "seat 0" in plain and "Anna" not in plain


@pytest.mark.parametrize(
    ("game_type", "players"), [("attila", 3), ("attika", 3), ("attila-wargame", 2)]
)
def test_an_event_naming_an_unknown_place_marks_nothing_and_breaks_nothing(
    game_type: str, players: int
) -> None:
    """A newer engine's event (or a service event) naming a place the board lacks."""
    game = get_game(game_type)
    view = game.view(game.new_state(players, "odd"), None)
    odd = [Event("future_kind", {"province": "XXX", "hex": "99,99", "to": "9999", "city": "x"})]
    root = ET.fromstring(board_svg(game_type, view, "t", names=NAMES, last_events=odd))
    assert not _ids(root, "last-move-")
    assert board_crop_svg(game_type, view, "t", last_events=odd) is None


def _inside(box: tuple[float, float, float, float], label: str) -> bool:
    board = get_game("attila-wargame").board
    x, y = Frame(board).at[board.index_of_label[label]]
    left, top, width, height = box
    return left <= x <= left + width and top <= y <= top + height


def test_a_mail_crop_keeps_its_size_and_shows_the_most_changes() -> None:
    """``largest``: changes spread over the map give a crop of at most that size round the
    cluster of most of them, the latest winning a tie; without it, the crop holds them all
    (as the web's and the answers' crops always did)."""
    game = get_game("attila-wargame")
    state, _ = _moved()
    view = game.view(state, None)
    near, far = ["1114", "1214", "1115"], "3508"
    events = [Event("moved", {"to": h}) for h in [*near, far]]
    largest = (480.0, 320.0)
    box = board_crop_box("attila-wargame", view, events, largest=largest)
    assert box is not None and box[2] <= largest[0] + 0.1 and box[3] <= largest[1] + 0.1
    assert all(_inside(box, h) for h in near) and not _inside(box, far)
    whole = board_crop_box("attila-wargame", view, events)
    assert whole is not None and all(_inside(whole, h) for h in [*near, far])
    # One change here, one there: the later one.
    for first, second in (("1114", far), (far, "1114")):
        pair = [Event("moved", {"to": first}), Event("moved", {"to": second})]
        box = board_crop_box("attila-wargame", view, pair, largest=largest)
        assert box is not None and _inside(box, second) and not _inside(box, first)
    # Hidden events are not cropped round.
    secret = [Event("moved", {"to": far}, audience=(0,))]
    assert board_crop_box("attila-wargame", view, secret, largest=largest) is None


def test_the_overview_is_the_whole_map_without_words_and_frames_the_crop() -> None:
    game = get_game("attila-wargame")
    state, events = _moved()
    view = game.view(state, None)
    box = board_crop_box("attila-wargame", view, events, largest=(480.0, 320.0))
    assert box is not None
    svg = board_overview_svg("attila-wargame", view, "t", last_events=events, outline=box)
    root = ET.fromstring(svg)
    assert root.get("width") == "600"
    assert not list(root.iter(f"{SVG}text"))  # unreadable at that scale: left out
    (outline,) = [r for r in root.iter(f"{SVG}rect") if r.get("id") == "crop-outline"]
    assert [float(outline.get(a, "0")) for a in ("x", "y")] == pytest.approx(box[:2], abs=0.1)
    assert _ids(root, "last-move-") == set(touched(game.board, events))
    assert _ids(root, "hex-") >= set(game.board.labels)  # every hex, not a crop of them
    png = Image.open(io.BytesIO(svg_to_png(svg)))
    assert png.size[0] == 600
