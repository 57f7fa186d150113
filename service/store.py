"""Everything the service keeps in Redis, and the one place where a game changes.

Data model (key names in service/keys.py; every key of one game shares the ``{<game id>}``
hash tag; what the bytes mean is in service/record.py):

- ``kurier:game:{g}`` hash: the game record; ``state``, ``seed``, ``sealed`` and ``invite``
  are secret and never leave this module unredacted.
- ``kurier:game:{g}:events`` stream: one entry per version, ID ``<version>-0``: one field ``z``,
  the entry compressed with the record's ``log_codec`` (service/eventlog.py), or for games
  without a codec the fields themselves (kind, seat, action, ref, commitment, events, at).
- ``kurier:game:{g}:idem:<player>:<sha256(key)>`` string: a replayable response, 24 h
  (compressed with the game's codec, behind the ``z:`` prefix).
- ``kurier:player:{p}`` hash, ``kurier:player:{p}:games`` sorted set (score: creation order).
- ``kurier:auth:token:<sha256(token)>`` hash: the player a bearer token stands for.
- ``kurier:owed`` sorted set and ``kurier:owed:jobs`` hash: the jobs owed (resolutions,
  notifications, deadlines), written in the commit that makes them due (service/owed.py).

``Store.transact`` is the only writer of game keys: WATCH the game (and idempotency key),
read, compute the change in Python, then write record, event, idempotency record and owed jobs
(service/owed.py; the caller's ``followups`` add notification and deadline jobs) in one
MULTI/EXEC. A concurrent writer makes EXEC fail and we start over from a fresh read, so no two
changes ever apply to the same version and nothing half-written is ever visible.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import redis

from service import liveness, owed
from service.keys import (
    events_key,
    game_key,
    idem_key,
    player_games_key,
    player_key,
    token_key,
)
from service.problems import Problem, game_not_found
from service.queues import DEFAULT_QUEUE, RESOLVE_JOB, WEBHOOK_QUEUE, resolve_job_id
from service.record import (
    Change,
    GameRecord,
    Idempotency,
    Mutation,
    Outcome,
    as_text,
    pack_entry,
    pack_saved,
    unpack_entry,
    unpack_saved,
)

IDEMPOTENCY_TTL = 86_400
#: A busy game rarely sees more than a couple of EXEC conflicts in a row.
MAX_TRIES = 8
TOKEN_PREFIX = "kur_pat_"
SCOPES = "game:read game:play"
TOKEN_CACHE_SECONDS = 60.0
MAX_INDEX = 1000  # games scanned per listing or inbox: bounded work per request

#: Plans what a change brings along (notification and deadline jobs) from the pending decisions
#: before it, the change and its version; returns what writes them into the transaction's
#: pipeline. Passed in by the caller (service/games.py gives service/notifications.followups),
#: so the store knows nothing of notifications.
Followups = Callable[[list[dict[str, Any]], Change, int], Callable[[Any], None]]


def _no_followups(_before: list[dict[str, Any]], _change: Change, _version: int) -> Any:
    return lambda _pipe: None


class TokenCache:
    """Token hash -> player id, remembered for ``TOKEN_CACHE_SECONDS`` per process.

    Saves a Redis round trip on every authenticated request. The mapping never changes while a
    token exists (tokens are not revoked yet); when revocation comes, this bounds how long a
    revoked token still works in a process that saw it.
    """

    def __init__(self, seconds: float = TOKEN_CACHE_SECONDS, size: int = 10_000) -> None:
        self.seconds = seconds
        self.size = size
        self._entries: dict[str, tuple[str, float]] = {}

    def get(self, key: str) -> str | None:
        entry = self._entries.get(key)
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    def put(self, key: str, player_id: str) -> None:
        if len(self._entries) >= self.size:
            self._entries.clear()  # rare: a burst of distinct tokens; refilled on demand
        self._entries[key] = (player_id, time.monotonic() + self.seconds)


# -- the store ----------------------------------------------------------------------------------


class Store:
    """Redis access for the API and the workers. Clients are made lazily, after any fork."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._clients: dict[str, Any] = {}
        self._token_players = TokenCache()

    @classmethod
    def from_env(cls) -> Store:
        url = os.environ.get("REDIS_URL")
        if not url:
            raise RuntimeError("REDIS_URL is not set")
        return cls(url)

    def _client(self, name: str, **kwargs: Any) -> Any:
        key = f"{name}:{os.getpid()}"
        if key not in self._clients:
            pool = redis.BlockingConnectionPool.from_url(self.url, max_connections=64, **kwargs)
            self._clients[key] = redis.Redis(connection_pool=pool)
        return self._clients[key]

    @property
    def r(self) -> redis.Redis:
        """Text client for reads and simple writes."""
        return self._client("app", decode_responses=True, socket_timeout=5)

    @property
    def raw(self) -> redis.Redis:
        """Bytes client: rq needs it, so game transactions (which enqueue jobs) use it too."""
        return self._client("raw", socket_timeout=10)

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()

    # -- the one writer ------------------------------------------------------------------------

    def transact(
        self,
        game_id: str,
        mutate: Mutation,
        idem: Idempotency | None = None,
        followups: Followups = _no_followups,
    ) -> Outcome:
        """Apply ``mutate`` to the current record atomically (see the module docstring).

        ``mutate(record, next_version)`` must not touch Redis; it raises ``Problem`` to refuse,
        which leaves everything unchanged. ``followups`` plans the jobs that join the same EXEC.
        """
        gkey = game_key(game_id)
        ikey = idem_key(game_id, idem.player_id, idem.key) if idem else None
        for _ in range(MAX_TRIES):
            with self.raw.pipeline() as pipe:
                try:
                    pipe.watch(*[k for k in (gkey, ikey) if k])
                    raw = pipe.hgetall(gkey)
                    # Read the idempotency record after the game: both are written in one
                    # EXEC, so a request that sees the game after the first one's move also
                    # sees its record and replays it, instead of judging the move again
                    # against the state it itself produced (a spurious 409/422).
                    if ikey and idem:
                        cached = pipe.get(ikey)
                        if cached is not None:
                            return self._replay(cached, idem, as_text(raw.get(b"log_codec")))
                    record = GameRecord.from_hash(game_id, raw) if raw else None
                    version = record.version + 1 if record else 1
                    before = list(record.pending) if record else []
                    change = mutate(record, version)
                    # Notification and deadline jobs join the same EXEC.
                    write_followups = followups(before, change, version)
                    pipe.multi()
                    self._write(pipe, change, version)
                    write_followups(pipe)
                    if ikey and idem:
                        saved = {
                            "fp": idem.fingerprint,
                            "status": change.status,
                            "body": change.body,
                        }
                        pipe.set(
                            ikey,
                            pack_saved(change.record.log_codec, saved),
                            ex=IDEMPOTENCY_TTL,
                            nx=True,
                        )
                    pipe.execute()
                    return Outcome(change.status, change.body)
                except redis.WatchError:
                    continue  # someone else committed first: start over from a fresh read
        raise Problem(
            409, "concurrent-update", "the game kept changing under this request; retry it"
        )

    @staticmethod
    def _replay(cached: bytes, idem: Idempotency, codec: str) -> Outcome:
        saved = unpack_saved(codec, cached)
        if saved["fp"] != idem.fingerprint:
            raise Problem(
                422,
                "idempotency-key-reused",
                "this Idempotency-Key was already used with a different request body",
            )
        return Outcome(saved["status"], saved["body"], replayed=True)

    def _write(self, pipe: Any, change: Change, version: int) -> None:
        record = change.record
        record.version = version
        record.updated_at = time.time()
        gid = record.id
        pipe.hset(game_key(gid), mapping=record.to_hash())
        entry: dict[str, Any] = {
            "kind": change.entry_kind,
            "seat": "" if change.seat is None else str(change.seat),
            "action": change.action,
            "ref": change.ref,
            "commitment": change.commitment,
            "events": change.events,
            "at": repr(record.updated_at),
        }
        # The explicit ID is a second guard: XADD at or below the top ID fails the EXEC.
        pipe.xadd(events_key(gid), pack_entry(record.log_codec, entry), id=f"{version}-0")
        for player_id in change.index_players:
            pipe.zadd(player_games_key(player_id), {gid: record.seq})
        # A resolution is settled by the commit that applies it: no window in which it is
        # done but still owed.
        for ref in change.resolve_remove:
            owed.settle(pipe, resolve_job_id(gid, ref))
        for ref in change.resolve_add:
            owed.owe(pipe, resolve_job(gid, ref), self.raw)

    # -- players and tokens ----------------------------------------------------------------------

    def create_player(self, name: str, email: str | None) -> tuple[dict[str, Any], str]:
        player_id = "p_" + secrets.token_hex(8)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        player = {"id": player_id, "name": name, "email": email or "", "created_at": time.time()}
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(player_key(player_id), mapping={k: str(v) for k, v in player.items()})
            # Only the token's hash is stored: a database leak yields no usable token.
            pipe.hset(token_key(token), mapping={"player": player_id, "scopes": SCOPES})
            pipe.execute()
        return self._player_out(player), token

    def player_for_token(self, token: str) -> dict[str, Any] | None:
        key = token_key(token)
        player_id = self._token_players.get(key)
        if player_id is None:
            player_id = self.r.hget(key, "player")
            if player_id:
                self._token_players.put(key, player_id)
        return self.get_player(player_id) if player_id else None

    def get_player(self, player_id: str) -> dict[str, Any] | None:
        raw = self.r.hgetall(player_key(player_id))
        return self._player_out(raw) if raw else None

    def update_player(self, player_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        if changes:
            values = {k: "" if v is None else str(v) for k, v in changes.items()}
            self.r.hset(player_key(player_id), mapping=values)
        player = self.get_player(player_id)
        assert player is not None
        return player

    @staticmethod
    def _player_out(raw: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "id": raw["id"],
            "name": raw["name"],
            "email": raw.get("email") or None,
            "created_at": float(raw["created_at"]),
        }

    # -- reading games -------------------------------------------------------------------------

    def get_game(self, game_id: str) -> GameRecord:
        raw = self.r.hgetall(game_key(game_id))
        if not raw:
            raise game_not_found(game_id)
        return GameRecord.from_hash(game_id, raw)

    def read_log(
        self, game_id: str, after: int = 0, count: int | None = None
    ) -> tuple[GameRecord, list[tuple[int, dict[str, str]]]]:
        """The record and stream entries after version ``after``, read in one MULTI so that
        the redaction (which depends on the record's unrevealed choices) matches the entries.
        Each entry's ``events`` is a list; its other fields are strings."""
        with self.raw.pipeline(transaction=True) as pipe:
            pipe.hgetall(game_key(game_id))
            pipe.xrange(events_key(game_id), min=f"({after}-0", max="+", count=count)
            raw, entries = pipe.execute()
        if not raw:
            raise game_not_found(game_id)
        record = GameRecord.from_hash(game_id, raw)
        out = [
            (int(entry_id.split(b"-")[0]), unpack_entry(record.log_codec, fields))
            for entry_id, fields in entries
        ]
        return record, out

    def player_game_ids(self, player_id: str, after_seq: int | None) -> list[tuple[str, int]]:
        low = f"({after_seq}" if after_seq is not None else "-inf"
        rows = self.r.zrange(
            player_games_key(player_id),
            low,
            "+inf",
            byscore=True,
            withscores=True,
            offset=0,
            num=MAX_INDEX,
        )
        return [(gid, int(score)) for gid, score in rows]

    def game_summaries(self, game_ids: Iterable[str]) -> list[dict[str, Any] | None]:
        fields = (
            "type",
            "status",
            "version",
            "seats",
            "names",
            "pending",
            "max_seats",
            "updated_at",
            "created_at",
            "creator",
        )
        with self.r.pipeline(transaction=False) as pipe:
            for gid in game_ids:
                pipe.hmget(game_key(gid), fields)
            rows = pipe.execute()
        out: list[dict[str, Any] | None] = []
        for gid, row in zip(game_ids, rows, strict=True):
            if row[0] is None:
                out.append(None)
                continue
            item = dict(zip(fields, row, strict=True))
            for name in ("seats", "names", "pending"):
                item[name] = json.loads(item[name])
            item["id"] = gid
            out.append(item)
        return out

    def pending_resolutions(self, older_than: float = 0.0) -> list[tuple[str, str]]:
        """(game, ref) of the resolutions owed for at least ``older_than`` seconds."""
        jobs = owed.owed_jobs(self.raw, RESOLVE_JOB, time.time() - older_than)
        return [(job.args[0], job.args[1]) for job in jobs]

    def health(self) -> dict[str, Any]:
        """Redis reachable, and the workers alive now by queue role (live heartbeats only)."""
        redis_ok = False
        live: list[liveness.LiveWorker] = []
        try:
            redis_ok = bool(self.r.ping())
            live = liveness.live_workers(self.r)
        except redis.RedisError:
            pass
        game = sum(DEFAULT_QUEUE in w.queues for w in live)
        webhook = sum(WEBHOOK_QUEUE in w.queues for w in live)
        return {"redis": redis_ok, "game_workers": game, "webhook_workers": webhook}


def resolve_job(game_id: str, ref: str) -> owed.OwedJob:
    return owed.OwedJob(
        id=resolve_job_id(game_id, ref),
        func=RESOLVE_JOB,
        args=(game_id, ref),
        queue=DEFAULT_QUEUE,
        timeout=60,
        # The game's log records the resolution; a result kept by rq would cost more Redis
        # memory than the whole game (a few KB for an hour; docs/performance.md).
        result_ttl=0,
        failure_ttl=7 * 86_400,
        # A failed run (e.g. rules not deployed yet) is retried; a lost one is swept.
        retry=(2, 10, 30, 120, 600),
        description=f"resolve {ref} of game {game_id}",
    )
