"""Bearer tokens: made, listed, revoked, and whose each is, cached per process and checked.

Keys (service/store/keys.py):

- ``kurier:auth:token:<sha256(token)>`` hash (``token_key``): the player a token stands for
  (``player``) and its ``scopes``. Only the token's hash is a key: a database leak yields no
  usable token.
- ``kurier:player:{p}:tokens`` hash (``player_tokens_key``): the player's tokens, token id ->
  JSON (name, created_at, the token's key), so that a player sees and revokes their own.
- ``kurier:streamticket:<sha256(ticket)>`` string (``stream_ticket_key``), for a minute: the
  key of the token a one-time stream ticket stands for (``stream_ticket``).

A process remembers whose a token was (``TokenCache``), as a guess only, for
``TOKEN_GUESS_SECONDS``: every request checks it in its first round trip (``checked_player``,
with the reads service/store/early.py keeps for the rest of the request), so a revoked token is
refused at its next request in every process. What a token opened and keeps open (a stream, a
web session made with it) asks again now and then (``stands_for``) and ends once it is revoked.
"""

from __future__ import annotations

import functools
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import redis

from service.store.connections import Connections
from service.store.early import NOTICE_FIELDS, EarlyReads, early_keys
from service.store.keys import player_key, player_tokens_key, stream_ticket_key, token_key
from service.store.record import as_text

TOKEN_PREFIX = "kur_pat_"
SCOPES = "game:read game:play"
#: How long a process remembers whose a token was as a guess that the next request checks in
#: the same round trip as its other reads (``checked_player``): a guess trusts nothing.
TOKEN_GUESS_SECONDS = 600.0


class TokenCache:
    """Token key -> the player id last seen for it, remembered for ``seconds`` per process: a
    guess that lets the token's owner and the player's record be read in one round trip
    (``checked_player``), never an answer trusted without that read."""

    def __init__(self, seconds: float = TOKEN_GUESS_SECONDS, size: int = 10_000) -> None:
        self.seconds = seconds
        self.size = size
        self._entries: dict[str, tuple[str, float]] = {}

    def get(self, key: str) -> str | None:
        entry = self._entries.get(key)
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    def forget(self, key: str) -> None:
        self._entries.pop(key, None)

    def put(self, key: str, player_id: str) -> None:
        if len(self._entries) >= self.size:
            self._entries.clear()  # rare: a burst of distinct tokens; refilled on demand
        self._entries[key] = (player_id, time.monotonic() + self.seconds)


#: Stream tickets (docs/api.md, "Streams"): the API's 307 to the stream server carries one in
#: its URL for a caller who sent a token, because HTTP clients drop ``Authorization`` when a
#: redirect changes the port; the stream server takes it in the token's place, once.
STREAM_TICKET_PREFIX = "kur_stk_"
STREAM_TICKET_PATTERN = r"^kur_stk_[A-Za-z0-9_-]{32}$"
STREAM_TICKET_SECONDS = 60


class Tokens:
    """The tokens repository (``store.tokens``)."""

    def __init__(self, connections: Connections, early: EarlyReads) -> None:
        self.connections = connections
        self.early = early
        self._guesses = TokenCache()

    def create(self, player_id: str, name: str) -> dict[str, Any]:
        """A new bearer token for ``player_id``; the token itself is in the answer only."""
        write = self.connections.write
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token_id = "t_" + secrets.token_hex(6)
        listed = {"id": token_id, "name": name, "created_at": time.time()}
        stored = json.dumps({**listed, "key": token_key(token)})
        # Listed before it works: a token never exists that its player cannot see and revoke.
        write(lambda pipe: pipe.hset(player_tokens_key(player_id), token_id, stored))
        # Only the token's hash is stored: a database leak yields no usable token.
        mapping = {"player": player_id, "scopes": SCOPES}
        write(lambda pipe: pipe.hset(token_key(token), mapping=mapping))
        return {**listed, "token": token}

    def listed(self, player_id: str) -> list[dict[str, Any]]:
        """The player's tokens, oldest first, without their keys."""
        stored = [json.loads(v) for v in self.connections.r.hvals(player_tokens_key(player_id))]
        return sorted(
            ({k: v for k, v in t.items() if k != "key"} for t in stored),
            key=lambda t: t["created_at"],
        )

    def revoke(self, player_id: str, token_id: str) -> bool:
        """Delete a token of ``player_id`` (False if it has none by that id)."""
        write = self.connections.write
        stored = self.connections.r.hget(player_tokens_key(player_id), token_id)
        if stored is None:
            return False
        key = json.loads(stored)["key"]
        write(lambda pipe: pipe.delete(key))  # it stops working first, then it leaves the list
        write(lambda pipe: pipe.hdel(player_tokens_key(player_id), token_id))
        self._guesses.forget(key)
        return True

    def owner(self, token: str) -> str | None:
        """The id of the player ``token`` stands for now (None: nobody), read from Redis."""
        key = token_key(token)
        player_id: str | None = self.connections.r.hget(key, "player")
        if player_id:
            self._guesses.put(key, player_id)
        else:
            self._guesses.forget(key)
        return player_id

    @staticmethod
    def key_of(token: str) -> str:
        """The key ``token`` is stored under (its hash): what may be kept instead of it."""
        return token_key(token)

    def stands_for(self, key: str, player_id: str) -> bool:
        """Whether the token stored under ``key`` (``key_of``) still stands for ``player_id``:
        one read, asked now and then by what the token opened (a stream, a web session)."""
        return bool(self.connections.r.hget(key, "player") == player_id)

    def stream_ticket(self, token: str) -> str:
        """A one-time ticket standing for ``token`` for ``STREAM_TICKET_SECONDS``. It names the
        token (its key), not the player: a token revoked meanwhile opens nothing with it."""
        return self.stream_ticket_for(token_key(token))

    def stream_ticket_for(self, key: str) -> str:
        """A one-time ticket standing for what is stored under ``key``: a token's key, or a
        browser session's (service/domain/websessions.py), either a hash naming its
        ``player``. The stream it opens ends once ``key`` no longer names that player."""
        ticket = STREAM_TICKET_PREFIX + secrets.token_urlsafe(24)
        r = self.connections.r
        r.set(stream_ticket_key(ticket), key, ex=STREAM_TICKET_SECONDS)
        return ticket

    def ticket_owner(self, ticket: str) -> tuple[str, str] | None:
        """The key of the token a stream ticket stands for and its player, once (None:
        unknown, used, expired, or its token revoked). Used once, a URL that leaked into a log
        opens nothing; the key lets the stream ask later whether the token still stands."""
        r = self.connections.r
        key = r.getdel(stream_ticket_key(ticket))
        player_id = r.hget(key, "player") if key else None
        return (key, player_id) if key and player_id else None

    def known_player(self, token: str) -> str | None:
        """The player id this process saw for ``token`` in the last ``TOKEN_GUESS_SECONDS``
        (no Redis call): a guess that ``checked_player`` confirms."""
        return self._guesses.get(token_key(token))

    def checked_player(
        self,
        token: str,
        player_id: str,
        counting: Counting | None = None,
        early: tuple[str, str | None] | None = None,
    ) -> tuple[bool | None, dict[str, str]]:
        """One round trip, one script (``FIRST_READ_LUA``; on one Redis, since its keys are in
        several slots): ``counting``'s count (the rate limiter's), the token's owner and
        ``player_id``'s whole hash. Whether the count stayed within its limit (None: none
        asked), and the hash if the token still belongs to ``player_id`` (else ``{}``, and the
        guess is forgotten): a revoked token is refused at its next request in every process.

        ``early``: a game id and idempotency key whose transaction this request will make; its
        first read goes in the same round trip and is kept for it (service/store/early.py)."""
        key = token_key(token)
        early = early if self.connections.colocated else None
        # The players of the game as last seen here: the notices of the move need their fields.
        seated = (self.early.seats.get(early[0]) or ()) if early else ()
        count_keys, count_args = (counting.keys, counting.args) if counting else ((), ())
        reads = early_keys(*early) if early else ()
        keys = [*count_keys, key, player_key(player_id), *reads, *map(player_key, seated)]
        args = [len(count_keys), len(count_args), *count_args, len(reads), *NOTICE_FIELDS]
        lua = first_read_lua(counting.lua if counting else b"return true")
        sha = self.connections.loaded_script(f"first_read:{hash(lua)}", lua)
        raw_client = self.connections.raw
        try:
            replies = raw_client.evalsha(sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:  # a restarted Redis: load it, ask once more
            raw_client.script_load(lua)
            replies = raw_client.evalsha(sha, len(keys), *keys, *args)
        within, owner, flat = replies[:3]
        if as_text(owner) != player_id or not flat:
            self._guesses.forget(key)
            return (bool(within) if counting else None), {}
        if early:
            record = replies[3]
            self.early.keep((*early, _as_dict(record), replies[4] if early[1] else None))
        fields = replies[3 + len(reads) :]
        self.early.keep_notice_fields(dict(zip(seated, fields, strict=True)))
        raw = _as_dict(flat)
        return (bool(within) if counting else None), {
            as_text(k): as_text(v) for k, v in raw.items()
        }


def _as_dict(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash as a script returns it (field, value, field, value, ...) as a dict."""
    pairs = iter(flat)
    return dict(zip(pairs, pairs, strict=True))


@dataclass(frozen=True)
class Counting:
    """A count that a request's first round trip makes beside its reads (the rate limiter's):
    ``lua``, a Redis script's text, runs there as a function of ``keys`` and ``args`` (its
    ``KEYS`` and ``ARGV``); a true answer means counted within the limit."""

    lua: bytes
    keys: tuple[str, ...]
    args: tuple[Any, ...]


#: A request's first round trip (``Tokens.checked_player``). KEYS: the count's keys, the
#: token's key, the player's key, the transaction's early reads (service/store/early.py:
#: the game's record, its idempotency record) and the seated players' keys; ARGV: how many
#: of the keys and arguments are the count's, the count's arguments, how many early reads,
#: and the notice fields. The reads come before the count: a read refused (a key of another
#: type) stops the script before anything is counted.
FIRST_READ_LUA = b"""
local function count(KEYS, ARGV)
%s
end
local count_keys, count_args = tonumber(ARGV[1]), tonumber(ARGV[2])
local reads = tonumber(ARGV[3 + count_args])
local k = count_keys + 1
local replies = {0, redis.call('HGET', KEYS[k], 'player'), redis.call('HGETALL', KEYS[k + 1])}
k = k + 2
if reads > 0 then replies[4] = redis.call('HGETALL', KEYS[k]) end
if reads > 1 then replies[5] = redis.call('GET', KEYS[k + 1]) end
for i = k + reads, #KEYS do
    replies[#replies + 1] = redis.call('HMGET', KEYS[i], unpack(ARGV, 4 + count_args))
end
local own_keys, own_args = {}, {}
for i = 1, count_keys do own_keys[i] = KEYS[i] end
for i = 1, count_args do own_args[i] = ARGV[2 + i] end
if count(own_keys, own_args) then replies[1] = 1 end
return replies
"""


@functools.cache
def first_read_lua(count: bytes) -> bytes:
    """``FIRST_READ_LUA`` with ``count`` as its count's body."""
    return FIRST_READ_LUA % count
