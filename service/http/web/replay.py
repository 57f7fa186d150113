"""Stepping through a game's versions: ``/games/<id>/replay/<n>``,
the board as it was at version n for the viewer, what changed at that step, the reveals made
there with their commitments (checked in the browser as on the game page), and links to the
first, previous, next and last versions (``static/replay.js`` adds the arrow keys). A plain
page of links: it works without JavaScript, live (up to the game's current version) and after
the end. The finished-games archive links here.

What a viewer may see of version n is service/domain/replay.py's ``step``. A logged version
never changes, so what a step shows is kept in this process per game, rules version,
version, viewer (the seat they looked through then) and language: stepping back and forth
costs no replay and no drawing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, url_for

from service import pictures
from service.common import i18n
from service.common.numbers import is_ascii_digits
from service.common.problems import Problem
from service.domain import replay
from service.http.web import game_page, table
from service.http.web.pages.base import language, store
from service.store.record import GameRecord

blp = Blueprint("replay", __name__, template_folder="templates")

#: Steps kept in this process (a board picture is 20-60 KB).
MAX_KEPT = 256
_kept: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()


def _viewer(record: GameRecord) -> tuple[int | None, str | None]:
    session = g.get("web_session")
    player_id = session.player["id"] if session else None
    return record.seat_of(player_id), player_id


def _read(game_id: str) -> tuple[GameRecord, list[tuple[int, dict[str, Any]]]]:
    try:
        return store().read_log(game_id[:64])
    except Problem:
        abort(404)


@blp.get("/games/<game_id>/replay")
def start(game_id: str) -> Any:
    """The first version with a board, or the one asked for (``?v=``: the page's "go to"
    form, which works without script)."""
    record, entries = _read(game_id)
    first = replay.first_version(entries)
    if first is None:
        abort(404)
    asked = (request.args.get("v") or "").strip()
    version = int(asked) if is_ascii_digits(asked) and len(asked) < 10 else first
    version = min(max(version, first), record.version)
    return redirect(url_for("web.replay.step", game_id=record.id, version=version))


@blp.get("/games/<game_id>/replay/<int:version>")
def step(game_id: str, version: int) -> Any:
    record, entries = _read(game_id)
    first = replay.first_version(entries)
    if first is None or not first <= version <= record.version:
        abort(404)
    seat, _player = _viewer(record)
    who = replay.seat_then(record, seat, version)
    lang = language()
    shown = _shown(record, entries, version, who, lang)
    return render_template(
        "replay.html",
        game=record,
        title=record.game.title,
        first=first,
        last=record.version,
        seat=who,
        names=record.names,
        players=game_page.seat_names(record),
        # A game in play is followed: the newest version is the page's "last" as it arrives.
        stream=game_page.stream_of(record.id) if record.status == "active" else None,
        **shown,
    )


def _shown(
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    version: int,
    who: int | None,
    lang: str,
) -> dict[str, Any]:
    key = (record.id, record.rules_version, version, who, lang, tuple(record.names))
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    try:
        seen = replay.step(record, entries, version, who, i18n.engine_words(lang))
    except Problem as error:
        abort(error.code)
    title = f"{record.game.title} · {record.id} · {version}"
    svg = pictures.board_svg(
        record.type,
        seen["public"],
        title,
        names=record.names,
        last_events=seen["events"],
        lang=lang,
    )
    upto = [(v, e) for v, e in entries if v <= version]
    found = {
        "version": version,
        "board": table.inline(svg),
        "summary": pictures.text_summary(record.type, seen["view"], names=record.names, lang=lang),
        "kind": seen["kind"],
        "author": seen["author"],
        "action": seen["action"],
        "commitment": seen["commitment"],
        "sentences": seen["sentences"],
        "reveals": [
            r
            for r in game_page.reveals(record.id, upto, who, record.names)
            if r["version"] == version
        ],
    }
    with _lock:
        _kept[key] = found
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return found
