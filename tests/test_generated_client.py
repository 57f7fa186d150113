"""A client generated in the test run from the committed OpenAPI document (openapi/openapi.json)
by openapi-python-client plays one whole game of each type to its end (Attila with three
players, Attika with two, the wargame) against the test server (issues 14 and 37). Every
answer, event and legal action it reads is parsed into the generated classes and audited:

- every object is an instance of a class that names its fields: no class whose only field is
  an untyped ``additional_properties`` (a view as ``dict[str, Any]``), no raw mapping where a
  declared field expects a class (the generated code falls back to the raw dict when a
  nullable class does not parse);
- no cross-game parse: a class of another game type than the game's (Attila's ``end`` as
  ``AttikaEndAction``);
- no fallback: ``OtherEvent`` and the ``…OtherAction`` classes are for kinds and types this
  document does not know, so a known one landing there failed its own class;
- a page that holds an event kind and an action type added "tomorrow" still parses, those as
  the fallback classes (``test_a_future_kind_is_parsed_as_the_fallback``).

What the generator needs from us (docs/api.md, "Generated clients"):
- ``content_type_overrides``: openapi-python-client 0.29 parses only JSON, ``text/*`` and
  ``application/octet-stream`` bodies, so board.png is read as bytes and board.svg as text.
- Operations whose token is optional are annotated ``client: AuthenticatedClient``; the
  unauthenticated ``Client`` works with them at run time.
The generation runs with ``--fail-on-warning``: an operation the generator cannot read fails
this test instead of silently missing from the client.

The wargame is long at random (some 4,000 actions): its movers here end a phase (``end``) half
the time it is offered, which reaches the end of its calendar in about a hundred actions; whole
random wargames are played to that end in tests/test_game_schemas.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import httpx
import pytest

from engine.registry import game_ids
from engine.verify import verify_record
from service.http.schemas.contract import camel

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi" / "openapi.json"
PACKAGE = "kurier_generated_client"
GENERATOR_CONFIG = """\
content_type_overrides:
  image/png: application/octet-stream
  image/svg+xml: text/plain
"""
MAX_STEPS, MAX_SECONDS = 3000, 240
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: One whole game of each type: players, and how often a mover picks ``end`` when offered.
GAMES = {"attila": (3, 0.0), "attika": (2, 0.0), "attila-wargame": (2, 0.5)}
#: Class-name prefixes of the game types, longest first ("AttilaWargame" before "Attila").
PREFIXES = sorted(((camel(t), t) for t in game_ids()), key=lambda p: -len(p[0]))
FALLBACKS = {"OtherEvent", *(camel(t) + "OtherAction" for t in game_ids())}


@pytest.fixture(scope="module")
def kc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package, imported from a temporary directory."""
    where = tmp_path_factory.mktemp("generated")
    config = where / "config.yaml"
    config.write_text(GENERATOR_CONFIG)
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [
            str(bin_dir / "openapi-python-client"),
            "generate",
            "--path",
            str(DOCUMENT),
            "--output-path",
            str(where / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
            "--fail-on-warning",
        ],
        # Its post-generation hook runs ruff from PATH (the venv's); without it, a warning.
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _api(name: str) -> ModuleType:
    """One generated operation module, e.g. ``games.play``."""
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def _model(name: str) -> Any:
    return getattr(importlib.import_module(f"{PACKAGE}.models"), name)


def test_every_operation_is_generated(kc: ModuleType) -> None:
    """Each operationId of the document is a module with sync/sync_detailed functions."""
    document = json.loads(DOCUMENT.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            tag = operation["tags"][0]
            module = _api(f"{tag}.{operation['operationId']}")
            assert callable(module.sync_detailed), (method, path)


# -- the audit of what the generated client parsed ---------------------------------------------


def game_of(class_name: str) -> str | None:
    """The game type whose schemas made the class (None: shared by every game)."""
    return next((t for prefix, t in PREFIXES if class_name.startswith(prefix)), None)


def untyped(cls: type) -> bool:
    """A class that names no field: only ``additional_properties`` of any JSON."""
    names = [f.name for f in attrs.fields(cls)]
    return names == ["additional_properties"] and "Any" in str(
        cls.__annotations__.get("additional_properties")
    )


@dataclass
class Audit:
    """What one game's parsed answers were made of."""

    game: str
    objects: int = 0
    classes: Counter[str] = field(default_factory=Counter)
    untyped: set[str] = field(default_factory=set)
    raw: list[str] = field(default_factory=list)  # a mapping in a field that wants a class
    cross: list[str] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    events: int = 0
    legal_actions: int = 0
    answers: int = 0

    def parsed(self, value: Any, where: str) -> Any:
        """Audit one parsed answer (returned as it is)."""
        self.answers += 1
        self._walk(value, where)
        return value

    def _walk(self, value: Any, where: str) -> None:
        if isinstance(value, list):
            for item in value:
                self._walk(item, where)
            return
        if isinstance(value, dict):
            self.raw.append(where)
            return
        if not attrs.has(type(value)):
            return  # str, int, float, bool, None, Unset, Enum
        cls = type(value)
        name = cls.__name__
        self.objects += 1
        self.classes[name] += 1
        if untyped(cls):
            self.untyped.add(f"{name} at {where}")
        if game_of(name) not in (None, self.game):
            self.cross.append(f"{name} at {where}")
        if name in FALLBACKS:
            self.fallbacks.append(f"{name} at {where}: {value.to_dict()}")
        if name.endswith("Event") and name != "OtherEvent":
            self.events += 1
        if name.endswith("LegalAction"):
            self.legal_actions += 1
        for attribute in attrs.fields(cls):
            if attribute.name == "additional_properties":
                continue  # undeclared keys: JSON as sent (a typed map's values are checked)
            self._walk(getattr(value, attribute.name), f"{where}.{name}.{attribute.name}")
        extra = getattr(value, "additional_properties", {})
        if not untyped(cls) and attrs.fields(cls)[0].name == "additional_properties":
            for key, item in extra.items():  # a typed map: its values are classes or scalars
                self._walk(item, f"{where}.{name}[{key}]")

    def check(self) -> None:
        assert not self.untyped, sorted(self.untyped)[:10]
        assert not self.raw, self.raw[:10]
        assert not self.cross, self.cross[:10]
        assert not self.fallbacks, self.fallbacks[:10]

    def figures(self) -> str:
        return (
            f"{self.game}: {self.answers} answers, {self.objects} objects of "
            f"{len(self.classes)} typed classes ({self.events} events, {self.legal_actions} "
            f"legal actions); untyped classes {len(self.untyped)}, raw mappings "
            f"{len(self.raw)}, cross-game parses {len(self.cross)}, fallback parses "
            f"{len(self.fallbacks)}"
        )


# -- playing ------------------------------------------------------------------------------------


def _ok(response: Any, *statuses: int) -> Any:
    assert response.status_code in statuses, (response.status_code, response.content[:500])
    return response.parsed


def _sign_up(kc: ModuleType, base_url: str, name: str) -> tuple[Any, Any]:
    anonymous = kc.Client(base_url=base_url)
    body = _model("PlayerCreate")(name=name)
    player = _ok(_api("players.create_player").sync_detailed(client=anonymous, body=body), 201)
    assert isinstance(player, _model("PlayerCreated"))
    return player, kc.AuthenticatedClient(base_url=base_url, token=player.token)


def _wait_for_change(spectator: Any, game_id: str, version: int) -> None:
    """Conditional GETs (If-None-Match: the version) until the worker has moved the game."""
    get_game = _api("games.get_game")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        r = get_game.sync_detailed(game_id, client=spectator, if_none_match=f'"{version}"')
        if r.status_code == 200:
            return
        assert r.status_code == 304, r.content
        time.sleep(0.02)
    raise AssertionError("the worker did not resolve in time")


@dataclass
class Table:
    """A game being played through the generated client."""

    type_id: str
    game_id: str
    seats: list[Any]  # AuthenticatedClient by seat
    spectator: Any
    audit: Audit


def _new_game(kc: ModuleType, base_url: str, type_id: str, audit: Audit) -> Table:
    players, _ = GAMES[type_id]
    signed = [_sign_up(kc, base_url, f"Gen{type_id[:5]}{i}") for i in range(players)]
    seats = [client for _, client in signed]
    me = _ok(_api("players.get_me").sync_detailed(client=seats[1]), 200)
    assert me.id == signed[1][0].id
    create = _model("GameCreate")(
        type_=_model("GameCreateType")(type_id),
        seats=players,
        # A deadline far away and an option: their typed classes in the views and events.
        deadline=_model("Deadline")(hours=72.0),
        options=_model("GameOptions").from_dict(_one_option(type_id)),
    )
    created = _ok(_api("games.create_game").sync_detailed(client=seats[0], body=create), 201)
    join = _model("JoinRequest")(invite_code=created.invite_code)
    for seat, client in enumerate(seats[1:], start=1):
        joined = _ok(
            _api("games.join_game").sync_detailed(created.id, client=client, body=join), 201
        )
        assert joined.seat == seat
    started = _ok(_api("games.start_game").sync_detailed(created.id, client=seats[0]), 200)
    audit.parsed(started, "start_game")
    assert started.status == "active"
    return Table(type_id, created.id, seats, kc.Client(base_url=base_url), audit)


def _one_option(type_id: str) -> dict[str, Any]:
    """The first option of the type at its default (GET /v1/game-types)."""
    from engine.registry import get_game

    spec = get_game(type_id).options[0]
    return {spec.name: spec.default}


def _choose(table: Table, legal: Any, rng: random.Random) -> Any:
    _, end_bias = GAMES[table.type_id]
    ends = [a for a in legal.actions if a.action.to_dict()["type"] == "end"]
    if ends and rng.random() < end_bias:
        return rng.choice(ends)
    return rng.choice(legal.actions)


def _check_view(table: Table, view: Any) -> None:
    name = camel(table.type_id)
    assert type(view).__name__ == f"{name}GameView", type(view).__name__
    if view.status != "open":
        assert type(view.view).__name__ == f"{name}View", type(view.view).__name__
    assert type(view.options).__name__ == f"{name}Options"


def _check_legal(table: Table, legal: Any) -> None:
    name = camel(table.type_id)
    assert type(legal).__name__ == f"{name}LegalActions", type(legal).__name__
    for choice in legal.actions:
        sent = choice.action.to_dict()
        expected = f"{name}{camel(sent['type'])}Action"
        assert type(choice.action).__name__ == expected, (type(choice.action).__name__, sent)


def _play_to_end(table: Table, rng: random.Random) -> tuple[Any, int]:
    """Random legal actions by whichever seat the spectator's view says is waiting."""
    get_game, legal_actions = _api("games.get_game"), _api("games.list_legal_actions")
    play = _api("games.play")
    by_notation, by_object = _model("ActionByNotation"), _model("ActionByObject")
    in_order = _model("ActionsInOrder")
    audit, game_id = table.audit, table.game_id
    deadline, moves = time.monotonic() + MAX_SECONDS, 0
    for _ in range(MAX_STEPS):
        assert time.monotonic() < deadline, "the game did not finish in time"
        view = audit.parsed(
            _ok(get_game.sync_detailed(game_id, client=table.spectator), 200), "view"
        )
        _check_view(table, view)
        if view.status == "finished":
            return view, moves
        humans = [d for d in view.waiting_for if d.seat >= 0]
        if not humans:  # the server owes a resolution
            _wait_for_change(table.spectator, game_id, view.version)
            continue
        decision = rng.choice(humans)
        player = table.seats[decision.seat]
        own = audit.parsed(_ok(get_game.sync_detailed(game_id, client=player), 200), "own view")
        _check_view(table, own)
        legal = _ok(legal_actions.sync_detailed(game_id, client=player), 200)
        audit.parsed(legal, "legal actions")
        _check_legal(table, legal)
        choice = _choose(table, legal, rng)
        # Moves as notation, as the typed action object legal-actions gave, or in a list.
        way = rng.random()
        if way < 0.4:
            body = by_notation(notation=choice.notation)
        elif way < 0.8:
            body = by_object(action=choice.action)
        else:
            body = in_order(actions=[choice.action])
        r = play.sync_detailed(
            game_id,
            client=player,
            body=body,
            idempotency_key=str(uuid.uuid4()),
            if_match=f'"{view.version}"',
        )
        result = audit.parsed(_ok(r, 202 if decision.kind.value == "sealed" else 200), "play")
        assert isinstance(result, _model(camel(table.type_id) + "ActionResult"))
        decision_class = _model(camel(table.type_id) + "Decision")
        assert all(isinstance(d, decision_class) for d in result.waiting_for)
        moves += 1
    raise AssertionError(f"the game did not finish in {MAX_STEPS} steps")


def _all_entries(table: Table, client: Any) -> list[Any]:
    """The whole log, page by page, parsed (and audited)."""
    entries: list[Any] = []
    after = 0
    list_events = _api("games.list_game_events")
    for _ in range(100):
        page = _ok(list_events.sync_detailed(table.game_id, client=client, after=str(after)), 200)
        table.audit.parsed(page, "events")
        if not page.items:
            break
        entries += page.items
        after = page.items[-1].version
    return entries


def _check_events(entries: list[Any]) -> None:
    """Each event is the class of its kind."""
    for entry in entries:
        for event in entry.events:
            assert type(event).__name__ == camel(event.kind.value) + "Event", event.to_dict()


@pytest.fixture(scope="module")
def streaming(streams: str) -> Iterator[ModuleType]:
    """examples/streams.py, the client authors' streaming helper; the API redirects the
    streams to the stream server (KURIER_STREAM_URL)."""
    spec = importlib.util.spec_from_file_location(
        "kurier_examples_streams", ROOT / "examples" / "streams.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    before = os.environ.get("KURIER_STREAM_URL")
    os.environ["KURIER_STREAM_URL"] = streams  # the API runs in this process
    try:
        yield module
    finally:
        del sys.modules[spec.name]
        if before is None:
            os.environ.pop("KURIER_STREAM_URL", None)
        else:
            os.environ["KURIER_STREAM_URL"] = before


class Follower(threading.Thread):
    """examples/streams.py's follow_game in a thread, as the seat given (through the API)."""

    def __init__(self, streaming: ModuleType, client: Any, game_id: str) -> None:
        super().__init__(daemon=True)
        self.streaming, self.client, self.game_id = streaming, client, game_id
        self.entries: list[Any] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        models = importlib.import_module(f"{PACKAGE}.models")
        try:
            for entry in self.streaming.follow_game(self.client, self.game_id, models=models):
                self.entries.append(entry)
        except BaseException as error:  # shown by the test
            self.error = error


@pytest.mark.parametrize("type_id", list(GAMES))
def test_a_generated_client_plays_a_whole_game_of_each_type(
    kc: ModuleType,
    base_url: str,
    worker: subprocess.Popen[bytes],
    streaming: ModuleType,
    type_id: str,
) -> None:
    audit = Audit(type_id)
    table = _new_game(kc, base_url, type_id, audit)
    # Seat 1 follows the game's stream with the example helper, through the API's 307.
    follower = Follower(streaming, table.seats[1], table.game_id)
    follower.start()
    final, moves = _play_to_end(table, random.Random(f"generated-{type_id}"))
    assert moves > 0 and final.result is not None
    assert type(final.result).__name__ == camel(type_id) + "Result"
    assert final.your_seat is None  # a spectator's view
    for seat, client in enumerate(table.seats):
        view = _ok(_api("games.get_game").sync_detailed(table.game_id, client=client), 200)
        audit.parsed(view, "final view")
        assert view.your_seat == seat and view.result is not None

    # Unchanged since: 304 through the generated If-None-Match parameter, with the ETag the
    # view answered (the version; once a rated game's rating changes are in, "<version>-rated":
    # asked again while the rating job's result arrived between the two requests).
    for _ in range(20):
        seen = _api("games.get_game").sync_detailed(table.game_id, client=table.spectator)
        etag = seen.headers["etag"]
        assert etag in (f'"{final.version}"', f'"{final.version}-rated"')
        again = _api("games.get_game").sync_detailed(
            table.game_id, client=table.spectator, if_none_match=etag
        )
        if again.status_code == 304:
            break
    assert again.status_code == 304

    entries = _all_entries(table, table.spectator)
    assert entries and entries[-1].version == final.version
    mine = _all_entries(table, table.seats[1])
    _check_events(entries + mine)
    kinds = {event.kind.value for entry in entries for event in entry.events}
    assert {"game_ended", "game_over"} <= kinds, kinds

    # The record, parsed into the generated model and back: still verifies offline.
    record = _ok(
        _api("games.get_game_record").sync_detailed(table.game_id, client=table.spectator), 200
    )
    audit.parsed(record, "record")
    assert type(record).__name__ == camel(type_id) + "GameRecord"
    checked = verify_record(record.to_dict())
    assert checked.ok, checked.problems
    assert checked.actions_replayed == len(record.actions)

    # The stream helper brought seat 1 every entry, typed, its own hidden events included.
    follower.join(timeout=60)
    assert not follower.is_alive() and follower.error is None, follower.error
    streamed = follower.entries
    audit.parsed(streamed, "stream")
    assert [e.version for e in streamed] == [e.version for e in mine]
    assert all(type(e).__name__ == "LogEntry" for e in streamed)
    own = [ev for e in streamed for ev in e.events if ev.audience is not None and ev.audience]
    assert own, "the stream was a spectator's"

    audit.check()
    print(audit.figures())


def test_the_board_and_errors(
    kc: ModuleType, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    (_, a0), (_, a1) = _sign_up(kc, base_url, "Board0"), _sign_up(kc, base_url, "Board1")
    create = _model("GameCreate")(type_=_model("GameCreateType").ATTILA, seats=2)
    created = _ok(_api("games.create_game").sync_detailed(client=a0, body=create), 201)
    join = _model("JoinRequest")(invite_code=created.invite_code)
    _ok(_api("games.join_game").sync_detailed(created.id, client=a1, body=join), 201)
    _ok(_api("games.start_game").sync_detailed(created.id, client=a0), 200)
    spectator = kc.Client(base_url=base_url)
    # The board as PNG bytes (a File) and as SVG text.
    png = _ok(_api("games.get_board_png").sync_detailed(created.id, client=spectator), 200)
    assert png.payload.read().startswith(PNG_SIGNATURE)
    svg = _ok(_api("games.get_board_svg").sync_detailed(created.id, client=spectator), 200)
    assert svg.startswith("<svg") or svg.startswith("<?xml")
    # Errors come back as the generated Problem model (application/problem+json).
    missing = _api("games.get_game").sync_detailed("no-such-game", client=spectator)
    problem = _ok(missing, 404)
    assert isinstance(problem, _model("Problem")) and problem.code == "game-not-found"
    # Nobody's decision is untyped: the view's and legal-actions' decisions are the game's.
    for player in (a0, a1):
        view = _ok(_api("games.get_game").sync_detailed(created.id, client=player), 200)
        legal = _ok(_api("games.list_legal_actions").sync_detailed(created.id, client=player), 200)
        if view.your_decision is not None:
            assert type(view.your_decision).__name__ == "AttilaDecision"
            assert type(legal.decision).__name__ == "AttilaDecision"
            assert isinstance(view.your_decision.step, Enum)


def _parse(operation: str, status: int, body: Any) -> Any:
    """What the generated operation makes of an answer with ``body``."""
    module = _api(operation)
    client = importlib.import_module(PACKAGE).Client(base_url="http://unused")
    response = httpx.Response(status, json=body)
    return module._parse_response(client=client, response=response)


FUTURE_EVENT = {"kind": "comet_seen", "data": {"province": "ITA", "omen": 3}}
FUTURE_ACTION = {"type": "pray", "province": "ITA"}


def test_a_future_kind_is_parsed_as_the_fallback(
    kc: ModuleType, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    """A newer server adds an event kind and an action type: a client generated from today's
    document parses the whole page, those as ``OtherEvent`` / ``AttilaOtherAction``, and
    everything else as before."""
    (_, a0), (_, a1) = _sign_up(kc, base_url, "Future0"), _sign_up(kc, base_url, "Future1")
    create = _model("GameCreate")(type_=_model("GameCreateType").ATTILA, seats=2)
    created = _ok(_api("games.create_game").sync_detailed(client=a0, body=create), 201)
    join = _model("JoinRequest")(invite_code=created.invite_code)
    _ok(_api("games.join_game").sync_detailed(created.id, client=a1, body=join), 201)
    _ok(_api("games.start_game").sync_detailed(created.id, client=a0), 200)

    page = httpx.get(f"{base_url}/v1/games/{created.id}/events", timeout=10).json()
    entry = page["items"][-1]
    entry["events"] = [FUTURE_EVENT, *entry["events"]]
    parsed = _parse("games.list_game_events", 200, page)
    events = parsed.items[-1].events
    assert type(events[0]).__name__ == "OtherEvent"
    assert events[0].kind == "comet_seen"
    assert events[0].data.additional_properties == FUTURE_EVENT["data"]
    assert [type(e).__name__ for e in events[1:]] == [
        camel(e["kind"]) + "Event" for e in entry["events"][1:]
    ]
    audit = Audit("attila")
    audit.parsed(parsed, "future page")
    assert [f.split(" at ")[0] for f in audit.fallbacks] == ["OtherEvent"]

    # The same kind in a move's answer and a future action type among the legal actions.
    answer = {
        "type": "attila",
        "version": 9,
        "status": "active",
        "events": [FUTURE_EVENT],
        "waiting_for": [],
    }
    result = _parse("games.play", 200, answer)
    assert type(result.events[0]).__name__ == "OtherEvent"
    for player in (a0, a1):
        legal = httpx.get(
            f"{base_url}/v1/games/{created.id}/legal-actions",
            headers={"Authorization": f"Bearer {player.token}"},
            timeout=10,
        ).json()
        if legal["actions"]:
            break
    legal["actions"].append({"notation": "pray ITA", "action": FUTURE_ACTION})
    parsed_legal = _parse("games.list_legal_actions", 200, legal)
    assert type(parsed_legal).__name__ == "AttilaLegalActions"
    last = parsed_legal.actions[-1].action
    assert type(last).__name__ == "AttilaOtherAction" and last.to_dict() == FUTURE_ACTION
    known = [type(a.action).__name__ for a in parsed_legal.actions[:-1]]
    assert "AttilaOtherAction" not in known, known
