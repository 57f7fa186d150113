"""One blocking read per stream-server process for all the games its streams follow.

Before, each open game stream waited with its own ``XREAD BLOCK`` and, woken by a move, read
the record and the new entries itself: a move in a game with k streams in a process was read
k times, on k connections (docs/performance.md, "Streams"). Here a hub waits for every game
followed in the process with one ``XREAD BLOCK`` on one connection, reads each game that
moved once (all of them in one pipeline: Store.read_logs), and hands that read to every stream
waiting on the game. A stream then only redacts it for its caller (service/streams.py).

- A stream follows a game for as long as it is open (``following``) and asks for news with
  ``wait_read_log``, which answers what Store.wait_read_log answers. A stream that was busy
  writing when the hub read gets the hub's last read of the game if it reaches back far
  enough, else reads for itself; so does a wait that times out (the heartbeat: it also sees a
  game archived meanwhile).
- The hub's ``XREAD`` names the games followed when it was sent. A stream that follows a game
  the hub does not watch yet wakes it with ``CLIENT UNBLOCK`` (the hub's connection id); the
  hub blocks at most ``HUB_BLOCK_MS`` in any case, so a wake that misses costs that at most.
- Its cursor for each game is the newest version it has read, so a read cut short by the
  page size is followed at once by the next.
- Not in a cluster, where one ``XREAD`` may not span slots: streams wait each on its own there.
- The hub runs in a thread (a greenlet under the stream server's gevent workers) started with
  the first stream of the process, and ends when no stream has followed a game for
  ``IDLE_SECONDS``.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

from service.keys import events_key
from service.record import GameRecord
from service.store import Entries, Store

log = logging.getLogger("kurier.streams")

#: The longest the hub blocks: a missed wake (a new game) is picked up within it.
HUB_BLOCK_MS = 1000
#: After handing out news, the hub lets more gather this long before it asks again: each
#: XREAD names every followed game (hundreds), so under load asking once per move cost more
#: than the moves' reads (docs/performance.md, "Streams"). An event may come this much later.
GATHER_SECONDS = 0.01
#: How long the hub outlives the last stream of its process.
IDLE_SECONDS = 30.0
#: Tries to wake the hub for a new game before leaving it to the next cycle.
WAKE_TRIES = 3


@dataclass
class _Read:
    record: GameRecord
    entries: Entries  # the entries after ``after``, at most a page
    after: int


@dataclass
class _Waiter:
    after: int
    ready: threading.Event = field(default_factory=threading.Event)
    read: _Read | None = None


@dataclass
class _Game:
    key: str  # its log stream's key
    streams: int  # open streams following it in this process
    seen: int  # the newest version the hub has read (its XREAD cursor)
    last: _Read | None = None
    waiters: list[_Waiter] = field(default_factory=list)


class LogHub:
    def __init__(self, store: Store, count: int) -> None:
        self.store = store
        self.count = count  # the page: entries per read
        self._games: dict[str, _Game] = {}
        #: What the hub's XREAD names: log key -> the ID after which news starts; kept as
        #: games are followed and read, not rebuilt for each XREAD.
        self._cursors: dict[str, str] = {}
        self._names: dict[str, str] = {}  # log key -> game id
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._client_id: int | None = None  # the hub's connection, while it blocks

    # -- what a stream calls ---------------------------------------------------------------------

    @contextmanager
    def following(self, game_id: str, seen: int) -> Iterator[None]:
        """Have the hub watch ``game_id`` (a stream read it up to ``seen``) while open."""
        with self._lock:
            game = self._games.get(game_id)
            new = game is None
            if game is None:
                game = self._games[game_id] = _Game(key=events_key(game_id), streams=0, seen=seen)
                self._cursors[game.key] = f"{seen}-0"
                self._names[game.key] = game_id
            game.streams += 1
            self._start()
        if new:
            self._wake()
        try:
            yield
        finally:
            with self._lock:
                game.streams -= 1
                if game.streams == 0:
                    del self._games[game_id]
                    del self._cursors[game.key]
                    del self._names[game.key]
                    for waiter in game.waiters:  # none in a stream's life; kept safe
                        waiter.ready.set()

    def wait_read_log(self, game_id: str, after: int, block_ms: int) -> tuple[GameRecord, Entries]:
        """The record and the entries after ``after``, once there are any or ``block_ms``
        passed (then read afresh): Store.wait_read_log's answer, for a game being followed."""
        with self._lock:
            game = self._games[game_id]
            ready = _entries_after(game.last, after)
            # Behind what the hub has read, beyond its last read: there is news, read it now.
            behind = ready is None and game.seen > after
            if ready is None and not behind:
                waiter = _Waiter(after)
                game.waiters.append(waiter)
        if ready is not None:
            return ready
        if behind:
            return self.store.read_log(game_id, after, self.count, state=False)
        waiter.ready.wait(block_ms / 1000)
        with self._lock:
            if waiter in game.waiters:
                game.waiters.remove(waiter)
        return _entries_after(waiter.read, after) or self.store.read_log(
            game_id, after, self.count, state=False
        )

    # -- the hub ---------------------------------------------------------------------------------

    def _start(self) -> None:
        """Start the hub if it is not running (called under the lock)."""
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="kurier-log-hub", daemon=True)
            self._thread.start()

    def _wake(self) -> None:
        """Make the hub send its XREAD again, now naming a game it did not."""
        for _ in range(WAKE_TRIES):
            client_id = self._client_id
            if client_id is not None and self.store.r.client_unblock(client_id):
                return
            time.sleep(0.002)  # between two XREADs, or not blocking yet: its next one sees it
        # Perhaps redis-py reconnected the hub's connection under a new id: ask it again.
        self._client_id = None

    def _run(self) -> None:
        # One connection held for the hub's life: CLIENT UNBLOCK names it.
        client = redis.Redis(
            connection_pool=self.store.blocking.connection_pool, single_connection_client=True
        )
        idle_since = time.monotonic()
        try:
            while True:
                with self._lock:
                    cursors = dict(self._cursors)
                    if cursors:
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since > IDLE_SECONDS:
                        self._thread = None
                        return
                if not cursors:
                    time.sleep(0.05)
                    continue
                moved = self._wait(client, cursors)
                if moved:
                    self._read(moved)
                    time.sleep(GATHER_SECONDS)
        finally:
            self._client_id = None
            client.close()

    def _wait(self, client: redis.Redis, cursors: dict[str, str]) -> list[str]:
        """Block until some followed games moved: their ids (none after the block, a wake or a
        failure of Redis, which a stream's own reads report)."""
        try:
            if self._client_id is None:
                self._client_id = int(client.client_id())
            found = client.xread(cursors, count=1, block=HUB_BLOCK_MS)  # type: ignore[arg-type]
        except redis.RedisError as error:
            log.warning("stream hub: Redis failed while waiting: %s", error)
            self._client_id = None  # a new connection has a new id
            self._release_waiters()  # each reads for itself now, and closes if Redis is down
            time.sleep(0.5)
            return []
        keys = [key.decode() for key, _entries in (found or [])]
        with self._lock:  # a game no stream follows any more is left out
            return [self._names[key] for key in keys if key in self._names]

    def _release_waiters(self) -> None:
        with self._lock:
            for game in self._games.values():
                for waiter in game.waiters:
                    waiter.ready.set()
                game.waiters.clear()

    def _read(self, moved: list[str]) -> None:
        """Read each moved game once, from the oldest version a stream of it waits after,
        and hand the read to its waiting streams."""
        with self._lock:
            reads = [
                (g, min([w.after for w in self._games[g].waiters] + [self._games[g].seen]))
                for g in moved
                if g in self._games
            ]
        results = self.store.read_logs(reads, self.count)
        with self._lock:
            for (game_id, after), result in zip(reads, results, strict=True):
                game = self._games.get(game_id)
                if game is None:
                    continue
                read = None if isinstance(result, Exception) else _Read(*result, after=after)
                if read is not None and read.entries:
                    game.last = read
                    game.seen = max(game.seen, read.entries[-1][0])
                    self._cursors[game.key] = f"{game.seen}-0"
                waiting = []
                for waiter in game.waiters:
                    if _nothing_new(read, waiter.after):
                        waiting.append(waiter)  # came after the read was sent: wait on
                        continue
                    waiter.read = read  # None: the stream reads for itself (and sees why)
                    waiter.ready.set()
                game.waiters = waiting


def _nothing_new(read: _Read | None, after: int) -> bool:
    """Whether ``read`` shows there is nothing after version ``after`` (it reaches back that
    far, and holds nothing later): a stream waiting after ``after`` keeps waiting."""
    if read is None or read.after > after:
        return False
    return not read.entries or read.entries[-1][0] <= after


def _entries_after(read: _Read | None, after: int) -> tuple[GameRecord, Entries] | None:
    """What ``read`` holds after version ``after``, if it reaches back that far and holds any."""
    if read is None or read.after > after:
        return None
    entries = [(v, e) for v, e in read.entries if v > after]
    return (read.record, entries) if entries else None


_hubs: weakref.WeakKeyDictionary[Store, LogHub] = weakref.WeakKeyDictionary()
_hubs_lock = threading.Lock()


def hub_of(store: Store, count: int) -> LogHub | None:
    """The process's hub for ``store`` (None in a cluster: streams wait each on its own)."""
    if store.mode == "cluster":
        return None
    with _hubs_lock:
        hub = _hubs.get(store)
        if hub is None:
            hub = _hubs[store] = LogHub(store, count)
        return hub
