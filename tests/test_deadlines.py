"""Deadlines end to end on the real stack (Redis, ``kurier worker`` with its scheduler,
aiosmtpd): a vacation pauses a player's deadline within the game's limit, and the
``remind_only`` policy logs the timeout, notifies and restarts the clock without a move.

Deadlines are a few seconds long and every wait is bounded. A deadline must never fire before
it is due, and at most a few seconds after. rq keeps scheduled times in whole seconds
(truncated) and its scheduler looks about once a second, so the games start early in a second
and their deadlines fall late in one: a job scheduled at its exact time would then mostly run
early, and these tests would see it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.store import queues
from tests.client import Player
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import wait_for

HOURS = 0.001  # 3.6 s for each decision
LATE = 5.0  # at most this late: scheduler tick, whole-second rounding, a busy worker


#: The games the current test started, each with one of its players (``ending_its_games``).
STARTED: list[tuple[str, Player]] = []


@contextmanager
def ending_its_games(stack: NotifyStack) -> Iterator[NotifyStack]:
    """``stack`` for one test of a module that shares it: the games the test started are
    ended after it (a player resigns), so no clock of theirs keeps restarting and delays the
    next test's jobs."""
    STARTED.clear()  # games a failed test of another module left
    yield stack
    while STARTED:
        stack.end_game(*STARTED.pop())


@pytest.fixture(scope="module")
def module_stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


@pytest.fixture
def stack(module_stack: NotifyStack) -> Iterator[NotifyStack]:
    with ending_its_games(module_stack) as s:
        yield s


def _early_in_a_second() -> None:
    """Wait until 0.2 s into a second: a game started now has its deadlines (whole seconds
    from now plus 0.6 s and the start's latency) about 0.85 s into a second."""
    time.sleep((1.2 - time.time() % 1) % 1)


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat()


def _job(stack: NotifyStack, job_id: str) -> Job:
    assert stack.store is not None
    return Job.fetch(job_id, connection=stack.store.raw, serializer=JSONSerializer)


def _runs(stack: NotifyStack, job_id: str) -> list[Any]:
    """What each execution of a job returned, oldest first (empty while it has not run)."""
    return [r.return_value for r in reversed(_job(stack, job_id).results())]


def _postponed(stack: NotifyStack, game_id: str, version: int) -> dict[str, float]:
    """The postponed deadline jobs of ``version`` still scheduled: id -> due time."""
    assert stack.store is not None
    queue = queues.queue(stack.store.raw, queues.DEADLINE_QUEUE)
    prefix = f"{queues.deadline_job_id(game_id, version)}-"
    ids = [i for i in ScheduledJobRegistry(queue=queue).get_job_ids() if i.startswith(prefix)]
    return {i: float(_job(stack, i).args[2]) for i in ids}


def _timeouts(stack: NotifyStack, game_id: str) -> list[dict[str, Any]]:
    """The log entries holding a ``timeout_applied`` event."""
    return [
        entry
        for entry in stack.client.all_events(game_id)
        if any(e["kind"] == "timeout_applied" for e in entry["events"])
    ]


def late_turn(stack: NotifyStack, game_id: str, seat: int) -> list[dict[str, Any]] | None:
    """The ``timeout_applied`` events of ``seat``'s first turn, once the other seat has moved
    after it (None before)."""
    entries = stack.client.all_events(game_id)
    others = [e for e in entries if e["seat"] == 1 - seat and e["kind"] == "move"]
    if not others:
        return None
    before = [e for e in entries if e["version"] < others[0]["version"]]
    return [
        event["data"]
        for entry in before
        for event in entry["events"]
        if event["kind"] == "timeout_applied" and event["data"]["seat"] == seat
    ]


def _mails(stack: NotifyStack, address: str, subject: str) -> list[Any]:
    return [m for m in stack.smtp.to(address) if subject in m["Subject"]]


def _game(
    stack: NotifyStack, name: str, deadline: dict[str, Any], seed: str
) -> tuple[str, list[Player], dict[str, Any]]:
    """A started 2-player game with ``deadline`` and players who have an email address."""
    seated = [stack.player(f"{name}{i}", email=f"{name.lower()}{i}@mail.test")[0] for i in range(2)]
    _early_in_a_second()
    game_id = stack.game(seated, deadline, seed=seed)
    STARTED.append((game_id, seated[0]))
    return game_id, seated, stack.client.view(game_id)


def _go_on_vacation(stack: NotifyStack, player: Player, until: float, due: float) -> None:
    r = stack.client.call("PATCH", "/v1/me", player, json={"vacation_until": _iso(until)})
    assert r.status_code == 200, r.text
    assert r.json()["vacation_until"] == pytest.approx(until, abs=1e-3)
    # In place well before the deadline's job can run, or the test would say nothing.
    assert time.time() < due - 1.5, "setting the vacation took too long"


def test_vacation_postpones_the_deadline_to_the_games_limit(stack: NotifyStack) -> None:
    limit_s = 6.0  # the game lets a vacation push a deadline back 6 s at most
    deadline = {"hours": HOURS, "policy": "default_move", "vacation_max_days": limit_s / 86_400}
    game_id, seated, view = _game(stack, "V", deadline, "vac-1")
    seat, version, first_due = view["waiting_for"][0]["seat"], view["version"], view["deadline_at"]
    _go_on_vacation(stack, seated[seat], time.time() + 86_400, first_due)  # far past the limit

    # The original deadline passes: its job postpones to the limit, nothing is played.
    original = queues.deadline_job_id(game_id, version)
    assert wait_for(lambda: _runs(stack, original), 3.6 + LATE, "the deadline job") == ["postponed"]
    assert _job(stack, original).started_at.replace(tzinfo=UTC).timestamp() >= first_due
    limit = first_due + limit_s
    postponed = _postponed(stack, game_id, version)
    assert list(postponed.values()) == [pytest.approx(limit, abs=1e-6)]
    view = stack.client.view(game_id)
    assert view["version"] == version and view["waiting_for"][0]["seat"] == seat
    assert not _timeouts(stack, game_id)
    assert view["deadline_at"] == first_due  # documented: the original time, not the postponed

    # At the limit the vacation no longer protects the move: the default is played, once.
    entry = wait_for(lambda: _timeouts(stack, game_id), limit_s + LATE, "the timeout")[0]
    assert entry["version"] == version + 1 and entry["kind"] == "move"
    assert entry["seat"] == seat and entry["action"]
    event = next(e for e in entry["events"] if e["kind"] == "timeout_applied")
    assert event["data"]["policy"] == "default_move" and event["data"]["seat"] == seat
    assert limit <= entry["at"] <= limit + LATE, (entry["at"] - first_due, limit_s)
    [postponed_id] = postponed
    assert wait_for(lambda: _runs(stack, postponed_id), 5, "the postponed job's result") == [
        "applied"
    ]
    # The rest of the seat's turn follows at once, as the same missed deadline.
    late = wait_for(lambda: late_turn(stack, game_id, seat), LATE + 10, "the rest of the turn")
    assert [t.get("same_turn", False) for t in late] == [False] + [True] * (len(late) - 1)
    mail = wait_for(
        lambda: _mails(stack, f"v{seat}@mail.test", "deadline passed"), 20, "the timeout mail"
    )[0]
    body = mail.get_body(("plain",))
    assert body is not None and f"the server played {entry['action']}" in body.get_content()


def test_vacation_ending_before_the_limit_gives_the_full_deadline_again(
    stack: NotifyStack,
) -> None:
    deadline = {"hours": HOURS, "policy": "default_move"}  # the default limit: 14 days
    game_id, seated, view = _game(stack, "W", deadline, "vac-2")
    assert view["deadline"]["vacation_max_days"] == 14
    seat, version, first_due = view["waiting_for"][0]["seat"], view["version"], view["deadline_at"]
    until = first_due + 3.4  # still away when the original deadline falls due
    _go_on_vacation(stack, seated[seat], until, first_due)

    original = queues.deadline_job_id(game_id, version)
    assert wait_for(lambda: _runs(stack, original), 3.6 + LATE, "the deadline job") == ["postponed"]
    new_due = until + HOURS * 3600  # the whole deadline again, from the vacation's end
    assert list(_postponed(stack, game_id, version).values()) == [pytest.approx(new_due, abs=1e-3)]
    assert stack.client.view(game_id)["version"] == version and not _timeouts(stack, game_id)

    entry = wait_for(lambda: _timeouts(stack, game_id), 7 + LATE, "the timeout")[0]
    assert entry["seat"] == seat and entry["kind"] == "move" and entry["action"]
    assert new_due <= entry["at"] <= new_due + LATE, (entry["at"] - first_due, until)


def test_remind_only_logs_the_timeout_notifies_and_restarts_the_clock(
    stack: NotifyStack,
) -> None:
    k = stack.client
    game_id, seated, before = _game(stack, "R", {"hours": HOURS, "policy": "remind_only"}, "rem-1")
    seat = before["waiting_for"][0]["seat"]
    player, address, other = seated[seat], f"r{seat}@mail.test", f"r{1 - seat}@mail.test"
    version, first_due = before["version"], before["deadline_at"]
    own_before = k.view(game_id, player)["view"]
    legal = f"/v1/games/{game_id}/legal-actions"
    legal_before = k.call("GET", legal, player).json()["actions"]
    assert not [e for e in k.all_events(game_id) if e["kind"] == "move"]

    entry = wait_for(lambda: _timeouts(stack, game_id), 3.6 + LATE, "the first timeout")[0]
    # Logged as a timeout, not a move: nothing was played.
    assert entry["kind"] == "timeout" and entry["version"] == version + 1
    assert entry["seat"] == seat and entry["action"] is None
    assert [e["kind"] for e in entry["events"]] == ["timeout_applied"]
    data = entry["events"][0]["data"]
    assert data["policy"] == "remind_only" and data["decision"] == "move"
    assert data["seat"] == seat and "action" not in data
    assert first_due <= entry["at"] <= first_due + LATE
    after = k.view(game_id)
    assert after["version"] == version + 1
    assert after["waiting_for"] == before["waiting_for"]
    assert k.view(game_id, player)["view"] == own_before  # same board, hand, scores
    assert k.call("GET", legal, player).json()["actions"] == legal_before
    assert not [e for e in k.all_events(game_id) if e["kind"] == "move"]

    # The clock restarted with the timeout's version.
    second_due = after["deadline_at"]
    assert second_due == pytest.approx(entry["at"] + HOURS * 3600, abs=0.5)

    # The player hears the deadline passed and nothing was played; the other player does not.
    mail = wait_for(lambda: _mails(stack, address, "deadline passed"), 20, "the timeout mail")[0]
    body = mail.get_body(("plain",))
    assert body is not None and "the server played no move" in body.get_content()

    # It fires again at the new deadline, still without a move, and tells the player again.
    timeouts = wait_for(
        lambda: (found := _timeouts(stack, game_id))[1:] and found,
        3.6 + LATE,
        "the second timeout",
    )
    second = timeouts[1]
    assert second["kind"] == "timeout" and second["version"] == version + 2
    assert second["seat"] == seat and second["action"] is None
    assert second_due <= second["at"] <= second_due + LATE
    assert not [e for e in k.all_events(game_id) if e["kind"] == "move"]
    assert k.view(game_id, player)["view"] == own_before
    wait_for(lambda: len(_mails(stack, address, "deadline passed")) == 2, 20, "the second mail")
    assert not _mails(stack, other, "deadline passed")


def test_a_missed_turn_of_several_decisions_counts_one_missed_deadline(
    stack: NotifyStack,
) -> None:
    """Each decision a player makes has its own deadline, but once one passes the policy makes
    the rest of that turn at once: one missed deadline (the default ``abandon_after`` of 3
    never abandons a seat within one turn), the rest marked ``same_turn``."""
    game_id, _seated, before = _game(stack, "M", {"hours": HOURS}, "late-1")
    seat, first_due = before["waiting_for"][0]["seat"], before["deadline_at"]
    late = wait_for(
        lambda: late_turn(stack, game_id, seat), 3.6 + LATE + 20, "the seat's late turn"
    )
    assert len(late) >= 3, late  # an Attila turn of several decisions
    assert [t.get("same_turn", False) for t in late] == [False] + [True] * (len(late) - 1)
    entries = _timeouts(stack, game_id)
    ats = [e["at"] for e in entries if e["seat"] == seat][: len(late)]
    assert first_due <= ats[0] <= first_due + LATE
    assert ats[-1] - ats[0] < LATE  # the rest at once, not a full deadline each
    assert not [e for e in entries for x in e["events"] if x["kind"] == "seat_abandoned"]
    after = stack.client.view(game_id)
    assert after["seats"][seat]["missed_deadlines"] == 1
    assert not after["seats"][seat]["abandoned"]
