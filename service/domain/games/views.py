"""What a caller may see of a game (the secrets: service/domain/games/__init__.py): a seat's
or a spectator's view, the legal actions, a log entry redacted for a seat, what happened
since a seat's last move, and the game's public record.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from engine.core import Event, Translator
from service.common import sealed
from service.domain import clocks, ratings
from service.store.logpack import ACTION_KINDS as ACTION_KINDS
from service.store.record import GameRecord

#: Log entries a view looks back through for "what happened since your last move", and the
#: most sentences it shows.
RECENT_ENTRIES = 60
RECENT_SENTENCES = 30


def after_last_move(
    entries: list[tuple[int, dict[str, Any]]], seat: int | None
) -> list[tuple[int, dict[str, Any]]]:
    """The ``entries`` after ``seat``'s last own move or choice in them (all of them for a
    spectator or a seat that did not act in them): what the seat has not seen itself."""
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index][1]
        if entry["kind"] in ("move", "sealed") and entry["seat"] == str(seat):
            return entries[index + 1 :]
    return entries


def since_last_move(
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    seat: int | None,
    words: Translator | None = None,
) -> list[dict[str, Any]]:
    """What happened after ``seat``'s last own move or choice in ``entries`` (all of them for
    a spectator or a seat that did not act in them), as the game's sentences (engine
    ``describe``; ``words``: the reader's language, service/common/i18n.py ``engine_words``), only
    from events ``seat`` may see: ``[{"version", "text"}]``."""
    sentences = []
    for version, entry in after_last_move(entries, seat):
        for raw in entry["events"]:
            event = Event.from_json(raw)
            visible = event.visible_to(seat)
            text = record.game.describe(event, record.names, words) if visible else None
            if text:
                sentences.append({"version": version, "text": text})
    return sentences[-RECENT_SENTENCES:]


def game_view(
    record: GameRecord, seat: int | None, player_id: str | None, now: float | None = None
) -> dict[str, Any]:
    game = record.game
    state = game.load(record.state) if record.state is not None else None
    view = game.view(state, seat) if state is not None else None
    out: dict[str, Any] = {
        "id": record.id,
        "type": record.type,
        "rules_version": record.rules_version,
        "status": record.status,
        "version": record.version,
        "options": record.options,
        "max_seats": record.max_seats,
        "seats": _seats_in_play(record, state),
        "your_seat": seat,
        "creator_seat": record.seat_of(record.creator),
        "waiting_for": record.pending,
        "your_decision": next((d for d in record.pending if d["seat"] == seat), None)
        if seat is not None
        else None,
        "your_sealed_choices": _own_sealed(record, seat),
        "seed_commitment": record.seed_commitment,
        "view": view,
        "result": record.result,
        "deadline": record.deadline or None,
        "deadline_at": record.deadline_at,
        "banks": clocks.seat_banks(
            record.deadline,
            record.seating.get("banks", {}),
            len(record.seats),
            record.status == "active",
            time.time() if now is None else now,
        ),
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        # Who may join without the code, a finished game's rematch and a rematch's game
        # (service/domain/rematch.py): public, as the seats are.
        "invited": list(record.seating.get("invited", [])),
        "rematch": record.seating.get("rematch"),
        "rematch_of": record.seating.get("rematch_of"),
        "rated": _rated(record),
        "bot_pace": _bot_pace(record),
    }
    if player_id == record.creator and record.status == "open":
        out["invite_code"] = record.invite
    return out


def _rated(record: GameRecord) -> bool:
    """Whether the result changes ratings (while open: what the creation says)."""
    return ratings.meant_rated(record) if record.status == "open" else ratings.is_rated(record)


def _bot_pace(record: GameRecord) -> str | None:
    """How the game's bots pace their moves (None: no bot), ``instant`` for a game made
    before bots had paces."""
    if not record.seating.get("bots"):
        return None
    return str(record.settings.get("bot_pace", "instant"))


def _own_sealed(record: GameRecord, seat: int | None) -> list[dict[str, str]]:
    """The caller's own sealed choices not yet revealed, with their commitments (what the
    table sees is only the commitment)."""
    if seat is None:
        return []
    return [
        {"ref": ref, "choice": mine["choice"], "commitment": mine["commitment"]}
        for ref, by_seat in record.sealed.items()
        if (mine := by_seat.get(str(seat))) is not None
    ]


def _seats(record: GameRecord) -> list[dict[str, Any]]:
    pairs = zip(record.seats, record.names, strict=True)
    return [
        {"seat": i, "player_id": p, "name": n, **bot_fields(record.bot_level(i))}
        for i, (p, n) in enumerate(pairs)
    ]


def bot_fields(level: str | None) -> dict[str, Any]:
    """What a seat shows of a computer opponent, everywhere a seat is listed."""
    return {"is_bot": level is not None, "bot_level": level}


def _seats_in_play(record: GameRecord, state: Any) -> list[dict[str, Any]]:
    """The seats with who has left or gone missing (a running or finished game)."""
    seats = _seats(record)
    if state is None:
        return seats
    resigned = record.game.resigned_seats(state)
    missed = record.seating.get("missed", {})
    abandoned = record.seating.get("abandoned", [])
    for seat in seats:
        number = seat["seat"]
        seat |= {
            "resigned": number in resigned,
            "abandoned": number in abandoned,
            "missed_deadlines": missed.get(str(number), 0),
        }
    return seats


def legal_actions(record: GameRecord, seat: int) -> dict[str, Any]:
    game = record.game
    decision: dict[str, Any] | None = None
    actions: list[dict[str, Any]] = []
    if record.status == "active" and record.state is not None:
        state = game.load(record.state)
        found = game.decision_for(state, seat)
        if found is not None and found.kind != "resolve":
            decision = found.to_json()
            actions = [
                {"notation": game.notation(a), "action": game.action_to_json(a)}
                for a in game.legal_actions(state, seat)
            ]
    return {
        "type": record.type,  # action objects carry no game type; a typed client needs it
        "version": record.version,
        "seat": seat,
        "decision": decision,
        "actions": actions,
    }


def _action_visible(record: GameRecord, entry: Mapping[str, str], seat: int | None) -> bool:
    """Open moves are public; a sealed choice only to its author until its reveal."""
    if entry["kind"] != "sealed" or record.status == "finished":
        return True
    author = int(entry["seat"])
    return author == seat or entry["ref"] not in record.sealed


def redact_entry(
    record: GameRecord, version: int, entry: Mapping[str, Any], seat: int | None
) -> dict[str, Any]:
    events = [e for e in entry["events"] if Event.from_json(e).visible_to(seat)]
    return {
        "version": version,
        "kind": entry["kind"],
        "seat": int(entry["seat"]) if entry["seat"] != "" else None,
        "action": entry["action"]
        if entry["action"] and _action_visible(record, entry, seat)
        else None,
        "ref": entry["ref"] or None,
        "commitment": entry["commitment"] or None,
        "events": events,
        "at": float(entry["at"]),
    }


def game_record(
    record: GameRecord, entries: list[tuple[int, dict[str, Any]]], seat: int | None
) -> dict[str, Any]:
    actions = []
    for version, entry in entries:
        if entry["kind"] not in ACTION_KINDS:
            continue
        shown = redact_entry(record, version, entry, seat)
        actions.append(
            {k: shown[k] for k in ("version", "seat", "kind", "action", "ref", "commitment")}
        )
    reveals = [
        e["data"] for _, entry in entries for e in entry["events"] if e["kind"] == "sealed_revealed"
    ]
    finished = record.status == "finished"
    return {
        "id": record.id,
        "type": record.type,
        "rules_version": record.rules_version,
        "options": record.options,
        "status": record.status,
        "players": len(record.seats),
        "seats": _seats(record),
        "seed_commitment": record.seed_commitment,
        "seed": record.seed if finished else None,
        "commitment_scheme": sealed.COMMITMENT_SCHEME,
        "actions": actions,
        "handovers": record.seating.get("handovers", []),
        "reveals": reveals,
        "result": record.result,
        "complete": finished,
    }
