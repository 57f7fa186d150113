"""The kurier command line: the demo game is real and playable with the printed tokens."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.client import Kurier

ROOT = Path(__file__).resolve().parent.parent


def test_demo_prints_working_tokens(redis_url: str, kurier: Kurier) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "demo", "--base-url", kurier.base],
        env={**os.environ, "REDIS_URL": redis_url},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    game_id = re.search(r"Demo game (\w+)", out.stdout).group(1)  # type: ignore[union-attr]
    tokens = re.findall(r"kur_pat_[\w-]+", out.stdout)
    assert len(set(tokens)) == 3
    seats = []
    for token in set(tokens):
        r = kurier.call("GET", f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        seats.append(r.json()["your_seat"])
    assert sorted(seats) == [0, 1, 2]
    assert f"{kurier.base}/v1/games/{game_id}/legal-actions" in out.stdout
