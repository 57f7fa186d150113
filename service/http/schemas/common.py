"""Schemas shared by several resources, and the fields every request schema builds on.

A request's rules are service/domain/inputs.py's: these fields wrap them, so that the API and
the web forms (which reach the same service functions) refuse the same values. Types are
strict: JSON ``"1"`` is no integer, ``1`` no boolean, ``"72"`` no number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import marshmallow as ma
from marshmallow import ValidationError, fields, validate

from service.common.numbers import whole_number
from service.common.problems import Problem
from service.domain import inputs

#: Names and codes end up in mail headers, logs and other players' views: no control characters
#: (CR, LF, tab, NUL, C1, the Unicode line and paragraph separators, direction overrides) and
#: not only white space. Also in the document.
PLAIN_TEXT_PATTERN = inputs.NAME.pattern


def matching(pattern: str, error: str) -> Callable[[str], None]:
    """A validator: the whole value matches ``pattern``. Not ``validate.Regexp``: it uses
    ``re.match``, where ``$`` also matches before a final newline."""
    compiled = re.compile(pattern)

    def check(value: str) -> None:
        if not compiled.fullmatch(value):
            raise ValidationError(error)

    return check


def ruled(rule: Callable[[Any], Any]) -> Callable[[Any], None]:
    """A validator from a rule of service/domain/inputs.py."""

    def check(value: Any) -> None:
        try:
            rule(value)
        except inputs.Refused as error:
            raise ValidationError(str(error)) from None

    return check


def patterned(
    pattern: str, error: str, *, checks: Sequence[Callable[[str], Any]] = (), **kwargs: Any
) -> fields.String:
    """A string field whose whole value matches ``pattern`` (else ``error``), after any other
    ``checks``: the document carries the pattern the validator checks."""
    metadata = {"pattern": pattern, **kwargs.pop("metadata", {})}
    return fields.String(validate=[*checks, matching(pattern, error)], metadata=metadata, **kwargs)


class _Cursor:
    """A field holding a list's or a stream's position: any value it refuses (its type, its
    pattern, its bounds) is 400 ``invalid-cursor`` naming the parameter, on every list and
    stream alike (a malformed cursor is unreadable input, docs/api.md), not the 422
    ``invalid-query`` of the other parameters."""

    REFUSED = "anything else: 400 invalid-cursor"
    example: str

    def _described(self, metadata: dict[str, Any]) -> dict[str, Any]:
        said = metadata.get("description", "A next_cursor from this list")
        return {**metadata, "description": f"{said}; {self.REFUSED}"}

    def deserialize(
        self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any
    ) -> Any:
        try:
            return super().deserialize(value, attr, data, **kwargs)  # type: ignore[misc]
        except ValidationError:
            name = self.data_key or attr or "cursor"  # type: ignore[attr-defined]
            raise Problem(
                400, "invalid-cursor", f"{name} must be {self.example}", parameter=name
            ) from None


class Cursor(_Cursor, fields.String):
    """A cursor given as text: the whole value matches ``pattern`` (the document says it),
    then passes ``checks``."""

    def __init__(
        self,
        pattern: str,
        example: str = "a next_cursor from this list",
        *,
        checks: Sequence[Callable[[str], Any]] = (),
        **kwargs: Any,
    ) -> None:
        self.example = example
        metadata = {"pattern": pattern, **self._described(kwargs.pop("metadata", {}))}
        checked = [matching(pattern, example), *checks]
        super().__init__(validate=checked, metadata=metadata, **kwargs)


class NumberCursor(_Cursor, fields.Float):
    """A cursor given as a number (a finite one, within ``validate``'s range)."""

    def __init__(self, example: str, **kwargs: Any) -> None:
        self.example = example
        super().__init__(metadata=self._described(kwargs.pop("metadata", {})), **kwargs)


def text_field(rule: inputs.Text, **kwargs: Any) -> fields.String:
    """A string field checked by ``rule`` (service/domain/inputs.py): its length (minLength,
    maxLength in the document) and characters (the document's pattern)."""
    metadata = {"pattern": rule.pattern, **kwargs.pop("metadata", {})}
    return fields.String(
        validate=[validate.Length(min=1, max=rule.max_length), ruled(rule.content)],
        metadata=metadata,
        **kwargs,
    )


def plain_text(*, max_length: int, **kwargs: Any) -> fields.String:
    """A string field for a name-like value: 1 to ``max_length`` characters, no control
    characters, not only white space; the document carries the pattern."""
    return text_field(inputs.Text(max_length), **kwargs)


class StrictBoolean(fields.Boolean):
    """JSON ``true`` or ``false`` only (marshmallow's own also takes 1, "yes", "on"…)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class StrictFloat(fields.Float):
    """A JSON number; a string of digits is not one (marshmallow's own reads "72" as 72)."""

    def _validated(self, value: Any) -> float:
        if isinstance(value, str | bytes):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


def strict_integer(**kwargs: Any) -> fields.Integer:
    """A JSON integer: not "1", not 1.5 (which became 1), not 1.0, not true."""
    return fields.Integer(strict=True, **kwargs)


class QueryInteger(fields.Integer):
    """An integer parameter of a query string: ASCII digits only (service/common/numbers.py
    ``whole_number``, the rule the web pages read numbers by)."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str) and whole_number(value) is None:
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Email(fields.Email):
    """An email address by service/domain/inputs.py's rule (the document says format: email);
    marshmallow's own also takes quoted local parts with control characters, IP literals and
    bare hosts."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, validate.Email)] + [
            ruled(inputs.email)
        ]


class Decision(ma.Schema):
    """Who must act and how: ``move`` (open), ``sealed`` (stored unseen) or ``resolve`` (server)."""

    seat = fields.Integer(required=True, metadata={"description": "-1 is the server (SYSTEM)"})
    kind = fields.String(required=True, validate=validate.OneOf(["move", "sealed", "resolve"]))
    step = fields.String(required=True, metadata={"description": "Game step, e.g. play_card"})
    ref = fields.String(metadata={"description": "Sealed step id, e.g. conflict-3"})


class GameEvent(ma.Schema):
    kind = fields.String(required=True)
    data = fields.Dict(required=True)
    audience = fields.List(
        fields.Integer(), metadata={"description": "Seats that see it; absent = everyone"}
    )


class Seat(ma.Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    resigned = fields.Boolean(metadata={"description": "The seat resigned (game views)"})
    abandoned = fields.Boolean(
        metadata={"description": "Missed `abandon_after` deadlines in a row (game views)"}
    )
    missed_deadlines = fields.Integer(
        metadata={"description": "Deadlines missed in a row, until the seat acts again"}
    )
    is_bot = fields.Boolean(metadata={"description": "A computer opponent holds the seat"})
    bot_level = fields.String(
        allow_none=True,
        validate=validate.OneOf(inputs.BOT_LEVELS),
        metadata={"description": "The computer opponent's level (null: a person)"},
    )


class ReliabilityFilter(ma.Schema):
    """Who may take a seat or sign up, by the reliability on their profile (counted from
    finished games' records): a player short of either gets 403 `reliability-required`. A
    player with no decision counted yet has no share: any `min_on_time_percent` above 0 keeps
    them out."""

    min_on_time_percent = strict_integer(
        validate=validate.Range(0, inputs.RELIABILITY_FILTER["min_on_time_percent"]),
        metadata={"description": "At least this share of decisions taken in time, in percent"},
    )
    max_abandoned = strict_integer(
        validate=validate.Range(0, inputs.RELIABILITY_FILTER["max_abandoned"]),
        metadata={"description": "At most this many games ended abandoned"},
    )


class ClosedToYou(ma.Schema):
    """Why the caller cannot join: the filter's fields they miss, and their numbers."""

    code = fields.String(required=True, metadata={"description": "reliability-required"})
    unmet = fields.List(fields.String(), required=True)
    on_time_percent = fields.Float(
        required=True, allow_none=True, metadata={"description": "null: no decision counted yet"}
    )
    abandoned = fields.Integer(required=True)
