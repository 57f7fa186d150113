"""examples/bot.py, the client authors' first copy, plays a whole game against the test server:
three bots as subprocesses; the first creates an open game, the others join it from the lobby;
each follows the game's event stream (`kurier streams`, reached through the API's redirect);
all exit 0 when the game is over."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from tests.client import Kurier
from tests.conftest import stop

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "examples" / "bot.py"
GAME_TYPE, SEATS = "attila", 3
MAX_SECONDS = 180


def _bot(base_url: str, name: str, seed: int, out: IO[str]) -> subprocess.Popen[str]:
    args = ["--base-url", base_url, "--type", GAME_TYPE, "--seats", str(SEATS), "--name", name]
    args += ["--poll-seconds", "0.05", "--seed", str(seed), "--wait-seconds", "120"]
    return subprocess.Popen(
        [sys.executable, str(BOT), *args], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True
    )


def _open_games(kurier: Kurier) -> list[str]:
    r = kurier.call("GET", "/v1/games/open", params={"type": GAME_TYPE, "seats": SEATS})
    assert r.status_code == 200, r.text
    return [game["id"] for game in r.json()["items"]]


def _fill_stale_open_games(kurier: Kurier) -> None:
    """Games other tests left in the lobby would take our joiners: fill their seats first."""
    for _ in range(50):
        stale = _open_games(kurier)
        if not stale:
            return
        filler = kurier.new_player("Filler")
        r = kurier.call("POST", f"/v1/games/{stale[0]}/seats", filler, json={})
        assert r.status_code in (201, 409), r.text
    raise AssertionError("the lobby did not empty")


def _wait_for_lobby(kurier: Kurier, proc: subprocess.Popen[str], log: Path) -> str:
    deadline = time.monotonic() + 30
    while not (games := _open_games(kurier)):
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, "the first bot's game never reached the lobby"
        time.sleep(0.05)
    assert len(games) == 1, games
    return games[0]


def test_bots_play_a_whole_game(
    kurier: Kurier,
    tmp_path: Path,
    streams: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The API (served in this process) sends streams on to the real stream server.
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    _fill_stale_open_games(kurier)
    logs = [tmp_path / f"bot{i}.log" for i in range(SEATS)]
    files = [log.open("w") for log in logs]
    procs: list[subprocess.Popen[str]] = []
    try:
        procs.append(_bot(kurier.base, "Creator", 1, files[0]))
        game_id = _wait_for_lobby(kurier, procs[0], logs[0])
        procs += [_bot(kurier.base, f"Joiner{i}", i + 1, files[i]) for i in range(1, SEATS)]
        deadline = time.monotonic() + MAX_SECONDS
        for proc, log in zip(procs, logs, strict=True):
            try:
                proc.wait(max(deadline - time.monotonic(), 1))
            except subprocess.TimeoutExpired:
                pytest.fail(f"a bot did not finish within {MAX_SECONDS} s:\n{log.read_text()}")
            assert proc.returncode == 0, log.read_text()
    finally:
        for proc in procs:
            if proc.poll() is None:
                stop(proc, 5)
        for file in files:
            file.close()

    outputs = [log.read_text() for log in logs]
    assert f"Creator: created game {game_id}, waiting for players" in outputs[0]
    assert f"Creator: started game {game_id}" in outputs[0]
    for i in range(1, SEATS):
        assert re.search(rf"Joiner{i}: joined game {game_id} as seat [12]\b", outputs[i])
    final = kurier.view(game_id)
    assert final["status"] == "finished"
    assert sorted(seat["name"] for seat in final["seats"]) == ["Creator", "Joiner1", "Joiner2"]
    for output in outputs:
        assert f"game {game_id} over at version {final['version']}: winner(s) " in output
        # Each bot waited on the game's event stream (not only on polls).
        assert f"following {streams}/v1/games/{game_id}/stream" in output
    # Every seat played: each bot's moves are in the record.
    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    assert {a["seat"] for a in record["actions"] if a["seat"] >= 0} == set(range(SEATS))
