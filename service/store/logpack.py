"""A finished game's log packed into its record (``Store.compact``): what the bytes mean.

A compacted game keeps each log entry's action and time, and drops what the engine gives back
when the actions are replayed from the game's seed and options: the events, and for an action
the engine offered, the entry's kind, seat and ref (the decision it answered) and the action
itself, kept as a small number (``Game.action_code``: by default its index among the legal
actions). Compaction replays the actions first and drops an entry's events only where the
replay gives them exactly (the same JSON text, private parts included, so that views filter
them as before); the events the service adds around the engine's (who joined, a timeout, the
game's end) are kept as they were, before or after the rebuilt ones, a sealed choice's
commitment and a reveal as tokens that give them back (``_Sealed``), the game's end as one the
record gives back. A sealed choice keeps neither its commitment nor its salt when every salt
the game's reveals published is the one the game's secret gives (service/common/sealed.py
``derived_salt``): the log keeps the secret (32 bytes) instead; else each sealed choice keeps
the salt its reveal later published (16 bytes), which gives its commitment back (SHA-256), and
the reveal keeps nothing of its own. A replay that cannot run, or gives other events, keeps
the events as stored; and the value is read back before it is written, else the next format
down is tried, and at last every event is kept. The replay also gives the game's final state
(``final_state``), so that compaction may drop the record's (``gives_state``).

The format (``log`` field of the record), version 4: ``CODED_PREFIX``, the secret (its length
as a varint, 0 or 32, then its bytes), the times (the length of what follows as a varint, then
the coded entries' milliseconds since the entry before, each a zigzag varint, as a clock may
step back, laid out byte plane by byte plane: ``_planar``) and the entries (the rest), the
times and the entries each deflated against the game's
dictionary (service/store/eventlog.py), uncompressed after ``PLAIN_CODED_PREFIX`` for a game
without a codec. Each entry starts with a varint of flags:

- ``0``: a JSON entry follows (its length as a varint, then its text): an item of version 2
  (below), for an entry the replay cannot code (the service's own entries, a resignation, a
  move of a form the engine does not offer);
- else the bits of ``_Flag``: ``CODED`` (always), then what differs from the usual: ``DV``
  (a version step other than 1, varint), ``DECISION`` (the index of the decision answered
  among those pending, varint; else the first), ``SALT`` (a sealed choice's salt, which gives
  its commitment: 16 bytes, or none where the log keeps the secret), ``EVENTS`` (the events
  kept around the replay's, as JSON: length and text), ``COMMITTED`` (the replay's events and
  the choice's ``sealed_committed``), ``REVEALED`` (the reveal of the entry's ref, then the
  replay's); then the action's code (varint); its time is the next of the times.

Version 3 (still read): ``CODED_PREFIX_3`` and the entries alone, deflated (or after
``PLAIN_CODED_PREFIX_3``), each coded entry's salt always in it and its time after its code.

Version 2 (still read, and written when the game's events are kept: ``keep_events``, or rules
the engine does not reproduce): ``PACKED_PREFIX`` and the JSON document deflated against the
game's dictionary, as bytes; a game without a codec keeps the JSON text. The document:
``{"f": 2, "log": [entry, ...]}``, each entry ``[dv, kind, seat, action, ref, commitment, dt,
events]``: ``dv`` the version since the entry before, ``dt`` whole milliseconds since the entry
before (the first: since the epoch), and ``events`` left out when they are the replay's own,
``{"b": [...], "a": [...]}`` for events kept before and after the replay's, or a list: the
events as stored (each kept event as itself, or as a token). An entry of another shape is kept
whole: ``{"dv": dv, "entry": {...}}``. A compacted game's times are kept to the millisecond, as
every entry's time is written (``entry_time``).

The events (and in versions 3 and 4 the actions) are rebuilt only by an engine of the game's
``rules_version`` (or one that declares it reproduces it: ``Game.replays_events_of``); under
other rules the log is refused (409 ``not-replayable``), never rebuilt into another history.
Compaction derives nothing for a game whose rules differ from the engine's.

The oldest format (``z:`` and base64, or a JSON list of ``[version, entry]``) still reads.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import time
from collections.abc import Iterator
from typing import Any

from engine import jsontext
from engine.core import Decision, Event, Game, IllegalAction
from service.common import sealed as commitments
from service.common.lru import Lru
from service.common.problems import Problem
from service.common.sealed import COMMITMENT_SCHEME
from service.store import eventlog
from service.store.record import GameRecord, dumps, unpack_log

#: Log entry kinds that change the game's state: one engine action each (notation and seat).
ACTION_KINDS = ("move", "sealed", "resolve")
#: Marks a log packed by this module in version 2 and compressed (binary: the record is read
#: with the bytes client). The oldest format's compressed value starts with ``z:``.
PACKED_PREFIX = b"z2:"
FORMAT = 2
#: Marks a log in version 4 (actions coded, times apart, salts derived), compressed or not
#: (a game without a codec): what compaction writes.
CODED_PREFIX = b"z4:"
PLAIN_CODED_PREFIX = b"p4:"
#: Marks a log in version 3 (actions coded, each entry's time and salt in it): still read.
CODED_PREFIX_3 = b"z3:"
PLAIN_CODED_PREFIX_3 = b"p3:"
#: Every prefix of a log with actions coded (versions 3 and 4).
_CODED_PREFIXES = (CODED_PREFIX, PLAIN_CODED_PREFIX, CODED_PREFIX_3, PLAIN_CODED_PREFIX_3)
#: The event of a game's end (service/domain/games/play.py ``settle``): its data is the record's.
GAME_OVER = "game_over"
#: A log entry's fields, in the order the writer gives them (service/store/games.py ``_entry``).
FIELDS = ("kind", "seat", "action", "ref", "commitment", "events", "at")
#: Rebuilt logs kept in this process, by the packed value's digest (it never changes).
KEPT_LOGS = 64
#: A replay lets other threads or greenlets run every this many entries: a long game's
#: (the wargame's thousands of moves: seconds) would hold the stream server's gevent worker,
#: and every stream in it, until done (``time.sleep(0)`` is gevent's yield once patched).
YIELD_EVERY = 64
#: A salt as the service makes it (service/common/sealed.py): 16 bytes in hex.
SALT_BYTES = commitments.SALT_BYTES

Entries = list[tuple[int, dict[str, Any]]]
Derived = list[list[dict[str, Any]] | None]


class _Flag(enum.IntFlag):
    """What a version 3 entry holds beyond its code and time (the module's docstring)."""

    CODED = 1
    DV = 2
    DECISION = 4
    SALT = 8
    EVENTS = 16
    COMMITTED = 32
    REVEALED = 64


#: A rebuilt log: its entries and the replay's final state (None: the log was not replayed),
#: each as JSON text.
_Rebuilt = tuple[bytes, bytes | None]
_rebuilt: Lru[_Rebuilt] = Lru(KEPT_LOGS)


def is_packed(stored: bytes) -> bool:
    """Whether a stored ``log`` value is in this module's formats (else the oldest one)."""
    return stored.startswith((*_CODED_PREFIXES, PACKED_PREFIX, b"{"))


def pack(record: GameRecord, entries: Entries, keep_events: bool = False) -> bytes:
    """The log as stored in a compacted record: actions coded and events derived where the
    replay gives them exactly, and checked: the value read back must give ``entries`` (times
    to the millisecond), else the next form is tried: version 2 with events derived, then with
    every event kept. ``keep_events``: derive nothing (before the engine moves to rules that
    would give other events: docs/operations.md, Upgrades)."""
    wanted = jsontext.dumpb([[version, to_millisecond(entry)] for version, entry in entries])
    derive = reproducible(record) and not keep_events
    for packed in _candidates(record, entries, derive):
        # Read back as a reader will (and kept so: the next read, ``gives_state``, is quick).
        if packed is not None and _rebuilt_log(record, packed)[0] == wanted:
            return packed
    raise ValueError(f"the log of game {record.id} does not read back as it was")


def _candidates(record: GameRecord, entries: Entries, derive: bool) -> Iterator[bytes | None]:
    """The packed forms to try, smallest first (a generator: each built when asked)."""
    if derive:
        yield _coded(record, entries)
        derived = replayed_events(record, entries)
        if derived is not None:
            yield _packed(record.log_codec, _document(entries, derived))
    yield _packed(record.log_codec, _document(entries, None))


def unpack(record: GameRecord, stored: bytes) -> Entries:
    """A compacted game's log entries, in any format."""
    if not is_packed(stored):
        return unpack_log(record.log_codec, stored.decode())
    text, _state = _rebuilt_log(record, stored)
    return [(int(version), entry) for version, entry in jsontext.loads(text)]


def final_state(record: GameRecord, stored: bytes) -> dict[str, Any] | None:
    """The game's state after the last entry of its compacted log, as ``Game.dump`` gives it,
    from the replay that rebuilds the log (None if the log is not replayed: events kept);
    compaction drops the record's state only where this gives it exactly (``gives_state``).
    None too under other rules than the game's (its log is refused: ``not-replayable``)."""
    if not is_packed(stored) or not reproducible(record):
        return None
    _text, state = _rebuilt_log(record, stored)
    return None if state is None else dict(jsontext.loads(state))


def gives_state(record: GameRecord, stored: bytes) -> bool:
    """Whether ``final_state`` gives ``record``'s state as the same JSON text."""
    state = final_state(record, stored)
    return state is not None and dumps(state) == dumps(record.state)


def _rebuilt_log(record: GameRecord, stored: bytes) -> _Rebuilt:
    # A log is rebuilt under the game's rules: another rules version reads it again.
    name = f"{record.id}\0{record.rules_version}\0".encode()
    key = hashlib.blake2b(name + stored, digest_size=16).digest()
    found = _rebuilt.get(key)
    if found is None:
        reader = _rebuild(record, stored)
        replay = reader.replay
        state = None if replay is None else jsontext.dumpb(replay.game.dump(replay.state))
        found = (jsontext.dumpb(reader.entries), state)
        _rebuilt.put(key, found)
    return found


def derives(codec: str, stored: bytes) -> bool:
    """Whether a stored log has events rebuilt by replay (only this module's formats do)."""
    if stored.startswith(_CODED_PREFIXES):
        return True  # its actions, at least, are the replay's
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
    return _events_json(game.apply_notation(state, int(entry["seat"]), entry["action"]))


def _events_json(events: list[Any]) -> list[dict[str, Any]]:
    """Events as JSON data, as the log holds them (one JSON round trip: tuples as lists)."""
    found: list[dict[str, Any]] = jsontext.loads(dumps([event.to_json() for event in events]))
    return found


# -- version 2: the document -----------------------------------------------------------------------


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
        packed.append(_item(entry, dv, ms - last_ms, events))
        last_ms = ms
    return {"f": FORMAT, "log": packed}


def _item(entry: dict[str, Any], dv: int, dt: int, events: Any) -> list[Any]:
    """An entry of ``FIELDS`` as a version 2 item (``events``: its spec, None for the
    replay's own)."""
    fields = [dv, *(entry[name] for name in FIELDS[:5]), dt]
    return fields if events is None else [*fields, events]


def _events_spec(
    entry: dict[str, Any], derived: list[dict[str, Any]] | None, sealed: _Sealed
) -> Any:
    """How an entry's events are kept: None (the replay's exactly), the events kept around
    the replay's ({"b", "a"}), or the events themselves (a list); kept events the sealed
    choices give back are tokens (``_Sealed``)."""
    stored: list[dict[str, Any]] = entry["events"]
    start, width = _found_in(stored, derived) if derived is not None else (None, 0)
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
    reveal's choices follow from the sealed entries (notation, commitment and, in version 3,
    salt). A token is a list: ``["c"]`` a sealed entry's commitment event, ``["r", ref,
    salts]`` a reveal (salts in seat order), ``["r", ref]`` one whose salts the sealed entries
    kept (``short_reveals``: versions 3 and 4), ``["o"]`` the game's end as the record gives it
    (its result, seed and seed commitment: version 4, ``record`` given). Events are kept as
    tokens only where the token gives them back as the same JSON text."""

    def __init__(self, short_reveals: bool = False, record: GameRecord | None = None) -> None:
        self.open: dict[str, dict[int, tuple[str, str, str | None]]] = {}
        self.short_reveals = short_reveals
        self.record = record

    def chose(self, entry: dict[str, Any], salt: str | None = None) -> None:
        if entry.get("kind") == "sealed":
            choice = (entry["action"], entry["commitment"], salt)
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
        elif event.get("kind") == GAME_OVER and self.short_reveals and self._ended() == text:
            kept = ["o"]
        elif event.get("kind") == "sealed_revealed":
            ref = event["data"].get("ref")
            salts = [choice.get("salt") for choice in event["data"].get("choices", [])]
            if dumps(self.revealed(ref, salts)) == text:
                short = self.short_reveals and salts == self.salts(ref) and None not in salts
                kept = ["r", ref] if short else ["r", ref, salts]
        self._saw(event)
        return kept

    def event(self, entry: dict[str, Any], kept: Any) -> dict[str, Any]:
        """The event a kept item stands for (its own, or its token's)."""
        if isinstance(kept, dict):
            found = kept
        elif kept[0] == "c":
            found = self.committed(entry)
        elif kept[0] == "o":
            ended = self._ended()
            if ended is None:
                raise ValueError("a packed log's end is read without its record")
            found = jsontext.loads(ended)
        else:
            salts = kept[2] if len(kept) > 2 else self.salts(kept[1])
            revealed = self.revealed(kept[1], salts) if None not in salts else None
            if revealed is None:  # the packer keeps a reveal as a token only if it fits
                raise ValueError(f"a packed log reveals choices of {kept[1]!r} never made")
            found = revealed
        self._saw(found)
        return found

    def _ended(self) -> str | None:
        """The event of the game's end as the service logs it, from the record (as JSON)."""
        record = self.record
        if record is None:
            return None
        data = {
            "result": record.result,
            "seed": record.seed,
            "seed_commitment": record.seed_commitment,
        }
        return dumps(Event(GAME_OVER, data).to_json())

    @staticmethod
    def committed(entry: dict[str, Any]) -> dict[str, Any]:
        data = {"ref": entry["ref"], "seat": int(entry["seat"]), "commitment": entry["commitment"]}
        return {"kind": "sealed_committed", "data": data}

    def salts(self, ref: str) -> list[str | None]:
        """The salts the sealed entries kept for ``ref``'s open choices, in seat order."""
        return [salt for _seat, (_c, _m, salt) in sorted(self.open.get(ref, {}).items())]

    def revealed(self, ref: str, salts: list[Any]) -> dict[str, Any] | None:
        choices = sorted(self.open.get(ref, {}).items())
        if len(choices) != len(salts):
            return None
        listed = [
            {"seat": seat, "choice": choice, "salt": salt, "commitment": commitment}
            for (seat, (choice, commitment, _kept)), salt in zip(choices, salts, strict=True)
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


# -- version 3: actions coded --------------------------------------------------------------------

#: The events of a sealed choice as most are kept (``_Flag.COMMITTED``), and of a resolution
#: (``_Flag.REVEALED``: the reveal of the entry's own ref).
_COMMITTED_SPEC: dict[str, Any] = {"b": [], "a": [["c"]]}


def _revealed_spec(ref: str) -> dict[str, Any]:
    return {"b": [["r", ref]], "a": []}


def _coded(record: GameRecord, entries: Entries) -> bytes | None:
    """The log in version 4, or None if the replay refuses an action."""
    try:
        coder = _Coder(record, entries)
        body = coder.body()
    except IllegalAction:
        return None
    secret, times = coder.secret, _planar([_zigzag(dt) for dt in coder.times])
    if record.log_codec:
        prefix = CODED_PREFIX
        times, body = (eventlog.pack_bytes(record.log_codec, part) for part in (times, body))
    else:
        prefix = PLAIN_CODED_PREFIX
    out = bytearray(prefix)
    _varint(out, len(secret))
    out += secret
    _varint(out, len(times))
    return bytes(out + times + body)


class _Coder:
    """Writes version 4's parts: replays the game, and codes each entry the replay can
    (``_code``): the secret (empty if a salt is not the one it gives), the times of the coded
    entries, the entries."""

    def __init__(self, record: GameRecord, entries: Entries) -> None:
        self.record, self.entries = record, entries
        self.game = record.game
        self.state = self.game.new_state(len(record.seats), record.seed, record.options)
        self.sealed = _Sealed(short_reveals=True, record=record)
        self.salts = _salts_revealed_later(entries)
        self.secret = _secret_of_salts(record, entries, self.salts)
        self.out, self.times = bytearray(), list[int]()

    def body(self) -> bytes:
        last_version = last_ms = 0
        for index, (version, entry) in enumerate(self.entries):
            dv, last_version = version - last_version, version
            if tuple(entry) != FIELDS:
                self.sealed.chose(entry)
                self._json({"dv": dv, "entry": entry})
                self.sealed.saw(entry.get("events", []))
                _apply(self.game, self.state, entry)  # the reader replays it too
                continue
            ms = _milliseconds(entry["at"])
            self._entry(entry, dv, ms - last_ms, self.salts.get(index))
            last_ms = ms
        return bytes(self.out)

    def _json(self, item: Any) -> None:
        _varint(self.out, 0)
        _text(self.out, dumps(item))

    def _entry(self, entry: dict[str, Any], dv: int, dt: int, salt: str | None) -> None:
        coded = self._code(entry, dv, salt)
        if coded is None:
            events = _apply(self.game, self.state, entry)
            self.sealed.chose(entry)
            self._json(_item(entry, dv, dt, _events_spec(entry, events, self.sealed)))
            return
        flags, decision, code, action = coded
        seat = self.game.pending(self.state)[decision].seat
        events = _events_json(self.game.apply(self.state, seat, action))
        self.sealed.chose(entry, salt if flags & _Flag.SALT else None)
        spec = _events_spec(entry, events, self.sealed)
        if spec == _COMMITTED_SPEC:
            flags |= _Flag.COMMITTED
        elif spec == _revealed_spec(entry["ref"]):
            flags |= _Flag.REVEALED
        elif spec is not None:
            flags |= _Flag.EVENTS
        out = self.out
        _varint(out, flags)
        if flags & _Flag.DV:
            _varint(out, dv)
        if flags & _Flag.DECISION:
            _varint(out, decision)
        if flags & _Flag.SALT and not self.secret:
            out += bytes.fromhex(salt or "")
        if flags & _Flag.EVENTS:
            _text(out, dumps(spec))
        _varint(out, code)
        self.times.append(dt)

    def _code(
        self, entry: dict[str, Any], dv: int, salt: str | None
    ) -> tuple[_Flag, int, int, Any] | None:
        """How the replay gives ``entry`` back: flags, the decision it answers (its index
        among those pending), the action's code and the action; None if it does not."""
        game, state = self.game, self.state
        if entry["kind"] not in ACTION_KINDS or dv < 0:
            return None
        pending = game.pending(state)
        decision = next((i for i, d in enumerate(pending) if _answers(d, entry)), None)
        if decision is None:
            return None
        seat = pending[decision].seat
        try:
            action = game.parse(entry["action"])
            code = game.action_code(state, seat, action)
            if code is None or game.code_action(state, seat, code) != action:
                return None
        except IllegalAction:
            return None
        if game.notation(action) != entry["action"]:
            return None
        flags = _Flag.CODED
        if entry["commitment"]:
            if not self._salt_gives_commitment(entry, seat, salt):
                return None
            flags |= _Flag.SALT
        flags |= (_Flag.DV if dv != 1 else 0) | (_Flag.DECISION if decision else 0)
        return flags, decision, code, action

    def _salt_gives_commitment(self, entry: dict[str, Any], seat: int, salt: str | None) -> bool:
        if entry["kind"] != "sealed" or salt is None or not _is_salt(salt):
            return False
        again = commitments.commitment(self.record.id, entry["ref"], seat, entry["action"], salt)
        return bool(again == entry["commitment"])


def _secret_of_salts(record: GameRecord, entries: Entries, salts: dict[int, str]) -> bytes:
    """The game's secret, as bytes, if every salt its reveals published is the one the secret
    gives (then the log keeps the secret instead of the salts); else empty."""
    secret = record.secret
    if not salts or not _is_hex(secret, commitments.SECRET_BYTES):
        return b""
    for index, salt in salts.items():
        entry = entries[index][1]
        if salt != commitments.derived_salt(secret, entry["ref"], int(entry["seat"])):
            return b""
    return bytes.fromhex(secret)


def _answers(decision: Decision, entry: dict[str, Any]) -> bool:
    """Whether ``entry`` is logged as the service logs an answer to ``decision``."""
    return (decision.kind, str(decision.seat), decision.ref) == (
        entry["kind"],
        entry["seat"],
        entry["ref"],
    )


_HEX_DIGITS = frozenset("0123456789abcdef")


def _is_salt(salt: Any) -> bool:
    """Whether ``salt`` is kept as bytes: lowercase hex of ``SALT_BYTES`` bytes."""
    return _is_hex(salt, SALT_BYTES)


def _is_hex(text: Any, size: int) -> bool:
    return isinstance(text, str) and len(text) == 2 * size and set(text) <= _HEX_DIGITS


def _salts_revealed_later(entries: Entries) -> dict[int, str]:
    """For each sealed entry (by its index), the salt the next reveal of its choice
    published, where there is one."""
    found: dict[int, str] = {}
    later: dict[tuple[Any, Any], Any] = {}
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index][1]
        for event in entry.get("events", []) if isinstance(entry.get("events"), list) else []:
            if isinstance(event, dict) and event.get("kind") == "sealed_revealed":
                data = event.get("data", {})
                for choice in data.get("choices", []):
                    later[(data.get("ref"), choice.get("seat"))] = choice.get("salt")
        if entry.get("kind") == "sealed" and str(entry.get("seat", "")).isdigit():
            salt = later.get((entry.get("ref"), int(entry["seat"])))
            if isinstance(salt, str):
                found[index] = salt
    return found


def _planar(numbers: list[int]) -> bytes:
    """``numbers`` (not negative) as varints laid out byte plane by byte plane: their count,
    then the first byte of each, then the second byte of those that have one, and so on. A
    time's low byte varies, its high byte hardly: apart, each plane deflates better (a tenth
    off the medium bots' wargame's times)."""
    out = bytearray()
    _varint(out, len(numbers))
    coded = [bytearray() for _number in numbers]
    for number, data in zip(numbers, coded, strict=True):
        _varint(data, number)
    plane = 0
    while True:
        found = bytes(data[plane] for data in coded if len(data) > plane)
        if not found:
            return bytes(out)
        out += found
        plane += 1


def _unplanar(data: bytes) -> list[int]:
    """The numbers ``_planar`` laid out."""
    reading = _Bytes(data)
    numbers = [0] * reading.varint()
    going, shift = list(range(len(numbers))), 0
    while going:
        plane = reading.take(len(going))
        for index, byte in zip(going, plane, strict=True):
            numbers[index] |= (byte & 0x7F) << shift
        going = [index for index, byte in zip(going, plane, strict=True) if byte & 0x80]
        shift += 7
    return numbers


def _varint(out: bytearray, number: int) -> None:
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)


def _zigzag(number: int) -> int:
    return number * 2 if number >= 0 else -number * 2 - 1


def _unzigzag(number: int) -> int:
    """The number ``_zigzag`` gave ``number`` for."""
    return number // 2 if number % 2 == 0 else -(number + 1) // 2


def _text(out: bytearray, text: str) -> None:
    data = text.encode()
    _varint(out, len(data))
    out += data


class _Bytes:
    """Reads version 3's body."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def more(self) -> bool:
        return self.at < len(self.data)

    def varint(self) -> int:
        number = shift = 0
        while True:
            byte = self.data[self.at]
            self.at += 1
            number |= (byte & 0x7F) << shift
            if byte < 0x80:
                return number
            shift += 7

    def signed(self) -> int:
        return _unzigzag(self.varint())

    def take(self, count: int) -> bytes:
        data = self.data[self.at : self.at + count]
        if len(data) != count:
            raise ValueError("a packed log ends inside an entry")
        self.at += count
        return data

    def json(self) -> Any:
        return jsontext.loads(self.take(self.varint()))

    def rest(self) -> bytes:
        data, self.at = self.data[self.at :], len(self.data)
        return data


def coded_parts(codec: str, stored: bytes) -> list[dict[str, Any]]:
    """A version 3 or 4 log's entries as stored, without a replay (what is kept where: tests
    and benchmarks/footprint.py): ``{"json": item}`` for a JSON entry, else ``flags``, ``dv``,
    ``decision``, ``salt`` (hex; None if none, or derived from the secret), ``events`` (the
    kept spec or None), ``code``, ``dt``."""
    body = _coded_body(codec, stored)
    data, parts = body.entries, []
    while data.more():
        flags = _Flag(data.varint())
        if not flags:
            parts.append({"json": data.json()})
            continue
        part: dict[str, Any] = {"flags": flags}
        part["dv"] = data.varint() if flags & _Flag.DV else 1
        part["decision"] = data.varint() if flags & _Flag.DECISION else 0
        part["salt"] = body.salt(flags)
        part["events"] = data.json() if flags & _Flag.EVENTS else None
        part["code"], part["dt"] = data.varint(), body.time()
        parts.append(part)
    return parts


def kept_secret(codec: str, stored: bytes) -> str:
    """The game's secret a compacted log keeps (hex; "" if none: then the record's is needed)."""
    return _coded_body(codec, stored).secret if stored.startswith(_CODED_PREFIXES) else ""


@dataclasses.dataclass
class _CodedBody:
    """A log with actions coded, taken apart: its entries, the times of its coded entries
    (in version 3, each in its entry) and the secret its salts are derived from ("": each
    salt in its entry)."""

    entries: _Bytes
    times: Iterator[int] | None
    secret: str

    def time(self) -> int:
        if self.times is None:
            return self.entries.signed()
        number = next(self.times, None)
        if number is None:
            raise ValueError("a packed log has fewer times than entries")
        return _unzigzag(number)

    def salt(self, flags: _Flag) -> str | None:
        """A coded entry's salt as stored (None: none, or the secret's)."""
        if not flags & _Flag.SALT or self.secret:
            return None
        return self.entries.take(SALT_BYTES).hex()


def _coded_body(codec: str, stored: bytes) -> _CodedBody:
    if stored.startswith((CODED_PREFIX_3, PLAIN_CODED_PREFIX_3)):
        body = stored[len(CODED_PREFIX_3) :]
        entries = eventlog.unpack_bytes(codec, body) if stored[:1] == b"z" else body
        return _CodedBody(_Bytes(entries), None, "")
    if not stored.startswith((CODED_PREFIX, PLAIN_CODED_PREFIX)):
        raise ValueError("not a log of version 3 or 4")
    data = _Bytes(stored[len(CODED_PREFIX) :])
    secret = data.take(data.varint()).hex()
    times, entries = data.take(data.varint()), data.rest()
    if stored.startswith(CODED_PREFIX):
        times, entries = (eventlog.unpack_bytes(codec, part) for part in (times, entries))
    return _CodedBody(_Bytes(entries), iter(_unplanar(times)), secret)


# -- reading -------------------------------------------------------------------------------------


def _rebuild(record: GameRecord, stored: bytes) -> _Reader:
    """The log read: its entries (``entries``), and the replay that rebuilt them, if any."""
    if stored.startswith(_CODED_PREFIXES):
        reader = _Reader(record, True)
        reader.coded(_coded_body(record.log_codec, stored))
        return reader
    packed = _document_of(record.log_codec, stored)["log"]
    reader = _Reader(record, any(_derives(item) for item in packed))
    for item in packed:
        reader.item(item)
    return reader


class _Reader:
    """Rebuilds the entries one after another, replaying the game where the log needs it."""

    def __init__(self, record: GameRecord, replays: bool) -> None:
        self.record = record
        self.replay = _Replay(record) if replays else None
        self.sealed = _Sealed(record=record)
        self.entries: Entries = []
        self.version = self.last_ms = 0

    def _add(self, entry: dict[str, Any]) -> None:
        self.entries.append((self.version, entry))
        if self.replay and len(self.entries) % YIELD_EVERY == 0:
            time.sleep(0)

    def item(self, item: Any) -> None:
        """A version 2 item (in version 3: a JSON entry)."""
        sealed, replay = self.sealed, self.replay
        if isinstance(item, dict):
            self.version += item["dv"]
            entry = item["entry"]
            sealed.chose(entry)
            sealed.saw(entry.get("events", []))
            if replay:
                replay.step(entry)
        else:
            self.version += item[0]
            self.last_ms += item[6]
            entry = dict(zip(FIELDS[:5], item[1:6], strict=True))
            sealed.chose(entry)
            rebuilt = replay.step(entry) if replay else None
            spec = item[7] if len(item) > 7 else None
            events = _events_of(entry, spec, rebuilt, sealed)
            entry |= {"events": events, "at": _at_text(self.last_ms)}
        self._add(entry)

    def coded(self, body: _CodedBody) -> None:
        data = body.entries
        while data.more():
            flags = _Flag(data.varint())
            if not flags:
                self.item(data.json())
            else:
                self._coded(flags, body)

    def _coded(self, flags: _Flag, body: _CodedBody) -> None:
        assert self.replay is not None
        data = body.entries
        self.version += data.varint() if flags & _Flag.DV else 1
        decision_index = data.varint() if flags & _Flag.DECISION else 0
        salt = body.salt(flags)
        spec = data.json() if flags & _Flag.EVENTS else None
        code = data.varint()
        self.last_ms += body.time()
        decision, notation, rebuilt = self.replay.coded(decision_index, code)
        seat, ref = decision.seat, decision.ref
        if flags & _Flag.SALT and body.secret:
            salt = commitments.derived_salt(body.secret, ref, seat)
        entry: dict[str, Any] = {"kind": decision.kind, "seat": str(seat), "action": notation}
        entry["ref"] = ref
        entry["commitment"] = (
            commitments.commitment(self.record.id, ref, seat, notation, salt) if salt else ""
        )
        self.sealed.chose(entry, salt)
        if flags & _Flag.COMMITTED:
            spec = _COMMITTED_SPEC
        elif flags & _Flag.REVEALED:
            spec = _revealed_spec(ref)
        events = _events_of(entry, spec, rebuilt, self.sealed)
        entry |= {"events": events, "at": _at_text(self.last_ms)}
        self._add(entry)


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
    """The game replayed entry by entry, for the events of each action (and in version 3,
    the action itself and the decision it answers)."""

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
            raise _unreplayable() from None

    def coded(self, decision_index: int, code: int) -> tuple[Decision, str, list[dict[str, Any]]]:
        """The decision answered, the action's notation and its events."""
        game, state = self.game, self.state
        pending = game.pending(state)
        if decision_index >= len(pending):
            raise _unreplayable()
        decision = pending[decision_index]
        try:
            action = game.code_action(state, decision.seat, code)
            notation = game.notation(action)
            return decision, notation, _events_json(game.apply(state, decision.seat, action))
        except IllegalAction:
            raise _unreplayable() from None


def _unreplayable() -> Problem:
    return Problem(409, "not-replayable", "this engine cannot replay the game")


def entry_time(seconds: float) -> str:
    """A log entry's time as the log keeps it, in play and compacted alike: whole
    milliseconds, so that compaction changes no entry an API client has read."""
    return _at_text(round(seconds * 1000))


def _milliseconds(at: str) -> int:
    return round(float(at) * 1000)


@functools.lru_cache(maxsize=4096)
def _at_text(milliseconds: int) -> str:
    return repr(milliseconds / 1000)
