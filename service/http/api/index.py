"""`/v1` itself: an index of links, so that the API's root says where to go."""

from __future__ import annotations

from typing import Any

from flask import current_app, url_for
from flask.views import MethodView

from service.http.api.base import Blueprint
from service.http.schemas.index import Index

blp = Blueprint("index", __name__, description="Where to start")


@blp.route("/v1")
class IndexView(MethodView):
    @blp.doc(operationId="get_index")
    @blp.response(200, Index)
    def get(self) -> dict[str, Any]:
        """Links to the docs, this OpenAPI document, the game types and the health check."""
        config = current_app.config
        return {
            "title": config["API_TITLE"],
            "version": config["API_VERSION"],
            "links": {
                "docs": url_for("swagger_ui.show"),
                "openapi": url_for("api-docs.openapi_json"),
                "game_types": url_for("meta.GameTypesView"),
                "health": url_for("meta.HealthView"),
            },
        }
