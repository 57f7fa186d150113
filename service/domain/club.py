"""The club (issue 34): what a profile page shows beyond ratings.profile, the games to watch,
the finished games of one player, and the players one follows with their new games.

Read-only here but for following (service/store/follows.py). What is counted per player is
written when a game is rated (service/domain/ratings.py ``rate_game``): the rating history in the
type's ratings slot, the stats hash (played and won by type and seat count, decisions in time,
deadlines missed, games abandoned) once per finished game. Both exist from issue 34 on: games
finished before are in no history or stats (their ratings and finished lists are).

A profile never shows an address, a preference, a private game, or anything of a running game
but its type, its players and when it last moved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.common.problems import Problem
from service.domain import ratings
from service.store import Store
from service.store.follows import MAX_FOLLOWING
from service.store.keys import (
    LIVE_GAMES,
    player_games_key,
    player_key,
    player_public_finished_key,
    player_stats_key,
    rating_history_key,
    ratings_board_key,
)

#: A player's latest games looked at for those in play (the profile's "current games").
CURRENT_SCAN = 50
#: The latest games of each followed player looked at for the feed.
FEED_PER_PLAYER = 10
FEED_LIMIT = 30


def profile(store: Store, player_id: str) -> dict[str, Any]:
    """ratings.profile, and: member since, rank and rating history per game type, games
    played and won by game type and seat count, reliability, public games in play."""
    out = ratings.profile(store, player_id)
    types = [rating["game_type"] for rating in out["ratings"]]
    with store.r.pipeline(transaction=False) as pipe:  # several slots: one command each
        pipe.hget(player_key(player_id), "created_at")
        pipe.hgetall(player_stats_key(player_id))
        pipe.zrevrange(player_games_key(player_id), 0, CURRENT_SCAN - 1)
        for game_type in types:
            pipe.zrange(rating_history_key(game_type, player_id), 0, -1, withscores=True)
            pipe.zrevrank(ratings_board_key(game_type), player_id)
            pipe.zcard(ratings_board_key(game_type))
        created, stats, latest, *per_type = pipe.execute()
    for index, rating in enumerate(out["ratings"]):
        history, place, total = per_type[3 * index : 3 * index + 3]
        # The leaderboard's order (ratings.leaderboard's rank): ZREVRANK, 1 best.
        rating["rank"] = None if place is None else int(place) + 1
        rating["rated_players"] = int(total) if place is not None else None
        rating["history"] = [_point(member, at) for member, at in history]
    out["member_since"] = float(created or 0)
    out["played"] = played(stats)
    out["reliability"] = reliability(stats)
    out["current_games"] = [
        live_item(summary)
        for summary in store.indexes.game_summaries(latest)
        if summary is not None and _in_play(summary)
    ]
    return out


def _point(member: str, at: float) -> dict[str, Any]:
    game_id, rating = member.rsplit(" ", 1)
    value = float(rating)
    return {"at": at, "game_id": game_id, "rating": value, "display_rating": ratings.display(value)}


def played(stats: Mapping[str, str]) -> list[dict[str, Any]]:
    """Games played and won per game type and seat count, from the stats hash."""
    rows: dict[tuple[str, int], dict[str, Any]] = {}
    for name, value in stats.items():
        kind, _, rest = name.partition(":")
        game_type, _, seats = rest.rpartition(":")
        if kind not in ("played", "won") or not seats.isdigit():
            continue
        row = rows.setdefault(
            (game_type, int(seats)),
            {"game_type": game_type, "seats": int(seats), "played": 0, "won": 0},
        )
        row[kind] = int(value)
    return [rows[key] for key in sorted(rows)]


def reliability(stats: Mapping[str, str]) -> dict[str, Any]:
    """Decisions taken before their deadline, deadlines missed (one a turn), games ended
    abandoned, over the finished games counted; ``on_time`` is the share in time (None:
    nothing yet)."""
    decisions = int(stats.get("decisions", 0))
    timeouts = int(stats.get("timeouts", 0))
    games = sum(int(v) for k, v in stats.items() if k.startswith("played:"))
    total = decisions + timeouts
    return {
        "games": games,
        "decisions": decisions,
        "timeouts": timeouts,
        "on_time": decisions / total if total else None,
        "abandoned": int(stats.get("abandoned", 0)),
    }


def _in_play(summary: Mapping[str, Any]) -> bool:
    return summary["status"] == "active" and bool(summary["settings"].get("public", True))


def live_item(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A game in play as a listing shows it: who plays what (each seat's player id, None for
    a computer opponent, which has no profile, and that one's level), and when it last
    moved."""
    levels = ratings.bot_levels(summary.get("seating"), len(summary["seats"]))
    return {
        "id": summary["id"],
        "type": summary["type"],
        "status": summary["status"],
        "names": list(summary["names"]),
        "player_ids": [
            None if level else player_id
            for level, player_id in zip(levels, summary["seats"], strict=True)
        ],
        "bot_levels": levels,
        "version": int(summary["version"]),
        "moved_at": float(summary["updated_at"]),
    }


def live_games(store: Store, limit: int, after: str | None) -> dict[str, Any]:
    """Public games in play, the latest move first (the watch page)."""

    def keep(rows: list[tuple[str, float]]) -> list[dict[str, Any] | None]:
        summaries = store.indexes.game_summaries([member for member, _ in rows])
        return [live_item(s) if s is not None and _in_play(s) else None for s in summaries]

    items, cursor = ratings.page_by_score(store, LIVE_GAMES, after, limit, keep)
    return {"items": items, "next_cursor": cursor}


def player_finished(
    store: Store, player_id: str, game_type: str | None, limit: int, after: str | None
) -> dict[str, Any]:
    """A player's finished public games, newest first (of one type, if given)."""
    if game_type is not None:
        ratings.check_game_type(game_type)
    player_name(store, player_id)

    def keep(rows: list[tuple[str, float]]) -> list[dict[str, Any] | None]:
        found = ratings.finished_summaries(store, [member for member, _ in rows])
        return [g if g and game_type in (None, g["type"]) else None for g in found]

    key = player_public_finished_key(player_id)
    items, cursor = ratings.page_by_score(store, key, after, limit, keep)
    return {"items": items, "next_cursor": cursor}


def player_name(store: Store, player_id: str) -> str:
    name = store.r.hget(player_key(player_id), "name")
    if name is None:
        raise Problem(404, "player-not-found", f"no player {player_id!r}", player_id=player_id)
    return str(name)


# -- following ----------------------------------------------------------------------------------


def follow(store: Store, player_id: str, other_id: str) -> None:
    if other_id == player_id:
        raise Problem(422, "cannot-follow-self", "you cannot follow yourself")
    player_name(store, other_id)
    if store.follows.add(player_id, other_id) < 0:
        raise Problem(
            409,
            "following-full",
            f"you follow {MAX_FOLLOWING} players already: unfollow one first",
            limit=MAX_FOLLOWING,
        )


def unfollow(store: Store, player_id: str, other_id: str) -> None:
    store.follows.remove(player_id, other_id)


def is_following(store: Store, player_id: str, other_id: str) -> bool:
    return store.follows.follows(player_id, other_id)


def following(store: Store, player_id: str) -> dict[str, Any]:
    """The players followed (by name) and their latest public games, newest first."""
    ids = store.follows.of(player_id)
    with store.r.pipeline(transaction=False) as pipe:
        for other in ids:
            pipe.hget(player_key(other), "name")
        for other in ids:
            pipe.zrevrange(player_games_key(other), 0, FEED_PER_PLAYER - 1)
        found = pipe.execute()
    names, latest = found[: len(ids)], found[len(ids) :]
    players = [
        {"id": other, "name": name}
        for other, name in zip(ids, names, strict=True)
        if name is not None
    ]
    players.sort(key=lambda p: p["name"].lower())
    game_ids = list(dict.fromkeys(g for games in latest for g in games))
    return {"players": players, "games": _feed(store, game_ids)}


def _feed(store: Store, game_ids: Sequence[str]) -> list[dict[str, Any]]:
    games = [
        {**live_item(s), "created_at": float(s["created_at"])}
        for s in store.indexes.game_summaries(game_ids)
        if s is not None and s["settings"].get("public", True)
    ]
    games.sort(key=lambda g: -g["created_at"])
    return games[:FEED_LIMIT]
