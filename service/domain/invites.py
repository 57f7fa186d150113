"""Telling an invited player (issue 34): a game created with ``invited`` players (a profile's
"play with", ``POST /v1/games`` ``invited``) or a rematch (service/domain/rematch.py) sends each
of them a ``game.invited`` notice, by mail and webhook as their preferences say
(workers/invites.py).

Once per (game, invited player): the jobs are owed in the very commit that creates the game
(``jobs``, called by service/domain/notifications.followups), their ids derived from the game
and the player, so a retried commit owes the same jobs; the job sends its mail once (a ledger)
and makes its webhook delivery once.

What the notice tells is public: who invites, the game type, its seats, its rule options,
the game it is a rematch of. Never the invite code (it is the creator's), nor any token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.registry import get_game
from service.common import i18n
from service.domain import prefs
from service.store import Store
from service.store.owed import OwedJob, notice_job
from service.store.queues import INVITE_NOTIFY_JOB, invite_notify_job_id
from service.store.record import Change, GameRecord

INVITED = "game.invited"


def jobs(store: Store, change: Change) -> list[OwedJob]:
    """The notices a game's creating change owes its invited players (none for any other
    change): only to those some channel would reach now."""
    record = change.record
    if change.entry_kind != "created":
        return []
    guests = [guest["player_id"] for guest in record.seating.get("invited", [])]
    if not guests:
        return []
    raws = store.players.notice_fields(guests)
    return [
        job(record.id, player_id)
        for player_id, raw in zip(guests, raws, strict=True)
        if prefs.channels_for(raw, INVITED)
    ]


def job(game_id: str, player_id: str) -> OwedJob:
    return notice_job(
        invite_notify_job_id(game_id, player_id),
        INVITE_NOTIFY_JOB,
        (game_id, player_id),
        f"{INVITED} to {player_id} of game {game_id}",
    )


def still_open_to(record: GameRecord, player_id: str) -> bool:
    """Whether the invitation still means something: the game waits for players and the
    invited player has not sat down yet (a quick "rematch" click may beat the job)."""
    invited = any(g["player_id"] == player_id for g in record.seating.get("invited", []))
    return invited and record.status == "open" and record.seat_of(player_id) is None


def invitation(store: Store, record: GameRecord) -> dict[str, Any]:
    """What the notice tells (public only): who invites, the game, its seats, the rule
    options changed from the defaults, and the game it is a rematch of (or None)."""
    creator = record.creator
    if creator in record.seats:
        inviter = record.names[record.seats.index(creator)]
    else:
        inviter = (store.players.get(creator) or {}).get("name", "")
    return {
        "game_id": record.id,
        "game_type": record.type,
        "title": record.game.title,
        "seats": record.max_seats,
        "invited_by": {"id": creator, "name": inviter},
        "options": dict(record.options),
        "changed_options": changed_options(record.type, record.options),
        "rematch_of": record.seating.get("rematch_of"),
    }


def changed_options(type_id: str, options: Mapping[str, Any]) -> list[dict[str, str]]:
    """The rule options a creator chose other than the defaults (those the lobby offers), each
    with its description and choice as the lobby words them (English: the caller translates)."""
    out = []
    for spec in get_game(type_id).options:
        value = options.get(spec.name, spec.default)
        if len(spec.choices) > 1 and value != spec.default:
            out.append(
                {
                    "name": spec.name,
                    "description": spec.description,
                    "choice": i18n.choice_label(value),
                }
            )
    return out
