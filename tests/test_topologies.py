"""The end-to-end HTTP games, the race tests and the idempotency tests again, on the other
topologies (issue 18): the queues on a Redis of their own, a Sentinel-managed primary with a
replica, and a 3-master Redis Cluster with the queues on a single Redis.

The tests are imported from their modules: pytest runs them here with this module's fixtures
(``store``, ``base_url``, ``worker``), one topology at a time.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
import requests

from service.domain import messages, streams
from service.http.app import create_app
from service.store import Store
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier
from tests.conftest import UNLIMITED, serve, short_tmp, worker_process
from tests.games_in_store import started_attila, step
from tests.receivers import wait_for
from tests.test_lobby import (  # noqa: F401
    test_an_open_game_is_listed_until_full_and_joined_without_a_code,
)
from tests.test_messages import (  # noqa: F401
    test_table_and_private_messages_reach_exactly_their_audience,
)
from tests.test_profiles import (  # noqa: F401
    test_ratings_profiles_leaderboard_and_finished_games,
)
from tests.test_service_attika import check_complete_attika_game
from tests.test_service_hidden import test_no_endpoint_leaks_hands_or_sealed_choices  # noqa: F401
from tests.test_service_play import (  # noqa: F401
    check_complete_game,
    test_inbox_lists_what_each_player_owes,
)
from tests.test_service_races import (  # noqa: F401
    test_different_moves_racing_on_one_version_apply_once,
    test_one_idempotency_key_applies_once,
    test_replays_never_judge_the_move_again,
    test_stale_if_match_is_412_and_expected_version_409,
)
from tests.test_service_wargame import check_wargame_resolutions
from tests.topologies import cluster_setup, sentinel_setup

#: Attila's whole game on each topology: one, its sealed conflicts committed side by side (the
#: other settings and sizes change what the engine does, not what the store does:
#: test_service_play.py plays all of them on a single Redis).
ATTILA_GAME = (3, 13, {"CONFLICT_COMMIT_ORDER": "simultaneous"})
#: One whole Attika game per topology, the 2-player one (its moves, its end and its compaction
#: are the store's writes every size makes): a table's size changes what the engine does, not
#: what the store does, and test_service_attika.py plays the 3- and 4-player sizes on a single
#: Redis (the 2-player game's state is on one Redis here with the queues apart).
ATTIKA_GAME = (2, 21)
#: The wargame on the topology whose store differs most from a single Redis, until the worker
#: has resolved two battles: its sealed cards committed, hidden, resolved and revealed there.
#: The rest of a whole game repeats these writes (and the kinds Attila's and Attika's games
#: make on every topology), so it is played to its end on a single Redis only
#: (test_service_wargame.py), not again here.
WARGAME_TOPOLOGIES = ("cluster",)
WARGAME_BATTLES = 2


@dataclass(frozen=True)
class Topology:
    name: str
    url: str
    queue_url: str

    @property
    def env(self) -> dict[str, str]:
        return {"REDIS_URL": self.url, "KURIER_QUEUE_URL": self.queue_url}


def _single(stack: ExitStack, prefix: str) -> str:
    server = RedisServer(short_tmp(prefix), EPHEMERAL_FLAGS)
    server.start()
    stack.callback(server.stop)
    return server.url


@pytest.fixture(scope="module", params=["queues-apart", "sentinel", "cluster"])
def topology(request: pytest.FixtureRequest) -> Iterator[Topology]:
    with ExitStack() as stack:
        if request.param == "queues-apart":
            state, queues = _single(stack, "kur-state-"), _single(stack, "kur-queues-")
        elif request.param == "sentinel":
            state = queues = stack.enter_context(sentinel_setup()).url
        else:
            state = stack.enter_context(cluster_setup(3)).url
            queues = _single(stack, "kur-queues-")
        yield Topology(request.param, state, queues)


@pytest.fixture(scope="module")
def store(topology: Topology) -> Iterator[Store]:
    store = Store(topology.url, topology.queue_url)
    yield store
    store.close()


@pytest.fixture(scope="module")
def base_url(topology: Topology) -> Iterator[str]:
    app = create_app({"REDIS_URL": topology.url, "QUEUE_URL": topology.queue_url, **UNLIMITED})
    with serve(app) as url:
        yield url


@pytest.fixture(scope="module")
def worker(store: Store) -> Iterator[subprocess.Popen[bytes]]:
    with worker_process(store) as proc:
        yield proc


def test_health_metrics_and_rate_limits_work_on_every_topology(
    topology: Topology, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    health = requests.get(f"{base_url}/healthz", timeout=10).json()
    assert health["redis"] is True and health["game_workers"] >= 1, health
    metrics = requests.get(f"{base_url}/metrics", timeout=10)
    assert metrics.status_code == 200 and "kurier_" in metrics.text
    # The rate limiter counts in the game store, whatever its topology.
    app = create_app({"REDIS_URL": topology.url, "QUEUE_URL": topology.queue_url,
                      "SIGNUP_RATE_LIMIT": "2/minute"})  # fmt: skip
    client = app.test_client()
    address = {"REMOTE_ADDR": f"10.9.{len(topology.name)}.{time.time_ns() % 250}"}
    codes = [
        client.post("/v1/players", json={"name": "N"}, environ_base=address).status_code
        for _ in range(3)
    ]
    assert codes == [201, 201, 429]


def test_a_game_watch_gets_each_move_on_every_topology(store: Store) -> None:
    # The stream server's watch of a game (service/domain/loghub.py): the wait and the read share a
    # held connection, on a Sentinel's primary too; in a cluster they are two calls.
    game_id, seated = started_attila(store)
    with store.watch_log(game_id) as watch:
        for _ in range(2):
            version = store.get_game(game_id).version
            later = threading.Timer(0.2, step, (store, game_id, seated))
            later.start()
            record, entries = watch.wait_read(version, 10_000, 100)
            later.join()
            assert [v for v, _ in entries] == [version + 1]
            assert record.version == version + 1 and record.state is None


def _sse_events(chunks: list[str], kind: str) -> list[dict[str, object]]:
    return [
        json.loads(chunk.split("data: ", 1)[1])
        for chunk in list(chunks)
        if f"event: {kind}\n" in chunk
    ]


def test_a_players_inbox_stream_sees_moves_and_messages_on_every_topology(store: Store) -> None:
    # /v1/me/stream's wait (Store.wait_streams): one XREAD over the player's games on one
    # Redis; in a cluster, where the keys lie in many slots, a poll by node every second.
    game_id, seated = started_attila(store)
    (reader, token), (writer, _) = seated
    chunks: list[str] = []
    # It ends when the reader's token is revoked (below), within a heartbeat; its life is
    # longer than the bounded waits of this test, so only the revocation can end it in time.
    timing = streams.Timing(heartbeat=0.5, lifetime=60.0)
    caller = streams.Caller(store.tokens.key_of(token), reader["id"])
    inbox = streams.inbox_stream(store, caller, None, timing)
    following = threading.Thread(target=lambda: chunks.extend(inbox), daemon=True)
    following.start()
    wait_for(lambda: _sse_events(chunks, "inbox"), 10, "the inbox now")
    version = store.get_game(game_id).version
    step(store, game_id, seated)
    wait_for(
        lambda: any(e["version"] == version + 1 for e in _sse_events(chunks, "inbox")),
        10,
        "the move's inbox event",
    )
    posted = messages.post(store, writer, game_id, "over the slots", None)
    wait_for(lambda: _sse_events(chunks, "message"), 10, "the message")
    assert [m["id"] for m in _sse_events(chunks, "message")] == [posted["id"]]
    (first_token,) = store.tokens.listed(reader["id"])
    assert store.tokens.revoke(reader["id"], first_token["id"])
    following.join(10)
    assert not following.is_alive(), "the stream went on after its token was revoked"


def test_a_worker_told_to_stop_stops_at_once(topology: Topology, store: Store) -> None:
    """SIGTERM (docker stop, systemd) to an idle ``kurier worker``: rq's warm shutdown ends it
    within seconds. On Sentinel it hung for its blocking read's timeout (docker's grace period
    then kills it): the interrupted read's connection was reused (service/store/redis_urls.py)."""
    with worker_process(store) as worker:
        time.sleep(0.5)  # in its blocking wait for a job
        told = time.monotonic()
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the worker on {topology.name} did not stop in 10 s") from None
        assert time.monotonic() - told < 10


def test_complete_game_over_http(topology: Topology, kurier: Kurier) -> None:
    check_complete_game(kurier, *ATTILA_GAME)


def test_complete_attika_game_over_http(topology: Topology, kurier: Kurier) -> None:
    check_complete_attika_game(kurier, *ATTIKA_GAME)


def test_wargame_battles_resolved_over_http(topology: Topology, kurier: Kurier) -> None:
    if topology.name not in WARGAME_TOPOLOGIES:
        pytest.skip("the wargame's battles are played on " + ", ".join(WARGAME_TOPOLOGIES))
    check_wargame_resolutions(kurier, WARGAME_BATTLES)
