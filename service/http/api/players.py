"""Players, tokens and the caller's inbox."""

from __future__ import annotations

import os
from typing import Any

from flask.views import MethodView

from service.common.problems import Problem
from service.domain import accounts, deliveries, inbox, leave, prefs, ratelimit, websessions
from service.http.api.base import Blueprint, dumped, problems
from service.http.auth import current_player, player_hash_read, store, token_required
from service.http.schemas.players import (
    Inbox,
    LeaveEnded,
    LeaveRequest,
    LeaveStatus,
    Me,
    PlayerCreate,
    PlayerCreated,
    PlayerPatch,
)
from service.http.schemas.webhooks import Deliveries, DeliveriesQuery, WebhookSecret, WebhookTest
from service.ops import config

blp = Blueprint("players", __name__, url_prefix="/v1", description="Players and tokens")


@blp.route("/players")
class PlayersView(MethodView):
    @blp.doc(operationId="create_player")
    @blp.arguments(PlayerCreate)
    @blp.response(201, PlayerCreated)
    @problems(blp, 409)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Create a player and its bearer token (shown once, stored only as a hash).

        A player who gave this `email` under this `name` exists already: no twin is made,
        they get a sign-in link by mail (as `POST /signin` mails it) and the answer is 409
        `already-registered`. Another name on the same address is another player."""
        email = data.get("email")
        if email and accounts.registered(store(), data["name"], email) is not None:
            if ratelimit.signin_mail_allowed(email):
                websessions.mail_signin_links(store(), email, config.public_url(os.environ))
            raise Problem(
                409,
                "already-registered",
                "a player of this name gave this address already: a sign-in link was mailed "
                "to it (sign in with the link, or register under another name)",
                field="email",
            )
        player, token = accounts.create(store(), data["name"], email)
        return {**player, "token": token}


@blp.route("/me")
class MeView(MethodView):
    @blp.doc(operationId="get_me")
    @token_required
    @blp.response(200, Me)
    @problems(blp, 401)
    def get(self) -> Any:
        """The caller, with its notification preferences."""
        player = current_player()
        assert player is not None
        # A client's most frequent call: its answer is already Me's dump (base.dumped;
        # tests/test_dumped_answers.py checks every kind of preference).
        return dumped(_me(player["id"], raw=player_hash_read()), 200, {})

    @blp.doc(operationId="update_me")
    @token_required
    @blp.arguments(PlayerPatch)
    @blp.response(200, Me)
    @problems(blp, 401, 422)
    def patch(self, data: dict[str, Any]) -> dict[str, Any]:
        """Change the caller's name, email and notification preferences.

        A webhook URL is checked before anything is stored: one that resolves to a private,
        loopback or link-local address is refused with 422 `webhook-url-refused` and no
        request is sent to it. Setting the first webhook URL issues the signing secret, shown
        in this answer only.
        """
        player = current_player()
        assert player is not None
        return _me(player["id"], issued=prefs.apply(store(), player["id"], data))


def _me(
    player_id: str, issued: str | None = None, raw: dict[str, str] | None = None
) -> dict[str, Any]:
    if raw is None or raw.get("id") != player_id:
        raw = store().players.hash(player_id)  # one read for the player and its preferences
    out = {**store().players.from_hash(raw), **prefs.from_hash(raw)}
    if issued:
        out["webhook_secret"] = issued
    return out


@blp.route("/me/leave")
class LeaveView(MethodView):
    @blp.doc(operationId="get_leave")
    @token_required
    @blp.response(200, LeaveStatus)
    @problems(blp, 401)
    def get(self) -> dict[str, Any]:
        """The caller's leave: this year's budget, the days taken and left, the running leave.

        The budget is per calendar year in the caller's `timezone`; each 1 January brings it
        whole again."""
        player = current_player()
        assert player is not None
        return leave.read(store(), player["id"])

    @blp.doc(operationId="take_leave")
    @token_required
    @blp.arguments(LeaveRequest)
    @blp.response(201, LeaveStatus)
    @problems(blp, 401, 409, 422)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Take `days` whole days of leave from now: every clock of yours in every game
        pauses (each game's limit applies), and your opponents are told once
        (`game.opponent_on_leave`). Any move of yours ends it early and gives the unused whole
        days back. Below the server's `min_days` or over the days left: 422 (`leave-below-
        minimum`, `leave-over-budget`, naming `days`); a leave running already: 409
        `leave-running`. Nothing changes on a refusal."""
        player = current_player()
        assert player is not None
        return leave.take_leave(store(), player, data["days"])

    @blp.doc(operationId="end_leave")
    @token_required
    @blp.response(200, LeaveEnded)
    @problems(blp, 401, 409)
    def delete(self) -> dict[str, Any]:
        """End the running leave now; its unused whole days go back to the budget. No leave
        running: 409 `no-leave`."""
        player = current_player()
        assert player is not None
        return leave.end_leave(store(), player["id"])


@blp.route("/me/webhook-secret")
class WebhookSecretView(MethodView):
    @blp.doc(operationId="rotate_webhook_secret")
    @token_required
    @blp.response(200, WebhookSecret)
    @problems(blp, 401)
    def post(self) -> dict[str, Any]:
        """Issue a new signing secret (the old one stops working now); shown this once."""
        player = current_player()
        assert player is not None
        secret = prefs.new_webhook_secret()
        store().players.update(player["id"], {"webhook_secret": secret})
        return {"webhook_secret": secret}


@blp.route("/me/webhook-test")
class WebhookTestView(MethodView):
    @blp.doc(operationId="send_webhook_test")
    @token_required
    @blp.response(202, WebhookTest)
    @problems(blp, 401, 409)
    def post(self) -> dict[str, Any]:
        """Send a `webhook.test` event to the caller's webhook (by the worker, with retries)."""
        player = current_player()
        assert player is not None
        if not prefs.read(store(), player["id"])["webhook_url"]:
            raise Problem(409, "no-webhook", "set webhook_url with PATCH /v1/me first")
        site = config.public_url(os.environ)
        return {"delivery_id": deliveries.send_test(store(), player["id"], site)}


@blp.route("/me/webhook-deliveries")
class WebhookDeliveriesView(MethodView):
    @blp.doc(operationId="list_webhook_deliveries")
    @token_required
    @blp.arguments(DeliveriesQuery, location="query")
    @blp.response(200, Deliveries)
    @problems(blp, 401)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The caller's latest webhook deliveries, newest first: status, attempts, last error."""
        player = current_player()
        assert player is not None
        return {"items": prefs.list_deliveries(store(), player["id"], query["limit"])}


@blp.route("/me/inbox")
class InboxView(MethodView):
    @blp.doc(operationId="get_inbox")
    @token_required
    @blp.response(200, Inbox)
    @problems(blp, 401)
    def get(self) -> dict[str, Any]:
        """Every decision the caller owes, across games, the longest waiting first."""
        player = current_player()
        assert player is not None
        return {"items": inbox.items(store(), player["id"])}
