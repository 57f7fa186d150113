"""A game's record as stored in Redis, the change a transaction writes, and their packing.

The record is a Redis hash (``kurier:game:{g}``): plain fields as text, structured ones as JSON,
``state`` and ``options`` compressed with the game's ``log_codec`` (service/store/eventlog.py) in
games that have one. Log entries and idempotency records are packed with the same codec. Nothing
here touches Redis: service/store/games.py reads and writes, this module says what the bytes
mean.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import jsontext
from engine.core import Decision, Game
from engine.registry import get_game
from service.store import eventlog

#: The one field of a log entry stored with a codec (service/store/eventlog.py).
PACKED = "z"
PACKED_KEY = PACKED.encode()
#: Marks a record field stored compressed (base64: the record is also read as text); JSON
#: never starts with it, so fields written plain (older games, tests) still read.
PACKED_PREFIX = "z:"
#: Deflate levels of a game's packed state (``GameRecord._state_level``).
STATE_LEVEL_IN_PLAY = 3
STATE_LEVEL_KEPT = 9


def dumps(value: Any) -> str:
    # Key order is kept, not sorted: an engine may depend on the order of its dicts (the Attila
    # engine reveals conflict cards in commit order), and a round trip must not change it.
    return jsontext.dumps(value)


def pack_saved(codec: str, saved: dict[str, Any]) -> bytes | str:
    """An idempotency record: the response replayed for 24 h, compressed like the log."""
    if not codec:
        return dumps(saved)
    return PACKED_PREFIX.encode() + eventlog.pack(codec, saved)


def _packed_field(codec: str, text: str, level: int = 9) -> str:
    packed = eventlog.pack_text(codec, text, level)
    return PACKED_PREFIX + base64.b64encode(packed).decode("ascii")


@functools.lru_cache(maxsize=1024)
def _packed_constant(codec: str, text: str) -> str:
    """A game's options never change after creation: packed once per process, not per move."""
    return _packed_field(codec, text)


def _unpack_field(codec: str, stored: str) -> Any:
    if stored.startswith(PACKED_PREFIX):
        return eventlog.unpack(codec, base64.b64decode(stored[len(PACKED_PREFIX) :]))
    return jsontext.loads(stored)


def as_text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value


# -- the game record ------------------------------------------------------------------------------


@dataclass
class GameRecord:
    id: str
    type: str
    rules_version: str
    status: str  # open | active | finished
    version: int
    max_seats: int
    options: dict[str, Any]
    seed: str
    seed_commitment: str
    seats: list[str]  # player ids by seat
    names: list[str]
    creator: str
    invite: str
    seq: int
    created_at: float
    updated_at: float
    state: dict[str, Any] | None = None
    pending: list[dict[str, Any]] = field(default_factory=list)
    #: ref -> seat -> {"choice", "salt", "commitment"}: sealed choices not yet revealed.
    sealed: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: What the salts of the game's sealed choices are derived from (hex; service/common/
    #: sealed.py ``derived_salt``): made at the first sealed choice, "" before and in games made
    #: before salts were derived. Server-side like the choices themselves: never shown.
    secret: str = ""
    result: dict[str, Any] | None = None
    #: Service-level deadline settings (hours, remind_before_hours, policy, vacation_max_days).
    deadline: dict[str, Any] = field(default_factory=dict)
    #: When the pending players' decisions time out (None: no deadline running).
    deadline_at: float | None = None
    #: How this game's log entries, state, options and idempotency records are compressed
    #: (service/store/eventlog.py); "" is plain JSON.
    log_codec: str = ""
    #: Service-level choices of the creator beyond deadlines (``spectators_see_messages``).
    settings: dict[str, Any] = field(default_factory=dict)
    #: Who holds each seat beyond ``seats`` (service/domain/seats.py): ``missed`` deadlines in a row
    #: by seat, ``abandoned`` seats, open ``offers`` (seat -> code), ``handovers``, and ``bots``
    #: (seat -> level: the computer opponents, service/domain/bots.py); who may sit down:
    #: players ``invited`` by name (``player_id``, ``name``), and the game a finished one's
    #: players meet again in (``rematch``, its id) and back (``rematch_of``:
    #: service/domain/rematch.py).
    seating: dict[str, Any] = field(default_factory=dict)
    #: The hash as read (text), so that a commit writes only the fields that changed.
    stored: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    #: Of these, ``state`` and ``options`` are stored compressed (with the log's codec) in
    #: games that have one: they are by far the biggest.
    _JSON = (
        "options",
        "seats",
        "names",
        "state",
        "pending",
        "sealed",
        "result",
        "deadline",
        "settings",
        "seating",
    )

    @classmethod
    def from_hash(cls, game_id: str, raw: Mapping[Any, Any]) -> GameRecord:
        # The packed log (binary: service/store/logpack.py) is read by the log's readers.
        h = {as_text(k): as_text(v) for k, v in raw.items() if as_text(k) != PACKED_LOG}
        codec = h.get("log_codec", "")
        data: dict[str, Any] = {
            name: _unpack_field(codec, h[name]) for name in cls._JSON if name in h
        }
        return cls(
            id=game_id,
            type=h["type"],
            rules_version=h["rules_version"],
            status=h["status"],
            version=int(h["version"]),
            max_seats=int(h["max_seats"]),
            seed=h["seed"],
            seed_commitment=h["seed_commitment"],
            creator=h["creator"],
            invite=h["invite"],
            seq=int(h["seq"]),
            created_at=float(h["created_at"]),
            updated_at=float(h["updated_at"]),
            deadline_at=float(h["deadline_at"]) if h.get("deadline_at") else None,
            log_codec=h.get("log_codec", ""),
            secret=h.get("secret", ""),
            stored=h,
            **data,
        )

    def to_hash(self) -> dict[str, str]:
        plain = ("type", "rules_version", "status", "version", "max_seats", "seed")
        out = {name: str(getattr(self, name)) for name in plain}
        out |= {
            "seed_commitment": self.seed_commitment,
            "creator": self.creator,
            "invite": self.invite,
            "seq": str(self.seq),
            "created_at": repr(self.created_at),
            "updated_at": repr(self.updated_at),
            "deadline_at": "" if self.deadline_at is None else repr(self.deadline_at),
            "log_codec": self.log_codec,
        }
        if self.secret:  # a game without sealed choices has none: no field
            out["secret"] = self.secret
        names = self._JSON if self.stores_state() else tuple(n for n in self._JSON if n != "state")
        out |= {name: dumps(getattr(self, name)) for name in names}
        if self.log_codec:
            if "state" in out:
                out["state"] = _packed_field(self.log_codec, out["state"], self._state_level())
            out["options"] = _packed_constant(self.log_codec, out["options"])
        return out

    def stores_state(self) -> bool:
        """Whether ``to_hash`` holds the state (not for a compacted game whose log gives it
        back: ``with_state_from``, unless it was set since)."""
        return True

    def state_field(self) -> str:
        """The state as the record's ``state`` field holds it; a compacted game's, from its
        log's replay, is set by this, so that ``to_hash`` holds it from then on."""
        self.state = self.state
        return self.to_hash()[STATE_FIELD]

    def with_state_from(self, load: Callable[[], dict[str, Any] | None]) -> GameRecord:
        """This record, its state given by ``load`` when first asked (a compacted game whose
        record keeps no state: its log's replay gives it, service/store/logpack.py)."""
        rebuilt = _StateRebuilt.__new__(_StateRebuilt)
        rebuilt.__dict__.update(self.__dict__)
        del rebuilt.__dict__["state"]
        rebuilt.load_state, rebuilt.loaded, rebuilt.state_set = load, None, False
        return rebuilt

    def _state_level(self) -> int:
        """Deflate level of the packed state. A game in play rewrites it on every move: level
        3, half the CPU of level 6 for about 50 more bytes, in one field per game. A finished
        game's state is kept: level 9, the smallest (docs/performance.md)."""
        return STATE_LEVEL_KEPT if self.status == "finished" else STATE_LEVEL_IN_PLAY

    def changed_hash(self) -> dict[str, str]:
        """The fields of ``to_hash`` that differ from the hash as read: what a commit writes.
        A move changes a third of them (version, state, pending, ...); the others (seed,
        options, names, ...) would be encoded, sent and stored again for nothing."""
        return {k: v for k, v in self.to_hash().items() if self.stored.get(k) != v}

    @property
    def game(self) -> Game[Any, Any]:
        return get_game(self.type)

    def seat_of(self, player_id: str | None) -> int | None:
        return self.seats.index(player_id) if player_id in self.seats else None

    def bot_level(self, seat: int | None) -> str | None:
        """The level of the computer opponent in ``seat`` (None: a person holds it)."""
        return self.seating.get("bots", {}).get(str(seat)) if seat is not None else None

    def late_turns(self) -> list[int]:
        """The seats whose turn goes on after a missed deadline (service/domain/games/play.py
        ``apply_timeout``): the game's policy makes the rest of that turn at once, unless the
        player acts in it first (``present``)."""
        late: list[int] = self.seating.get("late_turns", [])
        return late

    def decisions(self) -> list[Decision]:
        return [Decision(d["seat"], d["kind"], d["step"], d.get("ref", "")) for d in self.pending]


@dataclass(frozen=True)
class LogStep:
    """One log entry of a change that writes several (``Change.earlier``)."""

    entry_kind: str
    seat: int | None
    action: str
    ref: str
    commitment: str
    events: list[dict[str, Any]]


@dataclass
class Change:
    """What one transaction writes besides the record, and what the caller is answered."""

    record: GameRecord
    entry_kind: str  # created | joined | started | move | sealed | resolve
    events: list[dict[str, Any]]
    status: int
    body: dict[str, Any]
    seat: int | None = None
    action: str = ""
    ref: str = ""
    commitment: str = ""
    index_players: list[str] = field(default_factory=list)
    resolve_add: list[str] = field(default_factory=list)
    resolve_remove: list[str] = field(default_factory=list)
    #: Log entries written before this change's own, one version each (``LogStep``): a list of
    #: actions applied as one atomic change (service/domain/games/play.py ``play``) keeps one
    #: entry per action, so the version stays the log's length and replays read one action an
    #: entry.
    earlier: list[LogStep] = field(default_factory=list)
    #: The seat whose player acted again in this change after the game's policy had held or
    #: made their turn (a bot in the seat, or the rest of a late turn: service/domain/games/
    #: play.py ``present``); under a time bank the rest of that turn is timed afresh.
    returned: int | None = None

    def log_step(self) -> LogStep:
        """This change's own log entry, as ``earlier`` holds the others."""
        return LogStep(
            self.entry_kind, self.seat, self.action, self.ref, self.commitment, self.events
        )


@dataclass(frozen=True)
class Idempotency:
    player_id: str
    key: str
    fingerprint: str  # SHA-256 of the canonical request body


@dataclass(frozen=True)
class Outcome:
    status: int
    body: dict[str, Any]
    replayed: bool = False


class NothingToDo(Exception):
    """Raised inside a transaction that finds its work already done (e.g. a resolution)."""


Mutation = Callable[[GameRecord | None, int], Change]


# -- log entries and idempotency records -----------------------------------------------------------


def pack_entry(codec: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry's stream fields: one compressed field, or (no codec) the fields themselves."""
    if codec:
        return {PACKED: eventlog.pack(codec, entry)}
    return entry | {"events": dumps(entry["events"])}


def unpack_entry(codec: str, fields: dict[bytes, bytes]) -> dict[str, Any]:
    """A log entry from its stream fields: ``events`` a list, the other fields strings."""
    if PACKED_KEY in fields:
        return eventlog.unpack(codec, fields[PACKED_KEY])
    entry: dict[str, Any] = {as_text(k): as_text(v) for k, v in fields.items()}
    entry["events"] = jsontext.loads(entry["events"])
    return entry


def unpack_saved(codec: str, stored: bytes) -> dict[str, Any]:
    """An idempotency record written by ``pack_saved``."""
    if stored.startswith(PACKED_PREFIX.encode()):
        return eventlog.unpack(codec, stored[len(PACKED_PREFIX) :])
    saved: dict[str, Any] = jsontext.loads(stored)
    return saved


class _StateRebuilt(GameRecord):
    """A record whose state is not stored: loaded when first read, written back only if set
    (``GameRecord.with_state_from``)."""

    load_state: Callable[[], dict[str, Any] | None]
    loaded: tuple[dict[str, Any] | None] | None
    state_set: bool

    @property  # the dataclass field, read when first asked
    def state(self) -> dict[str, Any] | None:
        if self.loaded is None:
            self.loaded = (self.load_state(),)
        return self.loaded[0]

    @state.setter
    def state(self, value: dict[str, Any] | None) -> None:
        self.loaded, self.state_set = (value,), True

    def stores_state(self) -> bool:
        return self.state_set


# -- a finished game's log, packed into its record -----------------------------------------------

#: The record field holding a compacted game's log (the stream is deleted): service/store/games.py.
PACKED_LOG = "log"
#: The record fields of the game's state and of its salts' secret: a compacted game's record
#: may keep neither when its log gives them back (``Store.compact``).
STATE_FIELD = "state"
SECRET_FIELD = "secret"

Entries = list[tuple[int, dict[str, Any]]]


def unpack_log(codec: str, stored: str) -> Entries:
    """A log packed in the older format: ``[[version, entry], ...]`` as JSON, compressed like
    ``state`` (service/store/logpack.py reads it; it writes its own)."""
    return [(int(version), entry) for version, entry in _unpack_field(codec, stored)]
