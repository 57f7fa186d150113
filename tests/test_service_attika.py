"""Whole Attika games for 3 and 4 players (for 2: tests/test_topologies.py), played only
through HTTP (``requests``) against the real app, Redis and worker; the record replays with the
engine to the same result, and no seat ever sees another's hand or any stack order."""

from __future__ import annotations

import hashlib
import json
import random
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.attika.game import GAME
from engine.attika.state import AttikaState
from service.pictures import board_svg
from tests.client import Kurier, Player

MAX_STEPS = 1500  # random games need about 200 / 300 / 400 actions for 2 / 3 / 4 players
MAX_SECONDS = 150
CHECK_EVERY = 9  # fetch every seat's view this often (and at the end)


@dataclass
class Played:
    final: dict[str, Any]
    kinds: dict[str, int] = field(default_factory=dict)
    # version -> seat (None: spectator) -> the "view" part of GET /v1/games/{id}
    views: dict[int, dict[int | None, dict[str, Any]]] = field(default_factory=dict)


def _snapshot(k: Kurier, game_id: str, players: list[Player]) -> dict[int | None, Any]:
    """Every seat's and the spectator's view of one version (retried if it moved between)."""
    for _ in range(5):
        got = {None: k.view(game_id)}
        got |= {seat: k.view(game_id, p) for seat, p in enumerate(players)}
        if len({v["version"] for v in got.values()}) == 1:
            return got
    raise AssertionError("the version kept moving while nobody played")


def choose_attika(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Random, leaning to building: a build when one is legal three times in four."""
    builds = [a for a in actions if a["action"]["type"] == "build"]
    if builds and rng.random() < 0.75:
        return rng.choice(builds)
    return rng.choice(actions)


def play_attika(k: Kurier, game_id: str, players: list[Player], rng: random.Random) -> Played:
    deadline = time.monotonic() + MAX_SECONDS
    played: Played | None = None
    kinds: dict[str, int] = {}
    views: dict[int, dict[int | None, dict[str, Any]]] = {}
    # The game's status, version and whom it waits for: the spectator's view at each snapshot,
    # else the last move's answer (its `waiting_for` is the view's).
    game: dict[str, Any] = {}
    for step in range(MAX_STEPS):
        assert time.monotonic() < deadline, f"game not finished after {step} moves"
        if step % CHECK_EVERY == 0:
            snap = _snapshot(k, game_id, players)
            views[snap[None]["version"]] = {s: v["view"] for s, v in snap.items()}
            game = snap[None]
            if game["status"] != "finished":  # Attika: always exactly the active seat
                assert [d["seat"] for d in game["waiting_for"]] == [game["view"]["active"]]
        if game["status"] == "finished":
            played = Played(k.view(game_id), kinds)
            break
        (decision,) = game["waiting_for"]
        assert decision["kind"] == "move", decision
        player = players[decision["seat"]]
        r = k.call("GET", f"/v1/games/{game_id}/legal-actions", player)
        assert r.status_code == 200, r.text
        legal = r.json()["actions"]
        assert legal, r.json()
        # The others have nothing to do.
        for seat, other in enumerate(players):
            if seat != decision["seat"] and step % CHECK_EVERY == 0:
                r = k.call("GET", f"/v1/games/{game_id}/legal-actions", other)
                assert r.status_code == 200 and r.json()["actions"] == [], r.text
        choice = choose_attika(rng, legal)
        kinds[choice["action"]["type"]] = kinds.get(choice["action"]["type"], 0) + 1
        body = (
            {"notation": choice["notation"]} if rng.random() < 0.5 else {"action": choice["action"]}
        )
        r = k.call(
            "POST",
            f"/v1/games/{game_id}/actions",
            player,
            json=body,
            headers={"If-Match": f'"{game["version"]}"'},
        )
        assert r.status_code == 200, r.text
        sent, game = game["version"], r.json()
        assert game["version"] == sent + 1, game
    assert played is not None, f"game not finished within {MAX_STEPS} moves"
    snap = _snapshot(k, game_id, players)
    views[snap[None]["version"]] = {s: v["view"] for s, v in snap.items()}
    played.views = views
    return played


def _hidden_changed(state: AttikaState, keep: int | None, rng: random.Random) -> AttikaState:
    """The same public game with all it hides changed: every stack's order, which of stacks
    2-4 holds what, the deck, the tile pile and every hand but ``keep``'s (same sizes)."""
    other = state.copy()
    for seat in range(other.players):
        main, *rest = other.stacks[seat]
        rng.shuffle(main)
        pool = [b for stack in rest for b in stack]
        rng.shuffle(pool)
        cut = [len(s) for s in rest]
        other.stacks[seat] = [main] + [
            pool[sum(cut[:i]) : sum(cut[: i + 1])] for i in range(len(rest))
        ]
        if seat != keep:
            total = sum(other.hands[seat])
            other.hands[seat] = [0] * len(other.hands[seat])
            for _ in range(total):
                other.hands[seat][rng.randrange(len(other.hands[seat]))] += 1
    other.deck = [(card + 1) % len(GAME.board.resources) for card in other.deck]
    rng.shuffle(other.deck)
    rng.shuffle(other.tile_pile)
    return other


def _hand_keys(value: Any) -> int:
    """How many "hand" keys a JSON value holds at any depth."""
    if isinstance(value, dict):
        return sum((key == "hand") + _hand_keys(v) for key, v in value.items())
    if isinstance(value, list):
        return sum(_hand_keys(v) for v in value)
    return 0


def _check_views(state: AttikaState, seen: dict[int | None, dict[str, Any]]) -> int:
    """What each seat got over HTTP is the engine's view of the replayed state for that seat,
    holds only its own hand, and would not change if anything hidden from it changed.
    Returns for how many viewers something hidden could actually be changed."""
    rng = random.Random(len(seen))
    varied = 0
    for seat, got in seen.items():
        assert got == json.loads(json.dumps(GAME.view(state, seat)))
        if seat is None:
            assert "hand" not in got
        else:
            hand = [got["hand"][r.id] for r in GAME.board.resources]
            assert hand == state.hands[seat]
        for info in got["seats"]:  # stacks only as counts, their contents only sorted
            assert all(isinstance(n, int) for n in info["stacks"])
            order = [GAME.board.building(b).index for b in info["in_stacks"]]
            assert order == sorted(order)
        assert _hand_keys(got) == (0 if seat is None else 1)
        changed = _hidden_changed(state, seat, rng)
        assert json.loads(json.dumps(GAME.view(changed, seat))) == got
        varied += changed.stacks != state.stacks or changed.deck != state.deck
    return varied


@pytest.mark.parametrize(("players", "seed"), [(3, 31), (4, 41)], ids=["3p", "4p"])
def test_complete_attika_game_over_http(kurier: Kurier, players: int, seed: int) -> None:
    """The 3- and 4-player games here; the 2-player one, (2, 21), is played with the same
    checks by tests/test_topologies.py on every topology, among them the queues apart, where
    the game's state is on one Redis as here: played here too it repeated that game."""
    check_complete_attika_game(kurier, players, seed)


def check_complete_attika_game(kurier: Kurier, players: int, seed: int) -> None:
    """A whole game of ``players`` over HTTP, its record replayed, every view and private event
    checked against the engine."""
    game_id, seated = kurier.new_game(players, seed=f"attika-http-{seed}", game_type="attika")
    played = play_attika(kurier, game_id, seated, random.Random(seed))
    final = played.final

    assert final["status"] == "finished"
    result = final["result"]
    assert result["winners"] and set(result["winners"]) <= set(range(players))
    assert result["reasons"]
    assert played.kinds.get("build", 0) > 10 and played.kinds.get("reveal", 0) > 5
    assert played.kinds.get("tile", 0) > 0, "no map growth: pick another seed"
    assert len(final["view"]["tiles"]) > len(GAME.board.layouts[players].tile_centres)

    # The record replays with the engine, action by action, to the same result; every view
    # fetched on the way is the engine's view of that moment.
    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    assert record["type"] == "attika" and record["complete"] is True
    assert hashlib.sha256(record["seed"].encode()).hexdigest() == record["seed_commitment"]
    actions = record["actions"]
    assert actions and all(a["action"] for a in actions)
    assert len(actions) == sum(played.kinds.values())
    moves = [(a["seat"], a["action"]) for a in actions]
    replayed = GAME.replay(record["players"], record["seed"], record["options"], moves)
    assert GAME.result(replayed) == record["result"] == result

    state = GAME.new_state(record["players"], record["seed"], record["options"])
    (before_any_move,) = [v for v in played.views if v < actions[0]["version"]]
    varied = _check_views(state, played.views[before_any_move])
    checked = 1
    for action in actions:
        GAME.apply_notation(state, action["seat"], action["action"])
        if action["version"] in played.views:
            varied += _check_views(state, played.views[action["version"]])
            checked += 1
    assert checked == len(played.views) >= 10
    # Late in a game little may be hidden any more; most checks did change hidden things.
    assert varied > checked * (players + 1) // 2
    assert GAME.is_over(state)

    # Private events (the cards someone drew) reach only their owner.
    for seat, player in [(None, None), *enumerate(seated)]:
        log = kurier.all_events(game_id, player)
        assert [e["version"] for e in log] == list(range(1, final["version"] + 1))
        own = 0
        for entry in log:
            for event in entry["events"]:
                if "audience" in event:
                    assert seat is not None and seat in event["audience"], event
                if event["kind"] == "cards_drawn_own":
                    assert event["data"]["seat"] == seat
                    own += 1
        assert (own > 0) == (seat is not None)

    # The board picture served is the spectator's, drawn by the Attika presenter.
    r = kurier.call("GET", f"/v1/games/{game_id}/board.svg")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("image/svg+xml")
    ET.fromstring(r.text)
    title = f"{GAME.title} · game {game_id} · version {final['version']}"
    names = [seat["name"] for seat in final["seats"]]
    last = kurier.all_events(game_id, None)[-1]["events"]
    expected = board_svg("attika", GAME.view(state, None), title, names=names, last_events=last)
    assert r.text == expected
    assert all(f"{name} (seat {seat})" in r.text for seat, name in enumerate(names))
    assert "Last move: " in r.text
