"""Bearer tokens: ``Authorization: Bearer kur_pat_…``. Only SHA-256 of a token is stored."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from service.problems import Problem
from service.store import TOKEN_PREFIX, Store

BEARER_SECURITY = [{"bearerAuth": []}]


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
    would hide the client's mistake.
    """
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise _unauthorized("missing-token", "send Authorization: Bearer <token>")
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        raise _unauthorized("invalid-token", "the Authorization header holds no valid token")
    player = store().player_for_token(token)
    if player is None:
        raise _unauthorized("invalid-token", "unknown or revoked token")
    return player
