"""`kurier verify` on a record downloaded over HTTP, as a client runs it (docs/api.md,
"Verifying a finished game offline"), and the verifier's imports: the engine only."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.client import Kurier, play_to_end

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def downloaded(base_url: str, worker: subprocess.Popen[bytes]) -> dict[str, Any]:
    """The record of a finished 2-player Attila game, as a spectator downloads it."""
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="verify-over-http")
    final, _, sealed = play_to_end(kurier, game_id, players, random.Random(14))
    assert final["status"] == "finished" and sealed > 0
    r = kurier.call("GET", f"/v1/games/{game_id}/record")
    assert r.status_code == 200, r.text
    return r.json()


def _verify(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_verify_a_downloaded_record(downloaded: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(downloaded))
    done = _verify(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"game {downloaded['id']}: verified (seed, " in done.stdout


def _sealed_choice_changed(record: dict[str, Any]) -> None:
    """The sealed choice of one action replaced (in the action list and its reveal) by another
    legal-looking one: it no longer matches the commitment published when it was made."""
    action = next(a for a in record["actions"] if a["kind"] == "sealed")
    other = "pass" if action["action"] != "pass" else "commit F"
    action["action"] = other
    for reveal in record["reveals"]:
        for choice in reveal["choices"]:
            if reveal["ref"] == action["ref"] and choice["seat"] == action["seat"]:
                choice["choice"] = other


def _seed_changed(record: dict[str, Any]) -> None:
    record["seed"] = record["seed"][::-1]


@pytest.mark.parametrize(
    ("tamper", "says"),
    [
        (_sealed_choice_changed, "the revealed choice does not match its commitment"),
        (_seed_changed, "the seed does not match the seed commitment"),
    ],
    ids=["sealed-choice", "seed"],
)
def test_verify_catches_tampering(
    downloaded: dict[str, Any], tmp_path: Path, tamper: Any, says: str
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(downloaded))
    record = copy.deepcopy(downloaded)
    tamper(record)
    bad.write_text(json.dumps(record))
    # One summary per file; one bad file fails the command.
    done = _verify(good, bad)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"game {downloaded['id']}: verified" in done.stdout
    assert f"game {downloaded['id']}: NOT verified" in done.stdout
    assert says in done.stdout, done.stdout


def test_the_verifier_imports_neither_flask_nor_redis() -> None:
    code = (
        "import sys, engine.verify\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'flask', 'redis', 'rq', 'werkzeug', 'service', 'workers'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_verify_unreadable_files(downloaded: dict[str, Any], tmp_path: Path) -> None:
    """A missing file or one that is not a record is a failure with a line of its own, and
    the other files are still checked."""
    good, junk = tmp_path / "good.json", tmp_path / "junk.json"
    good.write_text(json.dumps(downloaded))
    junk.write_text("<html>502 Bad Gateway</html>")
    missing = tmp_path / "missing.json"
    done = _verify(missing, junk, good)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f"{missing}: NOT verified: cannot read a record" in done.stdout
    assert f"{junk}: NOT verified: cannot read a record" in done.stdout
    assert f"game {downloaded['id']}: verified" in done.stdout
