"""A slow webhook receiver delays neither other deliveries nor a conflict resolution (#8).

A real stack on loopback: its own Redis, the API, and the worker processes `kurier run` starts
(tests/notify_stack.py). Receiver S accepts a delivery and then trickles an answer that never
completes, a byte every half second, so no per-read timeout ever fires; F1..F3 answer 204 at
once. Two deliveries to S are triggered first (a burst, as a game's start sends); once S is
stalling, F1..F3's deliveries and the last sealed choice of a conflict follow.

- Each F gets its correctly signed delivery, and the conflict is resolved, within FAST seconds,
  while S is still stalled; S never has more than one attempt in progress.
- S's attempts end at the per-attempt cap (KURIER_WEBHOOK_TIMEOUT, CAP here) and are recorded
  as failed attempts, and the retries (RETRY seconds later) deliver both, signed as before.

Bounded: every wait has its own limit, and the whole test must take under 45 s (about 20 s).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from engine.core import SYSTEM
from service.domain import prefs
from tests.client import Kurier, Player, wait_for_version
from tests.notify_stack import NotifyStack, webhook_stack
from tests.receivers import HookSink, SlowSink, wait_for
from workers import webhooks

CAP = 5  # seconds: the whole of one delivery attempt
RETRY = 2.0  # seconds before the second attempt
FAST = 3.0  # seconds: a delivery to a fast receiver, or a resolution, while S stalls
TOTAL = 45.0  # seconds: the whole test


@pytest.fixture
def stack() -> Iterator[NotifyStack]:
    with webhook_stack(retry_schedule=str(RETRY), env={"KURIER_WEBHOOK_TIMEOUT": str(CAP)}) as s:
        yield s


@pytest.fixture
def slow() -> Iterator[SlowSink]:
    sink = SlowSink(stalls=2).start()
    yield sink
    sink.stop()


@pytest.fixture
def fast() -> Iterator[list[HookSink]]:
    sinks = [HookSink().start() for _ in range(3)]
    yield sinks
    for sink in sinks:
        sink.stop()


def test_slow_receiver_delays_no_other_delivery_nor_a_resolution(
    stack: NotifyStack, slow: SlowSink, fast: list[HookSink]
) -> None:
    began = time.monotonic()
    k = stack.client
    s, s_secret = _subscriber(stack, "S", slow.url)
    fs = [_subscriber(stack, f"F{i}", sink.url) for i, sink in enumerate(fast, 1)]
    game_id, last_move = _game_one_sealed_choice_from_a_resolution(stack)

    # S first: two deliveries; a worker takes one and it stalls.
    for _ in range(2):
        assert k.call("POST", "/v1/me/webhook-test", s).status_code == 202
    wait_for(lambda: slow.calls, 10, "S to receive a delivery")
    stalled_at = slow.calls[0].at
    time.sleep(0.5)  # time for another worker to take S's second delivery, if one could

    # Then three deliveries to fast receivers and the move that makes a resolution due.
    triggered = time.monotonic()
    for player, _ in fs:
        assert k.call("POST", "/v1/me/webhook-test", player).status_code == 202
    version = last_move()

    for sink, (_, secret) in zip(fast, fs, strict=True):
        calls = wait_for(lambda sink=sink: sink.calls, FAST, "a fast receiver's delivery")
        assert Webhook(secret).verify(calls[0].body, calls[0].headers)["type"] == "webhook.test"
    wait_for(lambda: _revealed_after(k, game_id, version), FAST, "the conflict's resolution")
    assert time.monotonic() - triggered < FAST
    assert not slow.hung_up and time.monotonic() - stalled_at < CAP, "S is no longer stalled"
    assert len(slow.calls) == 1, "S's second delivery ran beside the first"

    # S's attempts end at the cap, are recorded as failed, and the retries deliver them.
    wait_for(lambda: slow.hung_up, CAP + 5, "S's first attempt to be cut off")
    assert CAP - 0.5 < slow.hung_up[0] - stalled_at < CAP + 2.5
    first = wait_for(lambda: _deliveries(k, s, attempts=1), 5, "a failed attempt on record")
    assert first[0]["status"] == "pending" and "Timeout" in first[0]["last_error"]
    wait_for(
        lambda: len(_deliveries(k, s, status="delivered")) == 2, 2 * CAP + RETRY + 10, "retries"
    )
    done = _deliveries(k, s, status="delivered")
    assert [(d["attempts"], d["last_status"]) for d in done] == [(2, 204), (2, 204)]
    assert len(slow.hung_up) == 2
    assert slow.calls[1].at - slow.calls[0].at > CAP - 0.5, "S had two attempts at once"
    ids = sorted(call.headers["webhook-id"] for call in slow.calls)
    assert ids == sorted(2 * [d["id"] for d in done])  # each: a stalled attempt, then a retry
    for call in slow.calls:  # each attempt signed with S's secret
        Webhook(s_secret).verify(call.body, call.headers)
    assert all(len(sink.calls) == 1 for sink in fast)
    assert time.monotonic() - began < TOTAL


@pytest.mark.parametrize(
    ("begin", "drip", "ok"),
    [
        (b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a", False),  # a header, a byte at a time
        (b"", b"", False),  # accepts the request and never answers
        (b"HTTP/1.1 200 OK\r\nContent-Length: 9999\r\n\r\n", b"a", True),  # a slow body
    ],
    ids=["trickled-headers", "silent", "trickled-body"],
)
def test_an_attempt_ends_at_the_cap_however_the_receiver_stalls(
    monkeypatch: pytest.MonkeyPatch, begin: bytes, drip: bytes, ok: bool
) -> None:
    """``webhooks.post`` in this process: the cap holds for each way of stalling; once the
    status is in, a slow body no longer changes the outcome."""
    monkeypatch.setenv("KURIER_WEBHOOK_ALLOW", "loopback")
    monkeypatch.setenv("KURIER_WEBHOOK_TIMEOUT", "1")
    sink = SlowSink(interval=0.2, limit=5, begin=begin, drip=drip).start()
    try:
        started = time.monotonic()
        attempt = webhooks.post(sink.url, prefs.new_webhook_secret(), "msg_cap", "{}")
        took = time.monotonic() - started
    finally:
        sink.stop()
    assert attempt.ok is ok and ("Timeout" in attempt.error) is not ok, attempt
    assert 0.9 < took < 1.5


def _subscriber(stack: NotifyStack, name: str, url: str) -> tuple[Player, str]:
    player, me = stack.player(name, webhook_url=url)
    return player, me["webhook_secret"]


def _deliveries(k: Kurier, player: Player, **want: Any) -> list[dict[str, Any]]:
    items = k.call("GET", "/v1/me/webhook-deliveries", player).json()["items"]
    return [i for i in items if all(i.get(key) == value for key, value in want.items())]


def _game_one_sealed_choice_from_a_resolution(
    stack: NotifyStack,
) -> tuple[str, Callable[[], int]]:
    """A 2-player Attila game (no webhooks, no mail) played at random until one sealed choice is
    all a conflict's resolution waits for; returns the game and a function that sends that
    choice and returns the version it committed (the worker's resolution commits a later one)."""
    k = stack.client
    game_id, players = k.new_game(2, seed="slow-webhook")
    rng = random.Random(7)
    deadline = time.monotonic() + 30
    for _ in range(300):
        view = k.view(game_id)
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:  # an earlier conflict: let the worker resolve it
            wait_for_version(k, game_id, view["version"], deadline)
            continue
        decision = humans[0]
        player = players[decision["seat"]]
        notation = _pick(k, game_id, player, rng)
        if decision["kind"] == "sealed" and _last_choice(stack, game_id, decision, notation):
            return game_id, partial(_play, k, game_id, player, notation, view["version"])
        _play(k, game_id, player, notation, view["version"])
    raise AssertionError("no conflict came up in 300 moves")


def _last_choice(stack: NotifyStack, game_id: str, decision: dict[str, Any], notation: str) -> bool:
    """Whether a resolution falls due once this choice is in: the engine, on a copy of the
    stored state, is the oracle (the API shows one sealed choice pending at a time)."""
    assert stack.store is not None
    record = stack.store.get_game(game_id)
    game = record.game
    state = game.load(record.state)
    game.apply(state, decision["seat"], game.parse(notation))
    return any(d.seat == SYSTEM for d in game.pending(state))


def _revealed_after(k: Kurier, game_id: str, version: int) -> bool:
    """The worker's resolution is in the log: sealed cards revealed after ``version``."""
    entries = k.call("GET", f"/v1/games/{game_id}/events", params={"after": version}).json()
    kinds = {event["kind"] for entry in entries["items"] for event in entry["events"]}
    return "sealed_revealed" in kinds


def _pick(k: Kurier, game_id: str, player: Player, rng: random.Random) -> str:
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()["actions"]
    return str(rng.choice(legal)["notation"])


def _play(k: Kurier, game_id: str, player: Player, notation: str, version: int) -> int:
    r = k.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        player,
        json={"notation": notation},
        headers={"If-Match": f'"{version}"'},
    )
    assert r.status_code in (200, 202), r.text
    return int(r.json()["version"])
