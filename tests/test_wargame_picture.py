"""The Attila wargame's board picture and text summary: well-formed SVG, every hex with its
label, every unit on the map with its factors, devastation markers, and nothing secret (the
same output whatever the unrevealed notes and cards are)."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

from engine.attila_wargame.actions import Card, End
from engine.attila_wargame.game import GAME as G
from engine.attila_wargame.state import BATTLE_CARD, COUNCIL_CARD, WargameState
from engine.core import SYSTEM
from service.pictures import board_svg, has_picture, text_summary
from service.pictures.attila_wargame import _ground, render
from service.pictures.attila_wargame_map import Frame
from service.pictures.attila_wargame_text import summary
from tests.test_wargame_helpers import BARB, LEO, ROMAN, at_phase, random_play

SVG = "{http://www.w3.org/2000/svg}"
B = G.board


def _played(moves: int, seed: str = "picture", stop: str | None = None) -> WargameState:
    """Uniformly random legal play (a whole game is some 3,600 actions); ``stop`` halts when
    that step comes up with one sealed card in and the other still out."""
    state = G.new_state(2, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if G.is_over(state):
            break
        pending = G.pending(state)
        if stop is not None and state.step == stop and len(pending) == 1 and pending[0].seat >= 0:
            break
        decision = pending[0]
        G.apply(state, decision.seat, rng.choice(G.legal_actions(state, decision.seat)))
    return state


def _groups(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {
        g.get("id", "").removeprefix(prefix): g
        for g in root.iter(f"{SVG}g")
        if g.get("id", "").startswith(prefix)
    }


def _texts(element: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in element.iter(f"{SVG}text")]


def _picture(state: WargameState) -> ET.Element:
    root = ET.fromstring(render(B, G.view(state, None), "t"))
    assert root.tag == f"{SVG}svg"
    return root


def test_every_hex_is_drawn_and_every_land_hex_in_play_shows_its_label() -> None:
    root = _picture(_played(300))
    hexes = _groups(root, "hex-")
    assert set(hexes) == set(B.labels)
    for h, label in enumerate(B.labels):
        g = hexes[label]
        assert g.find(f"{SVG}polygon") is not None
        assert (label in _texts(g)) == B.passable[h], label
    cities = _groups(root, "city-")
    assert set(cities) == {c.id for c in B.cities}
    for city in B.cities:
        sign = "+" if city.plus else "−"
        assert f"{sign}{city.value}" in _texts(cities[city.id])
        assert " ".join(_texts(_groups(root, "name-")[city.id])) == city.name
    rivers = root.find(f".//{SVG}g[@id='rivers']")
    assert rivers is not None and len(rivers.findall(f"{SVG}line")) == len(B.river_sides)


def test_every_unit_on_the_map_is_drawn_with_its_current_factors() -> None:
    state = _played(600, seed="units")
    for unit in ("HUN-7", "W-III-INF"):  # step losses, as after AE/DE results
        if unit in state.cf:
            state.cf[unit] = B.units[unit].cf - 2
    reduced = [u for u, cf in state.cf.items() if cf < B.units[u].cf]
    assert reduced
    root = _picture(state)
    drawn = {k: g for k, g in _groups(root, "unit-").items()}
    assert set(drawn) == set(state.pos)
    for unit, g in drawn.items():
        label = B.labels[state.pos[unit]]
        title = g.find(f"{SVG}title")
        assert title is not None and (title.text or "").split(" ")[0].rstrip(",") == unit
        assert f"at {label}" in (title.text or "")
        if B.units[unit].combat:
            cf, mf = state.cf[unit], B.units[unit].mf
            assert f"{cf}-{mf}" in _texts(g), (unit, _texts(g))
            if unit in reduced:
                assert f"combat {cf} of {B.units[unit].cf}" in (title.text or "")
                red = [t for t in g.iter(f"{SVG}tspan") if t.get("fill") == "#d00000"]
                assert [t.text for t in red] == [str(cf)]


def test_devastation_markers_tell_temporary_from_permanent() -> None:
    state = _played(200, seed="raze")
    cultivated = sorted(B.cultivated)
    state.temp_devastated = cultivated[:3]
    state.perm_devastated = cultivated[3:5]
    marks = _groups(_picture(state), "devastated-")
    assert {k: _texts(g) for k, g in marks.items()} == {
        **{B.labels[h]: ["VT"] for h in cultivated[:3]},
        **{B.labels[h]: ["VP"] for h in cultivated[3:5]},
    }


def test_round_track_and_phase_are_shown() -> None:
    state = _played(400, seed="track")
    assert not G.is_over(state)
    root = _picture(state)
    track = _groups(root, "round-")
    assert set(track) == {str(n) for n in range(1, B.rounds + 1)}
    current = track[str(state.round)].find(f"{SVG}rect")
    assert current is not None and current.get("fill") == "#7b1e3b"
    others = {g.find(f"{SVG}rect").get("fill") for k, g in track.items() if k != str(state.round)}
    assert "#7b1e3b" not in others
    texts = " ".join(_texts(root))
    assert f"Round {state.round} of {B.rounds}" in texts


def _with_other_secrets(state: WargameState) -> WargameState:
    """The same public game with other secret notes and other unrevealed cards."""
    other = state.copy()
    notes = other.notes
    notes["traitor"] = next(u for u in G.rules.traitor_candidates if u != notes.get("traitor"))
    notes["aetius"] = 1 + (notes.get("aetius", 1) % 10)
    notes["suborned"] = next(u for u in G.rules.suborned_candidates if u != notes.get("suborned"))
    for holder in (other.battle, other.council):
        if holder is not None and holder.result is None:
            for seat, card in holder.cards.items():
                pool = B.attack_cards + B.defence_cards + B.roman_cards + B.barbarian_cards
                holder.cards[seat] = next(c for c in pool if c != card)
    return other


def test_picture_and_spectator_summary_are_the_same_whatever_the_secrets() -> None:
    for stop in (BATTLE_CARD, None):
        state = _played(2000, seed=f"hidden-{stop}", stop=stop)
        assert not state.notes_fired, "a note fired: pick another seed"
        if stop:
            assert state.battle is not None and len(state.battle.cards) == 1
        before = render(B, G.view(state, None), "t")
        text = summary(B, G.view(state, None))
        other = _with_other_secrets(state)
        assert other.notes != state.notes
        assert render(B, G.view(other, None), "t") == before
        assert summary(B, G.view(other, None)) == text
        # ... while a public change does show (the comparison can fail).
        unit = next(u for u in other.cf if other.cf[u] > 1)
        other.cf[unit] -= 1
        assert render(B, G.view(other, None), "t") != before
        assert summary(B, G.view(other, None)) != text


def test_summary_shows_the_own_notes_and_card_only() -> None:
    state = _played(2000, seed="hidden-battle_card", stop=BATTLE_CARD)
    battle = state.battle
    assert battle is not None
    [(chooser, card)] = battle.cards.items()
    seat = int(chooser)
    mine = summary(B, G.view(state, seat))
    theirs = summary(B, G.view(state, 1 - seat))
    assert f"Your sealed card for {battle.ref}: {card}." in mine
    assert "Your sealed card" not in theirs
    assert "Cards chosen (sealed): 1 of 2." in theirs
    traitor, suborned = state.notes["traitor"], state.notes["suborned"]
    assert f"traitor {traitor}" in summary(B, G.view(state, BARB))
    assert f"suborned {suborned}" in summary(B, G.view(state, ROMAN))
    for viewer in (ROMAN, None):
        assert "Secret notes you may see: traitor" not in summary(B, G.view(state, viewer))
    for viewer in (BARB, None):
        assert "suborned" not in summary(B, G.view(state, viewer))


def test_the_council_and_the_end_are_drawn() -> None:
    state = _played(600, seed="council")
    assert not G.is_over(state)
    # Leo I ends a Roman movement phase in Lugdunum: the council is called.
    at_phase(state, "e")
    state.pos[LEO] = B.city_by_id[B.bindings["council"]["city"]].hex
    G.apply(state, ROMAN, End())
    assert state.step == COUNCIL_CARD
    G.apply(state, BARB, Card(B.barbarian_cards[0]))
    texts = " ".join(_texts(_picture(state)))
    assert "Council of Lugdunum" in texts
    assert "Diplomatic cards chosen (sealed): 1 of 2" in texts
    assert render(B, G.view(_with_other_secrets(state), None), "t") == render(
        B, G.view(state, None), "t"
    )
    G.apply(state, ROMAN, Card(B.roman_cards[0]))
    G.apply(state, SYSTEM, G.legal_actions(state, SYSTEM)[0])
    random_play(state, random.Random(2), end_bias=0.5)
    assert G.is_over(state)
    texts = " ".join(_texts(_picture(state)))
    side = "Roman" if state.result["winner_side"] == "roman" else "Barbarian"
    assert f"★ The {side} player wins" in texts
    assert "Waiting for" not in texts
    # Every note is public at the end, in the picture and in everybody's summary.
    assert f"Note traitor: {state.notes['traitor']}" in texts
    assert f"suborned {state.notes['suborned']}" in summary(B, G.view(state, None))


def test_registry_serves_the_picture_and_the_summary() -> None:
    state = _played(100)
    assert has_picture("attila-wargame")
    view = G.view(state, None)
    assert board_svg("attila-wargame", view, "x") == render(B, view, "x")
    assert text_summary("attila-wargame", view) == summary(B, view)


def test_the_maps_unchanging_parts_are_left_out_when_the_page_has_them() -> None:
    """The hexes, the lines and cities, and the cities' names are the same all game long
    (devastation and taken cities drawn over them), so a page showing the map is sent the
    next version without them (service/pictures/keep.py); put back, the picture is whole."""
    early, late = _played(50, seed="kept"), _played(900, seed="kept")
    late.temp_devastated = sorted(B.cultivated)[:2]  # what changes on the ground
    late.perm_devastated = sorted(B.cultivated)[2:3]
    late.taken = sorted({B.cities[0].id, *late.taken})
    pictures = [render(B, G.view(s, None), "t") for s in (early, late)]
    keys = [re.findall(r'data-keep="([\w-]+)"', p) for p in pictures]
    assert keys[0] == keys[1] and len(keys[0]) == 3
    for state, whole in zip((early, late), pictures, strict=True):
        thin = render(B, G.view(state, None), "t", have=keys[0])
        assert len(thin) < len(whole) / 4  # the counters and the panel are the rest
        for kept in _ground(B, Frame(B)):
            empty, full = kept.svg(keys[0]), kept.svg()
            assert thin.count(empty[0]) == 1
            thin = thin.replace(empty[0], "\n".join(full))
        assert thin == whole
    assert render(B, G.view(late, None), "t", have=["hexes-0", "names"]) == pictures[1]
