"""Game operations: what each request changes (mutations for ``Store.transact``) and what each
caller may see of a game (redaction). Generic over game types through ``engine.registry``.

Secrets and who may see them:
- the engine state: only through ``Game.view(state, seat)``;
- the seed: its SHA-256 from creation on, the seed itself once the game is over;
- a sealed choice: its commitment at once; the choice and salt to its author, and to everyone in
  the reveal that the resolution appends;
- the invite code: to the creator only.

Why this module is over 700 lines (issue 39 asks for a reason): the mutations and the redaction
share the secrets above and the record's helpers, and this wave added several actions in one
request and staged moves to both at once. The next split is known: what a caller may see
(``game_view``, ``legal_actions``, ``since_last_move``, ``redact_entry``: about 200 lines) into
a module of its own beside this one, once the table's and the club's changes have settled.
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from engine.core import SYSTEM, Decision, Event, Game, IllegalAction, Rejoin, Resign, Translator
from engine.registry import get_game
from engine.sentences import N_
from service.common import sealed
from service.common.problems import Problem, game_not_found
from service.domain import blocks, inputs, notifications, pinning
from service.store import MAX_INDEX, Store, eventlog, owed
from service.store.keys import GAME_SEQ, idem_key
from service.store.queues import resolve_job_id
from service.store.record import (
    Change,
    GameRecord,
    Idempotency,
    Mutation,
    NothingToDo,
    Outcome,
)

ACTION_KINDS = ("move", "sealed", "resolve")


def engine_problem(error: IllegalAction, status: int = 422) -> Problem:
    problem = Problem(status, error.code, error.message, **_safe_details(error.details))
    problem.reason = (error.template, error.values)
    return problem


def _safe_details(details: Mapping[str, Any]) -> dict[str, Any]:
    # Problem members must not shadow the RFC 9457 ones.
    reserved = {"type", "title", "status", "detail", "code", "errors"}
    return {k if k not in reserved else f"engine_{k}": v for k, v in details.items()}


def events_json(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


def event(kind: str, **data: Any) -> dict[str, Any]:
    return Event(kind, data).to_json()


def game_type(type_id: str) -> Game[Any, Any]:
    try:
        return get_game(type_id)
    except IllegalAction as error:
        raise engine_problem(error) from None


# -- creating, joining, starting ---------------------------------------------------------------


def create_game(
    store: Store,
    creator: Mapping[str, Any],
    type_id: str,
    options: Mapping[str, Any] | None,
    seed: str | None,
    seats: int,
    deadline: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
    bots: list[Mapping[str, Any]] | None = None,
    invited: Iterable[str] = (),
) -> Outcome:
    """``deadline`` and ``settings`` (``spectators_see_messages``) are service-level, kept
    apart from the engine's ``options`` so that no engine ever sees them. Each is checked here
    by the API schema's rules (service/domain/inputs.py), for the lobby's form too.

    ``bots``: seats filled by computer opponents (``[{"seat", "level"}]``, service/domain/bots.py);
    the creator takes the lowest seat no bot holds. ``invited``: ids of players who may join
    without the code (a profile's "play with")."""
    game_id = secrets.token_hex(8)
    build = new_game(
        store, creator, type_id, options, seed, seats, deadline, settings, bots, invited
    )

    def mutate(record: GameRecord | None, version: int) -> Change:
        if record is not None:  # a 64-bit id collision: refuse rather than overwrite
            raise Problem(409, "game-id-collision", "please retry")
        return build(game_id, version)

    return commit(store, game_id, mutate)


def new_game(
    store: Store,
    creator: Mapping[str, Any],
    type_id: str,
    options: Mapping[str, Any] | None,
    seed: str | None,
    seats: int,
    deadline: Mapping[str, Any] | None,
    settings: Mapping[str, Any] | None,
    bots: list[Mapping[str, Any]] | None = None,
    invited: Iterable[str] = (),
    seating: Mapping[str, Any] | None = None,
) -> Callable[[str, int], Change]:
    """Check a new game's choices (a 4xx before anything is written) and return what makes
    its first change, ``build(game_id, version)``: for ``create_game``, and for a rematch
    (service/domain/rematch.py), whose id is chosen before the game is made. ``seating``:
    more of the record's ``seating`` (a rematch's ``rematch_of``)."""
    inputs.checked("type", inputs.GAME_TYPE.check, type_id)
    if seed is not None:
        inputs.checked("seed", inputs.SEED.check, seed)
    inputs.checked("seats", lambda n: inputs.integer(n, *inputs.SEATS), seats)
    levels = inputs.checked("bots", lambda b: inputs.bot_seats(b, seats), bots or [])
    if deadline is not None:
        deadline = inputs.checked("deadline", inputs.deadline, deadline)
    settings = inputs.game_settings(settings or {})
    game = game_type(type_id)
    try:
        chosen = game.resolve_options(options)
        game.check_players(seats)
    except IllegalAction as error:
        raise engine_problem(error) from None
    mine = inputs.creator_seat(levels, seats)
    guests = _guests(store, creator, invited, seats - len(levels) - (mine is not None))
    seq = int(store.write(lambda pipe: pipe.incr(GAME_SEQ))[0])
    seed = seed or sealed.new_seed()
    seated = [(seat, *bot_identity(seat, levels)) for seat in sorted(levels)]
    if mine is not None:  # else a table of bots only, which its creator watches
        seated.insert(mine, (mine, creator["id"], creator["name"]))
    extra = dict(seating or {}) | ({"invited": guests} if guests else {})
    if levels:
        extra["bots"] = {str(seat): level for seat, level in levels.items()}

    def build(game_id: str, version: int) -> Change:
        now = time.time()
        record = GameRecord(
            id=game_id,
            type=game.id,
            rules_version=game.rules_version,
            status="open",
            version=version,
            max_seats=seats,
            options=chosen,
            seed=seed,
            seed_commitment=sealed.seed_commitment(seed),
            seats=[player_id for _, player_id, _ in seated],
            names=[name for _, _, name in seated],
            creator=creator["id"],
            invite=secrets.token_urlsafe(9),
            seq=seq,
            created_at=now,
            updated_at=now,
            deadline=dict(deadline or {}),
            settings=dict(settings or {}),
            log_codec=eventlog.codec_for(game.id),
            seating=copy.deepcopy(extra),
        )
        body = {"id": game_id, "version": version, "seat": mine, "invite_code": record.invite}
        created = event(
            "game_created",
            type=game.id,
            options=chosen,
            seats=seats,
            seed_commitment=record.seed_commitment,
            deadline=record.deadline or None,
        )
        joined = [
            event("player_joined", seat=seat, name=name, **_bot_mark(levels.get(seat)))
            for seat, _, name in seated
        ]
        return Change(
            record,
            "created",
            [created, *joined],
            201,
            body,
            index_players=[creator["id"]] if mine is not None else [],
        )

    return build


#: The longest player id a caller may name (ids are far shorter: a bound on what is read).
MAX_PLAYER_ID = 64


def _guests(
    store: Store, creator: Mapping[str, Any], invited: Iterable[str], free: int
) -> list[dict[str, str]]:
    """The players invited by name (``player_id``, ``name``: the name shown until they sit
    down), each once, the creator never; 422 for one that is no player or more than the
    ``free`` seats (neither a bot's nor the creator's) can take."""
    guests: list[dict[str, str]] = []
    for player_id in dict.fromkeys(invited):
        if player_id == creator["id"]:
            continue
        wellformed = isinstance(player_id, str) and 0 < len(player_id) <= MAX_PLAYER_ID
        found = store.players.get(player_id) if wellformed else None
        if found is None:
            raise Problem(
                422, "unknown-player", N_("there is no such player to invite"), field="invited"
            )
        guests.append({"player_id": player_id, "name": found["name"]})
    if len(guests) > free:
        raise Problem(
            422,
            "too-many-invited",
            N_("more players invited than the game has seats"),
            field="invited",
        )
    return guests


def invited(record: GameRecord, player_id: str) -> bool:
    """Whether ``player_id`` was named at the game's creation (a rematch's players, a
    profile's "play with"): they join without the invite code."""
    return any(guest["player_id"] == player_id for guest in record.seating.get("invited", []))


def bot_identity(seat: int, levels: Mapping[int, str]) -> tuple[str, str]:
    """The player id and name of the bot in ``seat`` of a new game: "Bot (hard)", numbered by
    its seat when another bot of the game has the same level. The id names no player record:
    only a bot job acts as it (service/domain/bots.py)."""
    level = levels[seat]
    alike = sum(1 for other in levels.values() if other == level)
    name = f"Bot ({level})" if alike == 1 else f"Bot {seat + 1} ({level})"
    return f"bot-{level}-{seat}", name


def _bot_mark(level: str | None) -> dict[str, Any]:
    return {"bot": level} if level else {}


def join_game(
    store: Store,
    player: Mapping[str, Any],
    game_id: str,
    invite: str | None,
    keep_apart: bool = True,
) -> Outcome:
    """Take the next free seat: with the invite code, or without one in an open-access game.
    Refused where a player sits whom the joiner blocks or who blocks the joiner, unless
    ``keep_apart`` is False (a tournament's table, paired so for want of another pairing)."""
    if invite is not None:
        inputs.checked("invite_code", inputs.CODE.check, invite)
    apart = blocks.kept_apart(store, player) if keep_apart else set()

    def mutate(record: GameRecord | None, version: int) -> Change:
        record = require(record, game_id)
        if record.seat_of(player["id"]) is not None:
            raise Problem(409, "already-seated", N_("you already have a seat in this game"))
        if record.status != "open":
            raise Problem(409, "game-already-started", N_("this game no longer takes players"))
        if (
            record.settings.get("access") != "open"
            and not invited(record, player["id"])
            and not secrets.compare_digest((invite or "").encode(), record.invite.encode())
        ):
            raise Problem(403, "bad-invite-code", N_("that invite code does not open this game"))
        if len(record.seats) >= record.max_seats:
            raise Problem(409, "game-full", N_("every seat of this game is taken"))
        blocks.check_table(record.seats, apart)  # last: it tells nothing a refusal above would
        seat = len(record.seats)
        record.seats.append(player["id"])
        record.names.append(player["name"])
        joined = event("player_joined", seat=seat, name=player["name"])
        body = {"id": game_id, "version": version, "seat": seat}
        return Change(record, "joined", [joined], 201, body, index_players=[player["id"]])

    return commit(store, game_id, mutate)


def open_games(
    store: Store, after: int | None, limit: int, filters: Mapping[str, Any]
) -> dict[str, Any]:
    """The lobby: open-access games with a free seat, oldest first, matching ``filters``
    (``type``, ``seats``: the player count, ``deadline``: a policy or ``none``)."""
    rows = store.indexes.open_games(after)
    summaries = store.indexes.game_summaries([gid for gid, _ in rows])
    items: list[dict[str, Any]] = []
    examined = 0
    for (_, seq), summary in zip(rows, summaries, strict=True):
        examined, after = examined + 1, seq
        if summary is not None and _wanted(summary, filters):
            items.append(_lobby_item(summary))
            if len(items) == limit:
                break
    more = examined < len(rows) or len(rows) == MAX_INDEX
    return {"items": items, "next_cursor": str(after) if more else None}


def _wanted(summary: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    if summary["status"] != "open" or len(summary["seats"]) >= int(summary["max_seats"]):
        return False  # the index lags a commit behind at most: check the record itself
    if filters.get("type") not in (None, summary["type"]):
        return False
    if filters.get("seats") not in (None, int(summary["max_seats"])):
        return False
    policy = summary["deadline"].get("policy") if summary["deadline"] else "none"
    return filters.get("deadline") in (None, policy)


def summary_seats(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A game summary's (service/store/indexes.py) seats as a listing shows them."""
    bots = (summary.get("seating") or {}).get("bots", {})
    pairs = zip(summary["seats"], summary["names"], strict=True)
    return [
        {"seat": i, "player_id": p, "name": n, **bot_fields(bots.get(str(i)))}
        for i, (p, n) in enumerate(pairs)
    ]


def _lobby_item(summary: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": summary["id"],
        "type": summary["type"],
        "max_seats": int(summary["max_seats"]),
        "seats": summary_seats(summary),
        "deadline": summary["deadline"] or None,
        "created_at": float(summary["created_at"]),
    }


def start_game(store: Store, player: Mapping[str, Any], game_id: str) -> Outcome:
    def mutate(record: GameRecord | None, version: int) -> Change:
        record = require(record, game_id)
        if record.creator != player["id"]:
            raise Problem(403, "not-creator", N_("only the game's creator can start it"))
        if record.status != "open":
            raise Problem(409, "game-already-started", N_("this game has already started"))
        game = record.game
        try:
            game.check_players(len(record.seats))
        except IllegalAction as error:
            raise Problem(
                409, "not-enough-players", error.message, players=len(record.seats)
            ) from None
        state = game.new_state(len(record.seats), record.seed, record.options)
        record.status = "active"
        record.rules_version = game.rules_version  # pinned from here on (service/domain/pinning.py)
        started = event(
            "game_started",
            players=len(record.seats),
            rules_version=record.rules_version,
            seed_commitment=record.seed_commitment,
        )
        change = Change(record, "started", [started], 200, {})
        _settle(game, state, change)
        # What the schema (Started) promises: a generated client reads every field. Only the
        # public start event: the hands dealt are in each player's view, not here.
        change.body = {
            "id": game_id,
            "version": version,
            "status": record.status,
            "events": [started],
        }
        return change

    return commit(store, game_id, mutate)


# -- playing -----------------------------------------------------------------------------------


def move_read(game_id: str, player_id: str, idempotency_key: str | None) -> tuple[str, str | None]:
    """What a move's transaction reads first (``Store.transact``): the game, and the player's
    idempotency record if the move carries a key. The rate limiter reads them early."""
    return game_id, idem_key(game_id, player_id, idempotency_key) if idempotency_key else None


def play(
    store: Store,
    player: Mapping[str, Any],
    game_id: str,
    notation: str | None,
    action_object: Mapping[str, Any] | None,
    if_match: int | None,
    expected_version: int | None,
    idem: Idempotency | None,
) -> Outcome:
    """Play one action: a notation or an action object."""
    one: str | Mapping[str, Any] = notation if notation is not None else (action_object or {})
    return play_all(store, player, game_id, [one], if_match, expected_version, idem, listed=False)


#: The most actions one request may apply (a staged move on the web table is a few).
MAX_ACTIONS = 20


def play_all(
    store: Store,
    player: Mapping[str, Any],
    game_id: str,
    moves: list[str | Mapping[str, Any]],
    if_match: int | None,
    expected_version: int | None,
    idem: Idempotency | None,
    listed: bool = True,
) -> Outcome:
    """Play ``moves`` (notations or action objects) in order as one atomic change: all or
    none. Each is one log entry and one version, as if played one by one (replays, the record
    and streams see single actions); notifications and deadlines are planned once, for the
    whole. A refusal of the ``i``-th (``listed``) names it: ``index`` in the problem."""
    _check_moves(moves, listed)

    def mutate(record: GameRecord | None, version: int) -> Change:
        record = require(record, game_id)
        seat = record.seat_of(player["id"])
        if seat is None:
            raise Problem(403, "not-a-player", N_("you have no seat in this game"))
        _check_version(record, if_match, expected_version)
        if record.status != "active":
            raise Problem(
                409, "game-not-active", f"the game is {record.status}", game_status=record.status
            )
        pinning.check_playable(record)
        game = record.game
        state = game.load(record.state or {})
        present(record, seat)
        changes = _play_in_order(record, game, state, seat, moves, version, listed)
        return _joined(changes)

    return commit(store, game_id, mutate, idem)


def _check_moves(moves: list[str | Mapping[str, Any]], listed: bool) -> None:
    """How many moves, and each notation's length, as the API's schema takes them (the web
    table and the move box reach here without it)."""
    if not 1 <= len(moves) <= MAX_ACTIONS:
        raise inputs.problem(
            "actions", inputs.Refused(f"Length must be between 1 and {MAX_ACTIONS}.")
        )
    for index, move in enumerate(moves):
        if isinstance(move, str) and not 1 <= len(move) <= inputs.NOTATION_LENGTH:
            refused = inputs.problem(
                "notation",
                inputs.Refused(f"Length must be between 1 and {inputs.NOTATION_LENGTH}."),
            )
            if listed:
                refused.extra["index"] = index
            raise refused


def _play_in_order(
    record: GameRecord,
    game: Game[Any, Any],
    state: Any,
    seat: int,
    moves: list[str | Mapping[str, Any]],
    version: int,
    listed: bool = True,
) -> list[Change]:
    changes: list[Change] = []
    for index, move in enumerate(moves):
        try:
            changes.append(_play_one(record, game, state, seat, move, version + index))
        except Problem as problem:
            if listed:
                problem.extra["index"] = index
            raise
    return changes


def staged(record: GameRecord, seat: int, moves: list[str]) -> dict[str, Any]:
    """What ``seat`` may play after ``moves`` (notations, not yet played): the legal actions
    as ``legal_actions`` gives them, judged by the same code as ``play_all`` on a copy that is
    never stored. A move the game would refuse is the same problem, with its ``index``. The
    web table builds a move of several parts with it (service/http/web)."""
    return legal_actions(staged_record(record, seat, moves), seat) | {"version": record.version}


def staged_record(
    record: GameRecord, seat: int, moves: list[str], draws: Collection[str] = ()
) -> GameRecord:
    """A copy of ``record`` with ``moves`` applied, never stored: ``staged``'s trial, for a
    page that reads more of it than the legal actions (what a build costs after them).

    ``draws``: the game's event kinds that show what nobody has seen yet (a building turned
    up from a stack, a map tile or cards drawn: engine/<game>/targets.py ``DRAWS``). The trial
    plays on the whole state, hidden parts included, so what follows such a move would tell
    the player what they would draw, and they could take it back and choose again: a move
    that draws is refused here (409 ``draws-hidden``, ``index`` and ``draws``), and the page
    sends it with the parts before it instead (Confirm), then stages on the state that shows
    what was drawn."""
    if record.status != "active" or record.state is None:
        raise Problem(409, "game-not-active", f"the game is {record.status}")
    trial = copy.deepcopy(record)
    game = trial.game
    state = game.load(trial.state or {})
    changes = _play_in_order(trial, game, state, seat, list(moves), trial.version + 1)
    for index, change in enumerate(changes):
        if any(event["kind"] in draws for event in change.events):
            raise Problem(
                409,
                "draws-hidden",
                N_("a part that draws is sent with Confirm, not tried"),
                index=index,
                draws=True,
            )
    return trial


def _play_one(
    record: GameRecord,
    game: Game[Any, Any],
    state: Any,
    seat: int,
    move: str | Mapping[str, Any],
    version: int,
) -> Change:
    if record.status != "active":
        raise Problem(
            409, "game-not-active", f"the game is {record.status}", game_status=record.status
        )
    try:
        action = game.parse(move) if isinstance(move, str) else game.action_from_json(move)
    except IllegalAction as error:
        raise engine_problem(error) from None
    if isinstance(action, Resign | Rejoin):
        return _seat_action(record, game, state, seat, action, version)
    decision = game.decision_for(state, seat)
    if decision is None or decision.kind == "resolve":
        raise Problem(
            409,
            "not-your-turn",
            N_("the game is not waiting for you"),
            waiting_for=[d.to_json() for d in game.pending(state)],
        )
    try:
        events = game.apply(state, seat, action)
    except IllegalAction as error:
        raise engine_problem(error) from None
    return _applied(record, game, state, seat, decision, action, events, version)


def _joined(changes: list[Change]) -> Change:
    """Several actions' changes as one: the last one's, the others its earlier log entries,
    its answer telling every event the player may see (a sealed choice's answer, 202, only
    when it is the last)."""
    last = changes[-1]
    for change in changes[:-1]:
        last.earlier.append(change.log_step())
        last.resolve_remove += change.resolve_remove
    if len(changes) > 1:
        seen = [e for change in changes for e in change.body["events"]]
        last.body["events"] = seen
    return last


def _seat_action(
    record: GameRecord, game: Game[Any, Any], state: Any, seat: int, action: Any, version: int
) -> Change:
    """``resign``: any time, not only in one's turn. ``forfeit`` and ``rejoin`` are applied by
    the service (a claimed win, a replacement: service/domain/seats.py), never asked for."""
    if not isinstance(action, Resign) or action.forfeit:
        raise Problem(
            422,
            "not-a-player-action",
            f"{game.notation(action)!r} is applied by the server (a claimed win or a "
            "replacement taking the seat), not played",
        )
    return apply_seat_action(record, game, state, seat, action, version)


def apply_seat_action(
    record: GameRecord, game: Game[Any, Any], state: Any, seat: int, action: Any, version: int
) -> Change:
    """Apply a resignation, forfeit or return of ``seat``: logged as that seat's move."""
    try:
        events = game.apply(state, seat, action)
    except IllegalAction as error:
        raise engine_problem(error, 409) from None
    decision = Decision(seat, "move", action.kind)
    return _applied(record, game, state, seat, decision, action, events, version)


def present(record: GameRecord, seat: int) -> None:
    """``seat`` acted itself: its missed deadlines start again from nought."""
    missed = record.seating.get("missed", {})
    missed.pop(str(seat), None)
    abandoned = record.seating.get("abandoned", [])
    if seat in abandoned:
        abandoned.remove(seat)


def resolve(store: Store, game_id: str, ref: str) -> str:
    """Resolve one sealed step (the worker's job). Safe to run any number of times."""

    def mutate(record: GameRecord | None, version: int) -> Change:
        if record is None or record.status != "active":
            raise NothingToDo
        pinning.check_playable(record)  # fails the job; rq retries it, a worker's start again
        game = record.game
        state = game.load(record.state or {})
        due = [d for d in game.pending(state) if d.seat == SYSTEM and d.ref == ref]
        if not due:
            raise NothingToDo  # already resolved by an earlier run
        action = game.legal_actions(state, SYSTEM)[0]
        events = game.apply(state, SYSTEM, action)
        return _applied(record, game, state, SYSTEM, due[0], action, events, version)

    try:
        commit(store, game_id, mutate)
    except NothingToDo:
        owed.settle(store.queue_r, resolve_job_id(game_id, ref))  # e.g. the game ended meanwhile
        return "already-resolved"
    return "resolved"


def apply_timeout(store: Store, game_id: str, seat: int, decision: Mapping[str, Any]) -> str:
    """A deadline passed with ``decision`` of ``seat`` still open (the deadline job).

    A missing sealed choice counts as the game's pass; a missing move follows the game's
    policy: ``default_move`` plays a deterministic legal move, ``remind_only`` only logs the
    timeout (and the clock starts again). Either way the timeout is an event in the log.
    """

    def mutate(record: GameRecord | None, version: int) -> Change:
        if record is None or record.status != "active":
            raise NothingToDo
        if not any(d == dict(decision) for d in record.pending):
            raise NothingToDo  # answered (or timed out) meanwhile
        pinning.check_playable(record)  # no default move under other rules: the job fails
        game = record.game
        state = game.load(record.state or {})
        policy = record.deadline.get("policy", "default_move")
        found = game.decision_for(state, seat)
        assert found is not None
        timeout = {"seat": seat, "step": found.step, "decision": found.kind, "policy": policy}
        noticed = _missed(record, seat)
        if found.kind == "move" and policy == "remind_only":
            events = [event("timeout_applied", **timeout), *noticed]
            return Change(record, "timeout", events, 200, {}, seat=seat)
        action = game.default_action(state, seat, found.kind)
        events = game.apply(state, seat, action)
        change = _applied(record, game, state, seat, found, action, events, version)
        if found.kind == "move":
            timeout["action"] = change.action  # an open move is public anyway
        change.events += [event("timeout_applied", **timeout), *noticed]
        return change

    try:
        commit(store, game_id, mutate)
    except NothingToDo:
        return "stale"
    return "applied"


#: Missed deadlines in a row after which a seat is abandoned, unless the game says otherwise
#: (``abandon_after`` at creation; 0: never).
ABANDON_AFTER = 3


def _missed(record: GameRecord, seat: int) -> list[dict[str, Any]]:
    """Count one more missed deadline of ``seat``; the ``seat_abandoned`` event when that
    makes K in a row (then, in a two-player game, the opponent may claim the win)."""
    missed = record.seating.setdefault("missed", {})
    missed[str(seat)] = missed.get(str(seat), 0) + 1
    limit = int(record.settings.get("abandon_after", ABANDON_AFTER))
    abandoned = record.seating.setdefault("abandoned", [])
    if not limit or missed[str(seat)] < limit or seat in abandoned:
        return []
    abandoned.append(seat)
    claimable = len(record.seats) == 2
    return [event("seat_abandoned", seat=seat, missed=missed[str(seat)], claimable=claimable)]


def commit(
    store: Store, game_id: str, mutate: Mutation, idem: Idempotency | None = None
) -> Outcome:
    """The one write path, with the notification and deadline jobs every change brings."""
    return store.transact(game_id, mutate, idem, notifications.planner(store))


def require(record: GameRecord | None, game_id: str) -> GameRecord:
    if record is None:
        raise game_not_found(game_id)
    return record


def _check_version(record: GameRecord, if_match: int | None, expected: int | None) -> None:
    if if_match is not None and if_match != record.version:
        raise Problem(
            412,
            "stale-version",
            N_("the game has moved on since that version"),
            current_version=record.version,
            headers={"ETag": f'"{record.version}"'},
        )
    if expected is not None and expected != record.version:
        raise Problem(
            409,
            "stale-version",
            N_("the game has moved on since that version"),
            current_version=record.version,
        )


def _applied(
    record: GameRecord,
    game: Game[Any, Any],
    state: Any,
    seat: int,
    decision: Decision,
    action: Any,
    events: list[Event],
    version: int,
) -> Change:
    notation = game.notation(action)
    logged = events_json(events)
    change = Change(
        record, decision.kind, logged, 200, {}, seat=seat, action=notation, ref=decision.ref
    )
    if decision.kind == "sealed":
        salt = sealed.new_salt()
        digest = sealed.commitment(record.id, decision.ref, seat, notation, salt)
        record.sealed.setdefault(decision.ref, {})[str(seat)] = {
            "choice": notation,
            "salt": salt,
            "commitment": digest,
        }
        change.commitment = digest
        logged.append(event("sealed_committed", ref=decision.ref, seat=seat, commitment=digest))
        change.status = 202
        change.body = {"ref": decision.ref, "commitment": digest, "choice": notation, "salt": salt}
    elif decision.kind == "resolve":
        logged.insert(0, _reveal(record, decision.ref))
        change.resolve_remove.append(decision.ref)
    _settle(game, state, change)
    change.body |= {
        "version": version,
        "status": record.status,
        "events": [e for e in change.events if Event.from_json(e).visible_to(seat)],
        # Who acts next, as the game's view says: a client learns whether it moves again
        # without a second request (public, like the view's waiting_for).
        "waiting_for": record.pending,
    }
    return change


def _reveal(record: GameRecord, ref: str) -> dict[str, Any]:
    choices = record.sealed.pop(ref, {})
    listed = [{"seat": int(seat), **choice} for seat, choice in choices.items()]
    listed.sort(key=lambda c: c["seat"])
    return event("sealed_revealed", ref=ref, scheme=sealed.COMMITMENT_SCHEME, choices=listed)


def _settle(game: Game[Any, Any], state: Any, change: Change) -> None:
    """Store the new state and what the game now waits for; schedule resolutions; finish."""
    record = change.record
    pending = game.pending(state)
    record.state = game.dump(state)
    record.pending = [d.to_json() for d in pending]
    change.resolve_add = [d.ref for d in pending if d.kind == "resolve" and d.seat == SYSTEM]
    if game.is_over(state):
        record.status = "finished"
        record.result = game.result(state)
        # Choices no resolution ever revealed (e.g. the wargame's secret notes) are revealed
        # now, with their salts, so every commitment of the game can be checked.
        for ref in sorted(record.sealed):
            change.events.append(_reveal(record, ref))
        change.events.append(
            event(
                "game_over",
                result=record.result,
                seed=record.seed,
                seed_commitment=record.seed_commitment,
            )
        )


# -- what a caller may see -------------------------------------------------------------------


#: Log entries a view looks back through for "what happened since your last move", and the
#: most sentences it shows.
RECENT_ENTRIES = 60
RECENT_SENTENCES = 30


def after_last_move(
    entries: list[tuple[int, dict[str, Any]]], seat: int | None
) -> list[tuple[int, dict[str, Any]]]:
    """The ``entries`` after ``seat``'s last own move or choice in them (all of them for a
    spectator or a seat that did not act in them): what the seat has not seen itself."""
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index][1]
        if entry["kind"] in ("move", "sealed") and entry["seat"] == str(seat):
            return entries[index + 1 :]
    return entries


def since_last_move(
    record: GameRecord,
    entries: list[tuple[int, dict[str, Any]]],
    seat: int | None,
    words: Translator | None = None,
) -> list[dict[str, Any]]:
    """What happened after ``seat``'s last own move or choice in ``entries`` (all of them for
    a spectator or a seat that did not act in them), as the game's sentences (engine
    ``describe``; ``words``: the reader's language, service/common/i18n.py ``engine_words``), only
    from events ``seat`` may see: ``[{"version", "text"}]``."""
    sentences = []
    for version, entry in after_last_move(entries, seat):
        for raw in entry["events"]:
            event = Event.from_json(raw)
            visible = event.visible_to(seat)
            text = record.game.describe(event, record.names, words) if visible else None
            if text:
                sentences.append({"version": version, "text": text})
    return sentences[-RECENT_SENTENCES:]


def game_view(record: GameRecord, seat: int | None, player_id: str | None) -> dict[str, Any]:
    game = record.game
    state = game.load(record.state) if record.state is not None else None
    view = game.view(state, seat) if state is not None else None
    out: dict[str, Any] = {
        "id": record.id,
        "type": record.type,
        "rules_version": record.rules_version,
        "status": record.status,
        "version": record.version,
        "options": record.options,
        "max_seats": record.max_seats,
        "seats": _seats_in_play(record, state),
        "your_seat": seat,
        "creator_seat": record.seat_of(record.creator),
        "waiting_for": record.pending,
        "your_decision": next((d for d in record.pending if d["seat"] == seat), None)
        if seat is not None
        else None,
        "your_sealed_choices": _own_sealed(record, seat),
        "seed_commitment": record.seed_commitment,
        "view": view,
        "result": record.result,
        "deadline": record.deadline or None,
        "deadline_at": record.deadline_at,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        # Who may join without the code, a finished game's rematch and a rematch's game
        # (service/domain/rematch.py): public, as the seats are.
        "invited": list(record.seating.get("invited", [])),
        "rematch": record.seating.get("rematch"),
        "rematch_of": record.seating.get("rematch_of"),
    }
    if player_id == record.creator and record.status == "open":
        out["invite_code"] = record.invite
    return out


def _own_sealed(record: GameRecord, seat: int | None) -> list[dict[str, str]]:
    """The caller's own sealed choices not yet revealed, with their commitments (what the
    table sees is only the commitment)."""
    if seat is None:
        return []
    return [
        {"ref": ref, "choice": mine["choice"], "commitment": mine["commitment"]}
        for ref, by_seat in record.sealed.items()
        if (mine := by_seat.get(str(seat))) is not None
    ]


def _seats(record: GameRecord) -> list[dict[str, Any]]:
    pairs = zip(record.seats, record.names, strict=True)
    return [
        {"seat": i, "player_id": p, "name": n, **bot_fields(record.bot_level(i))}
        for i, (p, n) in enumerate(pairs)
    ]


def bot_fields(level: str | None) -> dict[str, Any]:
    """What a seat shows of a computer opponent, everywhere a seat is listed."""
    return {"is_bot": level is not None, "bot_level": level}


def _seats_in_play(record: GameRecord, state: Any) -> list[dict[str, Any]]:
    """The seats with who has left or gone missing (a running or finished game)."""
    seats = _seats(record)
    if state is None:
        return seats
    resigned = record.game.resigned_seats(state)
    missed = record.seating.get("missed", {})
    abandoned = record.seating.get("abandoned", [])
    for seat in seats:
        number = seat["seat"]
        seat |= {
            "resigned": number in resigned,
            "abandoned": number in abandoned,
            "missed_deadlines": missed.get(str(number), 0),
        }
    return seats


def legal_actions(record: GameRecord, seat: int) -> dict[str, Any]:
    game = record.game
    decision: dict[str, Any] | None = None
    actions: list[dict[str, Any]] = []
    if record.status == "active" and record.state is not None:
        state = game.load(record.state)
        found = game.decision_for(state, seat)
        if found is not None and found.kind != "resolve":
            decision = found.to_json()
            actions = [
                {"notation": game.notation(a), "action": game.action_to_json(a)}
                for a in game.legal_actions(state, seat)
            ]
    return {
        "type": record.type,  # action objects carry no game type; a typed client needs it
        "version": record.version,
        "seat": seat,
        "decision": decision,
        "actions": actions,
    }


def _action_visible(record: GameRecord, entry: Mapping[str, str], seat: int | None) -> bool:
    """Open moves are public; a sealed choice only to its author until its reveal."""
    if entry["kind"] != "sealed" or record.status == "finished":
        return True
    author = int(entry["seat"])
    return author == seat or entry["ref"] not in record.sealed


def redact_entry(
    record: GameRecord, version: int, entry: Mapping[str, str], seat: int | None
) -> dict[str, Any]:
    events = [e for e in entry["events"] if Event.from_json(e).visible_to(seat)]
    return {
        "version": version,
        "kind": entry["kind"],
        "seat": int(entry["seat"]) if entry["seat"] != "" else None,
        "action": entry["action"]
        if entry["action"] and _action_visible(record, entry, seat)
        else None,
        "ref": entry["ref"] or None,
        "commitment": entry["commitment"] or None,
        "events": events,
        "at": float(entry["at"]),
    }


def game_record(
    record: GameRecord, entries: list[tuple[int, dict[str, str]]], seat: int | None
) -> dict[str, Any]:
    actions = []
    for version, entry in entries:
        if entry["kind"] not in ACTION_KINDS:
            continue
        shown = redact_entry(record, version, entry, seat)
        actions.append(
            {k: shown[k] for k in ("version", "seat", "kind", "action", "ref", "commitment")}
        )
    reveals = [
        e["data"] for _, entry in entries for e in entry["events"] if e["kind"] == "sealed_revealed"
    ]
    finished = record.status == "finished"
    return {
        "id": record.id,
        "type": record.type,
        "rules_version": record.rules_version,
        "options": record.options,
        "status": record.status,
        "players": len(record.seats),
        "seats": _seats(record),
        "seed_commitment": record.seed_commitment,
        "seed": record.seed if finished else None,
        "commitment_scheme": sealed.COMMITMENT_SCHEME,
        "actions": actions,
        "handovers": record.seating.get("handovers", []),
        "reveals": reveals,
        "result": record.result,
        "complete": finished,
    }
