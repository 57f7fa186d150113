"""The two Server-Sent Events streams: where they resume (docs/api.md, "Streams")."""

from __future__ import annotations

import re

import marshmallow as ma
from marshmallow import fields

from service.common.problems import Problem
from service.http.schemas.common import Cursor, patterned
from service.http.schemas.games import CURSOR_PATTERN
from service.http.schemas.messages import MESSAGE_ID_PATTERN
from service.store.tokens import STREAM_TICKET_PATTERN

GAME_STREAM = """Server-Sent Events (`text/event-stream`), one per log entry:

    id: 12
    event: entry
    data: {"version": 12, "kind": "move", "seat": 1, "action": ..., "events": [...], ...}

`data` is the entry as `GET /v1/games/{game_id}/events` lists it for the same caller (sealed
choices of others redacted until revealed; spectators' view without a token); `id` is its
version. A comment `: ping` comes every 15 s while nothing happens. Resume with the
`Last-Event-ID` header (or `?after=`): entries after that version. A finished game sends what
is left, then `event: end` (`data: {"status": "finished", "version": N}`) and closes. The game's
messages the caller may see come as `event: message` (as `GET .../messages` shows them,
without an `id`), as they are posted after the stream opened."""

INBOX_STREAM = """Server-Sent Events (`text/event-stream`) about the caller's open and active games:

    event: inbox
    data: {"game_id": "...", "game_type": "attila", "version": 12, "status": "active",
           "your_decision": {"seat": 0, "kind": "sealed", ...} or null}

first one per game (the inbox now), then one whenever a game moves (your turn, a sealed choice
owed, game over: `status` finished), computed as `GET /v1/me/inbox` computes it; and

    id: 1712345678901-0
    event: message
    data: {"game_id": "...", "id": "1712345678901-0", "from_seat": 1, "to_seat": 0, ...}

for each message the caller may see (as `GET /v1/games/{id}/messages` shows it). Resume with
`Last-Event-ID` (a message id): messages after it. `: ping` every 15 s."""

REDIRECT = (
    "The stream server's URL for this path (KURIER_STREAM_URL, docs/operations.md): follow it. "
    "A request with a token gets a one-time `ticket` in that URL (valid 60 s) that stands for "
    "the token there, so a client that drops Authorization on the redirect still gets its own "
    "stream"
)
TICKET = (
    "Set by this path's 307 for a caller who sent a token: a one-time stream ticket (60 s) for "
    "the stream server; never made by a client. An unknown, used or expired one: 401 "
    "invalid-stream-ticket"
)


#: Where each stream resumes: a version, or a message id (what its events' ``id`` carry).
GAME_CURSOR = (CURSOR_PATTERN, "a version such as 12")
INBOX_CURSOR = (MESSAGE_ID_PATTERN, "a message id such as 1732400000000-0")


def resume_cursor(
    cursor: tuple[str, str], last_event_id: str | None, after: str | None
) -> str | None:
    """Where a stream resumes: the ``Last-Event-ID`` header (sent by a reconnecting
    EventSource, and winning over the URL it reconnects to), else the ``after`` query parameter.
    An empty header is absent (an EventSource that has seen no id may send one); an empty
    ``after`` is not a cursor, as the document's pattern says. One that is not a cursor is 400
    ``invalid-cursor`` naming it, from the API (which answers the stream paths 307) and from the
    stream server alike, as every list answers a malformed cursor (``common.Cursor``)."""
    pattern, example = cursor
    for name, value in (("Last-Event-ID", last_event_id), ("after", after)):
        if value is None or (value == "" and name == "Last-Event-ID"):
            continue
        if not re.fullmatch(pattern, value.strip()):
            raise Problem(400, "invalid-cursor", f"{name} must be {example}", parameter=name)
        return value.strip()
    return None


def _after(cursor: tuple[str, str], description: str) -> fields.String:
    """The ``after`` parameter as documented; checked by ``resume_cursor`` with the header
    (a bad ``after`` beside a good header is ignored, as the header wins)."""
    return fields.String(
        metadata={"pattern": cursor[0], "description": f"{description}; {Cursor.REFUSED}"}
    )


def _last_event_id(cursor: tuple[str, str]) -> fields.String:
    """The ``Last-Event-ID`` header as ``resume_cursor`` reads it: the stream's cursor, or
    empty (absent: an EventSource that has seen no id may send an empty one)."""
    pattern = cursor[0].removeprefix("^").removesuffix("$")
    return fields.String(
        data_key="Last-Event-ID",
        metadata={
            "pattern": f"^({pattern})?$",
            "description": "The id of the last event received: resume after it (it wins over "
            f"after; empty: absent); {Cursor.REFUSED}",
        },
    )


class GameStreamQuery(ma.Schema):
    after = _after(GAME_CURSOR, "Entries after this version (Last-Event-ID wins)")
    ticket = patterned(
        STREAM_TICKET_PATTERN, "a stream ticket from a 307", metadata={"description": TICKET}
    )


class InboxStreamQuery(ma.Schema):
    after = _after(INBOX_CURSOR, "Messages after this id (Last-Event-ID wins)")
    ticket = patterned(
        STREAM_TICKET_PATTERN, "a stream ticket from a 307", metadata={"description": TICKET}
    )


class GameStreamHeaders(ma.Schema):
    last_event_id = _last_event_id(GAME_CURSOR)


class InboxStreamHeaders(ma.Schema):
    last_event_id = _last_event_id(INBOX_CURSOR)
