"""Rules-version pinning: a game runs only under the rules it was started with.

A game records its engine's ``rules_version`` when it starts. After an upgrade the engine may
carry a newer version; such a game is refused (409 ``rules-version-mismatch``) for moves and
resolutions until ``kurier games verify --upgrade`` has replayed it from its record (seed and
every action, in order) with the new engine and found the very state that is stored. Then,
and only then, the game is moved to the new version, by a logged ``rules_upgraded`` entry.
A game whose replay differs stays pinned: the old release can still finish it.

Replaying needs only what the store keeps anyway: the seed, the options, the seat count and
the action entries of the event stream (a sealed choice's entry holds its notation).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import Event, Game, IllegalAction
from service.common.problems import Problem
from service.domain import notifications
from service.store import Store
from service.store.keys import GAME_KEY_PATTERN, game_id_of
from service.store.logpack import ACTION_KINDS
from service.store.record import Change, GameRecord, NothingToDo

SCAN_BATCH = 500


def check_playable(record: GameRecord) -> None:
    """Refuse to change a game under rules other than those it was started with."""
    current = record.game.rules_version
    if record.rules_version != current:
        raise Problem(
            409,
            "rules-version-mismatch",
            f"this game runs under rules {record.rules_version}; the server has {current}. "
            "An operator must verify it (kurier games verify --upgrade) before play goes on",
            game_rules_version=record.rules_version,
            server_rules_version=current,
        )


@dataclass(frozen=True)
class Verdict:
    game_id: str
    type: str
    status: str
    rules_version: str  # the game's
    engine_version: str  # the running engine's
    outcome: str  # match | mismatch | error | not-started
    detail: str = ""
    #: A finished game whose compacted log rebuilds its events by replay under rules this
    #: engine does not reproduce: readable again only once packed with every event
    #: (``kurier games compact --keep-events``) by a release of its rules.
    needs_its_rules: bool = False

    @property
    def ok(self) -> bool:
        return self.outcome in ("match", "not-started")


def game_ids(store: Store) -> Iterator[str]:
    """Every stored game, by SCAN (bounded batches; no KEYS on a live server)."""
    for key in store.r.scan_iter(match=GAME_KEY_PATTERN, count=SCAN_BATCH, _type="hash"):
        game_id = game_id_of(key)
        if game_id:
            yield game_id


def apply_entries(
    game: Game[Any, Any], state: Any, entries: Iterable[tuple[int, Mapping[str, str]]]
) -> None:
    """Apply the action entries of ``entries`` to ``state``, in order: every change of a
    game's state is one (a timeout's default, a resignation and a return included)."""
    for _, entry in entries:
        if entry["kind"] in ACTION_KINDS:
            game.apply_notation(state, int(entry["seat"]), entry["action"])


def replayed_state(record: GameRecord, entries: list[tuple[int, dict[str, str]]]) -> Any:
    """The state the running engine reaches from the record's seed and actions."""
    game = record.game
    state = game.new_state(len(record.seats), record.seed, record.options)
    apply_entries(game, state, entries)
    return game.dump(state)


def verify(store: Store, game_id: str) -> Verdict:
    try:
        record, entries = store.read_log(game_id)
    except Problem as refused:
        if refused.problem_code != "not-replayable":
            raise
        # A compacted log whose events this engine would rebuild into another history.
        record = store.get_game(game_id)
        return Verdict(
            game_id, record.type, record.status, record.rules_version,
            record.game.rules_version, "error",
            "its events are rebuilt by replay under its rules: before this engine, run "
            "`kurier games compact --keep-events` with a release of those rules",
            needs_its_rules=True,
        )  # fmt: skip
    engine = record.game.rules_version
    base = (game_id, record.type, record.status, record.rules_version, engine)
    if record.state is None:
        return Verdict(*base, "not-started")
    try:
        replayed = replayed_state(record, entries)
    except IllegalAction as error:
        return Verdict(*base, "error", f"replay refused an action: {error.code}")
    # Compare as stored JSON: tuples and lists, int keys and str keys, look the same there.
    if json.loads(json.dumps(replayed)) != record.state:
        return Verdict(*base, "mismatch", "the replayed state differs from the stored one")
    return Verdict(*base, "match")


def upgrade(store: Store, verdict: Verdict) -> bool:
    """Move a verified, unfinished game to the engine's rules version. True if it moved."""
    if not verdict.ok or verdict.status == "finished":
        return False
    if verdict.rules_version == verdict.engine_version:
        return False

    def mutate(record: GameRecord | None, version: int) -> Change:
        # Another upgrade run may have been first: only a game still at the verified version
        # is moved.
        if record is None or record.rules_version != verdict.rules_version:
            raise NothingToDo
        record.rules_version = verdict.engine_version
        upgraded = Event(
            "rules_upgraded", {"from": verdict.rules_version, "to": verdict.engine_version}
        )
        return Change(record, "rules_upgraded", [upgraded.to_json()], 200, {})

    # A pinned game takes no moves, so nothing can change between verify and this commit
    # except another upgrade run, which the check inside the transaction catches.
    try:
        store.transact(verdict.game_id, mutate, followups=notifications.planner(store))
    except NothingToDo:
        return False
    return True
