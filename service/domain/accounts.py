"""A player's account: creating it and its API tokens, checked the same for every way in (the
API's ``POST /v1/players`` and ``POST /v1/me/tokens``, the web pages' register and token
forms) by service/domain/inputs.py's rules."""

from __future__ import annotations

from typing import Any

from service.domain import inputs
from service.store import Store


def create(store: Store, name: str, email: str | None) -> tuple[dict[str, Any], str]:
    """A new player and its first bearer token (the token is in the answer only)."""
    inputs.checked("name", inputs.NAME.check, name)
    if email is not None:
        inputs.checked("email", inputs.email, email)
    return store.players.create(name, email)


def registered(store: Store, name: str, email: str) -> dict[str, Any] | None:
    """The player who already gave ``email`` under ``name`` (names compared as people read
    them: case and surrounding spaces aside), or None. Registering again with both signs that
    player in (a mailed link) instead of making a twin; another name on the same address is
    another player, and the sign-in mail names each."""
    wanted = name.strip().casefold()
    return next(
        (p for p in store.players.with_email(email) if p["name"].strip().casefold() == wanted),
        None,
    )


def create_token(store: Store, player_id: str, name: str) -> dict[str, Any]:
    """A new bearer token named ``name``; the token itself is in the answer only."""
    inputs.checked("name", inputs.TOKEN_NAME.check, name)
    return store.tokens.create(player_id, name)
