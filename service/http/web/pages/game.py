"""A game's page and its forms: the page, the table's board and its staged moves, a move or
several, joining, starting, claiming a win, a rematch, offering and taking a seat, and the
table's talk.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from flask import abort, g, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from service.common import i18n
from service.common.numbers import is_ascii_digits
from service.common.problems import Problem
from service.domain import messages, presence, replay, seats, websessions
from service.domain import rematch as rematch_games
from service.domain import review as reviews
from service.domain.games import lifecycle, play, views
from service.http.web import game_page, table
from service.http.web import live as live_page
from service.http.web.pages.base import _note, _refused, blp, form_post, language, store
from service.pictures import keep


@blp.get("/games/<game_id>")
def game(game_id: str) -> Any:
    try:
        record, entries = store().read_log(game_id)
    except Problem:
        abort(404)
    live = request.args.get("live") == "1"  # kurier.js's update in place: no board inline
    page = game_page.context(store(), record, entries, g.get("web_session"), language(), live)
    # Compressed whole too: the wargame's page carries its map inline (about 560 KB, 60 KB
    # gzipped), too much for a phone.
    return live_page.compressed(
        render_template("game.html", **page), "text/html", "private, no-store"
    )


@blp.get("/games/<game_id>/stream")
def stream(game_id: str) -> BaseResponse:
    """307 to the game's stream on the stream server, from version ``after``, with a one-time
    ticket for a signed-in player: their stream carries what their seat may see (their
    private messages among them), and the browser's EventSource, which asks this URL again
    when it reconnects, gets a new ticket each time. Without a session: the spectators'."""
    after = request.args.get("after", "")
    params = {"after": after} if is_ascii_digits(after) and len(after) <= 12 else {}
    session = g.get("web_session")
    if session is not None:
        params["ticket"] = websessions.stream_ticket(store(), session)
    target = game_page.stream_of(quote(game_id, safe=""))
    if params:
        target += f"?{urlencode(params)}"
    return BaseResponse(status=307, headers={"Location": target, "Cache-Control": "no-store"})


@blp.post("/games/<game_id>/presence")
@form_post
def presence_mark(game_id: str) -> Any:
    """The game page's word that it is visible (``state=visible``, every beat while it is)
    or hidden, closed or left (``hidden``): its player is at the table or leaving it
    (service/domain/presence.py). 204 either way; a caller without a seat marks nothing."""
    state = request.form.get("state")
    if state not in ("visible", "hidden"):
        abort(400, "state is visible or hidden")
    presence.page_says(store(), game_id, g.web_session.player["id"], state == "visible")
    return BaseResponse(status=204, headers={"Cache-Control": "no-store"})


@blp.get("/games/<game_id>/table.svg")
def table_svg(game_id: str) -> Any:
    """The table's board of version ``v`` for viewer ``s`` (live.viewer) in ``lang``, kept by
    the browser for good: another version, viewer or language is another URL, and a version's
    board never changes (a superseded one is rebuilt from the log, as the seat saw it then).
    Not this session's seat or language, or no such version: 404."""
    try:
        record, entries = store().read_log(game_id)
    except Problem:
        abort(404)
    session = g.get("web_session")
    seat = record.seat_of(session.player["id"]) if session else None
    asked = request.args.get("v", "")
    viewer, lang = request.args.get("s"), request.args.get("lang")
    mine = viewer == live_page.viewer(seat) and lang == language()
    if not (mine and is_ascii_digits(asked) and len(asked) <= 12):
        abort(404)
    if not table.on_board(record.type) or record.state is None:
        abort(404)
    version = int(asked)
    try:
        then = replay.record_at(record, entries, version)
    except Problem:
        abort(404)
    upto = [(v, entry) for v, entry in entries if v <= version]
    who = replay.seat_then(record, seat, version)
    legal = views.legal_actions(then, who) if who is not None else None
    have = keep.keys(request.args.get("have", ""))  # the map shown: not again (keep.py)
    svg = table.board_svg(then, upto, language(), table.open_hexes(then, legal), have)
    return live_page.compressed(str(svg), "image/svg+xml", live_page.FOREVER)


def _back(game_id: str) -> BaseResponse:
    return redirect(url_for("web.game", game_id=game_id))


@blp.post("/games/<game_id>/move")
@form_post
def move(game_id: str) -> Any:
    notation = request.form.get("notation", "")
    try:
        play.play(store(), g.web_session.player, game_id, notation, None, None, None, None)
    except Problem as error:
        _refused(error, {"notation": notation})
    return _back(game_id)


@blp.get("/games/<game_id>/staged")
def staged(game_id: str) -> Any:
    """The table's question while a move is built: what may follow the staged
    actions ``m`` (in order, not played), with where each goes on the board. JSON."""
    session = g.get("web_session")
    if session is None:
        abort(403)
    record = store().get_game(game_id)
    seat = record.seat_of(session.player["id"])
    if seat is None or not table.on_board(record.type):
        abort(403)
    moves = [m[:200] for m in request.args.getlist("m")][: play.MAX_ACTIONS]
    try:
        with i18n.speaking(language()):
            trial = play.staged_record(record, seat, moves, table.draws(record.type))
            legal = views.legal_actions(trial, seat) | {"version": record.version}
            focus = request.args.get("unit", "")[:40]  # a wargame counter picked up
            # Its march through waypoints ("via=4310,4209") with the command units going
            # along ("carry=H-ATTILA", "carry=": none; absent: the game's default).
            via = _listed(request.args.get("via", ""))
            carry = _listed(request.args["carry"]) if "carry" in request.args else None
            return jsonify(table.actions(trial, legal, seat, focus, via, carry))
    except Problem as error:
        if error.problem_code == table.BAD_MARCH:
            raise  # the page's own question was wrong: problem+json
        return jsonify({"error": str(error.description), **error.extra}), error.code


def _listed(text: str) -> list[str]:
    """A query's comma-separated list (bounded: a march names a few hexes or counters)."""
    items = [item.strip()[:40] for item in text[:400].split(",")]
    return [item for item in items if item][:20]


@blp.post("/games/<game_id>/moves")
@form_post
def moves(game_id: str) -> Any:
    """Confirm on the table: the staged actions ``m``, in order, as one atomic change
    (play.play_all, which takes as many and as long as the API does). A script asks for JSON;
    a form post is sent back to the game."""
    wanted = [m.strip() for m in request.form.getlist("m") if m.strip()]
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        if not wanted:
            raise Problem(422, "no-actions", "nothing was staged")
        outcome = play.play_all(store(), g.web_session.player, game_id, wanted, None, None, None)
    except Problem as error:
        if wants_json:
            return jsonify({"error": str(error.description), **error.extra}), error.code
        _refused(error, {})
        return _back(game_id)
    if wants_json:
        return jsonify({"version": outcome.body.get("version")})
    return _back(game_id)


@blp.post("/games/<game_id>/join")
@form_post
def join(game_id: str) -> Any:
    invite = request.form.get("invite", "")
    try:
        # An empty box is no code (an open game's seat), as an absent invite_code in the API.
        lifecycle.join_game(store(), g.web_session.player, game_id, invite or None)
    except Problem as error:
        _refused(error, {"invite": invite})
    return _back(game_id)


@blp.post("/games/<game_id>/start")
@form_post
def start(game_id: str) -> Any:
    try:
        lifecycle.start_game(store(), g.web_session.player, game_id)
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


@blp.post("/games/<game_id>/claim")
@form_post
def claim(game_id: str) -> Any:
    try:
        seats.claim_win(store(), g.web_session.player, game_id)
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


@blp.post("/games/<game_id>/rematch")
@form_post
def rematch(game_id: str) -> Any:
    """The end screen's "Rematch" and "Rematch offered — join" (POST …/rematch's twin): to the
    rematch, made or joined."""
    try:
        outcome = rematch_games.rematch(store(), g.web_session.player, game_id)
    except Problem as error:
        _note(str(error.description))
        return _back(game_id)
    return _back(str(outcome.body["id"]))


@blp.post("/games/<game_id>/review")
@form_post
def review(game_id: str) -> Any:
    """The end screen's "Review my decisions" (POST /v1/games/{id}/review's twin)."""
    try:
        reviews.request(store(), g.web_session.player, game_id)
    except Problem as error:
        _note(str(error.description))
    return redirect(url_for("web.game", game_id=game_id, _anchor="review"))


@blp.post("/games/<game_id>/seats/<int:seat>/offer")
@form_post
def offer(game_id: str, seat: int) -> Any:
    try:
        seats.offer_seat(store(), g.web_session.player, game_id, seat)
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


@blp.post("/games/<game_id>/seats/<int:seat>/take")
@form_post
def take(game_id: str, seat: int) -> Any:
    code = request.form.get("code", "")
    try:
        seats.take_seat(store(), g.web_session.player, game_id, seat, code)
    except Problem as error:
        _refused(error, {})
    return _back(game_id)


@blp.post("/games/<game_id>/say")
@form_post
def say(game_id: str) -> Any:
    # A form sends a textarea's line breaks as CR LF: a message keeps them as LF.
    text = request.form.get("text", "").replace("\r\n", "\n")
    to = request.form.get("to", "")
    # "" is the table; anything else names a seat, and one that is no seat (-1) is refused by
    # messages.post: a private word is never sent to everyone.
    to_seat = None if to == "" else int(to) if is_ascii_digits(to) and len(to) < 3 else -1
    # The page's script sends the form without leaving the page and asks for JSON: the
    # message as its sender sees it, or the refusal (the script then posts the form itself).
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        said = messages.post(store(), g.web_session.player, game_id, text, to_seat)
    except Problem as error:
        if wants_json:
            return jsonify({"error": str(error.description), **error.extra}), error.code
        _refused(error, {"text": text, "to": to})
        return _back(game_id)
    if wants_json:
        return jsonify(said), 201
    return _back(game_id)
