"""The wargame's table beside its map (issue 33): the round track, season, phase and whose step,
the victory points as they stand, and the seat's own "secret orders" (its notes and its sealed
card), for game.html. Only what the seat's own view holds is read: a spectator and the other
side get no secret orders here, as in the view itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.attila_wargame import targets
from service.common.i18n import say as _
from service.pictures.attila_wargame_style import phase_names, round_name
from service.store.record import GameRecord

GAME_TYPE = "attila-wargame"
#: The notes each side writes (engine/attila_wargame/notes.py), in the order the panel lists.
_OWN_NOTES = {"barbarian": ("traitor", "aetius"), "roman": ("suborned",)}
_NOTE_NAMES = {
    "traitor": "The traitor",
    "aetius": "Aetius's murder, from round",
    "suborned": "The suborned unit",
}


def panel(
    record: GameRecord, view: Mapping[str, Any] | None, seat: int | None, names: Sequence[str]
) -> dict[str, Any] | None:
    """The status strip and, for a player, their secret orders; None for another game."""
    if record.type != GAME_TYPE or view is None or record.state is None:
        return None
    game = record.game
    rules = game.rules  # type: ignore[attr-defined]
    board = game.board  # type: ignore[attr-defined]
    state = game.load(record.state)
    status = targets.status(rules, state)
    waiting = sorted({d["seat"] for d in view["pending"] if 0 <= d["seat"] < len(names)})
    out: dict[str, Any] = {
        **status,
        "when": round_name(board, status["round"]),
        "phase_name": phase_names(board).get(status["phase"], ""),
        "step_name": _(game.step_names.get(status["step"], status["step"])),
        "waiting": [names[s] for s in waiting],
        "orders": None,
        # The map's layers drawn on demand (wargame.js): the zones of control, and the
        # counters moved in this movement phase (the view's own "moved", public).
        "layers": {
            "zoc": targets.zones(rules, state),
            "moved": {u: info["hex"] for u, info in view["units"].items() if info.get("moved")},
        },
    }
    if seat is not None and 0 <= seat < len(view["sides"]):
        out["orders"] = _orders(view, view["sides"][seat])
    return out


def _orders(view: Mapping[str, Any], side: str) -> list[dict[str, str]]:
    """The seat's notes as written and whether each has fired, and its sealed card."""
    notes = view["notes"]
    out = []
    for key in _OWN_NOTES.get(side, ()):
        if key in notes["known"]:
            state = _("fired") if key in notes["fired"] else _("waiting")
            out.append(
                {"name": _(_NOTE_NAMES[key]), "value": str(notes["known"][key]), "state": state}
            )
    for holder in (view.get("battle"), view.get("council")):
        if holder and "own_card" in holder:
            out.append(
                {"name": _("Your sealed card"), "value": holder["own_card"], "state": holder["ref"]}
            )
    return out
