"""Public profiles, leaderboards and the finished games: readable without a token."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.domain import club, ratings
from service.http.api.base import Blueprint, problems
from service.http.auth import current_player, store, token_required
from service.http.schemas import profiles as s

blp = Blueprint(
    "profiles", __name__, url_prefix="/v1", description="Profiles, ratings, finished games"
)


@blp.route("/players/<player_id>")
class ProfileView(MethodView):
    @blp.doc(operationId="get_player_profile")
    @blp.response(200, s.Profile)
    @problems(blp, 404)
    def get(self, player_id: str) -> dict[str, Any]:
        """A player's public profile: name, member since, ratings per game type with rank and
        history, games finished and won (by type and seat count), reliability (decisions in
        time, deadlines missed, games abandoned), public games in play, the latest finished
        public games. Never an address, a preference, a private game or a game's secret."""
        return club.profile(store(), player_id)


@blp.route("/leaderboards/<game_type>")
class LeaderboardView(MethodView):
    @blp.doc(operationId="get_leaderboard")
    @blp.arguments(s.LeaderboardQuery, location="query")
    @blp.response(200, s.Leaderboard)
    @problems(blp, 400, 404)
    def get(self, query: dict[str, Any], game_type: str) -> dict[str, Any]:
        """Players of a game type with at least `min_games` rated games, best conservative
        rating (mu - 3 sigma) first; page with `after` = `next_cursor`. With `seats`, the
        ratings from games of that many seats only (400 `invalid-seats` if the game is never
        played so)."""
        return ratings.leaderboard(
            store(),
            game_type,
            query["min_games"],
            query["limit"],
            query.get("after"),
            query.get("seats"),
        )


@blp.route("/games/finished")
class FinishedGamesView(MethodView):
    @blp.doc(operationId="list_finished_games")
    @blp.arguments(s.FinishedGamesQuery, location="query")
    @blp.response(200, s.FinishedGames)
    @problems(blp, 400)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Finished public games, newest first (filter by `type`); each links its record."""
        return ratings.finished_games(
            store(), query.get("type"), query["limit"], query.get("after")
        )


@blp.route("/games/live")
class LiveGamesView(MethodView):
    @blp.doc(operationId="list_live_games")
    @blp.arguments(s.LiveGamesQuery, location="query")
    @blp.response(200, s.LiveGames)
    @problems(blp, 400)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Public games in play, the latest move first: what there is to watch."""
        return club.live_games(store(), query["limit"], query.get("after"))


@blp.route("/players/<player_id>/games/finished")
class PlayerFinishedView(MethodView):
    @blp.doc(operationId="list_player_finished_games")
    @blp.arguments(s.FinishedGamesQuery, location="query")
    @blp.response(200, s.FinishedGames)
    @problems(blp, 400, 404)
    def get(self, query: dict[str, Any], player_id: str) -> dict[str, Any]:
        """A player's finished public games, newest first (filter by `type`)."""
        return club.player_finished(
            store(), player_id, query.get("type"), query["limit"], query.get("after")
        )


def _me() -> str:
    player = current_player()
    assert player is not None
    return str(player["id"])


@blp.route("/me/following")
class FollowingView(MethodView):
    @blp.doc(operationId="get_following")
    @token_required
    @blp.response(200, s.Following)
    @problems(blp, 401)
    def get(self) -> dict[str, Any]:
        """The players the caller follows and their latest public games, newest first."""
        return club.following(store(), _me())


@blp.route("/me/following/<player_id>")
class FollowView(MethodView):
    @blp.doc(operationId="follow_player")
    @token_required
    @blp.response(204)
    @problems(blp, 401, 404, 409, 422)
    def put(self, player_id: str) -> Response:
        """Follow a player (at most 50): their new public games show in `GET /v1/me/following`."""
        club.follow(store(), _me(), player_id)
        return Response(status=204)

    @blp.doc(operationId="unfollow_player")
    @token_required
    @blp.response(204)
    @problems(blp, 401)
    def delete(self, player_id: str) -> Response:
        """Stop following a player (nothing happens if the caller did not follow them)."""
        club.unfollow(store(), _me(), player_id)
        return Response(status=204)
