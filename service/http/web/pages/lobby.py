"""The lobby: the signed-in player's games, the open games, and the forms that create a game
(rule options, deadline, bots) or start one against bots at once (Play now).
"""

from __future__ import annotations

import json
import time
from typing import Any

from flask import g, redirect, render_template, request, url_for
from flask_babel import gettext, ngettext

from engine.registry import game_ids, get_game
from service.common import i18n
from service.common.problems import Problem
from service.domain import bots, inbox, inputs
from service.domain.games import lifecycle, views
from service.http.web.pages.base import _refused, _typed, _whole_number, blp, form_post, store
from service.store import MAX_INDEX


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
    open_games = lifecycle.open_games(store(), None, 20, {}, player["id"])["items"]
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
        default_pace=inputs.DEFAULT_BOT_PACE,
    )


def _players(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The seats as templates/names.html's ``seat_name`` shows them (a bot's: no link)."""
    bots = (summary.get("seating") or {}).get("bots", {})
    return [
        {"player_id": pid, "name": name, **views.bot_fields(bots.get(str(i)))}
        for i, (pid, name) in enumerate(zip(summary["seats"], summary["names"], strict=False))
    ]


def _lobby_row(summary: dict[str, Any], player_id: str) -> dict[str, Any]:
    seat = summary["seats"].index(player_id)
    my_turn = any(d["seat"] == seat for d in summary["pending"])
    return {
        "id": summary["id"],
        "type": summary["type"],
        "status": summary["status"],
        "names": summary["names"],
        "players": _players(summary),
        "max_seats": int(summary["max_seats"]),
        "my_turn": my_turn,
        "updated_at": float(summary["updated_at"]),
        "waited": _ago(float(summary["updated_at"])),
        "deadline_at": _row_deadline(summary, seat, my_turn),
    }


def _row_deadline(summary: dict[str, Any], seat: int, my_turn: bool) -> float | None:
    """The player's own deadline (under a time bank: their bank's zero) while the game waits
    for them, else the game's next one."""
    if my_turn:
        return inbox.seat_deadline(summary, seat)
    return float(summary["deadline_at"]) if summary.get("deadline_at") else None


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


@blp.post("/games")
@form_post
def create() -> Any:
    """The lobby's form: type, players, the type's rule options, deadline, access (POST
    /v1/games's twin: lifecycle.create_game checks each as the API does)."""
    form = request.form
    type_id = form.get("type", "")
    try:
        seats = _whole_number(form.get("seats", ""), "seats")
        bots = _form_bots(form, seats)
        settings: dict[str, Any] = {
            "access": "open" if form.get("access") == "open" else "invite",
            "public": form.get("public") == "yes",
            "spectators_see_messages": form.get("spectators_see_messages") == "yes",
        }
        if bots:  # the pace of its bots, checked as the API's ``bot_pace``
            settings["bot_pace"] = form.get("bot_pace", inputs.DEFAULT_BOT_PACE)[:20]
        if not bots:  # a game against a bot is never rated from here (docs/bots.md)
            settings["rated"] = form.get("rated") == "yes"
        wanted = _reliability(form)
        if wanted:
            settings["reliability"] = wanted
        outcome = lifecycle.create_game(
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


def _reliability(form: Any) -> dict[str, int]:
    """The reliability the form asks of players who join (empty boxes: none), as the API
    would be sent it (inputs.reliability_filter checks the bounds)."""
    return {
        name: _whole_number(form[name].strip(), name)
        for name in inputs.RELIABILITY_FILTER
        if form.get(name, "").strip()
    }


def _form_bots(form: Any, seats: int) -> list[dict[str, Any]]:
    """The seats the form gives to bots (``bot.<seat>``: a level; anything else is a person's
    seat), as the API would be sent them (lifecycle.create_game checks them)."""
    chosen = []
    for seat in range(1, min(seats, inputs.SEATS[1])):
        level = form.get(f"bot.{seat}", "")
        if level:
            chosen.append({"seat": seat, "level": level})
    return chosen


def _bot_paces() -> list[tuple[str, str]]:
    """The paces of bots (``inputs.BOT_PACES``) and their labels: Play now's and the create
    form's alike, ``inputs.DEFAULT_BOT_PACE`` preselected in both."""
    return [
        ("instant", gettext("at once")),
        ("seconds", gettext("a few seconds, like a person at the table")),
        ("correspondence", gettext("minutes to hours, like a correspondence player")),
    ]


@blp.post("/games/play-now")
@form_post
def play_now() -> Any:
    """The lobby's one click: a game against bots, started, the player taken to the table."""
    form = request.form
    level = form.get("level", bots.PLAY_NOW_LEVEL)
    pace = form.get("pace", inputs.DEFAULT_BOT_PACE)
    try:
        outcome = bots.play_now(store(), g.web_session.player, form.get("type", ""), level, pace)
    except Problem as error:
        _refused(error, _typed(form))
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
    """The deadline the form asks for, as the API would be sent it (lifecycle.create_game checks
    it: inputs.deadline): hours for each decision, or a time bank."""
    policy = form.get("deadline_policy") or "default_move"
    if policy not in inputs.DEADLINE_POLICIES:
        policy = "default_move"
    chosen: dict[str, Any] = {"policy": policy, "remind_before_hours": 0, "vacation_max_days": 14}
    if policy == "bot":
        chosen["bot_level"] = form.get("deadline_bot_level") or "medium"
    if form.get("clock") == "bank":
        clock = {name: _days(form, f"bank_{name}") for name in BANK_DAYS}
        weekend = form.get("weekend_pause") == "on"
        return {"clock": {"kind": "bank", **clock, "weekend_pause": weekend}, **chosen}
    hours = (form.get("deadline_hours") or "").strip()
    if not hours:
        return None
    return {"hours": _number(hours), **chosen}


#: The time bank's fields in the form (``bank_<name>``), as the API names them.
BANK_DAYS = ("initial_days", "per_move_days", "max_days")


def _days(form: Any, name: str) -> float:
    return _number((form.get(name) or "").strip())


def _number(text: str) -> float:
    try:
        return float(text[:40])
    except ValueError:
        raise inputs.problem("deadline", inputs.Refused("Not a valid number.")) from None
