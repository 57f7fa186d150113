"""Tournaments (``store.tournaments``): one hash per tournament, replaced whole by a
compare-and-set on its version, the listing, and which tournament a game was paired for.

Keys (service/store/keys.py):

- ``kurier:tournament:{t}`` hash (``tournament_key``): ``v`` the version, ``doc`` the JSON the
  domain keeps (service/domain/tournaments.py: entrants, rounds, tables, results).
- ``kurier:tournaments`` sorted set (``TOURNAMENTS``): tournament id -> when it was created.
- ``kurier:tournaments:games`` hash (``TOURNAMENT_GAMES``): game id -> tournament id.

A tournament changes seldom (a sign-up, a game's end, a round) and its document is small (at
most MAX_ENTRANTS entrants and their rounds), so it is rewritten whole: the domain reads it,
computes the next document in Python, and ``replace`` writes it only if nobody wrote in between.
"""

from __future__ import annotations

import json
from typing import Any

from service.store.connections import Connections
from service.store.keys import TOURNAMENT_GAMES, TOURNAMENTS, tournament_key
from service.store.writes import run_script

#: Replace the document if its version is still ARGV[1]. KEYS: the hash. ARGV: the version
#: read, the new version, the new document. Returns 1 written, 0 changed meanwhile.
REPLACE_LUA = """
if (redis.call('HGET', KEYS[1], 'v') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
return 1
"""


class Tournaments:
    """The tournaments repository (``store.tournaments``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def create(self, tournament_id: str, doc: dict[str, Any], created_at: float) -> bool:
        """Store a new tournament (version 1) and list it; False if the id is taken."""
        key = tournament_key(tournament_id)
        text = json.dumps(doc, separators=(",", ":"))
        done = self.connections.write(
            lambda pipe: run_script(pipe, REPLACE_LUA, [key], ["", "1", text])
        )
        if not int(done[0]):
            return False
        self.connections.write(lambda pipe: pipe.zadd(TOURNAMENTS, {tournament_id: created_at}))
        return True

    def get(self, tournament_id: str) -> tuple[int, dict[str, Any]] | None:
        """(version, document), or None."""
        version, text = self.connections.r.hmget(tournament_key(tournament_id), ["v", "doc"])
        if version is None or text is None:
            return None
        return int(version), json.loads(text)

    def replace(self, tournament_id: str, version: int, doc: dict[str, Any]) -> bool:
        """Write ``doc`` as version ``version + 1`` if the stored one is still ``version``."""
        key = tournament_key(tournament_id)
        args = [str(version), str(version + 1), json.dumps(doc, separators=(",", ":"))]
        done = self.connections.write(lambda pipe: run_script(pipe, REPLACE_LUA, [key], args))
        return bool(int(done[0]))

    def listed(self, before: float | None, limit: int) -> list[tuple[str, float]]:
        """Tournament ids with their creation time, newest first, created before ``before``."""
        top = f"({before!r}" if before is not None else "+inf"
        rows = self.connections.r.zrevrangebyscore(
            TOURNAMENTS, top, "-inf", start=0, num=limit, withscores=True
        )
        return [(member, float(score)) for member, score in rows]

    def documents(self, ids: list[str]) -> list[dict[str, Any] | None]:
        with self.connections.r.pipeline(transaction=False) as pipe:  # one slot each
            for tournament_id in ids:
                pipe.hget(tournament_key(tournament_id), "doc")
            found = pipe.execute()
        return [json.loads(text) if text else None for text in found]

    def link_game(self, game_id: str, tournament_id: str) -> None:
        self.connections.write(lambda pipe: pipe.hset(TOURNAMENT_GAMES, game_id, tournament_id))

    def of_game(self, game_id: str) -> str | None:
        found = self.connections.r.hget(TOURNAMENT_GAMES, game_id)
        return str(found) if found is not None else None
