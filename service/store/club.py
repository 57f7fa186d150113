"""The players a player follows: a small set per player (service/store/keys.py
``player_following_key``), in the follower's slot."""

from __future__ import annotations

from typing import Any

from service.store.keys import player_following_key

#: At most this many players followed: the feed reads each one's latest games per request.
MAX_FOLLOWING = 50

#: Add unless the set is full. KEYS: the set. ARGV: the player, the limit.
#: Returns 1 added, 0 already there, -1 full.
FOLLOW_LUA = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
return redis.call('SADD', KEYS[1], ARGV[1])
"""


def follow(r: Any, player_id: str, other_id: str) -> int:
    """1: now followed, 0: followed already, -1: the set is full (MAX_FOLLOWING)."""
    script = r.register_script(FOLLOW_LUA)
    return int(script(keys=[player_following_key(player_id)], args=[other_id, MAX_FOLLOWING]))


def unfollow(r: Any, player_id: str, other_id: str) -> bool:
    return bool(r.srem(player_following_key(player_id), other_id))


def following(r: Any, player_id: str) -> list[str]:
    return sorted(r.smembers(player_following_key(player_id)))


def follows(r: Any, player_id: str, other_id: str) -> bool:
    return bool(r.sismember(player_following_key(player_id), other_id))
