"""The shapes every game engine shares.

A game engine is pure: no I/O, no clock, no global randomness. Everything follows from
(game type, player count, options, seed) and the list of actions applied since, so any game
can be replayed and checked by anyone who holds its record.

The vocabulary, in the spirit of python-chess:

- a *state* is a game-specific mutable object (like ``chess.Board``); ``Game.apply`` changes
  it in place and returns the events the action caused, or raises ``IllegalAction`` and
  leaves it untouched;
- an *action* is a small frozen dataclass with a compact text notation (``Game.notation`` and
  ``Game.parse`` round-trip);
- an *event* is what happened, with its audience: public, or only some seats;
- a *decision* says who must act next and how: an open move, a sealed choice (stored unseen
  until every sealed choice of the same step is in), or a resolution that the ``SYSTEM``
  actor (the service's worker) performs once all sealed choices have arrived.

Why one module of some 700 lines (about 430 of code, the rest its documentation): this is
the vocabulary every engine, the service, the workers and the tests import by one name,
``engine.core``, and its parts lean on each other: the seat actions with their rulings and
the ``Game`` interface all need ``Event`` and ``IllegalAction``, and ``RulesGame`` needs the
seat actions. A part split off and re-exported from here would import from here (an import
loop, which tests/test_architecture.py refuses); the way round, the basic types moved down
into a module of their own and re-exported from this one, adds a layer of indirection and
gains a reader nothing.
"""

from __future__ import annotations

import json
import random
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final, Generic, Literal, Protocol, TypeVar

from engine import jsontext
from engine.translatable import N_

#: The actor that resolves sealed decisions once every choice is in. Never a player.
SYSTEM: Final = -1

DecisionKind = Literal["move", "sealed", "resolve"]


class IllegalAction(Exception):
    """An action the rules do not allow, with a stable machine-readable reason code.

    ``template`` and ``values`` are the message as a reader in another language needs it:
    the English template (marked ``N_`` where it is raised, so catalogs have it) and what
    fills its ``%(name)s`` placeholders; a fixed message is its own template.
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.template = message
        self.values: dict[str, str] = {}

    @classmethod
    def composed(
        cls, code: str, template: str, values: Mapping[str, str], **details: Any
    ) -> IllegalAction:
        """A message filled from ``template`` (``%(name)s`` placeholders) and ``values``."""
        error = cls(code, template % values, **details)
        error.template, error.values = template, dict(values)
        return error

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class BadQuestion(ValueError):
    """A question about the board that is no move (a web table's: a march through waypoints)
    naming what it cannot ask: the page's question was stale or made up (the service answers
    422, never a 500)."""


def unreadable(text: str, examples: Sequence[str]) -> IllegalAction:
    """The refusal of a line that reads as no action of the game, with ``examples`` of its
    notation (a template, so a mail-in answer can say it in the player's language)."""
    return IllegalAction.composed(
        "bad-notation",
        N_("cannot read %(line)s: expected e.g. %(examples)s or %(last)s"),
        {
            "line": repr(text.strip()),
            "examples": ", ".join(repr(e) for e in examples[:-1]),
            "last": repr(examples[-1]),
        },
        text=text.strip(),
    )


@dataclass(frozen=True)
class Event:
    """Something that happened. ``audience`` None means every seat and spectators see it."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    audience: tuple[int, ...] | None = None

    def visible_to(self, seat: int | None) -> bool:
        return self.audience is None or (seat is not None and seat in self.audience)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "data": dict(self.data)}
        if self.audience is not None:
            out["audience"] = list(self.audience)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        audience = raw.get("audience")
        return cls(raw["kind"], raw.get("data", {}), None if audience is None else tuple(audience))


@dataclass(frozen=True)
class Decision:
    """One decision the game waits for.

    ``step`` names the game-specific step (e.g. ``play_card``, ``conflict_cards``) so clients
    can prompt for it; ``kind`` says how the service must treat the answer.
    """

    seat: int
    kind: DecisionKind
    step: str
    #: Identifies the sealed step (e.g. ``conflict-3``) for commitments and job ids; "" if none.
    ref: str = ""

    @property
    def sealed(self) -> bool:
        return self.kind == "sealed"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "kind": self.kind, "step": self.step}
        if self.ref:
            out["ref"] = self.ref
        return out


@dataclass(frozen=True)
class OptionSpec:
    """A named rule option (the spec's UPPER_SNAKE names) with its default and choices."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    description: str

    def check(self, value: Any) -> Any:
        if value not in self.choices or type(value) is not type(self.default):
            raise IllegalAction(
                "bad-option",
                f"option {self.name} takes one of {list(self.choices)}",
                option=self.name,
                value=value,
            )
        return value

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "default": self.default,
            "choices": list(self.choices),
            "description": self.description,
        }


JsonT = TypeVar("JsonT")


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (engine/jsontext.py): loading and dumping a state happen on
    every move the service applies."""
    return jsontext.copy(value)


def expect_json(value: Any, kind: type[JsonT]) -> JsonT:
    """A value read from a JSON action object, of the expected type (``bool`` is no ``int``).

    Raises ``TypeError``, which the notation classes turn into an ``IllegalAction``.
    """
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def dispatch(
    handlers: Mapping[tuple[str, type], Callable[..., None]],
    rules: object,
    state: Any,
    seat: int,
    action: Any,
    events: list[Event],
) -> None:
    """Run the handler registered for (the state's step, the action's type), else refuse."""
    handler = handlers.get((state.step, type(action)))
    if handler is None:
        raise IllegalAction(
            "wrong-step",
            f"{action.kind!r} is not possible at step {state.step!r}",
            step=state.step,
            action=action.kind,
        )
    handler(rules, state, seat, action, events)


def check_turn(
    pending: Sequence[Decision],
    over: bool,
    seat: int,
    action: Any,
    resolve_rule: str = "only the server resolves sealed choices, once every one is in",
) -> Decision:
    """The decision ``seat`` answers with ``action``, or the refusal every engine gives first:
    the game is over, ``seat`` has nothing to decide now, or a player tries a resolution (or
    the server anything else). ``resolve_rule`` words the last refusal for the game."""
    if over:
        raise IllegalAction("game-over", N_("the game is over"))
    decision = next((d for d in pending if d.seat == seat), None)
    if decision is None:
        raise IllegalAction(
            "not-your-turn",
            N_("you have no decision to make now"),
            seat=seat,
            waiting_for=[d.seat for d in pending],
        )
    if (decision.kind == "resolve") != (action.kind == "resolve"):
        raise IllegalAction("wrong-step", resolve_rule, step=decision.step, action=action.kind)
    return decision


def seeded_rng(seed: str, *purpose: object) -> random.Random:
    """A random generator that depends only on the game seed and what it is used for."""
    return random.Random("/".join([seed, *map(str, purpose)]))


State = TypeVar("State")
Action = TypeVar("Action")
StateIn = TypeVar("StateIn", contravariant=True)


class RulesState(Protocol):
    """What ``RulesGame`` reads of every engine's state."""

    @property
    def result(self) -> dict[str, Any] | None: ...

    @property
    def resigned(self) -> list[int]: ...


StateR = TypeVar("StateR", bound=RulesState)


class GameRules(Protocol[StateIn, Action]):
    """What ``RulesGame`` needs of a game's rules object."""

    def pending(self, state: StateIn) -> list[Decision]: ...

    def legal_actions(self, state: StateIn, seat: int) -> list[Action]: ...

    def apply(self, state: StateIn, seat: int, action: Action) -> list[Event]: ...

    def resign(self, state: StateIn, seat: int, forfeit: bool) -> list[Event]: ...

    def rejoin(self, state: StateIn, seat: int) -> list[Event]: ...


# -- leaving and coming back: the same in every game --------------------------------------------


@dataclass(frozen=True)
class Resign:
    """``seat`` leaves the game: ``resign``, at any time, by a seated player; ``forfeit``, the
    same applied by the service when an opponent claims the win from an absent seat.

    Never listed among the legal actions (a random player or a deadline must not pick it).
    With one seat left that has not resigned, the game ends and that seat wins; otherwise the
    game goes on without the seat: its turns and sealed choices are skipped, its pieces stay,
    and it ranks last (``standing`` in the result)."""

    forfeit: bool = False
    kind: ClassVar[str] = "resign"

    @property
    def text(self) -> str:
        return "forfeit" if self.forfeit else "resign"


@dataclass(frozen=True)
class Rejoin:
    """A resigned seat comes back (``rejoin``): the service applies it when a replacement
    player takes the seat over, before the game's end."""

    kind: ClassVar[str] = "rejoin"
    text: ClassVar[str] = "rejoin"


SeatAction = Resign | Rejoin
SEAT_ACTIONS: Final[Mapping[str, SeatAction]] = {
    "resign": Resign(),
    "forfeit": Resign(forfeit=True),
    "rejoin": Rejoin(),
}
#: The ``type``s of the seat actions' objects and the kinds of their events.
SEAT_ACTION_TYPES: Final = frozenset({"resign", "rejoin"})
SEAT_EVENT_KINDS: Final = frozenset({"resigned", "rejoined"})


def seat_action_from_json(raw: Mapping[str, Any]) -> SeatAction | None:
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in SEAT_ACTION_TYPES:
        return None
    if set(raw) - {"type", "forfeit"}:
        raise IllegalAction("bad-action", f"{raw['type']!r} takes no fields but 'forfeit'")
    forfeit = raw.get("forfeit", False)
    if not isinstance(forfeit, bool) or (forfeit and raw["type"] == "rejoin"):
        raise IllegalAction("bad-action", N_("'forfeit' is a boolean of 'resign'"))
    return Resign(forfeit) if raw["type"] == "resign" else Rejoin()


def seat_action_to_json(action: SeatAction) -> dict[str, Any]:
    if isinstance(action, Resign):
        return {"type": "resign", "forfeit": action.forfeit}
    return {"type": "rejoin"}


def start_resign(
    over: bool, players: int, resigned: list[int], seat: int, forfeit: bool, events: list[Event]
) -> bool:
    """Record that ``seat`` resigned; True when only one seat is left in the game (it wins).

    The checks and the event every game shares; the game then skips the seat or ends."""
    if over:
        raise IllegalAction("game-over", N_("the game is over"))
    if not 0 <= seat < players:
        raise IllegalAction("not-a-player", N_("only a seated player can resign"), seat=seat)
    if seat in resigned:
        raise IllegalAction("already-resigned", N_("this seat has already resigned"), seat=seat)
    resigned.append(seat)
    events.append(Event("resigned", {"seat": seat, "forfeit": forfeit}))
    return players - len(resigned) == 1


def start_rejoin(over: bool, resigned: list[int], seat: int, events: list[Event]) -> None:
    if over:
        raise IllegalAction("game-over", N_("the game is over"))
    if seat not in resigned:
        raise IllegalAction("not-resigned", N_("only a resigned seat can rejoin"), seat=seat)
    resigned.remove(seat)
    events.append(Event("rejoined", {"seat": seat}))


def next_seat(seat: int, players: int, resigned: Sequence[int]) -> int:
    """The seat after ``seat`` in turn order that has not resigned."""
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if candidate not in resigned:
            return candidate
    raise AssertionError("every seat resigned")  # the game ends before that


def rank_with_resigned(
    result: dict[str, Any], resigned: Sequence[int], players: int
) -> dict[str, Any]:
    """Resigned seats rank last (the last to resign first among them) and never win.

    Adds ``resigned`` and ``standing`` (lists of seats, best first, ties together) when a seat
    resigned; results of games nobody left are unchanged, so old records still verify."""
    if not resigned:
        return result
    staying = [s for s in range(players) if s not in resigned]
    scores = result.get("scores") or [0] * players
    winners = [w for w in result["winners"] if w not in resigned]
    if not winners:
        best = max(scores[s] for s in staying)
        winners = [s for s in staying if scores[s] == best]
    rest = [s for s in staying if s not in winners]
    standing = [winners]
    for points in sorted({scores[s] for s in rest}, reverse=True):
        standing.append([s for s in rest if scores[s] == points])
    standing += [[s] for s in reversed(resigned)]
    return result | {"winners": winners, "resigned": list(resigned), "standing": standing}


class GameNotation(Protocol[Action]):
    """What ``RulesGame`` needs of a game's notation object."""

    def format(self, action: Action) -> str: ...

    def parse(self, text: str) -> Action: ...

    def to_json(self, action: Action) -> dict[str, Any]: ...

    def from_json(self, raw: Mapping[str, Any]) -> Action: ...

    @property
    def json_types(self) -> frozenset[str]: ...


class Translator(Protocol):
    """Maps the English of ``describe`` to a reader's language (engine/sentences.py uses it;
    service/common/i18n.py implements it with the gettext catalogs)."""

    def text(self, template: str) -> str:
        """A whole template in the target language (same placeholders)."""
        ...

    def plural(self, one: str, other: str, count: int) -> str:
        """The target language's form of a plural template for ``count``."""
        ...

    def word(self, english: str) -> str:
        """A data word (a people, province, building...) as the target language shows it."""
        ...


class GameDescriber(Protocol):
    """A game's sentences: one describer per event kind it says something about."""

    @property
    def describers(self) -> Mapping[str, Any]: ...

    def __call__(
        self, event: Event, names: Sequence[str], words: Translator | None = None
    ) -> str | None: ...


@dataclass(frozen=True)
class MoveGroup:
    """The legal moves of one kind, told in a mail instead of every combination: ``rule`` says
    in a few words what the kind does (the game's own words, or "" when it has none),
    ``examples`` are a few of the moves in notation, ``count`` how many moves there are."""

    kind: str
    rule: str
    examples: tuple[str, ...]
    count: int


#: Every move of a group is listed when it has at most this many; otherwise a few examples.
MOVE_GROUP_ALL = 8
MOVE_GROUP_EXAMPLES = 3


class Game(ABC, Generic[State, Action]):
    """One game type's rules. Stateless: every method takes the state it works on."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: Bumped whenever a rule change could make a stored game replay differently.
    rules_version: ClassVar[str]
    #: Earlier rules versions whose games this engine replays into exactly the same events
    #: (a compacted finished game's events are rebuilt by replay: service/store/logpack.py).
    replays_events_of: ClassVar[tuple[str, ...]] = ()
    options: tuple[OptionSpec, ...]
    #: The game's board and pieces as its data files give them (each game its own type): what
    #: its pictures and its web table draw on.
    board: Any
    #: Public event kinds players are told of, by notification name ("scored" is the API's
    #: ``game.scored``); every other event reaches them only in the log and their view.
    notify_events: ClassVar[Mapping[str, str]] = {}
    #: What a player who let a deadline pass plays (docs/rules/<game>.md, "Deadlines"): the
    #: first of these notations that is legal, else the first legal action.
    timeout_sealed: ClassVar[tuple[str, ...]] = ("pass",)
    timeout_move: ClassVar[tuple[str, ...]] = ()

    # -- setup -------------------------------------------------------------------------------

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full option set: defaults overridden by ``given``; unknown names are refused."""
        specs = {spec.name: spec for spec in self.options}
        unknown = sorted(set(given or {}) - set(specs))
        if unknown:
            raise IllegalAction("unknown-option", f"unknown option {unknown[0]}", option=unknown[0])
        chosen = {name: spec.default for name, spec in specs.items()}
        for name, value in (given or {}).items():
            chosen[name] = specs[name].check(value)
        return chosen

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction(
                "bad-player-count",
                f"{self.title} takes {self.min_players} to {self.max_players} players",
                players=players,
            )

    @abstractmethod
    def new_state(
        self, players: int, seed: str, options: Mapping[str, Any] | None = None
    ) -> State: ...

    # -- play --------------------------------------------------------------------------------

    @abstractmethod
    def pending(self, state: State) -> list[Decision]:
        """Every decision the game waits for now; empty once the game is over."""

    @abstractmethod
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """The actions ``seat`` may take now (``SYSTEM`` for resolutions)."""

    @abstractmethod
    def apply(self, state: State, seat: int, action: Action | SeatAction) -> list[Event]:
        """Apply ``action`` by ``seat`` in place and return its events.

        Raises ``IllegalAction`` (leaving ``state`` untouched) when the rules forbid it.
        """

    @abstractmethod
    def is_over(self, state: State) -> bool: ...

    # -- notation and serialisation ------------------------------------------------------------

    @abstractmethod
    def notation(self, action: Action | SeatAction) -> str:
        """The canonical compact text of an action (``parse`` reads it back)."""

    @abstractmethod
    def parse(self, text: str) -> Action | SeatAction:
        """Read an action from its notation; raises ``IllegalAction('bad-notation')``."""

    @abstractmethod
    def action_to_json(self, action: Action | SeatAction) -> dict[str, Any]: ...

    @abstractmethod
    def action_from_json(self, raw: Mapping[str, Any]) -> Action | SeatAction:
        """Read an action object; raises ``IllegalAction('bad-action')`` on malformed input."""

    @abstractmethod
    def dump(self, state: State) -> dict[str, Any]:
        """The whole state, hidden parts included, as JSON-compatible data (for storage)."""

    @abstractmethod
    def load(self, raw: Mapping[str, Any]) -> State: ...

    @abstractmethod
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator). Never another player's secrets."""

    @abstractmethod
    def result(self, state: State) -> dict[str, Any] | None:
        """Final scores and winners once the game is over, else ``None``."""

    @abstractmethod
    def resigned_seats(self, state: State) -> list[int]:
        """The seats that resigned and have not come back, in the order they left."""

    def event_words(
        self,
        kind: str,
        data: Mapping[str, Any],
        names: Sequence[str] = (),
        words: Translator | None = None,
    ) -> tuple[str, str] | None:
        """What to tell players about this game's public event ``kind`` (its ``data`` as the
        event carries it): a short subject and a sentence, in the game's own words, seats
        named by ``names``, for notifications; ``None`` lets the notifier say it in generic
        words. ``words``: the reader's language, as for ``describe``."""
        return None

    #: A short rule per action kind (``Action.kind``) for ``move_groups``: what the kind does
    #: and how it is written. A kind missing here is listed with no rule. Each is marked
    #: ``N_`` (engine.sentences) so a caller translates it (``Translator.text``).
    move_rules: ClassVar[Mapping[str, str]] = {}
    #: What a decision's ``step`` asks, in a few words, for the header of a mail ("play a
    #: card"); marked ``N_`` like ``move_rules``. A step missing here is shown as its id.
    step_names: ClassVar[Mapping[str, str]] = {}

    def move_groups(self, legal: Sequence[Action]) -> list[MoveGroup]:
        """``legal`` (a seat's legal actions) grouped by kind, in order of first appearance:
        every action in exactly one group, with the kind's rule and a few examples (all of
        them when the group is small)."""
        by_kind: dict[str, list[str]] = {}
        for action in legal:
            kind = str(getattr(action, "kind", "") or type(action).__name__.lower())
            by_kind.setdefault(kind, []).append(self.notation(action))
        return [
            MoveGroup(kind, self.move_rules.get(kind, ""), _examples(texts), len(texts))
            for kind, texts in by_kind.items()
        ]

    # -- derived helpers ----------------------------------------------------------------------

    def default_action(self, state: State, seat: int, kind: str) -> Action:
        """The deterministic choice made for ``seat`` when its ``kind`` decision times out."""
        legal = self.legal_actions(state, seat)
        by_notation = {self.notation(a): a for a in legal}
        for text in self.timeout_sealed if kind == "sealed" else self.timeout_move:
            if text in by_notation:
                return by_notation[text]
        return legal[0]

    def decision_for(self, state: State, seat: int) -> Decision | None:
        return next((d for d in self.pending(state) if d.seat == seat), None)

    def apply_notation(self, state: State, seat: int, text: str) -> list[Event]:
        return self.apply(state, seat, self.parse(text))

    def action_code(self, state: State, seat: int, action: Action | SeatAction) -> int | None:
        """A small number standing for ``action`` of ``seat`` in ``state``, which
        ``code_action`` turns back into it: how a finished game's packed log keeps its
        actions (service/store/logpack.py). None where there is none. By default the action's
        index among the legal actions; a game may give a cheaper one to compute."""
        legal = self.legal_actions(state, seat)
        return legal.index(action) if action in legal else None

    def code_action(self, state: State, seat: int, code: int) -> Action | SeatAction:
        """The action ``action_code`` gave ``code`` for, in the same state; raises
        ``IllegalAction('bad-code')`` for a number it gives no action."""
        legal = self.legal_actions(state, seat)
        if not 0 <= code < len(legal):
            raise IllegalAction("bad-code", f"no action has the code {code} here", number=code)
        return legal[code]

    def replay(
        self,
        players: int,
        seed: str,
        options: Mapping[str, Any] | None,
        moves: Iterable[tuple[int, str]],
    ) -> State:
        """Rebuild a game from its record: (seat, notation) pairs in the order applied."""
        state = self.new_state(players, seed, options)
        for seat, text in moves:
            self.apply_notation(state, seat, text)
        return state

    # -- words (docs/describe.md) -------------------------------------------------------------

    def action_types(self) -> frozenset[str]:
        """Every ``type`` an action object of this game can have (``resign`` included)."""
        return frozenset()

    def event_kinds(self) -> frozenset[str]:
        """Every event kind the game has words for (the bookkeeping kinds need none)."""
        return frozenset()

    def examples(self) -> dict[str, list[dict[str, Any]]]:
        """Action objects and events that random games rarely reach, one of each kind, from
        ``data/examples.json`` beside the game's module (service/http/schemas/derive.py)."""
        module = sys.modules[type(self).__module__].__file__
        path = Path(str(module)).parent / "data" / "examples.json"
        raw = json.loads(path.read_text()) if path.exists() else {}
        return {"actions": raw.get("actions", []), "events": raw.get("events", [])}

    @abstractmethod
    def describe(
        self, event: Event, names: Sequence[str], words: Translator | None = None
    ) -> str | None:
        """One short English sentence saying what ``event`` means, seats named by ``names``
        (display names by seat); ``None`` for bookkeeping events not worth a sentence.
        ``words`` translates it (engine/sentences.py ``Translator``; None: English).

        Uses only what the event carries. The caller shows an event with an ``audience``
        only to that audience; a public event's sentence never holds a hidden value.
        """


def options_from_data(
    raw: Mapping[str, Any], fallback_description: str = ""
) -> tuple[OptionSpec, ...]:
    """Option specs from a data file's options block (``default``, ``alternatives``, text)."""
    return tuple(
        OptionSpec(
            name,
            spec["default"],
            (spec["default"], *spec.get("alternatives", ())),
            spec.get("description") or spec.get("note") or fallback_description,
        )
        for name, spec in raw.items()
        if name != "note"
    )


class RulesGame(Game[StateR, Action]):
    """A game whose rules live in ``self.rules`` and notation in ``self.notation_``.

    The three engines share this wiring (``GameRules``, ``GameNotation``); a state has a
    ``result`` that stays ``None`` until the game is over.
    """

    rules: GameRules[StateR, Action]
    notation_: GameNotation[Action]

    def pending(self, state: StateR) -> list[Decision]:
        return self.rules.pending(state)

    def legal_actions(self, state: StateR, seat: int) -> list[Action]:
        return self.rules.legal_actions(state, seat)

    def apply(self, state: StateR, seat: int, action: Action | SeatAction) -> list[Event]:
        if isinstance(action, Resign):
            return self.rules.resign(state, seat, action.forfeit)
        if isinstance(action, Rejoin):
            return self.rules.rejoin(state, seat)
        return self.rules.apply(state, seat, action)

    def is_over(self, state: StateR) -> bool:
        return self.result(state) is not None

    def result(self, state: StateR) -> dict[str, Any] | None:
        return state.result

    def resigned_seats(self, state: StateR) -> list[int]:
        return list(state.resigned)

    def notation(self, action: Action | SeatAction) -> str:
        if isinstance(action, Resign | Rejoin):
            return action.text
        return self.notation_.format(action)

    def parse(self, text: str) -> Action | SeatAction:
        seat_action = SEAT_ACTIONS.get(text.strip().lower()) if isinstance(text, str) else None
        if seat_action is not None:
            return seat_action
        return self.notation_.parse(text)

    def action_to_json(self, action: Action | SeatAction) -> dict[str, Any]:
        if isinstance(action, Resign | Rejoin):
            return seat_action_to_json(action)
        return self.notation_.to_json(action)

    def action_from_json(self, raw: Mapping[str, Any]) -> Action | SeatAction:
        if not isinstance(raw, Mapping):
            raise IllegalAction("bad-action", N_("an action is a JSON object with a 'type'"))
        seat_action = seat_action_from_json(raw)
        if seat_action is not None:
            return seat_action
        return self.notation_.from_json(raw)

    #: The game's ``describe`` (its ``engine/<game>/describe.py``).
    describer: GameDescriber

    def describe(
        self, event: Event, names: Sequence[str], words: Translator | None = None
    ) -> str | None:
        return self.describer(event, names, words)

    def action_types(self) -> frozenset[str]:
        return self.notation_.json_types | SEAT_ACTION_TYPES

    def event_kinds(self) -> frozenset[str]:
        return frozenset(self.describer.describers) | SEAT_EVENT_KINDS


def visible_events(events: Sequence[Event], seat: int | None) -> list[Event]:
    return [event for event in events if event.visible_to(seat)]


def _examples(texts: Sequence[str]) -> tuple[str, ...]:
    """All of ``texts`` when few, else the first, a middle and the last one (a spread)."""
    if len(texts) <= MOVE_GROUP_ALL:
        return tuple(texts)
    picks = sorted({0, len(texts) // 2, len(texts) - 1})[:MOVE_GROUP_EXAMPLES]
    return tuple(texts[i] for i in picks)
