"""Tournaments: round-robin and Swiss, sign-up, standings, rounds (docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.domain import tournaments
from service.http.api.base import Blueprint, problems
from service.http.auth import current_player, store, token_required
from service.http.schemas import tournaments as s

blp = Blueprint("tournaments", __name__, url_prefix="/v1", description="Tournaments")


def _me() -> dict[str, Any]:
    player = current_player()
    assert player is not None
    return player


@blp.route("/tournaments")
class TournamentsView(MethodView):
    @blp.doc(operationId="list_tournaments")
    @blp.arguments(s.TournamentsQuery, location="query")
    @blp.response(200, s.TournamentList)
    @problems(blp, 400)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Tournaments, newest first; page with `before` = `next_before`."""
        return tournaments.listing(store(), query["limit"], query.get("before"))

    @blp.doc(operationId="create_tournament")
    @token_required
    @blp.arguments(s.TournamentCreate)
    @blp.response(201, s.Tournament)
    @problems(blp, 401, 422)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Create a tournament open for sign-up; the caller organises it (and may sign up).
        With `starts_at` it starts by itself then (cancelled if fewer entrants than a table
        takes); otherwise `POST /v1/tournaments/{id}/start`."""
        return tournaments.create(store(), _me(), data)


@blp.route("/tournaments/<tournament_id>")
class TournamentView(MethodView):
    @blp.doc(operationId="get_tournament")
    @blp.response(200, s.Tournament)
    @problems(blp, 404)
    def get(self, tournament_id: str) -> dict[str, Any]:
        """A tournament: entrants, standings with tie-breaks, rounds with their games."""
        return tournaments.show(store(), tournament_id)


@blp.route("/tournaments/<tournament_id>/entrants")
class EntrantsView(MethodView):
    @blp.doc(operationId="sign_up_for_tournament")
    @token_required
    @blp.response(200, s.Tournament)
    @problems(blp, 401, 404, 409)
    def post(self, tournament_id: str) -> dict[str, Any]:
        """Sign the caller up (until it starts; signing up twice is once)."""
        return tournaments.sign_up(store(), _me(), tournament_id)

    @blp.doc(operationId="withdraw_from_tournament")
    @token_required
    @blp.response(200, s.Tournament)
    @problems(blp, 401, 404, 409)
    def delete(self, tournament_id: str) -> dict[str, Any]:
        """Withdraw the caller before the start."""
        return tournaments.withdraw(store(), _me(), tournament_id)


@blp.route("/tournaments/<tournament_id>/start")
class StartView(MethodView):
    @blp.doc(operationId="start_tournament")
    @token_required
    @blp.response(200, s.Tournament)
    @problems(blp, 401, 403, 404, 409)
    def post(self, tournament_id: str) -> dict[str, Any]:
        """Close sign-up and begin round 1 now (the organiser only): its games are created,
        their players seated and told."""
        return tournaments.start(store(), _me(), tournament_id)
