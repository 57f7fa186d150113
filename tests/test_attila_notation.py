"""The text notation and JSON form of actions, and the error codes of apply()."""

from __future__ import annotations

import json
import random

import pytest

from engine.attila.actions import (
    Boost,
    Commit,
    Discard,
    DoubleTurn,
    EndTurn,
    Play,
    Resolve,
    Swap,
    TakeInfluence,
    Waive,
)
from engine.core import SYSTEM, IllegalAction
from tests.attila_helpers import (
    G,
    P,
    do,
    fresh,
    frontier,
    inland,
    put,
    qid,
    random_step,
    set_hands,
)

V, S, H = P("V"), P("S"), P("H")


def test_examples_from_the_notation_table() -> None:
    ita = inland()[0]
    q = qid(ita)
    assert G.parse(f"V {q}") == Play(V, ita)
    assert G.parse("inf") == TakeInfluence()
    assert G.parse(f"waive {q}") == Waive(ita)
    assert G.parse("waive") == Waive()
    assert G.parse("commit VVH") == Commit(tuple(sorted((V, V, H))))
    assert G.parse("pass") == Commit(())
    assert G.parse("double") == DoubleTurn()
    assert G.parse("swap VS") == Swap(tuple(sorted((V, S))))
    assert G.parse("boost V") == Boost((V,))
    assert G.parse("boost V H") == Boost((V, H))
    assert G.parse("discard V") == Discard(V)
    assert G.parse("end") == EndTurn()
    assert G.parse("resolve") == Resolve()


def test_parse_is_case_and_space_insensitive() -> None:
    q = qid(frontier()[0])
    assert G.parse(f"  v   {q.lower()} ") == G.parse(f"V {q}")
    assert G.parse("COMMIT hvv") == G.parse("commit VVH")
    assert G.parse(" INF ") == TakeInfluence()


@pytest.mark.parametrize(
    "text", ["", "   ", "hello", "commit", "swap", "boost", "V", "12 ITA", "inf now", "play"]
)
def test_bad_notation(text: str) -> None:
    with pytest.raises(IllegalAction) as error:
        G.parse(text)
    assert error.value.code == "bad-notation"


def test_unknown_people_and_province() -> None:
    letters = {p.letter for p in G.board.peoples}
    unused = next(c for c in "QXZYWKJ" if c not in letters)
    with pytest.raises(IllegalAction) as error:
        G.parse(f"{unused} {qid(frontier()[0])}")
    assert error.value.code == "unknown-people"
    ids = {p.id for p in G.board.provinces}
    bogus = next(x for x in ("XXX", "QQQ", "ZZZ") if x not in ids)
    with pytest.raises(IllegalAction) as error:
        G.parse(f"V {bogus}")
    assert error.value.code == "unknown-province"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_round_trip_every_legal_action_in_random_games(players: int) -> None:
    rng = random.Random(players)
    seen: set[str] = set()
    for game in range(3):
        state = G.new_state(players, f"notation-{players}-{game}")
        steps = 0
        while not G.is_over(state) and steps < 400:
            for decision in G.pending(state):
                for action in G.legal_actions(state, decision.seat):
                    text = G.notation(action)
                    assert G.parse(text) == action, text
                    assert G.parse(text.lower()) == action
                    raw = G.action_to_json(action)
                    assert G.action_from_json(json.loads(json.dumps(raw))) == action
                    seen.add(raw["type"])
            random_step(state, rng)
            steps += 1
    assert {"play", "influence", "commit", "double", "swap", "boost", "resolve"} <= seen


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"type": "nope"},
        {"type": "play"},
        {"type": "play", "people": "vandals"},
        {"type": "play", "people": 5, "province": "ITA"},
        {"type": "influence", "extra": 1},
        {"type": "waive", "province": "ITA", "extra": 1},
        {"type": "waive", "province": None},
        {"type": "commit", "cards": "VV"},
        {"type": "boost", "peoples": None},
    ],
    ids=repr,
)
def test_bad_json_action(raw: dict) -> None:
    with pytest.raises(IllegalAction) as error:
        G.action_from_json(raw)
    assert error.value.code == "bad-action"


def test_waive_without_a_second_stone_in_notation_and_json() -> None:
    assert G.notation(Waive()) == "waive" and G.parse("WAIVE ") == Waive()
    assert G.action_to_json(Waive()) == {"type": "waive"}
    assert G.action_from_json({"type": "waive"}) == Waive()
    ita = inland()[0]
    assert G.action_to_json(Waive(ita)) == {"type": "waive", "province": qid(ita)}
    assert G.action_from_json({"type": "waive", "province": qid(ita)}) == Waive(ita)


def test_json_action_not_an_object() -> None:
    with pytest.raises(IllegalAction) as error:
        G.action_from_json(["play"])
    assert error.value.code == "bad-action"


def test_wrong_step_codes() -> None:
    state = fresh(3)
    set_hands(state, {0: [V] * 6})
    for text in ("inf", "pass", "commit V", "end", f"waive {qid(frontier()[0])}"):
        with pytest.raises(IllegalAction) as error:
            G.apply(state, 0, G.parse(text))
        assert error.value.code == "wrong-step", text
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 0, Resolve())
    assert error.value.code == "wrong-step"
    do(state, 0, f"V {qid(frontier()[0])}")
    for text in (f"V {qid(frontier()[1])}", "pass", "end"):
        with pytest.raises(IllegalAction) as error:
            G.apply(state, 0, G.parse(text))
        assert error.value.code == "wrong-step", text


def test_not_your_turn_and_system_never_plays() -> None:
    state = fresh(3)
    set_hands(state, {1: [V] * 6})
    for seat in (1, 2, SYSTEM):
        with pytest.raises(IllegalAction) as error:
            G.apply(state, seat, G.parse(f"V {qid(frontier()[0])}"))
        assert error.value.code == "not-your-turn"
    assert G.legal_actions(state, 1) == []
    assert G.legal_actions(state, SYSTEM) == []


def test_error_has_machine_readable_json() -> None:
    state = fresh(3)
    put(state, frontier()[0], S, 1)
    with pytest.raises(IllegalAction) as error:
        G.apply(state, 1, TakeInfluence())
    payload = error.value.to_json()
    assert payload["code"] == "not-your-turn" and isinstance(payload["message"], str)
    json.dumps(payload)


def test_json_unknown_names() -> None:
    with pytest.raises(IllegalAction) as error:
        G.action_from_json({"type": "play", "people": "romans", "province": qid(frontier()[0])})
    assert error.value.code == "unknown-people"
    with pytest.raises(IllegalAction) as error:
        G.action_from_json({"type": "waive", "province": "Atlantis"})
    assert error.value.code == "unknown-province"
