"""With ``KURIER_WAIT_REPLICAS`` on, every write the service acknowledges waits for a replica,
not only a game's commit: players, tokens, preferences, messages, web sessions, webhook
deliveries, ratings, follows (issue 36, item 11), tournaments. A failover right after an
answer must not lose a token the client already holds.

A real primary and its replica (tests/topologies.py); the replica is stopped (SIGSTOP: alive,
connected, silent) while the writes are sent: each is answered 503 ``not-replicated``
(problem+json, Retry-After), never acknowledged. Resumed, the same writes succeed.
"""

from __future__ import annotations

import ast
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.common.problems import Problem
from service.domain import prefs, ratings, websessions
from service.http.app import create_app
from service.store import Store
from tests.client import Kurier, Player
from tests.conftest import UNLIMITED, serve
from tests.topologies import ReplicaSetup, replica_setup

WAIT_MS = "300"


@pytest.fixture(scope="module")
def pair() -> Iterator[ReplicaSetup]:
    with replica_setup() as setup:
        yield setup


@pytest.fixture
def waiting(pair: ReplicaSetup, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Store]]:
    """The API on the primary with KURIER_WAIT_REPLICAS=1 (the base URL), and a store so set."""
    monkeypatch.setenv("KURIER_WAIT_REPLICAS", "1")
    monkeypatch.setenv("KURIER_WAIT_MS", WAIT_MS)
    store = Store(pair.url)
    with serve(create_app({"REDIS_URL": pair.url, **UNLIMITED})) as base:
        yield base, store
    store.close()


def _api_writes(
    k: Kurier, player: Player, other: Player, game_id: str, message_id: str
) -> list[Any]:
    """(what, method, path, caller, body) of the API's writes outside a game's commit."""
    token_id = k.call("POST", "/v1/me/tokens", player, json={"name": "spare"}).json()["id"]
    cup = {"name": "Cup", "type": "attila", "seats": 2, "format": "swiss"}
    cup_id = k.call("POST", "/v1/tournaments", player, json=cup).json()["id"]
    return [
        ("new tournament", "POST", "/v1/tournaments", player, cup),
        ("tournament sign-up", "POST", f"/v1/tournaments/{cup_id}/entrants", other, None),
        ("follow", "PUT", f"/v1/me/following/{other.id}", player, None),
        ("unfollow", "DELETE", f"/v1/me/following/{other.id}", player, None),
        ("new player", "POST", "/v1/players", None, {"name": "Lost"}),
        ("new token", "POST", "/v1/me/tokens", player, {"name": "bot"}),
        ("revoked token", "DELETE", f"/v1/me/tokens/{token_id}", player, None),
        ("preferences", "PATCH", "/v1/me", player, {"name": "Renamed", "timezone": "UTC"}),
        ("webhook secret", "POST", "/v1/me/webhook-secret", player, None),
        ("message", "POST", f"/v1/games/{game_id}/messages", player, {"text": "hello"}),
        ("hidden message", "POST", f"/v1/games/{game_id}/messages/{message_id}/hide", player, None),
        ("block", "PUT", f"/v1/me/blocks/{other.id}", player, None),
        ("unblock", "DELETE", f"/v1/me/blocks/{other.id}", player, None),
        ("note", "PUT", f"/v1/games/{game_id}/notes/me", player, {"text": "mine"}),
        (
            "report",
            "POST",
            "/v1/reports",
            other,
            {"kind": "player", "player_id": player.id, "reason": "r"},
        ),
    ]


def _store_writes(store: Store, player: Player) -> list[tuple[str, Callable[[], object]]]:
    """The writes the workers and the web pages make through the domain functions."""
    session = websessions.start  # a browser signing in (by link or by token)
    return [
        ("web session", lambda: session(store, player.id)),
        ("webhook delivery", lambda: prefs.record_delivery(store, player.id, _fresh(), {})),
        ("delivery update", lambda: prefs.update_delivery(store, player.id, "d1", status="ok")),
        (
            "ratings",
            lambda: ratings.apply_ratings(store, "attila", _fresh(), [(player.id, 0), ("p_x", 1)]),
        ),
    ]


def _fresh() -> str:
    return "g" + secrets.token_hex(6)


def test_every_acknowledged_write_waits_for_the_replica(
    pair: ReplicaSetup, waiting: tuple[str, Store]
) -> None:
    base, store = waiting
    k = Kurier(base)
    game_id, (player, other) = k.new_game(2)  # the replica acknowledges: all answered
    message_id = k.call(
        "POST", f"/v1/games/{game_id}/messages", player, json={"text": "first"}
    ).json()["id"]
    writes = _api_writes(k, player, other, game_id, message_id)
    with pair.replica.stopped():
        for what, method, path, caller, body in writes:
            r = k.call(method, path, caller, json=body)
            assert r.status_code == 503, f"{what}: {r.status_code} {r.text}"
            assert r.headers["Content-Type"] == "application/problem+json", what
            assert r.json()["code"] == "not-replicated", (what, r.json())
            assert int(r.headers["Retry-After"]) > 0, what
        for what, write in _store_writes(store, player):
            with pytest.raises(Problem) as refused:
                write()
            assert (refused.value.code, refused.value.problem_code) == (503, "not-replicated"), what
        web = requests.post(
            f"{base}/signin/token",
            data={"token": player.token},
            headers={"Origin": base},
            allow_redirects=False,
            timeout=10,
        )
        assert web.status_code == 503, "a web session was made without its replica"
    # The replica back: the same writes are acknowledged.
    for what, method, path, caller, body in _api_writes(k, player, other, game_id, message_id):
        r = k.call(method, path, caller, json=body)
        assert r.status_code < 300, f"{what}: {r.status_code} {r.text}"
    for _what, write in _store_writes(store, player):
        write()


#: Redis commands that change data, as redis-py names its methods.
WRITE_COMMANDS = frozenset(
    {
        "hset",
        "hsetnx",
        "hmset",
        "hdel",
        "hincrby",
        "set",
        "setex",
        "setnx",
        "getdel",
        "getset",
        "delete",
        "unlink",
        "expire",
        "pexpire",
        "sadd",
        "srem",
        "zadd",
        "zrem",
        "zremrangebyrank",
        "zremrangebyscore",
        "zincrby",
        "xadd",
        "xdel",
        "xtrim",
        "incr",
        "incrby",
        "decr",
        "decrby",
        "lpush",
        "rpush",
        "lpop",
        "rpop",
        "eval",
        "evalsha",
        "rename",
        "restore",
    }
)
#: Where the game store (or the queue Redis) is written without ``Connections.write``, and why.
NOT_THROUGH_WRITE = {
    "service/store/games.py": "the game writer: its commit waits for the replicas itself",
    "service/store/owed.py": "jobs owed, on the queue Redis: written with the commit or a job",
    "service/store/outbox.py": "the outbox's relay to the queue Redis, after the commit",
    "service/store/liveness.py": "workers' heartbeats, rewritten every few seconds",
    "service/store/messages.py::count": "a rate counter: a lost count lets a few more through",
    "service/domain/ratelimit.py": "rate counters",
    "service/ops/metrics.py": "metric counters",
    "service/ops/archive.py": "operator commands, run again if interrupted",
    "service/domain/mailbag.py": "notices waiting for their mail, on the queue Redis",
    "service/domain/presence.py": "marks of a minute on the queue Redis, set again each beat",
    "service/domain/websessions.py::take_link": "a sign-in link taken: GETDEL, read and gone",
    "service/store/tokens.py::stream_ticket_for": "a ticket for a minute: lost, ask again",
    "service/store/tokens.py::ticket_owner": "a stream ticket taken: GETDEL, read and gone",
    "service/store/connections.py::_script": "the game writer's scripts (commit, compaction)",
    "service/store/epoch.py": "the epoch's own marks, which every write waits behind",
    "service/domain/websessions.py::leave_note": "a line for the next page",
    "service/domain/websessions.py::take_note": "a line for the next page",
    "service/common/replies.py::load_keys": "SET NX of the reply key (KURIER_MAIL_KEYS: none)",
    "service/mail/receiver.py::accept": "a ledger of mails received (SET NX)",
    "workers/jobs.py": "moving old resolution entries into owed jobs at a worker's start",
    "workers/runtime.py::handle_job_success": "rq's own job key, gone but for a stalled copy's "
    "heartbeat fields, on the queue Redis",
    "workers/mailin.py::_claim": "a ledger of mails played (SET NX)",
    "workers/mailin.py::_warn": "a ledger of warnings mailed (SET NX)",
    "workers/mailin.py::_say": "a ledger of answers mailed (SET NX)",
    "workers/mailin.py::_leave": "a ledger of leave lines taken (SET NX)",
    "workers/seatmail.py::send_once": "a ledger of mails sent (SET NX)",
}
ROOT = Path(__file__).resolve().parent.parent
#: What a Redis client is called where it is used.
CLIENTS = (".r", ".raw", ".queue_r", ".queue_raw", ".store")


def _direct_writes(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, function, call) of each write command sent to a Redis client or a pipeline that
    is not a function's ``pipe`` parameter (what ``Connections.write`` hands its caller)."""

    def visit(
        node: ast.AST, function: str, params: frozenset[str]
    ) -> Iterator[tuple[int, str, str]]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            params = params | {a.arg for a in arguments}
            function = getattr(node, "name", function)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in (*WRITE_COMMANDS, "register_script")
        ):
            receiver = ast.unparse(node.func.value)
            handed = receiver == "pipe" and "pipe" in params
            if not handed and (receiver.endswith(CLIENTS) or receiver in ("r", "client", "pipe")):
                yield node.lineno, function, ast.unparse(node.func)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, function, params)

    yield from visit(ast.parse(path.read_text()), "<module>", frozenset())


def test_every_write_outside_a_commit_goes_through_connections_write() -> None:
    """One helper waits for the replicas (``Connections.write``), not copies of it: a write
    sent to a client directly, or in a pipeline of its own, is named here, unless it is
    listed above with the reason it need not wait."""
    found = []
    for folder in ("service", "workers"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            for line, function, call in _direct_writes(path):
                if name in NOT_THROUGH_WRITE or f"{name}::{function}" in NOT_THROUGH_WRITE:
                    continue
                found.append(f"{name}:{line} {function}: {call}")
    assert not found, "writes that do not wait for the replicas:\n" + "\n".join(found)
