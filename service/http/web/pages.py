"""The pages and their form posts (see service/http/web/__init__.py)."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import wraps
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import force_locale, get_locale, gettext, ngettext
from werkzeug.exceptions import HTTPException

from engine.registry import game_ids, get_game
from engine.sentences import N_
from service.common import i18n
from service.common.numbers import is_ascii_digits
from service.common.problems import Problem
from service.domain import games, messages, prefs, seats, websessions
from service.http.web import game_page, table
from service.ops import config
from service.store import MAX_INDEX, Store

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
                static_url_path="/assets")  # fmt: skip

COOKIE = "kurier_session"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s]{1,63}$")
View = TypeVar("View", bound=Callable[..., Any])


def store() -> Store:
    return current_app.extensions["kurier.store"]  # type: ignore[no-any-return]


def _public_url() -> str:
    return config.public_url(os.environ)


def _stream_origin() -> str:
    parts = urlsplit(config.stream_url(os.environ))
    return f"{parts.scheme}://{parts.netloc}"


@blp.before_app_request
def _load_session() -> None:
    g.web_session = None
    if "web" in request.blueprints:  # its pages, and those of blueprints nested in it
        g.web_session = websessions.load(store(), request.cookies.get(COOKIE))


def page_language() -> str:
    """The page's language (Flask-Babel's locale selector): the signed-in player's
    ``language`` preference, else the browser's Accept-Language, else English."""
    session = g.get("web_session")
    chosen = prefs.language_of(store(), session.player["id"]) if session is not None else ""
    return chosen or i18n.negotiate(request.headers.get("Accept-Language"))


def language() -> str:
    """The language this request's page is in (``page_language``, cached by Flask-Babel)."""
    return str(get_locale() or i18n.DEFAULT)


#: Words the templates translate from a value (``_(row.status)``): marked here for extraction.
VALUE_WORDS = (
    N_("yes"),
    N_("no"),
    N_("open"),
    N_("active"),
    N_("finished"),
    N_("email"),
    N_("webhook"),
    N_("place"),
)
#: The notification types as the settings page names them (prefs.EVENT_TYPES, shortened).
EVENT_WORDS = (
    N_("started"),
    N_("turn started"),
    N_("sealed needed"),
    N_("conflict resolved"),
    N_("scored"),
    N_("deadline warning"),
    N_("timeout applied"),
    N_("ended"),
    N_("message"),
)


@blp.after_request
def _security_headers(response: Response) -> Response:
    # The game page may follow its game's stream on the stream server (kurier streams).
    response.headers["Content-Security-Policy"] = f"{CSP}; connect-src 'self' {_stream_origin()}"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Cache-Control", "private, no-store")
    return response


@blp.app_context_processor
def _globals() -> dict[str, Any]:
    session = g.get("web_session")
    note = g.get("web_note") or (websessions.take_note(store(), session) if session else None)
    return {
        "me": session.player if session else None,
        "csrf": session.csrf if session else "",
        "note": note,
        "lang": language(),
    }


def form_post(view: View) -> View:
    """A form post: signed in, with the session's CSRF token (403 otherwise)."""

    @wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        session = g.get("web_session")
        if session is None:
            return redirect(url_for("web.home"))
        if not websessions.csrf_ok(session, request.form.get("csrf")):
            abort(403, "the form is stale or not from this site: reload the page")
        return view(*args, **kwargs)

    return checked  # type: ignore[return-value]


#: What an error page says, by status, in a player's words.
ERROR_WORDS = {
    400: N_("That request was not understood."),
    403: N_("That is not allowed: the form may be stale (reload the page) or not yours."),
    404: N_("There is no such page or game here."),
    405: N_("That page cannot be used this way."),
    413: N_("That was too much to send at once."),
    429: N_("Too many requests in a short time: wait a moment and try again."),
    503: N_("The server is briefly unavailable: try again in a few seconds."),
}
OTHER_ERROR = N_("Something went wrong on our side; nothing was changed.")


def error_page(error: HTTPException) -> Response:
    """An error as a page (the app's handler calls this for browsers outside /v1)."""
    status = error.code or 500
    words = gettext(ERROR_WORDS.get(status, OTHER_ERROR))
    body = render_template("error.html", status=status, words=words)
    response = Response(body, status=status, mimetype="text/html")
    for name in ("Retry-After",):
        value = (getattr(error, "headers", None) or {}).get(name)
        if value:
            response.headers[name] = value
    return response


def _note(text: str) -> None:
    """Say ``text`` on the next page: kept in the session across the redirect, or (no
    session) shown on the page rendered now."""
    session = g.get("web_session")
    if session is not None:
        websessions.leave_note(store(), session, text)
    g.web_note = text


# -- signing in ---------------------------------------------------------------------------------


@blp.get("/")
def home() -> Any:
    session = g.get("web_session")
    if session is None:
        return render_template("signin.html")
    player = session.player
    rows = store().indexes.player_games(player["id"], None)
    summaries = [s for s in store().indexes.game_summaries([gid for gid, _ in rows]) if s]
    mine = [_lobby_row(s, player["id"]) for s in summaries]
    mine.sort(key=lambda row: (not row["my_turn"], -row["updated_at"]))
    open_games = games.open_games(store(), None, 20, {})["items"]
    joinable = [o for o in open_games if player["id"] not in [s["player_id"] for s in o["seats"]]]
    return render_template(
        "lobby.html",
        mine=mine,
        open_games=joinable,
        types=_game_types(),
        more=len(rows) >= MAX_INDEX,
    )


def _lobby_row(summary: dict[str, Any], player_id: str) -> dict[str, Any]:
    seat = summary["seats"].index(player_id)
    return {
        "id": summary["id"],
        "type": summary["type"],
        "status": summary["status"],
        "names": summary["names"],
        "max_seats": int(summary["max_seats"]),
        "my_turn": any(d["seat"] == seat for d in summary["pending"]),
        "updated_at": float(summary["updated_at"]),
        "waited": _ago(float(summary["updated_at"])),
        "deadline_at": float(summary["deadline_at"]) if summary.get("deadline_at") else None,
    }


def _ago(when: float) -> str:
    seconds = max(0, int(time.time() - when))
    if seconds >= 86_400:
        return ngettext("%(num)d day", "%(num)d days", seconds // 86_400)
    if seconds >= 3600:
        return ngettext("%(num)d hour", "%(num)d hours", seconds // 3600)
    if seconds >= 60:
        return ngettext("%(num)d minute", "%(num)d minutes", seconds // 60)
    return gettext("moments")


def _game_types() -> list[dict[str, Any]]:
    """Each type with the rule options a creator may change (those with alternatives)."""
    out = []
    for type_id in game_ids():
        game = get_game(type_id)
        options = [
            {
                "name": spec.name,
                "description": gettext(spec.description),
                "choices": [(json.dumps(c), gettext(i18n.choice_label(c))) for c in spec.choices],
                "default": json.dumps(spec.default),
            }
            for spec in game.options
            if len(spec.choices) > 1
        ]
        out.append(
            {
                "id": type_id,
                "title": gettext(game.title),
                "min": game.min_players,
                "max": game.max_players,
                "options": options,
            }
        )
    return out


@blp.post("/signin")
def signin() -> Any:
    email = (request.form.get("email") or "").strip()
    if not EMAIL.match(email):
        _note(gettext("That does not look like an email address."))
        return render_template("signin.html"), 422
    websessions.mail_signin_links(store(), email, _public_url(), language())
    return render_template("check_mail.html", email=email)


@blp.post("/register")
def register() -> Any:
    name = (request.form.get("name") or "").strip()
    email = (request.form.get("email") or "").strip()
    if not 1 <= len(name) <= 40 or any(ord(c) < 32 for c in name) or not EMAIL.match(email):
        _note(gettext("Give a name (1-40 characters) and an email address."))
        return render_template("signin.html"), 422
    store().players.create(name, email)  # the API token is not shown: the link signs in
    websessions.mail_signin_links(store(), email, _public_url(), language())
    return render_template("check_mail.html", email=email)


@blp.get("/signin/<token>")
def signin_link(token: str) -> Any:
    player_id = websessions.take_link(store(), token)
    if player_id is None:
        _note(gettext("That sign-in link was used already or has expired. Ask for a new one."))
        return render_template("signin.html"), 410
    return _signed_in(player_id)


@blp.post("/signin/token")
def signin_token() -> Any:
    token = (request.form.get("token") or "").strip()[:200]
    player = store().players.for_token(token)
    if player is None:
        _note(gettext("That is not a valid API token."))
        return render_template("signin.html"), 401
    return _signed_in(player["id"], token)  # the session ends when this token is revoked


def _signed_in(player_id: str, token: str | None = None) -> Response:
    session_id = websessions.start(store(), player_id, token)
    response = redirect(url_for("web.home"))
    secure = urlsplit(_public_url()).scheme == "https"
    response.set_cookie(
        COOKIE,
        session_id,
        max_age=websessions.SESSION_SECONDS,
        httponly=True,
        samesite="Lax",
        secure=secure,
        path="/",
    )
    return response


@blp.post("/signout")
@form_post
def signout() -> Any:
    websessions.end(store(), g.web_session.id)
    response = redirect(url_for("web.home"))
    response.delete_cookie(COOKIE, path="/")
    return response


# -- games --------------------------------------------------------------------------------------


@blp.post("/games")
@form_post
def create() -> Any:
    """The lobby's form: type, players, the type's rule options, deadline, access."""
    form = request.form
    type_id = form.get("type", "")
    try:
        seats = int(form.get("seats", "0")) if is_ascii_digits(form.get("seats", "")) else 0
        outcome = games.create_game(
            store(),
            g.web_session.player,
            type_id,
            _chosen_options(type_id, form),
            None,
            seats,
            deadline=_deadline(form),
            settings={
                "access": "open" if form.get("access") == "open" else "invite",
                "rated": form.get("rated") == "yes",
                "public": form.get("public") == "yes",
                "spectators_see_messages": form.get("spectators_see_messages") == "yes",
            },
        )
    except (Problem, ValueError) as error:
        _note(str(getattr(error, "description", "")) or gettext("choose a game type and seats"))
        return redirect(url_for("web.home"))
    return redirect(url_for("web.game", game_id=outcome.body["id"]))


def _chosen_options(type_id: str, form: Any) -> dict[str, Any]:
    """The options the form changed from their defaults (fields ``opt.<type>.<NAME>`` hold
    each choice as JSON: options are booleans, numbers, text or null)."""
    if type_id not in game_ids():
        return {}
    chosen = {}
    for spec in get_game(type_id).options:
        text = form.get(f"opt.{type_id}.{spec.name}")
        if text is None:
            continue
        try:
            value = json.loads(text[:200])
        except ValueError:
            raise Problem(422, "bad-option", f"option {spec.name}: not a choice") from None
        if value != spec.default:
            chosen[spec.name] = value
    return chosen


def _deadline(form: Any) -> dict[str, Any] | None:
    hours = (form.get("deadline_hours") or "").strip()[:10]
    if not hours:
        return None
    try:
        value = float(hours)
    except ValueError:
        raise Problem(422, "bad-deadline", "the deadline is a number of hours") from None
    if not 0.0005 <= value <= 24 * 60:
        raise Problem(422, "bad-deadline", "a deadline is between a few seconds and 60 days")
    policy = "remind_only" if form.get("deadline_policy") == "remind_only" else "default_move"
    return {"hours": value, "policy": policy, "remind_before_hours": 0, "vacation_max_days": 14}


@blp.get("/games/<game_id>")
def game(game_id: str) -> Any:
    try:
        record, entries = store().read_log(game_id)
    except Problem:
        abort(404)
    page = game_page.context(store(), record, entries, g.get("web_session"), language())
    return render_template("game.html", **page)


def _back(game_id: str) -> Response:
    return redirect(url_for("web.game", game_id=game_id))


@blp.post("/games/<game_id>/move")
@form_post
def move(game_id: str) -> Any:
    notation = (request.form.get("notation") or "").strip()[:500]
    try:
        games.play(store(), g.web_session.player, game_id, notation, None, None, None, None)
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


@blp.get("/games/<game_id>/staged")
def staged(game_id: str) -> Any:
    """The table's question while a move is built (issue 32): what may follow the staged
    actions ``m`` (in order, not played), with where each goes on the board. JSON."""
    session = g.get("web_session")
    if session is None:
        abort(403)
    record = store().get_game(game_id)
    seat = record.seat_of(session.player["id"])
    if seat is None or not table.on_board(record.type):
        abort(403)
    moves = [m[:200] for m in request.args.getlist("m")][: games.MAX_ACTIONS]
    try:
        with i18n.speaking(language()):
            return jsonify(table.actions(record, games.staged(record, seat, moves)))
    except Problem as error:
        return jsonify({"error": str(error.description), **error.extra}), error.code


@blp.post("/games/<game_id>/moves")
@form_post
def moves(game_id: str) -> Any:
    """Confirm on the table: the staged actions ``m``, in order, as one atomic change
    (games.play_all). A script asks for JSON; a form post is sent back to the game."""
    wanted = [m.strip()[:200] for m in request.form.getlist("m") if m.strip()]
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        if not wanted:
            raise Problem(422, "no-actions", "nothing was staged")
        outcome = games.play_all(
            store(), g.web_session.player, game_id, wanted[: games.MAX_ACTIONS], None, None, None
        )
    except Problem as error:
        if wants_json:
            return jsonify({"error": str(error.description), **error.extra}), error.code
        _note(str(error.description))
        return _back(game_id)
    if wants_json:
        return jsonify({"version": outcome.body.get("version")})
    return _back(game_id)


@blp.post("/games/<game_id>/join")
@form_post
def join(game_id: str) -> Any:
    try:
        games.join_game(store(), g.web_session.player, game_id, request.form.get("invite"))
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


@blp.post("/games/<game_id>/start")
@form_post
def start(game_id: str) -> Any:
    try:
        games.start_game(store(), g.web_session.player, game_id)
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
    code = (request.form.get("code") or "")[:64]
    try:
        seats.take_seat(store(), g.web_session.player, game_id, seat, code)
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


@blp.post("/games/<game_id>/say")
@form_post
def say(game_id: str) -> Any:
    text = (request.form.get("text") or "").replace("\r\n", "\n")[: messages.MAX_TEXT]
    to = request.form.get("to", "")
    # "" is the table; anything else names a seat, and one that is no seat (-1) is refused by
    # messages.post: a private word is never sent to everyone.
    to_seat = None if to == "" else int(to) if is_ascii_digits(to) and len(to) < 3 else -1
    try:
        messages.post(store(), g.web_session.player, game_id, text, to_seat)
    except Problem as error:
        _note(str(error.description))
    return _back(game_id)


# -- settings -----------------------------------------------------------------------------------


@blp.get("/settings")
def settings() -> Any:
    session = g.get("web_session")
    if session is None:
        return redirect(url_for("web.home"))
    player_id = session.player["id"]
    chosen = prefs.read(store(), player_id)
    until = chosen["vacation_until"]
    return render_template(
        "settings.html",
        prefs=chosen,
        vacation_day=datetime.fromtimestamp(until, UTC).date().isoformat() if until else "",
        types=prefs.EVENT_TYPES,
        channels=prefs.CHANNELS,
        languages=list(i18n.NAMES.items()),
        tokens=store().tokens.listed(player_id),
    )


@blp.post("/settings")
@form_post
def save_settings() -> Any:
    form = request.form
    data: dict[str, Any] = {
        "name": (form.get("name") or "").strip()[:80],
        "email": (form.get("email") or "").strip() or None,
        "timezone": (form.get("timezone") or "UTC").strip()[:64],
        "notify": {
            kind: [c for c in prefs.CHANNELS if form.get(f"notify:{kind}:{c}")]
            for kind in prefs.EVENT_TYPES
        },
        "webhook_url": (form.get("webhook_url") or "").strip() or None,
    }
    if form.get("language"):
        data["language"] = form["language"][:8]
    mails = _fewer_mails(form)
    if isinstance(mails, str):
        return _settings_note(mails)
    data.update(mails)
    if not data["name"] or any(ord(c) < 32 for c in data["name"]):
        return _settings_note(gettext("A name is 1-40 characters, without control characters."))
    if data["email"] and not EMAIL.match(data["email"]):
        return _settings_note(gettext("That does not look like an email address."))
    until = (form.get("vacation_until") or "").strip()
    try:
        data["vacation_until"] = (
            datetime.fromisoformat(until).replace(tzinfo=UTC) if until else None
        )
        issued = prefs.apply(store(), g.web_session.player["id"], data)
    except ValueError:
        return _settings_note(gettext("The vacation date is a day such as 2026-12-24."))
    except Problem as error:
        return _settings_note(str(error.description))
    # The answer is in the language just chosen.
    with force_locale(data.get("language") or language()):
        if issued:
            return _show_once(
                gettext(
                    "Saved. Your webhook signing secret (shown once): %(secret)s", secret=issued
                )
            )
        return _settings_note(gettext("Saved."))


def _fewer_mails(form: Any) -> dict[str, Any] | str:
    """The digest and quiet hours of the settings form (prefs.apply checks them), or what
    is wrong with them."""
    hour = (form.get("digest_hour") or "").strip()
    if hour and not (is_ascii_digits(hour) and len(hour) <= 2):
        return gettext("The digest hour is a whole hour 0-23.")
    start = (form.get("quiet_start") or "").strip()[:5]
    end = (form.get("quiet_end") or "").strip()[:5]
    if bool(start) != bool(end):
        return gettext("Quiet hours need both a start and an end (or neither).")
    out: dict[str, Any] = {
        "digest": (form.get("digest") or "off").strip()[:10],
        "quiet_hours": {"start": start, "end": end} if start else None,
    }
    if hour:
        out["digest_hour"] = int(hour)
    return out


@blp.post("/settings/tokens")
@form_post
def make_token() -> Any:
    name = (request.form.get("name") or "").strip()[:60] or "token"
    made = store().tokens.create(g.web_session.player["id"], name)
    return _show_once(
        gettext(
            "Your new token %(name)s (shown once): %(token)s", name=repr(name), token=made["token"]
        )
    )


@blp.post("/settings/tokens/<token_id>/revoke")
@form_post
def revoke(token_id: str) -> Any:
    store().tokens.revoke(g.web_session.player["id"], token_id)
    return _settings_note(gettext("Revoked."))


def _show_once(secret_note: str) -> Any:
    """A secret is shown in this answer only: not kept in the session for the next page."""
    g.web_note = secret_note
    return settings()


def _settings_note(text: str) -> Response:
    _note(text)
    return redirect(url_for("web.settings"))
