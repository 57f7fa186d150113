"""Issues 14 and 37: what the engines produce in random games (views from every seat, action
objects, events, decisions, results) validates against the per-game-type schemas of the OpenAPI
document, also in whole games played to their end, and docs/api.md lists every event kind.

Each event is checked against its own kind's schema (``CardPlayedEvent``), not only the
``GameEvent`` union: the union's fallback (``OtherEvent``) takes any kind it does not name, so
a known kind with a missing field would otherwise fail only in a client. A wargame's
``game_ended`` without ``reasons`` reached clients that way: no test had finished a wargame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core import Event
from engine.registry import game_ids, get_game
from service.http.schemas import contract, derive
from tests.openapi_validation import component, errors

DOCS = Path(__file__).resolve().parent.parent / "docs" / "api.md"
#: Other seeds than derive.py's: the schemas must hold for games they were not made from.
GAMES_PER_TYPE = 4
#: Whole random games per type (a random wargame takes some 4,000 actions, seconds).
WHOLE_GAMES = 2


@pytest.fixture(scope="module", params=game_ids())
def sampled(request: pytest.FixtureRequest) -> tuple[str, list[derive.Sample]]:
    type_id = request.param
    return type_id, list(derive.samples(type_id, GAMES_PER_TYPE, prefix="check"))


def test_views_validate(sampled: tuple[str, list[derive.Sample]]) -> None:
    type_id, samples = sampled
    check = component(contract.camel(type_id) + "View")
    views = [view for sample in samples for view in sample.views]
    assert len(views) > 20
    for view in views:
        assert not errors(check, view), errors(check, view)


def test_actions_validate(sampled: tuple[str, list[derive.Sample]]) -> None:
    type_id, samples = sampled
    own, any_game = component(contract.camel(type_id) + "Action"), component("Action")
    actions = [action for sample in samples for action in sample.actions]
    assert actions
    for action in [*actions, *derive.SEAT_ACTIONS]:
        assert not errors(own, action), (action, errors(own, action))
        assert not errors(any_game, action), (action, errors(any_game, action))


def _check_events(events: list[dict[str, Any]]) -> None:
    """Each event against its own kind's schema and against the union."""
    union = component("GameEvent")
    for event in events:
        own = component(contract.camel(event["kind"]) + "Event")
        assert not errors(own, event), (event["kind"], errors(own, event))
        assert not errors(union, event), (event["kind"], errors(union, event))


def test_events_and_decisions_validate(sampled: tuple[str, list[derive.Sample]]) -> None:
    type_id, samples = sampled
    events = [event for sample in samples for event in sample.events]
    assert events
    _check_events(events)
    name = contract.camel(type_id)
    decision, steps = component(name + "Decision"), component(name + "DecisionStep")
    for kind, step in {step for sample in samples for step in sample.steps}:
        value = {"seat": 0, "kind": kind, "step": step}
        assert not errors(decision, value), errors(decision, value)
        assert not errors(steps, step), (step, errors(steps, step))


@pytest.mark.parametrize("type_id", game_ids())
def test_whole_games_to_their_end_validate(type_id: str) -> None:
    """Random games played to their end (no resignation): every event, the views at the end
    and the result validate; the end was the game's own (its game_ended names why)."""
    name = contract.camel(type_id)
    view, result, common = (
        component(name + "View"),
        component(name + "Result"),
        component("GameResult"),
    )
    for number in range(WHOLE_GAMES):
        sample = derive.whole_game(type_id, f"check-whole-{type_id}-{number}")
        _check_events(sample.events)
        ended = [e for e in sample.events if e["kind"] == "game_ended"]
        assert len(ended) == 1 and ended[0]["data"]["reasons"], ended
        assert "resigned" not in ended[0]["data"]["reasons"]
        (final,) = sample.results
        assert not errors(result, final), errors(result, final)
        assert not errors(common, final), errors(common, final)
        for seen in sample.views:
            assert not errors(view, seen), errors(view, seen)


def test_a_wrong_shape_is_refused() -> None:
    """The schemas are not vacuous: a misspelt kind is no known kind's (only the fallback's),
    a known kind with wrong data is nothing, a view field of the wrong type fails."""
    misspelt = {"kind": "card_playd", "data": {}}
    assert errors(component("CardPlayedEvent"), misspelt)
    assert not errors(component("OtherEvent"), misspelt)  # a newer server's kind, maybe
    wrong = {"kind": "card_played", "data": {"seat": "zero"}}
    assert errors(component("GameEvent"), wrong)
    assert errors(component("OtherEvent"), wrong)  # a known kind is never the fallback's
    assert errors(component("AttilaView"), {"century": "first"})
    assert errors(component("AttilaAction"), {"type": "play"})  # its fields missing
    assert errors(component("AttilaOtherAction"), {"type": "play", "people": "V"})
    assert not errors(component("AttilaAction"), {"type": "teleport"})  # the fallback
    assert errors(component("AttilaDecisionStep"), "teleport")


def test_docs_list_every_event_kind(sampled: tuple[str, list[derive.Sample]]) -> None:
    type_id, samples = sampled
    text = DOCS.read_text()
    assert derive.docs_with_table(text, contract.event_table()) == text, (
        "docs/api.md's event table is stale: run python -m service.http.schemas.derive"
    )
    listed = {line.split("`")[1] for line in text.splitlines() if line.startswith(f"| {type_id} |")}
    produced = {event["kind"] for sample in samples for event in sample.events}
    assert produced <= listed, produced - listed


@pytest.mark.parametrize("type_id", game_ids())
def test_every_action_type_and_event_kind_has_a_schema(type_id: str) -> None:
    """Random games rarely reach some kinds (Attila's discard, the wargame's councils): a
    generated client that met one without a schema failed to parse a whole response."""
    game, schemas = get_game(type_id), contract.game_types()[type_id]
    assert game.action_types() and game.event_kinds()
    assert game.action_types() <= set(schemas["actions"]), game.action_types() - set(
        schemas["actions"]
    )
    assert game.event_kinds() <= set(schemas["events"]), game.event_kinds() - set(schemas["events"])


@pytest.mark.parametrize("type_id", game_ids())
def test_the_engines_examples_are_what_the_engine_reads_and_validate(type_id: str) -> None:
    game, examples = get_game(type_id), get_game(type_id).examples()
    own, any_event = component(contract.camel(type_id) + "Action"), component("GameEvent")
    for action in examples["actions"]:
        assert game.action_to_json(game.action_from_json(action)) == action
        assert not errors(own, action), errors(own, action)
    for event in examples["events"]:
        assert event["kind"] in game.event_kinds()
        assert game.describe(Event.from_json(event), ["Anna", "Bruno", "Cleo"])
        assert not errors(any_event, event), errors(any_event, event)
