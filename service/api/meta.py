"""The game-type catalogue and the health check."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from engine.registry import game_ids, get_game
from service.api.base import Blueprint
from service.auth import store
from service.schemas.meta import GameTypes, Health

blp = Blueprint("meta", __name__, description="Catalogue and health")


@blp.route("/v1/game-types")
class GameTypesView(MethodView):
    @blp.response(200, GameTypes)
    def get(self) -> dict[str, Any]:
        """The game types this server runs, with player counts and options."""
        items = []
        for type_id in game_ids():
            game = get_game(type_id)
            items.append(
                {
                    "id": game.id,
                    "title": game.title,
                    "min_players": game.min_players,
                    "max_players": game.max_players,
                    "rules_version": game.rules_version,
                    "options": [spec.to_json() for spec in game.options],
                }
            )
        return {"items": items}


@blp.route("/healthz")
class HealthView(MethodView):
    @blp.response(200, Health)
    @blp.alt_response(503, schema=Health, description="Redis unreachable or no worker alive")
    def get(self) -> tuple[dict[str, Any], int]:
        """Redis reachable and at least one rq worker alive."""
        health = store().health()
        ok = health["redis"] and health["workers"] > 0
        return {"status": "ok" if ok else "degraded", **health}, 200 if ok else 503
