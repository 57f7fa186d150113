"""The players a player follows (``store.follows``): a small set per player, in the follower's
slot.

Keys (service/store/keys.py):

- ``kurier:player:{p}:following`` set (``player_following_key``): the players ``p`` follows,
  at most MAX_FOLLOWING.
"""

from __future__ import annotations

from service.store.connections import Connections
from service.store.keys import player_following_key
from service.store.writes import run_script

#: At most this many players followed: the feed reads each one's latest games per request.
MAX_FOLLOWING = 50

#: Add unless the set is full. KEYS: the set. ARGV: the player, the limit.
#: Returns 1 added, 0 already there, -1 full.
FOLLOW_LUA = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
return redis.call('SADD', KEYS[1], ARGV[1])
"""


class Follows:
    """The follows repository (``store.follows``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def add(self, player_id: str, other_id: str) -> int:
        """1: now followed, 0: followed already, -1: the set is full (MAX_FOLLOWING)."""
        key = player_following_key(player_id)
        added = self.connections.write(
            lambda pipe: run_script(pipe, FOLLOW_LUA, [key], [other_id, MAX_FOLLOWING])
        )
        return int(added[0])

    def remove(self, player_id: str, other_id: str) -> bool:
        key = player_following_key(player_id)
        return bool(self.connections.write(lambda pipe: pipe.srem(key, other_id))[0])

    def of(self, player_id: str) -> list[str]:
        """Whom ``player_id`` follows, by id."""
        return sorted(self.connections.r.smembers(player_following_key(player_id)))

    def follows(self, player_id: str, other_id: str) -> bool:
        return bool(self.connections.r.sismember(player_following_key(player_id), other_id))
