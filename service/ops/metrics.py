"""Prometheus metrics, served at ``GET /metrics``. Every metric Kurier exports is defined here.

Two kinds, because API processes and rq work-horses live and die differently:

- **Per API process** (``kurier_http_requests_total``, ``kurier_move_duration_seconds``):
  prometheus-client metrics. gunicorn runs several worker processes, so when
  ``PROMETHEUS_MULTIPROC_DIR`` is set (``kurier web`` and ``kurier run`` set it) each process
  writes its values to files there and a scrape adds them up (``service/http/gunicorn_conf.py``
  cleans up after dead workers).
- **Cluster-wide, kept in Redis** (queue depth, failed jobs, owed jobs, email and webhook
  deliveries):
  read at scrape time. rq forks a short-lived work-horse per job, on any number of hosts, so
  a delivery counter lives in the Redis hash ``kurier:metrics:counters`` (HINCRBY), where any
  API replica can export it and it survives restarts. Prometheus handles the rare reset (a
  Redis restored from an older backup) like any counter reset.

Notification code counts a delivery with ``record_email_delivery(redis, outcome)`` or
``record_webhook_delivery(redis, outcome)``; the outcome is one of ``DELIVERY_OUTCOMES``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import redis
from flask import Flask, Response, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from service.common.logs import route_label, seconds_since_start
from service.store import owed, queues

log = logging.getLogger(__name__)

COUNTERS_KEY = "kurier:metrics:counters"
#: Bounded label values: a typo in a caller must not create a new time series.
DELIVERY_OUTCOMES = ("delivered", "retry", "failed", "disabled")
MOVE_ROUTE = "/v1/games/<game_id>/actions"

HTTP_REQUESTS = Counter(
    "kurier_http_requests",
    "HTTP requests answered, by route template, method and status",
    ["route", "method", "status"],
)
MOVE_DURATION = Histogram(
    "kurier_move_duration_seconds",
    "Time to answer POST /v1/games/{id}/actions, by status (200 move, 202 sealed, 4xx refused)",
    ["status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)

#: Redis-kept counters: metric name -> help. Fields in COUNTERS_KEY are "<name>|<outcome>".
REDIS_COUNTERS = {
    "kurier_email_deliveries": "Emails handed to SMTP or the outbox, by outcome",
    "kurier_webhook_deliveries": "Webhook delivery attempts, by outcome",
}


# -- counters the workers increment --------------------------------------------------------


def record_email_delivery(client: redis.Redis, outcome: str) -> None:
    _incr(client, "kurier_email_deliveries", outcome)


def record_webhook_delivery(client: redis.Redis, outcome: str) -> None:
    _incr(client, "kurier_webhook_deliveries", outcome)


def _incr(client: redis.Redis, name: str, outcome: str) -> None:
    if outcome not in DELIVERY_OUTCOMES:
        raise ValueError(f"outcome must be one of {DELIVERY_OUTCOMES}, not {outcome!r}")
    try:
        client.hincrby(COUNTERS_KEY, f"{name}|{outcome}", 1)
    except redis.RedisError:
        # Counting must never fail a delivery that already happened.
        log.warning("could not count %s %s", name, outcome)


# -- what Redis knows, read at scrape time -------------------------------------------------------


class RedisCollector(Collector):
    """Queue depth, job registries and delivery counters, read from Redis on each scrape."""

    def __init__(self, store: Any, queues: tuple[str, ...]) -> None:
        self.store = store
        self.queues = queues

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("kurier_redis_up", "1 if the scrape could read Redis")
        try:
            metrics = [*self._queue_metrics(), *self._counters(), *self._owed_metrics()]
        except redis.RedisError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from metrics

    def _queue_metrics(self) -> list[Metric]:
        depth = GaugeMetricFamily(
            "kurier_queue_jobs", "Jobs waiting in an rq queue", labels=["queue"]
        )
        running = GaugeMetricFamily("kurier_jobs_running", "Jobs being run", labels=["queue"])
        failed = GaugeMetricFamily(
            "kurier_jobs_failed", "Jobs in rq's failed registry (kept 7 days)", labels=["queue"]
        )
        for name in self.queues:
            queue = queues.queue(self.store.queue_raw, name)
            depth.add_metric([name], queue.count)
            running.add_metric([name], queue.started_job_registry.count)
            failed.add_metric([name], queue.failed_job_registry.count)
        return [depth, running, failed]

    def _counters(self) -> list[Metric]:
        raw = self.store.r.hgetall(COUNTERS_KEY)
        families = {
            name: CounterMetricFamily(name, text, labels=["outcome"])
            for name, text in REDIS_COUNTERS.items()
        }
        for name, family in families.items():
            for outcome in DELIVERY_OUTCOMES:
                family.add_metric([outcome], int(raw.get(f"{name}|{outcome}", 0)))
        return list(families.values())

    def _owed_metrics(self) -> list[Metric]:
        count, oldest = owed.backlog(self.store.queue_raw)
        owed_jobs = GaugeMetricFamily(
            "kurier_owed_jobs", "Jobs owed (resolutions, notifications, deadlines) not yet done"
        )
        owed_jobs.add_metric([], count)
        age = GaugeMetricFamily(
            "kurier_owed_oldest_due_seconds",
            "How long the oldest owed job has been due; a few seconds at most while workers live",
        )
        age.add_metric([], oldest)
        return [owed_jobs, age]


# -- the Flask side --------------------------------------------------------------------------


def init_app(app: Flask, queues: tuple[str, ...]) -> None:
    redis_collector = RedisCollector(app.extensions["kurier.store"], queues)
    # Timed from the access line's start (service/common/logs.py, whose hooks run first).
    app.after_request(_count)
    # Not part of the OpenAPI document: it is for the operator's Prometheus, not for clients.
    app.add_url_rule("/metrics", "metrics", lambda: _scrape(redis_collector))


#: Each labelled child once per process: ``labels()`` checks, locks and looks up on every call
#: (about 4 µs of a request). As bounded as the series themselves (route templates, statuses).
_request_counters: dict[tuple[str, ...], Any] = {}
_move_durations: dict[tuple[str, ...], Any] = {}


def _child(metric: Any, children: dict[tuple[str, ...], Any], *labels: str) -> Any:
    child = children.get(labels)
    if child is None:
        child = children.setdefault(labels, metric.labels(*labels))
    return child


def _count(response: Response) -> Response:
    route = route_label()
    status = str(response.status_code)
    method = request.method
    _child(HTTP_REQUESTS, _request_counters, route, method, status).inc()
    if route == MOVE_ROUTE and method == "POST":
        _child(MOVE_DURATION, _move_durations, status).observe(seconds_since_start())
    return response


def _scrape(redis_collector: RedisCollector) -> Response:
    registry = REGISTRY  # one process (tests, the dev server): the default, with process stats
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    body = generate_latest(registry) + generate_latest(_OneShot(redis_collector))
    return Response(body, mimetype=CONTENT_TYPE_LATEST)


class _OneShot(CollectorRegistry):
    """A registry holding just the Redis collector, made per scrape (no global state)."""

    def __init__(self, collector: Collector) -> None:
        super().__init__(auto_describe=False)
        self._collector = collector

    def collect(self) -> Iterator[Metric]:
        yield from self._collector.collect()
