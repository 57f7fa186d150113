"""What a game costs Redis, for the capacity plan in docs/operations.md.

Not a test: ``.venv/bin/python benchmarks/footprint.py [--games 20] [--seconds 120]``. Plays
random 3-player Attila games to the end through the service's own operations (no HTTP, no
worker: sealed steps resolved in process, as the worker would) on Redis servers of its own, in
two layouts:

- ``colocated``: game state and queues on one Redis (a club; Sentinel is the same with a
  replica), where a commit and its jobs are one script;
- ``queues-apart``: the queues on a second Redis, as a Redis Cluster deployment has them, where
  a commit writes an outbox entry and the relay moves it (service/store/outbox.py).

Prints per layout: bytes of one game's keys (record, log, idempotency records none here)
averaged over its life (sampled at every version) and at its end, after compaction
(``Store.compact``), the owed-job and queue bytes left behind, and the Redis commands executed
per change (INFO commandstats, commands inside scripts included) with the round trips the store
makes per change (counted by wrapping the connection's send). Each layout's figures are also
printed as a ratio to colocated.

How bytes are counted: the record (a hash) by ``MEMORY USAGE``; the log (a stream) as the
allocator sees it, because ``MEMORY USAGE`` misjudges a stream's nodes (it gave 21.5 KB for a
log of 133 entries that takes 14.9 KB). Each finished game's log is replayed, entry by entry,
into scratch streams on the same Redis, and the growth of ``used_memory_dataset`` per copy
after each entry is the log's size at that length. The replay is done twice, with the server's
``stream-node-max-bytes`` (the launcher's) and with Redis's default of 4096, printed as the
"KB life at 4 KB nodes" column: the same games under both settings, in the same run.

``--fields GAMES`` measures finished games instead: GAMES random games of each game
(3-player Attila, 2-player Attika, the 2-player wargame) to their end, an active game's bytes
halfway (as above: record and log), then each field of the compacted record (HSTRLEN: the
values' own lengths; ``MEMORY USAGE`` samples a few fields of a hash and misses the log), and
the time of the compaction, of a first read of the compacted log (a replay) and of a first
view of the finished game ("view ms": its state, which the record keeps only where the log's
replay does not give it back, from that replay). "log v2": the same log packed in version 2
(service/store/logpack.py); "kept": packed with every event kept (``kurier games compact
--keep-events``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from redis.connection import AbstractConnection as Connection

from benchmarks.baselines import BASELINES, Baseline
from engine.bots import Budget, choose
from engine.core import SYSTEM
from service.common.lru import Lru
from service.domain import bots
from service.domain.games import lifecycle, play, views
from service.store import Store, eventlog, logpack
from service.store.keys import events_key, game_key
from service.store.record import GameRecord, as_text, dumps
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer

ROUND_TRIPS = [0]
_send: Callable[[Connection, Any, bool], None] = Connection.send_packed_command


def _counting_send(self: Connection, command: Any, check_health: bool = True) -> None:
    ROUND_TRIPS[0] += 1
    _send(self, command, check_health)


#: Copies of a log replayed at once: the allocator's figure per copy, averaged over them.
REPLAY_COPIES = 50
SCRATCH = "kurier:footprint:scratch"
NODE_BYTES = "stream-node-max-bytes"
REDIS_DEFAULT_NODE_BYTES = 4096


def _record_bytes(store: Store, game_id: str) -> int:
    return store.raw.memory_usage(game_key(game_id), samples=0) or 0


def _dataset_bytes(client: Any) -> int:
    return int(client.info("memory")["used_memory_dataset"])


def log_bytes_by_length(client: Any, game_id: str, node_bytes: int | None = None) -> list[float]:
    """The game's log's bytes when it held 0, 1, ... n entries: its entries replayed into
    ``REPLAY_COPIES`` scratch streams (with ``node_bytes`` per stream node if given), the
    dataset's growth per copy read after each entry."""
    entries = client.xrange(events_key(game_id))
    saved = client.config_get(NODE_BYTES)[NODE_BYTES]
    if node_bytes is not None:
        client.config_set(NODE_BYTES, node_bytes)
    scratch = [f"{SCRATCH}:{copy}" for copy in range(REPLAY_COPIES)]
    try:
        base, sizes = _dataset_bytes(client), [0.0]
        for entry_id, fields in entries:
            pipe = client.pipeline(transaction=False)
            for key in scratch:
                pipe.xadd(key, fields, id=entry_id)
            pipe.execute()
            sizes.append((_dataset_bytes(client) - base) / REPLAY_COPIES)
    finally:
        client.delete(*scratch)
        client.config_set(NODE_BYTES, saved)
    return sizes


def _commands(client: Any) -> int:
    stats = client.info("commandstats")
    return sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info")


#: A bot's move in these games: an iteration cap, so that a game is the same on a busy machine.
BOT_ITERATIONS = 20
#: Picks a seat's move from the game's record and log: (record, entries, seat, rng) -> notation.
Chooser = Callable[[GameRecord, list[tuple[int, dict[str, Any]]], int, random.Random], str]


def random_move(
    record: GameRecord, entries: list[tuple[int, dict[str, Any]]], seat: int, rng: random.Random
) -> str:
    """A legal move drawn uniformly (the random games)."""
    legal = views.legal_actions(record, seat)["actions"]
    return str(rng.choice(legal)["notation"])


def bot_move(level: str) -> Chooser:
    """The engine's bot of ``level`` or a baseline (benchmarks/baselines.py), from what the
    seat may see (service/domain/bots.py ``seat_inputs``), with an iteration cap: a
    reproducible game."""

    def move(
        record: GameRecord, entries: list[tuple[int, dict[str, Any]]], seat: int, rng: random.Random
    ) -> str:
        seen = bots.seat_inputs(record, entries, seat)
        seed = f"{rng.random()}"
        if level in BASELINES:
            player = Baseline(record.type, level, seed)
            action = player.choose(seen.view, seen.events, seat, seen.options)
        else:
            budget = Budget(seconds=60.0, iterations=BOT_ITERATIONS)
            action = choose(record.type, seen.view, seen.events, seat, level, seed,  # type: ignore[arg-type]
                            seen.options, budget)  # fmt: skip
        return record.game.notation(action)

    return move


def play_a_game(
    store: Store,
    rng: random.Random,
    game_type: str = "attila",
    seats: int = 3,
    chooser: Chooser = random_move,
) -> tuple[str, list[tuple[int, int]], int]:
    """One game to its end, each move by ``chooser``; returns its id, its record's bytes and
    its log's length at every version, and its changes."""
    players = [store.players.create(f"F{i}", None)[0] for i in range(seats)]
    created = lifecycle.create_game(store, players[0], game_type, {}, None, seats).body
    for player in players[1:]:
        lifecycle.join_game(store, player, created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0], created["id"])
    game_id, sizes, changes = created["id"], [], 0
    for _ in range(5000):
        record = store.get_game(game_id)
        sizes.append((_record_bytes(store, game_id), store.raw.xlen(events_key(game_id))))
        if record.status != "active":
            break
        decision = record.pending[0]
        changes += 1
        if decision["seat"] == SYSTEM:
            play.resolve(store, game_id, decision["ref"])
            continue
        entries = store.read_log(game_id)[1] if chooser is not random_move else []
        move = chooser(record, entries, decision["seat"], rng)
        play.play(store, players[decision["seat"]], game_id, move, None, None, None, None)
    return game_id, sizes, changes


def measure(store: Store, count: int, seconds: float) -> dict[str, float]:
    rng = random.Random(1)
    lives, lives_default, finished, compacted, changes = [], [], [], [], 0
    lifelines: list[list[tuple[int, int]]] = []
    commands_before = _commands(store.raw) + (0 if store.colocated else _commands(store.queue_raw))
    trips_before = ROUND_TRIPS[0]
    deadline = time.monotonic() + seconds
    ids = []
    for _ in range(count):
        if time.monotonic() > deadline:
            break
        game_id, sizes, played = play_a_game(store, rng)
        ids.append(game_id)
        lifelines.append(sizes)
        changes += played
    # Reads (get_game, legal_actions) are counted too: take only the store's writes' share by
    # measuring a read-only pass over the same number of changes below.
    commands = _commands(store.raw) + (0 if store.colocated else _commands(store.queue_raw))
    trips = ROUND_TRIPS[0] - trips_before
    reads_before, trips_reads = _commands(store.raw), ROUND_TRIPS[0]
    for game_id in ids:
        for _ in range(max(1, changes // len(ids))):
            store.get_game(game_id)
    reads = (_commands(store.raw) - reads_before) / max(1, changes)
    read_trips = (ROUND_TRIPS[0] - trips_reads) / max(1, changes)
    # After the counting above: the replays' commands are not the game's.
    for game_id, sizes in zip(ids, lifelines, strict=True):
        log = log_bytes_by_length(store.raw, game_id)
        log_default = log_bytes_by_length(store.raw, game_id, REDIS_DEFAULT_NODE_BYTES)
        lives.append(statistics.fmean(record + log[length] for record, length in sizes))
        lives_default.append(
            statistics.fmean(record + log_default[length] for record, length in sizes)
        )
        finished.append(sizes[-1][0] + log[sizes[-1][1]])
        store.compact(game_id)  # the log packed into the record, the stream deleted
        compacted.append(_record_bytes(store, game_id))
    return {
        "games": len(ids),
        "changes": changes,
        "life_kb": statistics.fmean(lives) / 1000,
        "life_default_kb": statistics.fmean(lives_default) / 1000,
        "finished_kb": statistics.fmean(finished) / 1000,
        "compacted_kb": statistics.fmean(compacted) / 1000,
        # Per change: everything (the play loop's reads included) minus one record read.
        "commands": (commands - commands_before) / max(1, changes) - reads,
        "round_trips": trips / max(1, changes) - read_trips,
    }


#: The games whose finished records are measured field by field (``--fields``).
FIELD_GAMES = (("attila", 3), ("attika", 2), ("attila-wargame", 2))
#: The wargame played by these too (``--bots``): bot levels or baselines.
FIELD_BOTS = ("medium", "heuristic")


def field_bytes(store: Store, game_id: str) -> dict[str, int]:
    """Each field of the game's record: its value's length (HSTRLEN)."""
    key = game_key(game_id)
    return {as_text(name): store.raw.hstrlen(key, name) for name in store.raw.hkeys(key)}


def field_plans(games: int, players: tuple[str, ...]) -> list[tuple[str, int, str, int]]:
    """What ``finished_fields`` plays: (game type, seats, players, seed)."""
    plans = [
        (game_type, seats, "random", seed)
        for game_type, seats in FIELD_GAMES
        for seed in range(5, 5 + games)
    ]
    return plans + [("attila-wargame", 2, level, 5) for level in players]


def finished_fields(store: Store, plans: list[tuple[str, int, str, int]]) -> list[dict[str, Any]]:
    """Each planned game to its end (random moves, or a bot level or baseline on both seats,
    seeded): an active game's bytes halfway (record by MEMORY USAGE, log as the allocator
    sees it), then the compacted record's fields, how long compaction and a first read of the
    compacted log took, and the same log packed as before (version 2) and its first read."""
    rows = []
    for game_type, seats, players, seed in plans:
        chooser = random_move if players == "random" else bot_move(players)
        game_id, sizes, _changes = play_a_game(
            store, random.Random(seed), game_type, seats, chooser
        )
        log = log_bytes_by_length(store.raw, game_id)
        record, length = sizes[len(sizes) // 2]
        game, entries = store.read_log(game_id)
        before, kept = version_2(game, entries), logpack.pack(game, entries, True)
        started = time.perf_counter()
        logpack.unpack(game, before)
        read_before = time.perf_counter() - started
        started = time.perf_counter()
        store.compact(game_id)
        compacted = time.perf_counter() - started
        logpack._rebuilt = Lru(logpack.KEPT_LOGS)  # a reader's process, not the compacting one
        started = time.perf_counter()
        store.read_log(game_id, state=False)
        read = time.perf_counter() - started
        logpack._rebuilt = Lru(logpack.KEPT_LOGS)  # the view's own first read
        started = time.perf_counter()
        views.game_view(store.get_game(game_id), None, None)
        view = time.perf_counter() - started
        fields = field_bytes(store, game_id)
        packed = store.raw.hget(game_key(game_id), "log")
        rows.append(
            {
                "game": f"{game_type} {seats}p {players}",
                "entries": len(entries),
                "mid_kb": (record + log[length]) / 1000,
                "before_log": len(before),
                "kept_log": len(kept),
                "log": fields.pop("log"),
                "state": fields.pop("state", 0),  # none: the log's replay gives it
                "other": sum(fields.values()),
                "compact_ms": compacted * 1000,
                "read_ms": read * 1000,
                "view_ms": view * 1000,
                "read_before_ms": read_before * 1000,
                "parts": log_parts(game.log_codec, packed),
            }
        )
    return rows


def version_2(record: GameRecord, entries: list[tuple[int, dict[str, Any]]]) -> bytes:
    """The log as compaction packed it before actions were coded: version 2, events derived
    where the replay gives them."""
    derived = logpack.replayed_events(record, entries)
    return logpack._packed(record.log_codec, logpack._document(entries, derived))


#: The parts of a version 3 or 4 log (``log_parts``), in the order printed.
PARTS = ("codes", "times", "salts", "json entries", "kept events", "flags")


def log_parts(codec: str, packed: bytes) -> dict[str, int]:
    """Where a version 3 or 4 log's bytes go: each part of its entries gathered and deflated
    alone with the game's dictionary (their sum is near the log's own length; "salts" the
    salts kept, none where the log keeps its game's secret instead: 32 bytes)."""
    streams = {name: bytearray() for name in PARTS}
    times: list[int] = []
    for part in logpack.coded_parts(codec, packed):
        if "json" in part:
            streams["json entries"] += dumps(part["json"]).encode()
            continue
        for name, value in (("flags", part["flags"]), ("codes", part["code"])):
            logpack._varint(streams[name], value)
        times.append(logpack._zigzag(part["dt"]))
        if part["salt"]:
            streams["salts"] += bytes.fromhex(part["salt"])
        if part["events"] is not None:
            streams["kept events"] += dumps(part["events"]).encode()
        for extra in (part["dv"] - 1, part["decision"]):
            if extra:
                logpack._varint(streams["flags"], extra)
    streams["times"] += logpack._planar(times)  # as version 4 keeps them
    return {name: len(eventlog.pack_bytes(codec, bytes(data))) for name, data in streams.items()}


def print_fields(rows: list[dict[str, Any]]) -> None:
    print(f"{'finished game':<30}{'entries':>8}{'KB mid-game':>12}{'log':>7}{'state':>7}"
          f"{'other':>7}{'total':>7}{'log v2':>8}{'kept':>7}{'compact ms':>11}"
          f"{'read ms':>8}{'read v2 ms':>11}{'view ms':>8}")  # fmt: skip
    for r in rows:
        total = r["log"] + r["state"] + r["other"]
        print(
            f"{r['game']:<30}{r['entries']:>8}{r['mid_kb']:>12.1f}{r['log']:>7}{r['state']:>7}"
            f"{r['other']:>7}{total:>7}{r['before_log']:>8}{r['kept_log']:>7}"
            f"{r['compact_ms']:>11.0f}{r['read_ms']:>8.0f}{r['read_before_ms']:>11.0f}"
            f"{r['view_ms']:>8.0f}"
        )
    print(f"\n{'the log, part by part':<30}" + "".join(f"{name:>14}" for name in PARTS))
    for r in rows:
        print(f"{r['game']:<30}" + "".join(f"{r['parts'][name]:>14}" for name in PARTS))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument(
        "--fields",
        type=int,
        metavar="GAMES",
        help="instead: GAMES finished games of each game type, their compacted records' "
        "bytes field by field (HSTRLEN) and an active game's bytes halfway",
    )
    parser.add_argument(
        "--bots",
        default=",".join(FIELD_BOTS),
        help="with --fields: also one wargame played by each of these on both seats (bot "
        "levels or benchmarks/baselines.py's; comma-separated, empty for none)",
    )
    args = parser.parse_args()
    if args.fields:
        players = tuple(name for name in args.bots.split(",") if name)
        return _fields_only(field_plans(args.fields, players))
    Connection.send_packed_command = _counting_send  # type: ignore[method-assign]  # counts round trips
    tmp = Path(tempfile.mkdtemp(prefix="kur-fp-"))
    servers = [RedisServer(tmp / name, EPHEMERAL_FLAGS) for name in ("state", "queues")]
    for server in servers:
        server.start()
    try:
        results = {}
        for layout, queues in (("colocated", None), ("queues-apart", servers[1].url)):
            for server in servers:
                Store(server.url).raw.flushall()
            store = Store(servers[0].url, queues)
            results[layout] = measure(store, args.games, args.seconds / 2)
            store.close()
        base = results["colocated"]
        nodes = Store(servers[0].url).raw.config_get(NODE_BYTES)[NODE_BYTES]
        print(f"log stream nodes of {nodes} bytes (Redis's default: {REDIS_DEFAULT_NODE_BYTES})")
        print(f"{'layout':<14}{'games':>6}{'changes':>8}{'KB life':>9}{'at 4 KB nodes':>14}"
              f"{'KB end':>8}{'KB compact':>11}{'cmds/chg':>9}{'trips/chg':>10}")  # fmt: skip
        for layout, r in results.items():
            print(
                f"{layout:<14}{r['games']:>6.0f}{r['changes']:>8.0f}{r['life_kb']:>9.1f}"
                f"{r['life_default_kb']:>14.1f}"
                f"{r['finished_kb']:>8.1f}{r['compacted_kb']:>11.1f}{r['commands']:>9.1f}"
                f"{r['round_trips']:>10.1f}"
                + ("" if r is base else f"   x{r['commands'] / base['commands']:.2f} commands")
            )
    finally:
        for server in servers:
            server.stop()
    return 0


def _fields_only(plans: list[tuple[str, int, str, int]]) -> int:
    server = RedisServer(Path(tempfile.mkdtemp(prefix="kur-fp-")), EPHEMERAL_FLAGS)
    server.start()
    try:
        store = Store(server.url)
        print_fields(finished_fields(store, plans))
        store.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
