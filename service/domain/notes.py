"""Private notes: one note per game and player, seen by its author only (docs/api.md, "Private
notes"; the game page's note box).

A note is plain text (at most ``MAX_TEXT`` characters, line breaks allowed, other control
characters refused: inputs.NOTE), escaped wherever it is shown. It is kept in its author's slot
(service/store/social.py), not the game's: it outlives the game, its end and its archiving.
Only a player of the game (or one who held a seat before a replacement) may write one; reading
answers an empty note where there is none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem, game_not_found
from service.domain import inputs
from service.store import Store
from service.store.record import GameRecord

MAX_TEXT = inputs.NOTE.max_length


def read(store: Store, player: Mapping[str, Any], game_id: str) -> dict[str, Any]:
    """The caller's note on the game (``text`` empty when there is none)."""
    kept = store.notes.get(player["id"], game_id) if len(game_id) <= 64 else None
    if kept is None:
        _check_player(store.get_game(game_id), player)
        return _shown(game_id, None)
    return _shown(game_id, kept)


def own(store: Store, player_id: str, game_id: str) -> dict[str, Any]:
    """``player_id``'s own note on the game, for a page that already knows the player sits
    there: one read, no check (a player's own note tells them nothing new)."""
    return _shown(game_id, store.notes.get(player_id, game_id))


def write(store: Store, player: Mapping[str, Any], game_id: str, text: str) -> dict[str, Any]:
    """Replace the caller's note on the game; an empty ``text`` clears it."""
    if not isinstance(text, str):
        raise Problem(422, "invalid-note", N_("a note is text"), field="text")
    if text:
        inputs.checked("text", inputs.NOTE.check, text)
    if len(game_id) > 64:
        raise game_not_found(game_id)
    _check_player(store.get_game(game_id), player)
    return _shown(game_id, store.notes.put(player["id"], game_id, text))


def _check_player(record: GameRecord, player: Mapping[str, Any]) -> None:
    earlier = {h["previous"]["player_id"] for h in record.seating.get("handovers", [])}
    if record.seat_of(player["id"]) is None and player["id"] not in earlier:
        raise Problem(403, "not-a-player", N_("only the game's players keep notes on it"))


def _shown(game_id: str, kept: Mapping[str, Any] | None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "text": kept["text"] if kept else "",
        "updated_at": kept["updated_at"] if kept and kept["text"] else None,
    }
