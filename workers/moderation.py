"""A moderator's word to a player by mail (service/domain/moderation.py): a warning, a
suspension, a reinstatement, each with its reason, in the player's language (docs/i18n.md).
Sent once (workers/seatmail.py's ledger), to players who gave an address."""

from __future__ import annotations

from engine.sentences import N_
from service.common import i18n
from service.common.i18n import say as _
from service.store.keys import player_key
from workers import mail, seatmail
from workers.shared import shared_store

#: Each action's subject and first line.
SUBJECTS = {
    "warn": N_("A warning from the Kurier moderators"),
    "suspend": N_("Your Kurier account is suspended"),
    "reinstate": N_("Your Kurier account is open again"),
}
LINES = {
    "warn": N_("A moderator warns you about how you play or write at Kurier."),
    "suspend": N_(
        "A moderator suspended your account: you cannot sign in, play or write for now. Your "
        "games go on; at each deadline they apply their deadline policy for you."
    ),
    "reinstate": N_("A moderator lifted the suspension of your account: welcome back."),
}


def notify_player(entry_id: str, player_id: str, action: str, reason: str) -> str:
    """Mail ``player_id`` the moderator's ``action`` and its ``reason`` (audit entry
    ``entry_id``): once, and not at all without an address."""
    store = shared_store()
    raw = store.r.hgetall(player_key(player_id))
    if not raw.get("email") or action not in SUBJECTS:
        return "no-mail"
    with i18n.speaking(i18n.language(raw.get("language"))):
        message = mail.Mail(
            to=raw["email"],
            to_name=raw.get("name", ""),
            subject=_(SUBJECTS[action]),
            text="\n".join(
                [
                    _("Hello %(name)s,", name=raw.get("name", "")),
                    "",
                    _(LINES[action]),
                    "",
                    _("The moderator's reason: %(reason)s", reason=reason),
                ]
            ),
        )
    seatmail.send_once(store, f"mod-{entry_id}", message)
    return "sent"
