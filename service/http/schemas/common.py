"""Schemas shared by several resources."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import marshmallow as ma
from marshmallow import ValidationError, fields, validate

#: Names and codes end up in mail headers, logs and other players' views: no control characters
#: (CR, LF, tab, NUL, C1, the Unicode line and paragraph separators). Also in the document.
PLAIN_TEXT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"


def matching(pattern: str, error: str) -> Callable[[str], None]:
    """A validator: the whole value matches ``pattern``. Not ``validate.Regexp``: it uses
    ``re.match``, where ``$`` also matches before a final newline."""
    compiled = re.compile(pattern)

    def check(value: str) -> None:
        if not compiled.fullmatch(value):
            raise ValidationError(error)

    return check


def patterned(
    pattern: str, error: str, *, checks: Sequence[Callable[[str], Any]] = (), **kwargs: Any
) -> fields.String:
    """A string field whose whole value matches ``pattern`` (else ``error``), after any other
    ``checks``: the document carries the pattern the validator checks."""
    metadata = {"pattern": pattern, **kwargs.pop("metadata", {})}
    return fields.String(validate=[*checks, matching(pattern, error)], metadata=metadata, **kwargs)


def plain_text(*, max_length: int, **kwargs: Any) -> fields.String:
    """A string field for a name-like value: 1 to ``max_length`` characters, no control
    characters; the document carries the pattern."""
    return patterned(
        PLAIN_TEXT_PATTERN,
        "control characters (CR, LF, tab, NUL…) are not allowed here",
        checks=[validate.Length(min=1, max=max_length)],
        **kwargs,
    )


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
