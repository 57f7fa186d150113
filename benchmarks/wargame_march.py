"""Wargame march benchmark (issue 33): a march of up to 6 hexes is one request of several
actions, and its server time p95 is ≤ 50 ms.

Starts its own stack as benchmarks/load.py does (Redis with the production flags, one
``kurier worker``, ``kurier web`` = gunicorn with the service's settings), then ``--games``
2-player wargames over the API from one seed; in each, both secret notes are written and the
Barbarian, signed in as a browser is (``POST /signin/token``), picks counters up as the board
does (``GET /games/<id>/staged?unit=``: the counter's reachable hexes with their paths) and
sends the longest march of at most 6 hexes each offers as one request
(``POST /v1/games/<id>/actions`` with ``{"actions": [...]}``, the page's Confirm takes the same
path through ``games.play_all``), ``--marches`` counters a game. Printed: both latencies
(loopback, one request at a time: the server's time and a fraction of a millisecond), and the
marches by length.

Traffic only to 127.0.0.1. Not a test: ``.venv/bin/python benchmarks/wargame_march.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load import Stack, latency_line, percentile  # noqa: E402
from benchmarks.pages import Api, _wait, loadavg  # noqa: E402

TARGET_P95_MS = 50.0
LONGEST = 6


def one_game(api: Api, seed: str, marches: int) -> tuple[list[float], list[float], list[int]]:
    """(march requests' seconds, staged lookups' seconds, march lengths) in one new game."""
    tokens = []
    for seat in range(2):
        r = api.call("POST", "/v1/players", body={"name": f"W{seat}"})
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    body = {"type": "attila-wargame", "seats": 2, "seed": seed}
    r = api.call("POST", "/v1/games", tokens[0], body)
    assert r.status_code == 201, r.text
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    r = api.call("POST", f"/v1/games/{game_id}/seats", tokens[1], {"invite_code": invite})
    assert r.status_code == 201, r.text
    assert api.call("POST", f"/v1/games/{game_id}/start", tokens[0]).status_code == 200
    for token in tokens:  # each side's last legal note: far off, nothing fires early
        legal = api.call("GET", f"/v1/games/{game_id}/legal-actions", token).json()
        note = legal["actions"][-1]["notation"]
        r = api.call("POST", f"/v1/games/{game_id}/actions", token, {"notation": note})
        assert r.status_code in (200, 202), r.text
    view = api.call("GET", f"/v1/games/{game_id}").json()
    mover = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
    token = tokens[mover]
    browser = requests.Session()
    r = browser.post(f"{api.base}/signin/token", data={"token": token}, allow_redirects=False)
    assert r.status_code == 302, r.text
    legal = api.call("GET", f"/v1/games/{game_id}/legal-actions", token).json()["actions"]
    units = sorted({a["action"]["unit"] for a in legal if a["action"]["type"] == "move"})
    sent: list[float] = []
    looked: list[float] = []
    lengths: list[int] = []
    for unit in units:
        if len(sent) >= marches:
            break
        started = time.perf_counter()
        r = browser.get(f"{api.base}/games/{game_id}/staged", params={"unit": unit}, timeout=30)
        looked.append(time.perf_counter() - started)
        assert r.status_code == 200, r.text
        reach = [w for w in r.json()["march"]["reach"].values() if w["cost"] <= LONGEST]
        if not reach:
            continue
        steps = max(reach, key=lambda w: w["cost"])["steps"]
        started = time.perf_counter()
        r = api.call("POST", f"/v1/games/{game_id}/actions", token, {"actions": steps})
        sent.append(time.perf_counter() - started)
        assert r.status_code == 200, r.text
        lengths.append(len(steps))
    return sent, looked, lengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="new games (≤ 200)")
    parser.add_argument("--marches", type=int, default=15, help="marches a game (≤ 60)")
    parser.add_argument("--workers", type=int, default=1, help="rq worker processes")
    parser.add_argument("--web-workers", type=int, default=0, help="gunicorn processes")
    parser.add_argument("--web-threads", type=int, default=4, help="threads per process")
    args = parser.parse_args()
    args.games = min(max(args.games, 1), 200)
    args.marches = min(max(args.marches, 1), 60)
    args.streams = 0
    stack = Stack(args)
    stack.start()
    try:
        _wait(stack.base + "/healthz")
        print(
            f"machine   {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
            f"{args.web_workers or 2 * (os.cpu_count() or 1)}x{args.web_threads} gunicorn "
            f"gthread; load average {loadavg()}",
            flush=True,
        )
        api = Api(stack.base)
        sent: list[float] = []
        looked: list[float] = []
        lengths: list[int] = []
        for n in range(args.games):
            s, lk, ln = one_game(api, f"march-{n}", args.marches)
            sent += s
            looked += lk
            lengths += ln
        p95 = percentile([v * 1000 for v in sent], 0.95)
        verdict = "ok" if p95 <= TARGET_P95_MS else "OVER"
        print(
            f"march     POST /v1/games/<id>/actions, {{'actions': [up to {LONGEST} steps]}}: "
            f"{latency_line(sent)} ({len(sent)} marches; target p95 ≤ {TARGET_P95_MS:.0f} ms: "
            f"{verdict})",
            flush=True,
        )
        print(f"lengths   {dict(sorted(Counter(lengths).items()))} (steps: marches)", flush=True)
        print(
            f"reach     GET /games/<id>/staged?unit=: {latency_line(looked)} "
            f"({len(looked)} counters picked up)",
            flush=True,
        )
        print(f"done      load average {loadavg()}", flush=True)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
