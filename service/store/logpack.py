"""A finished game's log packed into its record (``Store.compact``): what the bytes mean.

A compacted game keeps each log entry's action (kind, seat, notation, ref, commitment) and time,
and drops the events the engine gives back when the actions are replayed from the game's seed
and options: those are rebuilt on reading. Compaction replays the actions first and drops an
entry's events only where the replay gives them exactly (the same JSON text, private parts
included, so that views filter them as before); the events the service adds around the
engine's (who joined, a timeout, the game's end) are kept as they were, before or after the
rebuilt ones, a sealed choice's commitment and a reveal as tokens that give them back
(``_Sealed``: a reveal keeps its salts). A replay that cannot run, or gives other events,
keeps the events as stored; and the value is read back before it is written, else every
event is kept.

The format (``log`` field of the record): ``PACKED_PREFIX`` and the JSON document deflated
against the game's dictionary (service/store/eventlog.py), as bytes; a game without a codec
keeps the JSON text. The document: ``{"f": 2, "log": [entry, ...]}``, each entry
``[dv, kind, seat, action, ref, commitment, dt, events]``: ``dv`` the version since the entry
before, ``dt`` whole milliseconds since the entry before (the first: since the epoch), and
``events`` left out when they are the replay's own, ``{"b": [...], "a": [...]}`` for events kept
before and after the replay's, or a list: the events as stored (each kept event as itself,
or as a token). An entry of another shape is kept whole: ``{"dv": dv, "entry": {...}}``. A
compacted game's times are kept to the millisecond, as every entry's time is written
(``entry_time``).

The events are rebuilt only by an engine of the game's ``rules_version`` (or one that declares
it reproduces it: ``Game.replays_events_of``); under other rules the log is refused (409
``not-replayable``), never rebuilt into another history. Compaction derives nothing for a game
whose rules differ from the engine's.

The older format (``z:`` and base64, or a JSON list of ``[version, entry]``) still reads.
"""

from __future__ import annotations

import functools
import hashlib
import time
from typing import Any

from engine import jsontext
from engine.core import Game, IllegalAction
from service.common.lru import Lru
from service.common.problems import Problem
from service.common.sealed import COMMITMENT_SCHEME
from service.store import eventlog
from service.store.record import GameRecord, dumps, unpack_log

#: Log entry kinds that change the game's state: one engine action each (notation and seat).
ACTION_KINDS = ("move", "sealed", "resolve")
#: Marks a log packed by this module and compressed (binary: the record is read with the
#: bytes client). The older format's compressed value starts with ``z:``.
PACKED_PREFIX = b"z2:"
FORMAT = 2
#: A log entry's fields, in the order the writer gives them (service/store/games.py ``_entry``).
FIELDS = ("kind", "seat", "action", "ref", "commitment", "events", "at")
#: Rebuilt logs kept in this process, by the packed value's digest (it never changes).
KEPT_LOGS = 64
#: A replay lets other threads or greenlets run every this many entries: a long game's
#: (the wargame's thousands of moves: seconds) would hold the stream server's gevent worker,
#: and every stream in it, until done (``time.sleep(0)`` is gevent's yield once patched).
YIELD_EVERY = 64

Entries = list[tuple[int, dict[str, Any]]]
Derived = list[list[dict[str, Any]] | None]

_rebuilt: Lru[bytes] = Lru(KEPT_LOGS)


def is_packed(stored: bytes) -> bool:
    """Whether a stored ``log`` value is in this module's format (else the older one)."""
    return stored.startswith(PACKED_PREFIX) or stored.startswith(b"{")


def pack(record: GameRecord, entries: Entries, keep_events: bool = False) -> bytes:
    """The log as stored in a compacted record: events derived where the replay gives them
    exactly, and checked: the value read back must give ``entries`` (times to the
    millisecond), else the events are all kept. ``keep_events``: derive none (before the
    engine moves to rules that would give other events: docs/operations.md, Upgrades)."""
    wanted = dumps([[version, to_millisecond(entry)] for version, entry in entries])
    derive = reproducible(record) and not keep_events
    derived = replayed_events(record, entries) if derive else None
    for events in (derived, None):
        packed = _packed(record.log_codec, _document(entries, events))
        if dumps(_rebuild(record, packed)) == wanted:
            return packed
    raise ValueError(f"the log of game {record.id} does not read back as it was")


def unpack(record: GameRecord, stored: bytes) -> Entries:
    """A compacted game's log entries, in either format."""
    if not is_packed(stored):
        return unpack_log(record.log_codec, stored.decode())
    # A log is rebuilt under the game's rules: another rules version reads it again.
    name = f"{record.id}\0{record.rules_version}\0".encode()
    key = hashlib.blake2b(name + stored, digest_size=16).digest()
    text = _rebuilt.get(key)
    if text is None:
        text = jsontext.dumpb(_rebuild(record, stored))
        _rebuilt.put(key, text)
    return [(int(version), entry) for version, entry in jsontext.loads(text)]


def derives(codec: str, stored: bytes) -> bool:
    """Whether a stored log has events rebuilt by replay (only this module's format does)."""
    if not is_packed(stored):
        return False
    return any(_derives(item) for item in _document_of(codec, stored)["log"])


def reproducible(record: GameRecord) -> bool:
    """Whether the running engine gives this game's events again: it runs the game's rules,
    or declares that it reproduces them."""
    game = record.game
    return record.rules_version in (game.rules_version, *game.replays_events_of)


def to_millisecond(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with its time as a compacted log keeps it (whole milliseconds)."""
    if tuple(entry) != FIELDS:
        return entry  # kept whole
    return entry | {"at": _at_text(_milliseconds(entry["at"]))}


def replayed_events(record: GameRecord, entries: Entries) -> Derived | None:
    """The engine's events of each action entry (None for the others), as JSON data, from a
    replay of the actions; None if the replay refuses an action."""
    game = record.game
    state = game.new_state(len(record.seats), record.seed, record.options)
    try:
        return [_apply(game, state, entry) for _version, entry in entries]
    except IllegalAction:
        return None


def _apply(game: Game[Any, Any], state: Any, entry: dict[str, Any]) -> list[dict[str, Any]] | None:
    if entry.get("kind") not in ACTION_KINDS:
        return None
    events = game.apply_notation(state, int(entry["seat"]), entry["action"])
    found: list[dict[str, Any]] = jsontext.loads(dumps([event.to_json() for event in events]))
    return found


# -- the document ----------------------------------------------------------------------------------


def _document(entries: Entries, derived: Derived | None) -> dict[str, Any]:
    packed: list[Any] = []
    sealed = _Sealed()
    last_version = last_ms = 0
    for index, (version, entry) in enumerate(entries):
        dv, last_version = version - last_version, version
        sealed.chose(entry)
        if tuple(entry) != FIELDS:
            packed.append({"dv": dv, "entry": entry})
            sealed.saw(entry.get("events", []))
            continue
        ms = _milliseconds(entry["at"])
        events = _events_spec(entry, derived[index] if derived else None, sealed)
        fields = [dv, *(entry[name] for name in FIELDS[:5]), ms - last_ms]
        packed.append(fields if events is None else [*fields, events])
        last_ms = ms
    return {"f": FORMAT, "log": packed}


def _events_spec(
    entry: dict[str, Any], derived: list[dict[str, Any]] | None, sealed: _Sealed
) -> Any:
    """How an entry's events are kept: None (the replay's exactly), the events kept around
    the replay's ({"b", "a"}), or the events themselves (a list); kept events the sealed
    choices give back are tokens (``_Sealed``)."""
    stored: list[dict[str, Any]] = entry["events"]
    start, width = _found_in(stored, derived) if derived else (None, 0)
    if start is None:
        return [sealed.token(entry, event) for event in stored]
    before = [sealed.token(entry, event) for event in stored[:start]]
    after = [sealed.token(entry, event) for event in stored[start + width :]]
    if not before and not after:
        return None
    return {"b": before, "a": after}


def _found_in(
    stored: list[dict[str, Any]], derived: list[dict[str, Any]]
) -> tuple[int | None, int]:
    """Where the replay's events stand among the stored ones, the same JSON text."""
    width, text = len(derived), dumps(derived)
    for start in range(len(stored) - width + 1):
        if dumps(stored[start : start + width]) == text:
            return start, width
    return None, width


class _Sealed:
    """The sealed choices made and not yet revealed, followed along the log as the game's
    record held them (``GameRecord.sealed``): a choice's ``sealed_committed`` event and a
    reveal's choices follow from the sealed entries (notation and commitment); of a reveal
    only its salts are kept. A token is a list: ``["c"]`` a sealed entry's commitment event,
    ``["r", ref, salts]`` a reveal (salts in seat order). Events are kept as tokens only
    where the token gives them back as the same JSON text."""

    def __init__(self) -> None:
        self.open: dict[str, dict[int, tuple[str, str]]] = {}

    def chose(self, entry: dict[str, Any]) -> None:
        if entry.get("kind") == "sealed":
            choice = (entry["action"], entry["commitment"])
            self.open.setdefault(entry["ref"], {})[int(entry["seat"])] = choice

    def saw(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self._saw(event)

    def _saw(self, event: dict[str, Any]) -> None:
        if event.get("kind") == "sealed_revealed":
            self.open.pop(event["data"]["ref"], None)

    def token(self, entry: dict[str, Any], event: dict[str, Any]) -> Any:
        """``event`` as kept: a token if it gives the event back, else the event."""
        kept: Any = event
        text = dumps(event)
        if event.get("kind") == "sealed_committed" and dumps(self.committed(entry)) == text:
            kept = ["c"]
        elif event.get("kind") == "sealed_revealed":
            ref = event["data"].get("ref")
            salts = [choice.get("salt") for choice in event["data"].get("choices", [])]
            if dumps(self.revealed(ref, salts)) == text:
                kept = ["r", ref, salts]
        self._saw(event)
        return kept

    def event(self, entry: dict[str, Any], kept: Any) -> dict[str, Any]:
        """The event a kept item stands for (its own, or its token's)."""
        if isinstance(kept, dict):
            found = kept
        elif kept[0] == "c":
            found = self.committed(entry)
        else:
            revealed = self.revealed(kept[1], kept[2])
            if revealed is None:  # the packer keeps a reveal as a token only if it fits
                raise ValueError(f"a packed log reveals choices of {kept[1]!r} never made")
            found = revealed
        self._saw(found)
        return found

    @staticmethod
    def committed(entry: dict[str, Any]) -> dict[str, Any]:
        data = {"ref": entry["ref"], "seat": int(entry["seat"]), "commitment": entry["commitment"]}
        return {"kind": "sealed_committed", "data": data}

    def revealed(self, ref: str, salts: list[str]) -> dict[str, Any] | None:
        choices = sorted(self.open.get(ref, {}).items())
        if len(choices) != len(salts):
            return None
        listed = [
            {"seat": seat, "choice": choice, "salt": salt, "commitment": commitment}
            for (seat, (choice, commitment)), salt in zip(choices, salts, strict=True)
        ]
        data = {"ref": ref, "scheme": COMMITMENT_SCHEME, "choices": listed}
        return {"kind": "sealed_revealed", "data": data}


def _packed(codec: str, document: dict[str, Any]) -> bytes:
    text = dumps(document)
    if not codec:
        return text.encode()
    return PACKED_PREFIX + eventlog.pack_text(codec, text)


def _document_of(codec: str, stored: bytes) -> dict[str, Any]:
    if stored.startswith(PACKED_PREFIX):
        document: dict[str, Any] = eventlog.unpack(codec, stored[len(PACKED_PREFIX) :])
        return document
    return dict(jsontext.loads(stored))


def _rebuild(record: GameRecord, stored: bytes) -> Entries:
    document = _document_of(record.log_codec, stored)
    packed = document["log"]
    replay = _Replay(record) if any(_derives(item) for item in packed) else None
    sealed = _Sealed()
    entries: Entries = []
    version = last_ms = 0
    for index, item in enumerate(packed, 1):
        if replay and index % YIELD_EVERY == 0:
            time.sleep(0)
        if isinstance(item, dict):
            version += item["dv"]
            entry = item["entry"]
            sealed.chose(entry)
            sealed.saw(entry.get("events", []))
            if replay:
                replay.step(entry)
        else:
            version += item[0]
            last_ms += item[6]
            entry = dict(zip(FIELDS[:5], item[1:6], strict=True))
            sealed.chose(entry)
            rebuilt = replay.step(entry) if replay else None
            spec = item[7] if len(item) > 7 else None
            entry |= {"events": _events_of(entry, spec, rebuilt, sealed), "at": _at_text(last_ms)}
        entries.append((version, entry))
    return entries


def _derives(item: Any) -> bool:
    return isinstance(item, list) and (len(item) == 7 or isinstance(item[7], dict))


def _events_of(
    entry: dict[str, Any], spec: Any, rebuilt: list[dict[str, Any]] | None, sealed: _Sealed
) -> list[dict[str, Any]]:
    if isinstance(spec, list):
        return [sealed.event(entry, kept) for kept in spec]
    if rebuilt is None:  # the packer derives only the events of action entries
        raise ValueError("a packed log derives events of an entry that is not an action")
    if spec is None:
        return rebuilt
    before = [sealed.event(entry, kept) for kept in spec.get("b", [])]
    after = [sealed.event(entry, kept) for kept in spec.get("a", [])]
    return [*before, *rebuilt, *after]


class _Replay:
    """The game replayed entry by entry, for the events of each action."""

    def __init__(self, record: GameRecord) -> None:
        if not reproducible(record):
            raise Problem(
                409,
                "not-replayable",
                f"this game's events are rebuilt by replaying it under rules "
                f"{record.rules_version}; the server has {record.game.rules_version}",
                game_rules_version=record.rules_version,
            )
        self.game = record.game
        self.state = self.game.new_state(len(record.seats), record.seed, record.options)

    def step(self, entry: dict[str, Any]) -> list[dict[str, Any]] | None:
        try:
            return _apply(self.game, self.state, entry)
        except IllegalAction:
            raise Problem(409, "not-replayable", "this engine cannot replay the game") from None


def entry_time(seconds: float) -> str:
    """A log entry's time as the log keeps it, in play and compacted alike: whole
    milliseconds, so that compaction changes no entry an API client has read."""
    return _at_text(round(seconds * 1000))


def _milliseconds(at: str) -> int:
    return round(float(at) * 1000)


@functools.lru_cache(maxsize=4096)
def _at_text(milliseconds: int) -> str:
    return repr(milliseconds / 1000)
