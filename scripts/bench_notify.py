"""Notification latency: from a move's 2xx answer to its webhook's and its email's arrival.

Runs everything on loopback: its own Redis, the API (werkzeug, threaded), one ``kurier worker``
(with scheduler), an aiosmtpd sink and a webhook receiver. Two players with email and webhook
play random legal moves; for each move that makes a notice (a new turn or a sealed choice
needed), it waits for that version's webhook and email, then plays on. Not a test: it prints
p50/p95 and never asserts a time.

    .venv/bin/python scripts/bench_notify.py --moves 100
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.notify_stack import NotifyStack
from tests.receivers import HookSink

WAIT = 10.0  # seconds a notice may take before the run gives up on it


def _owed(view: dict[str, Any]) -> set[tuple[int, str, str]]:
    return {(d["seat"], d["kind"], d.get("ref", "")) for d in view["waiting_for"] if d["seat"] >= 0}


def _notifies(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Mirrors service/domain/notifications.py: a seat that owed nothing now moves, or a new
    seal."""
    had = {seat for seat, _, _ in _owed(before)}
    for seat, kind, _ref in _owed(after) - _owed(before):
        if kind == "sealed" or seat not in had:
            return True
    return False


def _arrival(stack: NotifyStack, hooks: HookSink, game_id: str, version: int) -> tuple[Any, Any]:
    tag = f"n-{game_id}-{version}-"
    hook = next((c.at for c in hooks.calls if f'"version":{version},' in c.body.decode()), None)
    mail = next((m.at for m in stack.smtp.messages if tag in str(m.message["Message-ID"])), None)
    return hook, mail


def run(moves: int, max_seconds: float, seed: int) -> tuple[list[float], list[float]]:
    hooks = HookSink().start()
    stack = NotifyStack().start()
    hook_ms: list[float] = []
    mail_ms: list[float] = []
    rng = random.Random(seed)
    stop_at = time.monotonic() + max_seconds
    try:
        k = stack.client
        players = [
            stack.player(f"B{i}", email=f"b{i}@bench.test", webhook_url=hooks.url)[0]
            for i in range(2)
        ]
        game_id = stack.game(players, seed=f"bench-{seed}")
        while len(hook_ms) < moves and time.monotonic() < stop_at:
            view = k.view(game_id)
            if view["status"] == "finished":
                game_id = stack.game(players, seed=f"bench-{seed}-{len(hook_ms)}")
                continue
            humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
            if not humans:
                time.sleep(0.01)  # the worker owes a resolution
                continue
            player = players[humans[0]["seat"]]
            legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
            move = rng.choice(legal["actions"])["notation"]
            with stack.smtp.lock:
                stack.smtp.messages.clear()
            with hooks.lock:
                hooks.calls.clear()
            r = k.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": move})
            answered = time.monotonic()
            assert r.status_code in (200, 202), r.text
            version = r.json()["version"]
            if not _notifies(view, k.view(game_id)):
                continue
            give_up = answered + WAIT
            hook = mail = None
            while (hook is None or mail is None) and time.monotonic() < give_up:
                time.sleep(0.002)
                hook, mail = _arrival(stack, hooks, game_id, version)
            if hook is None or mail is None:
                print(f"version {version}: no notice within {WAIT} s", file=sys.stderr)
                continue
            hook_ms.append((hook - answered) * 1000)
            mail_ms.append((mail - answered) * 1000)
    finally:
        stack.stop()
        hooks.stop()
    return hook_ms, mail_ms


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=100, help="notifying moves to measure")
    parser.add_argument("--max-seconds", type=float, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    os.environ["KURIER_WEBHOOK_ALLOW"] = "loopback"  # the API's URL check, in this process
    hook_ms, mail_ms = run(args.moves, args.max_seconds, args.seed)
    if not hook_ms:
        print("no notifying move measured")
        return 1
    print(f"moves measured: {len(hook_ms)}")
    for name, values in (("webhook", hook_ms), ("email", mail_ms)):
        print(
            f"{name:8} p50 {_pct(values, 50):7.1f} ms  p95 {_pct(values, 95):7.1f} ms  "
            f"max {max(values):7.1f} ms  mean {statistics.fmean(values):7.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
