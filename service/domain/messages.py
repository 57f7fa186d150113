"""Messages at the table: to everyone, or privately to one seat (issue 13).

Messages live beside the game's log (``kurier:game:{g}:messages``, a stream in the game's slot:
service/store/messages.py); they change no version, no state and no ETag of the game.

Who sees what, checked on every read:

- a table message: every player of the game; spectators only if the creator allowed it when
  creating the game (``spectators_see_messages``);
- a private message: its sender and its recipient, nobody else (not the other players, not
  spectators, not the creator);
- a hidden message (the creator or a moderator hid it): still listed, marked ``hidden``, its
  text withheld from everyone but its sender;
- a message of a player the reader blocks (service/domain/blocks.py): not shown to the reader
  at all, in any channel (every read goes through ``scan`` or ``message_for``); a player who is
  blocked cannot write privately to the blocker.

Text is plain, stored as given (at most ``MAX_TEXT`` characters), and escaped wherever it is
rendered. A player may send ``RATE_COUNT`` messages per ``RATE_SECONDS`` over all games.
Recipients hear of a message through their notification preferences (type ``game.message``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import blocks, inputs
from service.store import Store, owed
from service.store.owed import OwedJob, notice_job
from service.store.queues import MESSAGE_JOB, message_job_id
from service.store.record import GameRecord

MAX_TEXT = inputs.MESSAGE.max_length
RATE_COUNT = 10
RATE_SECONDS = 60
PAGE = 100


def post(
    store: Store, player: Mapping[str, Any], game_id: str, text: str, to_seat: int | None
) -> dict[str, Any]:
    """Post a message as ``player``, a player of the game; returns it as its sender sees it.
    ``text`` and ``to_seat`` are checked here by the API schema's rules (inputs.MESSAGE, an
    integer seat), so a web form or a mailed ``say`` is refused as the API would refuse it."""
    if not isinstance(text, str) or not text.strip():
        raise Problem(422, "empty-message", N_("the message has no text"), field="text")
    inputs.checked("text", inputs.MESSAGE.check, text)
    if to_seat is not None:  # an integer (not "1", not 1.5); which seat is checked below
        inputs.checked("to_seat", inputs.whole, to_seat)
    record = store.get_game(game_id)
    seat = _seat_of(record, player)
    if to_seat is not None and (to_seat == seat or not 0 <= to_seat < len(record.seats)):
        raise Problem(
            422,
            "invalid-recipient",
            f"to_seat must be another seat of this game (0-{len(record.seats) - 1})",
            field="to_seat",
        )
    if to_seat is not None:
        blocks.check_private(store, player["id"], record.seats[to_seat])
    window = int(time.time()) // RATE_SECONDS
    if store.messages.count(player["id"], window, RATE_SECONDS) > RATE_COUNT:
        retry = RATE_SECONDS - int(time.time()) % RATE_SECONDS
        raise Problem(
            429,
            "message-rate-limited",
            f"at most {RATE_COUNT} messages per {RATE_SECONDS} s; retry after {retry} s",
            headers={"Retry-After": str(retry)},
            retry_after=retry,
        )
    fields = {
        "from_seat": str(seat),
        "to_seat": "" if to_seat is None else str(to_seat),
        "text": text,
        "at": repr(time.time()),
        "from_player": player["id"],
    }
    if to_seat is not None:  # private talk stays with these two people, whoever sits later
        fields["to_player"] = record.seats[to_seat]
    message_id = store.messages.add(game_id, fields)
    # After the message is stored: a crash in between loses a notice, never a message.
    for recipient in _recipients(record, seat, to_seat):
        owed.owe_now(store.queue_raw, message_notice(game_id, message_id, recipient))
    return _shown(message_id, fields, hidden=False, viewer=seat)


def _seat_of(record: GameRecord, player: Mapping[str, Any]) -> int:
    seat = record.seat_of(player["id"])
    if seat is None:
        raise Problem(403, "not-a-player", N_("only the game's players can write to its table"))
    return seat


def sender(record: GameRecord, fields: Mapping[str, str]) -> str:
    """The player who wrote a message (its seat's player for a message kept without one)."""
    return fields.get("from_player") or record.seats[int(fields["from_seat"])]


def _recipients(record: GameRecord, seat: int, to_seat: int | None) -> list[int]:
    if to_seat is not None:
        return [to_seat]
    return [s for s in range(len(record.seats)) if s != seat]


def message_notice(game_id: str, message_id: str, seat: int) -> OwedJob:
    return notice_job(
        message_job_id(game_id, message_id, seat),
        MESSAGE_JOB,
        (game_id, message_id, seat),
        f"message {message_id} to seat {seat} of game {game_id}",
    )


def visible(record: GameRecord, fields: Mapping[str, str], viewer: int | None) -> bool:
    """May ``viewer`` (a seat, None for a spectator) see that this message exists?"""
    if fields["to_seat"] != "":
        parties = {
            int(fields["from_seat"]): fields.get("from_player"),
            int(fields["to_seat"]): fields.get("to_player"),
        }
        if viewer is None or viewer not in parties:
            return False
        # A replacement in the seat (service/domain/seats.py) does not read its predecessor's talk.
        holder = parties[viewer]
        return holder is None or holder == record.seats[viewer]
    return viewer is not None or bool(record.settings.get("spectators_see_messages"))


def page(
    store: Store, game_id: str, player_id: str | None, after: str | None, limit: int = PAGE
) -> dict[str, Any]:
    """The messages ``player_id`` (None: a spectator) may see, oldest first, after ``after``.

    ``next_cursor`` is the id of the last message shown (``after`` if none is): never the id
    of one the caller may not see, which would tell them that a private message was sent, and
    when (issue 36). The one exception: when ``SCAN_PAGES`` pages in a row hold nothing for
    the caller, the cursor moves past them, or the caller would never read on."""
    record = store.get_game(game_id)
    if record.seat_of(player_id) is None and not record.settings.get("spectators_see_messages"):
        return {"items": [], "next_cursor": after}  # a spectator who may read none: no scan
    found = scan(store, game_id, player_id, after, limit, record)
    cursor = found.read_to if found.stuck else found.shown_to
    return {"items": found.items, "next_cursor": cursor or after}


#: How many pages of ``PAGE`` a read goes through looking for what its caller may see.
SCAN_PAGES = 50


@dataclass(frozen=True)
class Scan:
    """What one read found: the messages shown, the id of the last of them, the id of the last
    message read (shown or not: where a stream that follows the game waits from), and whether
    the read stopped at its bound with nothing to show."""

    items: list[dict[str, Any]]
    shown_to: str | None
    read_to: str | None
    stuck: bool


def scan(
    store: Store,
    game_id: str,
    player_id: str | None,
    after: str | None,
    limit: int = PAGE,
    record: GameRecord | None = None,
) -> Scan:
    """The messages ``player_id`` may see after ``after`` (at most ``limit``), read in pages
    until that many are found or the stream ends (at most ``SCAN_PAGES`` pages)."""
    record = record or store.get_game(game_id)
    viewer = record.seat_of(player_id)
    unheard = blocks.hidden_senders(store, player_id)
    items: list[dict[str, Any]] = []
    shown_to, read_to = None, after
    for _ in range(SCAN_PAGES):
        entries, hidden = store.messages.read(game_id, read_to, PAGE)
        for message_id, fields in entries:
            read_to = message_id
            if visible(record, fields, viewer) and sender(record, fields) not in unheard:
                items.append(_shown(message_id, fields, message_id in hidden, viewer))
                shown_to = message_id
                if len(items) == limit:
                    return Scan(items, shown_to, read_to, False)
        if len(entries) < PAGE:
            return Scan(items, shown_to, read_to, False)
    return Scan(items, shown_to, read_to, not items)


def _shown(
    message_id: str, fields: Mapping[str, str], hidden: bool, viewer: int | None
) -> dict[str, Any]:
    sender = int(fields["from_seat"])
    return {
        "id": message_id,
        "from_seat": sender,
        "to_seat": int(fields["to_seat"]) if fields["to_seat"] != "" else None,
        "text": None if hidden and viewer != sender else fields["text"],
        "hidden": hidden,
        "at": float(fields["at"]),
    }


def hide(store: Store, player: Mapping[str, Any], game_id: str, message_id: str) -> dict[str, Any]:
    """The creator hides a message (kept, marked hidden); refused for anyone else."""
    record = store.get_game(game_id)
    if player["id"] != record.creator:
        raise Problem(403, "not-the-creator", N_("only the game's creator can hide messages"))
    fields = store.messages.get(game_id, message_id)
    if fields is None or not visible(record, fields, record.seat_of(player["id"])):
        raise Problem(404, "message-not-found", f"no message {message_id!r} in this game")
    store.messages.hide(game_id, message_id)
    return _shown(message_id, fields, hidden=True, viewer=record.seat_of(player["id"]))


def message_for(
    store: Store, record: GameRecord, message_id: str, seat: int
) -> dict[str, Any] | None:
    """The message as ``seat`` sees it, or None (gone, hidden meanwhile, or not for it)."""
    fields = store.messages.get(record.id, message_id)
    if fields is None or not visible(record, fields, seat):
        return None
    if store.messages.hidden(record.id, message_id):
        return None
    if blocks.blocks(store, record.seats[seat], sender(record, fields)):
        return None
    return _shown(message_id, fields, False, seat)
