"""/metrics, request ids and JSON access logs."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from collections.abc import Iterator

import pytest
from flask import Flask
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from service.common.logs import ACCESS_LOGGER, JsonFormatter
from service.http.app import create_app
from service.ops import metrics
from service.store import Store, owed
from service.store.queues import RESOLVE_JOB
from tests.client import metric_sample
from tests.game_helpers import new_table


@pytest.fixture
def iso_app(isolated_redis: Store) -> Flask:
    return create_app({"REDIS_URL": isolated_redis.url})


@pytest.fixture
def access_log() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(ACCESS_LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield out
    logger.removeHandler(handler)


def test_request_id_is_taken_from_the_caller_or_made(iso_app: Flask) -> None:
    client = iso_app.test_client()
    assert client.get("/v1/game-types", headers={"X-Request-ID": "lb-123.a"}).headers[
        "X-Request-ID"
    ] == ("lb-123.a")
    made = client.get("/v1/game-types").headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    # A header that could smuggle text into logs is replaced, not echoed.
    odd = client.get("/v1/game-types", headers={"X-Request-ID": "x y\tz"}).headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", odd)


def test_access_lines_are_json_with_route_and_no_token(
    iso_app: Flask, isolated_redis: Store, access_log: io.StringIO
) -> None:
    _, token = isolated_redis.players.create("Log", None)
    client = iso_app.test_client()
    client.get(
        "/v1/games/abc?x=secret",
        headers={"Authorization": f"Bearer {token}", "X-Request-ID": "rid-1"},
    )
    lines = [json.loads(line) for line in access_log.getvalue().splitlines()]
    assert lines[-1]["request_id"] == "rid-1"
    assert lines[-1]["route"] == "/v1/games/<game_id>"
    assert lines[-1]["status"] == 404
    assert lines[-1]["method"] == "GET"
    assert token not in access_log.getvalue()
    assert "secret" not in access_log.getvalue()


def test_metrics_count_requests_by_route_and_moves(iso_app: Flask, isolated_redis: Store) -> None:
    client = iso_app.test_client()
    before = client.get("/metrics").text
    table = new_table(isolated_redis, seats=2)
    player = table.players[0]
    client.get(f"/v1/games/{table.game_id}")
    client.get("/v1/games/nope")
    _, bearer = isolated_redis.players.create("M", None)
    client.post(
        f"/v1/games/{table.game_id}/actions",
        json={"notation": "pass"},
        headers={"Authorization": f"Bearer {bearer}"},
    )  # 403: not a player — still a timed move request
    after = client.get("/metrics").text

    def delta(name: str, **labels: str) -> float:
        return metric_sample(after, name, **labels) - metric_sample(before, name, **labels)

    route = "/v1/games/<game_id>"
    assert delta("kurier_http_requests_total", method="GET", route=route, status="200") == 1
    assert delta("kurier_http_requests_total", method="GET", route=route, status="404") == 1
    assert delta("kurier_move_duration_seconds_count", status="403") == 1
    assert player["id"] not in after  # labels are routes, never ids


def test_metrics_read_queue_depth_failed_jobs_and_deliveries(
    iso_app: Flask, isolated_redis: Store
) -> None:
    low = Queue("low", connection=isolated_redis.raw, serializer=JSONSerializer)
    low.enqueue("tests.no_such_module.job", job_id="will-fail")
    text = iso_app.test_client().get("/metrics").text
    assert metric_sample(text, "kurier_redis_up") == 1
    assert metric_sample(text, "kurier_queue_jobs", queue="low") == 1
    assert metric_sample(text, "kurier_jobs_failed", queue="low") == 0

    worker = SimpleWorker([low], connection=isolated_redis.raw, serializer=JSONSerializer)
    worker.work(burst=True, max_jobs=1)
    metrics.record_email_delivery(isolated_redis.r, "delivered")
    metrics.record_email_delivery(isolated_redis.r, "delivered")
    metrics.record_webhook_delivery(isolated_redis.r, "retry")
    text = iso_app.test_client().get("/metrics").text
    assert metric_sample(text, "kurier_queue_jobs", queue="low") == 0
    assert metric_sample(text, "kurier_jobs_failed", queue="low") == 1
    assert metric_sample(text, "kurier_email_deliveries_total", outcome="delivered") == 2
    assert metric_sample(text, "kurier_webhook_deliveries_total", outcome="retry") == 1
    assert metric_sample(text, "kurier_webhook_deliveries_total", outcome="failed") == 0
    with pytest.raises(ValueError):
        metrics.record_email_delivery(isolated_redis.r, "sent-ish")


def test_metrics_show_the_owed_jobs_and_how_long_the_oldest_is_due(
    iso_app: Flask, isolated_redis: Store
) -> None:
    text = iso_app.test_client().get("/metrics").text
    assert metric_sample(text, "kurier_owed_jobs") == 0
    assert metric_sample(text, "kurier_owed_oldest_due_seconds") == 0
    job = owed.OwedJob("resolve-g-r", RESOLVE_JOB, ("g", "r"), "default", 30, at=time.time() - 60)
    with isolated_redis.raw.pipeline() as pipe:
        owed.owe(pipe, job, isolated_redis.raw)
        pipe.execute()
    text = iso_app.test_client().get("/metrics").text
    assert metric_sample(text, "kurier_owed_jobs") == 1
    assert 60 <= metric_sample(text, "kurier_owed_oldest_due_seconds") < 120


def test_metrics_without_redis_say_so() -> None:
    app = create_app({"REDIS_URL": "unix:///nonexistent/redis.sock"})
    text = app.test_client().get("/metrics").text
    assert metric_sample(text, "kurier_redis_up") == 0
