"""Blocks, private notes and moderation (``store.blocks``, ``store.notes``, ``store.moderation``).

What they mean, and who may read them, is service/domain/blocks.py's, notes.py's and
moderation.py's; this keeps them.

Keys (service/store/keys.py):

- ``kurier:player:{p}:blocks`` set (``player_blocks_key``): the players ``p`` blocks, at most
  ``MAX_BLOCKS``; ``kurier:player:{p}:blocked-by`` set (``player_blocked_by_key``): who blocks
  ``p`` (two slots: written blocker first, so a crash in between leaves a block that hides
  messages but does not yet keep a table apart, never the other way round).
- ``kurier:player:{p}:notes`` hash (``player_notes_key``): game id -> ``p``'s note (JSON).
- ``kurier:player:{p}:warnings`` list (``player_warnings_key``): warnings given to ``p``.
- ``kurier:{moderation}:moderators`` set, ``:reports`` hash, ``:reports:open`` sorted set and
  ``:audit`` stream (one hash tag: an action and its audit entry are one script).
- The player's hash (service/store/players.py) field ``suspended``: the suspension (JSON),
  empty when there is none.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from service.store.connections import Connections, as_dict
from service.store.keys import (
    AUDIT_LOG,
    MODERATORS,
    OPEN_REPORTS,
    REPORTS,
    player_blocked_by_key,
    player_blocks_key,
    player_key,
    player_notes_key,
    player_warnings_key,
)
from service.store.record import as_text
from service.store.writes import run_script

#: At most this many players blocked by one player.
MAX_BLOCKS = 500
#: Warnings kept per player (the audit log keeps every one).
MAX_WARNINGS = 50

#: Add unless the set is full. KEYS: the set. ARGV: the player, the limit.
#: Returns 1 added, 0 already there, -1 full.
ADD_BOUNDED_LUA = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
return redis.call('SADD', KEYS[1], ARGV[1])
"""

#: A report, once per id. KEYS: reports, open reports. ARGV: id, JSON, time.
#: Returns 1 made, 0 made before (the same reporter, the same item).
REPORT_LUA = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

#: An action: its audit entry, and the report it settles closed. KEYS: audit, reports, open.
#: ARGV: the entry's JSON, the report id ('' for none), the report's JSON when closed.
#: Returns the audit entry's id.
ACTION_LUA = """
local id = redis.call('XADD', KEYS[1], '*', 'entry', ARGV[1])
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  redis.call('ZREM', KEYS[3], ARGV[2])
end
return id
"""


class Blocks:
    """Who blocks whom (``store.blocks``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def add(self, player_id: str, other_id: str) -> int:
        """1: now blocked, 0: blocked already, -1: the list is full (MAX_BLOCKS)."""
        key = player_blocks_key(player_id)
        added = self.connections.write(
            lambda pipe: run_script(pipe, ADD_BOUNDED_LUA, [key], [other_id, MAX_BLOCKS])
        )
        if int(added[0]) >= 0:  # again when blocked already: a crash may have left it out
            back = player_blocked_by_key(other_id)
            self.connections.write(lambda pipe: pipe.sadd(back, player_id))
        return int(added[0])

    def remove(self, player_id: str, other_id: str) -> None:
        key, back = player_blocks_key(player_id), player_blocked_by_key(other_id)
        self.connections.write(lambda pipe: pipe.srem(key, other_id))
        self.connections.write(lambda pipe: pipe.srem(back, player_id))

    def of(self, player_id: str) -> set[str]:
        """The players ``player_id`` blocks."""
        return set(self.connections.r.smembers(player_blocks_key(player_id)))

    def blocks(self, player_id: str, other_id: str) -> bool:
        """Does ``player_id`` block ``other_id``?"""
        return bool(self.connections.r.sismember(player_blocks_key(player_id), other_id))

    def apart(self, player_id: str) -> set[str]:
        """The players ``player_id`` must not share a table with: those it blocks and those
        who block it (both in its slot: one round trip)."""
        with self.connections.r.pipeline(transaction=False) as pipe:
            pipe.smembers(player_blocks_key(player_id))
            pipe.smembers(player_blocked_by_key(player_id))
            mine, theirs = pipe.execute()
        return set(mine) | set(theirs)

    def among(self, player_ids: Iterable[str]) -> set[frozenset[str]]:
        """The pairs of ``player_ids`` of which one blocks the other (one round trip)."""
        ids = list(player_ids)
        with self.connections.r.pipeline(transaction=False) as pipe:
            for player_id in ids:
                pipe.smembers(player_blocks_key(player_id))
            found = pipe.execute()
        wanted = set(ids)
        return {
            frozenset((player_id, other))
            for player_id, blocked in zip(ids, found, strict=True)
            for other in blocked
            if other in wanted and other != player_id
        }


class Notes:
    """Each player's private notes on games (``store.notes``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def get(self, player_id: str, game_id: str) -> dict[str, Any] | None:
        found = self.connections.r.hget(player_notes_key(player_id), game_id)
        return json.loads(found) if found else None

    def put(self, player_id: str, game_id: str, text: str) -> dict[str, Any]:
        note = {"text": text, "updated_at": time.time()}
        key = player_notes_key(player_id)
        self.connections.write(lambda pipe: pipe.hset(key, game_id, json.dumps(note)))
        return note


class Moderation:
    """Moderators, reports, suspensions, warnings and the audit log (``store.moderation``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    # -- moderators --------------------------------------------------------------------------

    def moderators(self) -> list[str]:
        return sorted(self.connections.r.smembers(MODERATORS))

    def is_moderator(self, player_id: str) -> bool:
        return bool(self.connections.r.sismember(MODERATORS, player_id))

    def set_moderator(self, player_id: str, granted: bool) -> bool:
        """Grant (or revoke) the role; whether that changed anything."""
        if granted:
            done = self.connections.write(lambda pipe: pipe.sadd(MODERATORS, player_id))
        else:
            done = self.connections.write(lambda pipe: pipe.srem(MODERATORS, player_id))
        return bool(done[0])

    # -- reports -----------------------------------------------------------------------------

    def report(self, report: Mapping[str, Any]) -> bool:
        """Keep a new report (open); False if that id was reported before."""
        args = [report["id"], json.dumps(dict(report)), report["at"]]
        made = self.connections.write(
            lambda pipe: run_script(pipe, REPORT_LUA, [REPORTS, OPEN_REPORTS], args)
        )
        return bool(int(made[0]))

    def get_report(self, report_id: str) -> dict[str, Any] | None:
        found = self.connections.r.hget(REPORTS, report_id)
        return json.loads(found) if found else None

    def open_reports(
        self, limit: int, after: tuple[float, str] | None = None
    ) -> list[dict[str, Any]]:
        """The open reports, oldest first (by when they were made, then by id); with
        ``after`` (a report's time and id), only those that come after it."""
        r = self.connections.r
        if after is None:
            ids = r.zrange(OPEN_REPORTS, 0, limit - 1)
        else:
            at, report_id = after
            ties = [i for i in r.zrange(OPEN_REPORTS, at, at, byscore=True) if i > report_id]
            later = r.zrange(OPEN_REPORTS, f"({at!r}", "+inf", byscore=True, offset=0, num=limit)
            ids = (ties + later)[:limit]
        if not ids:
            return []
        found = self.connections.r.hmget(REPORTS, ids)
        return [json.loads(raw) for raw in found if raw]

    # -- actions and the audit log -----------------------------------------------------------

    def record(self, entry: Mapping[str, Any], closed: Mapping[str, Any] | None) -> str:
        """Append ``entry`` to the audit log, and keep ``closed`` (a report this action
        settles) as closed; returns the entry's id."""
        args = [json.dumps(dict(entry)), closed["id"] if closed else "", json.dumps(closed or {})]
        keys = [AUDIT_LOG, REPORTS, OPEN_REPORTS]
        done = self.connections.write(lambda pipe: run_script(pipe, ACTION_LUA, keys, args))
        return as_text(done[0])

    def audit(self, before: str | None, limit: int) -> list[tuple[str, dict[str, Any]]]:
        """Audit entries, newest first, older than the id ``before``."""
        high = f"({before}" if before else "+"
        found = self.connections.r.xrevrange(AUDIT_LOG, max=high, min="-", count=limit)
        return [
            (as_text(entry_id), json.loads(as_dict(fields)["entry"])) for entry_id, fields in found
        ]

    def is_suspended(self, player_id: str) -> bool:
        return bool(self.connections.r.hget(player_key(player_id), "suspended"))

    def suspend(self, player_id: str, suspension: Mapping[str, Any] | None) -> None:
        """Mark the player suspended (``suspension``: when, why) or, with None, no longer."""
        value = json.dumps(dict(suspension)) if suspension else ""
        key = player_key(player_id)
        self.connections.write(lambda pipe: pipe.hset(key, "suspended", value))

    def warn(self, player_id: str, warning: Mapping[str, Any]) -> None:
        key = player_warnings_key(player_id)
        self.connections.write(
            lambda pipe: (
                pipe.lpush(key, json.dumps(dict(warning))),
                pipe.ltrim(key, 0, MAX_WARNINGS - 1),
            )
        )

    def warnings(self, player_id: str) -> list[dict[str, Any]]:
        found = self.connections.r.lrange(player_warnings_key(player_id), 0, MAX_WARNINGS - 1)
        return [json.loads(raw) for raw in found]
