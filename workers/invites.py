"""Telling an invited player of a new game (service/domain/invites.py): by mail and webhook as
their preferences say. Idempotent: a mail goes once (a ``SET NX`` ledger keyed like its
Message-ID), a webhook delivery exists once."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.common import i18n
from service.common.i18n import say as _
from service.common.i18n import say_n as ngettext
from service.common.problems import Problem
from service.domain import deliveries, invites, prefs
from service.store import Store, queues
from service.store.record import GameRecord
from workers import mail, seatmail
from workers.notify import unsubscribe_url
from workers.seatmail import public_url
from workers.shared import shared_store


def notify_invited(game_id: str, player_id: str) -> str:
    """Tell ``player_id`` they are invited to ``game_id``, unless it no longer waits for them
    (started, or they sat down already)."""
    store = shared_store()
    try:
        record = store.get_game(game_id)
    except Problem:
        return "gone"  # removed meanwhile: nothing to join
    if not invites.still_open_to(record, player_id):
        return "stale"
    raw = store.players.hash(player_id)
    channels = prefs.channels_for(raw, invites.INVITED)
    notice = invites.invitation(store, record)
    key = queues.invite_notify_job_id(game_id, player_id)
    if "email" in channels:
        with i18n.speaking(i18n.language(raw.get("language"))):
            message = _invite_mail(store, record, notice, raw, player_id, key)
        seatmail.send_once(store, key, message)
    if "webhook" in channels:
        payload = {
            "type": invites.INVITED,
            "timestamp": datetime.now(UTC).isoformat(),
            "data": {
                "game_id": game_id,
                "game_type": record.type,
                "seats": notice["seats"],
                "options": notice["options"],
                "invited_by": notice["invited_by"],
                "rematch_of": notice["rematch_of"],
                "link": f"{public_url()}/v1/games/{game_id}",
                "join_link": f"{public_url()}/v1/games/{game_id}/seats",
            },
        }
        deliveries.start_delivery(store, player_id, f"msg_{key}", payload, game_id)
    return ",".join(channels) or "no-channel"


def _invite_mail(
    store: Store,
    record: GameRecord,
    notice: dict[str, Any],
    raw: dict[str, str],
    player_id: str,
    key: str,
) -> mail.Mail:
    """The invitation, in the reader's language: who invites, to what (a rematch of which
    game), the rule options that differ from the rulebook, and where to join."""
    name = raw.get("name", "")
    title = i18n.say_word(notice["title"])
    game = ngettext(
        "%(title)s (%(num)d player)", "%(title)s (%(num)d players)", notice["seats"], title=title
    )
    inviter = notice["invited_by"]["name"]
    if notice["rematch_of"]:
        told = _(
            "%(inviter)s invites you to a rematch of game %(old)s: a game of %(game)s with the "
            "same players and rules.",
            inviter=inviter,
            old=notice["rematch_of"],
            game=game,
        )
        subject = _(
            "%(inviter)s invites you to a rematch of %(title)s", inviter=inviter, title=title
        )
    else:
        told = _("%(inviter)s invites you to a game of %(game)s.", inviter=inviter, game=game)
        subject = _("%(inviter)s invites you to a game of %(title)s", inviter=inviter, title=title)
    lines = [_("Hello %(name)s,", name=name) if name else _("Hello,"), "", told, ""]
    changed = notice["changed_options"]
    if changed:
        lines.append(_("Rule options other than the rulebook's:"))
        lines += [
            f"  - {i18n.say_word(o['choice'])}: {i18n.say_word(o['description'])}" for o in changed
        ]
    else:
        lines.append(_("The rules: the rulebook's, no option changed."))
    lines += ["", _("Join the game on its page (no code needed: you are invited by name).")]
    stop = unsubscribe_url(store, player_id)
    return mail.Mail(
        to=raw["email"],
        to_name=name,
        subject=subject,
        text="\n".join(lines),
        links=(
            (_("Join"), f"{public_url()}/games/{record.id}"),
            (_("Stop these mails"), stop),
        ),
        thread_id=mail.thread_id(record.id),
        message_id=f"<{key}@{mail.mail_domain()}>",
        unsubscribe=stop,
    )
