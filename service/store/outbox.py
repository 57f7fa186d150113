"""The outbox: how a commit reaches what its own transaction cannot (other cluster slots, the
queue Redis), once, even if the process dies right after the commit.

Used when the store is not one Redis with the queues (a Redis Cluster, or ``KURIER_QUEUE_URL``
elsewhere). Then a commit writes, atomically with the game:

- one entry in the game's outbox stream (``kurier:game:{g}:outbox``, ID = the version): the
  recorded commands for the queue Redis (``q``: owed jobs, rq's entries) and for other slots
  of the store (``g``: a player's game list), see service/store/writes.py;

and, before its commit, a mark in a "dirty" sorted set (``kurier:outbox:dirty:{bucket}``, the
game's bucket, score: when) so that an outbox left behind by a dead process is found.

After the commit the writer *relays* the outbox at once (the common case: it finds only its own
entry): for each entry in version order, a script on the queue Redis runs the ``q`` commands
and records the version as relayed (``kurier:outbox:relayed:<g>``) in one step, so an entry is
applied there at most once however many relays race; the ``g`` commands are idempotent
(ZADD) and simply run. Then the entries are trimmed and the mark removed if no newer writer
set it again. Workers sweep marks older than ``GRACE_SECONDS`` (a writer that died between
its commit and its relay) and relay those outboxes: at least once, in order, applied once.

A writer marks before it reads and commits only within ``MARK_LIFETIME`` of its mark (else it
marks again), far inside the sweep's grace: the sweep cannot remove a mark whose commit is
still to come.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from service.store.keys import (
    OUTBOX_BUCKETS,
    dirty_bucket_key,
    dirty_key,
    outbox_key,
    relayed_key,
)
from service.store.record import as_text
from service.store.writes import Command, flatten, pack, unpack

#: Seconds a writer may take from its mark to its commit before it marks again.
MARK_LIFETIME = 5.0
#: Seconds a mark must be old before the sweep relays its outbox: a writer relays its own
#: within milliseconds; the margin covers MARK_LIFETIME and clocks a little apart.
GRACE_SECONDS = 30.0
#: How long the queue Redis remembers a game's last relayed version: far longer than any
#: entry waits in an outbox (a sweep finds it within seconds).
RELAYED_TTL = 7 * 86_400
MAX_SWEPT = 200  # marks looked at per bucket and sweep

#: On the queue Redis: run an entry's commands unless its version was relayed already.
RELAY_LUA = """
local done = tonumber(redis.call('GET', KEYS[1]) or '0')
if done >= tonumber(ARGV[1]) then return 0 end
local i = 4
for c = 1, tonumber(ARGV[3]) do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
"""

#: Remove a game's mark only if nobody marked it again since (same score).
UNMARK_LUA = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


@dataclass
class Entry:
    """One commit's outbox entry: its version and the commands it owes."""

    version: int
    queue: list[Command] = field(default_factory=list)
    others: list[Command] = field(default_factory=list)

    def fields(self) -> dict[str, bytes]:
        return {"q": pack(self.queue), "g": pack(self.others)}

    @classmethod
    def from_stream(cls, entry_id: bytes | str, fields: dict[bytes, bytes]) -> Entry:
        version = int(as_text(entry_id).split("-")[0])
        return cls(version, unpack(fields.get(b"q", b"1:0,")), unpack(fields.get(b"g", b"1:0,")))


def now_ms() -> int:
    return int(time.time() * 1000)


def mark(pipe: Any, game_id: str) -> int:
    """Mark ``game_id``'s outbox as possibly non-empty (in the caller's read pipeline)."""
    score = now_ms()
    pipe.zadd(dirty_key(game_id), {game_id: score})
    return score


class Relay:
    """Relays outboxes from the game store ``store`` (bytes client; a cluster or not) to the
    queue Redis ``queues`` (bytes client)."""

    def __init__(self, store: Any, queues: Any) -> None:
        self.store = store
        self.queues = queues
        self._relay = queues.register_script(RELAY_LUA)
        self._unmark = store.register_script(UNMARK_LUA)

    def after_commit(self, game_id: str, own: Entry, pending: int, marked: int) -> None:
        """The writer's relay right after its commit; ``pending``: the outbox's length then."""
        entries = [own] if pending <= 1 else self.entries(game_id)
        self.relay(game_id, entries)
        self._unmark(keys=[dirty_key(game_id)], args=[game_id, marked])

    def entries(self, game_id: str) -> list[Entry]:
        found = self.store.xrange(outbox_key(game_id), "-", "+")
        return [Entry.from_stream(entry_id, fields) for entry_id, fields in found]

    def relay(self, game_id: str, entries: Iterable[Entry]) -> None:
        """Apply ``entries`` in version order, each at most once on the queue Redis."""
        top = 0
        for entry in sorted(entries, key=lambda e: e.version):
            if entry.queue:
                args = [entry.version, RELAYED_TTL, *flatten(entry.queue)]
                self._relay(keys=[relayed_key(game_id)], args=args)
            for command in entry.others:
                # The command's name as text: a cluster client routes by it.
                self.store.execute_command(as_text(command[0]), *command[1:])
            top = entry.version
        if top:
            self.store.xtrim(outbox_key(game_id), minid=f"{top + 1}-0", approximate=False)

    def sweep(self, grace: float | None = None) -> list[str]:
        """Relay the outboxes whose writers left them behind (marked over ``grace`` seconds
        ago, default ``GRACE_SECONDS``); returns the games relayed."""
        relayed = []
        before = now_ms() - int((GRACE_SECONDS if grace is None else grace) * 1000)
        for bucket in range(OUTBOX_BUCKETS):
            key = dirty_bucket_key(bucket)
            marks = self.store.zrange(
                key, "-inf", before, byscore=True, offset=0, num=MAX_SWEPT, withscores=True
            )
            for member, score in marks:
                game_id = as_text(member)
                self.relay(game_id, self.entries(game_id))
                self._unmark(keys=[key], args=[game_id, int(score)])
                relayed.append(game_id)
        return relayed
