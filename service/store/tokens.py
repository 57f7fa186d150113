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

import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from service.store.connections import Connections
from service.store.early import EarlyReads, queue_notice_fields, queue_read
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
        alongside: Callable[[Any], None],
        early: tuple[str, str | None] | None = None,
    ) -> tuple[list[Any], dict[str, str]]:
        """One round trip: ``alongside(pipe)``'s commands (the rate limiter's), the token's
        owner and ``player_id``'s whole hash. Their replies, and the hash if the token still
        belongs to ``player_id`` (else ``{}``, and the guess is forgotten): a revoked token
        is refused at its next request in every process.

        ``early``: a game id and idempotency key whose transaction this request will make; its
        first read goes in the same round trip and is kept for it (service/store/early.py)."""
        key = token_key(token)
        early = early if self.connections.colocated else None
        # The players of the game as last seen here: the notices of the move need their fields.
        seated = (self.early.seats.get(early[0]) or ()) if early else ()
        with self.connections.raw.pipeline(transaction=False) as pipe:
            alongside(pipe)
            pipe.hget(key, "player")
            pipe.hgetall(player_key(player_id))
            if early:
                queue_read(pipe, *early)
            queue_notice_fields(pipe, seated)
            replies = pipe.execute(raise_on_error=False)
        read: list[Any] = []
        fields: list[Any] = []
        if early:
            reads = 2 if early[1] else 1
            cut = len(replies) - reads - len(seated)
            read, fields = replies[cut : cut + reads], replies[cut + reads :]
            replies = replies[:cut]
        *replies, owner, raw = replies
        if isinstance(owner, Exception) or isinstance(raw, Exception):
            raise owner if isinstance(owner, Exception) else raw
        if as_text(owner) != player_id or not raw:
            self._guesses.forget(key)
            return replies, {}
        if early and not any(isinstance(reply, Exception) for reply in read):
            self.early.keep((*early, read[0], read[1] if early[1] else None))
        if not any(isinstance(reply, Exception) for reply in fields):
            self.early.keep_notice_fields(dict(zip(seated, fields, strict=True)))
        return replies, {as_text(k): as_text(v) for k, v in raw.items()}
