"""The caller's inbox: the decisions a player owes across games (``GET /v1/me/inbox``), and
the same facts for one game (the ``inbox`` events of ``/v1/me/stream``,
service/domain/streams.py)."""

from __future__ import annotations

from typing import Any

from service.domain import clocks
from service.store import Store


def decisions(summary: dict[str, Any], player_id: str) -> list[dict[str, Any]]:
    """The decisions ``player_id`` owes in one game (a ``store.indexes.game_summaries`` row),
    as inbox items; none unless the game is active."""
    if summary["status"] != "active" or player_id not in summary["seats"]:
        return []
    seat = summary["seats"].index(player_id)
    return [
        {
            **decision,
            "game_id": summary["id"],
            "game_type": summary["type"],
            "version": int(summary["version"]),
            "waiting_since": float(summary["updated_at"]),
            "deadline_at": seat_deadline(summary, seat),
        }
        for decision in summary["pending"]
        if decision["seat"] == seat
    ]


def seat_deadline(summary: dict[str, Any], seat: int) -> float | None:
    """When the seat's decision times out: its own time bank's zero under a bank, else the
    game's deadline (None: no deadline)."""
    if clocks.is_bank(summary.get("deadline")):
        due = (summary.get("seating") or {}).get("banks", {}).get("dues", {}).get(str(seat))
        return float(due) if due is not None else None
    return float(summary["deadline_at"]) if summary.get("deadline_at") else None


def items(store: Store, player_id: str) -> list[dict[str, Any]]:
    """Every decision the player owes, the longest waiting first (bounded by the game list)."""
    ids = [gid for gid, _ in store.indexes.player_games(player_id, None)]
    out = [
        item
        for summary in store.indexes.game_summaries(ids)
        if summary is not None
        for item in decisions(summary, player_id)
    ]
    out.sort(key=lambda item: item["waiting_since"])
    return out


def change(summary: dict[str, Any], player_id: str) -> dict[str, Any]:
    """One game as an ``inbox`` event: its version and status, and the caller's decision now
    (the first one it owes there, else None)."""
    owed = decisions(summary, player_id)
    return {
        "game_id": summary["id"],
        "game_type": summary["type"],
        "version": int(summary["version"]),
        "status": summary["status"],
        "your_decision": owed[0] if owed else None,
    }
