"""Who sits in a seat once a game runs: a win claimed from an absent opponent, a seat offered
to a replacement and taken over (docs/api.md, "Resigning, abandoning, replacing").

A seat is *abandoned* after K missed deadlines in a row (service/domain/games/play.py
``_missed``); it is no longer abandoned once its player acts again. Everything here commits
through the one write path (``play.commit``), and what the engine must know (a forfeit, a
resigned seat coming back) is an engine action in the log, so that a replay of the record
still verifies.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from engine.core import Rejoin, Resign
from engine.sentences import N_
from service.common.problems import Problem
from service.domain import blocks, inputs
from service.domain.games import play
from service.store import Store
from service.store.record import Change, GameRecord, Outcome


def claim_win(store: Store, player: Mapping[str, Any], game_id: str) -> Outcome:
    """In a two-player game whose other seat is abandoned: that seat forfeits, the caller
    wins (Lichess's "claim victory")."""

    def mutate(record: GameRecord | None, version: int) -> Change:
        record = play.require(record, game_id)
        seat = _own_seat(record, player)
        _check_active(record)
        if len(record.seats) != 2:
            raise Problem(
                409,
                "no-claim",
                N_(
                    "a win can be claimed only in a two-player game; the creator can offer an "
                    "abandoned seat to a replacement instead"
                ),
            )
        other = 1 - seat
        if other not in record.seating.get("abandoned", []):
            raise Problem(
                409,
                "no-claim",
                N_("your opponent has not missed enough deadlines in a row to claim the win"),
                opponent_missed=record.seating.get("missed", {}).get(str(other), 0),
                abandon_after=int(record.settings.get("abandon_after", play.ABANDON_AFTER)),
            )
        game = record.game
        state = game.load(record.state or {})
        change = play.apply_seat_action(record, game, state, other, Resign(True), version)
        change.events.insert(0, play.event("win_claimed", seat=seat, against=other))
        change.body["seat"] = seat
        return change

    return play.commit(store, game_id, mutate)


def offer_seat(store: Store, player: Mapping[str, Any], game_id: str, seat: int) -> Outcome:
    """The creator offers an abandoned or resigned seat, or a bot's, to a replacement: a code
    to send (a new offer replaces an earlier one for the seat). A bot keeps playing the seat
    until the code is used."""

    def mutate(record: GameRecord | None, version: int) -> Change:
        record = play.require(record, game_id)
        if record.creator != player["id"]:
            raise Problem(403, "not-creator", N_("only the game's creator can offer a seat"))
        _check_active(record)
        _check_seat(record, seat)
        if seat not in _vacant(record) and record.bot_level(seat) is None:
            raise Problem(
                409,
                "seat-not-vacant",
                N_("only a seat that resigned, was abandoned or is a bot's can be offered"),
                seat=seat,
            )
        code = secrets.token_urlsafe(9)
        record.seating.setdefault("offers", {})[str(seat)] = code
        offered = play.event("seat_offered", seat=seat)
        body = {"id": game_id, "version": version, "seat": seat, "invite_code": code}
        return Change(record, "offered", [offered], 201, body, seat=seat)

    return play.commit(store, game_id, mutate)


def take_seat(
    store: Store, player: Mapping[str, Any], game_id: str, seat: int, code: str
) -> Outcome:
    """A newcomer takes an offered seat: from now on its secrets are theirs. The record keeps
    both players and the version where the seat changed hands."""
    inputs.checked("invite_code", inputs.CODE.check, code)
    apart = blocks.kept_apart(store, player)

    def mutate(record: GameRecord | None, version: int) -> Change:
        record = play.require(record, game_id)
        _check_active(record)
        _check_seat(record, seat)
        offer = record.seating.get("offers", {}).get(str(seat), "")
        if not offer or not secrets.compare_digest(code.encode(), offer.encode()):
            raise Problem(
                403, "bad-invite-code", N_("that code does not open this seat"), seat=seat
            )
        if record.seat_of(player["id"]) is not None:
            raise Problem(409, "already-seated", N_("you already have a seat in this game"))
        blocks.check_table([p for s, p in enumerate(record.seats) if s != seat], apart)
        previous = {"player_id": record.seats[seat], "name": record.names[seat]}
        record.seats[seat], record.names[seat] = player["id"], player["name"]
        del record.seating["offers"][str(seat)]
        # A bot's seat taken over: a person plays it from now on (a bot job owed for it finds
        # the game moved on, and no commit owes another).
        record.seating.get("bots", {}).pop(str(seat), None)
        returned = play.present(record, seat)
        record.seating.setdefault("handovers", []).append(
            {
                "seat": seat,
                "version": version,
                "previous": previous,
                "player_id": player["id"],
                "name": player["name"],
            }
        )
        replaced = play.event(
            "seat_replaced", seat=seat, previous=previous["name"], name=player["name"]
        )
        game = record.game
        state = game.load(record.state or {})
        if seat in game.resigned_seats(state):
            change = play.apply_seat_action(record, game, state, seat, Rejoin(), version)
            change.events.insert(0, replaced)
        else:
            change = Change(record, "replaced", [replaced], 200, {}, seat=seat)
        change.status = 200
        change.body = {"id": game_id, "version": version, "seat": seat}
        change.index_players = [player["id"]]
        if returned:
            change.returned = seat
        return change

    return play.commit(store, game_id, mutate)


def _vacant(record: GameRecord) -> set[int]:
    resigned = record.game.resigned_seats(record.game.load(record.state or {}))
    return set(resigned) | set(record.seating.get("abandoned", []))


def _own_seat(record: GameRecord, player: Mapping[str, Any]) -> int:
    seat = record.seat_of(player["id"])
    if seat is None:
        raise Problem(403, "not-a-player", N_("you have no seat in this game"))
    return seat


def _check_active(record: GameRecord) -> None:
    if record.status != "active":
        raise Problem(
            409, "game-not-active", f"the game is {record.status}", game_status=record.status
        )


def _check_seat(record: GameRecord, seat: int) -> None:
    if not 0 <= seat < len(record.seats):
        raise Problem(404, "no-such-seat", f"this game has no seat {seat}", seat=seat)
