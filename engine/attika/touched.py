"""Where an Attika move happened: the hexes its events name (the picture marks them)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.core import Event


def touched(events: Iterable[Event]) -> frozenset[str]:
    """The hexes ("q,r") the events name: a building built, a tile placed. Events that name
    no hex (cards, amphorae, stored buildings) add none."""
    return frozenset(e.data["hex"] for e in events if e.data.get("hex"))
