"""A player's leave: whole days away from every game, out of a yearly budget.

The operator sets the budget (``KURIER_LEAVE_DAYS``, days a year, default 30; 0: no leave)
and the shortest block (``KURIER_LEAVE_MIN_DAYS``, default 3). A player takes ``days`` whole
days at once (the settings page, the mail command ``leave 14d``, ``POST /v1/me/leave``); the
leave runs from that moment for ``days`` × 24 h and pauses the player's clocks in every game
(``prefs.on_vacation``, the one answer to "is this player away now": the deadlines and the
time bank ask it). One leave runs at a time.

The budget is per calendar year in the player's time zone: a leave is charged to the year it
is taken in, whole, and each 1 January (local) brings the full budget again. Ending a leave
early (``DELETE /v1/me/leave``, ``leave end`` by mail, or any move of the player) gives the
unused whole days back to the year it was charged to.

Fields in the player hash (``kurier:player:{p}``): ``leave_from``, ``leave_until`` (Unix
time), ``leave_days`` and ``leave_year`` (what the running or last leave was charged),
``leave_used:<year>`` (days charged to that year), and ``leave_rev``, the counter every change
compares and bumps in one script, so two requests at once cannot both spend the same days.

``take`` and ``end`` are pure (a hash in, the fields to write out); ``take_leave`` and
``end_leave`` store them and tell the opponents (``game.opponent_on_leave``, once per game and
leave).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import prefs
from service.store import Store, owed
from service.store.keys import player_key
from service.store.owed import OwedJob, notice_job
from service.store.queues import NOTIFY_JOB

DAY = 86_400
DEFAULT_DAYS_PER_YEAR = 30
DEFAULT_MIN_DAYS = 3
#: The notice to each opponent in each of the player's games when a leave starts.
LEAVE_NOTICE = "game.opponent_on_leave"
#: The longest budget an operator may set (and so the longest single leave).
MAX_DAYS_PER_YEAR = 366
#: The player-hash fields of the running (or last) leave.
FIELDS = ("leave_from", "leave_until", "leave_days", "leave_year")
#: A change of the leave fields, only if ``leave_rev`` is still what was read.
_COMPARE_AND_SET = """
if (redis.call('HGET', KEYS[1], 'leave_rev') or '') ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HINCRBY', KEYS[1], 'leave_rev', 1)
return 1
"""
_ATTEMPTS = 5
#: ``leave 14d``, ``leave 2 weeks``, ``urlaub 14 tage``, ``leave end``, ``urlaub ende``.
COMMAND = re.compile(r"(?:leave|urlaub)(?:\s+(?P<what>.*))?", re.IGNORECASE | re.DOTALL)
_AMOUNT = re.compile(r"(?P<number>\d{1,4})\s*(?P<unit>[^\d\s].*)?")
#: Units a mail may write after the number, as days each (English and German).
UNITS = {
    "": 1,
    "d": 1,
    "day": 1,
    "days": 1,
    "t": 1,
    "tag": 1,
    "tage": 1,
    "w": 7,
    "week": 7,
    "weeks": 7,
    "wo": 7,
    "woche": 7,
    "wochen": 7,
}
ENDING_WORDS = ("end", "stop", "ende", "beenden")


@dataclass(frozen=True)
class Policy:
    """The operator's leave settings."""

    days_per_year: int = DEFAULT_DAYS_PER_YEAR
    min_days: int = DEFAULT_MIN_DAYS


def policy(environ: Mapping[str, str] | None = None) -> Policy:
    """The settings ``KURIER_LEAVE_DAYS`` and ``KURIER_LEAVE_MIN_DAYS`` (service/ops/config.py
    checks them; a value out of range here falls back to the default)."""
    env = os.environ if environ is None else environ
    per_year = _env_int(env, "KURIER_LEAVE_DAYS", DEFAULT_DAYS_PER_YEAR, 0, MAX_DAYS_PER_YEAR)
    shortest = _env_int(env, "KURIER_LEAVE_MIN_DAYS", DEFAULT_MIN_DAYS, 1, MAX_DAYS_PER_YEAR)
    return Policy(per_year, shortest)


def _env_int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = env.get(name, "").strip()
    if not text.isdigit() or not low <= int(text) <= high:
        return default
    return int(text)


# -- pure: a player's hash in, answers and changes out ----------------------------------------


def year_of(raw: Mapping[str, Any], now: float) -> int:
    """The calendar year at ``now`` in the player's time zone (the budget's year)."""
    return datetime.fromtimestamp(now, prefs.zone(dict(raw))).year


def used(raw: Mapping[str, Any], year: int) -> int:
    """Days charged to ``year``."""
    return int(raw.get(f"leave_used:{year}") or 0)


def left(raw: Mapping[str, Any], rules: Policy, now: float) -> int:
    """Days of this year's budget not yet taken (never below 0, even if the operator lowered
    the budget after they were taken)."""
    return max(0, rules.days_per_year - used(raw, year_of(raw, now)))


def running(raw: Mapping[str, Any], now: float) -> dict[str, Any] | None:
    """The leave running at ``now``: from, until, days; None if none."""
    until = float(raw.get("leave_until") or 0)
    start = float(raw.get("leave_from") or 0)
    if not start <= now < until:
        return None
    return {"from": start, "until": until, "days": int(raw.get("leave_days") or 0)}


def status(raw: Mapping[str, Any], rules: Policy, now: float) -> dict[str, Any]:
    """What ``GET /v1/me/leave`` and the settings page show."""
    year = year_of(raw, now)
    return {
        "year": year,
        "budget_days": rules.days_per_year,
        "min_days": rules.min_days,
        "used_days": used(raw, year),
        "left_days": left(raw, rules, now),
        "current": running(raw, now),
    }


def take(raw: Mapping[str, Any], rules: Policy, now: float, days: Any) -> dict[str, str]:
    """The fields that start a leave of ``days`` whole days at ``now``; a ``Problem`` naming
    ``days`` if it cannot (not a whole number of at least 1, below the minimum block, over
    the budget left, or a leave runs already)."""
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise _refused(422, "invalid-days", N_("days: a whole number of days, at least 1"))
    if running(raw, now) is not None:
        raise _refused(
            409,
            "leave-running",
            N_("a leave runs already: end it before taking another"),
            until=str(int(float(raw["leave_until"]))),
        )
    if days < rules.min_days:
        raise _refused(
            422,
            "leave-below-minimum",
            N_("days: a leave is at least %(min_days)s days"),
            min_days=str(rules.min_days),
        )
    remaining = left(raw, rules, now)
    if days > remaining:
        raise _refused(
            422,
            "leave-over-budget",
            N_("days: %(days)s days asked, %(left_days)s left this year"),
            days=str(days),
            left_days=str(remaining),
        )
    year = year_of(raw, now)
    return {
        "leave_from": repr(float(now)),
        "leave_until": repr(float(now + days * DAY)),
        "leave_days": str(days),
        "leave_year": str(year),
        f"leave_used:{year}": str(used(raw, year) + days),
    }


def unused_days(raw: Mapping[str, Any], now: float) -> int:
    """The whole days of the running leave not yet begun at ``now`` (0 if none runs)."""
    current = running(raw, now)
    if current is None:
        return 0
    # Counted from its start: ``until - now`` loses a day to rounding when ended at once.
    begun = math.ceil((now - float(current["from"])) / DAY)
    return max(0, int(current["days"]) - begun)


def end(raw: Mapping[str, Any], now: float) -> tuple[dict[str, str], int]:
    """The fields that end the running leave at ``now``, and the whole days given back to
    the year it was charged to; a ``Problem`` if none runs."""
    if running(raw, now) is None:
        raise _refused(409, "no-leave", N_("no leave is running"))
    back = unused_days(raw, now)
    year = int(raw.get("leave_year") or year_of(raw, now))
    return {
        "leave_until": repr(float(now)),
        "leave_days": str(int(raw.get("leave_days") or 0) - back),
        f"leave_used:{year}": str(max(0, used(raw, year) - back)),
    }, back


def parse_command(text: str) -> int | None:
    """The days a mail's ``leave …`` line asks for (``leave 14d``, ``leave 2w``, ``urlaub 14
    tage``), None for ``leave end`` (``urlaub ende``); a ``Problem`` naming ``days`` for
    anything else (no number, an unknown unit)."""
    found = COMMAND.fullmatch(text.strip())
    what = ((found and found["what"]) or "").strip().lower()
    if what in ENDING_WORDS:
        return None
    amount = _AMOUNT.fullmatch(what)
    unit = ((amount and amount["unit"]) or "").strip().rstrip(".")
    if amount is None or unit not in UNITS:
        raise _refused(
            422,
            "invalid-days",
            N_("write the leave as days or weeks, e.g. `leave 14d`, `leave 2w` or `leave end`"),
        )
    return int(amount["number"]) * UNITS[unit]


def _refused(status: int, code: str, template: str, **values: str) -> Problem:
    problem = Problem(status, code, template % values if values else template, field="days")
    problem.extra.update(values)
    problem.reason = (template, values)
    return problem


# -- stored -------------------------------------------------------------------------------------


def read(store: Store, player_id: str, now: float | None = None) -> dict[str, Any]:
    """The player's leave and budget (``status``)."""
    raw = store.players.hash(player_id)
    return status(raw, policy(), time.time() if now is None else now)


def take_leave(
    store: Store, player: Mapping[str, Any], days: Any, now: float | None = None
) -> dict[str, Any]:
    """Start a leave of ``days`` for ``player`` and tell the opponents in each of their
    active games; returns the new ``status``."""
    moment = time.time() if now is None else now
    rules = policy()
    raw = _changed(store, player["id"], lambda raw: take(raw, rules, moment, days))
    _tell_opponents(store, player, raw)
    return status(raw, rules, moment)


def end_leave(store: Store, player_id: str, now: float | None = None) -> dict[str, Any]:
    """End the running leave now; ``status`` with ``returned_days``."""
    moment = time.time() if now is None else now
    back = 0

    def ending(raw: Mapping[str, Any]) -> dict[str, str]:
        nonlocal back
        changes, back = end(raw, moment)
        return changes

    raw = _changed(store, player_id, ending)
    return {**status(raw, policy(), moment), "returned_days": back}


def end_at_move(store: Store, player: Mapping[str, Any], now: float | None = None) -> None:
    """A move by ``player`` ends their running leave (``player`` as the token check read it:
    ``leave_until`` in it, service/store/players.py). Nothing to do, nothing read."""
    moment = time.time() if now is None else now
    if float(player.get("leave_until") or 0) <= moment:
        return
    with contextlib.suppress(Problem):  # ended meanwhile (another request, or it ran out)
        end_leave(store, player["id"], moment)


def _changed(store: Store, player_id: str, change: Any) -> dict[str, Any]:
    """Apply ``change(raw) -> fields`` to the player's hash as one compare-and-set on
    ``leave_rev`` (re-read and retried when another change came between); the hash after."""
    key = player_key(player_id)
    for _attempt in range(_ATTEMPTS):
        raw = store.players.hash(player_id)
        changes = change(raw)  # a Problem here changes nothing
        args = [raw.get("leave_rev") or ""]
        for name, value in changes.items():
            args += [name, value]
        (done,) = store.write(functools.partial(_run, key=key, args=args))
        if done:
            rev = str(int(raw.get("leave_rev") or 0) + 1)
            return {**raw, **changes, "leave_rev": rev}
    raise Problem(409, "leave-busy", "the leave changed meanwhile; please retry", field="days")


def _run(pipe: Any, *, key: str, args: list[str]) -> None:
    pipe.execute_command("EVAL", _COMPARE_AND_SET, 1, key, *args)


# -- telling the opponents ----------------------------------------------------------------------


def _tell_opponents(store: Store, player: Mapping[str, Any], raw: Mapping[str, Any]) -> None:
    """One ``game.opponent_on_leave`` notice per other seat in each of the player's active
    games (the job id holds the leave's start: told once per leave, however often retried)."""
    jobs = [
        _notice(game["id"], int(game["version"]), seat, player, raw)
        for game in active_games(store, player["id"])
        for seat, other in enumerate(game["seats"])
        if other and other != player["id"] and not _is_bot(game, seat)
    ]
    if not jobs:
        return
    with store.raw.pipeline() as pipe:
        for job in jobs:
            owed.owe(pipe, job, store.queue_raw)
        pipe.execute()


def active_games(store: Store, player_id: str) -> list[dict[str, Any]]:
    """The summaries of the player's games in play."""
    ids = [game_id for game_id, _seq in store.indexes.player_games(player_id, None)]
    found = store.indexes.game_summaries(ids)
    return [game for game in found if game is not None and game["status"] == "active"]


def _is_bot(game: Mapping[str, Any], seat: int) -> bool:
    return str(seat) in ((game.get("seating") or {}).get("bots") or {})


def _notice(
    game_id: str, version: int, seat: int, player: Mapping[str, Any], raw: Mapping[str, Any]
) -> OwedJob:
    start = int(float(raw["leave_from"]))
    data = {
        "player": player["name"],
        "until": float(raw["leave_until"]),
        "days": int(raw["leave_days"]),
    }
    return notice_job(
        f"leave-{player['id']}-{start}-{game_id}-{seat}",
        NOTIFY_JOB,
        (game_id, version, LEAVE_NOTICE, seat, data),
        f"{LEAVE_NOTICE} {game_id} seat {seat}",
    )


def on_leave(store: Store, player_ids: list[str], now: float | None = None) -> dict[str, float]:
    """Of ``player_ids``, those on leave at ``now``: id -> the leave's end (the game page's
    line)."""
    moment = time.time() if now is None else now
    with store.r.pipeline(transaction=False) as pipe:
        for player_id in player_ids:
            pipe.hmget(player_key(player_id), ["leave_from", "leave_until"])
        rows = pipe.execute()
    out = {}
    for player_id, (start, until) in zip(player_ids, rows, strict=True):
        raw = {"leave_from": start, "leave_until": until}
        current = running(raw, moment)
        if current is not None:
            out[player_id] = current["until"]
    return out
