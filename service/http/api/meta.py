"""The game-type catalogue and the health check."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from engine.registry import game_ids, get_game
from service.http.api.base import Blueprint
from service.http.auth import store
from service.http.schemas.meta import GameTypes, Health

blp = Blueprint("meta", __name__, description="Catalogue and health")


@blp.route("/v1/game-types")
class GameTypesView(MethodView):
    @blp.doc(operationId="list_game_types")
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
    @blp.doc(operationId="get_health")
    @blp.response(200, Health)
    @blp.alt_response(
        503,
        schema=Health,
        description="Redis unreachable, no game worker alive, or the store rolled back",
    )
    def get(self) -> tuple[dict[str, Any], int]:
        """Redis reachable, at least one game worker alive (counted from live heartbeats), and
        a store that did not go back in time (`store`, `store_problem`).

        `status` is one of three words: `ok` (200); `degraded` (200) when no webhook worker is
        alive: games go on, deliveries wait; `unavailable` (503) when Redis is unreachable or
        no game worker is alive: games stop."""
        health = store().health()
        rolled_back = health["store"] != "ok"
        up = health["redis"] and health["game_workers"] > 0 and not rolled_back
        ok = up and health["webhook_workers"] > 0
        status = "ok" if ok else "degraded" if up else "unavailable"
        return {"status": status, **health}, 200 if up else 503
