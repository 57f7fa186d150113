"""The end of a game on its page (issue 32): the standings, best first, with each seat's score
and how it was made — the points of each scoring the game announced (Attila's centuries and
final scoring: its ``scored`` events) and the other per-seat figures of its result (Attika's
settlements and amphorae, which break ties).

Read from the result and the public events of the log only (what any spectator may see); the
order is service/domain/ratings.py's ``standing``, the one the ratings use. No rule here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Event
from service.common.i18n import say as _
from service.domain import ratings

#: Result keys that are no per-seat figure to show.
NOT_FIGURES = {"scores", "winners", "standing", "resigned", "reasons"}


def standings(
    result: Mapping[str, Any] | None,
    entries: Sequence[tuple[int, Mapping[str, Any]]],
    names: Sequence[str],
    rating_changes: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """``{"columns": [...], "rows": [{"place", "name", "winner", "resigned", "cells",
    "score", "rating"}], "rated"}`` for a finished game's ``result``, or None while it runs.
    ``rating_changes``: ratings.py ``rating_changes`` (None: unrated, or not rated yet), each
    row's ``rating`` (``before``, ``after``, ``delta``) by its seat."""
    if not result:
        return None
    seats = len(names)
    columns: list[str] = []
    points: list[dict[int, int]] = []
    for _version, entry in entries:
        for raw in entry["events"]:
            event = Event.from_json(raw)
            if event.kind != "scored" or not event.visible_to(None):
                continue
            columns.append(_scoring_name(event.data))
            points.append(_points(event.data))
    figures = [
        key
        for key, value in result.items()
        if key not in NOT_FIGURES and isinstance(value, list) and len(value) == seats
    ]
    columns += [_(key) for key in figures]
    scores = result.get("scores") or []
    winners = set(result.get("winners") or [])
    resigned = set(result.get("resigned") or [])
    changed = {change["seat"]: change for change in rating_changes or []}
    rows = []
    for place, group in enumerate(ratings.standing(result, seats), start=1):
        for seat in group:
            cells = [p.get(seat, 0) for p in points] + [result[k][seat] for k in figures]
            rows.append(
                {
                    "place": place,
                    "seat": seat,
                    "name": names[seat],
                    "winner": seat in winners,
                    "resigned": seat in resigned,
                    "cells": cells,
                    "score": scores[seat] if seat < len(scores) else None,
                    "rating": changed.get(seat),
                }
            )
    return {"columns": columns, "rows": rows, "rated": bool(changed)}


def _scoring_name(data: Mapping[str, Any]) -> str:
    """A short column head: the century in Roman numerals as on the board ("IV"), "Final"."""
    century = data.get("century")
    if isinstance(century, int) and 0 < century < 40:
        return _roman(century)
    return _("Final") if data.get("scoring") == "final" else _(str(data.get("scoring")))


def _roman(n: int) -> str:
    out = ""
    for value, letters in ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out += letters
            n -= value
    return out


def _points(data: Mapping[str, Any]) -> dict[int, int]:
    """Points per seat in one scoring: the sum over its lines (Attila: one per people)."""
    out: dict[int, int] = {}
    for line in data.get("peoples") or []:
        for seat, n in (line.get("points") or {}).items():
            out[int(seat)] = out.get(int(seat), 0) + int(n)
    return out
