"""A client generated from the committed OpenAPI document (openapi/openapi.json) by
openapi-python-client plays a whole two-player Attila game against the test server, and a
spectator follows it through the generated unauthenticated Client (issue 14).

What the generator needs from us, and why (docs/api.md, "Generated clients"):
- ``content_type_overrides``: openapi-python-client 0.29 parses only JSON, ``text/*`` and
  ``application/octet-stream`` bodies and leaves out any other response (with a warning), so
  board.png (image/png) is read as bytes and board.svg (image/svg+xml) as text.
- Operations whose token is optional (``security: [{}, {bearerAuth: []}]``: get_game,
  list_game_events, get_game_record, list_open_games, list_messages) are generated with a
  ``client: AuthenticatedClient`` annotation: the generator looks only at whether a security
  requirement is present, not at the empty alternative. At run time the unauthenticated
  ``Client`` works for them (both give an httpx client); only the annotation is too narrow.
- ``GameView.your_decision``, ``GameView.deadline`` and ``LegalActions.decision`` are
  nullable references (service/http/schemas/contract.py), so they come back as ``Decision`` /
  ``Deadline`` or None: ``test_nullable_nested_fields_are_typed`` checks it (apispec's own
  ``anyOf: [free-form object, $ref]`` gave untyped mappings).
The generation runs with ``--fail-on-warning``: an operation the generator cannot read fails
this test instead of silently missing from the client.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine.verify import verify_record

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi" / "openapi.json"
PACKAGE = "kurier_generated_client"
GENERATOR_CONFIG = """\
content_type_overrides:
  image/png: application/octet-stream
  image/svg+xml: text/plain
"""
MAX_STEPS, MAX_SECONDS = 2000, 180
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def kc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package, imported from a temporary directory."""
    where = tmp_path_factory.mktemp("generated")
    config = where / "config.yaml"
    config.write_text(GENERATOR_CONFIG)
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [
            str(bin_dir / "openapi-python-client"),
            "generate",
            "--path",
            str(DOCUMENT),
            "--output-path",
            str(where / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
            "--fail-on-warning",
        ],
        # Its post-generation hook runs ruff from PATH (the venv's); without it, a warning.
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _api(name: str) -> ModuleType:
    """One generated operation module, e.g. ``games.play``."""
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def _model(name: str) -> Any:
    return getattr(importlib.import_module(f"{PACKAGE}.models"), name)


def test_every_operation_is_generated(kc: ModuleType) -> None:
    """Each operationId of the document is a module with sync/sync_detailed functions."""
    document = json.loads(DOCUMENT.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            tag = operation["tags"][0]
            module = _api(f"{tag}.{operation['operationId']}")
            assert callable(module.sync_detailed), (method, path)


def _ok(response: Any, *statuses: int) -> Any:
    assert response.status_code in statuses, (response.status_code, response.content[:500])
    return response.parsed


def _sign_up(kc: ModuleType, base_url: str, name: str) -> tuple[Any, Any]:
    anonymous = kc.Client(base_url=base_url)
    body = _model("PlayerCreate")(name=name)
    player = _ok(_api("players.create_player").sync_detailed(client=anonymous, body=body), 201)
    assert isinstance(player, _model("PlayerCreated"))
    return player, kc.AuthenticatedClient(base_url=base_url, token=player.token)


def _wait_for_change(kc: ModuleType, spectator: Any, game_id: str, version: int) -> None:
    """Conditional GETs (If-None-Match: the version) until the worker has moved the game."""
    get_game = _api("games.get_game")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        r = get_game.sync_detailed(game_id, client=spectator, if_none_match=f'"{version}"')
        if r.status_code == 200:
            return
        assert r.status_code == 304, r.content
        time.sleep(0.02)
    raise AssertionError("the worker did not resolve in time")


def _play_to_end(
    kc: ModuleType, spectator: Any, game_id: str, seats: list[Any], rng: random.Random
) -> tuple[Any, int]:
    """Random legal actions by whichever seat the spectator's view says is waiting."""
    get_game, legal_actions = _api("games.get_game"), _api("games.list_legal_actions")
    play, action_request = _api("games.play"), _model("ActionRequest")
    deadline, moves = time.monotonic() + MAX_SECONDS, 0
    for _ in range(MAX_STEPS):
        assert time.monotonic() < deadline, "the game did not finish in time"
        view = _ok(get_game.sync_detailed(game_id, client=spectator), 200)
        if view.status == "finished":
            return view, moves
        humans = [d for d in view.waiting_for if d.seat >= 0]
        if not humans:  # the server owes a resolution
            _wait_for_change(kc, spectator, game_id, view.version)
            continue
        decision = rng.choice(humans)
        player = seats[decision.seat]
        legal = _ok(legal_actions.sync_detailed(game_id, client=player), 200)
        choice = rng.choice(legal.actions)
        # Half the moves as notation, half as the action object legal-actions gave.
        if rng.random() < 0.5:
            body = action_request(notation=choice.notation)
        else:
            # legal-actions gives each action as its game's typed class (the Action union).
            body = action_request(action=choice.action)
        r = play.sync_detailed(
            game_id,
            client=player,
            body=body,
            idempotency_key=str(uuid.uuid4()),
            if_match=f'"{view.version}"',
        )
        result = _ok(r, 202 if decision.kind == "sealed" else 200)
        assert isinstance(result, _model("ActionResult"))
        moves += 1
    raise AssertionError(f"the game did not finish in {MAX_STEPS} steps")


def test_a_generated_client_plays_a_whole_game(
    kc: ModuleType, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    games = "games"
    (_, a0), (p1, a1) = _sign_up(kc, base_url, "Gen0"), _sign_up(kc, base_url, "Gen1")
    me = _ok(_api("players.get_me").sync_detailed(client=a1), 200)
    assert me.id == p1.id

    create = _model("GameCreate")(type_=_model("GameCreateType").ATTILA, seats=2)
    created = _ok(_api(f"{games}.create_game").sync_detailed(client=a0, body=create), 201)
    join = _model("JoinRequest")(invite_code=created.invite_code)
    joined = _ok(_api(f"{games}.join_game").sync_detailed(created.id, client=a1, body=join), 201)
    assert joined.seat == 1
    started = _ok(_api(f"{games}.start_game").sync_detailed(created.id, client=a0), 200)
    assert started.status == "active"

    # The spectator: the generated Client without a token.
    spectator = kc.Client(base_url=base_url)
    final, moves = _play_to_end(kc, spectator, created.id, [a0, a1], random.Random(14))
    assert moves > 0 and final.result is not None
    assert [seat.name for seat in final.seats] == ["Gen0", "Gen1"]
    assert final.your_seat is None  # a spectator's view

    # Unchanged since: 304 through the generated If-None-Match parameter.
    again = _api(f"{games}.get_game").sync_detailed(
        created.id, client=spectator, if_none_match=f'"{final.version}"'
    )
    assert again.status_code == 304

    # The whole log, page by page, as a spectator.
    events, after = [], 0
    list_events = _api(f"{games}.list_game_events")
    for _ in range(100):
        page = _ok(list_events.sync_detailed(created.id, client=spectator, after=after), 200)
        if not page.items:
            break
        events += page.items
        after = page.items[-1].version
    assert events and events[-1].version == final.version

    # The record, parsed into the generated model and back: still verifies offline.
    get_record = _api(f"{games}.get_game_record")
    record = _ok(get_record.sync_detailed(created.id, client=spectator), 200)
    assert isinstance(record, _model("GameRecord"))
    checked = verify_record(record.to_dict())
    assert checked.ok, checked.problems
    assert checked.actions_replayed == len(record.actions)

    # The board as PNG bytes (a File) and as SVG text.
    png = _ok(_api(f"{games}.get_board_png").sync_detailed(created.id, client=spectator), 200)
    assert png.payload.read().startswith(PNG_SIGNATURE)
    svg = _ok(_api(f"{games}.get_board_svg").sync_detailed(created.id, client=spectator), 200)
    assert svg.startswith("<svg") or svg.startswith("<?xml")

    # Errors come back as the generated Problem model (application/problem+json).
    missing = _api(f"{games}.get_game").sync_detailed("no-such-game", client=spectator)
    problem = _ok(missing, 404)
    assert isinstance(problem, _model("Problem")) and problem.code == "game-not-found"


def test_nullable_nested_fields_are_typed(
    kc: ModuleType, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    (_, a0), (_, a1) = _sign_up(kc, base_url, "Typed0"), _sign_up(kc, base_url, "Typed1")
    create = _model("GameCreate")(type_=_model("GameCreateType").ATTILA, seats=2)
    created = _ok(_api("games.create_game").sync_detailed(client=a0, body=create), 201)
    join = _model("JoinRequest")(invite_code=created.invite_code)
    _ok(_api("games.join_game").sync_detailed(created.id, client=a1, body=join), 201)
    _ok(_api("games.start_game").sync_detailed(created.id, client=a0), 200)
    decision_model = _model("Decision")
    typed = []
    for player in (a0, a1):
        view = _ok(_api("games.get_game").sync_detailed(created.id, client=player), 200)
        legal = _ok(_api("games.list_legal_actions").sync_detailed(created.id, client=player), 200)
        if view.your_decision is not None:
            typed.append(isinstance(view.your_decision, decision_model))
            typed.append(isinstance(legal.decision, decision_model))
    assert typed, "nobody had a decision to make"
    assert all(typed)
