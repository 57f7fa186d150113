"""Time banks: a game's clock as pure arithmetic (no Redis, no wall clock read here).

A game whose deadline settings hold ``clock: {"kind": "bank", ...}`` gives each seat a bank
of time: it starts at ``initial_days``, loses the time its player takes on their own
decisions, gains ``per_move_days`` after each of their turns (a move or several that end with
the game no longer waiting for them, or a sealed choice; made by the player or, at zero, by
the game's policy), and never
holds more than ``max_days`` nor less than nothing. With ``weekend_pause``, time on
Saturday and Sunday in the player's own time zone (their ``timezone`` preference) does not
count.

The banks' state is part of the game record, ``record.seating["banks"]``: ``left`` (seat ->
seconds left when its clock last stopped or started), ``running`` (seat -> when its running
stretch began), ``dues`` (seat -> when that stretch reaches zero) and ``zones`` (the zone
each running one counts weekends in). ``settle_banks`` updates it in the same commit as the
change (service/domain/timebanks.py, called by service/domain/notifications.py). Each
pending player is charged their own time: a sealed step's players each run their own clock
until they answer. At zero the policy makes the rest of the seat's turn at once, as one missed
deadline (service/domain/games/play.py ``apply_timeout``), or a bot holds the seat; a player who
acts again in the middle of that turn has ``per_move_days`` for its rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

DAY = 86_400.0
SATURDAY = 5

#: When a player's absence (vacation, leave) ends if it runs at ``now`` (None: present).
#: Today ``prefs.on_vacation``; leave plugs in here.
Away = Callable[[dict[str, Any], float], float | None]


@dataclass(frozen=True)
class Bank:
    """A bank's rules, in seconds."""

    initial: float
    per_move: float
    cap: float
    weekend_pause: bool = False

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> Bank:
        """The bank of a game's deadline settings (their ``clock``)."""
        clock = settings["clock"]
        return cls(
            initial=float(clock["initial_days"]) * DAY,
            per_move=float(clock["per_move_days"]) * DAY,
            cap=float(clock["max_days"]) * DAY,
            weekend_pause=bool(clock.get("weekend_pause", False)),
        )


def is_bank(settings: Mapping[str, Any] | None) -> bool:
    """Whether a game's deadline settings run a time bank."""
    clock = (settings or {}).get("clock")
    return isinstance(clock, Mapping) and clock.get("kind") == "bank"


def charge(left: float, taken: float) -> float:
    """What is left of a bank after ``taken`` counted seconds: never below zero."""
    return max(0.0, left - max(0.0, taken))


def credit(left: float, bank: Bank) -> float:
    """A bank after its player's move: ``per_move`` more, never above the cap."""
    return min(bank.cap, max(0.0, left) + bank.per_move)


# -- weekend pause --------------------------------------------------------------------------------


def _local_midnight(day: date, zone: ZoneInfo) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()


def weekend_around(when: float, zone: ZoneInfo) -> tuple[float, float]:
    """The weekend (local Saturday 00:00 to Monday 00:00, as Unix times) that holds ``when``,
    or else the next one."""
    local = datetime.fromtimestamp(when, zone).date()
    weekday = local.weekday()
    if weekday >= SATURDAY:
        saturday = local - timedelta(days=weekday - SATURDAY)
    else:
        saturday = local + timedelta(days=SATURDAY - weekday)
    start = _local_midnight(saturday, zone)
    end = _local_midnight(saturday + timedelta(days=2), zone)
    return start, end


def _weekends(start: float, zone: ZoneInfo) -> Iterable[tuple[float, float]]:
    """The weekends from the one holding (or following) ``start`` on, in order."""
    window = weekend_around(start, zone)
    while True:
        yield window
        window = weekend_around(window[1] + 1, zone)


def counted(start: float, end: float, zone: ZoneInfo, weekend_pause: bool) -> float:
    """The seconds from ``start`` to ``end`` that a bank is charged (weekends left out when
    paused)."""
    if end <= start:
        return 0.0
    total = end - start
    if not weekend_pause:
        return total
    for weekend_start, weekend_end in _weekends(start, zone):
        if weekend_start >= end:
            break
        total -= max(0.0, min(end, weekend_end) - max(start, weekend_start))
    return max(0.0, total)


def runs_out(start: float, left: float, zone: ZoneInfo, weekend_pause: bool) -> float:
    """When a bank of ``left`` seconds running from ``start`` reaches zero."""
    if not weekend_pause:
        return start + max(0.0, left)
    at, remaining = start, max(0.0, left)
    for weekend_start, weekend_end in _weekends(start, zone):
        if at >= weekend_start:  # inside the weekend: the clock waits for its end
            at = weekend_end
            continue
        if at + remaining <= weekend_start:
            return at + remaining
        remaining -= weekend_start - at
        at = weekend_end
    raise AssertionError("unreachable")  # pragma: no cover


# -- a commit's banks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """What a commit knows of one human seat for its clock."""

    zone: ZoneInfo
    away_until: float | None


def settle_banks(
    bank: Bank,
    state: dict[str, Any],
    before: Iterable[int],
    after: Iterable[int],
    moved: int | None,
    now: float,
    seats: Mapping[int, Seat],
    returned: int | None = None,
) -> dict[int, float]:
    """Charge and credit the banks for a change made at ``now`` (in place, in ``state``);
    return when each seat pending ``after`` runs out.

    ``before``, ``after``: the human seats pending before and after the change; ``moved``: the
    seat whose turn the change ended with a move or sealed choice (its player's, or the
    policy's at the deadline; credited ``per_move``), if any; ``returned``: the seat whose
    player took their turn back from the game's policy at zero (a bot held the seat, or the
    policy was making the rest of the turn): if that turn goes on, its rest gets ``per_move``
    (credited once: a turn it ends earns its credit as ``moved``). A seat away at ``now`` is
    charged nothing for its stretch, and its clock starts again when it is back."""
    after = list(after)
    banks: dict[str, float] = state.setdefault("left", {})
    running: dict[str, float] = state.setdefault("running", {})
    for seat in before:
        key = str(seat)
        since = running.pop(key, None)
        left = banks.get(key, bank.initial)
        info = seats.get(seat)
        if since is not None and info is not None and info.away_until is None:
            left = charge(left, counted(since, now, info.zone, bank.weekend_pause))
        banks[key] = left
    if moved is not None:
        banks[str(moved)] = credit(banks.get(str(moved), bank.initial), bank)
    if returned is not None and returned != moved and returned in after:
        banks[str(returned)] = credit(banks.get(str(returned), bank.initial), bank)
    running.clear()  # only the seats pending ``after`` run now
    dues: dict[int, float] = {}
    zones: dict[str, str] = {}
    for seat in after:
        key = str(seat)
        info = seats.get(seat) or Seat(ZoneInfo("UTC"), None)
        start = max(now, info.away_until or now)
        running[key] = start
        left = banks.setdefault(key, bank.initial)
        dues[seat] = runs_out(start, left, info.zone, bank.weekend_pause)
        zones[key] = info.zone.key
    state["dues"] = {str(seat): due for seat, due in dues.items()}
    state["zones"] = zones
    return dues


def left_now(
    bank: Bank, state: Mapping[str, Any], seat: int, now: float, zone: ZoneInfo | None = None
) -> float:
    """What ``seat``'s bank holds at ``now``: its stored value, less its running stretch
    (weekends counted in ``zone``, else in the zone the stretch started in)."""
    left = float(state.get("left", {}).get(str(seat), bank.initial))
    since = state.get("running", {}).get(str(seat))
    if since is None:
        return left
    zone = zone or ZoneInfo(state.get("zones", {}).get(str(seat), "UTC"))
    return charge(left, counted(float(since), now, zone, bank.weekend_pause))


def seat_banks(
    settings: Mapping[str, Any], state: Mapping[str, Any], seats: int, active: bool, now: float
) -> list[dict[str, Any]] | None:
    """Each seat's bank as the views show it (None: no time bank): what it holds at ``now``;
    for a running one when it reaches zero (the weekend pause and the player's zone in that
    time already) and until when it counts down from ``now`` (a weekend's start, or ``now``
    inside one; None: until zero), so that a page counts it down without asking again."""
    if not is_bank(settings):
        return None
    bank = Bank.of(settings)
    if not active:
        state = {**state, "running": {}, "dues": {}}
    running = state.get("running", {})
    return [
        {
            "seat": seat,
            "seconds_left": round(left_now(bank, state, seat, now), 3),
            "running": str(seat) in running,
            "runs_out_at": state.get("dues", {}).get(str(seat)),
            "counts_until": _counts_until(bank, state, seat, now),
        }
        for seat in range(seats)
    ]


def _counts_until(bank: Bank, state: Mapping[str, Any], seat: int, now: float) -> float | None:
    if not bank.weekend_pause or str(seat) not in state.get("running", {}):
        return None
    zone = ZoneInfo(state.get("zones", {}).get(str(seat), "UTC"))
    weekend_start, _end = weekend_around(now, zone)
    return max(now, weekend_start)
