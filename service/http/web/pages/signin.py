"""Signing in and out: the mailed link, registration, an API token, and the check that a
form posted before a session comes from this site's own page (``same_site_form``).
"""

from __future__ import annotations

import os
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from flask import g, redirect, render_template, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as BaseResponse

from service.common.problems import Problem
from service.domain import accounts, inputs, ratelimit, websessions
from service.http.web.pages.base import (
    COOKIE,
    CROSS_SITE,
    View,
    _note,
    _origin_of,
    _own_origins,
    _public_url,
    _refused,
    blp,
    cross_site_post,
    form_post,
    language,
    store,
)
from service.ops import config


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
    the sign-in link to. A name and address registered already make no twin: the same page
    and mail as signing in (the page says the same either way)."""
    name, email = request.form.get("name", ""), request.form.get("email", "")
    try:
        if not email:
            raise inputs.problem("email", inputs.Refused("Missing data for required field."))
        # Already registered under that name and address: the link signs that player in.
        if accounts.registered(store(), name, email) is None:
            accounts.create(store(), name, email)  # no API token shown: the link signs in
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


def _signed_in(player_id: str, token: str | None = None) -> BaseResponse:
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
