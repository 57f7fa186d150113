"""Players, tokens and the caller's inbox."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.base import Blueprint, problems
from service.auth import BEARER_SECURITY, current_player, store
from service.schemas.players import Inbox, Player, PlayerCreate, PlayerCreated, PlayerPatch

blp = Blueprint("players", __name__, url_prefix="/v1", description="Players and tokens")


@blp.route("/players")
class PlayersView(MethodView):
    @blp.arguments(PlayerCreate)
    @blp.response(201, PlayerCreated)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Create a player and its bearer token (shown once, stored only as a hash)."""
        player, token = store().create_player(data["name"], data.get("email"))
        return {**player, "token": token}


@blp.route("/me")
class MeView(MethodView):
    @blp.response(200, Player)
    @blp.doc(security=BEARER_SECURITY)
    @problems(blp, 401)
    def get(self) -> dict[str, Any]:
        """The caller."""
        player = current_player()
        assert player is not None
        return player

    @blp.arguments(PlayerPatch)
    @blp.response(200, Player)
    @blp.doc(security=BEARER_SECURITY)
    @problems(blp, 401)
    def patch(self, data: dict[str, Any]) -> dict[str, Any]:
        """Change the caller's name or email."""
        player = current_player()
        assert player is not None
        return store().update_player(player["id"], data)


@blp.route("/me/inbox")
class InboxView(MethodView):
    @blp.response(200, Inbox)
    @blp.doc(security=BEARER_SECURITY)
    @problems(blp, 401)
    def get(self) -> dict[str, Any]:
        """Every decision the caller owes, across games, the longest waiting first."""
        player = current_player()
        assert player is not None
        ids = [gid for gid, _ in store().player_game_ids(player["id"], None)]
        items = []
        for summary in store().game_summaries(ids):
            if summary is None or summary["status"] != "active":
                continue
            seat = summary["seats"].index(player["id"])
            for decision in summary["pending"]:
                if decision["seat"] == seat:
                    items.append(
                        {
                            **decision,
                            "game_id": summary["id"],
                            "game_type": summary["type"],
                            "version": int(summary["version"]),
                            "waiting_since": float(summary["updated_at"]),
                        }
                    )
        items.sort(key=lambda item: item["waiting_since"])
        return {"items": items}
