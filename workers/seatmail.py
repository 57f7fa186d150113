"""A mail to one seat: what every Kurier mail to a player holds, and sending it once.

Notifications (workers/notify.py) and answers to a player's mail (workers/mailin.py) both
write to one seat of one game (laid out by workers/mailview.py): its legal moves in notation,
links, and a fresh signed Reply-To that makes a reply a move. Both build and send through
here, so neither job module imports the other.
"""

from __future__ import annotations

import logging
import os
import time

from engine.sentences import N_
from service.common import i18n, replies
from service.common.i18n import say as _
from service.domain.games import views
from service.ops import config, metrics
from service.store import Store
from service.store.record import GameRecord
from workers import mail

log = logging.getLogger("kurier.notify")
#: How long "this mail was sent" is remembered: longer than any job is retried.
MAIL_LEDGER_TTL = 30 * 86_400
LEGAL_MOVES_SHOWN = 300
LEGAL_HEADING = N_("Your legal moves (send one as notation):")


def public_url() -> str:
    return config.public_url(os.environ)


def board_picture_url(game_id: str) -> str:
    """The live board.svg of a game, in the spoken language (English needs no parameter)."""
    url = f"{public_url()}/v1/games/{game_id}/board.svg"
    lang = i18n.spoken()
    return url if lang == i18n.DEFAULT else f"{url}?lang={lang}"


def issued_key(nonce: str) -> str:
    return f"kurier:mail:issued:{nonce}"


def issue_address(store: Store, record: GameRecord, seat: int) -> str:
    """A fresh signed Reply-To for ``seat`` (play+<game>.<seat>.<nonce>.<expiry>.<kid>.<mac>@…);
    remembers which version and decision the mail shows, for the reply (workers/mailin.py)."""
    keys, key_id = replies.load_keys(store.r)
    address, nonce = replies.reply_address(
        keys, key_id, record.id, seat, time.time(), mail.mail_domain()
    )
    owed = next((d for d in record.pending if d["seat"] == seat), None) or {}
    info = {
        "version": record.version,
        "kind": owed.get("kind", ""),
        "step": owed.get("step", ""),
        "ref": owed.get("ref", ""),
    }
    key = issued_key(nonce)
    lifetime = replies.DEFAULT_LIFETIME + 86_400
    # Before the mail goes out: a reply to it must find what it answers after a failover too.
    store.write(lambda pipe: (pipe.hset(key, mapping=info), pipe.expire(key, lifetime)))
    return address


def game_links(record: GameRecord, *extra: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    """The links at the end of a mail about ``record`` (in the spoken language): the web page,
    the live picture, the API, the seat's legal moves while the game goes on, then
    ``extra``."""
    base = f"{public_url()}/v1/games/{record.id}"
    links = [
        (_("The game on the web"), f"{public_url()}/games/{record.id}"),
        (_("Board picture (now)"), board_picture_url(record.id)),
        (_("Game (API)"), base),
    ]
    if record.status != "finished":
        links.append((_("Your legal moves (API)"), f"{base}/legal-actions"))
    return (*links, *extra)


def legal_moves(record: GameRecord, seat: int) -> list[str]:
    """The seat's legal moves in notation under ``LEGAL_HEADING`` (in the language of the
    ``i18n.speaking`` block), at most ``LEGAL_MOVES_SHOWN`` of them; nothing when the seat has
    nothing to do."""
    legal = views.legal_actions(record, seat)["actions"]
    if not legal:
        return []
    heading = _(LEGAL_HEADING)
    out = [heading, *(f"  {a['notation']}" for a in legal[:LEGAL_MOVES_SHOWN])]
    if len(legal) > LEGAL_MOVES_SHOWN:
        more = len(legal) - LEGAL_MOVES_SHOWN
        out.append("  " + _("… and %(count)s more (see legal-actions)", count=more))
    return out


def send_once(store: Store, key: str, message: mail.Mail) -> None:
    """Send ``message`` unless a mail with ``key`` was sent (a ``SET NX`` ledger): a job run
    twice sends once; a failed delivery clears the mark so that rq's retry sends it."""
    ledger = f"kurier:mailed:{key}"
    if not store.r.set(ledger, "1", nx=True, ex=MAIL_LEDGER_TTL):
        return  # sent by an earlier run of this job
    try:
        where = mail.deliver(mail.compose(message, time.time()), [message.to])
    except Exception:
        store.r.delete(ledger)  # not sent: let rq's retry send it
        metrics.record_email_delivery(store.r, "retry")
        raise
    metrics.record_email_delivery(store.r, "delivered")
    log.info("mail %s to %s delivered to %s", message.message_id, message.to, where)
