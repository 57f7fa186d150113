"""Notification jobs: email and webhooks to one player; the deadline and reminder jobs
(their logic: service/domain/deadlines.py).

Every job is idempotent. A notification re-reads the game and skips what went stale (a "your
turn" for a turn already played); an email is sent once per notification (a ``SET NX`` ledger
keyed like its Message-ID); a webhook delivery exists once (``HSETNX``) and each attempt runs
only if the delivery's attempt count says it is the next one. Deadlines re-check the version
they were scheduled for, so a deadline of an older version does nothing.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from engine.core import Event
from engine.sentences import N_
from service.common import i18n, webhook_urls
from service.common.i18n import say as _
from service.domain import (
    deadlines,
    deliveries,
    mailbag,
    messages,
    notifications,
    prefs,
    presence,
    ratings,
    unsubscribe,
)
from service.domain.leave import LEAVE_NOTICE
from service.domain.notifications import ASKING, SEATS_FILLED, seats_filled
from service.ops import metrics
from service.store import Store, owed, queues
from service.store.record import GameRecord
from workers import mail, mailview, seatmail, webhooks
from workers.seatmail import public_url
from workers.shared import shared_store

log = logging.getLogger("kurier.notify")
MESSAGE_NOTICE = "game.message"
#: A bag notice made while its player was at the table, the page visible: seen there.
SEEN_AT_TABLE = "at_table"
#: Seconds between webhook attempts: now, then these (about an hour in all), then disable.
DEFAULT_RETRY_SCHEDULE = (5.0, 30.0, 120.0, 300.0, 900.0, 1800.0)
MAX_RETRY_AFTER = 6 * 3600.0
#: How many log entries back a notice looks for the seat's own moves (far more than a turn).
ACTED_LOOKBACK = 200
#: How far back the move before an interlude (a conflict's sealed cards and resolution) is.
INTERLUDE_LOOKBACK = 20
#: Seconds a webhook job may run beyond its attempt's cap (reading Redis, scheduling a retry).


def retry_schedule() -> tuple[float, ...]:
    text = os.environ.get("KURIER_WEBHOOK_RETRY_SCHEDULE", "")
    if not text:
        return DEFAULT_RETRY_SCHEDULE
    return tuple(float(part) for part in text.split(",") if part.strip())


# -- one notification to one seat ---------------------------------------------------------------

#: What the subject says is asked or happened (English; ``_`` says it in the reader's language).
SUBJECTS = {
    SEATS_FILLED: N_("every seat is taken"),
    "game.started": N_("the game has started"),
    "game.turn_started": N_("your turn"),
    "game.sealed_needed": N_("your sealed choice is needed"),
    "game.conflict_resolved": N_("a conflict was resolved"),
    "game.scored": N_("scoring"),
    "game.deadline_warning": N_("your deadline is near"),
    "game.timeout_applied": N_("your deadline passed"),
    "game.ended": N_("the game is over"),
    LEAVE_NOTICE: N_("an opponent is on leave"),
}
NEWS = N_("news")
#: The sentence of a notice that has no event behind it (the subject's words otherwise).
HEADLINES = {
    "game.started": N_("The game has started."),
    "game.turn_started": N_("Your turn."),
    "game.sealed_needed": N_("Your sealed choice is needed."),
    "game.conflict_resolved": N_("A conflict was resolved."),
    "game.scored": N_("Scoring."),
    "game.deadline_warning": N_("Your deadline is near."),
    "game.timeout_applied": N_("Your deadline passed."),
}


def notify(game_id: str, version: int, kind: str, seat: int, data: dict[str, Any]) -> str:
    """Email and/or webhook for one notice, per the player's preferences."""
    store = shared_store()
    record = store.get_game(game_id)
    if kind in ASKING and not _still_owed(store, record, seat, version, data):
        return "stale"
    if kind == SEATS_FILLED and not seats_filled(record):
        return "stale"  # started already, or a seat is free again
    if kind == "game.ended":
        ratings.rate_game(store, game_id)  # rated once, whoever runs it: the mail shows it
    player_id = record.seats[seat]
    raw = store.players.hash(player_id)
    channels = prefs.channels_for(raw, kind)
    key = queues.notify_job_id(game_id, version, kind, seat)
    # The player's digest or quiet hours may hold the mail (never past the deadline's rule).
    held = mailbag.send_time(raw, time.time(), kind in ASKING, record.deadline_at, record.deadline)
    # That version's news mail shows the moves (webhooks as ever). Not when mails are held:
    # the news would wait past the deadline's rule, which only a turn notice keeps.
    resumed = held is None and _news_shows_the_turn(store, record, version, kind, seat, raw)
    if "email" in channels and resumed:
        channels.remove("email")
    # A player at the table sees it there: the mail waits until they leave (one read).
    table = presence.holds_mail(store, game_id, player_id, raw) if "email" in channels else None
    if table is not None and kind == SEATS_FILLED:
        channels.remove("email")  # the creator's page shows the full table: nothing to keep
    if "email" in channels and kind == SEATS_FILLED:
        # At once, never in a bag: the game has not begun, there is no board to show yet.
        with i18n.speaking(i18n.language(raw.get("language"))):
            message = _seats_filled_mail(store, record, version, seat, raw)
        seatmail.send_once(store, key, message)
    elif "email" in channels and (mailbag.window() or held is not None or table is not None):
        notice = {"kind": kind, "version": version, "data": data}
        mailbag.put(store, game_id, seat, _seen(notice, table), at=_later(held, table))
    elif "email" in channels:
        with i18n.speaking(i18n.language(raw.get("language"))):
            message = _game_mail(store, record, version, kind, seat, data, raw)
        seatmail.send_once(store, key, message)
    if "webhook" in channels:
        payload = {
            "type": kind,
            "timestamp": datetime.now(UTC).isoformat(),
            "data": {
                "game_id": game_id,
                "game_type": record.type,
                "version": version,
                "seat": seat,
                "link": f"{public_url()}/v1/games/{game_id}",
            },
        }
        deliveries.start_delivery(
            store, player_id, f"msg_{key.removeprefix('n-')}", payload, game_id
        )
    return ",".join(channels) or "no-channel"


def notify_message(game_id: str, message_id: str, seat: int) -> str:
    """Email and/or webhook telling ``seat`` of a message (service/domain/messages.py): sent once,
    and not at all if it was hidden meanwhile or is not for that seat."""
    store = shared_store()
    record = store.get_game(game_id)
    shown = messages.message_for(store, record, message_id, seat)
    if shown is None:
        return "gone"
    player_id = record.seats[seat]
    raw = store.players.hash(player_id)
    channels = prefs.channels_for(raw, MESSAGE_NOTICE)
    key = queues.message_job_id(game_id, message_id, seat)
    held = mailbag.send_time(raw, time.time())
    table = presence.holds_mail(store, game_id, player_id, raw) if "email" in channels else None
    if "email" in channels and (mailbag.window() or held is not None or table is not None):
        # The version it was written at: the seat's moves after it say it is at the table.
        notice = {"kind": MESSAGE_NOTICE, "message_id": message_id, "version": record.version}
        mailbag.put(store, game_id, seat, _seen(notice, table), at=_later(held, table))
    elif "email" in channels:
        with i18n.speaking(i18n.language(raw.get("language"))):
            message = _message_mail(store, record, seat, raw, shown, key)
        seatmail.send_once(store, key, message)
    if "webhook" in channels:
        payload = {
            "type": MESSAGE_NOTICE,
            "timestamp": datetime.now(UTC).isoformat(),
            "data": {"game_id": game_id, "game_type": record.type, "seat": seat, **shown},
        }
        deliveries.start_delivery(
            store, player_id, f"msg_{key.removeprefix('m-')}", payload, game_id
        )
    return ",".join(channels) or "no-channel"


def send_mailbag(game_id: str, seat: int) -> str:
    """One mail with every notice waiting for ``seat`` (service/domain/mailbag.py): what happened,
    in order, then the seat's view and, if it is asked now, its legal moves. Sent once."""
    store = shared_store()
    bag = mailbag.contents(store, game_id, seat)
    if not bag:
        return "empty"  # sent by an earlier run, or by the job of an earlier window
    record = store.get_game(game_id)
    raw = store.players.hash(record.seats[seat])
    table = presence.holds_mail(store, game_id, record.seats[seat], raw)
    if table is not None:
        # At the table (again): the bag waits until they leave, asked again then.
        mailbag.wait_until(store, game_id, seat, table.until)
        return "at-table"
    # Mails turned off meanwhile (the settings, the unsubscribe link): what waits stays unsent.
    seen = _seen_and_done(store, record, seat)
    ordered = [
        (entry, notice)
        for entry, notice in mailbag.in_order(bag)
        if "email" in prefs.channels_for(raw, notice["kind"]) and not seen(notice)
    ]
    with i18n.speaking(i18n.language(raw.get("language"))):
        lines = [_bag_line(store, record, seat, notice) for _entry, notice in ordered]
        told = [line for line in lines if line]
        # Keyed by the newest notice in the bag: a rerun that finds the same bag sends nothing.
        key = f"b-{game_id}-{seat}-{bag[-1][0].replace('-', '_')}"
        wanted = told and raw.get("email")  # an address removed meanwhile: nothing to send
        kinds = [n["kind"] for line, (_e, n) in zip(lines, ordered, strict=True) if line]
        message = _bag_mail(store, record, seat, ordered, told, kinds, raw, key) if wanted else None
    if message is not None:
        seatmail.send_once(store, key, message)
    mailbag.remove(store, game_id, seat, [entry_id for entry_id, _notice in bag])
    return f"sent:{len(told)}" if told else "stale"


def _seen(notice: dict[str, Any], table: presence.AtTable | None) -> dict[str, Any]:
    """``notice`` marked as seen when its player is at the table with the page visible."""
    return {**notice, SEEN_AT_TABLE: True} if table is not None and table.here else notice


def _seen_and_done(store: Store, record: GameRecord, seat: int) -> Callable[[dict[str, Any]], bool]:
    """Which notices of the bag the player saw at the table and needs no mail of: those seen
    there (``SEEN_AT_TABLE``) after which they acted, or when the game no longer waits for
    them. A seen notice the player left without acting on (their turn, the news that handed
    it to them) is mailed."""
    waits = record.status == "active" and any(d["seat"] == seat for d in record.pending)
    last = _last_acted(store, record, seat) if waits else 0

    def seen(notice: dict[str, Any]) -> bool:
        if not notice.get(SEEN_AT_TABLE):
            return False
        return not waits or last > int(notice.get("version") or 0)

    return seen


def _later(held: float | None, table: presence.AtTable | None) -> float | None:
    """When a held notice's bag goes out: the later of the digest's or quiet hours' time and
    the end of the player's mark at the table (its job asks again then)."""
    if table is None:
        return held
    return max(held or 0.0, table.until)


def _bag_line(store: Store, record: GameRecord, seat: int, notice: dict[str, Any]) -> str:
    """One notice in words; "" when it no longer says anything (a message hidden, a turn
    already played: the view below shows what is asked now)."""
    kind = notice["kind"]
    if kind == MESSAGE_NOTICE:
        shown = messages.message_for(store, record, notice["message_id"], seat)
        if shown is None:
            return ""
        sender = record.names[shown["from_seat"]]
        if shown["to_seat"] is not None:
            return _(
                "%(sender)s wrote to you privately: %(text)s", sender=sender, text=shown["text"]
            )
        return _("%(sender)s wrote to the table: %(text)s", sender=sender, text=shown["text"])
    if kind in ASKING and not _still_owed(store, record, seat, notice["version"], notice["data"]):
        return ""
    return _headline(kind, notice["data"], record)


def _bag_mail(
    store: Store,
    record: GameRecord,
    seat: int,
    bag: list[tuple[str, dict[str, Any]]],
    told: list[str],
    kinds: list[str],
    raw: dict[str, str],
    key: str,
) -> mail.Mail:
    """The bag's mail of what is ``told`` (by notices of ``kinds``): its subject names the
    turn only when a "your turn" (sealed choice, deadline) in it still holds. The moves are
    shown whenever the game waits for the seat and the seat has not acted since the newest
    notice (else it is at the table and knows)."""
    newest = max((int(n.get("version") or record.version) for _, n in bag), default=0)
    asked = _waits_for(store, record, seat, newest)
    if any(kind in ASKING for kind in kinds):
        subject = _said(SUBJECTS, "game.turn_started")
    elif "game.ended" in kinds:
        subject = _said(SUBJECTS, "game.ended")
    elif set(kinds) == {MESSAGE_NOTICE}:
        subject = _("new messages") if len(told) > 1 else _("a new message")
    else:
        subject = _said(SUBJECTS, kinds[-1], NEWS)
    base = f"{public_url()}/v1/games/{record.id}"
    return _seat_mail(
        store,
        record,
        seat,
        raw,
        subject=subject,
        told=told,
        asked=asked,
        extra_links=((_("Messages (API)"), f"{base}/messages"),),
        message_id=f"<{key}@{mail.mail_domain()}>",
    )


def _still_owed(
    store: Store, record: GameRecord, seat: int, version: int, data: dict[str, Any]
) -> bool:
    """Whether a notice of ``version`` asking ``seat`` to decide still holds: the game still
    waits for that decision, and the seat has not moved or chosen since. A seat that acted is
    at the table (the web page, a mail-in answer): told "your turn" in the middle of its own
    steps, it would only be told what it is doing."""
    if record.status != "active":
        return False
    owed = any(
        d["seat"] == seat and d["step"] == data.get("step") and d.get("ref", "") == data.get("ref")
        for d in record.pending
    )
    return owed and not _acted_since(store, record, seat, version)


def _waits_for(store: Store, record: GameRecord, seat: int, version: int) -> bool:
    """Whether the game waits for ``seat`` and the seat has not acted since ``version``: a
    mail of that version shows the seat its moves."""
    waits = any(d["seat"] == seat for d in record.pending) and record.status == "active"
    return waits and not _acted_since(store, record, seat, version)


def _acted_since(store: Store, record: GameRecord, seat: int, version: int) -> bool:
    """Whether ``seat`` moved or made a choice after ``version`` (the server playing for it
    at a deadline is not the seat acting)."""
    newer = min(record.version - version, ACTED_LOOKBACK)
    if newer <= 0:
        return False
    return any(v > version and _own_act(entry, seat) for v, entry in store.log_tail(record, newer))


def _last_acted(store: Store, record: GameRecord, seat: int) -> int:
    """The version of ``seat``'s latest move or choice within ``ACTED_LOOKBACK``, 0 if none."""
    entries = store.log_tail(record, min(record.version, ACTED_LOOKBACK))
    return max((v for v, entry in entries if _own_act(entry, seat)), default=0)


def _own_act(entry: dict[str, Any], seat: int) -> bool:
    """A log entry of ``seat``'s own move or choice (not the server's at a deadline)."""
    return (
        entry.get("kind") in ("move", "sealed")
        and str(entry.get("seat")) == str(seat)
        and not any(e.get("kind") == "timeout_applied" for e in entry.get("events") or ())
    )


def _news_shows_the_turn(
    store: Store, record: GameRecord, version: int, kind: str, seat: int, raw: dict[str, str]
) -> bool:
    """Whether a "your turn" of ``version`` goes without its own mail: it hands the seat back
    a turn it was in the middle of (``_resumed_turn``), and the same version brings the seat
    news by mail (the conflict's outcome), whose mail shows the moves. A turn that only
    resumes, with no news to carry it, is still mailed."""
    if kind != "game.turn_started":
        return False
    entries = _resumed_turn(store, record, version, seat)
    if not entries:
        return False
    told = notifications.news(record.type, entries[-1][1]["events"], len(record.seats))
    return any(n.seat == seat and "email" in prefs.channels_for(raw, n.type) for n in told)


def _resumed_turn(
    store: Store, record: GameRecord, version: int, seat: int
) -> list[tuple[int, dict[str, Any]]]:
    """The log up to ``version`` when that version hands ``seat`` back its own turn
    (``notifications.resumes_own_turn``) and the game is still there; else nothing."""
    if record.version != version or not any(d["seat"] == seat for d in record.pending):
        return []
    entries = store.log_tail(record, INTERLUDE_LOOKBACK)
    return entries if notifications.resumes_own_turn(entries, seat) else []


def _game_mail(
    store: Store,
    record: GameRecord,
    version: int,
    kind: str,
    seat: int,
    data: dict[str, Any],
    raw: dict[str, str],
) -> mail.Mail:
    return _seat_mail(
        store,
        record,
        seat,
        raw,
        subject=_subject(kind, data, record),
        told=[_headline(kind, data, record), *_rating_lines(store, record, kind)],
        # The news that hands the seat back its turn (a conflict's outcome) shows the moves:
        # that turn has no mail of its own (``_news_shows_the_turn``).
        asked=kind in ASKING or bool(_resumed_turn(store, record, version, seat)),
        message_id=f"<{queues.notify_job_id(record.id, version, kind, seat)}@{mail.mail_domain()}>",
    )


def _rating_lines(store: Store, record: GameRecord, kind: str) -> list[str]:
    """A rated game's end: each player's rating change as players read it (the display
    scale, ratings.display), best first; nothing for another notice or an unrated game."""
    changes = ratings.rating_changes(store, record) if kind == "game.ended" else None
    if not changes:
        return []
    return [
        _(
            "Rating of %(name)s: %(after)s (%(delta)s)",
            name=record.names[c["seat"]],
            after=c["display_after"],
            delta=f"{c['display_delta']:+d}",
        )
        for c in changes
    ]


def _seat_mail(
    store: Store,
    record: GameRecord,
    seat: int,
    raw: dict[str, str],
    *,
    subject: str,
    told: list[str],
    asked: bool,
    message_id: str,
    extra_links: tuple[tuple[str, str], ...] = (),
) -> mail.Mail:
    """A mail to one seat (workers/mailview.py): whose turn it is, what it is told, the board
    of this version as an inline picture, its own secrets, its moves grouped by kind when it
    is asked, how to reply, and a reply address for that seat. Called inside
    ``i18n.speaking`` with the reader's language: everything in it speaks that language."""
    stop = unsubscribe_url(store, record.seats[seat])
    every_link = seatmail.game_links(record, *extra_links, (_("Stop these mails"), stop))
    turn = mailview.turn_mail(
        store,
        record,
        seat,
        raw.get("name", ""),
        told=told,
        asked=asked,
        links=every_link,
        zone=prefs.zone(raw),
    )
    full_subject = _full_subject(record, subject)
    return mail.Mail(
        to=raw["email"],
        to_name=raw.get("name", ""),
        subject=full_subject,
        text=mailview.render_text(turn),
        html=mailview.render_html(turn, full_subject),
        images=tuple(mail.InlineImage(p.cid, p.png) for p in turn.pictures),
        thread_id=mail.thread_id(record.id),
        message_id=message_id,
        reply_to=seatmail.issue_address(store, record, seat),
        # The version the view, picture and legal moves show (public, like the API's ETag).
        extra_headers={"X-Kurier-Version": str(record.version)},
        unsubscribe=stop,
    )


def unsubscribe_url(store: Store, player_id: str) -> str:
    """The one-click link that turns the player's notification mails off (RFC 8058)."""
    return f"{public_url()}/unsubscribe/{unsubscribe.token(store, player_id)}"


def _full_subject(record: GameRecord, subject: str) -> str:
    return _(
        "%(title)s game %(game)s: %(subject)s",
        title=mailview.game_title(record),
        game=record.id,
        subject=subject,
    )


def _message_mail(
    store: Store,
    record: GameRecord,
    seat: int,
    raw: dict[str, str],
    shown: dict[str, Any],
    key: str,
) -> mail.Mail:
    """The plain mail of one message (no window to batch it in), in the spoken language."""
    sender = record.names[shown["from_seat"]]
    if shown["to_seat"] is not None:
        heading = _("%(sender)s wrote to you privately:", sender=sender)
    else:
        heading = _("%(sender)s wrote to the table:", sender=sender)
    name = raw.get("name", "")
    greeting = _("Hello %(name)s,", name=name) if name else _("Hello,")
    messages_url = f"{public_url()}/v1/games/{record.id}/messages"
    stop = unsubscribe_url(store, record.seats[seat])
    return mail.Mail(
        to=raw["email"],
        to_name=name,
        subject=_full_subject(record, _("a message from %(sender)s", sender=sender)),
        text="\n".join([greeting, "", heading, "", shown["text"]]),
        links=((_("Messages (API)"), messages_url), (_("Stop these mails"), stop)),
        thread_id=mail.thread_id(record.id),
        message_id=f"<{key}@{mail.mail_domain()}>",
        reply_to=seatmail.issue_address(store, record, seat),
        unsubscribe=stop,
    )


def _seats_filled_mail(
    store: Store, record: GameRecord, version: int, seat: int, raw: dict[str, str]
) -> mail.Mail:
    """The creator's notice that the table is full, in the spoken language: who sits at it,
    and where to start the game."""
    name = raw.get("name", "")
    others = [n for i, n in enumerate(record.names) if i != seat]
    lines = [
        _("Hello %(name)s,", name=name) if name else _("Hello,"),
        "",
        _(
            "Every seat of your game is taken; at the table with you: %(players)s. Start the "
            "game when you are ready; until then nobody can move.",
            players=", ".join(others),
        ),
    ]
    base = f"{public_url()}/v1/games/{record.id}"
    stop = unsubscribe_url(store, record.seats[seat])
    return mail.Mail(
        to=raw["email"],
        to_name=name,
        subject=_full_subject(record, _said(SUBJECTS, SEATS_FILLED)),
        text="\n".join(lines),
        links=(
            (_("Start it on the web"), f"{public_url()}/games/{record.id}"),
            (_("Start it by the API (POST)"), f"{base}/start"),
            (_("Stop these mails"), stop),
        ),
        thread_id=mail.thread_id(record.id),
        message_id=f"<{queues.notify_job_id(record.id, version, SEATS_FILLED, seat)}"
        f"@{mail.mail_domain()}>",
        unsubscribe=stop,
    )


def _said(table: dict[str, str], kind: str, default: str = "") -> str:
    """``table``'s English for ``kind`` (marked ``N_`` there) in the spoken language."""
    english = table.get(kind, default)
    return _(english)


def _game_words(record: GameRecord, data: dict[str, Any]) -> tuple[str, str] | None:
    """The game's own words for the engine event behind a notice (its kind is in ``event``),
    in the spoken language."""
    if not data.get("event"):
        return None
    return record.game.event_words(data["event"], data, record.names, i18n.spoken_words())


def _event_sentence(record: GameRecord, data: dict[str, Any]) -> str | None:
    """The engine's ``describe`` of the event behind a notice: players by name, in the
    spoken language."""
    if not data.get("event"):
        return None
    fields = {k: v for k, v in data.items() if k != "event"}
    return record.game.describe(Event(data["event"], fields), record.names, i18n.spoken_words())


def _subject(kind: str, data: dict[str, Any], record: GameRecord) -> str:
    words = _game_words(record, data)
    text = words[0] if words else _said(SUBJECTS, kind, kind)
    if kind in ("game.turn_started", "game.sealed_needed") and data.get("step"):
        text += f" ({mailview.step_name(record, str(data['step']))})"
    return text


def _headline(kind: str, data: dict[str, Any], record: GameRecord) -> str:
    """The notice in one sentence (the deadline is the mail's own line: ``TurnMail``)."""
    sentence = _event_sentence(record, data)
    if sentence:
        return sentence
    words = _game_words(record, data)
    if words:
        return words[1]
    if kind == "game.timeout_applied":
        return _timeout_line(record, data)
    if kind == "game.ended":
        return _("The game is over.")
    if kind == LEAVE_NOTICE:
        return _leave_line(data)
    return _said(HEADLINES, kind, kind)


def _leave_line(data: dict[str, Any]) -> str:
    until = datetime.fromtimestamp(float(data["until"]), UTC).strftime("%Y-%m-%d %H:%M UTC")
    return _(
        "%(player)s is on leave until %(until)s: their clocks are paused (within this game's "
        "limit); a move of theirs ends the leave early.",
        player=data["player"],
        until=until,
    )


def _timeout_line(record: GameRecord, data: dict[str, Any]) -> str:
    what = data.get("action") or (_("a pass") if data.get("decision") == "sealed" else _("no move"))
    step = mailview.step_name(record, str(data.get("step") or ""))
    return _("Your deadline for %(step)s passed; the server played %(what)s.", step=step, what=what)


# -- webhooks -----------------------------------------------------------------------------------


def deliver_webhook(player_id: str, delivery_id: str, attempt: int) -> str:
    """Attempt ``attempt`` of one delivery; schedules the next attempt on failure."""
    store = shared_store()
    delivery = prefs.get_delivery(store, player_id, delivery_id)
    if delivery.get("status") != "pending" or int(delivery.get("attempts") or 0) != attempt - 1:
        return "stale"
    raw = store.players.hash(player_id)
    if not raw.get("webhook_url") or raw.get("webhook_disabled"):
        prefs.update_delivery(store, player_id, delivery_id, status="cancelled")
        return "cancelled"
    try:
        url = webhook_urls.normalise(raw["webhook_url"])
    except webhook_urls.UnsafeWebhookURL as error:
        # Stored before the policy refused such URLs: no attempt can reach it, stop now.
        prefs.update_delivery(
            store, player_id, delivery_id, status="failed", attempts=attempt, last_error=str(error)
        )
        metrics.record_webhook_delivery(store.r, "failed")
        disable_webhook(store, player_id, f"the URL is not usable: {error}")
        return "failed"
    result = webhooks.post(url, raw.get("webhook_secret", ""), delivery_id, delivery["body"])
    state = {"attempts": attempt, "last_status": result.status, "last_error": result.error}
    if result.ok:
        prefs.update_delivery(store, player_id, delivery_id, status="delivered", **state)
        metrics.record_webhook_delivery(store.r, "delivered")
        return "delivered"
    schedule = retry_schedule()
    if result.gone or attempt > len(schedule):
        prefs.update_delivery(store, player_id, delivery_id, status="failed", **state)
        metrics.record_webhook_delivery(store.r, "failed")
        why = "the receiver answered 410 Gone" if result.gone else f"{attempt} attempts failed"
        disable_webhook(store, player_id, f"{why} (last: {result.error})")
        return "failed"
    metrics.record_webhook_delivery(store.r, "retry")
    delay = schedule[attempt - 1] * random.uniform(1.0, 1.1)  # jitter spreads a burst
    if result.retry_after is not None:
        delay = max(delay, min(result.retry_after, MAX_RETRY_AFTER))
    prefs.update_delivery(
        store,
        player_id,
        delivery_id,
        status="pending",
        next_attempt_at=time.time() + delay,
        **state,
    )
    later = deliveries.attempt_job(store, player_id, delivery_id, attempt + 1, time.time() + delay)
    owed.owe_now(store.queue_raw, later)
    return "retrying"


def disable_webhook(store: Store, player_id: str, reason: str) -> None:
    """Stop deliveries to a failing endpoint and tell its owner by email (once)."""
    if store.players.hash(player_id).get("webhook_disabled"):
        return
    store.players.update(player_id, {"webhook_disabled": reason})
    metrics.record_webhook_delivery(store.r, "disabled")
    raw = store.players.hash(player_id)
    log.warning("webhook of %s disabled: %s", player_id, reason)
    if raw.get("email"):
        with i18n.speaking(i18n.language(raw.get("language"))):
            message = _webhook_disabled_mail(player_id, raw, reason)
        seatmail.send_once(store, f"disabled-{player_id}-{int(time.time())}", message)


def _webhook_disabled_mail(player_id: str, raw: dict[str, str], reason: str) -> mail.Mail:
    """The owner's notice, in the spoken language (``reason`` is the server's, in English)."""
    name = raw.get("name", "")
    lines = [
        _("Hello %(name)s,", name=name) if name else _("Hello,"),
        "",
        _(
            "Kurier stopped sending webhooks to %(url)s: %(reason)s.",
            url=raw.get("webhook_url", ""),
            reason=reason,
        ),
        "",
        _(
            "Set the URL again with PATCH /v1/me to re-enable it; "
            "GET /v1/me/webhook-deliveries shows what failed."
        ),
    ]
    return mail.Mail(
        to=raw["email"],
        to_name=name,
        subject=_("Kurier: your webhook was disabled"),
        text="\n".join(lines),
        message_id=f"<webhook-disabled-{player_id}-{int(time.time())}@{mail.mail_domain()}>",
    )


# -- deadlines ----------------------------------------------------------------------------------


def deadline(
    game_id: str, version: int, due: float, first_due: float | None = None, seat: int | None = None
) -> str:
    """The deadline of ``version`` fell due (``seat``: its time bank ran out;
    service/domain/deadlines.py)."""
    return deadlines.fall_due(shared_store(), game_id, version, due, first_due, seat)


def remind(game_id: str, version: int, due: float, seat: int | None = None) -> str:
    """Warn the pending players that their deadline is near (service/domain/deadlines.py)."""
    return deadlines.remind(shared_store(), game_id, version, due, notify, seat)
