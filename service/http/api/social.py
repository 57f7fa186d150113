"""Blocks, private notes, reports and moderation (service/domain/blocks.py, notes.py,
moderation.py)."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.domain import blocks, moderation, notes
from service.http.api.base import Blueprint, problems
from service.http.auth import current_player, store, token_required
from service.http.schemas import social as s

blp = Blueprint(
    "social", __name__, url_prefix="/v1", description="Blocks, private notes, reports, moderation"
)


def _me() -> dict[str, Any]:
    player = current_player()
    assert player is not None
    return player


@blp.route("/me/blocks")
class BlocksView(MethodView):
    @blp.doc(operationId="list_blocks")
    @token_required
    @blp.response(200, s.BlockedPlayers)
    @problems(blp, 401, 403)
    def get(self) -> dict[str, Any]:
        """The players the caller blocks (only the caller sees this list)."""
        return blocks.listing(store(), _me()["id"])


@blp.route("/me/blocks/<player_id>")
class BlockView(MethodView):
    @blp.doc(operationId="block_player")
    @token_required
    @blp.response(204)
    @problems(blp, 401, 403, 404, 409, 422)
    def put(self, player_id: str) -> Response:
        """Block a player (at most 500): you are not seated together where there is a choice
        (joining an open game where one of you sits is refused 409 `cannot-join`, a new game
        does not invite you both by name, 409 `cannot-invite`, nor a rematch; tournament
        pairings keep you apart), their messages are withheld from you everywhere, and they
        cannot write to you privately (403 `cannot-message-player`). Private: they are not told."""
        blocks.block(store(), _me()["id"], player_id)
        return Response(status=204)

    @blp.doc(operationId="unblock_player")
    @token_required
    @blp.response(204)
    @problems(blp, 401, 403)
    def delete(self, player_id: str) -> Response:
        """Unblock a player (nothing happens if the caller did not block them)."""
        blocks.unblock(store(), _me()["id"], player_id)
        return Response(status=204)


@blp.route("/games/<game_id>/notes/me")
class NoteView(MethodView):
    @blp.doc(operationId="get_game_note")
    @token_required
    @blp.response(200, s.GameNote)
    @problems(blp, 401, 403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The caller's private note on a game: nobody else ever sees it. Kept after the game."""
        return notes.read(store(), _me(), game_id)

    @blp.doc(operationId="put_game_note")
    @token_required
    @blp.arguments(s.GameNotePut)
    @blp.response(200, s.GameNote)
    @problems(blp, 401, 403, 404, 422)
    def put(self, data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Write the caller's private note on a game they play (empty text clears it)."""
        return notes.write(store(), _me(), game_id, data["text"])


@blp.route("/reports")
class ReportsView(MethodView):
    @blp.doc(operationId="create_report")
    @token_required
    @blp.arguments(s.PlayerReportPost)
    @blp.response(201, s.PlayerReport)
    @problems(blp, 401, 403, 404, 422)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Report a message the caller can see (`kind` message, `game_id`, `message_id`) or a
        player (`kind` player, `player_id`) to the moderators, with a reason. Reporting the
        same item again changes nothing and answers the same report."""
        return moderation.report(store(), _me(), data)


@blp.route("/me/warnings")
class WarningsView(MethodView):
    @blp.doc(operationId="list_warnings")
    @token_required
    @blp.response(200, s.Warnings)
    @problems(blp, 401, 403)
    def get(self) -> dict[str, Any]:
        """The warnings moderators gave the caller, newest first."""
        return {"items": moderation.warnings(store(), _me()["id"])}


@blp.route("/moderation/reports")
class QueueView(MethodView):
    @blp.doc(operationId="get_moderation_queue")
    @token_required
    @blp.arguments(s.ModerationQueueQuery, location="query")
    @blp.response(200, s.ModerationQueue)
    @problems(blp, 400, 401, 403, 422)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Moderators only (403 `not-a-moderator`): the open reports, oldest first, each with
        its item in context, a page at a time (`after` = the previous page's `next_cursor`).
        A private message is shown only when it is the one reported."""
        return moderation.queue(store(), _me(), query["after"], query["limit"])


@blp.route("/moderation/actions")
class ActionsView(MethodView):
    @blp.doc(operationId="take_moderation_action")
    @token_required
    @blp.arguments(s.ModerationActionPost)
    @blp.response(201, s.ModerationAuditEntry)
    @problems(blp, 401, 403, 404, 409, 422)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Moderators only: `hide` a reported message, `warn`, `suspend` or `reinstate` a
        player (by `report_id` or `player_id`), or `dismiss` a report; with a reason. The
        report named is closed; the action is appended to the audit log. A suspended
        account's tokens are refused (403 `account-suspended`); its games apply their
        deadline policy when it does not move."""
        return moderation.act(store(), _me(), data)


@blp.route("/moderation/audit")
class AuditView(MethodView):
    @blp.doc(operationId="get_moderation_audit")
    @token_required
    @blp.arguments(s.ModerationAuditQuery, location="query")
    @blp.response(200, s.ModerationAuditPage)
    @problems(blp, 400, 401, 403, 422)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Moderators only: the audit log of every moderator's action, newest first
        (append-only: nothing removes an entry)."""
        return moderation.audit(store(), _me(), query["before"])
