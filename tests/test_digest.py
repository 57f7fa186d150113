"""Fewer mails, by the player's choice (service/domain/prefs.py, service/domain/mailbag.py): a
daily digest
and quiet hours hold mail notices in the seat's mailbag; webhooks are never held; a turn with
a deadline is still told before the deadline passes. Real Redis, worker, SMTP sink and
webhook receiver.

Nothing here waits hours: the quiet hours are 22:00-07:00 in a zone whose local time is 02:xx
now, whenever the test runs; a held job's time is read from the owed index and rq's scheduled
registry, then the job is moved to its queue for the worker to run at once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from rq.registry import ScheduledJobRegistry

from service.common.problems import Problem
from service.domain import mailbag, prefs
from service.store import Store, owed
from service.store.queues import MAILBAG_JOB, NOTIFY_QUEUE, queue
from tests.client import Kurier, Player
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import HookSink, wait_for

QUIET = {"start": "22:00", "end": "07:00"}


def _zone_at_two() -> str:
    """An Etc/GMT zone whose local hour is 2 now: 4-5 h inside the quiet hours, either way."""
    for offset in range(-14, 13):
        name = f"Etc/GMT{offset:+d}" if offset else "Etc/GMT"
        if datetime.now(ZoneInfo(name)).hour == 2:
            return name
    raise AssertionError("some whole-hour zone has 02:xx now")


def _next_local(zone: str, hour: int) -> float:
    """The next local ``hour``:00 in ``zone`` (computed apart from service/domain/prefs.py)."""
    local = datetime.now(ZoneInfo(zone))
    at = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    return (at if at > local else at + timedelta(days=1)).timestamp()


@pytest.fixture(scope="module")
def stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


@pytest.fixture
def hooks() -> Iterator[HookSink]:
    sink = HookSink().start()
    yield sink
    sink.stop()


def _store(stack: NotifyStack) -> Store:
    assert stack.store is not None
    return stack.store


def _bag_jobs(stack: NotifyStack, game_id: str, seat: int) -> list[owed.OwedJob]:
    jobs = owed.owed_jobs(_store(stack).queue_raw, MAILBAG_JOB)
    return [j for j in jobs if tuple(j.args) == (game_id, seat)]


def _scheduled_at(stack: NotifyStack, job_id: str) -> float | None:
    registry = ScheduledJobRegistry(queue=queue(_store(stack).queue_raw, NOTIFY_QUEUE))
    return registry.connection.zscore(registry.key, job_id)


def _run_now(stack: NotifyStack, job_id: str) -> None:
    """What the scheduler does at the job's time, now: the worker runs it."""
    ScheduledJobRegistry(queue=queue(_store(stack).queue_raw, NOTIFY_QUEUE)).requeue(job_id)


def _mails(stack: NotifyStack, address: str) -> list[EmailMessage]:
    """The mails to ``address`` that fewer-mails settings may hold: all but the creator's
    "every seat is taken", which goes at once (and only if the job runs before the start)."""
    return [m for m in stack.smtp.to(address) if "-seats_filled-" not in str(m["Message-ID"])]


def _plain(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return part.get_content().replace("\r\n", "\n")


def _seat_of(k: Kurier, game_id: str, player: Player) -> int:
    return int(k.view(game_id, player)["your_seat"])


# -- the preferences --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"digest": "weekly"}, "digest"),
        ({"digest_hour": 24}, "digest_hour"),
        ({"digest_hour": "8"}, "digest_hour"),
        ({"quiet_hours": {"start": "22:00"}}, "quiet_hours"),
        ({"quiet_hours": {"start": "24:00", "end": "07:00"}}, "quiet_hours"),
        ({"quiet_hours": {"start": "7:00", "end": "08:00"}}, "quiet_hours"),
        ({"quiet_hours": {"start": "22:00", "end": "22:00"}}, "quiet_hours"),
        ({"quiet_hours": {"start": "22:00", "end": "07:00", "days": 5}}, "quiet_hours"),
        ({"quiet_hours": "22:00-07:00"}, "quiet_hours"),
    ],
)
def test_bad_values_are_refused_naming_the_field(
    kurier: Kurier, body: dict[str, Any], field: str
) -> None:
    player = kurier.new_player("Prefs")
    r = kurier.call("PATCH", "/v1/me", player, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert field in r.json()["errors"]["json"], r.json()
    assert kurier.call("GET", "/v1/me", player).json()["quiet_hours"] is None


def test_preferences_round_trip_and_clear(kurier: Kurier) -> None:
    player = kurier.new_player("Prefs")
    me = kurier.call("GET", "/v1/me", player).json()
    assert (me["digest"], me["digest_hour"], me["quiet_hours"]) == ("off", 8, None)
    body = {"digest": "daily", "digest_hour": 19, "quiet_hours": QUIET}
    me = kurier.call("PATCH", "/v1/me", player, json=body).json()
    assert (me["digest"], me["digest_hour"], me["quiet_hours"]) == ("daily", 19, QUIET)
    me = kurier.call("PATCH", "/v1/me", player, json={"quiet_hours": None}).json()
    assert me["quiet_hours"] is None and me["digest"] == "daily"


def test_the_service_checks_what_the_settings_page_sends(store: Store) -> None:
    player, _ = store.players.create("Page", None)
    for data, field in (
        ({"digest": "hourly"}, "digest"),
        ({"digest_hour": -1}, "digest_hour"),
        ({"quiet_hours": {"start": "22:00", "end": "7:00\n"}}, "quiet_hours"),
    ):
        with pytest.raises(Problem) as refused:
            prefs.apply(store, player["id"], data)
        assert refused.value.code == 422 and refused.value.extra["field"] == field


def test_when_held_notices_go_out() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    late = datetime(2026, 3, 28, 23, 30, tzinfo=berlin).timestamp()  # the night summer time starts
    quiet = {"timezone": "Europe/Berlin", "quiet_start": "22:00", "quiet_end": "07:00"}
    assert prefs.held_until(quiet, late) == datetime(2026, 3, 29, 7, tzinfo=berlin).timestamp()
    noon = datetime(2026, 3, 28, 12, tzinfo=berlin).timestamp()
    assert prefs.held_until(quiet, noon) is None
    digest = {"timezone": "Europe/Berlin", "digest": "daily", "digest_hour": "8"}
    assert prefs.held_until(digest, noon) == datetime(2026, 3, 29, 8, tzinfo=berlin).timestamp()
    # A digest hour inside the quiet hours waits for their end.
    both = {**digest, "quiet_start": "06:00", "quiet_end": "09:30"}
    assert prefs.held_until(both, noon) == datetime(2026, 3, 29, 9, 30, tzinfo=berlin).timestamp()
    # A turn: no later than the reminder, or with three quarters of the time left.
    due = late + 6 * 3600
    assert mailbag.send_time(quiet, late, True, due, {"remind_before_hours": 2}) == due - 7200
    assert mailbag.send_time(quiet, late, True, due, {}) == late + 1.5 * 3600
    assert mailbag.send_time(quiet, late, False, due, {}) == prefs.held_until(quiet, late)
    # A reminder falls due at its time: it goes out at once (None: not held).
    assert mailbag.send_time(quiet, due - 7200, True, due, {"remind_before_hours": 2}) is None


# -- end to end -------------------------------------------------------------------------------


def test_quiet_hours_hold_mail_until_they_end_and_never_webhooks(
    stack: NotifyStack, hooks: HookSink
) -> None:
    k = stack.client
    zone = _zone_at_two()
    quiet, _ = stack.player(
        "Q", email="q@mail.test", timezone=zone, quiet_hours=QUIET, webhook_url=hooks.url
    )
    awake, _ = stack.player("W", email="w@mail.test")
    game_id = stack.game([quiet, awake], seed="quiet-1")
    seat = _seat_of(k, game_id, quiet)
    # The other player's mail and the quiet player's webhook go out at once...
    wait_for(lambda: _mails(stack, "w@mail.test"), 20, "the awake player's mail")
    # (The creator may hear "every seat is taken" first: whether the worker reads that notice
    # before `stack.game` starts the game is a race.)
    wait_for(
        lambda: "game.started" in {json.loads(h.body)["type"] for h in hooks.calls},
        20,
        "the quiet player's game-started webhook",
    )
    # ...the quiet player's mail waits for 07:00 in their zone, in one job.
    wait_for(lambda: _bag_jobs(stack, game_id, seat), 20, "the held job")
    time.sleep(1)
    assert _mails(stack, "q@mail.test") == []
    jobs = _bag_jobs(stack, game_id, seat)
    end = _next_local(zone, 7)
    assert [j.at for j in jobs] == [end], (jobs, end)
    assert _scheduled_at(stack, jobs[0].id) == end
    assert mailbag.contents(_store(stack), game_id, seat)[0][1]["kind"] == "game.started"
    # 07:00 comes: one mail with what waited, and the bag is empty.
    _run_now(stack, jobs[0].id)
    mails = wait_for(lambda: _mails(stack, "q@mail.test"), 20, "the mail after quiet hours")
    time.sleep(1)
    assert len(_mails(stack, "q@mail.test")) == 1
    assert "started" in _plain(mails[0]).lower()
    assert mailbag.contents(_store(stack), game_id, seat) == []


def test_the_digest_sends_everything_once_at_its_hour(stack: NotifyStack) -> None:
    k = stack.client
    zone = _zone_at_two()
    reader, _ = stack.player(
        "D", email="d@mail.test", timezone=zone, digest="daily", digest_hour=18
    )
    talker, _ = stack.player("T")
    game_id = stack.game([reader, talker], seed="digest-1")
    seat = _seat_of(k, game_id, reader)
    lines = ("first line", "second line", "third line")
    for text in lines:
        r = k.call("POST", f"/v1/games/{game_id}/messages", talker, json={"text": text})
        assert r.status_code == 201, r.text
    wait_for(
        lambda: len(mailbag.contents(_store(stack), game_id, seat)) >= 1 + len(lines),
        20,
        "the notices in the bag",
    )
    time.sleep(1)
    assert _mails(stack, "d@mail.test") == []
    jobs = _bag_jobs(stack, game_id, seat)
    at = _next_local(zone, 18)
    assert [j.at for j in jobs] == [at], (jobs, at)  # every notice names the same job
    assert _scheduled_at(stack, jobs[0].id) == at
    _run_now(stack, jobs[0].id)
    mail = wait_for(lambda: _mails(stack, "d@mail.test"), 20, "the digest")[0]
    text = _plain(mail)
    positions = [text.index(line) for line in lines]
    assert positions == sorted(positions), text  # in the order they were written
    time.sleep(1.5)
    assert len(_mails(stack, "d@mail.test")) == 1
    # Settled by the job's success callback, a moment after the mail: nothing left owed.
    wait_for(lambda: _bag_jobs(stack, game_id, seat) == [], 20, "the digest job settled")


def test_a_deadline_inside_quiet_hours_is_told_before_it_passes(stack: NotifyStack) -> None:
    k = stack.client
    zone = _zone_at_two()
    players = [
        stack.player(name, email=f"{name.lower()}@mail.test", timezone=zone, quiet_hours=QUIET)[0]
        for name in ("DA", "DB")
    ]
    # 14.4 s to move, reminder 7.2 s before: the deadline passes hours before 07:00.
    deadline = {"hours": 0.004, "remind_before_hours": 0.002, "policy": "default_move"}
    game_id = stack.game(players, deadline, seed="quiet-deadline-1")
    view = k.view(game_id, players[0])
    mover = view["waiting_for"][0]["seat"]
    due = view["deadline_at"]
    assert due is not None and due < _next_local(zone, 7)
    address = [f"{name.lower()}@mail.test" for name in ("DA", "DB")]
    idle = 1 - mover
    # The seat asked to move is told by the reminder time; the other waits for 07:00.
    wait_for(lambda: _bag_jobs(stack, game_id, idle), 20, "the idle seat's held job")
    assert [j.at for j in _bag_jobs(stack, game_id, idle)] == [_next_local(zone, 7)]
    turn = wait_for(
        lambda: [m for m in _mails(stack, address[mover]) if "your turn" in m["Subject"]],
        20,
        "the turn mail",
    )
    told_at = time.time()
    assert told_at < due, f"told {told_at - due:.1f} s after the deadline"
    assert told_at > due - 0.002 * 3600 - 3  # held until about the reminder time, not sent at once
    assert "your turn" in turn[0]["Subject"]
    assert _mails(stack, address[idle]) == []
    stack.end_game(game_id, players[0])  # its deadlines would go on firing on the shared stack
