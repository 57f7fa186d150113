"""A rematch: the players of a finished game meet again in a new game with
the same options, settings and deadline and a new seed.

The first player to ask makes it and sits in it; the others are invited to it by name
(``lifecycle.invited``: they join without the code) and sit down by asking too, from the end
screen's "Rematch offered — join" or the same API call. Asking again, or two players asking at
once, gives the one rematch:

1. The link old -> new is written first, in the finished game's record (``seating["rematch"]``)
   through the one write path, with a ``rematch_offered`` event in its log (the other players'
   pages learn of it from the game's stream). The new game's id is chosen before; whoever finds
   a link already there uses its id instead.
2. Then the new game is made under that id, or, if it is there already, the asker joins it.
   Nothing is lost if the process stops between the two: the next ask makes the game the link
   names.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import blocks
from service.domain.games import lifecycle, play
from service.store import Store
from service.store.keys import game_key
from service.store.record import Change, GameRecord, NothingToDo, Outcome

#: The log entry kind of the link written into the finished game.
ENTRY_KIND = "rematch"
#: Tries at making or joining the new game while another asker does the other (bounded).
TRIES = 3


class _Linked(NothingToDo):
    """The finished game already names its rematch: nothing to write there."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id


def rematch(store: Store, player: Mapping[str, Any], game_id: str) -> Outcome:
    """The rematch of finished game ``game_id`` for ``player`` (one of its players): made
    (201) or found (200), with the caller seated in it. 403 for someone who did not play,
    409 while the game runs."""
    new_id, old = _link(store, player, game_id)
    for _ in range(TRIES):
        if store.r.exists(game_key(new_id)):
            return _join(store, player, new_id, game_id)
        # A rematch is for its players: nobody else takes a seat, whatever the first game
        # allowed (they sit down by name, ``lifecycle.invited``).
        settings = old.settings | {"access": "invite"}
        # The same bots at the same seats (service/domain/bots.py); the people are invited.
        levels = old.seating.get("bots", {})
        bots: list[Mapping[str, Any]] = [
            {"seat": int(seat), "level": level} for seat, level in levels.items()
        ]
        # Nobody kept apart (service/domain/blocks.py) from the asker or from another invited.
        others = [p for i, p in enumerate(old.seats) if str(i) not in levels and p != player["id"]]
        people = blocks.invitable(store, player["id"], others)
        build = lifecycle.new_game(
            store,
            player,
            old.type,
            old.options,
            None,
            len(old.seats),
            old.deadline or None,
            settings,
            bots,
            people,
            {"rematch_of": game_id},
        )

        def mutate(
            record: GameRecord | None, version: int, build: Callable[[str, int], Change] = build
        ) -> Change:
            if record is not None:
                raise NothingToDo  # another asker made it meanwhile: join it
            return build(new_id, version)

        try:
            outcome = play.commit(store, new_id, mutate)
        except NothingToDo:
            continue
        seat = int(outcome.body["seat"])
        return Outcome(201, _answer(outcome.body["id"], game_id, seat, "open"))
    raise Problem(409, "concurrent-update", "the rematch kept changing; retry")


def last_move_events(entries: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The events the board picture marks as the last move: the last entry's, passing over a
    rematch's link (one at most, after the end), which moved nothing on the board."""
    for _version, entry in reversed(entries):
        if entry["kind"] != ENTRY_KIND:
            return list(entry["events"])
    return []


def _link(store: Store, player: Mapping[str, Any], game_id: str) -> tuple[str, GameRecord]:
    """The rematch's id, written into the finished game if it names none yet, and the
    finished game's record."""
    candidate = secrets.token_hex(8)

    def mutate(record: GameRecord | None, version: int) -> Change:
        record = play.require(record, game_id)
        seat = record.seat_of(player["id"])
        if seat is None:
            raise Problem(403, "not-a-player", N_("you have no seat in this game"))
        if record.status != "finished":
            raise Problem(
                409,
                "game-not-finished",
                N_("a rematch can be asked for once the game has ended"),
                game_status=record.status,
            )
        if record.seating.get("rematch"):
            raise _Linked(record.seating["rematch"])
        record.seating["rematch"] = candidate
        offered = play.event("rematch_offered", game_id=candidate, seat=seat)
        return Change(record, ENTRY_KIND, [offered], 200, {"id": candidate}, seat=seat)

    try:
        # No notification planner: a change to a finished game would tell every seat again
        # that the game ended (notifications.notices); the stream carries the offer to the
        # pages, and the new game's notices come with it.
        new_id = str(store.transact(game_id, mutate).body["id"])
    except _Linked as linked:
        new_id = linked.game_id
    return new_id, store.get_game(game_id)


def _join(store: Store, player: Mapping[str, Any], new_id: str, old_id: str) -> Outcome:
    """Sit down in the rematch (once): as an invited player of the first game."""
    try:
        body = lifecycle.join_game(store, player, new_id, None).body
        seat = int(body["seat"])
    except Problem as problem:
        if problem.problem_code != "already-seated":
            raise
        seat = -1
    record = store.get_game(new_id)
    if seat < 0:
        seat = record.seat_of(player["id"]) or 0
    return Outcome(200, _answer(new_id, old_id, seat, record.status))


def _answer(new_id: str, old_id: str, seat: int, status: str) -> dict[str, Any]:
    return {"id": new_id, "rematch_of": old_id, "seat": seat, "status": status}
