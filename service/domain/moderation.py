"""Reports and moderators (docs/api.md, "Reporting and moderation"; docs/operations.md for
``kurier moderator``).

- A player reports a message they can see, or a player, with a reason. Reporting the same item
  again changes nothing (the report's id is derived from who reported what).
- Moderators are players the operator names (``kurier moderator grant NAME``). They read the
  open reports in a queue, each with its item in context: a reported table message with up to
  ``CONTEXT`` table messages either side; a reported private message alone. No private message
  that was not reported, no game's state and no sealed choice is ever part of the queue.
- Their actions (``ACTIONS``): hide a message (as a creator hides one: kept, its text withheld),
  warn a player (the warning is shown to them), suspend an account, reinstate it, or dismiss a
  report. Each carries a reason and is appended to the audit log, which nothing shortens. A
  warned, suspended or reinstated player is told by mail, with the reason (workers/moderation.py).
- A suspended account's bearer tokens are refused on the API and the event streams (403
  ``account-suspended``), its web sessions and sign-ins too (a page that says so). Its games go
  on: at each deadline the game applies its deadline policy (the default move), as for any
  player who does not move.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import inputs, messages
from service.store import Store, owed
from service.store.owed import notice_job
from service.store.queues import MODERATION_NOTICE_JOB

#: Table messages shown either side of a reported one.
CONTEXT = 3
#: Open reports in one queue page.
QUEUE = 50
#: Audit entries in one page.
AUDIT_PAGE = 50
REPORT_KINDS = ("message", "player")
ACTIONS = ("hide", "warn", "suspend", "reinstate", "dismiss")
#: What each action acts on: a message, a player, or only the report.
_ON_PLAYER = ("warn", "suspend", "reinstate")


def suspended_problem() -> Problem:
    return Problem(
        403,
        "account-suspended",
        N_("this account is suspended by the moderators"),
    )


def check_not_suspended(player: Mapping[str, Any] | None) -> None:
    """Refuse a suspended player (``Players.from_hash`` marks them)."""
    if player is not None and player.get("suspended"):
        raise suspended_problem()


def is_moderator(store: Store, player_id: str | None) -> bool:
    return bool(player_id) and store.moderation.is_moderator(str(player_id))


def require_moderator(store: Store, player: Mapping[str, Any]) -> None:
    if not store.moderation.is_moderator(player["id"]):
        raise Problem(403, "not-a-moderator", N_("only moderators may do this"))


# -- reports ------------------------------------------------------------------------------------


def report(store: Store, reporter: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """A report of a message (``game_id``, ``message_id``) or a player (``player_id``), with a
    ``reason``; returns it as its reporter sees it."""
    reason = inputs.checked("reason", inputs.REASON.check, request.get("reason"))
    kind = inputs.checked("kind", lambda v: inputs.one_of(v, REPORT_KINDS), request.get("kind"))
    if kind == "message":
        found = _reported_message(store, reporter, request)
    else:
        found = _reported_player(store, reporter, request)
    target = f"{kind}:{found.get('game_id', '')}:{found.get('message_id', '')}:{found['player_id']}"
    digest = hashlib.sha256(f"{reporter['id']}|{target}".encode()).hexdigest()[:20]
    made = {
        "id": "r_" + digest,
        "kind": kind,
        "reporter": reporter["id"],
        "reason": reason,
        "at": time.time(),
        "status": "open",
        **found,
    }
    if not store.moderation.report(made):
        made = store.moderation.get_report(made["id"]) or made
    return _as_reporter_sees(made)


def _reported_message(
    store: Store, reporter: Mapping[str, Any], request: Mapping[str, Any]
) -> dict[str, Any]:
    game_id, message_id = request.get("game_id"), request.get("message_id")
    if not isinstance(game_id, str) or not isinstance(message_id, str):
        raise Problem(
            422, "invalid-report", N_("a message's report names its game_id and message_id")
        )
    record = store.get_game(game_id)
    seat = record.seat_of(reporter["id"])
    fields = store.messages.get(game_id, message_id) if _message_id(message_id) else None
    if fields is None or not messages.visible(record, fields, seat):
        raise Problem(404, "message-not-found", f"no message {message_id!r} in this game")
    author = messages.sender(record, fields)
    if author == reporter["id"]:
        raise Problem(422, "cannot-report-self", N_("you cannot report yourself"))
    return {
        "player_id": author,
        "game_id": game_id,
        "message_id": message_id,
        "private": fields["to_seat"] != "",
    }


def _reported_player(
    store: Store, reporter: Mapping[str, Any], request: Mapping[str, Any]
) -> dict[str, Any]:
    player_id = request.get("player_id")
    if not isinstance(player_id, str) or len(player_id) > 64:
        raise Problem(422, "invalid-report", N_("a player's report names its player_id"))
    if player_id == reporter["id"]:
        raise Problem(422, "cannot-report-self", N_("you cannot report yourself"))
    if store.players.get(player_id) is None:
        raise Problem(404, "player-not-found", f"no player {player_id!r}", player_id=player_id)
    return {"player_id": player_id}


def _message_id(value: str) -> bool:
    head, _, tail = value.partition("-")
    return 0 < len(head) <= 19 and 0 < len(tail) <= 19 and head.isdigit() and tail.isdigit()


def _as_reporter_sees(made: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("id", "kind", "player_id", "game_id", "message_id", "reason", "at", "status")
    return {key: made.get(key) for key in keys}


# -- the queue ----------------------------------------------------------------------------------


def queue(
    store: Store, moderator: Mapping[str, Any], after: str | None = None, limit: int = QUEUE
) -> dict[str, Any]:
    """The open reports, oldest first, each with its item in context; ``next_cursor`` (the
    last one's id; None at the end) pages on to later ones with ``after``."""
    require_moderator(store, moderator)
    found = store.moderation.open_reports(limit, _queue_position(store, after))
    items = [_in_context(store, r) for r in found]
    return {"items": items, "next_cursor": items[-1]["id"] if len(items) == limit else None}


def _queue_position(store: Store, after: str | None) -> tuple[float, str] | None:
    """Where a page of the queue starts: after the report ``after`` (open or closed since),
    by when it was made and its id; 400 ``invalid-cursor`` for no report of that id."""
    if after is None:
        return None
    found = store.moderation.get_report(after)
    if found is None:
        raise Problem(
            400, "invalid-cursor", "after must be a next_cursor from this list", parameter="after"
        )
    return float(found["at"]), after


def _in_context(store: Store, found: Mapping[str, Any]) -> dict[str, Any]:
    item = {
        **_as_reporter_sees(found),
        "reporter_name": _name(store, found["reporter"]),
        "player_name": _name(store, found["player_id"]),
        "private": bool(found.get("private")),
        "context": [],
    }
    if found["kind"] == "message":
        item["context"] = _message_context(store, found)
    return item


def _message_context(store: Store, found: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reported message, and for a table message the table messages around it: never a
    private message but the reported one."""
    game_id, message_id = found["game_id"], found["message_id"]
    try:
        record = store.get_game(game_id)
    except Problem:
        return []  # the game was archived: its talk went with it
    fields = store.messages.get(game_id, message_id)
    if fields is None:
        return []
    shown = [_context_line(record, message_id, fields, reported=True)]
    if fields["to_seat"] != "":
        return shown
    before, after = store.messages.near(game_id, message_id, CONTEXT * 10)
    public_before = [m for m in before if m[1]["to_seat"] == ""][-CONTEXT:]
    public_after = [m for m in after if m[1]["to_seat"] == ""][:CONTEXT]
    return (
        [_context_line(record, i, f, reported=False) for i, f in public_before]
        + shown
        + [_context_line(record, i, f, reported=False) for i, f in public_after]
    )


def _context_line(
    record: Any, message_id: str, fields: Mapping[str, str], reported: bool
) -> dict[str, Any]:
    seat = int(fields["from_seat"])
    return {
        "id": message_id,
        "from_seat": seat,
        "from_name": record.names[seat] if 0 <= seat < len(record.names) else "",
        "private": fields["to_seat"] != "",
        "text": fields["text"],
        "at": float(fields["at"]),
        "reported": reported,
    }


def _name(store: Store, player_id: str) -> str:
    player = store.players.get(player_id)
    return player["name"] if player else ""


# -- actions and the audit log ------------------------------------------------------------------


def act(store: Store, moderator: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """A moderator's action (``action``, ``reason``, and ``report_id`` or ``player_id``);
    returns its audit entry. Checked in full before anything changes."""
    require_moderator(store, moderator)
    action = inputs.checked("action", lambda v: inputs.one_of(v, ACTIONS), request.get("action"))
    reason = inputs.checked("reason", inputs.REASON.check, request.get("reason"))
    settled = _report_for(store, request.get("report_id"))
    player_id = settled["player_id"] if settled else request.get("player_id")
    if action in ("hide", "dismiss") and settled is None:
        raise Problem(422, "report-needed", N_("this action settles a report: name its report_id"))
    if action == "hide" and settled is not None and settled["kind"] != "message":
        raise Problem(422, "not-a-message-report", N_("only a reported message can be hidden"))
    if action in _ON_PLAYER:
        _check_player(store, player_id)
    if action == "hide" and settled is not None:
        store.get_game(settled["game_id"])  # archived meanwhile: 404, nothing written
    entry = {
        "action": action,
        "reason": reason,
        "moderator_id": moderator["id"],
        "moderator_name": moderator["name"],
        "player_id": player_id if action != "dismiss" or settled else None,
        "report_id": settled["id"] if settled else None,
        "game_id": settled.get("game_id") if settled else None,
        "message_id": settled.get("message_id") if settled else None,
        "at": time.time(),
    }
    _apply(store, action, entry)
    closed = None
    if settled is not None:
        closed = {**settled, "status": "closed", "closed_by": moderator["id"], "action": action}
    entry_id = store.moderation.record(entry, closed)
    if action in _ON_PLAYER:  # the player hears of it by mail (workers/moderation.py)
        args = (entry_id, player_id, action, reason)
        job = notice_job(f"mod-{entry_id}", MODERATION_NOTICE_JOB, args, f"{action} {player_id}")
        owed.owe_now(store.queue_raw, job)
    return {"id": entry_id, **entry}


def _report_for(store: Store, report_id: Any) -> dict[str, Any] | None:
    if report_id is None:
        return None
    found = store.moderation.get_report(report_id) if isinstance(report_id, str) else None
    if found is None or len(report_id) > 64:
        raise Problem(404, "report-not-found", f"no report {report_id!r}")
    if found["status"] != "open":
        raise Problem(409, "report-closed", N_("this report was settled already"))
    return found


def _check_player(store: Store, player_id: Any) -> None:
    if not isinstance(player_id, str) or len(player_id) > 64:
        raise Problem(422, "invalid-action", N_("this action names a report_id or a player_id"))
    if store.players.get(player_id) is None:
        raise Problem(404, "player-not-found", f"no player {player_id!r}", player_id=player_id)


def _apply(store: Store, action: str, entry: Mapping[str, Any]) -> None:
    if action == "hide":
        store.messages.hide(entry["game_id"], entry["message_id"])
    elif action == "warn":
        store.moderation.warn(entry["player_id"], {"reason": entry["reason"], "at": entry["at"]})
    elif action == "suspend":
        store.moderation.suspend(entry["player_id"], {"reason": entry["reason"], "at": entry["at"]})
    elif action == "reinstate":
        store.moderation.suspend(entry["player_id"], None)


def audit(
    store: Store, moderator: Mapping[str, Any], before: str | None, limit: int = AUDIT_PAGE
) -> dict[str, Any]:
    """The audit log, newest first; ``next_cursor`` pages on to older entries."""
    require_moderator(store, moderator)
    found = store.moderation.audit(before, limit)
    items = [{"id": entry_id, **entry} for entry_id, entry in found]
    return {"items": items, "next_cursor": items[-1]["id"] if len(items) == limit else None}


def warnings(store: Store, player_id: str) -> list[dict[str, Any]]:
    """The warnings given to ``player_id``, newest first (shown to them only)."""
    return store.moderation.warnings(player_id)


# -- the operator's command ---------------------------------------------------------------------


def set_moderator(store: Store, name_or_id: str, granted: bool) -> dict[str, Any]:
    """Grant or revoke the role (``kurier moderator grant|revoke NAME``): a player by id, or
    by name when exactly one player has it."""
    player = _by_name_or_id(store, name_or_id)
    store.moderation.set_moderator(player["id"], granted)
    return player


def moderators(store: Store) -> list[dict[str, Any]]:
    found = [store.players.get(p) for p in store.moderation.moderators()]
    return [p for p in found if p is not None]


def _by_name_or_id(store: Store, name_or_id: str) -> dict[str, Any]:
    player = store.players.get(name_or_id) if name_or_id.startswith("p_") else None
    if player is not None:
        return player
    named = [p for p in _players(store) if p["name"] == name_or_id]
    if len(named) != 1:
        raise Problem(
            404 if not named else 409,
            "player-not-found" if not named else "ambiguous-name",
            f"{len(named)} players are called {name_or_id!r}: name one by its id (p_…)",
        )
    return named[0]


def _players(store: Store) -> list[dict[str, Any]]:
    """Every player (a scan: for the operator's command only)."""
    keys = [k for k in store.r.scan_iter(match="kurier:player:{*}", count=1000) if k[-1] == "}"]
    found = [store.players.get(key[len("kurier:player:{") : -1]) for key in keys]
    return [p for p in found if p is not None]
