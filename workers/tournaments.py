"""Tournament jobs (service/domain/tournaments.py): pairing a round and telling each entrant
that a round has started, by mail and webhook as their preferences say. Both idempotent: the
pairing does only what is missing, a mail goes once (a ``SET NX`` ledger keyed like its
Message-ID), a webhook delivery exists once."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.common import i18n
from service.common.i18n import say as _
from service.common.problems import Problem
from service.domain import deliveries, prefs, tournaments
from service.store import queues
from workers import mail, seatmail
from workers.notify import unsubscribe_url
from workers.seatmail import public_url
from workers.shared import shared_store


def pair_round(tournament_id: str, number: int) -> str:
    """Pair and seat round ``number``; fails (rq retries it) while a table another run claimed
    has no game yet: that run may have died, and its claim lapses (CLAIM_SECONDS)."""
    doc = tournaments.pair_round(shared_store(), tournament_id, number)
    if len(doc["played"]) >= number and not tournaments.seated(doc, number):
        raise Problem(409, "round-being-seated", f"round {number} is still being seated")
    return f"{doc['status']}, round {len(doc['played'])}"


def notify_round(tournament_id: str, number: int, player_id: str) -> str:
    """Tell one entrant that round ``number`` has started: their game, or their bye."""
    store = shared_store()
    kind = tournaments.ROUND_STARTED
    raw = store.players.hash(player_id)
    channels = prefs.channels_for(raw, kind)
    notice = tournaments.round_notice(store, tournament_id, number, player_id)
    key = queues.tournament_notify_job_id(tournament_id, number, player_id)
    if "email" in channels:
        with i18n.speaking(i18n.language(raw.get("language"))):
            message = _round_mail(store, notice, raw, player_id, key)
        seatmail.send_once(store, key, message)
    if "webhook" in channels:
        game_id = notice["game_id"]
        payload = {
            "type": kind,
            "timestamp": datetime.now(UTC).isoformat(),
            "data": {
                "tournament_id": tournament_id,
                "round": number,
                "rounds": notice["rounds"],
                "game_id": game_id,
                "link": f"{public_url()}/v1/tournaments/{tournament_id}",
                "game_link": f"{public_url()}/v1/games/{game_id}" if game_id else None,
            },
        }
        deliveries.start_delivery(store, player_id, f"msg_{key}", payload, game_id or "")
    return ",".join(channels) or "no-channel"


def _round_mail(
    store: Any, notice: dict[str, Any], raw: dict[str, str], player_id: str, key: str
) -> mail.Mail:
    """The round's mail, in the reader's language: which round, whom they play (or their
    bye), and the links to the game and the standings."""
    name = raw.get("name", "")
    tournament_id = notice["tournament_id"]
    if notice["game_id"]:
        told = _(
            "Round %(round)s of %(rounds)s has started. You play %(opponents)s.",
            round=notice["round"],
            rounds=notice["rounds"],
            opponents=", ".join(notice["opponents"]),
        )
    else:
        told = _(
            "Round %(round)s of %(rounds)s has started. You have a bye this round.",
            round=notice["round"],
            rounds=notice["rounds"],
        )
    stop = unsubscribe_url(store, player_id)
    links = [(_("The tournament"), f"{public_url()}/tournaments/{tournament_id}")]
    if notice["game_id"]:
        links.insert(0, (_("Your game"), f"{public_url()}/games/{notice['game_id']}"))
    return mail.Mail(
        to=raw["email"],
        to_name=name,
        subject=_(
            "Tournament %(name)s: round %(round)s has started",
            name=notice["name"],
            round=notice["round"],
        ),
        text="\n".join([_("Hello %(name)s,", name=name) if name else _("Hello,"), "", told]),
        links=(*links, (_("Stop these mails"), stop)),
        thread_id=f"<tournament-{tournament_id}@{mail.mail_domain()}>",
        message_id=f"<{key}@{mail.mail_domain()}>",
        unsubscribe=stop,
    )
