"""Blocking, reporting, private notes and the moderators' queue as pages: a blueprint nested in
the web one (its session, headers and error pages apply), over the service functions the API
answers with (service/domain/blocks.py, notes.py, moderation.py): no second path to the store.

The templates reach what they need through ``social_helpers`` (a context processor), so the
pages that show a Block button, a Report link or a note box (profile, game, settings) need no
view of their own: ``blocked(player_id)``, ``game_note(game_id)``, ``is_moderator()``,
``my_blocks()``, ``my_warnings()``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask_babel import gettext

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import blocks, moderation, notes
from service.http.web.pages import base as pages
from service.http.web.pages.base import _note, form_post, store

blp = Blueprint("social", __name__, template_folder="templates")

#: What the error page says for the problems of these pages.
pages.CODE_WORDS["account-suspended"] = N_(
    "This account is suspended by the moderators: you cannot sign in or play for now."
)
pages.CODE_WORDS["not-a-moderator"] = N_("Only moderators may see this page.")


def _me() -> str | None:
    session = g.get("web_session")
    return session.player["id"] if session else None


@blp.app_context_processor
def social_helpers() -> dict[str, Any]:
    def game_note(game_id: str) -> dict[str, Any] | None:
        """The signed-in player's note (the game page asks only for a seated player)."""
        player_id = _me()
        return notes.own(store(), player_id, game_id) if player_id else None

    return {
        "blocked": lambda player_id: blocks.blocks(store(), _me(), player_id),
        "game_note": game_note,
        # An error page reads nothing more from Redis (it may be the reason for the page).
        "is_moderator": lambda: not g.get("web_error") and moderation.is_moderator(store(), _me()),
        "my_blocks": lambda: blocks.listing(store(), me)["items"] if (me := _me()) else [],
        "my_warnings": lambda: moderation.warnings(store(), me) if (me := _me()) else [],
        "note_limit": notes.MAX_TEXT,
    }


# -- blocking -----------------------------------------------------------------------------------


@blp.post("/players/<player_id>/block")
@form_post
def block(player_id: str) -> Any:
    try:
        blocks.block(store(), g.web_session.player["id"], player_id[:64])
        _note(gettext("You blocked this player. Only you can see that."))
    except Problem as error:
        _note(gettext(str(error.description)))
    return redirect(_back(player_id))


@blp.post("/players/<player_id>/unblock")
@form_post
def unblock(player_id: str) -> Any:
    blocks.unblock(store(), g.web_session.player["id"], player_id[:64])
    _note(gettext("You no longer block this player."))
    return redirect(_back(player_id))


def _back(player_id: str) -> str:
    if request.form.get("back") == "settings":
        return url_for("web.settings")
    return url_for("web.club.profile", player_id=player_id)


# -- private notes ------------------------------------------------------------------------------


@blp.post("/games/<game_id>/note")
@form_post
def save_note(game_id: str) -> Any:
    text = request.form.get("note", "").replace("\r\n", "\n")
    try:
        notes.write(store(), g.web_session.player, game_id[:64], text)
        _note(gettext("Your note is saved. Only you can read it."))
    except Problem as error:
        _note(gettext(str(error.description)), {"note": text})
    return redirect(url_for("web.game", game_id=game_id) + "#note")


# -- reporting ----------------------------------------------------------------------------------


@blp.route("/games/<game_id>/messages/<message_id>/report", methods=["GET", "POST"])
def report_message(game_id: str, message_id: str) -> Any:
    target = {"kind": "message", "game_id": game_id[:64], "message_id": message_id[:40]}
    back = url_for("web.game", game_id=game_id)
    return _report(target, back)


@blp.route("/players/<player_id>/report", methods=["GET", "POST"])
def report_player(player_id: str) -> Any:
    target = {"kind": "player", "player_id": player_id[:64]}
    return _report(target, url_for("web.club.profile", player_id=player_id))


def _report(target: dict[str, Any], back: str) -> Any:
    if g.get("web_session") is None:
        return redirect(url_for("web.home"))
    if request.method == "GET":
        return render_template("report.html", target=target, back=back)
    return _sent_report(target, back)


@form_post
def _sent_report(target: dict[str, Any], back: str) -> Any:
    reason = request.form.get("reason", "").replace("\r\n", "\n")
    try:
        moderation.report(store(), g.web_session.player, {**target, "reason": reason})
    except Problem as error:
        _note(gettext(str(error.description)), {"reason": reason})
        return render_template("report.html", target=target, back=back), error.code
    _note(gettext("Thank you: the moderators will look at your report."))
    return redirect(back)


# -- the moderators' queue ----------------------------------------------------------------------


@blp.get("/moderation")
def queue() -> Any:
    session = g.get("web_session")
    if session is None:
        return redirect(url_for("web.home"))
    after = (request.args.get("after") or "")[:200] or None
    # Not a moderator, or an ``after`` that names no report: the error page.
    found = moderation.queue(store(), session.player, after)
    audit = moderation.audit(store(), session.player, None)
    for entry in audit["items"]:
        entry["when"] = datetime.fromtimestamp(entry["at"], UTC).strftime("%Y-%m-%d %H:%M")
    return render_template(
        "moderation.html",
        reports=found["items"],
        next_cursor=found["next_cursor"],
        after=after,
        audit=audit["items"],
        actions=ACTION_WORDS,
    )


@blp.post("/moderation/actions")
@form_post
def act() -> Any:
    form = request.form
    wanted = {
        "action": form.get("action", ""),
        "reason": form.get("reason", "").replace("\r\n", "\n"),
        "report_id": form.get("report_id") or None,
        "player_id": form.get("player_id") or None,
    }
    try:
        moderation.act(store(), g.web_session.player, wanted)
        _note(gettext("Done, and written to the audit log."))
    except Problem as error:
        if error.problem_code == "not-a-moderator":
            raise
        _note(gettext(str(error.description)))
    # Back to the page of the queue the action was taken on.
    return redirect(url_for("web.social.queue", after=form.get("after", "")[:200] or None))


#: The actions as the queue page names them.
ACTION_WORDS = {
    "hide": N_("Hide the message"),
    "warn": N_("Warn the player"),
    "suspend": N_("Suspend the account"),
    "reinstate": N_("Reinstate the account"),
    "dismiss": N_("Dismiss the report"),
}
