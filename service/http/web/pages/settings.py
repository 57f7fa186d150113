"""The settings page: preferences (PATCH /v1/me's twin) and API tokens (made once, revoked)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from flask import g, redirect, render_template, request, url_for
from flask_babel import force_locale, gettext
from werkzeug.wrappers import Response as BaseResponse

from service.common import i18n
from service.common.problems import Problem
from service.domain import accounts, inputs, leave, prefs
from service.http.web import settings_page
from service.http.web.pages.base import (
    _note,
    _typed,
    _whole_number,
    blp,
    form_post,
    language,
    store,
)


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
    chosen = prefs.read(store(), player["id"])
    form = settings_page.values(player, chosen, typed)
    body = render_template(
        "settings.html",
        form=form,
        leave=settings_page.leave_values(leave.read(store(), player["id"]), chosen["timezone"]),
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
    if "mail_at_table" in form:  # the box, then a hidden "off": the first value counts
        data["mail_at_table"] = form["mail_at_table"] == "on"
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


@blp.post("/settings/leave")
@form_post
def take_leave() -> Any:
    """POST /v1/me/leave's twin: the days typed, checked as the API checks them; a refusal
    (422 or 409) shows the page again with the box marked, nothing taken."""
    try:
        days = _whole_number(request.form.get("days", ""), "days")
        leave.take_leave(store(), g.web_session.player, days)
    except Problem as error:
        return _leave_refused(error)
    return _settings_note(gettext("On leave: your clocks are paused in every game."))


@blp.post("/settings/leave/end")
@form_post
def end_leave() -> Any:
    """DELETE /v1/me/leave's twin."""
    try:
        ended = leave.end_leave(store(), g.web_session.player["id"])
    except Problem as error:
        return _leave_refused(error)
    return _settings_note(
        gettext("Leave ended: %(days)s days back in your budget.", days=ended["returned_days"])
    )


def _leave_refused(error: Problem) -> Any:
    template, values = error.reason
    g.web_note = gettext(template, **values)
    return _settings_page(error.code, invalid="leave_days")


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


def _settings_note(text: str) -> BaseResponse:
    _note(text)
    return redirect(url_for("web.settings"))
