"""What a move's request reads in its first round trip, for later in the same request.

A move through the API reads Redis first in one script with the rate limiter's count (the
token check, ``Tokens.checked_player`` in service/store/tokens.py). That script also makes the
transaction's first read (the game's record and idempotency record, ``early_keys``), which
``Store.transact`` (service/store/games.py) then takes instead of reading again, and the
notice fields of the players seated in the game as this process last saw it
(``NOTICE_FIELDS``), which ``Players.notice_fields`` (service/store/players.py) serves
when the move notifies them. The commit's compare-and-set judges the early read like any
other; the notice fields are read during the request either way.

What is kept belongs to one request: per thread (a greenlet under gevent), taken once, and
dropped when the request ends (``EarlyReads.forget``, service/domain/ratelimit.py).

Keys: none of its own; it queues reads of the game's record and idempotency record
(``kurier:game:{g}``, ``kurier:game:{g}:idem:…``) and of players' hashes (``kurier:player:{p}``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from service.common.lru import Lru
from service.store.keys import game_key, player_key

#: The fields of a player's record that decide whether a notice goes out to them
#: (service/domain/notifications.py, service/domain/prefs.py).
NOTICE_FIELDS = ("email", "webhook_url", "webhook_disabled", "notify")
#: Games whose seats a process remembers, so that a move's first round trip also reads the
#: seated players' NOTICE_FIELDS (``Tokens.checked_player``).
SEATS_REMEMBERED = 10_000

#: A transaction's first read as kept: game id, idempotency key, the record's hash and the
#: idempotency record (None: none asked or none stored).
Read = tuple[str, str | None, dict[bytes, bytes], bytes | None]


def queue_read(pipe: Any, game_id: str, ikey: str | None) -> None:
    """A transaction's first read into ``pipe``: the record, and the idempotency record."""
    record, *idempotency = early_keys(game_id, ikey)
    pipe.hgetall(record)
    for key in idempotency:
        pipe.get(key)


def early_keys(game_id: str, ikey: str | None) -> tuple[str, ...]:
    """The keys of a transaction's first read: the record's hash, and the idempotency
    record's string if a key was given."""
    return (game_key(game_id), ikey) if ikey else (game_key(game_id),)


def queue_notice_fields(pipe: Any, player_ids: Iterable[str]) -> None:
    for player_id in player_ids:
        pipe.hmget(player_key(player_id), NOTICE_FIELDS)


class _Kept(threading.local):
    """This thread's request: what its first round trip read early (None: nothing)."""

    read: Read | None = None
    notice_fields: dict[str, Any] | None = None


class EarlyReads:
    """The reads kept per thread, and the seats of the games this process committed to."""

    def __init__(self) -> None:
        self._kept = _Kept()
        #: game id -> its players by seat, as this process's last commit to it left them.
        self.seats: Lru[tuple[str, ...]] = Lru(SEATS_REMEMBERED)

    def keep(self, read: Read) -> None:
        self._kept.read = read

    def take(
        self, game_id: str, ikey: str | None
    ) -> tuple[dict[bytes, bytes], bytes | None, None] | None:
        """The kept read if it is this transaction's (same game, same idempotency key) as
        ``Store._read`` answers it (no outbox mark: an early read is made only colocated);
        either way it is gone afterwards."""
        kept = self._kept.read
        self._kept.read = None
        if kept is None or kept[:2] != (game_id, ikey):
            return None
        return kept[2], kept[3], None

    def keep_notice_fields(self, fields: dict[str, Any]) -> None:
        self._kept.notice_fields = fields

    def notice_fields(self) -> dict[str, Any] | None:
        """Player id -> NOTICE_FIELDS' values as read early (None: nothing was)."""
        return self._kept.notice_fields

    def forget(self) -> None:
        """Drop what no transaction took (the request was refused first): the next request on
        this thread must not find it."""
        self._kept.read = None
        self._kept.notice_fields = None
