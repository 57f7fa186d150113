"""Derive the game types' JSON schemas (views, action objects, event data, decision steps)
from what the engines actually produce: random games of every type, looked at from every seat.

``python -m service.http.schemas.derive`` rewrites ``service/http/schemas/gametypes.json``, the one
source of the per-game-type schemas in the OpenAPI document (service/http/schemas/contract.py)
and of the event table in docs/api.md. tests/test_game_schemas.py plays other random games (some
of them whole, to their end) and checks that what they produce validates against the committed
schemas.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import Game, IllegalAction, Rejoin, Resign
from engine.registry import game_ids, get_game

OUTPUT = Path(__file__).with_name("gametypes.json")
#: Deeper than this the schema says "any JSON": views nest boards in boards.
MAX_DEPTH = 6
#: Objects keyed by data (seats "0".."4", province codes "ITA", hex ids) are maps, not records.
_MAP_KEY = re.compile(r"^([0-9]+|[A-Z][A-Z0-9-]+|-?[0-9]+,-?[0-9]+|[a-z]?[0-9]{2,}[a-z]?)$")
_MAX_RECORD_KEYS = 16
#: Fields whose shape random games show too rarely (or never) to infer, by name, as the
#: engine's code makes them: the wargame's result (engine/attila_wargame/victory.py, ``score``:
#: points by line, cities by region) and its view's council, Attila's title and the sides
#: awaiting the West's invasion (engine/attila_wargame/game.py, ``view``).
_STRING = {"type": "string"}
KNOWN_FIELDS: dict[str, dict[str, Any]] = {
    "points_lines": {"type": "object", "additionalProperties": {"type": "integer"}},
    "regions_held": {
        "type": "object",
        "additionalProperties": {"type": "array", "items": _STRING},
    },
    "sides_at_west_invasion": {"type": "object", "additionalProperties": _STRING},
    "attila_title": {**_STRING, "description": "pope, antipope or deposed; null: none"},
    "council": {
        "type": "object",
        "properties": {
            "ref": _STRING,
            "kind": {**_STRING, "description": "lugdunum or end"},
            "chosen": {"type": "array", "items": {"type": "integer"}},
            "cards": {"type": "object", "additionalProperties": _STRING},
            "own_card": _STRING,
        },
        "required": ["chosen", "kind", "ref"],
        "additionalProperties": True,
    },
}
#: Whole games are bounded too: a random wargame takes some 4,000 actions.
MAX_WHOLE_GAME = 20_000


@dataclass
class Sample:
    """Everything one game type produced in random games."""

    views: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    steps: set[tuple[str, str]] = field(default_factory=set)
    results: list[dict[str, Any]] = field(default_factory=list)


def play(
    type_id: str,
    seed: str,
    max_moves: int = 400,
    resign_at: int | None = None,
    views_every: int = 3,
) -> Sample:
    """One random game of ``type_id``: its views (every seat and a spectator, every
    ``views_every`` moves and at the end), up to 20 legal action objects per decision, the
    events and, if it ended, its result; bounded by ``max_moves``."""
    game: Game[Any, Any] = get_game(type_id)
    rng = random.Random(seed)
    players = rng.randint(game.min_players, game.max_players)
    state = game.new_state(players, seed, None)
    out = Sample()
    for move in range(max_moves):
        if move % views_every == 0 or game.is_over(state):
            out.views.extend(game.view(state, seat) for seat in [None, *range(players)])
        if game.is_over(state):
            out.results.append(json.loads(json.dumps(game.result(state))))
            break
        pending = game.pending(state)
        out.steps.update((d.kind, d.step) for d in pending)
        decision = pending[0]
        legal = game.legal_actions(state, decision.seat)
        out.actions.extend(game.action_to_json(a) for a in legal[:20])
        action = rng.choice(legal)
        if move == resign_at and decision.seat >= 0:
            action = Resign()
        out.events.extend(e.to_json() for e in game.apply(state, decision.seat, action))
        if resign_at is not None and move == resign_at + 4:
            out.events.extend(e.to_json() for e in _rejoin(game, state))
    return out


def _rejoin(game: Game[Any, Any], state: Any) -> list[Any]:
    """The resigned seat comes back (as when a replacement takes it over), if it still can."""
    for seat in range(8):
        try:
            return game.apply(state, seat, Rejoin())
        except IllegalAction:
            continue
    return []


def samples(type_id: str, games: int, prefix: str = "derive") -> Iterator[Sample]:
    for number in range(games):
        resign_at = 30 + number * 7 if number % 3 == 2 else None
        yield play(type_id, f"{prefix}-{type_id}-{number}", resign_at=resign_at)


def whole_game(type_id: str, seed: str) -> Sample:
    """One random game played to its end by play (no resignation): what only the end shows,
    such as the result and the wargame's end of the calendar. Views every 50 moves."""
    sample = play(type_id, seed, max_moves=MAX_WHOLE_GAME, views_every=50)
    if not sample.results:
        raise AssertionError(f"{type_id} {seed}: no end in {MAX_WHOLE_GAME} random actions")
    return sample


# -- inference ---------------------------------------------------------------------------------


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names[type(value)]


@dataclass
class Node:
    """What was seen at one place of the JSON: its types, an object's keys, an array's items."""

    types: set[str] = field(default_factory=set)
    objects: int = 0
    keys: dict[str, Node] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    items: Node | None = None

    def add(self, value: Any) -> None:
        self.types.add(_json_type(value))
        if isinstance(value, dict):
            self.objects += 1
            for key, child in value.items():
                self.keys.setdefault(key, Node()).add(child)
                self.counts[key] = self.counts.get(key, 0) + 1
        elif isinstance(value, list):
            self.items = self.items or Node()
            for child in value:
                self.items.add(child)


def infer(values: list[Any]) -> dict[str, Any]:
    node = Node()
    for value in values:
        node.add(value)
    return schema_of(node, 0)


def schema_of(node: Node, depth: int, key: str | None = None) -> dict[str, Any]:
    """The OpenAPI 3.0 schema of ``node`` (the value of ``key``): known fields named, more
    always allowed."""
    if key in KNOWN_FIELDS:
        out = copy.deepcopy(KNOWN_FIELDS[key])
        return {**out, "nullable": True} if "null" in node.types else out
    if depth > MAX_DEPTH or not node.types:
        return {}
    types = set(node.types)
    nullable = "null" in types
    types.discard("null")
    if types == {"integer", "number"}:
        types = {"number"}
    if not types:
        return {"description": "null in every game seen; may hold a value"}
    if len(types) != 1:
        return {"description": "One of: " + ", ".join(sorted(node.types))}
    (kind,) = types
    out = {"type": kind}
    if kind == "object":
        out.update(_object(node, depth))
    elif kind == "array":
        out["items"] = schema_of(node.items, depth + 1) if node.items else {}
    if nullable:
        out["nullable"] = True
    return out


def _object(node: Node, depth: int) -> dict[str, Any]:
    keys = sorted(node.keys)
    many = depth > 0 and len(keys) > _MAX_RECORD_KEYS
    if keys and (many or all(_MAP_KEY.match(k) for k in keys)):
        merged = Node()
        for child in node.keys.values():
            _merge(merged, child)
        return {"additionalProperties": schema_of(merged, depth + 1)}
    out: dict[str, Any] = {
        "properties": {k: schema_of(node.keys[k], depth + 1, k) for k in keys},
        "additionalProperties": True,
    }
    required = [k for k in keys if node.counts[k] == node.objects]
    if required:
        out["required"] = required
    return out


def _merge(into: Node, other: Node) -> None:
    into.types |= other.types
    into.objects += other.objects
    for key, child in other.keys.items():
        _merge(into.keys.setdefault(key, Node()), child)
        into.counts[key] = into.counts.get(key, 0) + other.counts[key]
    if other.items is not None:
        into.items = into.items or Node()
        _merge(into.items, other.items)


# -- one game type -------------------------------------------------------------------------------


SEAT_ACTIONS: list[dict[str, Any]] = [
    {"type": "resign", "forfeit": False},
    {"type": "resign"},
    {"type": "rejoin"},
]


def derive(type_id: str, games: int) -> dict[str, Any]:
    """The schemas of ``type_id`` from ``games`` random games, two whole ones and the engine's
    examples of what they rarely reach; refuses to leave out an action type or event kind the
    engine has."""
    game = get_game(type_id)
    examples: dict[str, Any] = game.examples()
    views: list[Any] = []
    actions: dict[str, list[Any]] = {}
    events: dict[str, list[Any]] = {}
    steps: set[tuple[str, str]] = set()
    results: list[Any] = []
    whole = [whole_game(type_id, f"derive-whole-{type_id}-{n}") for n in range(2)]
    for sample in [*samples(type_id, games), *whole, Sample(**examples)]:
        views.extend(sample.views)
        results.extend(sample.results)
        for action in [*sample.actions, *SEAT_ACTIONS]:
            actions.setdefault(action["type"], []).append(action)
        for event in sample.events:
            events.setdefault(event["kind"], []).append(event["data"])
        steps |= sample.steps
    unseen = sorted(game.action_types() - set(actions)) + sorted(game.event_kinds() - set(events))
    if unseen:
        raise SystemExit(f"{type_id}: no example of {unseen}; add one to its data/examples.json")
    return {
        "view": infer(views),
        "actions": {name: infer(values) for name, values in sorted(actions.items())},
        "events": {kind: infer(values) for kind, values in sorted(events.items())},
        "result": infer(results),
        "options": option_schemas(type_id),
        "steps": sorted({step for _, step in steps} | {"resign", "rejoin"}),
    }


def option_schemas(type_id: str) -> dict[str, dict[str, Any]]:
    """The schema of each rule option of ``type_id``, typed by its choices.

    No ``enum`` (a newer rules version may add a choice) and no ``default`` (a generated
    client would send every default, also of other game types): both are in the text."""
    out = {}
    for spec in get_game(type_id).options:
        choices = list(spec.choices)
        schema = {"nullable": True} if all(c is None for c in choices) else infer(choices)
        scalar = all(c is None or isinstance(c, (str, int, float)) for c in choices)
        said = f" Choices: {', '.join(json.dumps(c) for c in choices)}." if scalar else ""
        text = spec.description.rstrip().removesuffix(".")
        out[spec.name] = {**schema, "description": f"{text}.{said} Default: GET /v1/game-types."}
    return out


DOCS = Path(__file__).resolve().parents[3] / "docs" / "api.md"
TABLE_START, TABLE_END = "<!-- event-table:start -->\n", "<!-- event-table:end -->"


def docs_with_table(text: str, table: str) -> str:
    """docs/api.md with the event table between its markers replaced by ``table``."""
    head, _, rest = text.partition(TABLE_START)
    _, _, tail = rest.partition(TABLE_END)
    return head + TABLE_START + table + TABLE_END + tail


def main() -> None:
    derived = {type_id: derive(type_id, games=12) for type_id in game_ids()}
    OUTPUT.write_text(json.dumps(derived, indent=1, sort_keys=True) + "\n")
    from service.http.schemas import contract  # after the write: it reads the file

    contract.game_types.cache_clear()
    DOCS.write_text(docs_with_table(DOCS.read_text(), contract.event_table()))


if __name__ == "__main__":
    main()
