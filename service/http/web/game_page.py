"""The game page's view model: what game.html shows beside the game view — the legal moves
grouped by their first word, the last moves in words, the history, the table's messages, the
seat's summary in words, the revealed sealed choices for the browser to check, and the seat
forms (resign, claim, offer, take) — for the signed-in player or a spectator.

The route (pages.game) reads the log and renders; this builds the template's values, over the
same service functions as the API (no rule is decided here).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from flask import current_app, request, url_for

from engine.core import Event
from service import kits, pictures
from service.common import i18n
from service.common.numbers import is_ascii_digits
from service.domain import leave, messages, prefs, presence, ratings, review
from service.domain.games import lifecycle, views
from service.domain.websessions import Session
from service.http.web import live as live_page
from service.http.web import standings, table
from service.ops import config
from service.store import Store
from service.store.record import GameRecord


def seat_names(record: GameRecord) -> list[dict[str, Any]]:
    """Each seat as templates/names.html's ``seat_name`` shows it (a bot's: no link)."""
    return [
        {"player_id": pid, "name": name, **views.bot_fields(record.bot_level(seat))}
        for seat, (pid, name) in enumerate(zip(record.seats, record.names, strict=False))
    ]


def _review(
    store: Store, record: GameRecord, seat: int | None, player_id: str | None
) -> dict[str, Any] | None:
    """The end screen's review of the player's decisions (service/domain/review.py): None
    unless the game is over and the player held a seat of their own; else what is stored
    (``status`` None: not asked for yet)."""
    if record.status != "finished" or seat is None or player_id is None:
        return None
    if record.bot_level(seat) is not None:
        return None
    found = review.read(store, record.id, player_id)
    return found or {"status": None, "decisions": []}


def stream_of(game_id: str) -> str:
    """The game's event stream on the stream server, as the pages follow it."""
    return f"{config.stream_url(os.environ)}/v1/games/{game_id}/stream"


def context(
    store: Store,
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    session: Session | None,
    lang: str,
    live: bool = False,
) -> dict[str, Any]:
    """game.html's values for ``record`` and its log ``entries``, seen by ``session``'s
    player (None: a spectator), in ``lang``; the request's query (``invite``, ``take``,
    ``code``) fills the join and take-seat forms. ``live``: for an update in place, without
    the board (the page fetches it from ``board_url``, kept per version)."""
    player_id = session.player["id"] if session else None
    seat = record.seat_of(player_id)
    now = time.time()  # the time bank clocks' moment (static/board/clock.js counts on)
    view = views.game_view(record, seat, player_id, now)
    legal = views.legal_actions(record, seat) if seat is not None else None
    groups = _grouped(legal["actions"]) if legal else []
    recent = views.since_last_move(
        record, entries[-views.RECENT_ENTRIES :], seat, i18n.engine_words(lang)
    )
    history = [
        views.redact_entry(record, version, entry, seat)
        for version, entry in entries
        if entry["kind"] in views.ACTION_KINDS
    ]
    talk = messages.page(store, record.id, player_id, None, 50)["items"]
    # The seat's own view in words: its secrets (a hand) for its player only; the spectator's
    # view for anyone else (also the picture's text alternative).
    summary = (
        pictures.text_summary(record.type, view["view"], names=record.names, lang=lang)
        if view["view"] is not None
        else ""
    )
    board = table.on_board(record.type) and record.state is not None
    with i18n.speaking(lang):
        play = table.actions(record, legal, seat) if (board and legal) else None
        pieces = table.pieces(record, view["view"], seat) if board else None
        panel = table.panel(record, view["view"], seat, entries)
        places = table.places(record, view["view"]) if board else {}
    return dict(
        board=table.board_svg(record, entries, lang, table.open_hexes(record, legal))
        if board and not live
        else None,
        board_url=url_for(
            "web.table_svg",
            game_id=record.id,
            v=record.version,
            s=live_page.viewer(seat),
            lang=lang,
        )
        if board
        else None,
        table=play,
        places=places,
        pieces=pieces,
        panel=panel,
        kit=kits.kit(record.type),
        game=view,
        clock_at=now,
        title=record.game.title,
        seat=seat,
        legal=legal,
        recent=recent,
        talk=talk,
        names=record.names,
        summary=summary,
        # Each seat's public state beside its name (points, cards in hand as a count, tiles…).
        facts=pictures.seat_facts(record.type, view["view"], lang=lang) if view["view"] else [],
        history=history,
        groups=groups,
        reveals=reveals(record.id, entries, seat, record.names),
        poll=current_app.config.get("WEB_POLL_SECONDS", 5),
        stream=url_for("web.stream", game_id=record.id),
        # A seated player's page says it is there while visible (service/domain/presence.py).
        presence_beat=presence.beat_seconds()
        if seat is not None and record.status in ("open", "active")
        else None,
        can_join=session is not None and seat is None and record.status == "open",
        invite=(request.args.get("invite") or "")[:64],
        can_start=player_id == record.creator and record.status == "open",
        winners=[record.names[w] for w in (record.result or {}).get("winners", [])],
        next_game=_next_game(store, player_id, record.id)
        if player_id and not view.get("your_decision")
        else None,
        standings=standings.standings(
            record.result, entries, record.names, ratings.rating_changes(store, record)
        )
        if record.status == "finished"
        else None,
        rematch=_rematch(store, record, player_id),
        review=_review(store, record, seat, player_id),
        on_leave=_on_leave(store, record),
        # When a complete staged move waits for Confirm (static/board/ decides "auto").
        confirm_moves=prefs.confirm_moves(store, player_id) if player_id and board else "always",
        not_invited=player_id is None or not lifecycle.invited(record, player_id),
        **_seat_forms(record, view["seats"], seat, player_id, session is not None),
    )


def _on_leave(store: Store, record: GameRecord) -> dict[int, str]:
    """Seat -> the day (UTC) its player's leave ends, for the seats on leave in a game in
    play (service/domain/leave.py: their clocks are paused)."""
    if record.status != "active":
        return {}
    ends = leave.on_leave(store, [p for p in record.seats if p])
    return {
        seat: datetime.fromtimestamp(ends[p], UTC).strftime("%Y-%m-%d")
        for seat, p in enumerate(record.seats)
        if p in ends
    }


def _rematch(store: Store, record: GameRecord, player_id: str | None) -> dict[str, Any] | None:
    """A finished game's rematch, once asked for (service/domain/rematch.py): its id and
    whether the reader sits in it already (else the end screen offers to join it)."""
    new_id = record.seating.get("rematch")
    if not new_id:
        return None
    summary = store.indexes.game_summaries([new_id])[0]
    seated = summary is not None and player_id is not None and player_id in summary["seats"]
    return {"id": new_id, "seated": seated}


def _next_game(store: Store, player_id: str, here: str) -> dict[str, Any] | None:
    """Another game of the player's that waits for them, the one waiting longest (the lobby's
    index and summaries): the page's "next game waiting for you" button."""
    rows = store.indexes.player_games(player_id, None)
    waiting = []
    for summary in store.indexes.game_summaries([gid for gid, _ in rows if gid != here]):
        if not summary or player_id not in summary["seats"] or summary["status"] != "active":
            continue
        seat = summary["seats"].index(player_id)
        if any(d["seat"] == seat for d in summary["pending"]):
            waiting.append(summary)
    if not waiting:
        return None
    first = min(waiting, key=lambda s: float(s["updated_at"]))
    return {"id": first["id"], "type": first["type"], "count": len(waiting)}


def _seat_forms(
    record: GameRecord,
    shown: list[dict[str, Any]],
    seat: int | None,
    player_id: str | None,
    signed_in: bool,
) -> dict[str, Any]:
    """What the page offers about seats: resign, claim a win, offer a seat (the creator, a
    resigned, absent or bot's seat, with
    the links of open offers), take an offered seat (a link's ``take`` and ``code``).
    ``shown``: the game view's seats, which already say who resigned or is absent (the state
    is not read again)."""
    active = record.status == "active"
    # A bot's seat may be handed to a person too (service/domain/seats.py ``offer_seat``).
    gone = [s["seat"] for s in shown if s.get("resigned") or s.get("abandoned") or s["is_bot"]]
    vacant = gone if active else []
    abandoned = record.seating.get("abandoned", [])
    creator = player_id is not None and player_id == record.creator
    take = request.args.get("take", "")
    return {
        "can_resign": active and seat is not None and seat not in vacant,
        "can_claim": active
        and len(record.seats) == 2
        and seat is not None
        and (1 - seat) in abandoned,
        "can_offer": vacant if creator else [],
        "offers": record.seating.get("offers", {}) if creator else {},
        "take_seat": int(take)
        if signed_in and seat is None and is_ascii_digits(take) and len(take) < 3
        else None,
        "take_code": (request.args.get("code") or "")[:64],
    }


def reveals(
    game_id: str,
    entries: Sequence[tuple[int, Mapping[str, Any]]],
    seat: int | None,
    names: list[str],
) -> list[dict[str, Any]]:
    """Every revealed sealed choice with the commitment published before it and the version
    that revealed it, for the page's script to check in the browser (the server's word is not
    taken for it)."""
    published: dict[tuple[str, int], str] = {}
    out = []
    for version, entry in entries:
        for raw in entry["events"]:
            event = Event.from_json(raw)
            if not event.visible_to(seat):
                continue
            if event.kind == "sealed_committed":
                published[(event.data["ref"], event.data["seat"])] = event.data["commitment"]
            elif event.kind == "sealed_revealed":
                for choice in event.data["choices"]:
                    key = (event.data["ref"], choice["seat"])
                    out.append(
                        {
                            "version": version,
                            "game": game_id,
                            "ref": key[0],
                            "seat": key[1],
                            "name": names[key[1]] if key[1] < len(names) else str(key[1]),
                            "choice": choice["choice"],
                            "salt": choice["salt"],
                            "published": published.get(key, ""),
                        }
                    )
    return out


def _grouped(actions: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Legal moves by the first word of their notation (``swap``, ``boost``, a people's
    letter…), in the engine's order: presentation only, no rule is read here."""
    groups: dict[str, list[str]] = {}
    for action in actions:
        notation = action["notation"]
        word = notation.split(" ", 1)[0] if " " in notation else notation
        key = word if word.isalpha() and len(word) > 1 else "place"
        groups.setdefault(key, []).append(notation)
    return list(groups.items())
