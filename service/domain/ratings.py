"""Ratings per player and game type (OpenSkill's Plackett-Luce model), public profiles, the
leaderboards and the listing of finished games.

A finished game is applied once, whatever happens to the job that applies it (``rate_game``,
run by ``workers.ratings.rate``, owed with the commit that finishes the game):

- The ratings of one game type and the set of games already applied to them share one hash tag
  (service/store/keys.py ``ratings_tag``): one Redis (Cluster) slot. The new ratings are computed in
  Python from what was read, then one script checks "not rated yet" and "nobody changed these
  players' ratings since the read" and writes the ratings, the leaderboard and the "rated" mark,
  or nothing (a concurrent update: read again and retry).
- What is kept per player and in the listing of finished games (sorted sets keyed by game id)
  is written with ``ZADD``: doing it twice is doing it once.

Games created with ``"rated": false`` count as finished and won, but change no rating; games
created with ``"public": false`` are in no listing and on no profile.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from openskill.models import PlackettLuce

from engine.registry import game_ids, get_game
from service.common.problems import Problem
from service.store import Store
from service.store.keys import (
    finished_games_key,
    game_key,
    player_finished_key,
    player_key,
    player_public_finished_key,
    player_stats_key,
    player_won_key,
    rating_history_key,
    ratings_board_key,
    ratings_changes_key,
    ratings_players_key,
    ratings_rated_key,
)
from service.store.record import GameRecord
from service.store.writes import run_script

MODEL = PlackettLuce()
#: How many standard deviations below the mean the conservative rating (the leaderboard's) is.
CONSERVATIVE_SIGMAS = 3
#: The display scale (``display``): a newcomer's rating, and points per unit of mu - 3 sigma.
DISPLAY_START = 1500
DISPLAY_SCALE = 20
#: A rating is marked provisional until this many rated games of its pool.
PROVISIONAL_GAMES = 5
MAX_TRIES = 16
RECENT_GAMES = 20
#: Points of a player's rating history kept per game type (the profile's plot): the latest.
HISTORY_KEPT = 500
#: Entries examined per listing request at most (bounded work; ``next_cursor`` goes on).
MAX_SCAN = 1000
#: A listing cursor: ``<score>:<member>`` of the last item of the previous page.
CURSOR_PATTERN = r"^-?[0-9]{1,20}(\.[0-9]{1,20})?(e[-+]?[0-9]{1,3})?:[A-Za-z0-9_-]{1,64}$"

#: The "already rated" check, the compare-and-set on each player's rating, and the writes, in
#: one step. KEYS: the type's players hash, rated set, board, the game's rating changes, then
#: each player's rating history (none for a pool of one player count: the profile plots the
#: type's, and the end screen shows the type's changes).
#: ARGV: game id, when, the changes (JSON, '' to keep none), then per player: id, the rating
#: read ('' for none), the new rating, its conservative score.
#: Returns 1 (applied), 0 (already rated), -1 (a rating changed since the read: retry).
APPLY_LUA = f"""
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
local n = (#ARGV - 3) / 4
for i = 0, n - 1 do
  local base = 4 + i * 4
  local current = redis.call('HGET', KEYS[1], ARGV[base]) or ''
  if current ~= ARGV[base + 1] then return -1 end
end
for i = 0, n - 1 do
  local base = 4 + i * 4
  redis.call('HSET', KEYS[1], ARGV[base], ARGV[base + 2])
  redis.call('ZADD', KEYS[3], ARGV[base + 3], ARGV[base])
  if KEYS[5 + i] then
    redis.call('ZADD', KEYS[5 + i], ARGV[2], ARGV[1] .. ' ' .. ARGV[base + 3])
    redis.call('ZREMRANGEBYRANK', KEYS[5 + i], 0, -1 - {HISTORY_KEPT})
  end
end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[3]) end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


def conservative(mu: float, sigma: float) -> float:
    return mu - CONSERVATIVE_SIGMAS * sigma


def display(conservative_rating: float) -> int:
    """The rating players read: OpenSkill's ordinal ``alpha * (mu - 3 sigma) + target`` with
    ``alpha`` = DISPLAY_SCALE and ``target`` = DISPLAY_START, rounded, never below 0. A
    newcomer (mu 25, sigma 25/3: a conservative rating of 0) reads DISPLAY_START."""
    return max(0, round(DISPLAY_START + DISPLAY_SCALE * conservative_rating))


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def new_rating() -> dict[str, Any]:
    return {"mu": MODEL.mu, "sigma": MODEL.sigma, "games": 0, "wins": 0}


# -- the order of a finished game ---------------------------------------------------------------


def standing(result: Mapping[str, Any], seats: int) -> list[list[int]]:
    """The seats best first, ties in one group: ``result["standing"]`` when the game gives
    one; else winners first (tied), then by score, highest first (equal scores tie). Seats the
    result does not name come last, tied."""
    if result.get("standing"):
        groups = [[int(seat) for seat in group] for group in result["standing"]]
    else:
        winners = {int(seat) for seat in result.get("winners") or []}
        scores = result.get("scores") or []

        def key(seat: int) -> tuple[int, float]:
            score = scores[seat] if seat < len(scores) else None
            number = float(score) if isinstance(score, int | float) else -math.inf
            return (0 if seat in winners else 1, -number)

        groups = []
        last = None
        for seat in sorted(range(seats), key=key):
            if key(seat) != last:
                groups.append([])
                last = key(seat)
            groups[-1].append(seat)
    named = {seat for group in groups for seat in group}
    groups = [[s for s in group if 0 <= s < seats] for group in groups]
    groups = [group for group in groups if group]
    rest = [seat for seat in range(seats) if seat not in named]
    return groups + ([rest] if rest else [])


def _with_abandoned_last(record: GameRecord) -> list[list[int]]:
    """The standing, with seats abandoned at the end (missed deadlines, service/domain/seats.py)
    moved down together, just above the resigned ones."""
    assert record.result is not None
    groups = standing(record.result, len(record.seats))
    resigned = set(record.result.get("resigned", []))
    abandoned = set(record.seating.get("abandoned", [])) - resigned
    if not abandoned:
        return groups
    kept = [[s for s in g if s not in abandoned] for g in groups]
    staying = [g for g in kept if g and not set(g) <= resigned]
    gone = [g for g in kept if g and set(g) <= resigned]
    return [*staying, sorted(abandoned), *gone]


def ranked_players(record: GameRecord) -> list[tuple[str, int]]:
    """(player id, rank) for each distinct player, rank 0 best; a player holding several
    seats takes their best seat's rank."""
    assert record.result is not None
    best: dict[str, int] = {}
    for rank, group in enumerate(_with_abandoned_last(record)):
        for seat in group:
            best.setdefault(record.seats[seat], rank)
    return list(best.items())


def winners_of(record: GameRecord) -> set[str]:
    result = record.result or {}
    seats = result.get("winners")
    if seats is None:
        groups = standing(result, len(record.seats))
        seats = groups[0] if groups else []
    return {record.seats[int(s)] for s in seats if 0 <= int(s) < len(record.seats)}


def is_rated(record: GameRecord) -> bool:
    """Rated unless created with ``"rated": false``; a game with a computer opponent only when
    created with ``"rated": true`` (a bot's strength says nothing of a person's); never a game
    whose seats are all one player's."""
    return meant_rated(record) and len(set(record.seats)) >= 2


def meant_rated(record: GameRecord) -> bool:
    """What the game's creation says of ratings (``is_rated`` once the seats are taken)."""
    bots = bool(record.seating.get("bots"))
    return bool(record.settings.get("rated", not bots))


def humans(record: GameRecord) -> list[str]:
    """The players of the seats no bot holds: only they keep lists of finished games."""
    return [p for seat, p in enumerate(record.seats) if record.bot_level(seat) is None]


def is_public(record: GameRecord) -> bool:
    return bool(record.settings.get("public", True))


# -- applying a game ----------------------------------------------------------------------------


def rate_game(store: Store, game_id: str) -> bool:
    """Apply a finished game: ratings (once, if rated), the players' finished and won games,
    the public listing. True if this call changed the ratings. Safe to run any number of times,
    concurrently too."""
    raw = store.raw.hgetall(game_key(game_id))  # bytes: a compacted log is binary
    if not raw:
        return False  # archived meanwhile, or never was: nothing to do
    record = GameRecord.from_hash(game_id, raw)
    if record.status != "finished" or record.result is None:
        return False
    changed = False
    if is_rated(record):
        ranked, won = ranked_players(record), winners_of(record)
        changed = apply_ratings(store, record.type, game_id, ranked, won, record.updated_at)
        # The leaderboard of this player count rates the same game in a pool of its own.
        pool = seats_pool(record.type, len(record.seats))
        apply_ratings(store, pool, game_id, ranked, won, record.updated_at, history=False)
    _record_finished(store, record)
    return changed


def rating_changes(store: Store, record: GameRecord) -> list[dict[str, Any]] | None:
    """Each seat's conservative rating before and after a finished rated game, best first
    as the standings (``delta``: after - before), or None: unrated, not over, or not applied
    yet (``rate_game`` runs just after the game ends)."""
    if record.status != "finished" or record.result is None or not is_rated(record):
        return None
    stored = store.r.hget(ratings_changes_key(record.type), record.id)
    if not stored:
        return None
    changes = json.loads(stored)
    out = []
    for group in _with_abandoned_last(record):
        for seat in group:
            player = record.seats[seat]
            if player not in changes:
                continue
            before, after = changes[player]
            out.append(
                {
                    "seat": seat,
                    "player_id": player,
                    "before": before,
                    "after": after,
                    "delta": after - before,
                    "display_before": display(before),
                    "display_after": display(after),
                    "display_delta": display(after) - display(before),
                }
            )
    return out


def seats_pool(game_type: str, seats: int) -> str:
    """The ratings of ``game_type`` played with ``seats`` seats only (a leaderboard's filter):
    kept under their own keys (service/store/keys.py), rated like a game type of their own."""
    return f"{game_type}:{seats}"


def apply_ratings(
    store: Store,
    game_type: str,
    game_id: str,
    ranked: Sequence[tuple[str, int]],
    winners: Iterable[str] = (),
    at: float | None = None,
    history: bool = True,
) -> bool:
    """Update the ratings of ``game_type`` for one game (players with their ranks, 0 best,
    equal ranks tie) unless ``game_id`` was applied already. True if this call applied it.
    Each player's new rating also joins their history of ``game_type`` at ``at`` (when the
    game finished; default now), in the same script."""
    if len({player for player, _ in ranked}) < 2:
        return False
    won = set(winners)
    players = [player for player, _ in ranked]
    keys = [
        ratings_players_key(game_type),
        ratings_rated_key(game_type),
        ratings_board_key(game_type),
        ratings_changes_key(game_type),
        *(rating_history_key(game_type, player) for player in players if history),
    ]
    for _ in range(MAX_TRIES):
        with store.r.pipeline(transaction=False) as pipe:  # one slot: the type's
            pipe.sismember(keys[1], game_id)
            pipe.hmget(keys[0], players)
            done, stored = pipe.execute()
        if done:
            return False
        before = [json.loads(s) if s else new_rating() for s in stored]
        after = updated([(r["mu"], r["sigma"]) for r in before], [rank for _, rank in ranked])
        # Each player's conservative rating before and after: kept with the type's ratings
        # (not the pool's), for the end screen and the game's view (``rating_changes``).
        changes = {
            player: [conservative(old["mu"], old["sigma"]), conservative(mu, sigma)]
            for player, old, (mu, sigma) in zip(players, before, after, strict=True)
        }
        args: list[str] = [
            game_id,
            repr(time.time() if at is None else at),
            json.dumps(changes) if history else "",
        ]
        for player, old, text, (mu, sigma) in zip(players, before, stored, after, strict=True):
            new = {
                "mu": mu,
                "sigma": sigma,
                "games": old["games"] + 1,
                "wins": old["wins"] + (player in won),
            }
            args += [
                player,
                text or "",
                json.dumps(new),
                repr(conservative(mu, sigma)),
            ]
        applied = int(store.write(partial(run_script, lua=APPLY_LUA, keys=keys, args=args))[0])
        if applied >= 0:
            return applied == 1
    raise Problem(409, "concurrent-update", "the ratings kept changing; the job will retry")


def updated(
    ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """The (mu, sigma) of each player after a game where they placed ``ranks`` (0 best).

    Without ties, Plackett-Luce's update itself. Ties are not left to openskill's tie rule
    (Weng-Lin's Algorithm 4), which can leave three players tied first below the one placed
    just after them; instead the update is averaged over strict orders in which each tie group
    is rotated, so that every tied player holds every place of its group equally often. From
    equal ratings, tied players then end equal, and a better place never ends below a worse
    one. At most lcm(group sizes) orders: 140 for 16 seats."""
    groups: dict[int, list[int]] = {}
    for index, rank in enumerate(ranks):
        groups.setdefault(rank, []).append(index)
    ordered = [groups[rank] for rank in sorted(groups)]
    turns = math.lcm(*(len(group) for group in ordered))
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    sums = [[0.0, 0.0] for _ in ratings]
    for turn in range(turns):
        place = [0.0] * len(ratings)
        position = 0
        for group in ordered:
            for offset, index in enumerate(group):
                place[index] = position + (offset + turn) % len(group)
            position += len(group)
        for total, team in zip(sums, MODEL.rate(teams, ranks=place), strict=True):
            total[0] += team[0].mu
            total[1] += team[0].sigma
    return [(mu / turns, sigma / turns) for mu, sigma in sums]


#: A player's finished game, counted once: ZADD to their finished games, and only if that added
#: it, the counters of their stats hash. KEYS: finished, won, public finished, stats (one slot,
#: the player's). ARGV: game id, when, won (0/1), public (0/1), then counter/increment pairs.
FINISHED_LUA = """
local added = redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if ARGV[3] == '1' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) end
if ARGV[4] == '1' then redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1]) end
if added == 1 then
  for i = 5, #ARGV, 2 do redis.call('HINCRBY', KEYS[4], ARGV[i], ARGV[i + 1]) end
end
return added
"""


def _record_finished(store: Store, record: GameRecord) -> None:
    """The player's finished and won games, their stats, and the public listings. The stats
    count a game only when it joins the player's finished games (FINISHED_LUA), so running this
    twice counts once. Games finished before the stats existed are not in them."""
    at = repr(record.updated_at)
    won = winners_of(record)
    public = is_public(record)
    counters = seat_counters(record, store.read_log(record.id, state=False)[1])

    def listed(pipe: Any) -> None:  # several slots: one command (or script) each
        for player in set(humans(record)):
            keys = [
                player_finished_key(player),
                player_won_key(player),
                player_public_finished_key(player),
                player_stats_key(player),
            ]
            args = [record.id, at, int(player in won), int(public)]
            for name, count in counters[player].items():
                args += [name, count]
            run_script(pipe, FINISHED_LUA, keys, args)
        if public:
            pipe.zadd(finished_games_key(), {record.id: record.updated_at})
            pipe.zadd(finished_games_key(record.type), {record.id: record.updated_at})

    store.write(listed)


def seat_counters(
    record: GameRecord, entries: Iterable[tuple[int, Mapping[str, Any]]]
) -> dict[str, dict[str, int]]:
    """What one finished game adds to each player's stats: played and won by game type and
    seat count, decisions taken in time, deadlines missed (``timeout_applied`` events, one a
    turn: the rest of a late turn's are marked ``same_turn``), and whether one of their seats
    ended abandoned."""
    won = winners_of(record)
    seats = len(record.seats)
    abandoned = set(record.seating.get("abandoned", []))
    out: dict[str, dict[str, int]] = {}
    for player in set(record.seats):
        out[player] = {f"played:{record.type}:{seats}": 1, "decisions": 0, "timeouts": 0}
        if player in won:
            out[player][f"won:{record.type}:{seats}"] = 1
        if any(record.seats[s] == player for s in abandoned if 0 <= s < seats):
            out[player]["abandoned"] = 1
    for _, entry in entries:
        events = entry.get("events") or []
        late = [e for e in events if isinstance(e, dict) and e.get("kind") == "timeout_applied"]
        for timeout in late:
            data = timeout.get("data") or {}
            seat = data.get("seat")
            if isinstance(seat, int) and 0 <= seat < seats and not data.get("same_turn"):
                out[record.seats[seat]]["timeouts"] += 1
        seat_text = str(entry.get("seat", ""))
        if entry.get("kind") in ("move", "sealed") and not late and seat_text.isdigit():
            seat = int(seat_text)
            if seat < seats:
                out[record.seats[seat]]["decisions"] += 1
    return out


# -- reading ------------------------------------------------------------------------------------


def rating_out(game_type: str, stored: Mapping[str, Any]) -> dict[str, Any]:
    rating = conservative(stored["mu"], stored["sigma"])
    return {
        "game_type": game_type,
        "mu": stored["mu"],
        "sigma": stored["sigma"],
        "rating": rating,
        "display_rating": display(rating),
        "provisional": is_provisional(stored["games"]),
        "games": stored["games"],
        "wins": stored["wins"],
    }


def profile(store: Store, player_id: str) -> dict[str, Any]:
    """A player's public profile: no address, no preferences, no token."""
    name = store.r.hget(player_key(player_id), "name")
    if name is None:
        raise Problem(404, "player-not-found", f"no player {player_id!r}", player_id=player_id)
    types = game_ids()
    with store.r.pipeline(transaction=False) as pipe:
        for game_type in types:
            pipe.hget(ratings_players_key(game_type), player_id)
        pipe.zcard(player_finished_key(player_id))
        pipe.zcard(player_won_key(player_id))
        pipe.zrevrange(player_public_finished_key(player_id), 0, RECENT_GAMES - 1)
        found = pipe.execute()
    ratings = [
        rating_out(game_type, json.loads(stored))
        for game_type, stored in zip(types, found, strict=False)
        if stored
    ]
    finished, won, recent = found[len(types) :]
    return {
        "id": player_id,
        "name": name,
        "ratings": ratings,
        "games_finished": int(finished),
        "games_won": int(won),
        "recent_games": [g for g in finished_summaries(store, recent) if g is not None],
    }


def bot_levels(seating: Mapping[str, Any] | None, seats: int) -> list[str | None]:
    """By seat, the level of the computer opponent in it (None: a person's seat): what a
    listing needs to name a bot as the game's page does, in the reader's language."""
    bots = (seating or {}).get("bots", {})
    return [bots.get(str(seat)) for seat in range(seats)]


def finished_summaries(store: Store, ids: Sequence[str]) -> list[dict[str, Any] | None]:
    """What a listing shows of each finished game (None: gone, or not public any more)."""
    fields = ("type", "status", "names", "result", "settings", "updated_at", "seating")
    with store.r.pipeline(transaction=False) as pipe:
        for game_id in ids:
            pipe.hmget(game_key(game_id), fields)
        rows = pipe.execute()
    out: list[dict[str, Any] | None] = []
    for game_id, row in zip(ids, rows, strict=True):
        item = dict(zip(fields, row, strict=True))
        if item["status"] != "finished":
            out.append(None)
            continue
        settings = json.loads(item["settings"] or "{}")
        if not settings.get("public", True):
            out.append(None)
            continue
        result = json.loads(item["result"] or "null") or {}
        names = json.loads(item["names"] or "[]")
        out.append(
            {
                "id": game_id,
                "type": item["type"],
                "names": names,
                "bot_levels": bot_levels(json.loads(item["seating"] or "{}"), len(names)),
                "winners": result.get("winners", []),
                "result": result,
                "finished_at": float(item["updated_at"]),
                "rated": bool(settings.get("rated", True)),
                "record": f"/v1/games/{game_id}/record",
            }
        )
    return out


def check_game_type(game_type: str) -> None:
    if game_type not in game_ids():
        raise Problem(404, "unknown-game-type", f"no game type {game_type!r}", game_type=game_type)


def _cursor(after: str | None) -> tuple[float, str] | None:
    if after is None:
        return None
    if not re.fullmatch(CURSOR_PATTERN, after):
        raise Problem(
            400, "invalid-cursor", "after must be a next_cursor from this list", parameter="after"
        )
    score, member = after.split(":", 1)
    return float(score), member


def page_by_score(
    store: Store, key: str, after: str | None, wanted: int, keep: Any
) -> tuple[list[Any], str | None]:
    """Members of sorted set ``key``, highest score first (equal scores: highest member
    first), after the cursor; ``keep(rows)`` turns a chunk of (member, score) into items (None:
    skipped). Returns the items and the next cursor (None: the end)."""
    start = _cursor(after)
    high = f"{start[0]!r}" if start else "+inf"
    items: list[Any] = []
    examined = 0
    last: tuple[str, float] | None = None
    offset = 0
    while examined < MAX_SCAN:
        # A first chunk of the page's size (most pages keep every row: no wasted reads), then
        # bigger ones while rows are skipped.
        num = wanted + 1 if offset == 0 else 100
        rows = store.r.zrevrangebyscore(key, high, "-inf", start=offset, num=num, withscores=True)
        if not rows:
            return items, None
        offset += len(rows)
        if start:  # equal scores come in descending member order: skip up to the cursor
            rows = [(m, s) for m, s in rows if s < start[0] or m < start[1]]
        for (member, score), item in zip(rows, keep(rows), strict=True):
            examined += 1
            last = (member, score)
            if item is not None:
                items.append(item)
            if len(items) == wanted:
                return items, f"{score!r}:{member}"
    return items, f"{last[1]!r}:{last[0]}" if last else None


def leaderboard(
    store: Store,
    game_type: str,
    min_games: int,
    limit: int,
    after: str | None,
    seats: int | None = None,
) -> dict[str, Any]:
    """Players of ``game_type`` (played with ``seats`` seats, if given) with at least
    ``min_games`` rated games, best conservative rating first. Each entry's ``rank`` is its
    place among all the rated players of the list (1 best), what a profile shows."""
    check_game_type(game_type)
    pool = game_type
    if seats is not None:
        game = get_game(game_type)
        if not game.min_players <= seats <= game.max_players:
            raise Problem(
                400,
                "invalid-seats",
                f"{game_type} is played by {game.min_players} to {game.max_players}",
                parameter="seats",
            )
        pool = seats_pool(game_type, seats)

    def keep(rows: list[tuple[str, float]]) -> list[dict[str, Any] | None]:
        players = [member for member, _ in rows]
        stored = store.r.hmget(ratings_players_key(pool), players) if players else []
        found = [json.loads(text) if text else None for text in stored]
        # Names only of the players kept: a high minimum skips most rows of a chunk.
        kept = [p for p, r in zip(players, found, strict=True) if r and r["games"] >= min_games]
        with store.r.pipeline(transaction=False) as pipe:
            for player in kept:
                pipe.hget(player_key(player), "name")
            names = dict(zip(kept, pipe.execute(), strict=True))
        return [
            {"player_id": p, "name": names[p] or "", **rating_out(game_type, r)}
            if p in names and r
            else None
            for p, r in zip(players, found, strict=True)
        ]

    items, cursor = page_by_score(store, ratings_board_key(pool), after, limit, keep)
    with store.r.pipeline(transaction=False) as pipe:  # one slot: the pool's
        for item in items:
            pipe.zrevrank(ratings_board_key(pool), item["player_id"])
        places = pipe.execute()
    for item, place in zip(items, places, strict=True):
        item["rank"] = None if place is None else int(place) + 1
    return {"game_type": game_type, "seats": seats, "items": items, "next_cursor": cursor}


def finished_games(
    store: Store, game_type: str | None, limit: int, after: str | None
) -> dict[str, Any]:
    """Finished public games, newest first (of one type, if given)."""
    if game_type is not None:
        check_game_type(game_type)

    def keep(rows: list[tuple[str, float]]) -> list[dict[str, Any] | None]:
        return finished_summaries(store, [member for member, _ in rows])

    items, cursor = page_by_score(store, finished_games_key(game_type), after, limit, keep)
    return {"items": items, "next_cursor": cursor}
