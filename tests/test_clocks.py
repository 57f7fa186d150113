"""Time banks as pure arithmetic (service/domain/clocks.py), property-tested: a bank never
above its cap nor below zero, weekends in each player's zone (DST changes included) left out,
and the players of a sealed step each charged their own time."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain import clocks

ZONES = [
    "UTC",
    "Europe/Berlin",  # DST changes on Sunday mornings (inside the weekend)
    "America/New_York",
    "Australia/Lord_Howe",  # a half-hour DST change
    "America/Santiago",  # DST changes at local midnight, the weekend's edge
    "Asia/Kathmandu",
    "Pacific/Kiritimati",
]
DAY = clocks.DAY
# 2024-01-01 to 2027-01-01: several DST changes of every zone above.
moments = st.floats(min_value=1_704_067_200, max_value=1_798_761_600)
zones = st.sampled_from(ZONES).map(ZoneInfo)
spans = st.floats(min_value=0, max_value=60 * DAY)


@st.composite
def banks(draw: st.DrawFn) -> clocks.Bank:
    initial = draw(st.floats(min_value=0.01, max_value=60))
    cap = draw(st.floats(min_value=initial, max_value=120))
    per_move = draw(st.floats(min_value=0, max_value=30))
    return clocks.Bank(initial * DAY, per_move * DAY, cap * DAY, draw(st.booleans()))


@given(banks(), st.lists(st.tuples(spans, st.booleans()), max_size=40))
def test_a_bank_stays_between_zero_and_its_cap(bank: clocks.Bank, steps: list) -> None:
    left = bank.initial
    for taken, moved in steps:
        left = clocks.charge(left, taken)
        assert 0 <= left <= bank.cap
        if moved:
            left = clocks.credit(left, bank)
            assert 0 <= left <= bank.cap


@given(moments, spans, zones)
def test_without_pause_every_second_counts(start: float, span: float, zone: ZoneInfo) -> None:
    assert abs(clocks.counted(start, start + span, zone, False) - span) < 1e-3
    assert clocks.runs_out(start, span, zone, False) == start + span


def _local(when: float, zone: ZoneInfo) -> datetime:
    return datetime.fromtimestamp(when, zone)


@settings(deadline=None)
@given(moments, zones)
def test_a_weekend_runs_from_local_saturday_to_local_monday(when: float, zone: ZoneInfo) -> None:
    start, end = clocks.weekend_around(when, zone)
    assert end > when
    assert _local(start, zone).weekday() == 5 and _local(end, zone).weekday() == 0
    assert (_local(start, zone).hour, _local(end, zone).hour) in ((0, 0), (1, 0), (0, 1), (1, 1))
    # Two days, give or take a DST change (Lord Howe's is half an hour).
    assert abs((end - start) - 2 * DAY) <= 3600


@settings(max_examples=300, deadline=None)
@given(moments, spans, zones)
def test_weekend_time_does_not_count(start: float, span: float, zone: ZoneInfo) -> None:
    end = start + span
    paused = clocks.counted(start, end, zone, True)
    assert 0 <= paused <= span + 1e-3
    # Sampled each hour (offset within the hour): the counted share is the weekday share.
    step = 3600.0
    samples = [start + step / 2 + i * step for i in range(int(span // step))]
    weekdays = sum(1 for t in samples if _local(t, zone).weekday() < 5)
    assert abs(paused - weekdays * step) <= 2 * step + 3600  # the sample's edges, a DST hour


@settings(max_examples=300, deadline=None)
@given(moments, spans, zones)
def test_runs_out_is_when_the_counted_time_reaches_the_bank(
    start: float, left: float, zone: ZoneInfo
) -> None:
    due = clocks.runs_out(start, left, zone, True)
    assert due >= start + left - 1e-3
    assert abs(clocks.counted(start, due, zone, True) - left) < 1e-3
    # It runs out on a weekday (its last counted moment is one).
    assert _local(due - min(left, 0.5) / 2, zone).weekday() < 5 or left == 0
    # and not later than needed: a second earlier, less than the bank had counted
    if left >= 1:
        assert clocks.counted(start, due - 1, zone, True) < left


def test_a_weekend_across_berlins_spring_change_is_47_hours() -> None:
    zone = ZoneInfo("Europe/Berlin")
    friday_noon = datetime(2026, 3, 27, 12, tzinfo=zone).timestamp()
    monday_noon = datetime(2026, 3, 30, 12, tzinfo=zone).timestamp()
    assert monday_noon - friday_noon == 71 * 3600  # the Sunday lost an hour
    assert clocks.counted(friday_noon, monday_noon, zone, True) == 24 * 3600
    assert clocks.runs_out(friday_noon, 13 * 3600, zone, True) == (
        datetime(2026, 3, 30, 1, tzinfo=zone).timestamp()
    )


def test_the_same_moment_is_a_weekday_in_one_zone_and_weekend_in_another() -> None:
    # Monday 2026-11-30 05:00 in Kiritimati (UTC+14) is Sunday 15:00 UTC and Sunday 07:00 in LA.
    start = datetime(2026, 11, 29, 15, tzinfo=ZoneInfo("UTC")).timestamp()
    hour_later = start + 3600
    assert clocks.counted(start, hour_later, ZoneInfo("Pacific/Kiritimati"), True) == 3600
    assert clocks.counted(start, hour_later, ZoneInfo("America/Los_Angeles"), True) == 0


SETTINGS = {"clock": {"kind": "bank", "initial_days": 3, "per_move_days": 1, "max_days": 5}}
BANK = clocks.Bank.of(SETTINGS)


def _seats(*numbers: int) -> dict[int, clocks.Seat]:
    return {n: clocks.Seat(ZoneInfo("UTC"), None) for n in numbers}


def test_a_sealed_step_charges_each_pending_player_their_own_time() -> None:
    state: dict = {}
    t0 = 1_800_000_000.0
    dues = clocks.settle_banks(BANK, state, [], [0, 1, 2], None, t0, _seats(0, 1, 2))
    assert dues == {0: t0 + 3 * DAY, 1: t0 + 3 * DAY, 2: t0 + 3 * DAY}
    # Seat 1 answers after a day: charged a day, credited one; 0 and 2 keep running.
    dues = clocks.settle_banks(BANK, state, [0, 1, 2], [0, 2], 1, t0 + DAY, _seats(0, 1, 2))
    assert state["left"] == {"0": 2 * DAY, "1": 3 * DAY, "2": 2 * DAY}
    assert dues == {0: t0 + 3 * DAY, 2: t0 + 3 * DAY}  # their own runs out as before
    # Seat 2 answers half a day later; seat 0's clock still runs.
    clocks.settle_banks(BANK, state, [0, 2], [0], 2, t0 + 1.5 * DAY, _seats(0, 1, 2))
    assert state["left"] == {"0": 1.5 * DAY, "1": 3 * DAY, "2": 2.5 * DAY}
    now = t0 + 2 * DAY
    assert clocks.left_now(BANK, state, 0, now) == DAY
    assert clocks.left_now(BANK, state, 1, now) == 3 * DAY


def test_an_away_player_is_charged_nothing_and_starts_again_when_back() -> None:
    state: dict = {}
    t0 = 1_800_000_000.0
    clocks.settle_banks(BANK, state, [], [0], None, t0, _seats(0))
    away = {0: clocks.Seat(ZoneInfo("UTC"), t0 + 10 * DAY)}
    dues = clocks.settle_banks(BANK, state, [0], [0], None, t0 + DAY, away)
    assert state["left"]["0"] == 3 * DAY
    assert dues == {0: t0 + 13 * DAY}


def test_a_seat_taken_back_at_zero_gets_per_move_once_for_the_rest_of_its_turn() -> None:
    """Its player acts again in a turn the policy held at zero: if the turn goes on, its rest
    has ``per_move``; if that move ended it, the turn's own credit is the only one."""
    t0 = 1_800_000_000.0
    goes_on: dict = {"left": {"0": 0.0}, "running": {}}
    dues = clocks.settle_banks(BANK, goes_on, [0], [0], None, t0, _seats(0, 1), returned=0)
    assert goes_on["left"]["0"] == BANK.per_move and dues == {0: t0 + BANK.per_move}
    ended: dict = {"left": {"0": 0.0}, "running": {}}
    clocks.settle_banks(BANK, ended, [0], [1], 0, t0, _seats(0, 1), returned=0)
    assert ended["left"]["0"] == BANK.per_move


@settings(deadline=None)
@given(
    banks(),
    st.lists(
        st.tuples(st.floats(min_value=0, max_value=10 * DAY), st.sets(st.integers(0, 3))),
        max_size=30,
    ),
    zones,
)
def test_banks_stay_in_bounds_through_any_sequence_of_commits(
    bank: clocks.Bank, steps: list, zone: ZoneInfo
) -> None:
    state: dict = {}
    seats = {n: clocks.Seat(zone, None) for n in range(4)}
    now, pending = 1_800_000_000.0, [0]
    clocks.settle_banks(bank, state, [], pending, None, now, seats)
    for elapsed, after in steps:
        now += elapsed
        moved = pending[0] if pending else None
        dues = clocks.settle_banks(bank, state, pending, sorted(after), moved, now, seats)
        pending = sorted(after)
        assert set(dues) == set(pending)
        for left in state["left"].values():
            assert 0 <= left <= max(bank.cap, bank.initial) + 1e-6
        assert all(due >= now for due in dues.values())


class _Table:
    """A game's answers as ``play._timeout_action`` asks them: its legal notations in order
    and its default (the engine's own ``default_action`` is tested with each engine)."""

    def __init__(self, legal: list[str], default: str) -> None:
        self.legal, self.default = legal, default

    def legal_actions(self, _state: object, _seat: int) -> list[str]:
        return self.legal

    def notation(self, action: str) -> str:
        return action

    def default_action(self, _state: object, _seat: int, _kind: str) -> str:
        return self.default


def test_skip_plays_a_pass_else_the_turns_end_else_the_default() -> None:
    from service.domain.games.play import _timeout_action

    def chosen(legal: list[str], policy: str = "skip", kind: str = "move") -> str:
        return _timeout_action(_Table(legal, "inf"), None, 0, kind, policy)  # a stand-in game

    assert chosen(["inf", "end", "pass"]) == "pass"
    assert chosen(["inf", "V PAN", "end"]) == "end"
    assert chosen(["inf", "V PAN"]) == "inf"
    assert chosen(["inf", "end"], policy="default_move") == "inf"
    assert chosen(["pass", "commit VV"], kind="sealed") == "inf"  # sealed: the game's default
