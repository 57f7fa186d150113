"""One-click unsubscribe (RFC 8058) for the link in every notification mail's
``List-Unsubscribe`` header (service/domain/unsubscribe.py makes and checks the token).

``GET /unsubscribe/<token>`` shows a page that asks to confirm (a link checker or a mail
program that fetches links must not turn anything off); ``POST`` with the form field
``List-Unsubscribe=One-Click`` (what a mail program sends for its "unsubscribe" button, and
what the page's button sends) turns the player's notification mails off, idempotent. No
session and no CSRF token: the signed token is the permission, and the POST comes from the
reader's mail provider, not from a page of ours. A bad token is 404, a POST without the field
400.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request
from flask_babel import force_locale

from service.common import i18n
from service.domain import prefs, unsubscribe
from service.store import Store

blp = Blueprint("unsubscribe", __name__, template_folder="templates")

#: The web pages' policy (service/http/web/pages.py) without a stream to connect to.
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def _store() -> Store:
    return current_app.extensions["kurier.store"]


@blp.after_request
def _headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    # The URL is the permission: no link on the page may carry it elsewhere.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Robots-Tag"] = "noindex"
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _language(player_id: str) -> str:
    """The player's language (the page speaks to the player the mail went to), else the
    browser's."""
    chosen = prefs.language_of(_store(), player_id)
    return chosen or i18n.negotiate(request.headers.get("Accept-Language"))


def _player(token: str) -> str:
    player_id = unsubscribe.player_of(_store(), token[:128])
    if player_id is None:
        abort(404)
    return player_id


@blp.get("/unsubscribe/<token>")
def confirm(token: str) -> Any:
    player_id = _player(token)
    store = _store()
    with force_locale(_language(player_id)):
        return render_template(
            "unsubscribe.html", token=token, done=False, on=unsubscribe.mails_on(store, player_id)
        )


@blp.post("/unsubscribe/<token>")
def one_click(token: str) -> Any:
    player_id = _player(token)
    if request.form.get("List-Unsubscribe") != "One-Click":
        abort(400)
    store = _store()
    unsubscribe.stop_mails(store, player_id)
    with force_locale(_language(player_id)):
        return render_template("unsubscribe.html", token=token, done=True, on=False)
