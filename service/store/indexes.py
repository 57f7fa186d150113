"""Listings across games: a player's games, the lobby, games' summaries, resolutions owed.

Read-only: the game writer (service/store/games.py) keeps the indexes with the commits that
change them (a player's game list when they take a seat, the lobby while a game has a free
seat), and the owed jobs are written with the commit that makes them due
(service/store/owed.py).

Keys (service/store/keys.py):

- ``kurier:player:{p}:games`` sorted set (``player_games_key``): the player's games, score: the
  game's creation order.
- ``kurier:games:open`` sorted set (``OPEN_GAMES``): open-access games with a free seat, same
  score.
- ``kurier:game:{g}`` hash: a summary's fields (never the secret ones).
- On the queue Redis, ``kurier:owed`` and ``kurier:owed:jobs``: the resolutions owed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from service.store import owed
from service.store.connections import Connections
from service.store.keys import OPEN_GAMES, game_key, player_games_key
from service.store.queues import RESOLVE_JOB

MAX_INDEX = 1000  # games scanned per listing or inbox: bounded work per request
#: The fields of a game's record in its summary: what a listing or an inbox shows.
SUMMARY_FIELDS = (
    "type",
    "status",
    "version",
    "seats",
    "names",
    "pending",
    "max_seats",
    "updated_at",
    "created_at",
    "creator",
    "deadline",
    "settings",
    "deadline_at",
    "seating",  # which seats are bots
)


class Indexes:
    """The indexes repository (``store.indexes``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def player_games(self, player_id: str, after_seq: int | None) -> list[tuple[str, int]]:
        """The player's games (id, creation order) after ``after_seq``, at most MAX_INDEX."""
        return self._page(player_games_key(player_id), after_seq)

    def open_games(self, after_seq: int | None) -> list[tuple[str, int]]:
        """The lobby: open-access games with a free seat, in creation order."""
        return self._page(OPEN_GAMES, after_seq)

    def _page(self, key: str, after_seq: int | None) -> list[tuple[str, int]]:
        low = f"({after_seq}" if after_seq is not None else "-inf"
        rows = self.connections.r.zrange(
            key,
            low,
            "+inf",
            byscore=True,
            withscores=True,
            offset=0,
            num=MAX_INDEX,
        )
        return [(gid, int(score)) for gid, score in rows]

    def game_summaries(self, game_ids: Iterable[str]) -> list[dict[str, Any] | None]:
        """Each game's SUMMARY_FIELDS (JSON ones decoded) and id; None for a game not stored."""
        fields = SUMMARY_FIELDS
        with self.connections.r.pipeline(transaction=False) as pipe:
            for gid in game_ids:
                pipe.hmget(game_key(gid), fields)
            rows = pipe.execute()
        out: list[dict[str, Any] | None] = []
        for gid, row in zip(game_ids, rows, strict=True):
            if row[0] is None:
                out.append(None)
                continue
            item = dict(zip(fields, row, strict=True))
            for name in ("seats", "names", "pending", "deadline", "settings", "seating"):
                item[name] = json.loads(item[name]) if item[name] else {}
            item["id"] = gid
            out.append(item)
        return out

    def pending_resolutions(self, older_than: float = 0.0) -> list[tuple[str, str]]:
        """(game, ref) of the resolutions owed for at least ``older_than`` seconds."""
        jobs = owed.owed_jobs(self.connections.queue_raw, RESOLVE_JOB, time.time() - older_than)
        return [(job.args[0], job.args[1]) for job in jobs]
