"""Games: creation, seats, views, actions, the event log and the record."""

from __future__ import annotations

import re
from typing import Any

import marshmallow as ma
from marshmallow import ValidationError, fields, validate, validates_schema

from engine.registry import game_ids
from service.common.i18n import LANGUAGES
from service.domain import inputs
from service.domain.games.play import MAX_ACTIONS
from service.http.schemas.common import (
    ClosedToYou,
    Cursor,
    Decision,
    GameEvent,
    QueryInteger,
    ReliabilityFilter,
    Seat,
    StrictBoolean,
    StrictFloat,
    strict_integer,
    text_field,
)

STATUSES = ["open", "active", "finished"]
#: What the server reads as a list cursor and as a version in If-Match (ASCII digits only). The
#: views refuse anything else with 400; the document carries the same patterns.
CURSOR_PATTERN = r"^[0-9]{1,15}$"
IF_MATCH_PATTERN = r'^(W/)?"?([0-9]{1,15})"?$'
#: The events' ``after``: a version, as ``next_cursor`` gives it (digits up to 2**53).
EVENTS_AFTER_PATTERN = r"^[0-9]{1,16}$"
MAX_EVENTS_AFTER = 2**53
EVENTS_AFTER = "a next_cursor (a version, at most 2**53)"


class Clock(ma.Schema):
    """A deadline's clock: a fixed time per decision, or a time bank per seat."""

    kind = fields.String(
        required=True,
        validate=validate.OneOf(inputs.CLOCK_KINDS),
        metadata={
            "description": "fixed: `hours` for each decision; bank: each seat's bank of days "
            "loses the time its player takes and gains `per_move_days` after each of their "
            "moves, up to `max_days`"
        },
    )
    initial_days = StrictFloat(
        validate=validate.Range(*inputs.BANK_DAYS, min_inclusive=False),
        metadata={"description": "A bank's days at the start (bank: required)"},
    )
    per_move_days = StrictFloat(
        validate=validate.Range(*inputs.BANK_DAYS),
        metadata={"description": "Days added after each of the player's moves (bank: required)"},
    )
    max_days = StrictFloat(
        validate=validate.Range(*inputs.BANK_DAYS),
        metadata={"description": "The bank's cap, at least `initial_days` (bank: required)"},
    )
    weekend_pause = StrictBoolean(
        metadata={
            "description": "Saturday and Sunday in the player's own time zone (their "
            "`timezone` preference) do not count"
        }
    )


class Deadline(ma.Schema):
    """Service-level decision deadlines (never passed to the game engine)."""

    hours = StrictFloat(
        validate=validate.Range(*inputs.DEADLINE_HOURS),
        metadata={"description": "Time for each decision, e.g. 72 (a fixed clock: required)"},
    )
    clock = fields.Nested(
        Clock,
        metadata={"description": 'A time bank instead of `hours` (default: {"kind": "fixed"})'},
    )
    remind_before_hours = StrictFloat(
        load_default=0,
        validate=validate.Range(*inputs.REMIND_BEFORE_HOURS),
        metadata={"description": "Send a deadline warning this long before (0: none)"},
    )
    policy = fields.String(
        load_default="default_move",
        validate=validate.OneOf(inputs.DEADLINE_POLICIES),
        metadata={
            "description": "A missed move: default_move plays the game's documented default; "
            "remind_only (fixed clocks) only logs the timeout and starts the clock again; skip "
            "plays pass, else end (the turn ends without acting), where legal (else the "
            "default move); resign takes the seat out of the game; bot lets a bot of "
            "`bot_level` hold the seat until its player acts again. A missed sealed choice is a "
            "pass, except under resign and bot."
        },
    )
    bot_level = fields.String(
        validate=validate.OneOf(inputs.BOT_LEVELS),
        metadata={"description": "The bot's level for the policy bot (default medium)"},
    )
    vacation_max_days = StrictFloat(
        load_default=14,
        validate=validate.Range(*inputs.VACATION_MAX_DAYS),
        metadata={"description": "How far a player's vacation may push a deadline back"},
    )


class BotSeat(ma.Schema):
    """A seat filled by a computer opponent (docs/bots.md)."""

    seat = strict_integer(
        required=True,
        validate=validate.Range(*inputs.SEAT_NUMBERS),
        metadata={"description": "Which seat; the creator takes the lowest seat no bot holds"},
    )
    level = fields.String(
        required=True,
        validate=validate.OneOf(inputs.BOT_LEVELS),
        metadata={
            "description": "easy: random among reasonable moves; medium: a greedy heuristic; "
            "hard: a search (information-set Monte Carlo tree search)"
        },
    )


class GameCreate(ma.Schema):
    type = text_field(
        inputs.GAME_TYPE,
        required=True,
        metadata={"enum": game_ids(), "description": "A type from GET /v1/game-types"},
    )
    seats = strict_integer(
        required=True,
        validate=validate.Range(*inputs.SEATS),
        metadata={
            "description": "How many players the game takes; the creator is seat 0 unless "
            "bots hold the seats before theirs"
        },
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = text_field(
        inputs.SEED,
        metadata={"description": "Shuffle seed (default: random). Whoever sets it knows the deal."},
    )
    deadline = fields.Nested(Deadline, metadata={"description": "Optional decision deadlines"})
    access = fields.String(
        load_default="invite",
        validate=validate.OneOf(inputs.ACCESS),
        metadata={
            "description": "invite: players join with the invite code; open: anyone may take a "
            "free seat, and the game is listed in GET /v1/games/open until it is full"
        },
    )
    spectators_see_messages = StrictBoolean(
        load_default=False,
        metadata={"description": "Spectators may read the table's messages (never private ones)"},
    )
    abandon_after = strict_integer(
        load_default=3,
        validate=validate.Range(*inputs.ABANDON_AFTER),
        metadata={
            "description": "Missed deadlines in a row after which a seat is abandoned: in a "
            "two-player game the opponent may then claim the win, otherwise the creator may "
            "offer the seat to a replacement. 0: never"
        },
    )
    rated = StrictBoolean(
        metadata={
            "description": "The result changes the players' ratings in this game type "
            "(default: true, or false when a seat is a bot's: a game against a bot is rated "
            "only when this says so)"
        },
    )
    bots = fields.List(
        fields.Nested(BotSeat),
        validate=validate.Length(max=inputs.SEATS[1]),
        metadata={
            "description": "Seats filled by computer opponents. The bots' seats and the "
            "creator's come first; players who join take the seats after them"
        },
    )
    bot_delay_seconds = StrictFloat(
        validate=validate.Range(*inputs.BOT_DELAY_SECONDS),
        metadata={
            "description": "How long a bot waits before it moves (default 0: at once; e.g. "
            "3600 for a correspondence pace)"
        },
    )
    bot_pace = fields.String(
        validate=validate.OneOf(inputs.BOT_PACES),
        metadata={
            "description": "How the bots pace their moves: `instant` (after `bot_delay_seconds`, "
            "0 by default), `seconds` (like a person at the table: 2 to 6 s, spread), "
            "`correspondence` (10 minutes to 6 hours, spread). Default: `seconds`, or `instant` "
            "when `bot_delay_seconds` is given, which goes with `instant` only"
        },
    )
    public = StrictBoolean(
        load_default=True,
        metadata={
            "description": "Once finished, the game is listed in GET /v1/games/finished and on "
            "its players' profiles"
        },
    )
    reliability = fields.Nested(
        ReliabilityFilter,
        metadata={"description": "Only players this reliable may join (open games above all)"},
    )
    invited = fields.List(
        fields.String(validate=validate.Length(1, 64)),
        load_default=list,
        validate=validate.Length(max=inputs.SEATS[1] - 1),
        metadata={
            "description": "Ids of players who may join without the invite code (fewer than "
            "the seats); 422 unknown-player for one that is none"
        },
    )


class GameCreated(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The creator's seat; null when bots hold every seat"},
    )
    invite_code = fields.String(required=True, metadata={"description": "Give it to the others"})


class JoinRequest(ma.Schema):
    invite_code = text_field(
        inputs.CODE, metadata={"description": "Required unless the game's access is open"}
    )


class OpenGamesQuery(ma.Schema):
    type = fields.String(validate=validate.OneOf(game_ids()))
    seats = QueryInteger(
        validate=validate.Range(*inputs.SEATS), metadata={"description": "Player count"}
    )
    deadline = fields.String(
        validate=validate.OneOf(["none", "default_move", "remind_only"]),
        metadata={"description": "Deadline policy; none: games without deadlines"},
    )
    cursor = Cursor(CURSOR_PATTERN)
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))


class OpenGame(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    max_seats = fields.Integer(required=True)
    seats = fields.List(fields.Nested(Seat), required=True, metadata={"description": "Taken"})
    deadline = fields.Nested(Deadline, allow_none=True)
    created_at = fields.Float(required=True)
    reliability = fields.Nested(
        ReliabilityFilter,
        required=True,
        allow_none=True,
        metadata={"description": "Who may join; null: anyone"},
    )
    closed_to_you = fields.Nested(
        ClosedToYou,
        allow_none=True,
        metadata={"description": "With a token: why you cannot join (null: you can)"},
    )


class OpenGameList(ma.Schema):
    items = fields.List(fields.Nested(OpenGame), required=True)
    next_cursor = fields.String(allow_none=True)


class Joined(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)


class SeatOffer(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    invite_code = fields.String(
        required=True, metadata={"description": "Send it to the replacement (take_seat)"}
    )


class TakeSeat(ma.Schema):
    invite_code = text_field(inputs.CODE, required=True)


class PreviousHolder(ma.Schema):
    player_id = fields.String(required=True)
    name = fields.String(required=True)


class Handover(ma.Schema):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "Where it changed hands"})
    previous = fields.Nested(PreviousHolder, required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)


class Rematch(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The rematch's game id"})
    rematch_of = fields.String(required=True, metadata={"description": "The finished game"})
    seat = fields.Integer(required=True, metadata={"description": "Your seat in the rematch"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))


class Invited(ma.Schema):
    player_id = fields.String(required=True)
    name = fields.String(required=True)


class RatingChange(ma.Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    before = fields.Float(
        required=True, metadata={"description": "Conservative rating (mu - 3 sigma) before"}
    )
    after = fields.Float(required=True, metadata={"description": "The same, after this game"})
    delta = fields.Float(required=True, metadata={"description": "after - before"})
    display_before = fields.Integer(
        required=True,
        metadata={"description": "The displayed rating (Rating.display_rating) before"},
    )
    display_after = fields.Integer(required=True, metadata={"description": "The same, after"})
    display_delta = fields.Integer(
        required=True, metadata={"description": "display_after - display_before"}
    )


class Started(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    events = fields.List(fields.Nested(GameEvent), required=True)


class Sentence(ma.Schema):
    version = fields.Integer(required=True)
    text = fields.String(required=True)


class OwnSealedChoice(ma.Schema):
    ref = fields.String(required=True)
    choice = fields.String(required=True, metadata={"description": "Yours alone until the reveal"})
    commitment = fields.String(required=True, metadata={"description": "What the table sees"})


class SeatBank(ma.Schema):
    """One seat's time bank (a game whose deadline's clock is a bank)."""

    seat = fields.Integer(required=True)
    seconds_left = fields.Float(
        required=True, metadata={"description": "What the bank holds now, in seconds"}
    )
    running = fields.Boolean(
        required=True, metadata={"description": "The game waits for this seat: its bank runs"}
    )
    runs_out_at = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "Unix time the running bank reaches zero (weekends already counted "
            "in where the game pauses them); null: not running"
        },
    )
    counts_until = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "Unix time until which a running bank counts down from now: the "
            "start of the player's weekend where the game pauses weekends (now, inside one); "
            "null: until it runs out, or not running"
        },
    )


class GameView(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    rules_version = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True)
    options = fields.Dict(required=True)
    max_seats = fields.Integer(required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    your_seat = fields.Integer(allow_none=True, metadata={"description": "null: spectator"})
    creator_seat = fields.Integer(allow_none=True)
    waiting_for = fields.List(fields.Nested(Decision), required=True)
    your_decision = fields.Nested(Decision, allow_none=True)
    your_sealed_choices = fields.List(
        fields.Nested(OwnSealedChoice),
        metadata={
            "description": "Your sealed choices not revealed yet: the choice (yours alone) and "
            "the commitment everyone sees"
        },
    )
    seed_commitment = fields.String(required=True, metadata={"description": "SHA-256 of seed"})
    view = fields.Dict(allow_none=True, metadata={"description": "The game, as you may see it"})
    result = fields.Dict(allow_none=True)
    deadline = fields.Nested(Deadline, allow_none=True)
    deadline_at = fields.Float(
        allow_none=True, metadata={"description": "Unix time the pending decisions time out"}
    )
    banks = fields.List(
        fields.Nested(SeatBank),
        allow_none=True,
        metadata={"description": "Each seat's time bank; null: the game's clock is no bank"},
    )
    invite_code = fields.String(metadata={"description": "To the creator, while open"})
    created_at = fields.Float(required=True)
    updated_at = fields.Float(required=True)
    since_your_last_move = fields.List(
        fields.Nested(Sentence),
        metadata={
            "description": "What happened since the caller's last move or sealed choice (for "
            "a spectator: lately), one sentence per event the caller may see, with player names"
        },
    )
    invited = fields.List(
        fields.Nested(Invited),
        required=True,
        metadata={"description": "Players named at creation, who join without the code"},
    )
    rated = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether the result changes ratings: false for a game with a bot "
            "unless it was created rated, and for a game whose seats are all one player's"
        },
    )
    bot_pace = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(inputs.BOT_PACES),
        metadata={"description": "How the bots pace their moves; null: no bot at the table"},
    )
    rematch = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "A finished game's rematch, once a player asked for it"},
    )
    rematch_of = fields.String(
        allow_none=True, required=True, metadata={"description": "What this game is a rematch of"}
    )
    rating_changes = fields.List(
        fields.Nested(RatingChange),
        allow_none=True,
        metadata={
            "description": "Each seat's rating change, best first; null: unrated, not over, or "
            "not applied yet (just after the end)"
        },
    )


class GameSummary(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    your_seat = fields.Integer(required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    max_seats = fields.Integer(required=True)
    waiting_for = fields.List(fields.Nested(Decision), required=True)
    updated_at = fields.Float(required=True)


class GameListQuery(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    cursor = Cursor(CURSOR_PATTERN)
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))


class GameList(ma.Schema):
    items = fields.List(fields.Nested(GameSummary), required=True)
    next_cursor = fields.String(
        allow_none=True, metadata={"description": "Pass as cursor for the next page"}
    )


class ViewHeaders(ma.Schema):
    if_none_match = fields.String(data_key="If-None-Match")


class LegalAction(ma.Schema):
    notation = fields.String(required=True)
    action = fields.Dict(required=True, metadata={"description": "The same as an action object"})


class LegalActions(ma.Schema):
    type = fields.String(
        required=True, metadata={"description": "The game's type: which game's actions these are"}
    )
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    decision = fields.Nested(Decision, allow_none=True)
    actions = fields.List(fields.Nested(LegalAction), required=True)


class NotationOrAction(fields.Field[Any]):
    """One item of ``actions``: a notation string or an action object."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str) and 1 <= len(value) <= inputs.NOTATION_LENGTH:
            return value
        if isinstance(value, dict):
            return value
        raise ValidationError("each action is a notation (1-200 characters) or an action object")


class ActionRequest(ma.Schema):
    notation = fields.String(
        validate=validate.Length(min=1, max=inputs.NOTATION_LENGTH),
        metadata={"description": "e.g. 'V ITA'"},
    )
    action = fields.Dict(metadata={"description": "An action object, as in legal-actions"})
    actions = fields.List(
        NotationOrAction(),
        validate=validate.Length(min=1, max=MAX_ACTIONS),
        metadata={
            "description": "Several actions (notations or action objects) applied in order as "
            "one atomic change: all or none (docs/api.md, 'Several actions in one request')"
        },
    )
    expected_version = strict_integer(
        validate=validate.Range(min=0),
        metadata={"description": "Refuse with 409 unless this is the current version"},
    )

    @validates_schema
    def one_of_notation_or_action(self, data: dict[str, Any], **_: Any) -> None:
        if sum(key in data for key in ("notation", "action", "actions")) != 1:
            raise ValidationError("give exactly one of notation, action and actions", "_schema")


class ActionHeaders(ma.Schema):
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        validate=validate.Length(min=1, max=200),
        metadata={"description": "Same key + same body replays the first response"},
    )
    if_match = fields.String(
        data_key="If-Match",
        metadata={
            "pattern": IF_MATCH_PATTERN,
            "description": 'The version you saw, e.g. "12"; anything else: 400 invalid-if-match',
        },
    )


class ActionResult(ma.Schema):
    type = fields.String(
        metadata={
            "description": "The game's type (absent from answers replayed from moves made "
            "before 2026-11-29)"
        }
    )
    version = fields.Integer(required=True, metadata={"description": "The game's new version"})
    status = fields.String(required=True)
    events = fields.List(fields.Nested(GameEvent), required=True)
    waiting_for = fields.List(
        fields.Nested(Decision),
        metadata={
            "description": "Who acts next, as in the game's view (absent from answers "
            "replayed from moves made before 2026-11-25)"
        },
    )
    ref = fields.String(metadata={"description": "Sealed choices (202): the sealed step"})
    commitment = fields.String(metadata={"description": "Sealed choices (202): SHA-256"})
    choice = fields.String(metadata={"description": "Sealed choices (202): canonical notation"})
    salt = fields.String(metadata={"description": "Sealed choices (202): the salt, for you only"})


def _events_after(text: str) -> None:
    """Digits, at most 2**53: what the integer ``after`` took before it became a cursor."""
    if not re.fullmatch(EVENTS_AFTER_PATTERN, text) or int(text) > MAX_EVENTS_AFTER:
        raise ValidationError(EVENTS_AFTER)


class BoardQuery(ma.Schema):
    lang = fields.String(
        load_default=LANGUAGES[0],
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language of the picture's labels, legend and sentences "
            "(docs/i18n.md); the notation stays the same"
        },
    )


class EventsQuery(ma.Schema):
    after = Cursor(
        EVENTS_AFTER_PATTERN,
        EVENTS_AFTER,
        checks=[_events_after],
        load_default="0",
        metadata={"description": "A next_cursor from this list (a version); 0: from the start"},
    )
    limit = QueryInteger(load_default=100, validate=validate.Range(min=1, max=500))


class LogEntry(ma.Schema):
    version = fields.Integer(required=True)
    kind = fields.String(
        required=True, metadata={"description": "created, joined, started, move, sealed or resolve"}
    )
    seat = fields.Integer(allow_none=True)
    action = fields.String(allow_none=True, metadata={"description": "null while sealed"})
    ref = fields.String(allow_none=True)
    commitment = fields.String(allow_none=True)
    events = fields.List(fields.Nested(GameEvent), required=True)
    at = fields.Float(required=True)


class EventPage(ma.Schema):
    items = fields.List(fields.Nested(LogEntry), required=True)
    next_cursor = fields.String(required=True, metadata={"description": "Pass as after="})


class RecordAction(ma.Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    kind = fields.String(required=True)
    action = fields.String(allow_none=True)
    ref = fields.String(allow_none=True)
    commitment = fields.String(allow_none=True)


class GameRecord(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    rules_version = fields.String(required=True)
    options = fields.Dict(required=True)
    status = fields.String(required=True)
    players = fields.Integer(required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True, metadata={"description": "Revealed at the end"})
    commitment_scheme = fields.String(required=True)
    actions = fields.List(fields.Nested(RecordAction), required=True)
    handovers = fields.List(
        fields.Nested(Handover),
        required=True,
        metadata={"description": "Seats taken over by a replacement, with the version"},
    )
    reveals = fields.List(fields.Dict(), required=True)
    result = fields.Dict(allow_none=True)
    complete = fields.Boolean(required=True)


class ReviewedDecision(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "The decision's log entry"})
    played = fields.String(required=True, metadata={"description": "What you played"})
    played_chance = fields.Float(
        required=True, metadata={"description": "Your estimated win chance after it, 0 to 1"}
    )
    suggested = fields.String(
        required=True, metadata={"description": "What the hard bot would have played"}
    )
    suggested_chance = fields.Float(
        required=True, metadata={"description": "Your estimated win chance after that, 0 to 1"}
    )
    agrees = fields.Boolean(required=True, metadata={"description": "The same move"})


class Review(ma.Schema):
    status = fields.String(
        required=True,
        validate=validate.OneOf(("pending", "ready", "failed")),
        metadata={
            "description": "`pending` while a worker makes it, `ready` once made, `failed` "
            "if it could not be made (POST again to ask for a new try)"
        },
    )
    requested_at = fields.Float(required=True)
    computed_at = fields.Float(metadata={"description": "Once ready"})
    failed_at = fields.Float(metadata={"description": "Once failed"})
    decisions = fields.List(
        fields.Nested(ReviewedDecision),
        required=True,
        metadata={"description": "Each of your decisions, in the game's order (once ready)"},
    )
