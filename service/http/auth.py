"""Bearer tokens: ``Authorization: Bearer kur_pat_…``. Only SHA-256 of a token is stored."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import current_app, g, request
from flask_smorest import Blueprint

from service.common.problems import Problem
from service.domain import moderation
from service.http.apidoc import doc_only
from service.store import TOKEN_PREFIX, Store

BEARER_SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]
PUBLIC_OR_BEARER = [{}, *BEARER_SECURITY]  # anonymous callers get the spectator's view
View = TypeVar("View", bound=Callable[..., Any])


def store() -> Store:
    return current_app.extensions["kurier.store"]


def _unauthorized(code: str, detail: str) -> Problem:
    challenge = 'Bearer realm="kurier"'
    if code == "invalid-token":
        challenge += ', error="invalid_token"'
    return Problem(401, code, detail, headers={"WWW-Authenticate": challenge})


def current_player(required: bool = True) -> dict[str, Any] | None:
    """The caller, or None for an anonymous spectator (only where ``required`` is False).

    A token that is present but wrong is always refused: silently treating it as anonymous
    would hide the client's mistake. A suspended account's token is refused too (403
    ``account-suspended``: service/domain/moderation.py).
    """
    if "kurier_player" in g:
        moderation.check_not_suspended(g.kurier_player)
        return g.kurier_player
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise _unauthorized("missing-token", "send Authorization: Bearer <token>")
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        raise _unauthorized("invalid-token", "the Authorization header holds no valid token")
    player = store().players.for_token(token)
    if player is None:
        raise _unauthorized("invalid-token", "unknown or revoked token")
    g.kurier_player = player
    moderation.check_not_suspended(player)
    return player


def player_hash_read() -> dict[str, str] | None:
    """The caller's whole hash if this request already read it with the token (the rate
    limiter's script, service/domain/ratelimit.py), else None. Read before any change this
    request makes: only for views that change nothing."""
    return g.get("kurier_player_hash")


def _authenticating(required: bool, security: list[dict[str, Any]]) -> Callable[[View], View]:
    """Authenticate before anything else runs, and document the security requirement.

    Used as the outermost decorator of a view method, so a missing or bad token is answered
    401 before the request's headers and body are validated (a 422 would tell an anonymous
    caller what the endpoint expects, and mislead a client whose only problem is the token).
    """

    def decorate(view: View) -> View:
        @wraps(view)
        def authenticated(*args: Any, **kwargs: Any) -> Any:
            current_player(required)
            return view(*args, **kwargs)

        return doc_only(Blueprint.doc(security=security))(authenticated)

    return decorate


token_required = _authenticating(True, BEARER_SECURITY)
token_optional = _authenticating(False, PUBLIC_OR_BEARER)
