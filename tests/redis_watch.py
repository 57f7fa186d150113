"""The commands a test's real Redis ran (MONITOR shows a script's commands too), and the
connection blocked in one."""

from __future__ import annotations

from typing import Any

from service.store import Store
from tests.receivers import wait_for

MARKER = "kurier:test:monitor-marker"


def commands_named(store: Store, monitor: Any, name: str) -> list[list[str]]:
    """The commands called ``name`` run since ``monitor`` (``store.raw.monitor()``) opened or
    was last read, as their words, read up to a marker command sent now on another connection."""
    store.raw.exists(MARKER)
    found = []
    for _ in range(10_000):  # bounded: a few dozen commands a step
        words = [w.strip('"') for w in monitor.next_command()["command"].split(" ")]
        if MARKER in words:
            return found
        if words[0].upper() == name:
            found.append(words)
    raise AssertionError("the marker never came")


def blocked_reader(store: Store) -> int:
    """The client id of the one connection blocked in ``XREAD``, once it blocks."""
    blocked = wait_for(
        lambda: [c["id"] for c in store.r.client_list() if c["cmd"] == "xread"], 5, "an XREAD"
    )
    assert len(blocked) == 1
    return int(blocked[0])
