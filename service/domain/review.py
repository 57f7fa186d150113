"""After the game: the hard bot's view of each of a player's decisions (docs/bots.md, "Review").

Once a game is over, a person who played in it may ask for a review (``request``): a job
(workers/review.py, ``review-<game>-<player>``, owed like every job whose work must happen)
replays the log and, for each of the player's moves and sealed choices, asks the engine's hard
level (engine/bots.py ``assess``) what it would have played and how it estimates the seat's
win chance after it and after what the player played. The review is stored
(``keys.review_key``) and shown on the game's page and by ``GET /v1/games/{id}/review``.

What each decision is judged from is what the seat saw then, and nothing else: the seat's view
at the version before the decision (``replay.step``, the replay a player may step through) and
the log's events up to that version redacted for the seat (``views.redact_entry``, as ``GET
/v1/games/{id}/events`` serves them) — the same inputs a bot of that seat would have had
(service/domain/bots.py ``seat_inputs``). Nothing of a review exists before the game is over:
asking earlier is a 409, and the job does nothing for a game still in play.

A review is "pending" while its job is owed, "ready" once stored, and "failed" once its job
failed for good (rq's retries spent: ``failed``, from the job's failure callback); it is then
owed no more, and asking again owes a new run.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any, Final

from engine import bots as engine_bots
from engine.core import Event, IllegalAction
from engine.sentences import N_
from service.common.problems import Problem
from service.domain import bots, replay
from service.domain.games import views
from service.store import Store, owed
from service.store.keys import review_key
from service.store.queues import BOT_QUEUE, REVIEW_FAILED_CALLBACK, REVIEW_JOB, review_job_id
from service.store.record import Entries, GameRecord

#: Seconds of search per decision unless ``KURIER_REVIEW_SECONDS`` says otherwise (the hard
#: level's iteration cap, ``KURIER_BOT_ITERATIONS``, applies too).
DEFAULT_SECONDS: Final = 0.5
#: The most decisions of one player a review judges (the first ones of a longer game).
MAX_DECISIONS: Final = 400
#: A review job's limit: every decision's budget, and room to spare.
JOB_TIMEOUT: Final = 900


def request(store: Store, player: Mapping[str, Any], game_id: str) -> dict[str, Any]:
    """Ask for the review of ``player``'s decisions in a finished game: the stored review,
    or a pending one whose job is owed now (asking again while it is owed changes nothing;
    asking after it failed owes a new run)."""
    record = _finished_seat(store, player, game_id)[0]
    found = read(store, record.id, player["id"])
    job = review_job(record.id, player["id"])
    if found is not None and found["status"] == "ready":
        return found
    if found is not None and found["status"] == "pending" and _still_owed(store, job.id):
        return found
    pending = {"status": "pending", "requested_at": time.time(), "decisions": []}
    _store(store, record.id, player["id"], pending)
    owed.owe_again(store.queue_raw, job)
    return pending


def failed(store: Store, game_id: str, player_id: str) -> bool:
    """The review's job failed for good: a pending review says so ("failed") and its job is
    owed no more (the player may ask again). False if there was no pending review (one made
    meanwhile, or never asked for)."""
    found = read(store, game_id, player_id)
    owed.settle(store.queue_raw, review_job_id(game_id, player_id))
    if found is None or found["status"] != "pending":
        return False
    gave_up = {
        "status": "failed",
        "requested_at": found["requested_at"],
        "failed_at": time.time(),
        "decisions": [],
    }
    _store(store, game_id, player_id, gave_up)
    return True


def _still_owed(store: Store, job_id: str) -> bool:
    """Whether the review's job is owed (queued, running, or lost and swept up again): a
    pending review whose job is not (a request cut short before it owed it) is owed anew."""
    return bool(store.queue_raw.hexists(owed.OWED_SPECS, job_id))


def shown(store: Store, player: Mapping[str, Any], game_id: str) -> dict[str, Any]:
    """``player``'s review of a finished game (404 ``no-review`` if none was asked for)."""
    record = _finished_seat(store, player, game_id)[0]
    found = read(store, record.id, player["id"])
    if found is None:
        raise Problem(404, "no-review", N_("no review of this game was asked for yet"))
    return found


def read(store: Store, game_id: str, player_id: str) -> dict[str, Any] | None:
    raw = store.r.get(review_key(game_id, player_id))
    return json.loads(raw) if raw else None


def _store(store: Store, game_id: str, player_id: str, review: dict[str, Any]) -> None:
    text = json.dumps(review, separators=(",", ":"))
    store.write(lambda pipe: pipe.set(review_key(game_id, player_id), text))


def _finished_seat(store: Store, player: Mapping[str, Any], game_id: str) -> tuple[GameRecord, int]:
    """The game and the player's seat in it: 403 for no person at the table, 409 while the
    game is not over."""
    record = store.get_game(game_id)
    seat = record.seat_of(player["id"])
    if seat is None or record.bot_level(seat) is not None:
        raise Problem(403, "not-a-player", N_("you have no seat in this game"))
    if record.status != "finished":
        raise Problem(409, "game-not-finished", N_("a game is reviewed only once it is over"))
    return record, seat


def review_job(game_id: str, player_id: str) -> owed.OwedJob:
    return owed.OwedJob(
        id=review_job_id(game_id, player_id),
        func=REVIEW_JOB,
        args=(game_id, player_id),
        queue=BOT_QUEUE,
        timeout=JOB_TIMEOUT,
        result_ttl=0,  # the review is stored
        failure_ttl=7 * 86_400,
        retry=(10, 60, 600),
        on_failure=REVIEW_FAILED_CALLBACK,
        description=f"review of {player_id}'s decisions in game {game_id}",
    )


def run(store: Store, game_id: str, player_id: str) -> str:
    """The job: judge each decision of ``player_id`` in the finished game and store the
    review. Returns "done", or "stale" (the game is not over, the player has no seat, or
    the review is already done). A run after a failure (an operator's retry) stores the
    review all the same."""
    record, entries = store.read_log(game_id)
    seat = record.seat_of(player_id)
    found = read(store, game_id, player_id)
    if record.status != "finished" or seat is None or (found and found["status"] == "ready"):
        return "stale"
    decisions = [
        judge(record, entries, seat, version, played) for version, played in decided(entries, seat)
    ]
    requested = found["requested_at"] if found else time.time()
    review = {
        "status": "ready",
        "requested_at": requested,
        "computed_at": time.time(),
        "decisions": [d for d in decisions if d is not None],
    }
    _store(store, game_id, player_id, review)
    return "done"


def decided(entries: Entries, seat: int) -> list[tuple[int, str]]:
    """The versions at which ``seat`` moved or made a sealed choice (not a resignation), and
    what it played."""
    return [
        (version, entry["action"])
        for version, entry in entries
        if entry["kind"] in ("move", "sealed")
        and entry["seat"] == str(seat)
        and entry["action"]
        and entry["action"] != "resign"
    ][:MAX_DECISIONS]


def judge(
    record: GameRecord, entries: Entries, seat: int, version: int, played: str
) -> dict[str, Any] | None:
    """The hard level's view of ``seat``'s decision ``played`` at ``version``, from what the
    seat saw just before it; None for one it does not judge: made by the seat's earlier
    holder (a seat taken over), or no decision of the rules."""
    before = version - 1
    if replay.seat_then(record, seat, before) != seat:
        return None
    game = record.game
    inputs = seen_before(record, entries, seat, version)
    seed = f"review/{record.id}/{version}/{seat}"
    try:
        assessed = engine_bots.assess(
            record.type,
            inputs.view,
            inputs.events,
            seat,
            [game.parse(played)],
            seed,
            options=inputs.options,
            budget=budget(),
        )
    except (IllegalAction, ValueError):
        return None  # not a decision of the rules (a seat's rejoining), or none in the view
    (best, best_chance), (_, played_chance) = assessed
    suggested = game.notation(best)
    return {
        "version": version,
        "played": played,
        "played_chance": round(played_chance, 4),
        "suggested": suggested,
        "suggested_chance": round(best_chance, 4),
        "agrees": suggested == played,
    }


def seen_before(record: GameRecord, entries: Entries, seat: int, version: int) -> bots.SeatInputs:
    """What ``seat`` saw just before its decision at ``version``: its view then and the
    events up to then it may see, redacted as they were served."""
    before = version - 1
    view = replay.step(record, entries, before, seat)["view"]
    events = [
        Event.from_json(raw)
        for v, entry in entries
        if v <= before
        for raw in views.redact_entry(record, v, entry, seat)["events"]
    ]
    return bots.SeatInputs(record.type, seat, view, events, dict(record.options))


def budget() -> engine_bots.Budget:
    """``KURIER_REVIEW_SECONDS`` per decision (default 0.5), with the bots' iteration cap."""
    text = os.environ.get("KURIER_REVIEW_SECONDS", "").strip()
    try:
        seconds = max(float(text), 0.05) if text else DEFAULT_SECONDS
    except ValueError:
        seconds = DEFAULT_SECONDS
    return engine_bots.Budget(seconds=seconds, iterations=bots.budget().iterations)
