"""The tournament pages (docs/tournaments.md): the list with a form to create one, and one
tournament with its sign-up button, standings and rounds, each table's game linked. A
blueprint nested in the web one; every page and form goes through the service functions the
API answers with (service/domain/tournaments.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from flask_babel import gettext

from engine.registry import game_ids, get_game
from engine.sentences import N_
from service.common.numbers import whole_number
from service.common.problems import Problem
from service.domain import inputs, tournaments
from service.http.web.pages.base import _note, form_post, store

blp = Blueprint("tournaments", __name__, template_folder="templates")

PAGE = 25
#: How the pages name a tournament's format and status (translated where shown).
FORMAT_WORDS = {"round_robin": N_("round-robin"), "swiss": N_("Swiss")}
STATUS_WORDS = {
    "signup": N_("sign-up open"),
    "running": N_("running"),
    "finished": N_("finished"),
    "cancelled": N_("cancelled"),
}
#: The form's deadline choices (hours per decision; "" none): the API takes any.
DEADLINE_HOURS = ("", "24", "48", "72", "168")


def _moment(when: float | None) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M UTC") if when else ""


def _me() -> dict[str, Any] | None:
    session = g.get("web_session")
    return session.player if session else None


@blp.get("/tournaments")
def index() -> Any:
    before_text = (request.args.get("before") or "")[:30]
    try:
        before = float(before_text) if before_text else None
    except ValueError:
        before = None
    if before is not None and not 0 <= before < 1e11:  # nan, inf: no page of this list
        before = None
    page = tournaments.listing(store(), PAGE, before)
    return render_template(
        "tournaments.html",
        page=page,
        types=[
            (t, gettext(get_game(t).title), get_game(t).min_players, get_game(t).max_players)
            for t in game_ids()
        ],
        titles={t: gettext(get_game(t).title) for t in game_ids()},
        formats=tournaments.FORMATS,
        hours=DEADLINE_HOURS,
        moment=_moment,
        format_words=FORMAT_WORDS,
        status_words=STATUS_WORDS,
    )


@blp.post("/tournaments")
@form_post
def create() -> Any:
    form = request.form
    data: dict[str, Any] = {
        "name": form.get("name", ""),
        "type": form.get("type", ""),
        "format": form.get("format", ""),
        "seats": _whole(form.get("seats", "")),
    }
    if form.get("rounds"):
        data["rounds"] = _whole(form["rounds"])
    if form.get("hours"):
        data["deadline"] = {"hours": _whole(form["hours"])}
    wanted = {name: _whole(form[name]) for name in inputs.RELIABILITY_FILTER if form.get(name)}
    if wanted:
        data["reliability"] = wanted
    if form.get("leave_max_days"):
        data["leave_max_days"] = _whole(form["leave_max_days"])
    try:
        made = tournaments.create(store(), g.web_session.player, data)
    except Problem as error:
        _note(str(error.description), {k: v for k, v in form.items() if k != "csrf"})
        return redirect(url_for("web.tournaments.index"))
    return redirect(url_for("web.tournaments.show", tournament_id=made["id"]))


def _whole(text: str) -> int | str:
    """A form's number as an integer, read as the API reads numbers; anything else as typed
    (the domain refuses it: "Not a valid integer.")."""
    number = whole_number(text)
    return text if number is None else number


@blp.get("/tournaments/<tournament_id>")
def show(tournament_id: str) -> Any:
    try:
        found = tournaments.show(store(), tournament_id[:64])
    except Problem:
        abort(404)
    me = _me()
    mine = me is not None and any(e["id"] == me["id"] for e in found["entrants"])
    return render_template(
        "tournament.html",
        t=found,
        title=gettext(get_game(found["type"]).title),
        entered=mine,
        organiser=me is not None and me["id"] == found["organiser"]["id"],
        me_id=me["id"] if me else None,
        moment=_moment,
        format_words=FORMAT_WORDS,
        status_words=STATUS_WORDS,
    )


def _act(tournament_id: str, action: Any, done: str) -> Any:
    try:
        action(store(), g.web_session.player, tournament_id[:64])
        _note(done)
    except Problem as error:
        _note(str(error.description))
    return redirect(url_for("web.tournaments.show", tournament_id=tournament_id))


@blp.post("/tournaments/<tournament_id>/sign-up")
@form_post
def sign_up(tournament_id: str) -> Any:
    return _act(tournament_id, tournaments.sign_up, gettext("You are signed up."))


@blp.post("/tournaments/<tournament_id>/withdraw")
@form_post
def withdraw(tournament_id: str) -> Any:
    return _act(tournament_id, tournaments.withdraw, gettext("You have withdrawn."))


@blp.post("/tournaments/<tournament_id>/start")
@form_post
def start(tournament_id: str) -> Any:
    done = gettext("The tournament has started: round 1's games are on.")
    return _act(tournament_id, tournaments.start, done)
