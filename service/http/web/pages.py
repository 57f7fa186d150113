"""The pages and their form posts (see service/http/web/__init__.py).

Why this module is over 700 lines (issue 39 asks for a reason): it holds the one blueprint's
routes, which this wave grew (sign-in hardening, kept forms on error pages, the table's moves,
the live parts); the view models already live beside it (game_page.py, settings_page.py,
table.py, live.py, standings.py, club.py). The next split is by page family on the same
blueprint: sign-in and registration, settings and tokens, the game's routes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import wraps
from pathlib import Path
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
from service.domain import (
    accounts,
    bots,
    games,
    inputs,
    messages,
    prefs,
    ratelimit,
    seats,
    websessions,
)
from service.domain import rematch as rematch_games
from service.http.outage import OUTAGE_ERRORS
from service.http.web import game_page, settings_page, table
from service.http.web import live as live_page
from service.ops import config
from service.pictures import keep
from service.store import MAX_INDEX, Store

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
                static_url_path="/assets")  # fmt: skip

COOKIE = "kurier_session"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
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
    """The browser's session, for the pages and for the rate limit, which counts a signed-in
    browser by its player (service/domain/ratelimit.py) wherever it goes: the pages, and the
    API calls of the pages' script. Static files need none."""
    g.web_session = None
    if request.endpoint == "web.static" or COOKIE not in request.cookies:
        return
    g.web_session = websessions.load(store(), request.cookies.get(COOKIE))
    if g.web_session is not None:
        g.kurier_session_player = g.web_session.player["id"]


def page_language() -> str:
    """The page's language (Flask-Babel's locale selector): the signed-in player's
    ``language`` preference, else the browser's Accept-Language, else English. An error page
    in an outage cannot read the preference: the browser's language then."""
    session = g.get("web_session")
    try:
        chosen = prefs.language_of(store(), session.player["id"]) if session is not None else ""
    except OUTAGE_ERRORS:
        chosen = ""
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
    N_("invited"),
    N_("seats filled"),
    N_("started"),
    N_("turn started"),
    N_("sealed needed"),
    N_("conflict resolved"),
    N_("scored"),
    N_("deadline warning"),
    N_("timeout applied"),
    N_("ended"),
    N_("message"),
    N_("round started"),
)


@blp.after_request
def _security_headers(response: Response) -> Response:
    # The game page may follow its game's stream on the stream server (kurier streams).
    response.headers["Content-Security-Policy"] = f"{CSP}; connect-src 'self' {_stream_origin()}"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Content-Type-Options"] = "nosniff"
    if request.endpoint == "web.static":
        # Under its versioned URL (``asset``) a file never changes: cached for good. Any other
        # URL of it (a page from before a deploy) is checked again each time.
        name = (request.view_args or {}).get("filename", "")
        versioned = request.args.get("v") == asset_versions().get(name)
        response.headers["Cache-Control"] = IMMUTABLE if versioned else "no-cache"
    response.headers.setdefault("Cache-Control", "private, no-store")
    return response


#: How a static file is cached under its versioned URL.
IMMUTABLE = "public, max-age=31536000, immutable"


@functools.cache
def asset_versions() -> dict[str, str]:
    """Each static file's version (by its path under static/, e.g. ``games/attila.js``): the
    start of its content's SHA-256, read once per process (the files change only with a
    deploy, which restarts it)."""
    folder = Path(blp.static_folder or "")
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@blp.app_template_global()
def asset(filename: str) -> str:
    """A static file's URL with its version (``?v=``): a new file is a new URL, so browsers
    and proxies may keep each one for a year."""
    return url_for("web.static", filename=filename, v=asset_versions()[filename])


@blp.app_context_processor
def _globals() -> dict[str, Any]:
    session = g.get("web_session")
    note, typed = g.get("web_note"), g.get("web_typed") or {}
    # An error page reads nothing more from Redis (it may be the reason for the page).
    if note is None and session is not None and not g.get("web_error"):
        note, typed = websessions.take_note(store(), session)
    return {
        "me": session.player if session else None,
        "csrf": session.csrf if session else "",
        "note": note,
        "typed": typed,
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
#: A pre-session form posted by another site's page (``same_site_form``).
CROSS_SITE = "cross-site-form"
#: What an error page says for a problem code, where the status alone says too little.
CODE_WORDS = {
    CROSS_SITE: N_(
        "This form was sent from another site, so nothing was done. To sign in or register, "
        "use the forms on this site's own page."
    ),
}
#: Refusals after which the same form may simply be sent again: the error page keeps it.
RETRYABLE = (429, 500, 503)
#: Form fields the error page shows to be edited (the rest it keeps hidden), with their label.
TYPED_FIELDS = {
    "text": N_("Your message"),
    "notation": N_("Your move"),
    "m": N_("Your moves"),  # the table's staged actions, one field each
    "name": N_("Name"),
    "email": N_("Email"),
}
#: Fields never written into a page: a form that sent one is not kept (paste it again).
SECRET_FIELDS = ("token",)


def error_page(error: HTTPException) -> Response:
    """An error as a page (the app's handler calls this for browsers outside /v1), with the
    page's security headers. A refused form post that may be sent again (429, 503, 500) comes
    back filled in, in a form that sends it again: what the player typed is not lost."""
    g.web_error = True
    status = error.code or 500
    code = error.problem_code if isinstance(error, Problem) else ""
    words = gettext(CODE_WORDS.get(code) or ERROR_WORDS.get(status, OTHER_ERROR))
    headers = error.extra_headers if isinstance(error, Problem) else dict(error.get_headers())
    retry = headers.get("Retry-After", "")
    body = render_template(
        "error.html",
        status=status,
        words=words,
        retry=int(retry) if is_ascii_digits(retry) else None,
        kept=_kept_form() if status in RETRYABLE else None,
        again=request.full_path.rstrip("?") if request.method == "GET" else None,
        # A session that could not be read (the store is down) is still the player's.
        has_session=COOKIE in request.cookies,
    )
    response = Response(body, status=status, mimetype="text/html")
    if retry:
        response.headers["Retry-After"] = retry
    return _security_headers(response)


def _kept_form() -> dict[str, Any] | None:
    """The refused post's fields, to send again from the error page: only a form of these
    pages posted from this site (re-offering a cross-site post would turn a forged form into
    one click on our own page)."""
    if request.method != "POST" or "web" not in request.blueprints or cross_site_post():
        return None
    try:
        sent = [(name, value) for name, values in request.form.lists() for value in values]
    except HTTPException:
        return None  # the body itself was the trouble
    if any(name in SECRET_FIELDS for name, _ in sent):
        return None
    shown = [
        {"name": name, "value": value, "label": gettext(TYPED_FIELDS[name])}
        for name, value in sent
        if name in TYPED_FIELDS
    ]
    if not shown:
        return None
    hidden = [(name, value) for name, value in sent if name not in TYPED_FIELDS]
    return {"action": request.path, "shown": shown, "hidden": hidden}


def _note(text: str, typed: Mapping[str, str] | None = None) -> None:
    """Say ``text`` on the next page, with what was ``typed`` into the refused form filled in
    again: kept in the session across the redirect, or (no session) shown on the page
    rendered now."""
    session = g.get("web_session")
    if session is not None:
        websessions.leave_note(store(), session, text, typed)
    g.web_note = text
    g.web_typed = dict(typed or {})


#: What a refusal of these forms says, by the field it names (service/domain/inputs.py's rules
#: name them as the API does); a refusal naming no field here says its own detail.
FORM_WORDS = {
    "name": settings_page.SETTINGS_WORDS["name"],
    "email": settings_page.SETTINGS_WORDS["email"],
    "text": N_(
        "A message is 1-2000 characters, not only spaces, without control characters other "
        "than line breaks."
    ),
    "invite_code": N_("That is not an invite code: paste the code or open the link you got."),
    "notation": N_("A move is 1-200 characters, as in a mail."),
    "deadline": N_("A deadline is a number of hours from 0.0005 (about 2 seconds) to 1440."),
    "seats": N_("Choose how many players the game takes."),
}


def _refused(error: Problem, typed: Mapping[str, str]) -> None:
    """Say what was wrong with a form, keeping what was typed."""
    _note(settings_page.refusal(error, FORM_WORDS), typed)


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
        bot_levels=[
            ("easy", gettext("easy")),
            ("medium", gettext("medium")),
            ("hard", gettext("hard")),
        ],
        bot_paces=_bot_paces(),
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
                "play_now": bots.play_now_seats(type_id),
                "options": options,
            }
        )
    return out


def _own_origins() -> set[str]:
    """This site as a browser names it in ``Origin``: the public URL's origin, and the one
    this request was sent to (a proxy's scheme only from a trusted proxy: proxies.py)."""
    public = urlsplit(_public_url())
    return {f"{public.scheme}://{public.netloc}".lower(), request.host_url.rstrip("/").lower()}


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def cross_site_post() -> bool:
    """Whether a page of another site made the browser send this post, by what the browser
    says of it: the forms before a session have no CSRF token to carry.

    ``Sec-Fetch-Site: same-origin`` passes; ``cross-site`` and ``same-site`` (a sibling
    subdomain, which may be anyone's) do not; ``none`` (the user's own doing) passes with an
    ``Origin`` or ``Referer`` of this site. Without ``Sec-Fetch-Site`` (an older browser) the
    ``Origin`` decides (``null`` is no site of ours), else the ``Referer``. A client that sends
    none of them is no browser, and no visitor of another site's page: it passes."""
    headers = request.headers
    site = headers.get("Sec-Fetch-Site")
    if site == "same-origin":
        return False
    if site in ("cross-site", "same-site"):
        return True
    origin, referer = headers.get("Origin"), headers.get("Referer")
    own = _own_origins()
    if site == "none":
        return not ((origin and origin.lower() in own) or (referer and _origin_of(referer) in own))
    if origin is not None:
        return origin.lower() not in own
    return bool(referer) and _origin_of(referer or "") not in own


def _opened_from_another_site() -> bool:
    """Whether a page of another site opened this link (not the user: a mail program, a
    typed or pasted address, this site's own pages)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("cross-site", "same-site")
    referer = request.headers.get("Referer")
    return bool(referer) and _origin_of(referer or "") not in _own_origins()


def same_site_form(view: View) -> View:
    """A form post that comes before a session: refused (403, before anything is read or
    sent) when another site's page posted it (``cross_site_post``). Such a post could mail a
    stranger, register someone, or sign the visitor in as the attacker (login CSRF)."""

    @wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if cross_site_post():
            raise Problem(403, CROSS_SITE, "this form was sent from another site; nothing was done")
        return view(*args, **kwargs)

    return checked  # type: ignore[return-value]


def _mail_links(email: str) -> bool:
    """Mail the sign-in links for ``email`` unless that address had its mails for now
    (``KURIER_SIGNIN_MAIL_LIMIT``); whether they were sent."""
    if not ratelimit.signin_mail_allowed(email):
        return False
    websessions.mail_signin_links(store(), email, _public_url(), language())
    return True


def _check_mail(email: str, sent: bool) -> str:
    """The page after a sign-in mail was asked for: the same whether the address is known or
    not; it names the local outbox when mail goes there (no KURIER_SMTP_URL)."""
    outbox = config.local_outbox(os.environ)
    return render_template(
        "check_mail.html", email=email, sent=sent, outbox=str(outbox) if outbox else ""
    )


@blp.post("/signin")
@same_site_form
def signin() -> Any:
    email = (request.form.get("email") or "").strip()
    try:
        inputs.email(email)
    except inputs.Refused:
        _note(gettext("That does not look like an email address."), {"email": email})
        return render_template("signin.html"), 422
    return _check_mail(email, _mail_links(email))


@blp.post("/register")
@same_site_form
def register() -> Any:
    """POST /v1/players's twin (the same checks: accounts.create), with an address to mail
    the sign-in link to."""
    name, email = request.form.get("name", ""), request.form.get("email", "")
    try:
        if not email:
            raise inputs.problem("email", inputs.Refused("Missing data for required field."))
        accounts.create(store(), name, email)  # the API token is not shown: the link signs in
    except Problem as error:
        _refused(error, {"name": name, "email": email})
        return render_template("signin.html"), 422
    return _check_mail(email, _mail_links(email))


def _link_gone() -> tuple[str, int]:
    _note(gettext("That sign-in link was used already or has expired. Ask for a new one."))
    return render_template("signin.html"), 410


@blp.get("/signin/<token>")
def signin_link(token: str) -> Any:
    """The mailed link signs in, unless a page of another site opened it: that may be an
    attacker's own link, which would sign the visitor in as the attacker. Then a button asks
    first (the link stays unused until it is pressed)."""
    if _opened_from_another_site():
        player_id = websessions.peek_link(store(), token)
        player = store().players.get(player_id) if player_id else None
        if player is None:
            return _link_gone()
        return render_template("signin_link.html", token=token, name=player["name"])
    player_id = websessions.take_link(store(), token)
    if player_id is None:
        return _link_gone()
    return _signed_in(player_id)


@blp.post("/signin/<token>")
@same_site_form
def signin_link_confirmed(token: str) -> Any:
    player_id = websessions.take_link(store(), token)
    if player_id is None:
        return _link_gone()
    return _signed_in(player_id)


@blp.post("/signin/token")
@same_site_form
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
    """The lobby's form: type, players, the type's rule options, deadline, access (POST
    /v1/games's twin: games.create_game checks each as the API does)."""
    form = request.form
    type_id = form.get("type", "")
    try:
        seats = _whole_number(form.get("seats", ""), "seats")
        bots = _form_bots(form, seats)
        settings = {
            "access": "open" if form.get("access") == "open" else "invite",
            "public": form.get("public") == "yes",
            "spectators_see_messages": form.get("spectators_see_messages") == "yes",
            "bot_delay_seconds": _bot_delay(form.get("bot_delay_seconds", "0")),
        }
        if not bots:  # a game against a bot is never rated from here (docs/bots.md)
            settings["rated"] = form.get("rated") == "yes"
        outcome = games.create_game(
            store(),
            g.web_session.player,
            type_id,
            _chosen_options(type_id, form),
            None,
            seats,
            deadline=_deadline(form),
            settings=settings,
            bots=bots,
            # A profile's "Play with": that player joins without the code.
            invited=[form["invite_player"][:64]] if form.get("invite_player") else [],
        )
    except Problem as error:
        _refused(error, _typed(form))
        return redirect(url_for("web.home"))
    return redirect(url_for("web.game", game_id=outcome.body["id"]))


def _form_bots(form: Any, seats: int) -> list[dict[str, Any]]:
    """The seats the form gives to bots (``bot.<seat>``: a level; anything else is a person's
    seat), as the API would be sent them (games.create_game checks them)."""
    chosen = []
    for seat in range(1, min(seats, inputs.SEATS[1])):
        level = form.get(f"bot.{seat}", "")
        if level:
            chosen.append({"seat": seat, "level": level})
    return chosen


def _bot_paces() -> list[tuple[str, str]]:
    """The form's paces of its bots: seconds before a bot moves, and their labels."""
    return [
        ("0", gettext("at once")),
        ("60", gettext("after a minute")),
        ("3600", gettext("after an hour")),
        ("86400", gettext("after a day, like a correspondence player")),
    ]


def _bot_delay(text: str) -> int:
    return int(text) if text in dict(_bot_paces()) else 0


@blp.post("/games/play-now")
@form_post
def play_now() -> Any:
    """The lobby's one click: a game against bots, started, the player taken to the table."""
    form = request.form
    level = form.get("level", bots.PLAY_NOW_LEVEL)
    try:
        outcome = bots.play_now(store(), g.web_session.player, form.get("type", ""), level)
    except Problem as error:
        _refused(error, _typed(form))
        return redirect(url_for("web.home"))
    return redirect(url_for("web.game", game_id=outcome.body["id"]))


def _typed(form: Any) -> dict[str, str]:
    """A form's fields as typed (the first value of each), without its CSRF token."""
    return {name: value for name, value in form.items() if name != "csrf"}


def _whole_number(text: str, field: str) -> int:
    """A form's number field as the integer the API would be sent (ASCII digits)."""
    if not (is_ascii_digits(text) and len(text) <= 18):
        raise inputs.problem(field, inputs.Refused("Not a valid integer."))
    return int(text)


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
    """The deadline the form asks for, as the API would be sent it (games.create_game checks
    it: inputs.deadline)."""
    hours = (form.get("deadline_hours") or "").strip()
    if not hours:
        return None
    try:
        value = float(hours[:40])
    except ValueError:
        raise inputs.problem("deadline", inputs.Refused("Not a valid number.")) from None
    policy = "remind_only" if form.get("deadline_policy") == "remind_only" else "default_move"
    return {"hours": value, "policy": policy, "remind_before_hours": 0, "vacation_max_days": 14}


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


@blp.get("/games/<game_id>/table.svg")
def table_svg(game_id: str) -> Any:
    """The table's board of version ``v`` for viewer ``s`` (live.viewer) in ``lang``, kept by
    the browser for good: another version, viewer or language is another URL. Not the current
    version or not this session's seat or language: 404 (the page then reloads)."""
    try:
        record, entries = store().read_log(game_id)
    except Problem:
        abort(404)
    session = g.get("web_session")
    seat = record.seat_of(session.player["id"]) if session else None
    current = request.args.get("v") == str(record.version)
    viewer, lang = request.args.get("s"), request.args.get("lang")
    mine = viewer == live_page.viewer(seat) and lang == language()
    if not (current and mine):
        abort(404)
    if not table.on_board(record.type) or record.state is None:
        abort(404)
    legal = games.legal_actions(record, seat) if seat is not None else None
    have = keep.keys(request.args.get("have", ""))  # the map shown: not again (keep.py)
    svg = table.board_svg(record, entries, language(), table.open_hexes(record, legal), have)
    return live_page.compressed(str(svg), "image/svg+xml", live_page.FOREVER)


def _back(game_id: str) -> Response:
    return redirect(url_for("web.game", game_id=game_id))


@blp.post("/games/<game_id>/move")
@form_post
def move(game_id: str) -> Any:
    notation = request.form.get("notation", "")
    try:
        games.play(store(), g.web_session.player, game_id, notation, None, None, None, None)
    except Problem as error:
        _refused(error, {"notation": notation})
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
            trial = games.staged_record(record, seat, moves, table.draws(record.type))
            legal = games.legal_actions(trial, seat) | {"version": record.version}
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
    (games.play_all, which takes as many and as long as the API does). A script asks for JSON;
    a form post is sent back to the game."""
    wanted = [m.strip() for m in request.form.getlist("m") if m.strip()]
    wants_json = request.accept_mimetypes.best == "application/json"
    try:
        if not wanted:
            raise Problem(422, "no-actions", "nothing was staged")
        outcome = games.play_all(store(), g.web_session.player, game_id, wanted, None, None, None)
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
        games.join_game(store(), g.web_session.player, game_id, invite or None)
    except Problem as error:
        _refused(error, {"invite": invite})
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
    try:
        messages.post(store(), g.web_session.player, game_id, text, to_seat)
    except Problem as error:
        _refused(error, {"text": text, "to": to})
    return _back(game_id)


# -- settings -----------------------------------------------------------------------------------


@blp.get("/settings")
def settings() -> Any:
    if g.get("web_session") is None:
        return redirect(url_for("web.home"))
    return _settings_page()


def _settings_page(
    status: int = 200,
    typed: Mapping[str, str] | None = None,
    invalid: str | None = None,
    token_name: str = "",
) -> Any:
    """The settings page: the stored preferences, or (a refused form, ``status`` 422) what
    was typed, with the field named by the refusal (``invalid``) marked."""
    player = g.web_session.player
    form = settings_page.values(player, prefs.read(store(), player["id"]), typed)
    body = render_template(
        "settings.html",
        form=form,
        invalid=invalid,
        zones=settings_page.zone_groups(form["timezone"]),
        types=prefs.EVENT_TYPES,
        channels=prefs.CHANNELS,
        languages=list(i18n.NAMES.items()),
        tokens=store().tokens.listed(player["id"]),
        token_name=token_name,
    )
    return body, status


@blp.post("/settings")
@form_post
def save_settings() -> Any:
    """PATCH /v1/me's twin: the form's values, as the API would be sent them, go through
    prefs.apply, which checks each by the API's rules. A refusal shows the page again (422)
    with what was typed and the field marked; nothing is stored."""
    form = request.form
    try:
        data = _settings_data(form)
        issued = prefs.apply(store(), g.web_session.player["id"], data)
    except Problem as error:
        g.web_note = settings_page.refusal(error, settings_page.SETTINGS_WORDS)
        return _settings_page(422, typed=_typed(form), invalid=error.extra.get("field"))
    # The answer is in the language just chosen.
    with force_locale(data.get("language") or language()):
        if issued:
            return _show_once(
                gettext(
                    "Saved. Your webhook signing secret (shown once): %(secret)s", secret=issued
                )
            )
        return _settings_note(gettext("Saved."))


def _settings_data(form: Any) -> dict[str, Any]:
    """The form as PATCH /v1/me's body: a field the form lacks is left as it is; an empty box
    is null (no email, no webhook, no vacation, no quiet hours)."""
    data: dict[str, Any] = {
        name: form[name]
        for name in ("name", "timezone", "language", "confirm_moves", "digest")
        if name in form
    }
    for name in ("email", "webhook_url"):
        if name in form:
            data[name] = form[name] or None
    data["notify"] = {
        kind: [c for c in prefs.CHANNELS if form.get(f"notify:{kind}:{c}")]
        for kind in prefs.EVENT_TYPES
    }
    if "vacation_until" in form:
        data["vacation_until"] = _vacation_day(form["vacation_until"])
    hour = form.get("digest_hour", "")
    if hour:
        data["digest_hour"] = _whole_number(hour, "digest_hour")
    start, end = form.get("quiet_start", ""), form.get("quiet_end", "")
    if "quiet_start" in form or "quiet_end" in form:
        data["quiet_hours"] = {"start": start, "end": end} if start or end else None
    return data


def _vacation_day(day: str) -> datetime | None:
    """The date box's day (its start, in UTC); prefs.apply bounds it."""
    if not day:
        return None
    try:
        when = datetime.fromisoformat(day[:40])
    except ValueError:
        raise inputs.problem("vacation_until", inputs.Refused(inputs.DATE_ERROR)) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


@blp.post("/settings/tokens")
@form_post
def make_token() -> Any:
    """POST /v1/me/tokens's twin (accounts.create_token checks the name as the API does)."""
    name = request.form.get("name", "")
    try:
        made = accounts.create_token(store(), g.web_session.player["id"], name)
    except Problem as error:
        g.web_note = settings_page.refusal(error, settings_page.TOKEN_WORDS)
        return _settings_page(422, invalid="token_name", token_name=name)
    return _show_once(
        gettext(
            "Your new token %(name)s (shown once): %(token)s", name=repr(name), token=made["token"]
        )
    )


@blp.post("/settings/tokens/<token_id>/revoke")
@form_post
def revoke(token_id: str) -> Any:
    """DELETE /v1/me/tokens/{id}'s twin: an id the player has no token by is refused (404)."""
    if not store().tokens.revoke(g.web_session.player["id"], token_id):
        g.web_note = gettext("There is no such token: it may be revoked already.")
        return _settings_page(404)
    return _settings_note(gettext("Revoked."))


def _show_once(secret_note: str) -> Any:
    """A secret is shown in this answer only: not kept in the session for the next page."""
    g.web_note = secret_note
    return _settings_page()


def _settings_note(text: str) -> Response:
    _note(text)
    return redirect(url_for("web.settings"))
