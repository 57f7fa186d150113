"""The web pages' frame (see service/http/web/__init__.py): the one blueprint ``web``, the
browser's session and its CSRF check (``form_post``), the page's language, the security headers,
versioned static files, the note a page shows after a form (``_note``, ``_refused``), the error
pages, and the check that a form before a session was posted by this site (``cross_site_post``).
The page families (sign-in, lobby, game, settings) add their routes to ``blp`` beside it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable, Mapping
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
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale, gettext
from werkzeug.exceptions import HTTPException

from engine.sentences import N_
from service.common import i18n
from service.common.numbers import is_ascii_digits
from service.common.problems import Problem
from service.domain import inputs, prefs, websessions
from service.http.outage import OUTAGE_ERRORS
from service.http.web import settings_page
from service.ops import config
from service.store import Store

#: The blueprint's templates and static files are in service/http/web/ (its ``root_path``).
blp = Blueprint("web", __name__, root_path=str(Path(__file__).resolve().parent.parent),
                template_folder="templates", static_folder="static",
                static_url_path="/assets")  # fmt: skip

COOKIE = "kurier_session"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
View = TypeVar("View", bound=Callable[..., Any])


def store() -> Store:
    return current_app.extensions["kurier.store"]


def _public_url() -> str:
    return config.public_url(os.environ)


def _stream_origin() -> str:
    parts = urlsplit(config.stream_url(os.environ))
    return f"{parts.scheme}://{parts.netloc}"


@blp.before_app_request
def _load_session() -> None:
    """The browser's session, for the pages and for the rate limit, which counts a signed-in
    browser by its player (service/domain/ratelimit.py) wherever it goes: the pages, and the
    API calls of the pages' script. Static files need none, nor a request without a Cookie
    header (an API client's, asked first), whose cookies are then not parsed (9 µs a
    request)."""
    g.web_session = None
    if (
        "HTTP_COOKIE" not in request.environ
        or request.endpoint == "web.static"
        or COOKIE not in request.cookies
    ):
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
    N_("opponent on leave"),
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


#: A bot's name as service/domain/games/lifecycle.py ``bot_identity`` gives it, numbered when
#: two bots of a game share a level.
_NUMBERED_BOT = re.compile(r"Bot (\d+) \(\w+\)")


@blp.app_template_global()
def bot_name(name: str, level: str) -> str:
    """A bot's name with its level in the reader's language: "Bot (medium)", "Bot 3 (hard)"."""
    numbered = _NUMBERED_BOT.fullmatch(name)
    if numbered:
        return gettext("Bot %(num)s (%(level)s)", num=int(numbered[1]), level=gettext(level))
    return gettext("Bot (%(level)s)", level=gettext(level))


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
    "deadline": N_(
        "A deadline is a number of hours from 0.0005 (about 2 seconds) to 1440, or a time "
        "bank of 0 to 365 days that holds at most its cap, at least its days at the start."
    ),
    "seats": N_("Choose how many players the game takes."),
}


def _refused(error: Problem, typed: Mapping[str, str]) -> None:
    """Say what was wrong with a form, keeping what was typed."""
    _note(settings_page.refusal(error, FORM_WORDS), typed)


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


def _typed(form: Any) -> dict[str, str]:
    """A form's fields as typed (the first value of each), without its CSRF token."""
    return {name: value for name, value in form.items() if name != "csrf"}


def _whole_number(text: str, field: str) -> int:
    """A form's number field as the integer the API would be sent (ASCII digits)."""
    if not (is_ascii_digits(text) and len(text) <= 18):
        raise inputs.problem(field, inputs.Refused("Not a valid integer."))
    return int(text)
