"""A time-bank game's clocks at a commit and when its deadline jobs fire: what
service/domain/clocks.py computes, fed with each player's time zone and absence.

``away`` is the one question asked about a player's absence: today a vacation
(``prefs.on_vacation``); leave plugs in there.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any
from zoneinfo import ZoneInfo

from engine.core import SYSTEM
from service.domain import clocks, prefs
from service.store import Store
from service.store.record import Change, GameRecord


def away(raw: dict[str, Any], now: float) -> float | None:
    """When the player's absence ends, if they are away at ``now`` (None: present)."""
    return prefs.on_vacation(raw, now)


def zone(raw: dict[str, Any]) -> ZoneInfo:
    return prefs.zone(raw)


def clock_seats(record: GameRecord, decisions: Iterable[dict[str, Any]]) -> list[int]:
    """The seats of ``decisions`` whose clock runs: people's, not the server's nor a bot's."""
    seats = {
        d["seat"] for d in decisions if d["seat"] != SYSTEM and not record.bot_level(d["seat"])
    }
    return sorted(seats)


def seat_facts(
    store: Store, record: GameRecord, seats: Iterable[int], now: float
) -> dict[int, clocks.Seat]:
    facts = {}
    for seat in seats:
        raw = store.players.hash(record.seats[seat])
        facts[seat] = clocks.Seat(zone(raw), away(raw, now))
    return facts


def settle(
    store: Store, record: GameRecord, before: list[dict[str, Any]], change: Change
) -> dict[int, float]:
    """Charge and credit the banks of ``record`` for ``change`` (in the record, so in the
    commit); when each seat whose clock now runs reaches zero."""
    now = time.time()
    state = record.seating.setdefault("banks", {})
    # A seat whose clock ran stops being charged at this change, even when the change hands
    # it to a bot (the policy ``bot``).
    was = sorted(set(clock_seats(record, before)) | {int(s) for s in state.get("running", {})})
    running = clock_seats(record, record.pending) if record.status == "active" else []
    # Credited once a turn: when the game stops waiting for the seat that moved.
    handed_over = change.seat not in running
    moved = change.seat if handed_over and _moved_in_seat(record, change, was) else None
    facts = seat_facts(store, record, set(was) | set(running), now)
    dues = clocks.settle_banks(
        clocks.Bank.of(record.deadline), state, was, running, moved, now, facts, change.returned
    )
    for seat in set(dues) & set(record.late_turns()):
        # The rest of a turn late at zero falls due at once, weekend or absence or not.
        dues[seat] = state["dues"][str(seat)] = now
    return dues


def _moved_in_seat(record: GameRecord, change: Change, was: list[int]) -> bool:
    """Whether the change is a move or sealed choice made in a seat on the clock: by its
    player, or by the game's policy at the deadline (the default move, a skip, a sealed
    pass). Each earns ``per_move`` (as in correspondence chess), so a bank at zero is not out
    of time again the moment the seat's next turn starts. A bot's move earns nothing: a seat
    a bot holds runs no clock."""
    return (
        change.seat is not None
        and change.seat in was
        and change.entry_kind in ("move", "sealed")
        and not record.bot_level(change.seat)
    )
