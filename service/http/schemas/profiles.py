"""Public profiles, leaderboards and finished games (service/domain/ratings.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from engine.registry import game_ids
from service.domain.ratings import CURSOR_PATTERN
from service.http.schemas.common import QueryInteger


class Rating(ma.Schema):
    game_type = fields.String(required=True)
    mu = fields.Float(required=True, metadata={"description": "Estimated skill (starts at 25)"})
    sigma = fields.Float(required=True, metadata={"description": "Uncertainty of mu"})
    rating = fields.Float(
        required=True,
        metadata={"description": "Conservative rating mu - 3 sigma: the leaderboard's order"},
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


class Profile(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    ratings = fields.List(fields.Nested(Rating), required=True)
    games_finished = fields.Integer(required=True, metadata={"description": "Rated or not"})
    games_won = fields.Integer(required=True, metadata={"description": "Rated or not"})
    recent_games = fields.List(
        fields.Nested(FinishedGame),
        required=True,
        metadata={"description": "The latest finished public games, newest first (at most 20)"},
    )


class PageQuery(ma.Schema):
    after = fields.String(
        metadata={"pattern": CURSOR_PATTERN, "description": "A next_cursor from this list"}
    )
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))


class LeaderboardQuery(PageQuery):
    min_games = QueryInteger(
        load_default=1,
        validate=validate.Range(min=1, max=1_000_000),
        metadata={"description": "Only players with at least this many rated games"},
    )


class LeaderboardEntry(Rating):
    player_id = fields.String(required=True)
    name = fields.String(required=True)


class Leaderboard(ma.Schema):
    game_type = fields.String(required=True)
    items = fields.List(fields.Nested(LeaderboardEntry), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class FinishedGamesQuery(PageQuery):
    type = fields.String(validate=validate.OneOf(game_ids()))


class FinishedGames(ma.Schema):
    items = fields.List(fields.Nested(FinishedGame), required=True)
    next_cursor = fields.String(allow_none=True, required=True)
