"""Computer opponents in the service (issue 35): a bot seat's move, made by a job.

A game created with bot seats (``games.create_game``'s ``bots``; the record's ``seating["bots"]``,
seat -> level) owes a bot job whenever it waits for a bot seat: the commit that makes the game
wait owes it, like a resolution (service/store/game_jobs.py ``bot_jobs``; its id is the game,
the version and the seat, so owing it twice makes one job, and the sweep enqueues it again if
a worker dies with it). The job (workers/bots.py) calls ``play_turn``:

- it reads what the seat's own client would: the seat's view (``games.game_view``) and the log's
  events redacted for the seat (``games.redact_entry``, as ``GET /v1/games/{id}/events`` serves
  them), never the state, the seed or another seat's secrets (``seat_inputs``);
- it asks the engine's bot (engine/bots.py ``choose``) with a seed of its own, derived from
  (game, version, seat), and the budget of ``KURIER_BOT_SECONDS`` / ``KURIER_BOT_ITERATIONS``;
- it plays the answer through ``games.play``, a player's own write path, with the version it
  was owed for and an idempotency key of the job's id: a job run twice moves once, and a job
  that finds the game moved on (a stale one) does nothing.

A sealed step (conflict cards, battle cards, secret notes) is a pending decision like a move:
the bot answers it the same way.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import bots as engine_bots
from engine.core import Event
from engine.registry import get_game
from service import kits
from service.common import sealed
from service.common.problems import Problem
from service.domain import inputs
from service.domain.games import lifecycle, play, views
from service.store import Store
from service.store.game_jobs import bot_seed
from service.store.queues import bot_job_id
from service.store.record import Entries, GameRecord, Idempotency, Outcome

#: A bot move's CPU budget unless the environment says otherwise (issue 35: 2 s).
DEFAULT_SECONDS = 2.0
#: Problems that mean the job's moment has passed: another run moved first, the game went on
#: or ended. Nothing to do.
STALE = ("stale-version", "game-not-active", "idempotency-key-reused", "not-a-player")


PLAY_NOW_LEVEL = "medium"


def play_now(
    store: Store,
    player: Mapping[str, Any],
    type_id: str,
    level: str = PLAY_NOW_LEVEL,
    pace: str = inputs.DEFAULT_BOT_PACE,
) -> Outcome:
    """A game against bots, started at once: ``player`` in the seat that acts first (the
    lobby promises "you move first"), a bot of ``level`` in every other seat (the lobby's one
    click), moving at ``pace`` (``inputs.BOT_PACES``: by default like a person at the table).
    Unrated, and private to its table: invite-only."""
    seats = play_now_seats(type_id)
    seed = sealed.new_seed()
    mine = first_seat(type_id, seats, seed)
    created = lifecycle.create_game(
        store,
        player,
        type_id,
        {},
        seed,
        seats,
        settings={"access": "invite", "bot_pace": pace},
        bots=[{"seat": seat, "level": level} for seat in range(seats) if seat != mine],
    )
    lifecycle.start_game(store, player, created.body["id"])
    return created


def first_seat(type_id: str, seats: int, seed: str) -> int:
    """The seat that acts first in a new game of ``seats`` from ``seed`` with the default
    options (the lowest, when several act at once)."""
    game = get_game(type_id)
    acting = [d.seat for d in game.pending(game.new_state(seats, seed)) if d.seat >= 0]
    return min(acting, default=0)


def play_now_seats(type_id: str) -> int:
    """How many seats the lobby's "play now" gives a quick game against bots: the game's
    kit's ``play_now_seats``, else its fewest players."""
    fewest = play.game_type(type_id).min_players  # an unknown type: its problem
    return kits.kit(type_id).play_now_seats or fewest


def budget() -> engine_bots.Budget:
    """``KURIER_BOT_SECONDS`` of CPU per move (default 2) and, if set, an iteration cap
    ``KURIER_BOT_ITERATIONS`` (a reproducible move: tests, a small machine)."""
    seconds = _env_number("KURIER_BOT_SECONDS", DEFAULT_SECONDS)
    cap = _env_number("KURIER_BOT_ITERATIONS", 0)
    return engine_bots.Budget(seconds=seconds, iterations=int(cap) or None)


def _env_number(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    try:
        return max(float(text), 0.0) if text else default
    except ValueError:
        return default  # `kurier config check` reports it


@dataclass(frozen=True)
class SeatInputs:
    """Everything a bot's move is made from: what the seat's client may read."""

    game_type: str
    seat: int
    view: dict[str, Any]
    events: list[Event]
    options: dict[str, Any]


def seat_inputs(record: GameRecord, entries: Entries, seat: int) -> SeatInputs:
    """The seat's view and the events it may see, through the functions that serve them to
    a player (``game_view``, ``redact_entry``): one redaction, so nothing hidden reaches a bot."""
    shown = views.game_view(record, seat, record.seats[seat])
    events = [
        Event.from_json(raw)
        for version, entry in entries
        for raw in views.redact_entry(record, version, entry, seat)["events"]
    ]
    return SeatInputs(record.type, seat, shown["view"], events, dict(shown["options"]))


def choose(inputs: SeatInputs, level: str, seed: str) -> Any:
    """The engine bot's action from ``inputs`` alone."""
    return engine_bots.choose(
        inputs.game_type,
        inputs.view,
        inputs.events,
        inputs.seat,
        level,  # type: ignore[arg-type]  # checked at creation (inputs.BOT_LEVELS)
        seed,
        options=inputs.options,
        budget=budget(),
    )


def play_turn(store: Store, game_id: str, version: int, seat: int) -> str:
    """The bot of ``seat`` answers what the game waits for at ``version``. Returns "moved", or
    "stale" when the game is elsewhere by now (moved on, over, the seat taken by a person)."""
    try:
        record, entries = store.read_log(game_id)
    except Problem:
        return "stale"  # archived or gone
    level = record.bot_level(seat)
    waiting = any(d["seat"] == seat and d["kind"] in ("move", "sealed") for d in record.pending)
    if record.version != version or record.status != "active" or not level or not waiting:
        return "stale"
    seen = seat_inputs(record, entries, seat)
    notation = record.game.notation(choose(seen, level, bot_seed(game_id, version, seat)))
    # ``bot``: the move is the bot's, not its player's return (play.present).
    player: dict[str, Any] = {"id": record.seats[seat], "name": record.names[seat], "bot": True}
    key = bot_job_id(game_id, version, seat)
    idem = Idempotency(record.seats[seat], key, hashlib.sha256(notation.encode()).hexdigest())
    try:
        play.play(store, player, game_id, notation, None, None, version, idem)
    except Problem as problem:
        if problem.problem_code in STALE:
            return "stale"
        raise
    return "moved"
