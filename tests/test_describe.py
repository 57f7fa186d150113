"""Events in words (docs/describe.md): every event kind an engine can emit is described or
deliberately silent, random games yield clean sentences, and hand-built events read exactly
as intended (including what a public sentence must not say)."""

from __future__ import annotations

import pathlib
import random
import re
import string
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import pytest

from engine.attika import describe as attika_words
from engine.attika.game import GAME as ATTIKA
from engine.attila import describe as attila_words
from engine.attila.game import GAME as ATTILA
from engine.attila_wargame import describe as wargame_words
from engine.attila_wargame.game import GAME as WARGAME
from engine.core import Event, Game
from engine.sentences import Plural
from tests.attila_helpers import random_step
from tests.test_wargame_helpers import random_play

NAMES = ["Anna", "Bruno", "Cleo", "Dora", "Emil"]
ENGINE = pathlib.Path(__file__).resolve().parent.parent / "engine"
GAMES: dict[str, tuple[Game[Any, Any], ModuleType]] = {
    "attila": (ATTILA, attila_words),
    "attika": (ATTIKA, attika_words),
    "attila_wargame": (WARGAME, wargame_words),
}


# -- what the engines emit -------------------------------------------------------------------


def emitted_kinds(package: str) -> set[str]:
    """Every event kind written in the engine's source (``_event("kind"`` / ``Event("kind"``),
    so a kind that random play rarely reaches still needs a decision."""
    kinds: set[str] = set()
    for path in (ENGINE / package).glob("*.py"):
        if path.name != "describe.py":
            kinds |= set(re.findall(r'(?:_event|Event)\(\s*"([a-z_]+)"', path.read_text()))
    return kinds


def attila_events() -> Iterator[Event]:
    options: list[dict[str, Any]] = [
        {},
        {"CONFLICT_COMMIT_ORDER": "simultaneous"},
        {"NEW_COUNTER_ENTRY": "entry_consumes_all_steps"},
        {"LAST_TILE_FINAL_SCORING": "score_at_once_and_end"},
    ]
    for run in range(12):
        state = ATTILA.new_state(2 + run % 4, f"describe-{run}", options[run % len(options)])
        rng = random.Random(run)
        for _ in range(5000):
            if ATTILA.is_over(state):
                break
            yield from random_step(state, rng)[2]


def attika_events() -> Iterator[Event]:
    for run in range(6):
        state = ATTIKA.new_state(2 + run % 3, f"describe-{run}")
        rng = random.Random(run)
        for _ in range(3000):
            if ATTIKA.is_over(state):
                break
            [decision] = ATTIKA.pending(state)
            action = rng.choice(ATTIKA.legal_actions(state, decision.seat))
            yield from ATTIKA.apply(state, decision.seat, action)


def wargame_events() -> Iterator[Event]:
    events: list[Event] = []
    for run, bias in enumerate([0.02, 0.02, 0.0]):
        state = WARGAME.new_state(2, f"describe-{run}")
        random_play(state, random.Random(run), end_bias=bias, check=lambda *a: events.extend(a[3]))
    yield from events


PLAYED = {"attila": attila_events, "attika": attika_events, "attila_wargame": wargame_events}


def check_sentence(text: str | None) -> None:
    assert text, "a describable event must give a sentence"
    for bad in ("{", "}", "seat ", "None", "Player "):
        assert bad not in text, f"{bad!r} in {text!r}"
    assert not text[0].islower() and text.endswith("."), text


@pytest.mark.parametrize("package", sorted(GAMES))
def test_every_kind_the_engine_emits_is_described_or_deliberately_silent(package: str) -> None:
    game, words = GAMES[package]
    described = set(words.Describe(game.board).describers)
    assert not described & words.SILENT
    undecided = emitted_kinds(package) - described - words.SILENT
    assert not undecided, f"decide: describe these kinds or list them in SILENT: {undecided}"
    assert not described - emitted_kinds(package), "a describer for a kind never emitted"


@pytest.mark.parametrize("package", sorted(GAMES))
def test_random_games_give_a_clean_sentence_for_every_describable_event(package: str) -> None:
    game, words = GAMES[package]
    described = set(words.Describe(game.board).describers)
    seen: set[str] = set()
    for event in PLAYED[package]():
        seen.add(event.kind)
        assert event.kind in described | words.SILENT, f"undecided kind {event.kind}"
        text = game.describe(event, NAMES)
        if event.kind in words.SILENT:
            assert text is None
        else:
            check_sentence(text)
    assert len(seen) >= 12  # the random games reach most of the game


# -- the templates ---------------------------------------------------------------------------


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("package", sorted(GAMES))
def test_templates_use_named_placeholders_and_plurals_agree(package: str) -> None:
    _, words = GAMES[package]
    for key, template in words.TEMPLATES.items():
        forms = [template.one, template.other] if isinstance(template, Plural) else [template]
        for form in forms:
            assert "" not in fields(form), f"{key}: a positional placeholder"
            assert all(name.isidentifier() for name in fields(form)), key
        if isinstance(template, Plural):
            assert fields(template.one) == fields(template.other), key


def test_attila_data_names_are_all_covered() -> None:
    assert set(attila_words.PEOPLE_SINGULAR) == {p.id for p in ATTILA.board.peoples}
    for tile in ATTILA.board.action_tiles:
        assert f"action_tile_used.{tile}" in attila_words.TEMPLATES


def test_wargame_removal_reasons_all_have_sentences() -> None:
    # The rules are split by phase (engine/attila_wargame/rules.py composes the modules).
    source = "".join(p.read_text() for p in sorted((ENGINE / "attila_wargame").glob("*.py")))
    reasons = set(re.findall(r'_remove\(\s*state,\s*\w+,\s*"([a-z_]+)"', source))
    assert reasons >= {"eliminated", "killed"}
    for reason in reasons:
        assert f"unit_removed.{reason}" in wargame_words.TEMPLATES, reason
        assert f"unit_removed.{reason}.off_map" in wargame_words.TEMPLATES, reason


def test_wargame_data_names_are_all_covered() -> None:
    words = WARGAME.describer
    b = WARGAME.board
    assert all(words.unit(u) != u for u in b.units)
    assert len(set(words.unit_names.values())) == len(b.units)
    results = {cell for col in b.cells.values() for row in col.values() for cell in row.values()}
    for result in results:
        key = result if result[1:] == "R" else result[:2]
        assert f"battle_resolved.{key}" in wargame_words.TEMPLATES, result


# -- exact sentences -------------------------------------------------------------------------


def say(
    game: Game[Any, Any], kind: str, audience: tuple[int, ...] | None = None, /, **data: Any
) -> str | None:
    return game.describe(Event(kind, data, audience), NAMES)


def test_attila_a_real_placement_and_influence_read_as_two_sentences() -> None:
    state = ATTILA.new_state(2, "describe-placement")
    seat = state.active
    franks = ATTILA.board.people("franks").index
    state.hands[seat] = [franks] * len(state.hands[seat])
    placed = ATTILA.apply_notation(state, seat, "F BEL")
    influence = ATTILA.apply_notation(state, seat, "inf")
    names = ["Anna", "Bruno"] if seat == 1 else ["Bruno", "Anna"]
    texts = [ATTILA.describe(e, names) for e in placed + influence]
    assert [t for t in texts if t][:2] == [
        "Bruno placed a Frank in Belgica.",
        "Bruno took 1 step of influence with the Franks (now field 1).",
    ]


def test_attila_sentences() -> None:
    G = ATTILA
    assert say(G, "card_played", seat=1, people="franks") is None
    assert say(G, "turn_ended", seat=1, turn=3) is None
    assert (
        say(G, "influence_raised", seat=0, people="huns", field=5, steps=2)
        == "Anna took 2 steps of influence with the Huns (now field 5)."
    )
    assert (
        say(G, "conflict_started", ref="c", province="ITA", peoples=["goths", "vandals"], order=[])
        == "Conflict in Italia between Goths, Vandals."
    )
    assert (
        say(G, "conflict_committed", ref="c", seat=2, count=1)
        == "Cleo laid 1 card in the conflict."
    )
    assert (
        say(G, "conflict_committed_own", (2,), ref="c", seat=2, cards=["saxons", "saxons"])
        == "Cleo laid 2 cards in the conflict: Saxon, Saxon (only you see this)."
    )
    assert (
        say(G, "province_pacified", province="BEL", century=5)
        == "Belgica is pacified (5th century)."
    )
    assert (
        say(G, "scored", scoring="century", peoples=[], scores=[12, 8], century=4)
        == "Scoring of the 4th century; the scores are now Anna 12, Bruno 8."
    )
    assert (
        say(G, "game_ended", scores=[30, 30, 9], winners=[0, 1], reasons=[], seed="s")
        == "The game is over: Anna, Bruno share the win with 30 points."
    )
    assert say(G, "action_tile_used", seat=1, tile="swap") == "Bruno used the swap tile."
    assert (
        say(G, "influence_raised", seat=1, people="vandals", field=22, steps=0)
        == "Bruno is already on the top field for the Vandals."
    )
    assert say(G, "card_discarded", seat=0, people="teutons") == (
        "Anna could play no card and discarded a Teuton card."
    )


def test_attila_a_simultaneous_commitment_says_nothing_of_the_cards() -> None:
    text = say(ATTILA, "conflict_committed", ref="c", seat=1)
    assert text == "Bruno made a secret choice for the conflict."


def test_attila_simultaneous_conflicts_keep_the_number_of_cards_out_of_public_sentences() -> None:
    state = ATTILA.new_state(3, "describe-secret", {"CONFLICT_COMMIT_ORDER": "simultaneous"})
    rng = random.Random(3)
    secret = 0
    while not ATTILA.is_over(state):
        for event in random_step(state, rng)[2]:
            if event.kind == "conflict_committed":
                text = ATTILA.describe(event, NAMES)
                assert text is not None and not re.search(r"\d| card", text), text
                secret += 1
    assert secret


def test_attika_sentences() -> None:
    G = ATTIKA
    assert say(G, "turn_started", seat=0, turn=1) is None
    built = dict(building="well", hex="2,3", paid=["water", "water", "mountain"], free=False)
    assert (
        say(G, "building_built", seat=1, **built, new_settlement=False, settlements=1)
        == "Bruno built the Well on hex 2,3 for 3 cards."
    )
    free = dict(building="grainfield", hex="3,3", paid=[], free=True)
    assert (
        say(G, "building_built", seat=1, **free, new_settlement=True, settlements=2)
        == "Bruno built the Grain field on hex 3,3 for free, starting a new settlement."
    )
    assert (
        say(G, "building_revealed", seat=0, stack=2, building="well", left_in_stack=7)
        == "Anna revealed the Well from stack 2."
    )
    assert (
        say(G, "amphora_supply_empty", seat=2, group="supply")
        == "Cleo completed the Supply group; no amphora is left, so they draw a card."
    )
    assert (
        say(G, "tile_placed", seat=0, tile="T01", hex="4,-1", rotation=2)
        == "Anna laid a landscape tile at hex 4,-1."
    )
    assert (
        say(G, "game_ended", winners=[0, 2], reasons=["blocked"], scores=[], seed="s")
        == "The game is over: nobody can go on; Anna, Cleo share the win."
    )


def wargame_samples() -> list[tuple[str, tuple[int, ...] | None, dict[str, Any], str]]:
    """One hand-built event for each kind random play rarely reaches, with its sentence."""
    return [
        ("aetius_murdered", None, {"rounds": [4, 5, 6], "round": 5},
         "Aetius is murdered on the Emperor's order in round 5."),
        ("council_called", None, {"ref": "council-1", "kind": "lugdunum"},
         "A council is called at Lugdunum."),
        ("council_resolved", None,
         {"ref": "council-2", "kind": "end", "roman_card": "fides",
          "barbarian_card": "terror", "result": 1},
         "At the council Anna played Fides and Bruno played Terror: Attila is deposed."),
        ("end_council", None, {"convened": False}, "Anna did not call the final council."),
        ("federated", None, {"people": "visigoths", "city": "tolosa"},
         "The Pope's visit to Tolosa made the Visigoths federates of Rome."),
        ("gaul_invaded", None, {"unit": "HUN-7", "hex": "1204"},
         "Huns 7 invaded Gaul at hex 1204."),
        ("move_cut_short", None, {"unit": "H-ATTILA"}, "Attila Rex had to stop there."),
        ("people_joined", None, {"people": "burgundians", "side": "roman"},
         "The Burgundians joined the Romans."),
        ("siege_loss", None, {"unit": "W-III-INF", "city": "ravenna", "points": 1},
         "Western legion III (infantry) is besieged in Ravenna."),
        ("suborned_revealed", None, {"unit": "HER-5", "killed": "H-ATTILA"},
         "Heruli 5 is revealed as suborned by Rome and kills Attila Rex."),
        ("traitor_restored", None, {"unit": "E-LAMBDA-CAV", "by": "W-AETIUS"},
         "Aetius brought the traitor Eastern unit Λ (cavalry) back into the Roman ranks."),
        ("traitor_revealed", None,
         {"unit": "W-V-INF", "by": "H-ATTILA", "attila": "antipope", "leo": "alive"},
         "Western legion V (infantry) is revealed as the traitor and stands aside; Attila is "
         "proclaimed Antipope."),
        ("unit_not_entered", None, {"unit": "E-MARTIANUS"}, "Martianus could not enter the map."),
        ("command_units_overrun", None,
         {"ref": "battle-3", "hex": "2104", "units": ["W-LEO", "W-AETIUS"]},
         "Leo I, Aetius, alone at hex 2104, were overrun."),
        ("moved", None, {"unit": "HUN-12", "to": "2301", "stopped": True},
         "Huns 12 moved to hex 2301."),
        ("card_chosen", None, {"ref": "battle-1", "seat": 1}, "Bruno chose a battle card."),
        ("card_chosen_own", (1,), {"ref": "battle-1", "card": "cp"},
         "Bruno chose charge in depth (only you see this)."),
        ("battle_resolved", None,
         {"ref": "battle-1", "attack_card": "al", "defence_card": "md", "column": "2:1",
          "result": "DE2"},
         "Battle at odds 2:1, linear attack against diversionary manoeuvre: the defenders lose "
         "2 points each."),
        ("unit_removed", None, {"unit": "W-LEO", "reason": "killed", "hex": "2208"},
         "Leo I was killed at hex 2208."),
        ("devastated", None, {"hexes": ["3009"]}, "The Barbarians devastated 1 field: hex 3009."),
    ]  # fmt: skip


@pytest.mark.parametrize(("kind", "audience", "data", "sentence"), wargame_samples())
def test_wargame_sentences(
    kind: str, audience: tuple[int, ...] | None, data: dict[str, Any], sentence: str
) -> None:
    assert say(WARGAME, kind, audience, **data) == sentence


def test_wargame_city_hexes_are_named_by_their_city() -> None:
    b = WARGAME.board
    aquileia = b.label(b.city_by_id["aquileia"].hex)
    assert say(WARGAME, "moved", unit="HUN-3", to=aquileia, stopped=True) == (
        "Huns 3 moved to Aquileia."
    )


def test_public_wargame_card_sentences_name_no_card() -> None:
    for ref in ("battle-1", "council-1"):
        text = say(WARGAME, "card_chosen", ref=ref, seat=0)
        names = WARGAME.describer.card_names.values()
        assert text is not None and not any(n in text for n in names)


def test_a_seat_without_a_name_still_reads_as_a_person() -> None:
    names: Sequence[str] = ["Anna"]
    text = ATTILA.describe(Event("cards_drawn", {"seat": 1, "count": 2}), names)
    assert text == "Player 2 drew 2 cards."


def test_wargame_council_sides_waiting_for_the_invasion() -> None:
    event = Event(
        "sides_await_west_invasion", {"sides": {"burgundians": "roman", "thuringians": "barbarian"}}
    )
    assert WARGAME.describe(event, ["Anna", "Bruno"]) == (
        "The council decided the sides of Burgundians (Romans), Thuringians (Barbarians); "
        "they take them when the West is invaded."
    )
