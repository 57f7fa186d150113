"""Recorded games replay to exactly the state they ended in.

A change that alters how a stored game replays must bump the game's ``rules_version`` and
re-record these files on purpose; this test is what notices it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from engine.registry import get_game

RECORDS = sorted((Path(__file__).parent / "data").glob("*-record.json"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_recorded_game_replays_to_the_same_final_state(path: Path) -> None:
    record = json.loads(path.read_text())
    game = get_game(record["game"])
    assert game.rules_version == record["rules_version"]
    moves = [(seat, text) for seat, text in record["moves"]]
    state = game.replay(record["players"], record["seed"], record["options"], moves)
    assert game.is_over(state)
    assert game.result(state) == record["result"]
    digest = hashlib.sha256(json.dumps(game.dump(state), sort_keys=True).encode()).hexdigest()
    assert digest == record["final_state_sha256"]


def test_a_record_with_a_changed_move_no_longer_matches() -> None:
    record = json.loads(RECORDS[0].read_text())
    game = get_game(record["game"])
    moves = [(seat, text) for seat, text in record["moves"]]
    truncated = game.replay(record["players"], record["seed"], record["options"], moves[:-5])
    assert not game.is_over(truncated)
