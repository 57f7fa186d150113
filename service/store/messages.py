"""A game's messages (table talk and private), beside its log: they change no version.

What a message may say and who may read it is service/domain/messages.py's; this keeps them.

Keys (service/store/keys.py):

- ``kurier:game:{g}:messages`` stream (``messages_key``): one entry per message, its ID when it
  was posted.
- ``kurier:game:{g}:messages:hidden`` set (``hidden_messages_key``): the ids of the messages
  the game's creator hid.
- ``kurier:player:{p}:messages:<window>`` counter (``message_rate_key``): a player's messages in
  one rate-limit window, expiring.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.store.connections import Connections, as_dict
from service.store.keys import hidden_messages_key, message_rate_key, messages_key
from service.store.record import as_text

Message = tuple[str, dict[str, str]]


class Messages:
    """The messages repository (``store.messages``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def add(self, game_id: str, fields: Mapping[str, str]) -> str:
        """Append a message to the game's message stream; returns its id."""
        added = self.connections.write(lambda pipe: pipe.xadd(messages_key(game_id), dict(fields)))
        return as_text(added[0])

    def read(self, game_id: str, after: str | None, count: int) -> tuple[list[Message], set[str]]:
        """Messages after the id ``after`` (oldest first), and the ids of hidden ones."""
        low = f"({after}" if after else "-"
        with self.connections.raw.pipeline(transaction=True) as pipe:  # one slot: the game's
            pipe.xrange(messages_key(game_id), min=low, max="+", count=count)
            pipe.smembers(hidden_messages_key(game_id))
            entries, hidden = pipe.execute()
        out = [
            (as_text(entry_id), {as_text(k): as_text(v) for k, v in as_dict(fields).items()})
            for entry_id, fields in entries
        ]
        return out, {as_text(h) for h in hidden}

    def get(self, game_id: str, message_id: str) -> dict[str, str] | None:
        found = self.connections.raw.xrange(messages_key(game_id), min=message_id, max=message_id)
        if not found:
            return None
        return {as_text(k): as_text(v) for k, v in as_dict(found[0][1]).items()}

    def near(
        self, game_id: str, message_id: str, count: int
    ) -> tuple[list[Message], list[Message]]:
        """Up to ``count`` messages before ``message_id`` (oldest first) and after it."""
        key = messages_key(game_id)
        with self.connections.raw.pipeline(transaction=True) as pipe:  # one slot: the game's
            pipe.xrevrange(key, max=f"({message_id}", min="-", count=count)
            pipe.xrange(key, min=f"({message_id}", max="+", count=count)
            before, after = pipe.execute()
        return _decoded(reversed(before)), _decoded(after)

    def hide(self, game_id: str, message_id: str) -> None:
        self.connections.write(lambda pipe: pipe.sadd(hidden_messages_key(game_id), message_id))

    def hidden(self, game_id: str, message_id: str) -> bool:
        return bool(self.connections.raw.sismember(hidden_messages_key(game_id), message_id))

    def count(self, player_id: str, window: int, seconds: int) -> int:
        """One more message of ``player_id`` in rate window ``window``; returns the count.
        Not a ``write``: a count lost in a failover lets a player post a few more, no more."""
        key = message_rate_key(player_id, window)
        with self.connections.r.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, seconds * 2)
            count, _ = pipe.execute()
        return int(count)

    def last_ids(self, game_ids: list[str]) -> list[str]:
        """The ID of each game's newest message ("0-0" for none): where news starts (a
        player's stream, service/domain/streams.py)."""
        with self.connections.blocking.pipeline(transaction=False) as pipe:
            for gid in game_ids:
                pipe.xrevrange(messages_key(gid), max="+", min="-", count=1)
            replies = pipe.execute()
        return [as_text(found[0][0]) if found else "0-0" for found in replies]


def _decoded(entries: Any) -> list[Message]:
    return [
        (as_text(entry_id), {as_text(k): as_text(v) for k, v in as_dict(fields).items()})
        for entry_id, fields in entries
    ]
