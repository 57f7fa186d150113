"""Messages at a game's table: post, read, hide (service/domain/messages.py)."""

from __future__ import annotations

import re
from typing import Any

from flask.views import MethodView

from service.common.problems import Problem
from service.domain import messages
from service.http.api.base import Blueprint, problems
from service.http.auth import current_player, store, token_optional, token_required
from service.http.schemas import messages as s

blp = Blueprint(
    "messages", __name__, url_prefix="/v1/games", description="Messages at a game's table"
)


@blp.route("/<game_id>/messages")
class MessagesView(MethodView):
    @blp.doc(operationId="post_message")
    @token_required
    @blp.arguments(s.MessagePost)
    @blp.response(201, s.Message)
    @problems(blp, 401, 403, 404, 422, 429)
    def post(self, data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Write to the whole table, or privately to one seat (`to_seat`).

        A private message is seen by its sender and its recipient only. At most 10 messages a
        minute per player (429 `message-rate-limited`); recipients are notified by their
        preferences (type `game.message`).
        """
        player = current_player()
        assert player is not None
        return messages.post(store(), player, game_id, data["text"], data["to_seat"])

    @blp.doc(operationId="list_messages")
    @token_optional
    @blp.arguments(s.MessagesQuery, location="query")
    @blp.response(200, s.MessagePage)
    @problems(blp, 400, 401, 404)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The messages the caller may see, oldest first: players see the table's messages
        and their own private ones; spectators see the table's only if the creator allowed it
        (`spectators_see_messages` at creation)."""
        player = current_player(required=False)
        player_id = player["id"] if player else None
        return messages.page(store(), game_id, player_id, query["after"], query["limit"])


@blp.route("/<game_id>/messages/<message_id>/hide")
class HideView(MethodView):
    @blp.doc(operationId="hide_message")
    @token_required
    @blp.response(200, s.Message)
    @problems(blp, 401, 403, 404)
    def post(self, game_id: str, message_id: str) -> dict[str, Any]:
        """The game's creator hides a message: it stays listed, marked hidden, its text
        withheld from everyone but its sender."""
        if not re.fullmatch(s.MESSAGE_ID_PATTERN, message_id):
            raise Problem(404, "message-not-found", f"no message {message_id!r} in this game")
        player = current_player()
        assert player is not None
        return messages.hide(store(), player, game_id, message_id)
