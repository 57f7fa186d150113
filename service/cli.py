"""kurier: run the service, a worker, the embedded Redis, or make a demo game."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

from service.common.numbers import is_ascii_digits
from service.ops import commands as ops
from service.ops.config import Invalid, mailin_address, public_url, stream_url, url_of
from service.store import Store
from service.store.queues import DEFAULT_QUEUE, WEBHOOK_QUEUE, WORKER_QUEUES
from service.store.redis_server import (
    RedisLaunchError,
    RedisServer,
    data_dir_from_env,
    redis_url_or_server,
)

MAX_PROCESSES = 64
#: The workers one installation runs (`kurier run`; docker-compose.yml has the same roles):
#: game work, and webhook deliveries on workers of their own, several side by side, because
#: a delivery waits on someone else's server (up to KURIER_WEBHOOK_TIMEOUT).
WORKER_ROLES: tuple[tuple[str, ...], ...] = (
    # Two game workers: resolutions keep their latency while the API saturates the machine
    # (docs/performance.md), and one survives the other's crash.
    ("worker", "--processes", "2"),
    ("worker", "--queues", WEBHOOK_QUEUE, "--processes", "2"),
)
#: The demo's players: addresses under a domain reserved for examples (RFC 2606), so their
#: mails land in the outbox and never reach anyone.
DEMO_PLAYERS = ("Alice", "Bruno", "Chiara")
DEMO_MAIL_DOMAIN = "example.org"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kurier", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="Redis (embedded or REDIS_URL), the workers, the API")
    run.add_argument("--host", help="default: KURIER_HOST or 127.0.0.1")
    run.add_argument("--port", type=int, help="default: KURIER_PORT or 8000")
    # The stream server listens on KURIER_STREAM_PORT (default: the API's port + 1).
    commands.add_parser(
        "worker", parents=[worker_options()], help="rq workers with their scheduler (REDIS_URL)"
    )
    mail_in = commands.add_parser("mail-in", help="inbound SMTP for play by email (REDIS_URL)")
    mail_in.add_argument("--host", help="default: KURIER_MAILIN_HOST or 127.0.0.1")
    mail_in.add_argument("--port", type=int, help="default: KURIER_MAILIN_PORT or 2525")
    commands.add_parser("redis", help="run only the embedded Redis, in the foreground")
    demo = commands.add_parser("demo", help="create a 3-player Attila game, print tokens")
    demo.add_argument("--base-url", help="default: KURIER_PUBLIC_URL, else KURIER_HOST:PORT")
    spec = commands.add_parser("openapi", help="print (or write) the OpenAPI document")
    spec.add_argument("--output", type=Path)
    operations = ops.add_parsers(commands)  # web, config check, games verify
    args = parser.parse_args(argv)
    handler = {
        "run": cmd_run,
        "worker": cmd_worker,
        "mail-in": cmd_mail_in,
        "redis": cmd_redis,
        "demo": cmd_demo,
        "openapi": cmd_openapi,
        **operations,
    }[args.command]
    return handler(args)


# -- run ----------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    try:
        # Both ports before anything starts: a taken one is a line, not a stack that stops.
        host, port = ops.resolve_listen(args)
        stream_host, stream_port = ops.resolve_streams(host, None, port)
        ops.ensure_free(*mailin_address(os.environ), "KURIER_MAILIN_HOST", "KURIER_MAILIN_PORT")
        url, server = redis_url_or_server()
    except (ops.CannotListen, Invalid, RedisLaunchError) as error:
        print(f"kurier run: {error}", file=sys.stderr)
        return 2
    api = url_of(host, port)
    # Links in mails and webhooks point at the address the API really listens on.
    listening = {**os.environ, "KURIER_HOST": host, "KURIER_PORT": str(port)}
    listening["KURIER_STREAM_PORT"] = str(stream_port)
    env = {
        **os.environ,
        "REDIS_URL": url,
        "KURIER_PUBLIC_URL": public_url(listening),
        "KURIER_STREAM_URL": stream_url(listening),
    }
    children: list[subprocess.Popen[bytes]] = []
    stopping = False

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        for role in WORKER_ROLES:
            children.append(subprocess.Popen([sys.executable, "-m", "service.cli", *role], env=env))
        children.append(subprocess.Popen(_gunicorn(host, port), env=env))
        children.append(subprocess.Popen(ops.streams_argv(stream_host, stream_port), env=env))
        children.append(subprocess.Popen([sys.executable, "-m", "service.cli", "mail-in"], env=env))
        # The page a newcomer opens first comes first (the API and docs follow).
        print(
            f"Kurier: play in the browser at {api}/ ; API on {api}/v1, docs at {api}/docs, "
            f"streams on {url_of(stream_host, stream_port)} (Redis: {url}); "
            f"mail goes to {mail_destination()}",
            flush=True,
        )
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.2)
    finally:
        # Web and worker first (the worker finishes its job: warm shutdown), Redis last.
        for child in reversed(children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=70)
            except subprocess.TimeoutExpired:
                child.kill()
        if server is not None:
            server.stop()
    failed = [c.returncode for c in children if c.returncode not in (0, -signal.SIGTERM)]
    return 0 if stopping or not failed else 1


def _gunicorn(host: str, port: int) -> list[str]:
    return ops.gunicorn_argv(host, port)  # the same settings as the image's `kurier web`


def mail_destination() -> str:
    """Where notification mail goes with this environment, for people to look."""
    from workers.mail import outbox_path

    relay = os.environ.get("KURIER_SMTP_URL")
    return f"the relay {urlsplit(relay).hostname}" if relay else f"the maildir {outbox_path()}/new"


# -- worker ---------------------------------------------------------------------------------


def worker_options() -> argparse.ArgumentParser:
    """The options of ``kurier worker`` (the deployment tests read roles with them too)."""
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--burst", action="store_true", help="exit when the queues are empty")
    options.add_argument(
        "--queues",
        nargs="+",
        choices=[*WORKER_QUEUES, WEBHOOK_QUEUE],
        default=list(WORKER_QUEUES),
        metavar="QUEUE",
        help=f"queues to serve, in priority order (default: {' '.join(WORKER_QUEUES)}); "
        f"webhook deliveries are on '{WEBHOOK_QUEUE}', served by workers of their own",
    )
    options.add_argument(
        "--processes",
        type=_processes,
        default=1,
        help="workers side by side, each running one job at a time (default 1)",
    )
    return options


def _processes(text: str) -> int:
    if not is_ascii_digits(text) or not 1 <= int(text) <= MAX_PROCESSES:
        raise argparse.ArgumentTypeError(f"a whole number from 1 to {MAX_PROCESSES}")
    return int(text)


def cmd_worker(args: argparse.Namespace) -> int:
    from engine import registry
    from service.common.logs import configure_logging
    from workers.jobs import reconcile
    from workers.runtime import Sweeper

    configure_logging()  # JSON lines; rq's own log lines go through the same handler
    registry.load_all()  # before the first job, not in it (forked pool workers inherit them)
    store = Store.from_env()
    sweeper = None
    if DEFAULT_QUEUE in args.queues:
        # Jobs owed but lost by workers that died (service/store/owed.py): enqueue them again now,
        # and every few seconds while this process serves the game queue.
        reconcile(store)
        if not args.burst:
            sweeper = Sweeper(store).start()
    try:
        if args.processes == 1:
            _work(store, args.queues, args.burst)
        else:
            _work_pool(store, args.queues, args.processes, args.burst)
    finally:
        if sweeper is not None:
            sweeper.stop()
    return 0


def _worker_class(queues: list[str]) -> Any:
    """Game work runs in the worker's own process (rq's SimpleWorker): a fork per job would
    cost more than a resolution itself (tens of ms; docs/performance.md), and game jobs are
    short, idempotent and bounded by their job timeout. Webhook deliveries keep one forked
    work-horse per job: an attempt abandoned at its deadline dies with its horse. Both beat a
    heartbeat of their own (service/store/liveness.py)."""
    from workers.runtime import GameWorker, WebhookWorker

    return WebhookWorker if WEBHOOK_QUEUE in queues else GameWorker


def _work(store: Store, queues: list[str], burst: bool) -> None:
    from rq.serializers import JSONSerializer

    worker = _worker_class(queues)(queues, connection=store.queue_raw, serializer=JSONSerializer)
    worker.work(with_scheduler=True, burst=burst)


def _work_pool(store: Store, queues: list[str], processes: int, burst: bool) -> None:
    """rq's WorkerPool: forked workers, each with its scheduler, restarted if one dies; SIGTERM
    stops them all warmly (each finishes its job). What a dead one held, the sweep recovers."""
    from rq.serializers import JSONSerializer
    from rq.worker_pool import WorkerPool

    pool = WorkerPool(
        queues,
        connection=store.queue_raw,
        num_workers=processes,
        worker_class=_worker_class(queues),
        serializer=JSONSerializer,
    )
    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    pool.start(burst=burst, logging_level=level)


# -- mail-in ---------------------------------------------------------------------------------


def cmd_mail_in(args: argparse.Namespace) -> int:
    from service.common.logs import configure_logging
    from service.mail.receiver import serve

    try:
        host, port = mailin_address(os.environ)
    except Invalid as error:
        print(f"kurier mail-in: {error}", file=sys.stderr)
        return 2
    configure_logging()
    serve(Store.from_env(), args.host or host, args.port or port)
    return 0


# -- redis -----------------------------------------------------------------------------------


def cmd_redis(_args: argparse.Namespace) -> int:
    server = RedisServer(data_dir_from_env())
    try:
        server.start()
    except RedisLaunchError as error:
        print(f"kurier redis: {error}", file=sys.stderr)
        return 2
    print(f"REDIS_URL={server.url}", flush=True)
    # The handlers only note the signal; the main loop stops Redis. (Stopping it in the handler
    # meant a Popen.wait inside the interrupted Popen.wait, which never returned.)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    assert server.process is not None
    while not stopping.is_set() and server.process.poll() is None:
        stopping.wait(0.2)
    crashed = server.process.poll() is not None
    server.stop()
    return 1 if crashed else 0


# -- demo ------------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    from service.domain.games import lifecycle

    url, server = _demo_redis()
    try:
        store = Store(url)
        players = [
            store.players.create(name, f"{name.lower()}@{DEMO_MAIL_DOMAIN}")
            for name in DEMO_PLAYERS
        ]
        created = lifecycle.create_game(store, players[0][0], "attila", {}, None, 3).body
        for player, _ in players[1:]:
            lifecycle.join_game(store, player, created["id"], created["invite_code"])
        lifecycle.start_game(store, players[0][0], created["id"])
        to_move = store.get_game(created["id"]).pending[0]["seat"]
        store.close()
    finally:
        if server is not None:
            server.stop()
    base_url = (args.base_url or public_url(os.environ)).rstrip("/")
    game_url = f"{base_url}/v1/games/{created['id']}"
    print(f"Demo game {created['id']} (Attila, 3 players): {game_url}")
    for seat, (player, token) in enumerate(players):
        print(f"  seat {seat} {player['name']} <{player['email']}>: {token}")
    auth = f"-H 'Authorization: Bearer {players[to_move][1]}'"
    print(f"{players[to_move][0]['name']} moves first. Try:")
    print(f"  curl {auth} {game_url}/legal-actions")
    print(
        f"  curl {auth} -H 'Content-Type: application/json' "
        f'-d \'{{"notation": "<one of them>"}}\' {game_url}/actions'
    )
    print(f"The workers of `kurier run` mail the players; their mails go to {mail_destination()}")
    return 0


def _demo_redis() -> tuple[str, RedisServer | None]:
    """The running service's Redis if there is one, else start the embedded one briefly."""
    if os.environ.get("REDIS_URL"):
        return os.environ["REDIS_URL"], None
    server = RedisServer(data_dir_from_env())
    if server.answering():
        return server.url, None
    return server.start(), server


# -- openapi -----------------------------------------------------------------------------------


def cmd_openapi(args: argparse.Namespace) -> int:
    text = openapi_text()
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def openapi_text() -> str:
    from service.http.app import create_app

    app = create_app({"REDIS_URL": "unix:///nonexistent"})
    spec = app.extensions["kurier.api"].spec.to_dict()
    return json.dumps(spec, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.exit(main())
