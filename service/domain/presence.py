"""Who is at the table: a player whose page of a game is open and visible.

While a seated player's game page is visible and following its game (its event stream, or
its polling when no stream server answers), the page tells the server so every
``beat_seconds()`` (static/kurier.js, ``POST /games/<id>/presence``). Each beat marks the
player ``here`` for three beats (``ttl_seconds()``); a page that is hidden, closed or left
says ``away``, which turns the mark into ``left`` for the grace period
(``grace_seconds()``, ``KURIER_PRESENCE_GRACE_SECONDS``, 2 minutes by default). A page that
stops without a word (a closed laptop, a killed browser) counts as gone when its last mark
expires. The marks are strings with a TTL on the queue Redis, one per (game, player): no
mark, nobody at the table.

What a mark changes is the notification path's business (workers/notify.py and
service/domain/mailbag.py): a mail notice to a player at the table waits in the seat's
mailbag until the mark has expired, and its job asks again then (``at_table``). The mark
says nothing of the game; only the player's own session sets it.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any

from service.store import Store
from service.store.keys import presence_key

HERE = "here"
LEFT = "left"
DEFAULT_BEAT = 20.0
DEFAULT_GRACE = 120.0
#: A mark outlives this many beats: one or two lost beats do not make a player leave.
BEATS_PER_MARK = 3


def _seconds(name: str, default: float) -> float:
    text = os.environ.get(name, "")
    try:
        return max(float(text), 1.0) if text else default
    except ValueError:
        return default


def beat_seconds() -> float:
    """How often a visible page says it is there (``KURIER_PRESENCE_BEAT_SECONDS``)."""
    return _seconds("KURIER_PRESENCE_BEAT_SECONDS", DEFAULT_BEAT)


def ttl_seconds() -> float:
    """How long one beat keeps a player at the table."""
    return BEATS_PER_MARK * beat_seconds()


def grace_seconds() -> float:
    """How long after a page said it left its player's mail still waits
    (``KURIER_PRESENCE_GRACE_SECONDS``): a tab switched away and back mails nothing."""
    return _seconds("KURIER_PRESENCE_GRACE_SECONDS", DEFAULT_GRACE)


@dataclass(frozen=True)
class AtTable:
    """A player's mark: ``here`` (the page is open and visible) or left within the grace
    period; ``until``: when the mark expires unless renewed (Unix time, rounded up to the end
    of a beat's slice of time)."""

    here: bool
    until: float


def mark(store: Store, game_id: str, player_id: str, visible: bool) -> None:
    """The page of ``game_id`` is visible (``here`` for a TTL) or not (an existing mark
    becomes ``left`` for the grace period; without one there is nothing to end)."""
    key = presence_key(game_id, player_id)
    if visible:
        store.queue_r.set(key, HERE, px=int(ttl_seconds() * 1000))
    else:
        store.queue_r.set(key, LEFT, px=int(grace_seconds() * 1000), xx=True)


def at_table(
    store: Store, game_id: str, player_id: str, now: float | None = None
) -> AtTable | None:
    """The player's mark on ``game_id``, or None (not at the table): one round trip."""
    key = presence_key(game_id, player_id)
    with store.queue_r.pipeline(transaction=False) as pipe:
        pipe.get(key)
        pipe.pttl(key)
        value, left_ms = pipe.execute()
    if value is None or int(left_ms) <= 0:
        return None
    ends = (time.time() if now is None else now) + left_ms / 1000
    return AtTable(here=value == HERE, until=_slice_end(ends))


def _slice_end(moment: float) -> float:
    """``moment`` rounded up to the end of its slice of time (one beat long): the jobs that
    wait for a player to leave are named by it (service/domain/mailbag.py), so the notices of
    one slice, and the jobs that find the player still there, share one job."""
    beat = beat_seconds()
    return math.ceil(moment / beat) * beat


def holds_mail(store: Store, game_id: str, player_id: str, raw: dict[str, Any]) -> AtTable | None:
    """The mark that holds the player's mail of ``game_id``: None when they are not at the
    table, or chose to be mailed anyway (the ``mail_at_table`` preference)."""
    if raw.get("mail_at_table"):
        return None
    return at_table(store, game_id, player_id)


def page_says(store: Store, game_id: str, player_id: str, visible: bool) -> bool:
    """A game page's word (``visible`` or not) for its signed-in player: marked only when
    they hold a seat of the game and it is open or in play; whether it was marked."""
    summary = store.indexes.game_summaries([game_id])[0]
    if summary is None or summary["status"] not in ("open", "active"):
        return False
    if player_id not in summary["seats"]:
        return False
    mark(store, game_id, player_id, visible)
    return True
