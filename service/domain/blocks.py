"""Blocking: a player blocks another (docs/api.md, "Blocking").

What a block does, everywhere it is checked:

- the two never share a table where there is a choice: joining an open game where either sits
  is refused (``check_table``: 409 ``cannot-join``, the same answer whoever blocked whom), so is
  taking an offered seat at such a table; a new game does not invite the two by name
  (``check_invited``: 409 ``cannot-invite``), and a rematch leaves out of its invitation
  anyone kept apart from its asker or from another player it invites (``invitable``); a
  tournament's pairing keeps them apart while any pairing does (service/domain/pairing.py,
  ``avoid``), and its round says when none did;
- the blocked player's messages are withheld from the blocker wherever messages are read
  (service/domain/messages.py: the game page, the API's list, the event stream and the mails
  all read through it);
- the blocked player cannot write to the blocker privately (``check_private``: 403
  ``cannot-message-player``).

A block is private: only the blocker lists it (``GET /v1/me/blocks``); nothing shown to the
blocked player names it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem
from service.store import Store
from service.store.social import MAX_BLOCKS


def block(store: Store, player_id: str, other_id: str) -> dict[str, Any]:
    """``player_id`` blocks ``other_id``; returns the blocked player as the list shows it."""
    if other_id == player_id:
        raise Problem(422, "cannot-block-self", N_("you cannot block yourself"))
    other = _player(store, other_id)
    if store.blocks.add(player_id, other_id) < 0:
        raise Problem(
            409,
            "blocks-full",
            f"you block {MAX_BLOCKS} players already: unblock one first",
            limit=MAX_BLOCKS,
        )
    return {"id": other["id"], "name": other["name"]}


def unblock(store: Store, player_id: str, other_id: str) -> None:
    """No longer blocked (nothing happens if it was not)."""
    store.blocks.remove(player_id, other_id)


def listing(store: Store, player_id: str) -> dict[str, Any]:
    """The players ``player_id`` blocks, by name."""
    found = [store.players.get(other) for other in store.blocks.of(player_id)]
    items = [{"id": p["id"], "name": p["name"]} for p in found if p is not None]
    items.sort(key=lambda p: (p["name"].lower(), p["id"]))
    return {"items": items}


def blocks(store: Store, player_id: str | None, other_id: str) -> bool:
    """Does ``player_id`` block ``other_id``? (False for an anonymous caller.)"""
    return bool(player_id) and store.blocks.blocks(str(player_id), other_id)


def hidden_senders(store: Store, viewer_id: str | None) -> set[str]:
    """The players whose messages ``viewer_id`` does not see: those it blocks."""
    return store.blocks.of(viewer_id) if viewer_id else set()


def kept_apart(store: Store, player: Mapping[str, Any]) -> set[str]:
    """The players ``player`` must not sit with: those it blocks and those who block it. Read
    before a game's commit, checked inside it by ``check_table``."""
    return store.blocks.apart(player["id"])


def check_table(seated: Collection[str], apart: Collection[str]) -> None:
    """Refuse a seat at a table where someone in ``apart`` sits. The answer names nobody and
    is the same whoever blocked whom."""
    if any(player_id in apart for player_id in seated):
        raise Problem(409, "cannot-join", N_("you can't join this game"))


def check_invited(store: Store, creator_id: str, invited: Sequence[str]) -> None:
    """Refuse a new table whose creator and players invited by name include two kept apart
    (either blocks the other): 409 ``cannot-invite``, naming nobody, the same whoever blocked
    whom. Nothing is made and nobody is told."""
    people = [creator_id, *invited]
    for index, player_id in enumerate(people[:-1]):
        apart = store.blocks.apart(player_id)
        if any(other in apart for other in people[index + 1 :]):
            raise Problem(409, "cannot-invite", N_("you can't invite these players to one table"))


def invitable(store: Store, first_id: str, others: Sequence[str]) -> list[str]:
    """``others`` in order, without anyone kept apart from ``first_id`` or from one kept
    before them: who a rematch asked for by ``first_id`` invites (the rest are left out,
    told nothing)."""
    kept = [first_id]
    for player_id in others:
        apart = store.blocks.apart(player_id)
        if not any(seated in apart for seated in kept):
            kept.append(player_id)
    return kept[1:]


def check_private(store: Store, sender_id: str, recipient_id: str | None) -> None:
    """Refuse a private message to a player who blocks its sender."""
    if recipient_id and store.blocks.blocks(recipient_id, sender_id):
        raise Problem(
            403, "cannot-message-player", N_("this player does not take private messages from you")
        )


def _player(store: Store, player_id: str) -> dict[str, Any]:
    player = store.players.get(player_id) if len(player_id) <= 64 else None
    if player is None:
        raise Problem(404, "player-not-found", f"no player {player_id!r}", player_id=player_id)
    return player
