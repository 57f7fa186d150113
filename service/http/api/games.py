"""Games: create, join, start, list, view, legal actions, actions, events, record."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from typing import Any

from flask import Response, request
from flask.views import MethodView

from service import pictures
from service.common import i18n
from service.common.lru import Lru
from service.common.problems import Problem
from service.domain import ratelimit, ratings, rematch, review, seats
from service.domain.games import lifecycle, play, views
from service.http.api.base import Blueprint, dumped, problems
from service.http.auth import current_player, store, token_optional, token_required
from service.http.schemas import games as s
from service.pictures.png import PictureRenderError, svg_to_png
from service.store import MAX_INDEX
from service.store.record import GameRecord, Idempotency

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games and play")


def _player() -> dict[str, Any]:
    player = current_player()
    assert player is not None
    return player


def _caller_seat(record: GameRecord) -> tuple[int | None, str | None]:
    player = current_player(required=False)
    player_id = player["id"] if player else None
    return record.seat_of(player_id), player_id


def _parse_version(value: str) -> int:
    """``If-Match: "12"`` (quotes and W/ tolerated) -> 12."""
    match = re.fullmatch(s.IF_MATCH_PATTERN, value.strip())
    if match is None:
        raise Problem(
            400, "invalid-if-match", 'If-Match must be a version such as "12"', header="If-Match"
        )
    return int(match[2])


@blp.route("")
class GamesView(MethodView):
    @blp.doc(operationId="create_game")
    @token_required
    @blp.arguments(s.GameCreate)
    @blp.response(201, s.GameCreated)
    @problems(blp, 401, 409)
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Create a game; the creator takes seat 0 (or the lowest seat no bot holds) and gets
        the invite code. `bots` fills seats with computer opponents. When two of the creator
        and the players invited by name (`invited`) are kept apart by a block: 409
        `cannot-invite`, nothing made."""
        given: dict[str, Any] = {
            name: data[name]
            for name in ("rated", "bot_delay_seconds", "bot_pace", "reliability")
            if name in data
        }
        outcome = lifecycle.create_game(
            store(),
            _player(),
            data["type"],
            data["options"],
            data.get("seed"),
            data["seats"],
            data.get("deadline"),
            settings={
                "spectators_see_messages": data["spectators_see_messages"],
                "access": data["access"],
                "abandon_after": data["abandon_after"],
                "public": data["public"],
                **given,
            },
            bots=data.get("bots"),
            invited=data["invited"],
        )
        return outcome.body

    @blp.doc(operationId="list_my_games")
    @token_required
    @blp.arguments(s.GameListQuery, location="query")
    @blp.response(200, s.GameList)
    @problems(blp, 400, 401)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The caller's games, oldest first; page with `next_cursor`."""
        player = _player()
        after = _after(query)
        rows = store().indexes.player_games(player["id"], after)
        summaries = store().indexes.game_summaries([gid for gid, _ in rows])
        items: list[dict[str, Any]] = []
        examined = 0
        for (_, seq), summary in zip(rows, summaries, strict=True):
            examined, after = examined + 1, seq
            if summary is not None and query.get("status") in (None, summary["status"]):
                items.append(_summary(summary, player["id"]))
            if len(items) == query["limit"]:
                break
        # More may follow if we stopped early or the index scan hit its bound.
        more = examined < len(rows) or len(rows) == MAX_INDEX
        return {"items": items, "next_cursor": str(after) if more else None}


@blp.route("/open")
class OpenGamesView(MethodView):
    @blp.doc(operationId="list_open_games")
    @token_optional
    @blp.arguments(s.OpenGamesQuery, location="query")
    @blp.response(200, s.OpenGameList)
    @problems(blp, 400, 401)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The lobby: games anyone may join (created with `"access": "open"`) that still have a
        free seat, oldest first; filter by `type`, `seats` (player count) and `deadline`
        policy. Join one with `POST /v1/games/{id}/seats` and no invite code. A game may ask
        for `reliability`; with a token, `closed_to_you` says whether yours falls short."""
        player = current_player(required=False)
        player_id = player["id"] if player else None
        return lifecycle.open_games(store(), _after(query), query["limit"], query, player_id)


def _after(query: dict[str, Any]) -> int | None:
    """A listing's ``cursor`` (a sequence number from its ``next_cursor``, checked by the
    query's schema)."""
    cursor = query.get("cursor")
    return None if cursor is None else int(cursor)


def _summary(summary: dict[str, Any], player_id: str) -> dict[str, Any]:
    seats = lifecycle.summary_seats(summary)
    return {
        "id": summary["id"],
        "type": summary["type"],
        "status": summary["status"],
        "version": int(summary["version"]),
        "your_seat": summary["seats"].index(player_id),
        "seats": seats,
        "max_seats": int(summary["max_seats"]),
        "waiting_for": summary["pending"],
        "updated_at": float(summary["updated_at"]),
    }


@blp.route("/<game_id>/seats")
class SeatsView(MethodView):
    @blp.doc(operationId="join_game")
    @token_required
    @blp.arguments(s.JoinRequest)
    @blp.response(201, s.Joined)
    @problems(blp, 401, 403, 404, 409)
    def post(self, data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take the next free seat with the invite code (an open game needs none). A game
        that asks for `reliability` refuses a player short of it: 403 `reliability-required`
        with `unmet`, the caller's `on_time_percent` and `abandoned`, and what is asked."""
        return lifecycle.join_game(store(), _player(), game_id, data.get("invite_code")).body


@blp.route("/<game_id>/claim")
class ClaimView(MethodView):
    @blp.doc(operationId="claim_win")
    @token_required
    @blp.response(200, s.ActionResult, description="The game is over: you won")
    @problems(blp, 401, 403, 404, 409)
    def post(self, game_id: str) -> dict[str, Any]:
        """Claim the win in a two-player game whose opponent is abandoned (missed
        `abandon_after` deadlines in a row): the opponent's seat forfeits."""
        return seats.claim_win(store(), _player(), game_id).body


@blp.route("/<game_id>/seats/<int:seat>/offer")
class SeatOfferView(MethodView):
    @blp.doc(operationId="offer_seat")
    @token_required
    @blp.response(201, s.SeatOffer)
    @problems(blp, 401, 403, 404, 409)
    def post(self, game_id: str, seat: int) -> dict[str, Any]:
        """The creator offers a resigned or abandoned seat to a replacement: send them the
        code (an invite link on the web); a new offer replaces the last one."""
        return seats.offer_seat(store(), _player(), game_id, seat).body


@blp.route("/<game_id>/seats/<int:seat>/take")
class SeatTakeView(MethodView):
    @blp.doc(operationId="take_seat")
    @token_required
    @blp.arguments(s.TakeSeat)
    @blp.response(200, s.Joined)
    @problems(blp, 400, 401, 403, 404, 409)
    def post(self, data: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
        """Take over an offered seat with its code: its hand and secrets are yours from now
        on; the record names both players and the version where the seat changed hands."""
        return seats.take_seat(store(), _player(), game_id, seat, data["invite_code"]).body


@blp.route("/<game_id>/rematch")
class RematchView(MethodView):
    @blp.doc(operationId="rematch")
    @token_required
    @blp.response(200, s.Rematch, description="The rematch was there already: you sit in it")
    @blp.alt_response(201, schema=s.Rematch, description="The rematch is made: you sit in it")
    @problems(blp, 401, 403, 404, 409)
    def post(self, game_id: str) -> Any:
        """Ask a finished game's players for another: a new game with the same options,
        settings and deadline, a new seed, and the same players, who are invited to it and
        sit down by asking too. Asked again, or by another player, it is the same game
        (the finished game's view names it: `rematch`). The one who made it starts it."""
        outcome = rematch.rematch(store(), _player(), game_id)
        return outcome.body, outcome.status


@blp.route("/<game_id>/review")
class ReviewView(MethodView):
    @blp.doc(operationId="get_review")
    @token_required
    @blp.response(200, s.Review)
    @problems(blp, 401, 403, 404, 409)
    def get(self, game_id: str) -> dict[str, Any]:
        """Your review of a finished game: the hard bot's view of each of your decisions
        (`pending` until a worker has made it, `failed` if it could not be made). 404
        `no-review` before you asked for one; 409 `game-not-finished` while the game is in
        play."""
        return review.shown(store(), _player(), game_id)

    @blp.doc(operationId="request_review")
    @token_required
    @blp.response(202, s.Review, description="Asked for (or already made): see `status`")
    @problems(blp, 401, 403, 404, 409)
    def post(self, game_id: str) -> Any:
        """Ask for the hard bot's view of each of your decisions in a finished game: for each
        of your moves and sealed choices, the move it would have made and the estimated win
        chance after both, judged from what your seat saw then only. A worker makes it; asked
        again, it is the same review, or a new try of one that `failed`. 409
        `game-not-finished` while the game is in play."""
        return review.request(store(), _player(), game_id), 202


@blp.route("/<game_id>/start")
class StartView(MethodView):
    @blp.doc(operationId="start_game")
    @token_required
    @blp.response(200, s.Started)
    @problems(blp, 401, 403, 404, 409)
    def post(self, game_id: str) -> dict[str, Any]:
        """Deal and start (the creator, once enough players sit)."""
        return lifecycle.start_game(store(), _player(), game_id).body


@blp.route("/<game_id>")
class GameView(MethodView):
    @blp.doc(operationId="get_game")
    @token_optional
    @blp.arguments(s.ViewHeaders, location="headers")
    @blp.response(200, s.GameView, headers={"ETag": {"schema": {"type": "string"}}})
    @blp.alt_response(304, description="Not modified: the version in If-None-Match is current")
    @problems(blp, 401, 404)
    def get(self, headers: dict[str, Any], game_id: str) -> Any:
        """The game as the caller may see it (spectator's view without a token).

        The ETag is the version (a finished rated game's, once its rating changes are in:
        the version and `-rated`): send it back in If-None-Match to get 304 while nothing moved.
        """
        record = store().get_game(game_id)
        seat, player_id = _caller_seat(record)
        changes = ratings.rating_changes(store(), record)
        etag = f'"{record.version}"' if changes is None else f'"{record.version}-rated"'
        cache = {"ETag": etag, "Vary": "Authorization", "Cache-Control": "private, no-cache"}
        tags = [t.strip() for t in headers.get("if_none_match", "").split(",")]
        if etag in tags or f"W/{etag}" in tags:
            return Response(status=304, headers=cache)
        view = views.game_view(record, seat, player_id)
        recent = store().log_tail(record, views.RECENT_ENTRIES)
        view["since_your_last_move"] = views.since_last_move(record, recent, seat)
        view["rating_changes"] = changes
        return view, 200, cache


#: The PNGs last rendered, by (game id, version, language): a full-size PNG costs 0.2-2 s of
#: CPU (docs/performance.md, "Pictures (PNG)") and a version's picture never changes, so
#: clients polling one game's board.png pay for one render per version and process.
_PNG_CACHE: Lru[bytes] = Lru(16)
#: The SVGs (and their gzip form) last drawn, likewise: drawing the wargame's map costs
#: 20-40 ms and compressing it 4 ms (docs/performance.md, "Web pages"); a page reload, its
#: other players and spectators ask for the same version's picture.
_SVG_CACHE: Lru[str] = Lru(16)
_SVG_GZIP_CACHE: Lru[bytes] = Lru(16)


def _board_picture(game_id: str, lang: str) -> tuple[str, int]:
    """The board's SVG as spectators see it, in ``lang``, and the version it shows (404 no
    picture for the type, 409 not started)."""
    latest = store().get_game(game_id)
    cached = _SVG_CACHE.get((game_id, latest.version, lang))
    if cached is not None:
        return cached, latest.version
    # The record and its last log entries in one read, so the marks match the position (two:
    # a finished game's last may be its rematch's link, rematch.last_move_events).
    record, entries = store().read_log(game_id, max(latest.version - 2, 0))
    if not pictures.has_picture(record.type):
        raise Problem(
            404,
            "no-board-picture",
            f"the game type {record.type!r} has no board picture; see the game view",
            game_type=record.type,
        )
    if record.state is None:
        raise Problem(409, "game-not-started", "the board exists once the game has started")
    title = f"{record.game.title} · game {record.id} · version {record.version}"
    last = rematch.last_move_events(entries)
    _crop, svg = pictures.spectator_pictures(record, last, title, lang=lang)
    _SVG_CACHE.put((game_id, record.version, lang), svg)
    return svg, record.version


def _picture_headers(version: int, lang: str) -> dict[str, str]:
    # A version's picture differs by language only: English keeps the version as its tag.
    tag = str(version) if lang == i18n.DEFAULT else f"{version}-{lang}"
    return {"Cache-Control": "public, max-age=5", "ETag": f'"{tag}"'}


#: A board.svg this big goes gzip-compressed to a client that accepts it: the wargame's map
#: is about 500 KB of SVG, 55 KB compressed (docs/performance.md, "Web pages"). Level 5: most
#: of level 9's gain at a seventh of its time. Only the picture: it is public (the spectator's
#: view), whereas compressing pages that hold a CSRF token beside reflected input would open
#: them to BREACH-style guessing.
SVG_GZIP_MIN_BYTES = 8192
SVG_GZIP_LEVEL = 5


def _svg_response(game_id: str, svg: str, version: int, lang: str) -> Response:
    headers = {**_picture_headers(version, lang), "Vary": "Accept-Encoding"}
    body = svg.encode()
    if len(body) >= SVG_GZIP_MIN_BYTES and request.accept_encodings["gzip"]:
        key = (game_id, version, lang)
        packed = _SVG_GZIP_CACHE.get(key)
        if packed is None:
            packed = gzip.compress(body, SVG_GZIP_LEVEL, mtime=0)
            _SVG_GZIP_CACHE.put(key, packed)
        body = packed
        # The ETag stays the version (the API's contract: the picture of that version);
        # Vary keeps caches from handing the compressed body to a client that did not ask.
        headers["Content-Encoding"] = "gzip"
    return Response(body, mimetype="image/svg+xml", headers=headers)


@blp.route("/<game_id>/board.svg")
class BoardPictureView(MethodView):
    @blp.response(
        200,
        {"type": "string"},
        content_type="image/svg+xml",
        description="The board as the spectators see it (nothing hidden is drawn)",
    )
    @blp.doc(operationId="get_board_svg")
    @blp.arguments(s.BoardQuery, location="query")
    @problems(blp, 404, 409)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """A picture of the board (SVG), drawn from the spectator's view; linked from emails.
        Players are named by their display names; the last move is marked and told."""
        svg, version = _board_picture(game_id, query["lang"])
        return _svg_response(game_id, svg, version, query["lang"])


@blp.route("/<game_id>/board.png")
class BoardPngView(MethodView):
    @blp.response(
        200,
        {"type": "string", "format": "binary"},
        content_type="image/png",
        description="The board as the spectators see it, as PNG at the picture's own size",
    )
    @blp.doc(operationId="get_board_png")
    @blp.arguments(s.BoardQuery, location="query")
    @problems(blp, 404, 409, 503)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The same picture as board.svg, rendered as PNG on the server (for clients that
        cannot show SVG). 503 when the server cannot render it (fonts missing): use board.svg.
        """
        lang = query["lang"]
        svg, version = _board_picture(game_id, lang)
        png = _render_png(game_id, version, lang, svg)
        return Response(png, mimetype="image/png", headers=_picture_headers(version, lang))


def _render_png(game_id: str, version: int, lang: str, svg: str) -> bytes:
    key = (game_id, version, lang)
    cached = _PNG_CACHE.get(key)
    if cached is not None:
        return cached
    try:
        png = svg_to_png(svg)
    except PictureRenderError as error:
        # A server without its fonts (docs/operations.md, "Pictures (PNG)"): say so, never
        # serve a picture without its labels.
        raise Problem(
            503, "picture-unavailable", f"the PNG cannot be rendered here ({error}); use board.svg"
        ) from error
    _PNG_CACHE.put(key, png)
    return png


@blp.route("/<game_id>/legal-actions")
class LegalActionsView(MethodView):
    @blp.doc(operationId="list_legal_actions")
    @token_required
    @blp.response(200, s.LegalActions)
    @problems(blp, 401, 403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The caller's legal actions now, each with its notation."""
        player = _player()
        record = store().get_game(game_id)
        seat = record.seat_of(player["id"])
        if seat is None:
            raise Problem(403, "not-a-player", "you have no seat in this game")
        return views.legal_actions(record, seat)


@blp.route("/<game_id>/actions")
class ActionsView(MethodView):
    @blp.doc(operationId="play")
    @token_required
    @blp.arguments(s.ActionHeaders, location="headers")
    @blp.arguments(s.ActionRequest)
    @blp.response(200, s.ActionResult, description="Applied: the new version and its events")
    @blp.alt_response(202, schema=s.ActionResult, description="Sealed choice stored unseen")
    @problems(blp, 400, 401, 403, 404, 409, 412, 413)
    def post(self, headers: dict[str, Any], data: dict[str, Any], game_id: str) -> Any:
        """Play: a notation string, an action object, or a list of them (`actions`) applied
        in order as one atomic change, one version each (a refusal names the failing `index`).

        `Idempotency-Key`: the same key and body replay the first answer; `If-Match`: a
        stale version answers 412. Not your turn: 409. Illegal: 422 with the engine's code.
        """
        player = _player()
        if_match = _parse_version(headers["if_match"]) if "if_match" in headers else None
        idem = None
        if "idempotency_key" in headers:
            body = json.dumps(data, sort_keys=True, separators=(",", ":"))
            idem = Idempotency(
                player["id"], headers["idempotency_key"], hashlib.sha256(body.encode()).hexdigest()
            )
        if "actions" in data:
            outcome = play.play_all(
                store(),
                player,
                game_id,
                data["actions"],
                if_match,
                data.get("expected_version"),
                idem,
            )
        else:
            outcome = play.play(
                store(),
                player,
                game_id,
                data.get("notation"),
                data.get("action"),
                if_match,
                data.get("expected_version"),
                idem,
            )
        extra = {"Idempotent-Replayed": "true"} if outcome.replayed else {}
        # Every move passes here: its answer is already ActionResult's dump (base.dumped).
        return dumped(outcome.body, outcome.status, extra)


def _move_read(player_id: str) -> tuple[str, str | None]:
    game_id = (request.view_args or {})["game_id"]
    return play.move_read(game_id, player_id, request.headers.get("Idempotency-Key"))


ratelimit.EARLY_READS[f"{blp.name}.ActionsView"] = _move_read


@blp.route("/<game_id>/events")
class EventsView(MethodView):
    @blp.doc(operationId="list_game_events")
    @token_optional
    @blp.arguments(s.EventsQuery, location="query")
    @blp.response(200, s.EventPage)
    @problems(blp, 400, 401, 404)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The event log after version `after`, redacted for the caller."""
        after = int(query["after"])
        record, entries = store().read_log(game_id, after, query["limit"], state=False)
        seat, _ = _caller_seat(record)
        items = [views.redact_entry(record, v, entry, seat) for v, entry in entries]
        last = items[-1]["version"] if items else after
        return {"items": items, "next_cursor": str(last)}


@blp.route("/<game_id>/record")
class RecordView(MethodView):
    @blp.doc(operationId="get_game_record")
    @token_optional
    @blp.response(200, s.GameRecord)
    @problems(blp, 401, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The game record: enough to replay the game with the engine and check the result."""
        record, entries = store().read_log(game_id)
        seat, _ = _caller_seat(record)
        return views.game_record(record, entries, seat)
