"""Public profiles, leaderboards and finished games (service/domain/ratings.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from engine.registry import game_ids
from service.domain.ratings import CURSOR_PATTERN
from service.http.schemas.common import Cursor, QueryInteger


class Rating(ma.Schema):
    game_type = fields.String(required=True)
    mu = fields.Float(required=True, metadata={"description": "Estimated skill (starts at 25)"})
    sigma = fields.Float(required=True, metadata={"description": "Uncertainty of mu"})
    rating = fields.Float(
        required=True,
        metadata={"description": "Conservative rating mu - 3 sigma: the leaderboard's order"},
    )
    display_rating = fields.Integer(
        required=True,
        metadata={
            "description": "The rating as the pages show it: 1500 + 20 (mu - 3 sigma), rounded, "
            "at least 0 (a newcomer reads 1500)"
        },
    )
    provisional = fields.Boolean(
        required=True,
        metadata={"description": "Fewer than 5 rated games: the rating may move a lot"},
    )
    games = fields.Integer(required=True, metadata={"description": "Rated games finished"})
    wins = fields.Integer(required=True, metadata={"description": "Rated games won"})


class FinishedGame(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    names = fields.List(fields.String(), required=True, metadata={"description": "By seat"})
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Seats"})
    result = fields.Dict(required=True, metadata={"description": "The game's result"})
    finished_at = fields.Float(required=True)
    rated = fields.Boolean(required=True)
    record = fields.String(
        required=True, metadata={"description": "Where anyone may download the game record"}
    )


class RatingPoint(ma.Schema):
    at = fields.Float(required=True, metadata={"description": "When the game was applied"})
    game_id = fields.String(required=True)
    rating = fields.Float(required=True, metadata={"description": "Conservative rating after it"})
    display_rating = fields.Integer(required=True, metadata={"description": "Displayed after it"})


class ProfileRating(Rating):
    rank = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Place on the leaderboard, 1 best"}
    )
    rated_players = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Players on that leaderboard"}
    )
    history = fields.List(
        fields.Nested(RatingPoint),
        required=True,
        metadata={"description": "The rating after each rated game, oldest first (at most 500)"},
    )


class Played(ma.Schema):
    game_type = fields.String(required=True)
    seats = fields.Integer(required=True)
    played = fields.Integer(required=True)
    won = fields.Integer(required=True)


class Reliability(ma.Schema):
    games = fields.Integer(required=True, metadata={"description": "Finished games counted"})
    decisions = fields.Integer(required=True, metadata={"description": "Taken before a deadline"})
    timeouts = fields.Integer(required=True, metadata={"description": "Deadlines missed"})
    on_time = fields.Float(
        required=True, allow_none=True, metadata={"description": "Share of decisions in time"}
    )
    abandoned = fields.Integer(required=True, metadata={"description": "Games ended abandoned"})


class LiveGame(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    status = fields.String(required=True)
    names = fields.List(fields.String(), required=True, metadata={"description": "By seat"})
    player_ids = fields.List(
        fields.String(allow_none=True),
        required=True,
        metadata={
            "description": "By seat: each player's id (their profile: GET /v1/players/{id}); "
            "null for a computer opponent's seat"
        },
    )
    version = fields.Integer(required=True)
    moved_at = fields.Float(required=True, metadata={"description": "When it last changed"})


class Profile(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    member_since = fields.Float(required=True)
    ratings = fields.List(fields.Nested(ProfileRating), required=True)
    games_finished = fields.Integer(required=True, metadata={"description": "Rated or not"})
    games_won = fields.Integer(required=True, metadata={"description": "Rated or not"})
    recent_games = fields.List(
        fields.Nested(FinishedGame),
        required=True,
        metadata={"description": "The latest finished public games, newest first (at most 20)"},
    )
    played = fields.List(
        fields.Nested(Played),
        required=True,
        metadata={"description": "Finished games by type and seat count (counted since issue 34)"},
    )
    reliability = fields.Nested(Reliability, required=True)
    current_games = fields.List(
        fields.Nested(LiveGame),
        required=True,
        metadata={"description": "Public games in play, among the player's latest 50"},
    )


class PageQuery(ma.Schema):
    after = Cursor(CURSOR_PATTERN)
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))


class LeaderboardQuery(PageQuery):
    min_games = QueryInteger(
        load_default=1,
        validate=validate.Range(min=1, max=1_000_000),
        metadata={"description": "Only players with at least this many rated games"},
    )

    seats = QueryInteger(
        validate=validate.Range(min=1, max=16),
        metadata={"description": "Only games played with this many seats (rated on their own)"},
    )


class LeaderboardEntry(Rating):
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    rank = fields.Integer(required=True, allow_none=True, metadata={"description": "1 best"})


class Leaderboard(ma.Schema):
    game_type = fields.String(required=True)
    seats = fields.Integer(required=True, allow_none=True)
    items = fields.List(fields.Nested(LeaderboardEntry), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class FinishedGamesQuery(PageQuery):
    type = fields.String(validate=validate.OneOf(game_ids()))


class FinishedGames(ma.Schema):
    items = fields.List(fields.Nested(FinishedGame), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class LiveGamesQuery(PageQuery):
    pass


class LiveGames(ma.Schema):
    items = fields.List(fields.Nested(LiveGame), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class FollowedPlayer(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class FeedGame(LiveGame):
    created_at = fields.Float(required=True)


class Following(ma.Schema):
    players = fields.List(fields.Nested(FollowedPlayer), required=True)
    games = fields.List(
        fields.Nested(FeedGame),
        required=True,
        metadata={"description": "Their latest public games, newest first (at most 30)"},
    )
