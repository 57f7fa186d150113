"""The caller's API tokens: list, create (shown once), revoke."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.common.problems import Problem
from service.domain import accounts
from service.http.api.base import Blueprint, problems
from service.http.auth import current_player, store, token_required
from service.http.schemas.tokens import TokenCreate, TokenCreated, TokenList

blp = Blueprint("tokens", __name__, url_prefix="/v1/me", description="The caller's API tokens")


def _player_id() -> str:
    player = current_player()
    assert player is not None
    return str(player["id"])


@blp.route("/tokens")
class TokensView(MethodView):
    @blp.doc(operationId="list_tokens")
    @token_required
    @blp.response(200, TokenList)
    @problems(blp, 401)
    def get(self) -> dict[str, Any]:
        """The caller's tokens (names and ids; a token itself is shown only when made)."""
        return {"items": store().tokens.listed(_player_id())}

    @blp.doc(operationId="create_token")
    @token_required
    @blp.arguments(TokenCreate)
    @blp.response(201, TokenCreated)
    @problems(blp, 401)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new token for another client or bot; the answer is the only place it is shown."""
        return accounts.create_token(store(), _player_id(), data["name"])


@blp.route("/tokens/<token_id>")
class TokenView(MethodView):
    @blp.doc(operationId="revoke_token")
    @token_required
    @blp.response(204)
    @problems(blp, 401, 404)
    def delete(self, token_id: str) -> Response:
        """Revoke a token: every server refuses it at its next request, the streams it holds
        open end within a heartbeat, and a web session signed in with it ends."""
        if not store().tokens.revoke(_player_id(), token_id):
            raise Problem(404, "token-not-found", f"you have no token {token_id!r}")
        return Response(status=204)
