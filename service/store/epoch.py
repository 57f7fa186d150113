"""Whether the game store went back in time, so that no write is built on a store that lost data.

A Redis restarted without persistence comes back empty, or from an RDB snapshot minutes old; a
cluster node likewise, keeping its slots. Newer tokens would then answer 401 and newer games
404 for good, and every write would build on that older world. Each process notices instead,
and refuses writes (``Epoch.guard``: 503 ``store-rolled-back``) until an operator has restored
a backup and accepted the store as it is (``kurier store accept``, ``accept``); reads still
answer, and ``/healthz`` says why (``Connections.health``).

The store carries an epoch: one hash on one Redis, one per master in a cluster (a key whose
hash tag falls in that master's slots). A process looks at it at most once per
``CHECK_SECONDS``, when it is about to write (a round trip a second, never one per move):

- At its first look it makes the epoch where there is none (a random ``id``) and remembers it.
  Once it has seen one, a missing epoch means the data set was lost (a restart without
  persistence, a FLUSHALL), and another ``id`` that the operator did not accept means it was
  replaced.
- ``at`` is the newest time any process looked (its own clock; the script never lowers it).
  Found more than ``TOLERANCE_SECONDS`` below what this process wrote there itself, the store
  lost the writes since: it was restarted from an old snapshot, or a replica that lagged far
  behind was promoted. A failover's usual loss (the last moments of asynchronous replication)
  stays within the tolerance; ``KURIER_WAIT_REPLICAS`` covers that one.
- The process that notices writes its verdict into the epoch (``rolled_back``), so that every
  process refuses writes within a second, those started afterwards too.

What it cannot see: every process restarted together with a Redis that came back empty. That
is why ``kurier config check`` refuses a Sentinel or Cluster deployment whose nodes run
without AOF (service/ops/config.py).

Keys: ``kurier:epoch`` hash, or ``kurier:epoch:{<n>}`` per cluster master: ``id``, ``at``,
``accepted`` (when an operator accepted the store, 0: never), ``rolled_back`` (the verdict).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import redis
from redis.exceptions import RedisClusterException

from service.common.problems import Problem
from service.store.record import as_text
from service.store.writes import run_script


class Connections(Protocol):
    """What the epoch needs of service/store/connections.py's ``Connections`` (which holds it:
    named here, not imported, so that the two modules do not import each other)."""

    mode: str

    @property
    def r(self) -> Any: ...


log = logging.getLogger("kurier.epoch")

EPOCH_KEY = "kurier:epoch"
#: A process looks at the epoch at most this often (when it writes, and for /healthz).
CHECK_SECONDS = 1.0
#: The epoch's time may be this far behind what this process wrote before the store counts as
#: rolled back: more than a failover's asynchronous replication ever loses, less than any
#: RDB snapshot's age.
TOLERANCE_SECONDS = 10.0
#: What an operator must do, said by every refusal and by /healthz.
REMEDY = (
    'restore the newest backup (docs/operations.md, "Backups and restore"), then run '
    "`kurier store accept`; until then writes are refused, reads still answer"
)

#: The epoch looked at: made where there is none (ARGV[1], a new id; "" if this process saw
#: one already: then a missing epoch stays missing), ``at`` raised to ARGV[2] (never lowered).
#: Returns id, at (before), accepted, rolled_back.
CHECK_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] == '' then return {false, false, false, false} end
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'at', ARGV[2], 'accepted', '0')
  return {ARGV[1], ARGV[2], '0', false}
end
local found = redis.call('HMGET', KEYS[1], 'id', 'at', 'accepted', 'rolled_back')
if found[1] and not found[4] and tonumber(found[2] or '0') < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'at', ARGV[2])
end
return found
"""


@dataclass
class _Seen:
    """An epoch as this process last found it, and the time it wrote there itself."""

    id: str
    accepted: float
    at: float


class Epoch:
    """This process's view of the store's epoch (``connections.epoch``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections
        self._pid = -1

    def _fresh(self) -> None:
        """State of this process, not of a parent it was forked from."""
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._lock = threading.Lock()
            self._seen: dict[str, _Seen] = {}
            self._checked = float("-inf")
            self._problem: str | None = None

    def guard(self) -> None:
        """Refuse a write (503 ``store-rolled-back``) if the store went back in time."""
        problem = self.problem()
        if problem is not None:
            raise Problem(
                503,
                "store-rolled-back",
                f"the game store went back in time ({problem}): nothing is written on it. "
                f"An operator must {REMEDY}",
                headers={"Retry-After": "60"},
            )

    def problem(self) -> str | None:
        """Why the store counts as rolled back (None: it does not), looked at afresh if the
        last look is ``CHECK_SECONDS`` old. A look that cannot reach Redis keeps the last
        verdict: the write itself then meets the outage."""
        self._fresh()
        if time.monotonic() - self._checked < CHECK_SECONDS:
            return self._problem
        if not self._lock.acquire(blocking=False):
            return self._problem  # another thread is looking right now
        try:
            self._checked = time.monotonic()
            self._problem = self._look()
        except (redis.RedisError, RedisClusterException) as error:
            log.warning("the store's epoch could not be read: %s", error)
        finally:
            self._lock.release()
        return self._problem

    def _look(self) -> str | None:
        keys = epoch_keys(self.connections)
        now = time.time()
        made = secrets.token_hex(8)
        with self.connections.r.pipeline(transaction=False) as pipe:
            for key in keys:
                run_script(pipe, CHECK_LUA, [key], ["" if key in self._seen else made, repr(now)])
            replies = pipe.execute(raise_on_error=False)
        problems = []
        for key, reply in zip(keys, replies, strict=True):
            if isinstance(reply, Exception):
                log.warning("the store's epoch %s could not be read: %s", key, reply)
                continue
            problem = self._judged(key, [None if v is None else as_text(v) for v in reply], now)
            if problem is not None:
                problems.append(problem)
        return "; ".join(dict.fromkeys(problems)) or None

    def _judged(self, key: str, found: list[Any], now: float) -> str | None:
        found_id, at, accepted, verdict = found
        seen = self._seen.get(key)
        if verdict:
            return str(verdict)
        if found_id is None:
            return self._rolled_back(
                key, "its data set was lost: a Redis restarted without persistence, or flushed"
            )
        accepted_at = float(accepted or 0)
        if seen is None or (found_id != seen.id and accepted_at > seen.accepted):
            self._seen[key] = _Seen(found_id, accepted_at, now)  # first sight, or accepted
            return None
        if found_id != seen.id:
            return self._rolled_back(key, "its data set was replaced by another")
        behind = seen.at - float(at or 0)
        if behind > TOLERANCE_SECONDS:
            return self._rolled_back(
                key,
                f"it lost about {behind:.0f} s of writes: a Redis restarted from an old "
                "snapshot, or a replica far behind promoted",
            )
        seen.at = now
        return None

    def _rolled_back(self, key: str, why: str) -> str:
        """The verdict, left in the epoch for every process (those started later too)."""
        when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        verdict = f"{why}; noticed {when} by {socket.gethostname()} pid {os.getpid()}"
        self.connections.r.hset(key, "rolled_back", verdict)
        log.error("the game store went back in time (%s); an operator must %s", why, REMEDY)
        return verdict


def epoch_keys(connections: Connections) -> list[str]:
    """The epoch's keys: one on one Redis; in a cluster one per master, each with a hash tag
    that falls in that master's slots now."""
    if connections.mode != "cluster":
        return [EPOCH_KEY]
    client = connections.r
    keys = []
    for node in client.get_primaries():
        for n in range(100_000):  # a master's slots are a few thousand in 16384: few tries
            key = f"{EPOCH_KEY}:{{{n}}}"
            if client.get_node_from_key(key).name == node.name:
                keys.append(key)
                break
    return keys


def accept(connections: Connections) -> list[str]:
    """The store as it is now becomes the accepted epoch (``kurier store accept``, after a
    backup was restored): a new id, accepted now, no verdict. Every process adopts it at its
    next look and writes again. Returns the keys written."""
    keys = epoch_keys(connections)
    now = time.time()
    fields = {"id": secrets.token_hex(8), "at": repr(now), "accepted": repr(now)}
    with connections.r.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.delete(key)
            pipe.hset(key, mapping=fields)
        pipe.execute()
    return keys
