"""kill -9 the game worker while a time bank's deadline job runs: the bank's outcome applies
exactly once when a worker is back (the job is owed; the sweep enqueues it again, and a run
after the commit finds its version gone).

Real stack (Redis, ``kurier worker`` with its scheduler, the API on loopback). The job is
caught in the act by polling the worker's current job every few milliseconds from just before
the bank runs out; a game whose job ran too fast to be caught is played again, at most
``TRIES`` times. The outcome is ``resign`` (two players: the game ends), so that a second
application could not hide in a later timeout."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import Any

import pytest
from rq import Worker

from service.store import queues
from tests.faults.stack import children
from tests.notify_stack import NotifyStack
from tests.receivers import wait_for
from tests.test_bank_deadlines import _game, _running_bank, bank
from tests.test_deadlines import _runs, _timeouts

TRIES = 4
BANK_SECONDS = 3.0


def _tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (rq's work-horses call setpgrp: no group kill)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children(current)
    return found


def _kill_tree(pid: int) -> None:
    for each in _tree(pid):
        with contextlib.suppress(ProcessLookupError):  # gone meanwhile
            os.kill(each, signal.SIGKILL)


def _running_job(stack: NotifyStack, job_id: str) -> bool:
    assert stack.store is not None
    return any(w.get_current_job_id() == job_id for w in Worker.all(connection=stack.store.raw))


def _caught(stack: NotifyStack, job_id: str, due: float) -> bool:
    """Kill the game worker the moment it runs ``job_id`` (True), or give up a while after
    ``due`` (False: the job ran between two looks)."""
    while time.time() < due - 0.3:
        time.sleep(0.05)
    give_up = time.time() + 12
    while time.time() < give_up:
        if _running_job(stack, job_id):
            _kill_tree(stack.workers[0].pid)
            stack.workers[0].wait(10)
            return True
        time.sleep(0.002)
    return False


@pytest.fixture
def stack() -> Any:
    s = NotifyStack().start()
    yield s
    s.stop()


def test_a_killed_worker_applies_the_bank_outcome_exactly_once(stack: NotifyStack) -> None:
    deadline = {"clock": bank(BANK_SECONDS), "policy": "resign"}
    for attempt in range(TRIES):
        game_id, _seated, view = _game(stack, f"K{attempt}x", deadline)
        seat, due = _running_bank(view)
        job_id = queues.deadline_job_id(game_id, view["version"], seat)
        if _caught(stack, job_id, due):
            break
        wait_for(lambda game=game_id: _timeouts(stack, game), 15, "the uncaught timeout")
    else:
        pytest.fail(f"the deadline job ran too fast to be caught in {TRIES} games")

    killed_at = time.time()
    stack.start_worker()  # the killed one stays listed, exited
    entry = wait_for(lambda: _timeouts(stack, game_id), 30, "the timeout after the kill")[0]
    assert entry["seat"] == seat and entry["action"] == "resign"
    assert entry["at"] >= due
    # Bounded: long enough for the sweep to enqueue the job again if it thought it lost.
    wait_for(lambda: time.time() > killed_at + 12, 15, "the sweep's time")
    log = stack.client.all_events(game_id)
    applied = [e for entry in log for e in entry["events"] if e["kind"] == "timeout_applied"]
    assert len(applied) == 1, applied
    assert [entry["action"] for entry in log if entry.get("action") == "resign"] == ["resign"]
    assert stack.client.view(game_id)["status"] == "finished"
    # The job killed mid-way ran again to its end: it applied the outcome (killed before the
    # commit) or found its version gone (killed after it).
    assert _runs(stack, job_id)[-1:] in (["applied"], ["stale"]), _runs(stack, job_id)
