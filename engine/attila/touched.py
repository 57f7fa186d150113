"""Where an Attila move happened: the provinces its events name (the picture marks them)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.core import Event


def touched(events: Iterable[Event]) -> frozenset[str]:
    """The province ids the events name: a stone placed, a conflict started or decided, a
    province pacified. Events that name no province (cards, influence, scoring) add none."""
    return frozenset(e.data["province"] for e in events if "province" in e.data)
