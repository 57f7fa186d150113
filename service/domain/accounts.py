"""A player's account: creating it and its API tokens, checked the same for every way in (the
API's ``POST /v1/players`` and ``POST /v1/me/tokens``, the web pages' register and token
forms) by service/domain/inputs.py's rules."""

from __future__ import annotations

from typing import Any

from service.common.problems import Problem
from service.domain import inputs
from service.store import Store

#: How many players one email address may serve. An address is not verified when it is given,
#: and the signup budget is per client address: without a bound, registrations from many
#: clients (or many forwarded addresses) could tie any number of players to a stranger's
#: address. A person with several players (a club's laptop, a family) fits in it.
MAX_PLAYERS_PER_EMAIL = 5


def create(store: Store, name: str, email: str | None) -> tuple[dict[str, Any], str]:
    """A new player and its first bearer token (the token is in the answer only)."""
    inputs.checked("name", inputs.NAME.check, name)
    if email is not None:
        inputs.checked("email", inputs.email, email)
        check_email_room(store, email)
    return store.players.create(name, email)


def check_email_room(store: Store, email: str, player_id: str | None = None) -> None:
    """Refuse (409 ``email-has-players``) to give ``email`` to one more player than
    ``MAX_PLAYERS_PER_EMAIL``; ``player_id`` already holding it is not one more."""
    others = [p for p in store.players.with_email(email) if p["id"] != player_id]
    if len(others) >= MAX_PLAYERS_PER_EMAIL:
        raise Problem(
            409,
            "email-has-players",
            f"this address already serves {MAX_PLAYERS_PER_EMAIL} players: sign in to one of "
            "them (a sign-in link is mailed to it) or give another address",
        )


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
