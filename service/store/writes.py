"""Redis commands recorded instead of sent, and the server-side scripts that run them.

A commit brings along writes beyond its game's own keys: owed jobs and rq's queue entries (on
the queue Redis), a player's game list (another slot of a cluster). redis-py and rq build those
commands into a pipeline; we hand them a pipeline that is never executed (:func:`recorder`) and
take its commands (:func:`commands_of`). Where they may join the commit itself (everything on
one Redis) they run inside the commit script, atomically with the game's write; elsewhere they
travel in the game's outbox (service/store/outbox.py) and a relay runs them.

The scripts keep every key they declare in one slot (a Redis Cluster runs them); the commands
they run from ``ARGV`` touch other keys only where the store is one server (``colocated``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.client import Pipeline

Command = list[bytes]

#: A commit: compare the version, then write record, log entries, idempotency record, outbox
#: entry and the commands it brings along, or nothing. Replies ``{status, detail}``:
#: 1 committed (detail: the outbox's length, 0 without one); 0 the version moved (read again);
#: 2 an idempotency record exists (detail: it, to replay).
#:
#: KEYS: record, log, idempotency record (or the record again: none), outbox (or the record
#: again: none). ARGV: expected version ("0": no record yet), new (last) version, idempotency
#: value ("" none), its TTL, the counted list of record fields (name, value…), the number of
#: log entries and each entry's counted fields (versions up to the new one, one each), the
#: counted outbox entry fields; then the commands, each as its length and its words.
COMMIT_LUA = """
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '0' then
  if current then return {0, 0} end
elseif current ~= ARGV[1] then
  return {0, 0}
end
local has_idem = ARGV[3] ~= ''
if has_idem then
  local saved = redis.call('GET', KEYS[3])
  if saved then return {2, saved} end
end
local i = 5
local function take()
  local n = tonumber(ARGV[i])
  local words = {}
  for j = 1, n do words[j] = ARGV[i + j] end
  i = i + n + 1
  return words
end
local record = take()
-- The log entries first, one version each, the last at ARGV[2]: an ID at or below the top
-- (a bug) fails here, before any write.
local count_entries = tonumber(ARGV[i])
i = i + 1
local entries = {}
for e = 1, count_entries do entries[e] = take() end
local outbox = take()
local first = tonumber(ARGV[2]) - count_entries + 1
for e = 1, count_entries do
  redis.call('XADD', KEYS[2], tostring(first + e - 1) .. '-0', unpack(entries[e]))
end
redis.call('HSET', KEYS[1], unpack(record))
if has_idem then redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[4], 'NX') end
local pending = 0
if #outbox > 0 then
  redis.call('XADD', KEYS[4], ARGV[2] .. '-0', unpack(outbox))
  pending = redis.call('XLEN', KEYS[4])
end
local count = tonumber(ARGV[i])
i = i + 1
for c = 1, count do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return {1, pending}
"""

COMMITTED, MOVED, REPLAY = 1, 0, 2

#: A game's record and its log entries after a version, in one atomic step (as ``read_log``'s
#: MULTI): sent behind a blocking XREAD in one pipeline, it runs the moment the XREAD returns
#: (``LogWatch.wait_read``, service/store/games.py). The record comes without its state, the
#: biggest field, which a stream's redaction does not need.
#: KEYS: record, events; ARGV: the exclusive start ID, the count.
READ_LOG_LUA = """
local all = redis.call('HGETALL', KEYS[1])
local record = {}
for i = 1, #all, 2 do
  if all[i] ~= 'state' then
    record[#record + 1] = all[i]
    record[#record + 1] = all[i + 1]
  end
end
local entries = redis.call('XRANGE', KEYS[2], ARGV[1], '+', 'COUNT', ARGV[2])
return {record, entries}
"""

#: Compaction of a finished game: its whole log into the record's ``log`` field, the stream
#: deleted, unless the game moved on since it was read; with it, the state written back (when
#: not "") and the fields the log gives back deleted (``Store.compact``). KEYS: record, log;
#: ARGV: version, log, state, fields to delete.
COMPACT_LUA = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'log', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'state', ARGV[3]) end
for i = 4, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
redis.call('DEL', KEYS[2])
return 1
"""


@functools.cache
def _unconnected() -> redis.Redis:
    # One per process: a client connects only when a command is sent, and building one is
    # costly (redis-py reads its own package metadata), so pipelines share it.
    return redis.Redis(host="unused.invalid")


def recorder() -> Pipeline:
    """A pipeline that records commands and is never executed (it has no server)."""
    return _unconnected().pipeline(transaction=False)


def commands_of(pipe: Pipeline) -> list[Command]:
    """The commands recorded in ``pipe``, encoded as Redis receives them."""
    encoder = pipe.get_encoder()
    return [[encoder.encode(word) for word in args] for args, _options in pipe.command_stack]


def flatten(commands: list[Command]) -> list[bytes]:
    """``commands`` as script arguments: their count, then each as its length and words."""
    out: list[bytes] = [str(len(commands)).encode()]
    for command in commands:
        out.append(str(len(command)).encode())
        out += command
    return out


def pack(commands: list[Command]) -> bytes:
    """``commands`` in one string (an outbox field): netstrings, binary-safe."""
    return b"".join(b"%d:%s," % (len(word), word) for word in flatten(commands))


def unpack(packed: bytes) -> list[Command]:
    words: list[bytes] = []
    at = 0
    while at < len(packed):
        colon = packed.index(b":", at)
        size = int(packed[at:colon])
        words.append(packed[colon + 1 : colon + 1 + size])
        at = colon + size + 2
    commands: list[Command] = []
    at = 1
    for _ in range(int(words[0])):
        size = int(words[at])
        commands.append(words[at + 1 : at + 1 + size])
        at += size + 1
    return commands


@dataclass
class Writes:
    """What a commit brings along beyond its game's keys, recorded: ``queue`` on the queue
    Redis (owed jobs, rq), ``others`` on the game store outside the game's slot (indexes)."""

    queue: Pipeline = field(default_factory=recorder)
    others: Pipeline = field(default_factory=recorder)


def words(mapping: dict[str, Any]) -> list[Any]:
    """A mapping as alternating field and value, for HSET and XADD in a script."""
    out: list[Any] = []
    for name, value in mapping.items():
        out += [name, value]
    return out


def run_script(pipe: Any, lua: str, keys: Sequence[str], args: Sequence[Any]) -> None:
    """Queue ``lua`` (its text: EVAL, never NOSCRIPT) in ``pipe``, a cluster's pipeline too:
    redis-py's cluster pipeline has no ``eval``, but routes an EVAL by its first key."""
    pipe.execute_command("EVAL", lua, len(keys), *keys, *args)
