"""Tournaments (service/domain/tournaments.py): creating one, the listing, one with its
standings and rounds."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from engine.registry import game_ids
from service.domain import inputs, tournaments
from service.http.schemas.common import (
    NumberCursor,
    QueryInteger,
    ReliabilityFilter,
    StrictBoolean,
    ruled,
    strict_integer,
    text_field,
)
from service.http.schemas.games import Deadline


class TournamentCreate(ma.Schema):
    name = text_field(tournaments.NAME, required=True)
    type = text_field(
        inputs.GAME_TYPE,
        required=True,
        metadata={"enum": game_ids(), "description": "A type from GET /v1/game-types"},
    )
    seats = strict_integer(
        required=True,
        validate=validate.Range(*inputs.SEATS),
        metadata={"description": "Players at each table: a player count the game allows"},
    )
    format = fields.String(
        required=True,
        validate=validate.OneOf(tournaments.FORMATS),
        metadata={
            "description": "round_robin: every pairing (tables: everyone meets as evenly as "
            "possible); swiss: paired by score each round (docs/tournaments.md)"
        },
    )
    rounds = strict_integer(
        validate=validate.Range(1, tournaments.MAX_ROUNDS),
        metadata={
            "description": "Swiss: rounds to play (default: enough for one winner; never more "
            "than a round-robin's). Round-robin: ignored"
        },
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    deadline = fields.Nested(
        Deadline, metadata={"description": "Every game's decision deadlines (recommended)"}
    )
    rated = StrictBoolean(load_default=True, metadata={"description": "The games are rated"})
    starts_at = fields.AwareDateTime(
        validate=ruled(inputs.moment),
        metadata={
            "description": "Sign-up closes and round 1 begins then (within a year); without "
            "it, the organiser starts the tournament"
        },
    )
    reliability = fields.Nested(
        ReliabilityFilter, metadata={"description": "Only players this reliable may sign up"}
    )
    leave_max_days = strict_integer(
        validate=validate.Range(*tournaments.LEAVE_MAX_DAYS),
        metadata={
            "description": "Leave (or vacation) pauses a clock in the tournament's games at most "
            "this many days (the games' `vacation_max_days`); 0: leave pauses none; absent: "
            "the deadline's own limit"
        },
    )
    max_entrants = strict_integer(
        load_default=tournaments.MAX_ENTRANTS,
        validate=validate.Range(max=tournaments.MAX_ENTRANTS),
        metadata={
            "description": "At most this many entrants; fewer than one table (`seats`): 422 "
            "invalid-max-entrants"
        },
    )


class Person(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class TournamentSummary(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    type = fields.String(required=True)
    seats = fields.Integer(required=True)
    format = fields.String(required=True, validate=validate.OneOf(tournaments.FORMATS))
    rounds = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Known once it has started"}
    )
    round = fields.Integer(required=True, metadata={"description": "Rounds paired so far"})
    status = fields.String(required=True, validate=validate.OneOf(tournaments.STATUSES))
    organiser = fields.Nested(Person, required=True)
    created_at = fields.Float(required=True)
    starts_at = fields.Float(required=True, allow_none=True)
    started_at = fields.Float(required=True, allow_none=True)
    finished_at = fields.Float(required=True, allow_none=True)
    deadline = fields.Nested(Deadline, required=True, allow_none=True)
    rated = fields.Boolean(required=True)
    options = fields.Dict(required=True)
    max_entrants = fields.Integer(required=True)
    entrant_count = fields.Integer(required=True)
    reliability = fields.Nested(
        ReliabilityFilter, allow_none=True, metadata={"description": "null: anyone may sign up"}
    )
    leave_max_days = fields.Integer(
        allow_none=True, metadata={"description": "null: the deadline's own limit"}
    )


class StandingRow(ma.Schema):
    rank = fields.Integer(required=True, metadata={"description": "1 best; equal rows share"})
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    points = fields.Float(required=True, metadata={"description": "Points by rank, and byes"})
    games = fields.Integer(required=True, metadata={"description": "Finished games"})
    firsts = fields.Integer(required=True, metadata={"description": "Games placed first"})
    byes = fields.Integer(required=True)
    average_place = fields.Float(required=True, allow_none=True)
    buchholz = fields.Float(required=True, metadata={"description": "Opponents' points"})
    sonneborn_berger = fields.Float(
        required=True, metadata={"description": "Points of opponents beaten, half of drawn"}
    )


class TablePlayer(Person):
    rank = fields.Integer(required=True, allow_none=True, metadata={"description": "1 best"})
    points = fields.Float(required=True, allow_none=True)


class Table(ma.Schema):
    game_id = fields.String(
        required=True, allow_none=True, metadata={"description": "GET /v1/games/{game_id}"}
    )
    finished = fields.Boolean(required=True)
    players = fields.List(
        fields.Nested(TablePlayer), required=True, metadata={"description": "By seat"}
    )


class PlayedRound(ma.Schema):
    number = fields.Integer(required=True)
    started_at = fields.Float(required=True)
    byes = fields.List(fields.Nested(Person), required=True)
    tables = fields.List(fields.Nested(Table), required=True)
    kept_apart_failed = fields.Integer(
        required=True,
        metadata={
            "description": "Tables of this round seating two players of whom one blocks the "
            "other, because no pairing kept them apart (the players are not named)"
        },
    )


class Tournament(TournamentSummary):
    entrants = fields.List(fields.Nested(Person), required=True)
    standings = fields.List(fields.Nested(StandingRow), required=True)
    played_rounds = fields.List(fields.Nested(PlayedRound), required=True)


class TournamentsQuery(ma.Schema):
    before = NumberCursor(
        "a next_before from this list",
        metadata={"description": "The previous page's next_before"},
        validate=validate.Range(min=0, max=1e11),
    )
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))


class TournamentList(ma.Schema):
    items = fields.List(fields.Nested(TournamentSummary), required=True)
    next_before = fields.Float(required=True, allow_none=True)
