"""One blocking read per game followed in a stream-server process, shared by its streams.

Before, each open game stream waited with its own ``XREAD BLOCK`` and, woken by a move, read
the record and the new entries itself: a move in a game with k streams in a process was read
k times, on k Redis connections (docs/performance.md, "Streams"). Here one watcher per game
(a thread: a greenlet under the stream server's gevent workers) waits on the game's log with
a Store.watch_log (the blocking ``XREAD`` and the read in one round trip, on a connection it
holds; the log's and the messages' keys, one slot, so in a cluster too) and hands that one
read to every stream of the game waiting in the process; a new message wakes them all (each
reads what its caller may see of it). A stream then only redacts it for its caller
(service/domain/streams.py).

- A stream follows a game for as long as it is open (``following``); the game's watcher
  starts with its first stream in the process and ends with its last.
- A stream asks for news with ``wait_read_log``, which answers what LogWatch.wait_read
  answers. A stream that was busy writing when the watcher read gets the watcher's last read
  if it reaches back far enough, else reads for itself; so does a wait that times out (the
  heartbeat: it also sees a game archived meanwhile).
- The watcher's cursor is the newest version it has read, so a read cut short by the page
  size is followed at once by the next.

Not tried again: one ``XREAD`` over all the games of a process. Each call then names every
followed game (hundreds), so under load the process spent more on asking than on the moves,
and events came later (docs/performance.md, "Streams").
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from service.common.problems import Problem
from service.store import REDIS_FAILED, Entries, LogWatch, Store
from service.store.record import GameRecord

log = logging.getLogger("kurier.streams")

#: The longest a watcher blocks before it reads the game again (it notices an archived game,
#: and ends soon after its last stream).
WATCH_BLOCK_MS = 5000
#: After Redis failed, a watcher waits this long before it asks again.
RETRY_SECONDS = 0.5


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
    seen: int  # the newest version its watcher has read (where its next wait starts)
    streams: int = 0  # open streams following it in this process
    last: _Read | None = None
    waiters: list[_Waiter] = field(default_factory=list)
    talk: str = "0-0"  # the newest of its messages its watcher has seen


class LogHub:
    def __init__(self, store: Store, count: int) -> None:
        self.store = store
        self.count = count  # the page: entries per read
        self._games: dict[str, _Game] = {}
        self._lock = threading.Lock()

    @contextmanager
    def following(self, game_id: str, seen: int) -> Iterator[None]:
        """Have ``game_id`` watched (a stream read it up to version ``seen``) while open."""
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                game = self._games[game_id] = _Game(seen=seen)
                threading.Thread(
                    target=self._watch,
                    args=(game_id, game),
                    name=f"kurier-watch-{game_id}",
                    daemon=True,
                ).start()
            game.streams += 1
        try:
            yield
        finally:
            with self._lock:
                game.streams -= 1
                if game.streams == 0:
                    del self._games[game_id]  # its watcher ends after its current wait

    def talk_of(self, game_id: str) -> str:
        """The ID of the game's newest message its watcher has seen ("0-0": none yet)."""
        with self._lock:
            game = self._games.get(game_id)
            return game.talk if game else "0-0"

    def wait_read_log(
        self, game_id: str, after: int, block_ms: int, talk_after: str = "0-0"
    ) -> tuple[GameRecord, Entries]:
        """The record and the entries after ``after``, once there are any, or a message after
        ``talk_after`` came, or ``block_ms`` passed (then read afresh): LogWatch.wait_read's
        answer, for a game being followed."""
        with self._lock:
            game = self._games[game_id]
            ready = _entries_after(game.last, after)
            # Behind what the watcher has read, beyond its last read: there is news, read it.
            behind = ready is None and game.seen > after
            behind = behind or message_order(game.talk) > message_order(talk_after)
            if ready is None and not behind:
                waiter = _Waiter(after)
                game.waiters.append(waiter)
        if ready is not None:
            return ready
        if not behind:
            waiter.ready.wait(block_ms / 1000)
            with self._lock:
                if waiter in game.waiters:
                    game.waiters.remove(waiter)
            ready = _entries_after(waiter.read, after)
        return ready or self.store.read_log(game_id, after, self.count, state=False)

    def _watch(self, game_id: str, game: _Game) -> None:
        with self.store.watch_log(game_id) as watch:
            self._watch_with(watch, game)

    def _watch_with(self, watch: LogWatch, game: _Game) -> None:
        game_id = watch.game_id
        while self._games.get(game_id) is game:
            with self._lock:
                start = min([w.after for w in game.waiters] + [game.seen])
            try:
                record, entries = watch.wait_read(start, WATCH_BLOCK_MS, self.count)
            except Exception as error:
                if isinstance(error, (Problem, *REDIS_FAILED)):  # archived, or Redis failed
                    log.debug("stream watcher of %s: %s", game_id, error)
                else:  # a bug: the game's streams must not be left without a watcher
                    log.exception("stream watcher of %s failed", game_id)
                self._hand_out(game, None)  # the streams read for themselves, and see why
                time.sleep(RETRY_SECONDS)
                continue
            said = watch.talk is not None and watch.talk != game.talk
            self._hand_out(game, _Read(record, entries, start), talk=watch.talk if said else None)

    def _hand_out(self, game: _Game, read: _Read | None, talk: str | None = None) -> None:
        """Keep the read and wake the streams it has news for (all of them when the read
        failed, or when ``talk``, a new message's ID, came with it: each stream reads what its
        caller may see of it); a stream that began to wait after the read was sent and
        already has what it holds waits on."""
        with self._lock:
            if read is not None and read.entries:
                game.last = read
                game.seen = max(game.seen, read.entries[-1][0])
            if talk is not None:
                game.talk = talk
            waiting = []
            for waiter in game.waiters:
                if talk is None and _nothing_new(read, waiter.after):
                    waiting.append(waiter)
                    continue
                waiter.read = read
                waiter.ready.set()
            game.waiters = waiting


def message_order(message_id: str) -> tuple[int, int]:
    """A stream ID ("1732400000000-0") as the pair Redis orders by."""
    ms, _, seq = message_id.partition("-")
    return int(ms), int(seq or 0)


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


def hub_of(store: Store, count: int) -> LogHub:
    """The process's hub for ``store``."""
    with _hubs_lock:
        hub = _hubs.get(store)
        if hub is None:
            hub = _hubs[store] = LogHub(store, count)
        return hub
