"""Live streams as Server-Sent Events (docs/api.md, "Streams"): a game's log as it grows, and a
player's inbox and messages. Served by the stream server (service/http/streams_app.py).

Each function checks what it can before the first byte (an unknown game is a 404 problem, not
an empty stream) and returns an iterator of SSE text. The iterators wait on Redis with
blocking reads (``XREAD BLOCK``), no polling loop on a single Redis: a game's streams through
the process's watcher of the game (service/domain/loghub.py: one blocking read and one read of each
move for all the game's streams in the process), a player's stream on its own connection
(Store.wait_streams).

What is sent is what the API would answer at that moment: a game's entries are read with
``Store.read_log`` and redacted by ``views.redact_entry`` for the caller's seat (the path of
``GET /v1/games/{id}/events``); inbox changes come from ``service/domain/inbox.py`` (the path of
``GET /v1/me/inbox``) and messages from ``messages.scan`` (as ``GET .../messages``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from engine import jsontext
from service.common.problems import Problem
from service.domain import inbox, loghub, messages
from service.domain.games import views
from service.store import REDIS_FAILED, Store
from service.store.keys import events_key, messages_key

log = logging.getLogger("kurier.streams")
T = TypeVar("T")

#: Entries read per round: a client far behind gets its backlog in pages.
PAGE = 100
#: Reconnect delay a browser's EventSource uses after the server closes (ms).
RETRY_MS = 3000
PING = ": ping\n\n"
#: Statuses of games whose changes a player's stream follows (an open game may start).
FOLLOWED = ("open", "active")


@dataclass(frozen=True)
class Caller:
    """Who opened a stream with a bearer token: the token's key (``Tokens.key_of``, never the
    token itself) and its player. The stream ends once the token no longer stands for them."""

    token_key: str
    player_id: str


@dataclass(frozen=True)
class Timing:
    """``heartbeat``: seconds between ``: ping`` comments on an idle stream (and the longest
    block); ``lifetime``: seconds after which the server closes a stream (the client resumes
    with Last-Event-ID). A stream opened with a token also asks once a heartbeat whether the
    token still stands for its player, and ends once it is revoked."""

    heartbeat: float = 15.0
    lifetime: float = 3600.0


@dataclass
class _Clock:
    timing: Timing
    opened: float = field(default_factory=time.monotonic)
    last_sent: float = field(default_factory=time.monotonic)
    #: When the stream's token was last found standing for its player.
    authorized: float = field(default_factory=time.monotonic)

    def sent(self) -> None:
        self.last_sent = time.monotonic()

    def revoked(self, store: Store, caller: Caller | None) -> bool:
        """Whether the stream's token was revoked: asked once a heartbeat (one read), busy
        or idle, so an open stream ends within a heartbeat of the revocation instead of
        running on for its lifetime."""
        if caller is None or time.monotonic() - self.authorized < self.timing.heartbeat:
            return False
        if not store.tokens.stands_for(caller.token_key, caller.player_id):
            return True
        if store.moderation.is_suspended(caller.player_id):
            return True  # a moderator suspended the account: its streams end too
        self.authorized = time.monotonic()
        return False

    def expired(self) -> bool:
        return time.monotonic() - self.opened >= self.timing.lifetime

    def wait_ms(self) -> int:
        """How long to block before the next heartbeat is due (0: due now)."""
        left = self.last_sent + self.timing.heartbeat - time.monotonic()
        return max(0, int(left * 1000))


def sse(event: str, data: Any, event_id: str | None = None) -> str:
    """One SSE event: ``id`` (if any), ``event`` and one ``data`` line of compact JSON."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {jsontext.dumps(data)}\n\n"


# -- a game's stream ------------------------------------------------------------------------------


def game_stream(
    store: Store, game_id: str, caller: Caller | None, after: int, timing: Timing
) -> Iterator[str]:
    """The game's log after version ``after``, then each new entry as it is committed, each
    redacted for ``caller``'s player (None: a spectator). Raises the 404 problem of an unknown
    game now; the stream itself ends with an ``end`` event once the game is finished, and
    without one once the caller's token is revoked."""
    record, entries = store.read_log(game_id, after, PAGE, state=False)
    talk = _Talk(store.messages.last_ids([game_id])[0])
    return _game_events(store, game_id, caller, after, (record, entries), timing, talk)


@dataclass
class _Talk:
    """Where a game's stream is in the game's messages: the ID of the last one read, shown to
    its caller or not (a stream sends the messages that come after it opened)."""

    read_to: str

    def news(self, store: Store, record: Any, player_id: str | None, newest: str) -> list[str]:
        """A ``message`` event for each message after ``read_to`` that ``player_id`` (None: a
        spectator) may see, as ``GET .../messages`` shows it, if ``newest`` (the newest
        message ID the game's watcher has seen) is later. No event ID: a game stream's IDs are
        versions, where a client resumes."""
        if loghub.message_order(newest) <= loghub.message_order(self.read_to):
            return []
        seated = record.seat_of(player_id) is not None
        if not seated and not record.settings.get("spectators_see_messages"):
            self.read_to = newest
            return []
        found = messages.scan(store, record.id, player_id, self.read_to, PAGE, record)
        self.read_to = found.read_to or newest  # none read: nothing is left before newest
        return [sse("message", item) for item in found.items]


def _game_events(
    store: Store,
    game_id: str,
    caller: Caller | None,
    after: int,
    first: tuple[Any, Any],
    timing: Timing,
    talk: _Talk,
) -> Iterator[str]:
    hub = loghub.hub_of(store, PAGE)
    # The game is watched for what comes after the record this first read saw.
    with hub.following(game_id, first[0].version):
        yield from _game_entries(store, hub, game_id, caller, after, first, timing, talk)


def _game_entries(
    store: Store,
    hub: loghub.LogHub,
    game_id: str,
    caller: Caller | None,
    after: int,
    first: tuple[Any, Any],
    timing: Timing,
    talk: _Talk,
) -> Iterator[str]:
    clock = _Clock(timing)
    record, entries = first
    player_id = caller.player_id if caller else None
    yield f"retry: {RETRY_MS}\n\n"  # the headers go out with the first bytes
    while True:
        seat = record.seat_of(player_id)  # read with the entries: a seat may change hands
        for version, entry in entries:
            yield sse("entry", views.redact_entry(record, version, entry, seat), str(version))
            after = version
            clock.sent()
        if len(entries) < PAGE:  # caught up with the record read beside these entries
            if record.status == "finished":
                yield sse("end", {"status": "finished", "version": record.version})
                return
            if clock.expired():
                return
            for said in talk.news(store, record, player_id, hub.talk_of(game_id)):
                yield said
                clock.sent()
            revoked = _waited(clock.revoked, store, caller)
            if revoked is None or revoked:  # the client reconnects, and is answered 401
                return
            if clock.wait_ms() == 0:
                yield PING
                clock.sent()
            # Wait for news and their read, made once per move for all the game's streams in
            # this process by its watcher (a timeout reads afresh, nothing new).
            block_ms = max(clock.wait_ms(), 1)
            reading = partial(hub.wait_read_log, game_id, after, block_ms, talk.read_to)
        else:
            reading = partial(store.read_log, game_id, after, PAGE, state=False)  # the next page
        try:
            read = _waited(reading)
        except Problem:  # archived meanwhile: nothing more will come
            yield sse("end", {"status": "gone", "version": after})
            return
        if read is None:
            return
        record, entries = read


def _waited(wait: Callable[..., T], *args: Any) -> T | None:
    """Run a blocking read; None (the stream closes, the client reconnects) if Redis fails."""
    try:
        return wait(*args)
    except REDIS_FAILED as error:  # the stream closes, its client resumes: no traceback
        log.warning("stream closed: Redis failed while waiting: %s", error)
        return None


# -- a player's stream ----------------------------------------------------------------------------


@dataclass
class _Following:
    """The games a player's stream follows: each one's last version and message ID seen."""

    versions: dict[str, int] = field(default_factory=dict)
    message_ids: dict[str, str] = field(default_factory=dict)

    def cursors(self) -> dict[str, str]:
        out = {events_key(g): f"{v}-0" for g, v in self.versions.items()}
        out |= {messages_key(g): m for g, m in self.message_ids.items()}
        return out


def inbox_stream(
    store: Store, caller: Caller, last_message: str | None, timing: Timing
) -> Iterator[str]:
    """The caller's inbox now (one ``inbox`` event per followed game), then an ``inbox`` event
    whenever one of its games moves and a ``message`` event for each message it may see
    (after ``last_message``, a message ID, when resuming); until the caller's token is
    revoked."""
    return _closed_when_redis_fails(_inbox_events(store, caller, last_message, timing))


def _closed_when_redis_fails(events: Iterator[str]) -> Iterator[str]:
    """``events`` until Redis fails: between the waits (which ``_waited`` guards) the inbox
    reads its games and messages, and a failure there ends the stream the same way."""
    try:
        yield from events
    except REDIS_FAILED as error:
        log.warning("stream closed: Redis failed: %s", error)


def _inbox_events(
    store: Store, caller: Caller, last_message: str | None, timing: Timing
) -> Iterator[str]:
    clock = _Clock(timing)
    following = _Following()
    player_id = caller.player_id
    yield f"retry: {RETRY_MS}\n\n"
    yield from _refresh(store, player_id, following, last_message)
    refreshed = time.monotonic()
    while not clock.expired() and not clock.revoked(store, caller):
        if clock.wait_ms() == 0:
            yield PING
            clock.sent()
        moved = _waited(store.wait_streams, following.cursors(), max(clock.wait_ms(), 1))
        if moved is None:
            return
        for chunk in _news(store, player_id, following, moved):
            yield chunk
            clock.sent()
        if time.monotonic() - refreshed >= timing.heartbeat:  # games joined meanwhile
            for chunk in _refresh(store, player_id, following, None):
                yield chunk
                clock.sent()
            refreshed = time.monotonic()


def _refresh(
    store: Store, player_id: str, following: _Following, last_message: str | None
) -> Iterator[str]:
    """Follow the player's open and active games not followed yet: an ``inbox`` event for
    each, and its messages from ``last_message`` on (or only new ones)."""
    ids = [gid for gid, _ in store.indexes.player_games(player_id, None)]
    summaries = [
        s
        for s in store.indexes.game_summaries([g for g in ids if g not in following.versions])
        if s is not None and s["status"] in FOLLOWED
    ]
    new = [s["id"] for s in summaries]
    newest = store.messages.last_ids(new) if last_message is None else [last_message] * len(new)
    for summary, message_id in zip(summaries, newest, strict=True):
        following.versions[summary["id"]] = int(summary["version"])
        following.message_ids[summary["id"]] = message_id
        yield sse("inbox", inbox.change(summary, player_id))
    if last_message is not None:
        yield from _messages(store, player_id, following, new)


def _news(store: Store, player_id: str, following: _Following, moved: set[str]) -> Iterator[str]:
    """The events of the streams that moved: an ``inbox`` event per game whose version moved
    (a finished game is then no longer followed), a ``message`` event per new message."""
    games_moved = [g for g in following.versions if events_key(g) in moved]
    summaries = store.indexes.game_summaries(games_moved)
    for gid, summary in zip(games_moved, summaries, strict=True):
        if summary is not None:
            following.versions[gid] = int(summary["version"])
            yield sse("inbox", inbox.change(summary, player_id))
    talk = [g for g in following.message_ids if messages_key(g) in moved]
    yield from _messages(store, player_id, following, talk)
    for gid, summary in zip(games_moved, summaries, strict=True):
        if summary is None or summary["status"] not in FOLLOWED:
            following.versions.pop(gid, None)
            following.message_ids.pop(gid, None)


def _messages(
    store: Store, player_id: str, following: _Following, game_ids: list[str]
) -> Iterator[str]:
    for gid in game_ids:
        try:
            found = messages.scan(store, gid, player_id, following.message_ids[gid], PAGE)
        except Problem:  # the game is gone (archived)
            continue
        for item in found.items:
            yield sse("message", {"game_id": gid, **item}, item["id"])
        # The wait for news starts after every message read, shown or not (else it would wake
        # at once for one the player may not see); the client resumes from the id of the last
        # event it got, a message it may see.
        if found.read_to:
            following.message_ids[gid] = found.read_to
