"""Everything the service keeps in Redis, and the one place where a game changes.

Data model (key names in service/store/keys.py; every key of one game shares the ``{<game id>}``
hash tag; what the bytes mean is in service/store/record.py):

- ``kurier:game:{g}`` hash: the game record; ``state``, ``seed``, ``sealed`` and ``invite``
  are secret and never leave this module unredacted.
- ``kurier:game:{g}:events`` stream: one entry per version, ID ``<version>-0``: one field ``z``,
  the entry compressed with the record's ``log_codec`` (service/store/eventlog.py), or for games
  without a codec the fields themselves (kind, seat, action, ref, commitment, events, at).
- ``kurier:game:{g}:idem:<player>:<sha256(key)>`` string: a replayable response, 24 h
  (compressed with the game's codec, behind the ``z:`` prefix).
- ``kurier:player:{p}`` hash, ``kurier:player:{p}:games`` sorted set (score: creation order).
- ``kurier:auth:token:<sha256(token)>`` hash: the player a bearer token stands for.
- ``kurier:game:{g}:outbox`` stream and ``kurier:outbox:dirty:{n}`` sorted sets: what commits
  still owe other slots and the queue Redis (service/store/outbox.py; not used when colocated).
- On the queue Redis (the same one unless ``KURIER_QUEUE_URL`` says otherwise): rq's keys,
  ``kurier:owed`` sorted set and ``kurier:owed:jobs`` hash: the jobs owed (resolutions,
  notifications, deadlines), written with the commit that makes them due (service/store/owed.py);
  ``kurier:alive:*`` heartbeats; ``kurier:outbox:relayed:<g>``.

``Store.transact`` is the only writer of game keys: one pipelined read of the record and the
idempotency record, the change computed in Python, then one server-side script (the commit,
service/store/writes.py) that compares the version and writes record, log entry, idempotency record
and what the commit brings along, or nothing. A concurrent writer moves the version and we start
over from a fresh read, so no two changes ever apply to the same version and nothing
half-written is ever visible.

What a commit brings along (owed jobs and rq's entries: service/store/owed.py; players' game lists)
is recorded, not sent (service/store/writes.py). When the game store and the queues are one Redis
(``colocated``) it runs inside the commit script. Otherwise (a Redis Cluster, or the queues on
``KURIER_QUEUE_URL``) it goes into the game's outbox in the same script and is relayed right
after (service/store/outbox.py): at least once, applied once, swept if the writer dies.

Two round trips per change (read, commit), three or four with an outbox.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import redis
from redis.exceptions import RedisClusterException

from service.common.lru import Lru
from service.common.problems import Problem, game_not_found
from service.store import liveness, outbox, owed, redis_urls
from service.store.keys import (
    OPEN_GAMES,
    email_key,
    events_key,
    game_key,
    hidden_messages_key,
    idem_key,
    message_rate_key,
    messages_key,
    outbox_key,
    player_games_key,
    player_key,
    player_tokens_key,
    token_key,
)
from service.store.outbox import MARK_LIFETIME, Entry, Relay
from service.store.queues import (
    COMPACT_JOB,
    DEFAULT_QUEUE,
    NOTIFY_QUEUE,
    RATE_JOB,
    RESOLVE_JOB,
    WEBHOOK_QUEUE,
    compact_job_id,
    rate_job_id,
    resolve_job_id,
)
from service.store.record import (
    PACKED_LOG,
    Change,
    Entries,
    GameRecord,
    Idempotency,
    LogStep,
    Mutation,
    Outcome,
    as_text,
    pack_entry,
    pack_log,
    pack_saved,
    unpack_entry,
    unpack_log,
    unpack_saved,
)
from service.store.writes import (
    COMMIT_LUA,
    COMMITTED,
    COMPACT_LUA,
    READ_LOG_LUA,
    REPLAY,
    Command,
    Writes,
    commands_of,
    flatten,
    words,
)

log = logging.getLogger("kurier.store")

IDEMPOTENCY_TTL = 86_400
DEFAULT_WAIT_MS = 1000
#: A busy game rarely sees more than a couple of EXEC conflicts in a row.
MAX_TRIES = 8
TOKEN_PREFIX = "kur_pat_"
SCOPES = "game:read game:play"
#: A revoked token may still work this long in a process that saw it just before.
TOKEN_CACHE_SECONDS = 10.0
#: How long a process remembers whose a token was as a guess that the next request checks in
#: the same round trip as its other reads (``checked_token_player``): a guess trusts nothing.
TOKEN_GUESS_SECONDS = 600.0
MAX_INDEX = 1000  # games scanned per listing or inbox: bounded work per request
#: Redis failing, on one server or a cluster (redis-py's cluster errors are not RedisErrors).
REDIS_FAILED = (redis.RedisError, RedisClusterException)
#: Socket timeout of the blocking client: longer than the longest block (a stream's heartbeat).
BLOCKING_TIMEOUT = 90.0
#: Open streams per stream-server process (KURIER_STREAM_CONNECTIONS): Redis connections.
STREAM_CONNECTIONS = 1000
#: In a cluster, how often a player's stream looks for news in its games (no multi-slot XREAD).
CLUSTER_POLL_SECONDS = 1.0
#: The fields of a player's record that decide whether a notice goes out to them
#: (service/domain/notifications.py, service/domain/prefs.py).
NOTICE_FIELDS = ("email", "webhook_url", "webhook_disabled", "notify")
#: Games whose seats a process remembers, so that a move's first round trip also reads the
#: seated players' NOTICE_FIELDS (``checked_token_player``).
SEATS_REMEMBERED = 10_000

#: Plans what a change brings along (notification and deadline jobs) from the pending decisions
#: before it, the change and its version; returns what writes them into the transaction's
#: pipeline. Passed in by the caller (service/domain/games.py gives
#: service/domain/notifications.followups), so the store knows nothing of notifications.
Followups = Callable[[list[dict[str, Any]], Change, int], Callable[[Any], None]]


def _no_followups(_before: list[dict[str, Any]], _change: Change, _version: int) -> Any:
    return lambda _pipe: None


class TokenCache:
    """Token hash -> player id, remembered for ``TOKEN_CACHE_SECONDS`` per process.

    Saves a Redis round trip on every authenticated request. A revoked token is forgotten at
    once by the process that revoked it; other processes may still accept it for up to
    ``TOKEN_CACHE_SECONDS``.
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

    def forget(self, key: str) -> None:
        self._entries.pop(key, None)

    def put(self, key: str, player_id: str) -> None:
        if len(self._entries) >= self.size:
            self._entries.clear()  # rare: a burst of distinct tokens; refilled on demand
        self._entries[key] = (player_id, time.monotonic() + self.seconds)


# -- the store ----------------------------------------------------------------------------------


class Store:
    """Redis access for the API and the workers. Clients are made lazily, after any fork.

    ``url`` is the game store (one Redis, a Sentinel-managed primary or a Redis Cluster:
    service/store/redis_urls.py); ``queue_url`` the Redis of the job queues and owed jobs (default:
    the game store, which must then not be a cluster). ``colocated``: both are one Redis, so a
    commit and the jobs it makes due are one script; otherwise they meet through the game's
    outbox (service/store/outbox.py).
    """

    def __init__(
        self, url: str, queue_url: str | None = None, wait_replicas: int | None = None
    ) -> None:
        self.url = url
        self.queue_url = queue_url or redis_urls.queue_url({"REDIS_URL": url})
        self.mode = _mode(url)
        self.colocated = self.queue_url == url and self.mode != "cluster"
        #: Wait for this many replicas to acknowledge a commit before answering (0: don't), at
        #: most ``wait_ms`` (KURIER_WAIT_REPLICAS, KURIER_WAIT_MS).
        if wait_replicas is None:
            wait_replicas = int(os.environ.get("KURIER_WAIT_REPLICAS") or 0)
        self.wait_replicas = wait_replicas
        self.wait_ms = int(os.environ.get("KURIER_WAIT_MS") or DEFAULT_WAIT_MS)
        self._clients: dict[str, Any] = {}
        self._clients_lock = threading.RLock()  # loaded_script makes a client inside it
        self._token_players = TokenCache()
        self._token_guesses = TokenCache(TOKEN_GUESS_SECONDS)
        self._seats: Lru[tuple[str, ...]] = Lru(SEATS_REMEMBERED)
        #: A transaction's first read made early, per thread (``checked_token_player``).
        self._early = threading.local()

    @classmethod
    def from_env(cls) -> Store:
        url = os.environ.get("REDIS_URL")
        if not url:
            raise RuntimeError("REDIS_URL is not set")
        return cls(url, redis_urls.queue_url(os.environ))

    def _client(
        self, name: str, url: str, decode: bool, timeout: float, connections: int = 64
    ) -> Any:
        key = f"{name}:{os.getpid()}"
        if key not in self._clients:
            # Once per process: without the lock, the first requests of a stream server (its
            # streams arrive together, each a greenlet) each built a pool of a thousand slots,
            # most thrown away (seen as half a core for seconds after 1,000 streams opened).
            with self._clients_lock:
                if key not in self._clients:
                    self._clients[key] = _connect(url, decode, timeout, connections)
        return self._clients[key]

    @property
    def r(self) -> Any:
        """Text client of the game store (a cluster client in cluster mode)."""
        return self._client("app", self.url, decode=True, timeout=5)

    @property
    def raw(self) -> Any:
        """Bytes client of the game store: game records and logs are bytes."""
        return self._client("raw", self.url, decode=False, timeout=10)

    @property
    def blocking(self) -> Any:
        """Bytes client for blocking reads (``XREAD BLOCK``, the stream server): its socket
        timeout outlasts any block, and its pool holds one connection per waiting stream."""
        connections = int(os.environ.get("KURIER_STREAM_CONNECTIONS") or STREAM_CONNECTIONS)
        return self._client(
            "blocking", self.url, decode=False, timeout=BLOCKING_TIMEOUT, connections=connections
        )

    @property
    def queue_r(self) -> redis.Redis:
        """Text client of the queue Redis (owed jobs, liveness)."""
        if self.colocated:
            return self.r  # type: ignore[no-any-return]
        return self._client("queue", self.queue_url, decode=True, timeout=5)  # type: ignore[no-any-return]

    @property
    def queue_raw(self) -> redis.Redis:
        """Bytes client of the queue Redis: rq's connection."""
        if self.colocated:
            return self.raw  # type: ignore[no-any-return]
        return self._client("queue_raw", self.queue_url, decode=False, timeout=10)  # type: ignore[no-any-return]

    def _script(self, name: str, client: Any, lua: str) -> Any:
        key = f"script:{name}:{os.getpid()}"
        if key not in self._clients:
            self._clients[key] = client.register_script(lua)
        return self._clients[key]

    def loaded_script(self, name: str, lua: str) -> str:
        """The SHA of ``lua``, loaded into the game store once per process, for callers that
        send EVALSHA in their own pipelines (the rate limiter's, a stream's wait). Redis
        forgets scripts when it restarts: such a caller loads it again on NOSCRIPT."""
        key = f"sha:{name}:{os.getpid()}"
        if key not in self._clients:
            with self._clients_lock:
                if key not in self._clients:
                    self._clients[key] = as_text(self.raw.script_load(lua))
        return self._clients[key]  # type: ignore[no-any-return]

    @property
    def relay(self) -> Relay:
        key = f"relay:{os.getpid()}"
        if key not in self._clients:
            self._clients[key] = Relay(self.raw, self.queue_raw)
        return self._clients[key]  # type: ignore[no-any-return]

    def close(self) -> None:
        for client in self._clients.values():
            if hasattr(client, "close"):
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
        which leaves everything unchanged. ``followups`` plans the jobs the commit brings along.
        """
        ikey = idem_key(game_id, idem.player_id, idem.key) if idem else None
        # The first try may use the read made in the request's first round trip (the rate
        # limiter's, ``checked_token_player``): the commit's compare-and-set judges any read.
        early = self._take_early_read(game_id, ikey)
        for _ in range(MAX_TRIES):
            raw, cached, marked = early or self._read(game_id, ikey)
            early = None
            # The idempotency record is read with the game: both are written by one script,
            # so a request that sees the game after the first one's move also sees its record
            # and replays it, instead of judging the move again against the state it itself
            # produced (a spurious 409/422).
            if cached is not None and idem:
                if self.wait_replicas and ikey:
                    self._confirm_replicated(game_id, ikey)
                return self._replay(cached, idem, as_text(raw.get(b"log_codec")))
            record = GameRecord.from_hash(game_id, raw) if raw else None
            version = record.version + 1 if record else 1
            before = list(record.pending) if record else []
            change = mutate(record, version)
            writes = Writes()
            last = version + len(change.earlier)  # the new version (``Change.earlier``)
            followups(before, change, last)(writes)
            self._bring_along(writes, change)
            if marked is not None and time.monotonic() - marked[1] > MARK_LIFETIME:
                continue  # too slow since the mark: mark again (service/store/outbox.py)
            status, detail = self._commit(change, version, ikey, idem, writes)
            if status == REPLAY and idem and ikey:
                if self.wait_replicas:
                    self._confirm_replicated(game_id, ikey)
                return self._replay(detail, idem, change.record.log_codec)
            if status != COMMITTED:
                continue  # someone else committed first: start over from a fresh read
            if marked is not None:
                entry = Entry(last, commands_of(writes.queue), self._elsewhere(writes))
                self._relay_now(game_id, entry, int(detail), marked[0])
            self._seats.put(game_id, tuple(change.record.seats))
            return Outcome(change.status, change.body)
        raise Problem(
            409, "concurrent-update", "the game kept changing under this request; retry it"
        )

    def _relay_now(self, game_id: str, entry: Entry, pending: int, marked: int) -> None:
        """The change is committed whatever happens here: if the queue Redis (or another slot)
        cannot be reached now, the sweep relays the entry later (service/store/outbox.py), and the
        caller is still told the change was made."""
        try:
            self.relay.after_commit(game_id, entry, pending, marked)
        except REDIS_FAILED as error:
            log.warning("outbox of game %s left to the sweep: %s", game_id, error)

    def _read(
        self, game_id: str, ikey: str | None
    ) -> tuple[dict[bytes, bytes], bytes | None, tuple[int, float] | None]:
        """The record, the idempotency record, and (outbox in use) the mark set before them."""
        with self.raw.pipeline(transaction=False) as pipe:
            marked = None
            if not self.colocated:
                marked = (outbox.mark(pipe, game_id), time.monotonic())
            self._queue_read(pipe, game_id, ikey)
            found = pipe.execute()
        found = found[1:] if marked else found
        return found[0], (found[1] if ikey else None), marked

    @staticmethod
    def _queue_read(pipe: Any, game_id: str, ikey: str | None) -> None:
        pipe.hgetall(game_key(game_id))
        if ikey:
            pipe.get(ikey)

    def _bring_along(self, writes: Writes, change: Change) -> None:
        """The change's own cross-key writes: players' game lists, resolutions owed/settled."""
        gid = change.record.id
        for player_id in change.index_players:
            writes.others.zadd(player_games_key(player_id), {gid: change.record.seq})
        # A resolution is settled by the commit that applies it.
        for ref in change.resolve_remove:
            owed.settle(writes.queue, resolve_job_id(gid, ref))
        for ref in change.resolve_add:
            owed.owe(writes.queue, resolve_job(gid, ref), self.queue_raw)
        if change.record.status == "finished":
            owed.owe(writes.queue, compact_job(gid), self.queue_raw)
            owed.owe(writes.queue, rate_job(gid), self.queue_raw)
        self._list_if_open(writes, change.record)

    @staticmethod
    def _list_if_open(writes: Writes, record: GameRecord) -> None:
        """The lobby's index: an open-access game is listed while it has a free seat."""
        if record.settings.get("access") != "open":
            return
        if record.status == "open" and len(record.seats) < record.max_seats:
            writes.others.zadd(OPEN_GAMES, {record.id: record.seq})
        else:
            writes.others.zrem(OPEN_GAMES, record.id)

    def _elsewhere(self, writes: Writes) -> list[Command]:
        """Commands for other slots of the store: in the commit unless the store is a cluster."""
        return commands_of(writes.others) if self.mode == "cluster" else []

    def _commit(
        self,
        change: Change,
        version: int,
        ikey: str | None,
        idem: Idempotency | None,
        writes: Writes,
    ) -> tuple[int, Any]:
        record = change.record
        expected = version - 1  # 0: no record yet
        record.updated_at = time.time()
        gid = record.id
        at = repr(record.updated_at)
        steps = [*change.earlier, LogStep(*_step_fields(change))]
        # One entry per step, the last at the new version (``Change.earlier``).
        last = version + len(change.earlier)
        record.version = last
        saved = b""
        if ikey and idem:
            body = {"fp": idem.fingerprint, "status": change.status, "body": change.body}
            saved = _as_bytes(pack_saved(record.log_codec, body))
        inline = commands_of(writes.others) if self.mode != "cluster" else []
        outbox_fields: list[Any] = []
        if self.colocated:
            inline += commands_of(writes.queue)
        else:
            queued = commands_of(writes.queue)
            elsewhere = self._elsewhere(writes)
            if queued or elsewhere:
                outbox_fields = words(Entry(last, queued, elsewhere).fields())
        fields = words(record.changed_hash())
        logs: list[Any] = [len(steps)]
        for step in steps:
            log_fields = words(pack_entry(record.log_codec, _entry(step, at)))
            logs += [len(log_fields), *log_fields]
        args = [
            expected,
            last,
            saved,
            IDEMPOTENCY_TTL,
            len(fields),
            *fields,
            *logs,
            len(outbox_fields),
            *outbox_fields,
            *flatten(inline),
        ]
        keys = [game_key(gid), events_key(gid), ikey or game_key(gid), outbox_key(gid)]
        script = self._script("commit", self.raw, COMMIT_LUA)
        if not self.wait_replicas:
            status, detail = script(keys=keys, args=args)
            return int(status), detail
        return self._commit_and_wait(script, keys, args)

    def _commit_and_wait(self, script: Any, keys: list[str], args: list[Any]) -> tuple[int, Any]:
        """Commit, then WAIT on the same connection until the replicas have it (or refuse)."""
        with self._node_of(keys[0]).pipeline(transaction=False) as pipe:
            script(keys=keys, args=args, client=pipe)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_ms)
            (status, detail), acknowledged = pipe.execute()
        if int(status) == COMMITTED:
            self._replicated_or_refuse(int(acknowledged))
        return int(status), detail

    def _confirm_replicated(self, game_id: str, ikey: str) -> None:
        """Before replaying an answer, make sure its change reached the replicas: WAIT covers
        only a connection's own writes, so write something after it (the idempotency record's
        TTL, renewed) and wait for that; replication keeps order."""
        with self._node_of(game_key(game_id)).pipeline(transaction=False) as pipe:
            pipe.expire(ikey, IDEMPOTENCY_TTL)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_ms)
            _renewed, acknowledged = pipe.execute()
        self._replicated_or_refuse(int(acknowledged))

    def _node_of(self, key: str) -> Any:
        """A client whose pipeline talks to the server holding ``key`` (one connection)."""
        if self.mode != "cluster":
            return self.raw
        return self.raw.get_redis_connection(self.raw.get_node_from_key(key))

    def _replicated_or_refuse(self, acknowledged: int) -> None:
        if acknowledged < self.wait_replicas:
            raise Problem(
                503,
                "not-replicated",
                f"the change was made but not confirmed by {self.wait_replicas} replica(s) "
                f"within {self.wait_ms} ms, so it could be lost in a failover; retry with the "
                "same Idempotency-Key to learn whether it stands",
                headers={"Retry-After": "1"},
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

    # -- players and tokens ----------------------------------------------------------------------

    def create_player(self, name: str, email: str | None) -> tuple[dict[str, Any], str]:
        player_id = "p_" + secrets.token_hex(8)
        player = {"id": player_id, "name": name, "email": email or "", "created_at": time.time()}
        # Several slots of a cluster, so several writes: the player first, then the token that
        # names it (a crash in between leaves a player nobody can act as, never a token to
        # nobody).
        self.r.hset(player_key(player_id), mapping={k: str(v) for k, v in player.items()})
        if email:
            self.r.sadd(email_key(email), player_id)
        token = self.create_token(player_id, "first token")["token"]
        return self._player_out(player), token

    def create_token(self, player_id: str, name: str) -> dict[str, Any]:
        """A new bearer token for ``player_id``; the token itself is in the answer only."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token_id = "t_" + secrets.token_hex(6)
        listed = {"id": token_id, "name": name, "created_at": time.time()}
        # Listed before it works: a token never exists that its player cannot see and revoke.
        self.r.hset(
            player_tokens_key(player_id),
            token_id,
            json.dumps({**listed, "key": token_key(token)}),
        )
        # Only the token's hash is stored: a database leak yields no usable token.
        self.r.hset(token_key(token), mapping={"player": player_id, "scopes": SCOPES})
        return {**listed, "token": token}

    def list_tokens(self, player_id: str) -> list[dict[str, Any]]:
        stored = [json.loads(v) for v in self.r.hvals(player_tokens_key(player_id))]
        return sorted(
            ({k: v for k, v in t.items() if k != "key"} for t in stored),
            key=lambda t: t["created_at"],
        )

    def revoke_token(self, player_id: str, token_id: str) -> bool:
        """Delete a token of ``player_id`` (False if it has none by that id)."""
        stored = self.r.hget(player_tokens_key(player_id), token_id)
        if stored is None:
            return False
        key = json.loads(stored)["key"]
        self.r.delete(key)  # it stops working first, then it leaves the list
        self.r.hdel(player_tokens_key(player_id), token_id)
        self._token_players.forget(key)
        self._token_guesses.forget(key)
        return True

    def player_for_token(self, token: str) -> dict[str, Any] | None:
        key = token_key(token)
        player_id = self._token_players.get(key)
        if player_id is None:
            player_id = self.r.hget(key, "player")
            if player_id:
                self._token_players.put(key, player_id)
                self._token_guesses.put(key, player_id)
        return self.get_player(player_id) if player_id else None

    def known_token_player(self, token: str) -> str | None:
        """The player id this process saw for ``token`` in the last ``TOKEN_GUESS_SECONDS``
        (no Redis call): a guess that ``checked_token_player`` confirms."""
        return self._token_guesses.get(token_key(token))

    def checked_token_player(
        self,
        token: str,
        player_id: str,
        alongside: Callable[[Any], None],
        early: tuple[str, str | None] | None = None,
    ) -> tuple[list[Any], dict[str, str]]:
        """One round trip: ``alongside(pipe)``'s commands (the rate limiter's), the token's
        owner and ``player_id``'s whole hash. Their replies, and the hash if the token still
        belongs to ``player_id`` (else ``{}``, and the guess is forgotten): a revoked token
        is refused at its next request in every process, not ``TOKEN_CACHE_SECONDS`` later.

        ``early``: a game id and idempotency key whose transaction this request will make; its
        first read goes in the same round trip and is kept for it (``transact``)."""
        key = token_key(token)
        early = early if self.colocated else None
        # The players of the game as last seen here: the notices of the move need their fields.
        seated = (self._seats.get(early[0]) or ()) if early else ()
        with self.raw.pipeline(transaction=False) as pipe:
            alongside(pipe)
            pipe.hget(key, "player")
            pipe.hgetall(player_key(player_id))
            if early:
                self._queue_read(pipe, *early)
            _queue_notice_fields(pipe, seated)
            replies = pipe.execute(raise_on_error=False)
        read: list[Any] = []
        fields: list[Any] = []
        if early:
            reads = 2 if early[1] else 1
            cut = len(replies) - reads - len(seated)
            read, fields = replies[cut : cut + reads], replies[cut + reads :]
            replies = replies[:cut]
        *replies, owner, raw = replies
        if isinstance(owner, Exception) or isinstance(raw, Exception):
            raise owner if isinstance(owner, Exception) else raw
        if as_text(owner) != player_id or not raw:
            self._token_players.forget(key)
            self._token_guesses.forget(key)
            return replies, {}
        self._token_players.put(key, player_id)
        if early and not any(isinstance(reply, Exception) for reply in read):
            self._early.read = (*early, read[0], read[1] if early[1] else None)
        if not any(isinstance(reply, Exception) for reply in fields):
            self._early.notice_fields = dict(zip(seated, fields, strict=True))
        return replies, {as_text(k): as_text(v) for k, v in raw.items()}

    def forget_early_read(self) -> None:
        """Drop a read kept by ``checked_token_player`` that no transaction took (the request
        was refused first): the next request on this thread must not find it."""
        self._early.read = None
        self._early.notice_fields = None

    def _take_early_read(
        self, game_id: str, ikey: str | None
    ) -> tuple[dict[bytes, bytes], bytes | None, None] | None:
        kept = getattr(self._early, "read", None)
        self._early.read = None
        if kept is None or kept[:2] != (game_id, ikey):
            return None
        return kept[2], kept[3], None

    def notice_fields(self, player_ids: list[str]) -> list[dict[str, str | None]]:
        """Each player's NOTICE_FIELDS (None where unset): as read in this request's first
        round trip when it read them all (``checked_token_player``), else in one round trip
        now. Either way read during the request, as fresh as the move's own read."""
        kept = getattr(self._early, "notice_fields", None) or {}
        if all(player_id in kept for player_id in player_ids):
            rows = [kept[player_id] for player_id in player_ids]
        else:
            with self.raw.pipeline(transaction=False) as pipe:
                _queue_notice_fields(pipe, player_ids)
                rows = pipe.execute()
        return [
            {
                name: None if value is None else as_text(value)
                for name, value in zip(NOTICE_FIELDS, row, strict=True)
            }
            for row in rows
        ]

    def get_player(self, player_id: str) -> dict[str, Any] | None:
        raw = self.r.hgetall(player_key(player_id))
        return self._player_out(raw) if raw else None

    def players_with_email(self, email: str) -> list[dict[str, Any]]:
        """The players who gave ``email`` (an address may serve several players)."""
        ids = sorted(self.r.smembers(email_key(email)))
        found = [self.get_player(player_id) for player_id in ids]
        return [p for p in found if p and (p["email"] or "").lower() == email.strip().lower()]

    def player_hash(self, player_id: str) -> dict[str, str]:
        """The player's whole hash (record and preferences), read once."""
        return self.r.hgetall(player_key(player_id))  # type: ignore[no-any-return]

    def player_from_hash(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return self._player_out(raw)

    def update_player(self, player_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        if "email" in changes:
            old = self.r.hget(player_key(player_id), "email")
            if old:
                self.r.srem(email_key(old), player_id)
            if changes.get("email"):
                self.r.sadd(email_key(changes["email"]), player_id)
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
        self, game_id: str, after: int = 0, count: int | None = None, state: bool = True
    ) -> tuple[GameRecord, Entries]:
        """The record and log entries after version ``after``, read in one MULTI so that
        the redaction (which depends on the record's unrevealed choices) matches the entries.
        Each entry's ``events`` is a list; its other fields are strings. A compacted game's
        entries come from its record (``compact``), any later ones from the stream.
        ``state=False``: the record without its state (None), not decoded; what a redaction
        needs, for the events and the streams (each move wakes every stream of its game)."""
        with self.raw.pipeline(transaction=True) as pipe:
            pipe.hgetall(game_key(game_id))
            pipe.xrange(events_key(game_id), min=f"({after}-0", max="+", count=count)
            raw, entries = pipe.execute()
        return self._log_read(game_id, after, count, raw, entries, state)

    def watch_log(self, game_id: str) -> LogWatch:
        """A watch on the game's log: ``wait_read``, over a Redis connection of its own until
        ``close`` (the stream server's watcher of the game, service/domain/loghub.py)."""
        return LogWatch(self, game_id)

    def _log_read(
        self,
        game_id: str,
        after: int,
        count: int | None,
        raw: Any,
        entries: Any,
        state: bool,
    ) -> tuple[GameRecord, Entries]:
        if not raw:
            raise game_not_found(game_id)
        raw = _as_dict(raw)
        if not state:
            raw.pop(b"state", None)
        record = GameRecord.from_hash(game_id, raw)
        out = [
            (int(entry_id.split(b"-")[0]), unpack_entry(record.log_codec, _as_dict(fields)))
            for entry_id, fields in entries
        ]
        packed = raw.get(PACKED_LOG.encode())
        if packed:
            earlier = [e for e in unpack_log(record.log_codec, as_text(packed)) if e[0] > after]
            out = (earlier + out)[:count] if count is not None else earlier + out
        return record, out

    def log_tail(self, record: GameRecord, count: int) -> Entries:
        """The last ``count`` log entries up to ``record``'s version, oldest first."""
        found = self.raw.xrevrange(events_key(record.id), max="+", min="-", count=count)
        tail = [
            (int(entry_id.split(b"-")[0]), unpack_entry(record.log_codec, _as_dict(fields)))
            for entry_id, fields in reversed(found)
        ]
        if len(tail) < count:  # a compacted game: the rest is in its record
            packed = self.raw.hget(game_key(record.id), PACKED_LOG)
            if packed:
                earlier = unpack_log(record.log_codec, as_text(packed))
                tail = (earlier + tail)[-count:]
        return [(version, entry) for version, entry in tail if version <= record.version]

    def compact(self, game_id: str) -> bool:
        """Pack a finished game's log into its record and delete the stream: one value instead
        of a stream of entries (docs/operations.md, capacity). False if there was nothing to
        do (not finished, already compact) or the game changed meanwhile (do it again)."""
        record, entries = self.read_log(game_id)
        if record.status != "finished" or not self.raw.exists(events_key(game_id)):
            return False
        script = self._script("compact", self.raw, COMPACT_LUA)
        keys = [game_key(game_id), events_key(game_id)]
        done = script(keys=keys, args=[record.version, pack_log(record.log_codec, entries)])
        return bool(done)

    # -- waiting for news (the stream server, service/domain/streams.py)
    # --------------------------------

    def wait_log(self, game_id: str, after: int, block_ms: int) -> bool:
        """Block until the game's log holds an entry after version ``after`` (True), or
        ``block_ms`` passed (False). One key: a single-slot XREAD, fine in a cluster too. A
        compacted game has no stream: this waits the whole block (the caller checks first)."""
        found = self.blocking.xread({events_key(game_id): f"{after}-0"}, count=1, block=block_ms)
        return bool(found)

    def wait_streams(self, cursors: Mapping[str, str], block_ms: int) -> set[str]:
        """Block until any of these streams (key -> last ID seen) has a newer entry; returns
        the keys that have one (empty after ``block_ms``). One XREAD over all keys on one
        Redis; in a cluster the keys lie in many slots, which no single XREAD may span, so
        each is asked without blocking (one pipeline, split by node) every
        ``CLUSTER_POLL_SECONDS`` instead."""
        if not cursors:
            time.sleep(block_ms / 1000)
            return set()
        if self.mode != "cluster":
            found = self.blocking.xread(dict(cursors), count=1, block=block_ms)
            return {as_text(key) for key, _entries in _stream_replies(found)}
        with self.blocking.pipeline(transaction=False) as pipe:
            for key, last in cursors.items():
                pipe.xread({key: last}, count=1)
            replies = pipe.execute()
        moved = {key for key, reply in zip(cursors, replies, strict=True) if reply}
        if not moved:
            time.sleep(min(block_ms / 1000, CLUSTER_POLL_SECONDS))
        return moved

    def last_message_ids(self, game_ids: list[str]) -> list[str]:
        """The ID of each game's newest message ("0-0" for none): where news starts."""
        with self.blocking.pipeline(transaction=False) as pipe:
            for gid in game_ids:
                pipe.xrevrange(messages_key(gid), max="+", min="-", count=1)
            replies = pipe.execute()
        return [as_text(found[0][0]) if found else "0-0" for found in replies]

    # -- messages (beside the game's log: they change no version) ---------------------------------

    def add_message(self, game_id: str, fields: Mapping[str, str]) -> str:
        """Append a message to the game's message stream; returns its id."""
        return as_text(self.raw.xadd(messages_key(game_id), dict(fields)))

    def read_messages(
        self, game_id: str, after: str | None, count: int
    ) -> tuple[list[tuple[str, dict[str, str]]], set[str]]:
        """Messages after the id ``after`` (oldest first), and the ids of hidden ones."""
        low = f"({after}" if after else "-"
        with self.raw.pipeline(transaction=True) as pipe:  # one slot: the game's
            pipe.xrange(messages_key(game_id), min=low, max="+", count=count)
            pipe.smembers(hidden_messages_key(game_id))
            entries, hidden = pipe.execute()
        out = [
            (as_text(entry_id), {as_text(k): as_text(v) for k, v in _as_dict(fields).items()})
            for entry_id, fields in entries
        ]
        return out, {as_text(h) for h in hidden}

    def get_message(self, game_id: str, message_id: str) -> dict[str, str] | None:
        found = self.raw.xrange(messages_key(game_id), min=message_id, max=message_id)
        if not found:
            return None
        return {as_text(k): as_text(v) for k, v in _as_dict(found[0][1]).items()}

    def hide_message(self, game_id: str, message_id: str) -> None:
        self.raw.sadd(hidden_messages_key(game_id), message_id)

    def message_hidden(self, game_id: str, message_id: str) -> bool:
        return bool(self.raw.sismember(hidden_messages_key(game_id), message_id))

    def count_message(self, player_id: str, window: int, seconds: int) -> int:
        """One more message of ``player_id`` in rate window ``window``; returns the count."""
        key = message_rate_key(player_id, window)
        with self.r.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, seconds * 2)
            count, _ = pipe.execute()
        return int(count)

    def player_game_ids(self, player_id: str, after_seq: int | None) -> list[tuple[str, int]]:
        return self._index_page(player_games_key(player_id), after_seq)

    def open_game_ids(self, after_seq: int | None) -> list[tuple[str, int]]:
        """The lobby: open-access games with a free seat, in creation order."""
        return self._index_page(OPEN_GAMES, after_seq)

    def _index_page(self, key: str, after_seq: int | None) -> list[tuple[str, int]]:
        low = f"({after_seq}" if after_seq is not None else "-inf"
        rows = self.r.zrange(
            key,
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
            "deadline",
            "settings",
            "deadline_at",
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
            for name in ("seats", "names", "pending", "deadline", "settings"):
                item[name] = json.loads(item[name]) if item[name] else {}
            item["id"] = gid
            out.append(item)
        return out

    def pending_resolutions(self, older_than: float = 0.0) -> list[tuple[str, str]]:
        """(game, ref) of the resolutions owed for at least ``older_than`` seconds."""
        jobs = owed.owed_jobs(self.queue_raw, RESOLVE_JOB, time.time() - older_than)
        return [(job.args[0], job.args[1]) for job in jobs]

    def health(self) -> dict[str, Any]:
        """Redis reachable, and the workers alive now by queue role (live heartbeats only)."""
        redis_ok = False
        live: list[liveness.LiveWorker] = []
        try:
            redis_ok = bool(self.r.ping()) and bool(self.queue_r.ping())
            live = liveness.live_workers(self.queue_r)
        except redis.RedisError:
            pass
        game = sum(DEFAULT_QUEUE in w.queues for w in live)
        webhook = sum(WEBHOOK_QUEUE in w.queues for w in live)
        return {"redis": redis_ok, "game_workers": game, "webhook_workers": webhook}


class LogWatch:
    """One game's log, waited on and read over one Redis connection held until ``close``.

    ``wait_read`` is ``wait_log`` then ``read_log(game_id, after, count, state=False)`` in one
    round trip: Redis runs a connection's pipelined commands in order, so the read (a script:
    atomic like ``read_log``'s MULTI) runs the moment the blocking XREAD returns, with news or
    after ``block_ms``. The connection is held, not taken from the pool for each wait: a
    watcher wakes at every move of its game, and the pool's checkout and check-in (a lock, a
    queue, a poll of the socket) cost more of the stream server's CPU than the round trip
    itself (docs/performance.md, "Streams"). In a cluster (no pipeline across a blocking read
    there): the two calls, each on the pool.
    """

    def __init__(self, store: Store, game_id: str) -> None:
        self.store = store
        self.game_id = game_id
        self.keys = [game_key(game_id), events_key(game_id)]
        self._connection: Any = None

    def wait_read(self, after: int, block_ms: int, count: int) -> tuple[GameRecord, Entries]:
        store = self.store
        if store.mode == "cluster":
            store.wait_log(self.game_id, after, block_ms)
            return store.read_log(self.game_id, after, count, state=False)
        # EVALSHA itself, loaded once per process before the first wait (else every stream
        # waiting at the start would meet NOSCRIPT at its first wake).
        sha = store.loaded_script("read_log", READ_LOG_LUA)
        if self._connection is None:
            self._connection = store.blocking.connection_pool.get_connection()
        connection = self._connection
        wait = ("XREAD", "COUNT", 1, "BLOCK", block_ms, "STREAMS", self.keys[1], f"{after}-0")
        read = ("EVALSHA", sha, 2, *self.keys, f"({after}-0", count)
        try:
            connection.send_packed_command(connection.pack_commands([wait, read]))
            connection.read_response()  # news or none: the read below answers either way
            try:
                raw, entries = connection.read_response()
            except redis.exceptions.NoScriptError:  # a restarted Redis: load it
                store.raw.script_load(READ_LOG_LUA)
                return store.read_log(self.game_id, after, count, state=False)
        except BaseException:
            # A reply may be left unread (an error, a timeout, the greenlet killed): the next
            # wait starts on a fresh socket, not in the middle of this one's answers.
            connection.disconnect()
            raise
        return store._log_read(self.game_id, after, count, raw, entries, state=False)

    def __enter__(self) -> LogWatch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Give the connection back to the pool (a later wait takes one again)."""
        if self._connection is not None:
            self.store.blocking.connection_pool.release(self._connection)
            self._connection = None


def _queue_notice_fields(pipe: Any, player_ids: Iterable[str]) -> None:
    for player_id in player_ids:
        pipe.hmget(player_key(player_id), NOTICE_FIELDS)


def _mode(url: str) -> str:
    try:
        return redis_urls.parse(url).mode
    except ValueError:
        return "single"  # refused at the first command, with redis-py's own message


def _connect(url: str, decode: bool, timeout: float, connections: int = 64) -> Any:
    """A client for ``url``: one Redis as before (a blocking pool of ``connections``), else
    through service/store/redis_urls.py (a Sentinel-managed primary, a cluster)."""
    if _mode(url) == "single":
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=connections, decode_responses=decode, socket_timeout=timeout
        )
        return redis.Redis(connection_pool=pool)
    target = redis_urls.parse(url)
    return redis_urls.connect(
        target, decode_responses=decode, socket_timeout=timeout, max_connections=connections
    )


def _as_dict(reply: Any) -> Any:
    """A hash or stream entry as a dict: a cluster client's MULTI leaves replies unparsed
    (a flat list of names and values)."""
    return reply if isinstance(reply, dict) else dict(zip(reply[::2], reply[1::2], strict=True))


def _stream_replies(found: Any) -> list[tuple[Any, Any]]:
    """XREAD's reply as (key, entries) pairs: a list under RESP2, a dict under RESP3."""
    if not found:
        return []
    return list(found.items()) if isinstance(found, dict) else [(k, e) for k, e in found]


def _as_bytes(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value


def compact_job(game_id: str) -> owed.OwedJob:
    return owed.OwedJob(
        id=compact_job_id(game_id),
        func=COMPACT_JOB,
        args=(game_id,),
        queue=NOTIFY_QUEUE,  # never before a resolution
        timeout=60,
        result_ttl=0,
        failure_ttl=7 * 86_400,
        retry=(10, 60, 600),
        description=f"compact the log of finished game {game_id}",
    )


def rate_job(game_id: str) -> owed.OwedJob:
    """Ratings, players' finished games and the public listing of a finished game
    (service/domain/ratings.py: applied once however often the job runs)."""
    return owed.OwedJob(
        id=rate_job_id(game_id),
        func=RATE_JOB,
        args=(game_id,),
        queue=NOTIFY_QUEUE,  # never before a resolution
        timeout=60,
        result_ttl=0,
        failure_ttl=7 * 86_400,
        retry=(2, 10, 60, 600),
        description=f"rate finished game {game_id}",
    )


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


def _step_fields(change: Change) -> tuple[str, int | None, str, str, str, list[dict[str, Any]]]:
    return (
        change.entry_kind,
        change.seat,
        change.action,
        change.ref,
        change.commitment,
        change.events,
    )


def _entry(step: LogStep, at: str) -> dict[str, Any]:
    """A log entry's fields (service/store/record.py ``pack_entry``)."""
    return {
        "kind": step.entry_kind,
        "seat": "" if step.seat is None else str(step.seat),
        "action": step.action,
        "ref": step.ref,
        "commitment": step.commitment,
        "events": step.events,
        "at": at,
    }
