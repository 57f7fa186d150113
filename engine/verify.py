"""Check a finished game's public record offline: no server, no Redis, no Flask.

``verify_record(record)`` takes the JSON of ``GET /v1/games/{id}/record`` and checks that

1. the revealed seed matches the seed commitment published when the game was created;
2. every sealed choice matches its commitment (published when it was made) with the revealed
   salt, and the revealed choice is the action the record lists;
3. replaying the actions from the seed with this engine is legal at every step and reaches the
   published result.

Run it as ``kurier verify RECORD.json`` or ``python -m engine.verify RECORD.json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.commitments import COMMITMENT_SCHEME, commitment_matches, seed_commitment
from engine.core import IllegalAction
from engine.registry import get_game


@dataclass
class Verification:
    """What was checked, and every disagreement found (empty: the record is sound)."""

    game_id: str
    problems: list[str] = field(default_factory=list)
    choices_checked: int = 0
    actions_replayed: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            return (
                f"game {self.game_id}: verified (seed, {self.choices_checked} sealed choice(s), "
                f"{self.actions_replayed} action(s) replayed to the published result)"
            )
        return f"game {self.game_id}: NOT verified\n" + "\n".join(f"- {p}" for p in self.problems)


def verify_record(record: Mapping[str, Any]) -> Verification:
    found = Verification(str(record.get("id", "?")))
    if not record.get("complete") or record.get("seed") is None:
        found.problems.append("the game is not finished: its seed is not revealed yet")
        return found
    if record.get("commitment_scheme") != COMMITMENT_SCHEME:
        found.problems.append(f"unknown commitment scheme {record.get('commitment_scheme')!r}")
        return found
    if seed_commitment(record["seed"]) != record["seed_commitment"]:
        found.problems.append("the seed does not match the seed commitment")
    _check_choices(record, found)
    _check_replay(record, found)
    return found


def _check_choices(record: Mapping[str, Any], found: Verification) -> None:
    revealed = {
        (reveal["ref"], choice["seat"]): choice
        for reveal in record["reveals"]
        for choice in reveal["choices"]
    }
    for action in record["actions"]:
        if action["kind"] != "sealed":
            continue
        where = f"version {action['version']} (seat {action['seat']}, {action['ref']})"
        choice = revealed.get((action["ref"], action["seat"]))
        if choice is None:
            found.problems.append(f"{where}: the sealed choice was never revealed")
            continue
        if choice["choice"] != action["action"]:
            found.problems.append(
                f"{where}: revealed {choice['choice']!r}, played {action['action']!r}"
            )
        published = action["commitment"]
        if not published or not commitment_matches(
            record["id"], action["ref"], action["seat"], choice["choice"], choice["salt"], published
        ):
            found.problems.append(f"{where}: the revealed choice does not match its commitment")
        else:
            found.choices_checked += 1


def _check_replay(record: Mapping[str, Any], found: Verification) -> None:
    try:
        game = get_game(record["type"])
    except KeyError:
        found.problems.append(f"this engine does not know the game type {record['type']!r}")
        return
    if record["rules_version"] != game.rules_version:
        found.problems.append(
            f"the game ran under rules {record['rules_version']}; this engine has "
            f"{game.rules_version}, so its replay may differ"
        )
    state = game.new_state(record["players"], record["seed"], record["options"])
    for action in record["actions"]:
        try:
            game.apply_notation(state, action["seat"], action["action"])
        except (IllegalAction, KeyError, ValueError) as error:
            found.problems.append(
                f"version {action['version']}: {action['action']!r} is not legal here ({error})"
            )
            return
        found.actions_replayed += 1
    if not game.is_over(state):
        found.problems.append("the replayed game is not over")
        return
    # Compared as JSON: the record went through JSON, where tuples are lists.
    replayed = json.loads(json.dumps(game.result(state)))
    if replayed != record["result"]:
        found.problems.append(
            f"the replay's result {replayed} differs from the published {record['result']}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m engine.verify RECORD.json [RECORD.json ...]", file=sys.stderr)
        return 2
    failed = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError) as error:  # missing, unreadable, not JSON
            print(f"{path}: NOT verified: cannot read a record ({error})")
            failed += 1
            continue
        if not isinstance(record, dict):
            print(f"{path}: NOT verified: not a game record (a JSON object)")
            failed += 1
            continue
        result = verify_record(record)
        print(result.summary())
        failed += not result.ok
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
