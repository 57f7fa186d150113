"""The one writer of games, and the reads of games and their logs: ``Store``.

``Store.transact`` is the only code that changes a game's keys (the module docstring of
service/store/__init__.py tells how: one read, the change computed in Python, one commit
script). Beside it: reading a game and its log (one MULTI, or a script behind a blocking read:
``LogWatch``), packing a finished game's log into its record (``compact``), and waiting for news
in a game's log or in any stream (the stream server).

``Store`` is also the object passed around: it is the connections (service/store/connections.py)
and holds the repositories beside the writer, each with its own keys: ``players``
(service/store/players.py), ``tokens`` (service/store/tokens.py), ``messages``
(service/store/messages.py), ``indexes`` (service/store/indexes.py); and ``early``, what a
request's first round trip read for the transaction (service/store/early.py).

Keys (service/store/keys.py): the game's ``kurier:game:{g}`` hash, ``:events`` stream,
``:idem:<player>:<sha256(key)>`` strings and ``:outbox`` stream; what a commit brings along:
players' game lists (``kurier:player:{p}:games``), the lobby (``kurier:games:open``), owed jobs
and rq's entries on the queue Redis (service/store/owed.py), the outbox's marks
(service/store/outbox.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import redis

from service.common.problems import Problem, game_not_found
from service.store import logpack, outbox, owed
from service.store.connections import REDIS_FAILED, Connections, as_dict
from service.store.early import EarlyReads, queue_read
from service.store.follows import Follows
from service.store.game_jobs import bot_jobs, compact_job, rate_job, resolve_job
from service.store.indexes import Indexes
from service.store.keys import (
    KEEP_EVENTS_OF,
    LIVE_GAMES,
    OPEN_GAMES,
    events_key,
    game_key,
    idem_key,
    messages_key,
    outbox_key,
    player_games_key,
)
from service.store.messages import Messages
from service.store.outbox import MARK_LIFETIME, Entry
from service.store.players import Players
from service.store.queues import resolve_job_id
from service.store.record import (
    PACKED_LOG,
    SECRET_FIELD,
    STATE_FIELD,
    Change,
    Entries,
    GameRecord,
    Idempotency,
    LogStep,
    Mutation,
    Outcome,
    as_text,
    pack_entry,
    pack_saved,
    unpack_entry,
    unpack_saved,
)
from service.store.social import Blocks, Moderation, Notes
from service.store.tokens import Tokens
from service.store.tournaments import Tournaments
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
#: What a client does when its change was not confirmed by the replicas in time.
RETRY_SAME_KEY = "retry with the same Idempotency-Key to learn whether it stands"
#: A busy game rarely sees more than a couple of EXEC conflicts in a row.
MAX_TRIES = 8
#: In a cluster, how often a player's stream looks for news in its games (no multi-slot XREAD).
CLUSTER_POLL_SECONDS = 1.0

#: Plans what a change brings along (notification and deadline jobs) from the pending decisions
#: before it, the change and its version; returns what writes them into the transaction's
#: pipeline. Passed in by the caller (service/domain/games/play.py gives
#: service/domain/notifications.followups), so the store knows nothing of notifications.
Followups = Callable[[list[dict[str, Any]], Change, int], Callable[[Any], None]]


def _no_followups(_before: list[dict[str, Any]], _change: Change, _version: int) -> Any:
    return lambda _pipe: None


class Store(Connections):
    """The store: its connections (``Connections``), the one writer of games (the methods
    below) and the repositories beside it (attributes).

    ``wait_replicas``: wait for this many replicas to acknowledge a commit, or any other
    write, before answering (0: don't), at most ``wait_ms`` (KURIER_WAIT_REPLICAS,
    KURIER_WAIT_MS; ``Connections``).
    """

    def __init__(
        self, url: str, queue_url: str | None = None, wait_replicas: int | None = None
    ) -> None:
        super().__init__(url, queue_url, wait_replicas)
        self.early = EarlyReads()
        self.tokens = Tokens(self, self.early)
        self.players = Players(self, self.early, self.tokens)
        self.messages = Messages(self)
        self.indexes = Indexes(self)
        self.follows = Follows(self)
        self.tournaments = Tournaments(self)
        self.blocks = Blocks(self)
        self.notes = Notes(self)
        self.moderation = Moderation(self)

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
        self.epoch.guard()  # a store that went back in time is written nothing
        ikey = idem_key(game_id, idem.player_id, idem.key) if idem else None
        # The first try may use the read made in the request's first round trip (the rate
        # limiter's, ``Tokens.checked_player``): the commit's compare-and-set judges any read.
        early = self.early.take(game_id, ikey)
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
            record = _game_record(game_id, raw) if raw else None
            version = record.version + 1 if record else 1
            before = list(record.pending) if record else []
            change = mutate(record, version)
            writes = Writes()
            last = version + len(change.earlier)  # the new version (``Change.earlier``)
            followups(before, change, last)(writes)
            self._bring_along(writes, change, last)
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
            self.early.seats.put(game_id, tuple(change.record.seats))
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
            queue_read(pipe, game_id, ikey)
            found = pipe.execute()
        found = found[1:] if marked else found
        return found[0], (found[1] if ikey else None), marked

    def _bring_along(self, writes: Writes, change: Change, version: int) -> None:
        """The change's own cross-key writes: players' game lists, resolutions owed/settled,
        the moves of the bot seats the game now waits for (owed like resolutions: a worker
        killed mid-move loses none)."""
        gid = change.record.id
        for player_id in change.index_players:
            writes.others.zadd(player_games_key(player_id), {gid: change.record.seq})
        # A resolution is settled by the commit that applies it.
        for ref in change.resolve_remove:
            owed.settle(writes.queue, resolve_job_id(gid, ref))
        for ref in change.resolve_add:
            owed.owe(writes.queue, resolve_job(gid, ref), self.queue_raw)
        for job in bot_jobs(change.record, version):
            owed.owe(writes.queue, job, self.queue_raw)
        if change.record.status == "finished":
            owed.owe(writes.queue, compact_job(gid), self.queue_raw)
            owed.owe(writes.queue, rate_job(gid), self.queue_raw)
        self._list_if_open(writes, change.record)
        self._list_if_live(writes, change.record)

    @staticmethod
    def _list_if_open(writes: Writes, record: GameRecord) -> None:
        """The lobby's index: an open-access game is listed while it has a free seat."""
        if record.settings.get("access") != "open":
            return
        if record.status == "open" and len(record.seats) < record.max_seats:
            writes.others.zadd(OPEN_GAMES, {record.id: record.seq})
        else:
            writes.others.zrem(OPEN_GAMES, record.id)

    @staticmethod
    def _list_if_live(writes: Writes, record: GameRecord) -> None:
        """The watch page's index (service/domain/club.py): a public game in play, scored by
        its latest commit, so that the newest moves come first."""
        if record.status == "active" and record.settings.get("public", True):
            writes.others.zadd(LIVE_GAMES, {record.id: time.time()})
        elif record.status == "finished" or not record.settings.get("public", True):
            writes.others.zrem(LIVE_GAMES, record.id)

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
        at = logpack.entry_time(record.updated_at)
        steps = [*change.earlier, change.log_step()]
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
            self.replicated_or_refuse(int(acknowledged), RETRY_SAME_KEY)
        return int(status), detail

    def _confirm_replicated(self, game_id: str, ikey: str) -> None:
        """Before replaying an answer, make sure its change reached the replicas: WAIT covers
        only a connection's own writes, so write something after it (the idempotency record's
        TTL, renewed) and wait for that; replication keeps order."""
        with self._node_of(game_key(game_id)).pipeline(transaction=False) as pipe:
            pipe.expire(ikey, IDEMPOTENCY_TTL)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_ms)
            _renewed, acknowledged = pipe.execute()
        self.replicated_or_refuse(int(acknowledged), RETRY_SAME_KEY)

    def _node_of(self, key: str) -> Any:
        """A client whose pipeline talks to the server holding ``key`` (one connection)."""
        if self.mode != "cluster":
            return self.raw
        return self.raw.get_redis_connection(self.raw.get_node_from_key(key))

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

    # -- reading games -------------------------------------------------------------------------

    def get_game(self, game_id: str) -> GameRecord:
        raw = self.raw.hgetall(game_key(game_id))  # bytes: a compacted log is binary
        if not raw:
            raise game_not_found(game_id)
        return _game_record(game_id, raw)

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
        raw = as_dict(raw)
        if not state:
            raw.pop(b"state", None)
        record = _game_record(game_id, raw) if state else GameRecord.from_hash(game_id, raw)
        out = [
            (int(entry_id.split(b"-")[0]), unpack_entry(record.log_codec, as_dict(fields)))
            for entry_id, fields in entries
        ]
        packed = raw.get(PACKED_LOG.encode())
        if packed:
            earlier = [e for e in logpack.unpack(record, packed) if e[0] > after]
            out = (earlier + out)[:count] if count is not None else earlier + out
        return record, out

    def log_tail(self, record: GameRecord, count: int) -> Entries:
        """The last ``count`` log entries up to ``record``'s version, oldest first."""
        found = self.raw.xrevrange(events_key(record.id), max="+", min="-", count=count)
        tail = [
            (int(entry_id.split(b"-")[0]), unpack_entry(record.log_codec, as_dict(fields)))
            for entry_id, fields in reversed(found)
        ]
        if len(tail) < count:  # a compacted game: the rest is in its record
            packed = self.raw.hget(game_key(record.id), PACKED_LOG)
            if packed:
                earlier = logpack.unpack(record, packed)
                tail = (earlier + tail)[-count:]
        return [(version, entry) for version, entry in tail if version <= record.version]

    def compact(self, game_id: str, keep_events: bool = False) -> bool:
        """Pack a finished game's log into its record and delete the stream: one value instead
        of a stream of entries, without the events a replay gives back (service/store/logpack.py;
        docs/operations.md, capacity). A log packed in the older format is packed again;
        ``keep_events``: so is one whose events are rebuilt by replay, keeping them all (before
        an engine with other rules: docs/operations.md, Upgrades), as is every game under
        rules ``keep_events_of`` named. False if there was nothing to do (not finished,
        already so) or the game changed meanwhile (do it again)."""
        self.epoch.guard()
        fields = ["status", "log_codec", PACKED_LOG, "type", "rules_version"]
        with self.raw.pipeline(transaction=False) as pipe:
            pipe.hmget(game_key(game_id), fields)
            pipe.exists(events_key(game_id))
            pipe.smembers(KEEP_EVENTS_OF)
            (status, codec, packed, kind, rules), streamed, kept_rules = pipe.execute()
        keep_events = keep_events or _rules_name(kind, rules) in kept_rules
        if status != b"finished" or not (streamed or _repack(codec, packed, keep_events)):
            return False
        record, entries = self.read_log(game_id)
        if packed and not record.secret:  # packed before: the log may keep it
            record.secret = logpack.kept_secret(record.log_codec, packed)
        script = self._script("compact", self.raw, COMPACT_LUA)
        keys = [game_key(game_id), events_key(game_id)]
        value = logpack.pack(record, entries, keep_events)
        return bool(script(keys=keys, args=[record.version, value, *_compacted(record, value)]))

    def keep_events_of(self, rules: Iterable[tuple[str, str]]) -> None:
        """From now on compaction keeps every event of the games under these rules (game
        type, rules version): before an engine of other rules takes over (``compact``)."""
        names = [_rules_name(kind, version) for kind, version in rules]
        if names:
            self.write(lambda pipe: pipe.sadd(KEEP_EVENTS_OF, *names), raw=True)

    # -- waiting for news (the stream server, service/domain/streams.py) ------------------------

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
        #: The ID of the newest of the game's messages seen: the same XREAD waits for the next
        #: one (a stream of the game's slot), and a wait that ends with one moves it on.
        self.talk: str | None = None

    def wait_read(self, after: int, block_ms: int, count: int) -> tuple[GameRecord, Entries]:
        store = self.store
        if self.talk is None:
            self.talk = store.messages.last_ids([self.game_id])[0]
        talk_key = messages_key(self.game_id)
        if store.mode == "cluster":  # one slot: the XREAD over both keys goes to its node
            cursors = {self.keys[1]: f"{after}-0", talk_key: self.talk}
            self._heard(store.blocking.xread(cursors, count=1, block=block_ms))
            return store.read_log(self.game_id, after, count, state=False)
        # EVALSHA itself, loaded once per process before the first wait (else every stream
        # waiting at the start would meet NOSCRIPT at its first wake).
        sha = store.loaded_script("read_log", READ_LOG_LUA)
        if self._connection is None:
            self._connection = store.blocking.connection_pool.get_connection()
        connection = self._connection
        streams = (self.keys[1], talk_key, f"{after}-0", self.talk)
        wait = ("XREAD", "COUNT", 1, "BLOCK", block_ms, "STREAMS", *streams)
        read = ("EVALSHA", sha, 2, *self.keys, f"({after}-0", count)
        try:
            connection.send_packed_command(connection.pack_commands([wait, read]))
            # News or none: the read below answers for the log; a message moves ``talk``.
            self._heard(connection.read_response())
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

    def _heard(self, found: Any) -> None:
        """Move ``talk`` to the message an XREAD over the log and the messages returned."""
        for key, entries in _stream_replies(found):
            if as_text(key) == messages_key(self.game_id) and entries:
                self.talk = as_text(entries[-1][0])

    def __enter__(self) -> LogWatch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Give the connection back to the pool (a later wait takes one again)."""
        if self._connection is not None:
            self.store.blocking.connection_pool.release(self._connection)
            self._connection = None


def _stream_replies(found: Any) -> list[tuple[Any, Any]]:
    """XREAD's reply as (key, entries) pairs: a list under RESP2, a dict under RESP3."""
    if not found:
        return []
    return list(found.items()) if isinstance(found, dict) else [(k, e) for k, e in found]


def _rules_name(kind: bytes | str | None, version: bytes | str | None) -> bytes:
    """A game type and rules version as ``KEEP_EVENTS_OF`` names them."""
    return f"{as_text(kind)} {as_text(version)}".encode()


def _game_record(game_id: str, raw: Mapping[bytes, bytes]) -> GameRecord:
    """The record of a hash read with the bytes client; a compacted game's state, when its
    record keeps none, from its log's replay when first asked (``logpack.final_state``)."""
    record = GameRecord.from_hash(game_id, raw)
    packed = raw.get(PACKED_LOG.encode())
    if packed is None or STATE_FIELD.encode() in raw:
        return record
    return record.with_state_from(lambda: logpack.final_state(record, packed))


def _compacted(record: GameRecord, packed: bytes) -> list[str]:
    """What compaction does to the record beside writing its log ``packed``, as the compact
    script's arguments: the state to write back ("" none), then the fields to delete. The
    state goes where the log's replay gives it exactly, and comes back where the log no
    longer gives it (packed again with its events kept); the secret goes where the log
    keeps it."""
    write_state, drop = "", []
    if logpack.gives_state(record, packed):
        drop.append(STATE_FIELD)
    elif not record.stores_state():
        write_state = record.state_field()  # the old log's replay's
    if logpack.kept_secret(record.log_codec, packed):
        drop.append(SECRET_FIELD)
    return [write_state, *drop]


def _repack(codec: bytes | None, packed: bytes | None, keep_events: bool) -> bool:
    """Whether a compacted log is to be packed again: in the older format, or (asked to keep
    every event) with events rebuilt by replay."""
    if packed is None:
        return False
    if not logpack.is_packed(packed):
        return True
    return keep_events and logpack.derives(as_text(codec), packed)


def _as_bytes(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value


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
