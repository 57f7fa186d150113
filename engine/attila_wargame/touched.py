"""Where a wargame move happened: the hexes and units its events name (the picture marks
them and crops the map around them)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.attila_wargame.board import Board
from engine.core import Event

#: Event fields holding one hex label; ``to`` is None for a unit that stays put.
_HEX_FIELDS = ("hex", "to", "target")
#: Event fields holding one unit id, and those holding a list of them.
_UNIT_FIELDS = ("unit", "killed")
_UNITS_FIELDS = ("attackers", "defenders", "units")


def touched(board: Board, events: Iterable[Event]) -> frozenset[str]:
    """The hex labels the events name: where units moved, retreated, advanced or fell, the
    hex attacked, a city taken, the hexes devastated or recovered."""
    out: set[str] = set()
    for e in events:
        out |= {e.data[f] for f in _HEX_FIELDS if isinstance(e.data.get(f), str)}
        out |= {h for h in e.data.get("hexes", ()) if isinstance(h, str)}
        city = e.data.get("city")
        if isinstance(city, str) and city in board.city_by_id:
            out.add(board.label(board.city_by_id[city].hex))
    # Only the board's labels: an event of a newer engine must not break an older picture.
    return frozenset(out & board.index_of_label.keys())


def touched_units(events: Iterable[Event]) -> frozenset[str]:
    """The unit ids the events name: moved, fighting, losing strength, retreating, removed."""
    out: set[str] = set()
    for e in events:
        out |= {e.data[f] for f in _UNIT_FIELDS if isinstance(e.data.get(f), str)}
        for f in _UNITS_FIELDS:
            out |= {u for u in e.data.get(f, ()) if isinstance(u, str)}
    return frozenset(out)
