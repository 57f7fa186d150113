"""One-click unsubscribe (RFC 8058): a signed link in every notification mail that turns the
player's mails off.

A notification carries ``List-Unsubscribe: <https://…/unsubscribe/<token>>`` and
``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` (workers/mail.py). The token is
``<player id>.<key id>.<mac>``: the MAC is 32 characters (160 bits) of the lower-case base32
HMAC-SHA256 of ``unsubscribe:<player id>`` under the reply addresses' key
(service/common/replies.py ``load_keys``, so every process signs alike and ``KURIER_MAIL_KEYS``
rotates both), so nobody can make a link for another player. The link names no game and does
not expire: an old mail still stops the mails, and stopping them twice changes nothing.

Stopping takes ``email`` out of every notification type's channels through
``prefs.apply``, the function the settings page and ``PATCH /v1/me`` use; webhooks stay as
they were, and the settings page turns mails on again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

from service.common import replies
from service.domain import prefs
from service.store import Store

MAC_LENGTH = 32
_TOKEN = re.compile(
    rf"(?P<player>[a-z0-9_]{{1,40}})\.(?P<kid>[a-z0-9]{{1,4}})\.(?P<mac>[a-z2-7]{{{MAC_LENGTH}}})"
)


def _mac(key: bytes, player_id: str) -> str:
    # A purpose of its own in the signed text: a reply address's MAC never passes for this one.
    digest = hmac.new(key, f"unsubscribe:{player_id}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode().lower()[:MAC_LENGTH]


def token(store: Store, player_id: str) -> str:
    """The player's unsubscribe token, signed with the current key."""
    keys, key_id = replies.load_keys(store.r)
    return f"{player_id}.{key_id}.{_mac(keys[key_id], player_id)}"


def player_of(store: Store, text: str) -> str | None:
    """The player a token names, or None when it is malformed, forged, signed with a key
    this server no longer has, or names no player."""
    match = _TOKEN.fullmatch(text)
    if match is None:
        return None
    keys, _ = replies.load_keys(store.r)
    key = keys.get(match["kid"])
    if key is None or not hmac.compare_digest(_mac(key, match["player"]), match["mac"]):
        return None
    player_id = match["player"]
    return player_id if store.players.get(player_id) is not None else None


def mails_on(store: Store, player_id: str) -> bool:
    """Whether any notification would go to the player by email."""
    chosen = prefs.read(store, player_id)
    return bool(chosen["email"]) and any("email" in c for c in chosen["notify"].values())


def stop_mails(store: Store, player_id: str) -> None:
    """Email off for every notification type (webhooks as they were); idempotent."""
    chosen = prefs.read(store, player_id)["notify"]
    without = {kind: [c for c in channels if c != "email"] for kind, channels in chosen.items()}
    prefs.apply(store, player_id, {"notify": without})
