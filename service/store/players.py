"""Players: made (with a first token), read, found by address, changed.

Keys (service/store/keys.py):

- ``kurier:player:{p}`` hash (``player_key``): the player's record (``id``, ``name``,
  ``email``, ``created_at``) and preferences (service/domain/prefs.py writes those fields).
- ``kurier:email:<sha256(address)>`` set (``email_key``): the players who gave an address
  (hashed: no address in a key).

A player's other keys belong elsewhere: tokens to service/store/tokens.py, the game list to the
game writer (service/store/games.py) and service/store/indexes.py, ratings and finished games
to service/domain/ratings.py.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Any

from service.store.connections import Connections
from service.store.early import NOTICE_FIELDS, EarlyReads, queue_notice_fields
from service.store.keys import email_key, player_key
from service.store.record import as_text
from service.store.tokens import Tokens


class Players:
    """The players repository (``store.players``)."""

    def __init__(self, connections: Connections, early: EarlyReads, tokens: Tokens) -> None:
        self.connections = connections
        self.early = early
        self.tokens = tokens

    def create(self, name: str, email: str | None) -> tuple[dict[str, Any], str]:
        """A new player and its first token."""
        write = self.connections.write
        player_id = "p_" + secrets.token_hex(8)
        player = {"id": player_id, "name": name, "email": email or "", "created_at": time.time()}
        # Several slots of a cluster, so several writes: the player first, then the token that
        # names it (a crash in between leaves a player nobody can act as, never a token to
        # nobody).
        fields = {k: str(v) for k, v in player.items()}
        write(lambda pipe: pipe.hset(player_key(player_id), mapping=fields))
        if email:
            write(lambda pipe: pipe.sadd(email_key(email), player_id))
        token = self.tokens.create(player_id, "first token")["token"]
        return self.from_hash(player), token

    def get(self, player_id: str) -> dict[str, Any] | None:
        raw = self.connections.r.hgetall(player_key(player_id))
        return self.from_hash(raw) if raw else None

    def for_token(self, token: str) -> dict[str, Any] | None:
        """The player a bearer token stands for now (None: nobody): read from Redis at every
        call, so a token revoked in any process is refused here at once. A token this process
        saw lately costs one round trip on one Redis (its owner and the guessed player's record
        together, in one script: ``Tokens.checked_player``), another two (and any on a
        cluster, where the two keys are in different slots)."""
        guess = self.tokens.known_player(token)
        if guess is not None and self.connections.mode != "cluster":
            _within, raw = self.tokens.checked_player(token, guess)
            if raw:
                return self.from_hash(raw)
        player_id = self.tokens.owner(token)
        return self.get(player_id) if player_id else None

    def with_email(self, email: str) -> list[dict[str, Any]]:
        """The players who gave ``email`` (an address may serve several players)."""
        ids = sorted(self.connections.r.smembers(email_key(email)))
        found = [self.get(player_id) for player_id in ids]
        return [p for p in found if p and (p["email"] or "").lower() == email.strip().lower()]

    def hash(self, player_id: str) -> dict[str, str]:
        """The player's whole hash (record and preferences), read once."""
        fields: dict[str, str] = self.connections.r.hgetall(player_key(player_id))
        return fields

    @staticmethod
    def from_hash(raw: Mapping[str, Any]) -> dict[str, Any]:
        """The player as the API shows it, from its hash (or a hash's worth of fields)."""
        player = {
            "id": raw["id"],
            "name": raw["name"],
            "email": raw.get("email") or None,
            "created_at": float(raw["created_at"]),
        }
        if raw.get("suspended"):  # a moderator suspended the account (service/store/social.py)
            player["suspended"] = True
        if raw.get("leave_until"):  # a move ends a running leave (service/domain/leave.py)
            player["leave_until"] = float(raw["leave_until"])
        return player

    def update(self, player_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        write = self.connections.write
        if "email" in changes:
            old = self.connections.r.hget(player_key(player_id), "email")
            if old:
                write(lambda pipe: pipe.srem(email_key(old), player_id))
            if changes.get("email"):
                write(lambda pipe: pipe.sadd(email_key(changes["email"]), player_id))
        if changes:
            values = {k: "" if v is None else str(v) for k, v in changes.items()}
            write(lambda pipe: pipe.hset(player_key(player_id), mapping=values))
        player = self.get(player_id)
        assert player is not None
        return player

    def notice_fields(self, player_ids: list[str]) -> list[dict[str, str | None]]:
        """Each player's NOTICE_FIELDS (None where unset): as read in this request's first
        round trip when it read them all (``Tokens.checked_player``), else in one round trip
        now. Either way read during the request, as fresh as the move's own read."""
        kept = self.early.notice_fields() or {}
        if all(player_id in kept for player_id in player_ids):
            rows = [kept[player_id] for player_id in player_ids]
        else:
            with self.connections.raw.pipeline(transaction=False) as pipe:
                queue_notice_fields(pipe, player_ids)
                rows = pipe.execute()
        return [
            {
                name: None if value is None else as_text(value)
                for name, value in zip(NOTICE_FIELDS, row, strict=True)
            }
            for row in rows
        ]
