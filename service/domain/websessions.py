"""Browser sign-in without a password, and sessions (issue 12).

- A sign-in link is mailed to an address: one link per player who gave that address. Its token
  is random; only its SHA-256 is stored (``kurier:signin:<hash>``), for ``LINK_SECONDS``, and
  it works once (taken with GETDEL).
- A session is a random id in an HttpOnly cookie; Redis keeps ``kurier:session:<hash>`` with
  the player and the session's CSRF token, for ``SESSION_SECONDS`` after the last sign-in.
  Signing out deletes it: the cookie is worth nothing after.
- A session made by signing in with an API token keeps that token's key (its hash, never the
  token) and ends when the token is revoked: each page asks whether it still stands for the
  player.
- Every form of the web pages carries the session's CSRF token, compared in constant time.

The bearer tokens of the API never appear in a page or a cookie.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.common import i18n
from service.domain import moderation, prefs
from service.store import Store, owed
from service.store.keys import session_key, signin_key
from service.store.owed import OwedJob
from service.store.queues import DEFAULT_QUEUE, SIGNIN_MAIL_JOB

LINK_SECONDS = 15 * 60
SESSION_SECONDS = 30 * 86_400
#: The longest value of a refused form kept for the next page (a message is at most 2,000).
TYPED_LENGTH = 4000


@dataclass(frozen=True)
class Session:
    id: str
    player: dict[str, Any]
    csrf: str


def mail_signin_links(store: Store, email: str, public_url: str, lang: str = i18n.DEFAULT) -> int:
    """Mail one sign-in link per player who gave ``email``; returns how many (the page says
    the same whatever it is, so nobody learns which addresses are known). The mail speaks
    the first player's ``language`` preference, else ``lang`` (the page's)."""
    players = store.players.with_email(email)
    chosen = (prefs.language_of(store, player["id"]) for player in players)
    lang = next((c for c in chosen if c), i18n.language(lang))  # reads up to the first set
    made = [(secrets.token_urlsafe(32), player) for player in players]
    store.write(lambda pipe: [pipe.set(signin_key(t), p["id"], ex=LINK_SECONDS) for t, p in made])
    links = [{"name": p["name"], "url": f"{public_url}/signin/{t}"} for t, p in made]
    if links:
        # The links travel in the job's arguments, so the job keeps no result and expires
        # with them: it is the only copy of a usable token.
        job = OwedJob(
            id=f"signin-{secrets.token_hex(8)}",
            func=SIGNIN_MAIL_JOB,
            args=(players[0]["email"], links, lang),
            queue=DEFAULT_QUEUE,
            timeout=60,
            result_ttl=0,
            failure_ttl=LINK_SECONDS,
            retry=(5, 30, 120),
            description="sign-in links",
        )
        owed.owe_now(store.queue_raw, job)
    return len(links)


def peek_link(store: Store, token: str) -> str | None:
    """The player a sign-in token stands for, leaving it unused; None if unknown or expired."""
    if not token or len(token) > 100:
        return None
    found = store.r.get(signin_key(token))
    return str(found) if found else None


def take_link(store: Store, token: str) -> str | None:
    """The player a sign-in token stands for, once; None if unknown, used or expired."""
    if not token or len(token) > 100:
        return None
    found = store.r.getdel(signin_key(token))
    return str(found) if found else None


def start(store: Store, player_id: str, token: str | None = None) -> str:
    """A new session for ``player_id``; returns its id (the cookie's value). ``token``: the
    API token the player signed in with, whose revocation ends the session."""
    if store.moderation.is_suspended(player_id):
        raise moderation.suspended_problem()  # the sign-in page says so
    session_id = secrets.token_urlsafe(32)
    fields = {"player": player_id, "csrf": secrets.token_urlsafe(24)}
    if token is not None:
        fields["token"] = store.tokens.key_of(token)
    key = session_key(session_id)
    # In order, not atomic: a session without its expiry would take a crash between the two.
    store.write(lambda pipe: (pipe.hset(key, mapping=fields), pipe.expire(key, SESSION_SECONDS)))
    return session_id


def load(store: Store, session_id: str | None) -> Session | None:
    if not session_id or len(session_id) > 100:
        return None
    found = store.r.hgetall(session_key(session_id))
    if not found:
        return None
    player = store.players.get(found["player"])
    if player is None:
        return None
    moderation.check_not_suspended(player)  # every page of a suspended account says so
    if found.get("token") and not store.tokens.stands_for(found["token"], player["id"]):
        return None  # made with a token since revoked: the cookie is worth nothing now
    return Session(session_id, player, found["csrf"])


def stream_ticket(store: Store, session: Session) -> str:
    """A one-time ticket that opens a stream as the session's player (the game page's own
    stream: service/http/web/pages/game.py); the stream ends when the session does."""
    return store.tokens.stream_ticket_for(session_key(session.id))


def leave_note(
    store: Store, session: Session, text: str, typed: Mapping[str, str] | None = None
) -> None:
    """A line for the session's next page (what went wrong with the last form), and what was
    typed into that form (``typed``, field -> value), for the page to show it again. Not a
    ``write``: a note lost in a failover is a line the page does not show."""
    kept = {k: v[:TYPED_LENGTH] for k, v in (typed or {}).items()}
    store.r.hset(session_key(session.id), mapping={"note": text[:500], "typed": json.dumps(kept)})


def take_note(store: Store, session: Session) -> tuple[str | None, dict[str, str]]:
    """The note left for this page and the values typed with it (once: both are gone after)."""
    with store.r.pipeline(transaction=True) as pipe:
        pipe.hmget(session_key(session.id), "note", "typed")
        pipe.hdel(session_key(session.id), "note", "typed")
        (note, typed), _ = pipe.execute()
    return (str(note) if note else None), (json.loads(typed) if typed else {})


def end(store: Store, session_id: str) -> None:
    store.write(lambda pipe: pipe.delete(session_key(session_id)))


def csrf_ok(session: Session | None, sent: str | None) -> bool:
    return bool(session and sent and secrets.compare_digest(session.csrf, sent))
