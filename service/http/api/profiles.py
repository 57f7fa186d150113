"""Public profiles, leaderboards and the finished games: readable without a token."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.domain import ratings
from service.http.api.base import Blueprint, problems
from service.http.auth import store
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
        """A player's public profile: name, ratings per game type, games finished and won,
        the latest finished public games. Never an address or a preference."""
        return ratings.profile(store(), player_id)


@blp.route("/leaderboards/<game_type>")
class LeaderboardView(MethodView):
    @blp.doc(operationId="get_leaderboard")
    @blp.arguments(s.LeaderboardQuery, location="query")
    @blp.response(200, s.Leaderboard)
    @problems(blp, 400, 404)
    def get(self, query: dict[str, Any], game_type: str) -> dict[str, Any]:
        """Players of a game type with at least `min_games` rated games, best conservative
        rating (mu - 3 sigma) first; page with `after` = `next_cursor`."""
        return ratings.leaderboard(
            store(), game_type, query["min_games"], query["limit"], query.get("after")
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
