"""Offline verification of a finished game's public record (engine/verify.py): a record the
service published verifies, and each kind of tampering is caught."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.verify import verify_record
from service.domain.games import views
from service.store import Store
from tests.game_helpers import new_table, play_random

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def finished_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer

    server = RedisServer(tmp_path_factory.mktemp("verify"), EPHEMERAL_FLAGS)
    server.start()
    store = Store(server.url)
    try:
        table = new_table(store, seats=3, seed="verify-seed")
        assert play_random(store, table, 5000, seed=3) < 5000, "the game did not end"
        record, entries = store.read_log(table.game_id)
        # What anyone (a spectator) downloads: GET /v1/games/{id}/record.
        return json.loads(json.dumps(views.game_record(record, entries, None)))
    finally:
        store.close()
        server.stop()


def test_a_published_record_verifies(finished_record: dict[str, Any]) -> None:
    result = verify_record(finished_record)
    assert result.ok, result.problems
    sealed = [a for a in finished_record["actions"] if a["kind"] == "sealed"]
    assert sealed, "the game had no sealed choice: pick another seed"
    assert result.choices_checked == len(sealed)
    assert result.actions_replayed == len(finished_record["actions"])


def _sealed_index(record: dict[str, Any]) -> int:
    return next(i for i, a in enumerate(record["actions"]) if a["kind"] == "sealed")


def _tamper_seed(record: dict[str, Any]) -> None:
    record["seed"] += "0"


def _tamper_salt(record: dict[str, Any]) -> None:
    choice = record["reveals"][0]["choices"][0]
    choice["salt"] = "0" * len(choice["salt"])


def _tamper_choice(record: dict[str, Any]) -> None:
    # A player claims another choice than the one committed: reveal and action both changed.
    action = record["actions"][_sealed_index(record)]
    other = "pass" if action["action"] != "pass" else "commit F"
    for reveal in record["reveals"]:
        for choice in reveal["choices"]:
            if reveal["ref"] == action["ref"] and choice["seat"] == action["seat"]:
                choice["choice"] = other
    action["action"] = other


def _tamper_result(record: dict[str, Any]) -> None:
    record["result"] = {**record["result"], "winners": [9]}


def _drop_action(record: dict[str, Any]) -> None:
    del record["actions"][len(record["actions"]) // 2]


@pytest.mark.parametrize(
    ("tamper", "says"),
    [
        (_tamper_seed, "seed does not match"),
        (_tamper_salt, "does not match its commitment"),
        (_tamper_choice, "does not match its commitment"),
        (_tamper_result, "differs from the published"),
        (_drop_action, ""),
    ],
    ids=["seed", "salt", "choice", "result", "missing-action"],
)
def test_tampering_is_caught(finished_record: dict[str, Any], tamper: Any, says: str) -> None:
    record = copy.deepcopy(finished_record)
    tamper(record)
    result = verify_record(record)
    assert not result.ok
    assert any(says in problem for problem in result.problems), result.problems


def test_an_unfinished_game_is_not_verified(finished_record: dict[str, Any]) -> None:
    record = {**finished_record, "complete": False, "seed": None}
    assert "not finished" in verify_record(record).problems[0]


def test_the_verifier_runs_without_the_server_installed(
    finished_record: dict[str, Any], tmp_path: Path
) -> None:
    """python -m engine.verify with Flask, Redis, rq and the service package made unimportable:
    a client needs only the engine."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(finished_record))
    blocked = "import sys\nfor name in ('flask', 'redis', 'rq', 'service', 'workers'):\n"
    blocked += "    sys.modules[name] = None\n"
    blocked += "from engine.verify import main\nraise SystemExit(main([sys.argv[1]]))\n"
    done = subprocess.run(
        [sys.executable, "-c", blocked, str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "verified (seed" in done.stdout

    tampered = copy.deepcopy(finished_record)
    _tamper_seed(tampered)
    path.write_text(json.dumps(tampered))
    done = subprocess.run(
        [sys.executable, "-c", blocked, str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 1 and "NOT verified" in done.stdout


def test_kurier_verify_command(finished_record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(finished_record))
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"game {finished_record['id']}: verified" in done.stdout
