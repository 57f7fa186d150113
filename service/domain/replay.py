"""Looking back at a game (issue 32): any version of it rebuilt from its log, as one viewer was
allowed to see it then, never more.

A game's state at version N is the engine's new state from the seed, options and seat count,
with the action entries up to N applied in order (pinning.apply_entries, the replay that
``kurier games verify`` trusts). What a viewer sees of it is the engine's ``view`` for their
seat at N, the events of entry N they may see, and its action: an open move always, a sealed
choice to its author, or to anyone once its reveal is logged at or before N (a choice revealed
later stays sealed at N, even in a finished game). A seat taken over by a replacement is that
player's only from the version they took it: before it they see what a spectator saw.

Rebuilding version N costs up to N engine steps, so the states of every ``CHECKPOINT``-th
version are kept in this process (a bounded LRU, keyed by game, rules version and version: a
logged version's state never changes) and a step starts from the nearest one below it.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Event, IllegalAction, Translator, json_copy
from service.common.problems import Problem
from service.domain import pinning
from service.store.record import GameRecord

#: A replayed state is kept every this many versions (and the last one asked for).
CHECKPOINT = 16
#: Kept states in this process; a dumped Attila state is a few KB.
MAX_KEPT = 512

_kept: OrderedDict[tuple[str, str, int], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()


def first_version(entries: Sequence[tuple[int, Mapping[str, Any]]]) -> int | None:
    """The version at which the game started (its first state), None if it has not."""
    return next((v for v, entry in entries if entry["kind"] == "started"), None)


def _remember(key: tuple[str, str, int], dumped: dict[str, Any]) -> None:
    with _lock:
        _kept[key] = dumped
        _kept.move_to_end(key)
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)


def _recall(key: tuple[str, str, int]) -> dict[str, Any] | None:
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
        return found


def state_at(
    record: GameRecord, entries: Sequence[tuple[int, Mapping[str, Any]]], version: int
) -> Any:
    """The engine state after entry ``version`` (the game must have started by then)."""
    start = first_version(entries)
    if start is None or not start <= version <= record.version:
        raise Problem(404, "no-such-version", "the game has no board at this version")
    game = record.game
    base = (record.id, record.rules_version)
    # The nearest kept state at or below ``version`` (a checkpoint, or the one just before).
    since, state = start, None
    for candidate in (version, version - 1, version - version % CHECKPOINT):
        if candidate >= start and (dumped := _recall((*base, candidate))) is not None:
            since, state = candidate, game.load(json_copy(dumped))
            break
    if state is None:
        state = game.new_state(len(record.seats), record.seed, record.options)
    try:
        for v, entry in entries:
            if since < v <= version:
                pinning.apply_entries(game, state, [(v, entry)])
                if v % CHECKPOINT == 0:
                    _remember((*base, v), json_copy(game.dump(state)))
    except IllegalAction:
        # A game this engine cannot replay (pinned to older rules): no picture rather than
        # a wrong one.
        raise Problem(409, "not-replayable", "this engine cannot replay the game") from None
    _remember((*base, version), json_copy(game.dump(state)))
    return state


def record_at(
    record: GameRecord, entries: Sequence[tuple[int, Mapping[str, Any]]], version: int
) -> GameRecord:
    """``record`` as it stood at ``version`` (an earlier one, or its own): its state then, in
    play unless it is the last version of a finished game. For what is drawn from a state
    (a superseded version's board on the table): its sealed choices and pending decisions
    are not rebuilt."""
    if version == record.version:
        return record
    state = state_at(record, entries, version)
    return dataclasses.replace(
        record,
        version=version,
        status="active",
        state=record.game.dump(state),
        result=None,
        pending=[],
        sealed={},
        stored={},
    )


def seat_then(record: GameRecord, seat: int | None, version: int) -> int | None:
    """Whose eyes ``seat``'s player looks through at ``version``: their seat from when they
    took it over (seats.take: ``handovers``), a spectator's before."""
    if seat is None:
        return None
    taken = [h["version"] for h in record.seating.get("handovers", []) if h["seat"] == seat]
    return seat if not taken or version >= max(taken) else None


def step(
    record: GameRecord,
    entries: Sequence[tuple[int, Mapping[str, Any]]],
    version: int,
    seat: int | None,
    words: Translator | None = None,
) -> dict[str, Any]:
    """What ``seat``'s player (None: a spectator) may see of ``version``: the engine's view
    for them then, the entry's kind, seat and action (when they may see it), the sentences
    of its events they may see, and its sealed commitment; ``public``: the spectators' view,
    which the board picture draws (the full state never leaves this module). ``words``: the
    reader's language."""
    who = seat_then(record, seat, version)
    game = record.game
    state = state_at(record, entries, version)
    upto = [(v, e) for v, e in entries if v <= version]
    entry = upto[-1][1]
    revealed = {
        event.data["ref"]
        for _, e in upto
        for raw in e["events"]
        if (event := Event.from_json(raw)).kind == "sealed_revealed" and event.visible_to(who)
    }
    author = int(entry["seat"]) if entry.get("seat", "") != "" else None
    shown = entry["kind"] != "sealed" or author == who or entry.get("ref") in revealed
    events = [e for raw in entry["events"] if (e := Event.from_json(raw)).visible_to(who)]
    sentences = [text for e in events if (text := game.describe(e, record.names, words))]
    return {
        "version": version,
        "seat": who,
        "view": game.view(state, who),
        "public": game.view(state, None),  # what the board picture is drawn from
        "kind": entry["kind"],
        "author": author,
        "action": (entry.get("action") or None) if shown else None,
        "commitment": entry.get("commitment") or None,
        "events": [e.to_json() for e in events],
        "sentences": sentences,
    }
