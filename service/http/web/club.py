"""The club's pages: profiles with their rating plot, leaderboards, games to watch,
finished-game archives, following. A blueprint nested in the web one (its session, headers and
error pages apply); every page is made from the service functions the API answers with
(service/domain/club.py, service/domain/ratings.py): no second path to the store."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from flask_babel import gettext
from markupsafe import Markup, escape

from engine.registry import game_ids, get_game
from service.common.numbers import whole_number
from service.common.problems import Problem
from service.domain import club, ratings
from service.http.web.pages.base import _note, bot_name, form_post, store
from service.http.web.pages.lobby import _game_types

blp = Blueprint("club", __name__, template_folder="templates")

PAGE = 25
#: The leaderboard page's choices of a minimum of rated games (the API takes any).
MIN_GAMES = (1, 5, 10, 25)
DEFAULT_MIN_GAMES = 1


def _day(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).date().isoformat()


def _winners_named(page: dict[str, Any]) -> dict[str, Any]:
    """Each finished game's winners by name, a bot's as templates/names.html names it."""
    for item in page["items"]:
        names, levels = item["names"], item["bot_levels"]
        item["winner_names"] = [
            bot_name(names[s], levels[s]) if levels[s] else names[s]
            for s in map(int, item["winners"])
            if 0 <= s < len(names)
        ]
    return page


def _number(name: str) -> int | None:
    """The query's whole number ``name`` (None if absent or empty: the form's "any"), read as
    the API reads it; anything else is a 400, where the API answers 422 ``invalid-query``."""
    text = request.args.get(name, "")
    if not text:
        return None
    number = whole_number(text)
    if number is None:
        abort(400)
    return number


def _cursor() -> str | None:
    return (request.args.get("after") or "")[:200] or None


# -- profiles -----------------------------------------------------------------------------------


@blp.get("/players/<player_id>")
def profile(player_id: str) -> Any:
    try:
        found = club.profile(store(), player_id[:64])
    except Problem:
        abort(404)
    session = g.get("web_session")
    me = session.player["id"] if session else None
    for rating in found["ratings"]:
        rating["plot"] = rating_plot(rating["history"])
        rating["title"] = gettext(get_game(rating["game_type"]).title)
    return render_template(
        "profile.html",
        player=found,
        since=_day(found["member_since"]) if found["member_since"] else "",
        following=bool(me and me != player_id and club.is_following(store(), me, player_id)),
        itself=me == player_id,
        types=_game_types(),
        day=_day,
    )


@blp.post("/players/<player_id>/follow")
@form_post
def follow(player_id: str) -> Any:
    try:
        club.follow(store(), g.web_session.player["id"], player_id[:64])
        _note(gettext("You follow this player: their new games show under Following."))
    except Problem as error:
        _note(str(error.description))
    return redirect(url_for("web.club.profile", player_id=player_id))


@blp.post("/players/<player_id>/unfollow")
@form_post
def unfollow(player_id: str) -> Any:
    club.unfollow(store(), g.web_session.player["id"], player_id[:64])
    return redirect(url_for("web.club.profile", player_id=player_id))


@blp.get("/players/<player_id>/games")
def player_games(player_id: str) -> Any:
    game_type = request.args.get("type") or None
    if game_type not in (None, *game_ids()):
        abort(404)
    name = club.player_name(store(), player_id[:64])
    page = club.player_finished(store(), player_id, game_type, PAGE, _cursor())
    return render_template(
        "archive.html",
        title=gettext("Finished games of %(name)s", name=name),
        page=_winners_named(page),
        game_type=game_type,
        types=game_ids(),
        here=lambda **args: url_for("web.club.player_games", player_id=player_id, **args),
        day=_day,
    )


# -- the rating plot ----------------------------------------------------------------------------

WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 440, 170, 40, 20, 10


def rating_plot(points: Sequence[dict[str, Any]]) -> Markup:
    """The rating after each rated game as an inline SVG line (oldest left). Colours come from
    the page's CSS through classes and currentColor (club.css: light and dark), none inline:
    the pages' Content-Security-Policy allows no inline style."""
    if not points:
        return Markup("")
    values = [p["display_rating"] for p in points]
    low, high = min(values), max(values)
    if high - low < 20:
        low, high = low - 10, high + 10
    span = len(points) - 1 or 1
    inner_w, inner_h = WIDTH - LEFT - 8, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + inner_w * (i / span if len(points) > 1 else 0.5)

    def y(v: float) -> float:
        return TOP + inner_h * (1 - (v - low) / (high - low))

    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    grid = []
    for v in (low, (low + high) / 2, high):
        grid.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - 8}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
            f'<text class="axis" x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>'
        )
    dots = "".join(
        f'<circle class="dot" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3">'
        f"<title>{escape(_day(p['at']))}: {v}</title></circle>"
        for i, (v, p) in enumerate(zip(values, points, strict=True))
        if len(points) <= 60 or i == len(points) - 1
    )
    first, last = _day(points[0]["at"]), _day(points[-1]["at"])
    label = escape(gettext("Rating after each rated game, %(first)s to %(last)s", first=first,
                           last=last))  # fmt: skip
    return Markup(
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{label}"'
        f' xmlns="http://www.w3.org/2000/svg">{"".join(grid)}'
        f'<polyline class="line" fill="none" points="{line}"/>{dots}'
        f'<text class="axis" x="{LEFT}" y="{HEIGHT - 4}">{first}</text>'
        f'<text class="axis" x="{WIDTH - 8}" y="{HEIGHT - 4}" text-anchor="end">{last}</text>'
        "</svg>"
    )


# -- leaderboards -------------------------------------------------------------------------------


@blp.get("/leaderboards")
def leaderboards() -> Any:
    return redirect(url_for("web.club.leaderboard", game_type=game_ids()[0]))


@blp.get("/leaderboards/<game_type>")
def leaderboard(game_type: str) -> Any:
    if game_type not in game_ids():
        abort(404)
    game = get_game(game_type)
    seats = _number("seats")
    if seats is not None and not game.min_players <= seats <= game.max_players:
        abort(404)
    wanted = _number("min_games")
    min_games = wanted if wanted in MIN_GAMES else DEFAULT_MIN_GAMES
    page = ratings.leaderboard(store(), game_type, min_games, PAGE, _cursor(), seats)
    session = g.get("web_session")
    return render_template(
        "leaderboard.html",
        page=page,
        game_type=game_type,
        title=gettext(game.title),
        types=[(t, gettext(get_game(t).title)) for t in game_ids()],
        seat_counts=range(game.min_players, game.max_players + 1),
        seats=seats,
        min_games=min_games,
        min_choices=MIN_GAMES,
        me=session.player["id"] if session else None,
    )


# -- watching -----------------------------------------------------------------------------------


@blp.get("/watch")
def watch() -> Any:
    page = club.live_games(store(), PAGE, _cursor())
    now = time.time()
    for item in page["items"]:
        item["ago"] = _since(now - item["moved_at"])
    return render_template("watch.html", page=page)


def _since(seconds: float) -> str:
    if seconds >= 86_400:
        return gettext("%(num)d d ago", num=int(seconds // 86_400))
    if seconds >= 3600:
        return gettext("%(num)d h ago", num=int(seconds // 3600))
    if seconds >= 60:
        return gettext("%(num)d min ago", num=int(seconds // 60))
    return gettext("just now")


@blp.get("/watch/finished")
def finished() -> Any:
    game_type = request.args.get("type") or None
    if game_type not in (None, *game_ids()):
        abort(404)
    page = ratings.finished_games(store(), game_type, PAGE, _cursor())
    return render_template(
        "archive.html",
        title=gettext("Finished games"),
        page=_winners_named(page),
        game_type=game_type,
        types=game_ids(),
        here=lambda **args: url_for("web.club.finished", **args),
        day=_day,
    )


# -- following ----------------------------------------------------------------------------------


@blp.get("/following")
def following() -> Any:
    session = g.get("web_session")
    if session is None:
        return redirect(url_for("web.home"))
    found = club.following(store(), session.player["id"])
    now = time.time()
    for item in found["games"]:
        item["ago"] = _since(now - item["moved_at"])
    return render_template("following.html", found=found)
