"""Operator commands of `kurier`: `web`, `config check`, `games verify`, `games compact`,
`verify`, `archive`, `restore`, `store accept`, `moderator` (service/ops/moderators.py).

Kept apart from `service/cli.py` (which wires them in) so that the production entry points
are in one place: the container image runs `kurier web` and `kurier worker`.
"""

from __future__ import annotations

import argparse
import datetime
import errno
import os
import socket
import sys
from collections.abc import Callable
from typing import Any

from service.ops import moderators
from service.ops.config import Invalid, listen_address, stream_address

Handler = Callable[[argparse.Namespace], int]


def add_parsers(commands: Any) -> dict[str, Handler]:
    web = commands.add_parser("web", help="only the API under gunicorn (REDIS_URL)")
    web.add_argument("--host", help="default: KURIER_HOST or 127.0.0.1")
    web.add_argument("--port", type=int, help="default: KURIER_PORT or 8000")
    streams = commands.add_parser(
        "streams", help="only the stream server (Server-Sent Events) under gunicorn (REDIS_URL)"
    )
    streams.add_argument("--host", help="default: KURIER_HOST or 127.0.0.1")
    streams.add_argument("--port", type=int, help="default: KURIER_STREAM_PORT or KURIER_PORT+1")
    config = commands.add_parser("config", help="check the environment variables")
    config.add_argument("action", choices=["check"])
    config.add_argument("--quiet", action="store_true", help="print only problems")
    games = commands.add_parser(
        "games", help="replay stored games with this engine (verify), or compact finished ones"
    )
    games.add_argument("action", choices=["verify", "compact"])
    games.add_argument(
        "--upgrade",
        action="store_true",
        help="verify: move unfinished games whose replay matches to this engine's rules version",
    )
    games.add_argument(
        "--keep-events",
        action="store_true",
        help="compact: keep every event of the compacted logs, none rebuilt by replay (before "
        "an engine with other rules: docs/operations.md, Upgrades)",
    )
    verify = commands.add_parser(
        "verify", help="check finished games' records offline (seed, sealed choices, replay)"
    )
    verify.add_argument("records", nargs="+", metavar="RECORD.json")
    archive = commands.add_parser(
        "archive", help="move finished games out of Redis into a JSON Lines file"
    )
    archive.add_argument(
        "--before", required=True, type=_day, metavar="YYYY-MM-DD",
        help="games finished before this day (UTC)",
    )  # fmt: skip
    archive.add_argument("--dir", default="archive", help="where the file goes (./archive)")
    restore = commands.add_parser("restore", help="bring archived games back into Redis")
    restore.add_argument("files", nargs="+", metavar="FILE.jsonl")
    epoch = commands.add_parser(
        "store",
        help="after a rolled-back game store was restored from a backup: accept it as it is "
        "now, and writes resume (docs/operations.md)",
    )
    epoch.add_argument("action", choices=["accept"])
    moderators.add_parser(commands)
    return {
        "web": cmd_web,
        "streams": cmd_streams,
        "config": cmd_config,
        "games": cmd_games,
        "verify": cmd_verify,
        "archive": cmd_archive,
        "restore": cmd_restore,
        "store": cmd_store,
        "moderator": moderators.cmd_moderator,
    }


def _day(text: str) -> float:
    try:
        day = datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.UTC)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day like 2026-01-31") from None
    return day.timestamp()


class CannotListen(Exception):
    """One line for the operator: which address, why, and which variable to set."""


def resolve_listen(args: argparse.Namespace) -> tuple[str, int]:
    """`--host`/`--port`, else KURIER_HOST/KURIER_PORT, checked free before anything starts."""
    try:
        host, port = listen_address(os.environ, args.host, args.port)
    except Invalid as error:
        raise CannotListen(str(error)) from None
    ensure_free(host, port, "KURIER_HOST", "KURIER_PORT")
    return host, port


def ensure_free(host: str, port: int, host_variable: str, port_variable: str) -> None:
    """Bind host:port the way gunicorn and aiosmtpd will (SO_REUSEADDR) and let go: a taken
    port is then one clear line instead of gunicorn's five retries ending the whole stack."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise CannotListen(f"{host}: {error.strerror}; set {host_variable}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            about_port = error.errno in (errno.EADDRINUSE, errno.EACCES)
            hint = (
                f"set {port_variable} to a free port"
                if about_port
                else f"set {host_variable} to an address of this machine"
            )
            reason = f"cannot listen on {host}:{port}: {error.strerror}"
            raise CannotListen(f"{reason}; {hint}") from None


def streams_argv(host: str, port: int) -> list[str]:
    """gunicorn with gevent workers over the stream app (service/http/gunicorn_streams.py)."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:service.http.gunicorn_streams",
        "--bind",
        f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "service.http.streams_app:create_streams_app()",
    ]


def gunicorn_argv(host: str, port: int) -> list[str]:
    # Workers, threads, timeouts and the metrics directory: service/http/gunicorn_conf.py.
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:service.http.gunicorn_conf",
        "--bind",
        f"[{host}]:{port}" if ":" in host else f"{host}:{port}",  # an IPv6 address
        "service.http.wsgi:app",
    ]


def cmd_web(args: argparse.Namespace) -> int:
    if not os.environ.get("REDIS_URL"):
        print("kurier web: REDIS_URL is not set (kurier run starts its own Redis)", file=sys.stderr)
        return 2
    try:
        host, port = resolve_listen(args)
    except CannotListen as error:
        print(f"kurier web: {error}", file=sys.stderr)
        return 2
    argv = gunicorn_argv(host, port)
    # Replace this process: gunicorn gets the container's signals directly.
    os.execv(argv[0], argv)
    return 0  # not reached


def cmd_streams(args: argparse.Namespace) -> int:
    if not os.environ.get("REDIS_URL"):
        print("kurier streams: REDIS_URL is not set", file=sys.stderr)
        return 2
    try:
        host, port = resolve_streams(args.host, args.port)
    except CannotListen as error:
        print(f"kurier streams: {error}", file=sys.stderr)
        return 2
    argv = streams_argv(host, port)
    os.execv(argv[0], argv)  # as `kurier web`: gunicorn gets the signals directly
    return 0  # not reached


def resolve_streams(
    host: str | None, port: int | None, api_port: int | None = None
) -> tuple[str, int]:
    """`--host`/`--port`, else KURIER_HOST/KURIER_STREAM_PORT (default: the API's port + 1),
    checked free."""
    try:
        default_host, default_port = stream_address(os.environ, api_port)
    except Invalid as error:
        raise CannotListen(str(error)) from None
    host, port = host or default_host, port or default_port
    ensure_free(host, port, "KURIER_HOST", "KURIER_STREAM_PORT")
    return host, port


def cmd_config(args: argparse.Namespace) -> int:
    from service.ops.config import check

    findings = check(os.environ)
    for finding in findings:
        if finding.level != "ok" or not args.quiet:
            print(f"{finding.level:<7} {finding.name}: {finding.message}")
    errors = sum(f.level == "error" for f in findings)
    if errors:
        print(f"{errors} setting(s) wrong or missing (see docs/operations.md)", file=sys.stderr)
    return 1 if errors else 0


def cmd_games(args: argparse.Namespace) -> int:
    from service.store import Store

    store = Store.from_env()
    if args.action == "compact":
        return _compact_games(store, args.keep_events)
    return _verify_games(store, args.upgrade)


def _verify_games(store: Any, upgrade: bool) -> int:
    """Replay every stored game; with ``upgrade``, move the unfinished ones that match to this
    engine's rules, unless a finished game's log could then no longer be read (none moved)."""
    from service.domain import pinning

    counts: dict[str, int] = {}
    to_upgrade: list[pinning.Verdict] = []
    needing_rules: list[pinning.Verdict] = []
    for game_id in pinning.game_ids(store):
        verdict = pinning.verify(store, game_id)
        counts[verdict.outcome] = counts.get(verdict.outcome, 0) + 1
        if not verdict.ok:
            print(
                f"{verdict.outcome} {game_id} ({verdict.type} {verdict.status}, rules "
                f"{verdict.rules_version}, engine {verdict.engine_version}): {verdict.detail}"
            )
        elif verdict.status != "finished" and verdict.rules_version != verdict.engine_version:
            to_upgrade.append(verdict)
        if verdict.needs_its_rules:
            needing_rules.append(verdict)
    summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "no games"
    if upgrade and needing_rules:
        print(f"verified: {summary}; upgraded: 0")
        print(_upgrade_refused(needing_rules), file=sys.stderr)
        store.close()
        return 1
    upgraded = 0
    for verdict in to_upgrade if upgrade else ():
        if pinning.upgrade(store, verdict):
            upgraded += 1
            print(f"upgraded {verdict.game_id}: {verdict.rules_version} -> ", end="")
            print(verdict.engine_version)
    print(f"verified: {summary}; upgraded: {upgraded}")
    store.close()
    return 1 if counts.get("mismatch") or counts.get("error") else 0


def _upgrade_refused(needing_rules: list[Any]) -> str:
    """Why ``games verify --upgrade`` upgraded nothing, and what the operator does."""
    rules = sorted({f"{v.type} {v.rules_version}" for v in needing_rules})
    return (
        f"kurier games verify --upgrade: upgraded nothing. {len(needing_rules)} finished "
        f"game(s) under rules this release does not run ({', '.join(rules)}) keep only "
        "their actions and rebuild their events by replay under those rules. With the "
        "release of those rules (the one that served them), run `kurier games compact "
        "--keep-events`, then this again (docs/operations.md, Upgrades). Games in play "
        "upgraded first would be refused by that release."
    )


def _compact_games(store: Any, keep_events: bool) -> int:
    """Every finished game's log packed as compaction packs it now: a stream left behind, a
    log packed in the older format, and (``keep_events``) a log whose events are rebuilt by
    replay, packed again with them all; then compaction keeps every event of the games
    under the running rules, those that finish later included (before an upgrade)."""
    from engine.registry import game_ids, get_game
    from service.domain import pinning

    if keep_events:
        store.keep_events_of((kind, get_game(kind).rules_version) for kind in game_ids())
    packed = 0
    for game_id in pinning.game_ids(store):
        if store.compact(game_id, keep_events):
            packed += 1
    print(f"packed: {packed}")
    store.close()
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from engine.verify import main

    return main(args.records)


def cmd_archive(args: argparse.Namespace) -> int:
    from pathlib import Path

    from service.ops.archive import archive
    from service.store import Store

    store = Store.from_env()
    done = archive(store, args.before, Path(args.dir))
    store.close()
    if not done.games and not done.skipped:
        print("no finished game to archive")
        return 0
    print(f"archived {done.games} finished game(s) to {done.path}", end="")
    print(f"; {done.skipped} changed meanwhile and stay" if done.skipped else "")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from service.ops.archive import restore
    from service.store import Store

    store = Store.from_env()
    for name in args.files:
        try:
            restored, present = restore(store, Path(name))
        except (OSError, ValueError) as error:
            print(f"kurier restore: {error}", file=sys.stderr)
            return 1
        print(f"{name}: restored {restored} game(s); {present} already there")
    store.close()
    return 0


def cmd_store(_args: argparse.Namespace) -> int:
    """`kurier store accept`: the game store as it is now becomes the accepted epoch
    (service/store/epoch.py): every process stops refusing writes within a second."""
    from service.store import Store
    from service.store.epoch import CHECK_SECONDS, accept

    store = Store.from_env()
    keys = accept(store)
    store.close()
    print(
        f"accepted the game store as it is now ({len(keys)} epoch key(s)): writes resume "
        f"within {CHECK_SECONDS:g} s. Run `kurier games verify` if it came from a backup."
    )
    return 0
