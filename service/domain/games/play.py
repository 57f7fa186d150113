"""Playing a game: one action or several as one atomic change, a staged trial that is never
stored, a seat's resignation, a resolution of sealed choices, a deadline's timeout, and the
write path they share (``commit``, ``settle``: the state stored, what the game waits for, its
end). Each function returns a mutation's outcome through ``Store.transact``.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from engine.core import SYSTEM, Decision, Event, Game, IllegalAction, Rejoin, Resign
from engine.registry import get_game
from engine.sentences import N_
from service.common import sealed
from service.common.problems import Problem, game_not_found
from service.domain import inputs, leave, notifications, pinning
from service.domain.games.views import legal_actions
from service.store import Store, owed
from service.store.keys import idem_key
from service.store.queues import resolve_job_id
from service.store.record import Change, GameRecord, Idempotency, Mutation, NothingToDo, Outcome


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
    moves: Sequence[str | Mapping[str, Any]],
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
        returned = not player.get("bot") and present(record, seat)
        change = _joined(_play_in_order(record, game, state, seat, moves, version, listed))
        if returned:
            change.returned = seat
        return change

    outcome = commit(store, game_id, mutate, idem)
    leave.end_at_move(store, player)
    return outcome


def _check_moves(moves: Sequence[str | Mapping[str, Any]], listed: bool) -> None:
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
    moves: Sequence[str | Mapping[str, Any]],
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


def _release_stand_ins(record: GameRecord) -> None:
    """A finished game's seats held by a bot after a deadline (the policy ``bot``) are their
    players' again: the game counts as theirs (ratings, finished games)."""
    for seat in record.seating.pop("stand_ins", []):
        record.seating.get("bots", {}).pop(str(seat), None)


def present(record: GameRecord, seat: int) -> bool:
    """``seat`` acted itself: its missed deadlines start again from nought, a bot that held
    its seat after a deadline (the policy ``bot``) gives it back, and a turn the policy was
    making at once after a missed deadline (``late_turns``) is the player's again. Whether
    the seat's turn came back to its player that way (``Change.returned``: under a time bank
    the rest of the turn gets ``per_move_days``, service/domain/timebanks.py)."""
    returned = False
    stand_ins = record.seating.get("stand_ins", [])
    if seat in stand_ins:
        stand_ins.remove(seat)
        record.seating.get("bots", {}).pop(str(seat), None)
        returned = True
    late = record.late_turns()
    if seat in late:
        late.remove(seat)
        if not late:
            del record.seating["late_turns"]
        returned = True
    missed = record.seating.get("missed", {})
    missed.pop(str(seat), None)
    abandoned = record.seating.get("abandoned", [])
    if seat in abandoned:
        abandoned.remove(seat)
    return returned


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


def apply_timeout(
    store: Store, game_id: str, seat: int, decision: Mapping[str, Any], due_version: int
) -> str:
    """A deadline of ``due_version`` passed with ``decision`` of ``seat`` still open (the
    deadline job). Any other commit since ``due_version`` (the player's own move, say) makes it
    stale: that commit timed the decisions then pending afresh, and the seat's next decision
    may look the same as the one that fell due (an Attila turn plays a card twice).

    A missing sealed choice counts as the game's pass; a missing move follows the game's
    policy: ``default_move`` plays a deterministic legal move, ``remind_only`` only logs the
    timeout (and the clock starts again), ``skip`` passes or ends the turn where the game
    allows it then (else the default move), ``resign`` resigns the seat, ``bot`` seats a bot
    of the game's ``bot_level`` until the player acts again. Either way the timeout is an
    event in the log.

    A turn of several decisions counts one missed deadline: once the policy made a decision
    of it (the default move, a skip, a sealed pass) and the game still waits for the seat,
    the turn is late (``GameRecord.late_turns``): the rest of it falls due at once, each
    timeout marked ``same_turn`` and not counted again, until the turn ends (``commit``) or
    its player acts in it (``present``: then the rest of the turn is theirs, timed afresh)."""

    def mutate(record: GameRecord | None, version: int) -> Change:
        if record is None or record.status != "active" or record.version != due_version:
            raise NothingToDo  # the game moved on: that commit timed what is pending now
        if not any(d == dict(decision) for d in record.pending):
            raise NothingToDo  # answered (or timed out) meanwhile
        pinning.check_playable(record)  # no default move under other rules: the job fails
        game = record.game
        state = game.load(record.state or {})
        policy = record.deadline.get("policy", "default_move")
        found = game.decision_for(state, seat)
        assert found is not None
        timeout = {"seat": seat, "step": found.step, "decision": found.kind, "policy": policy}
        # A turn counts one missed deadline, however many decisions the policy makes in it.
        same_turn = seat in record.late_turns()
        if same_turn:
            timeout["same_turn"] = True
        noticed = [] if same_turn else _missed(record, seat)
        if found.kind == "move" and policy == "remind_only":
            events = [event("timeout_applied", **timeout), *noticed]
            return Change(record, "timeout", events, 200, {}, seat=seat)
        if policy == "bot":
            # A bot of the game's level holds the seat until its player acts again (``present``).
            level = str(record.deadline.get("bot_level", "medium"))
            record.seating.setdefault("bots", {})[str(seat)] = level
            record.seating.setdefault("stand_ins", []).append(seat)
            events = [event("timeout_applied", **timeout, bot_level=level), *noticed]
            return Change(record, "timeout", events, 200, {}, seat=seat)
        if policy == "resign":
            change = apply_seat_action(record, game, state, seat, Resign(), version)
            change.events += [event("timeout_applied", **timeout), *noticed]
            return change
        action = _timeout_action(game, state, seat, found.kind, policy)
        applied = game.apply(state, seat, action)
        change = _applied(record, game, state, seat, found, action, applied, version)
        if found.kind == "move":
            timeout["action"] = change.action  # an open move is public anyway
        change.events += [event("timeout_applied", **timeout), *noticed]
        # Kept while the turn goes on; ``remind_only`` gives each decision its full deadline.
        if policy != "remind_only" and seat not in record.late_turns():
            record.seating.setdefault("late_turns", []).append(seat)
        return change

    try:
        commit(store, game_id, mutate)
    except NothingToDo:
        return "stale"
    return "applied"


#: What ``skip`` plays, the first legal of these: a pass, or ending the turn without acting
#: (every game's notation has ``end``).
SKIPS = ("pass", "end")


def _timeout_action(game: Game[Any, Any], state: Any, seat: int, kind: str, policy: str) -> Any:
    """The action a timeout plays: for ``skip`` the game's pass or turn's end when legal at
    this point, else the game's default."""
    if policy == "skip" and kind == "move":
        legal = {game.notation(action): action for action in game.legal_actions(state, seat)}
        for notation in SKIPS:
            if notation in legal:
                return legal[notation]
    return game.default_action(state, seat, kind)


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
    return store.transact(game_id, _ending_late_turns(mutate), idem, notifications.planner(store))


def _ending_late_turns(mutate: Mutation) -> Mutation:
    """``mutate``, then a late turn ends once the game no longer waits for its seat."""

    def mutate_then_end(record: GameRecord | None, version: int) -> Change:
        change = mutate(record, version)
        late = change.record.late_turns()
        if late:
            waiting = {d["seat"] for d in change.record.pending}
            going_on = [s for s in late if s in waiting and change.record.status == "active"]
            if going_on:
                change.record.seating["late_turns"] = going_on
            else:
                del change.record.seating["late_turns"]
        return change

    return mutate_then_end


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
        if not record.secret:
            record.secret = sealed.new_secret()
        salt = sealed.derived_salt(record.secret, decision.ref, seat)
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
    settle(game, state, change)
    change.body |= {
        "type": record.type,
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
    listed: list[dict[str, Any]] = [{"seat": int(s), **choice} for s, choice in choices.items()]
    listed.sort(key=lambda c: c["seat"])
    return event("sealed_revealed", ref=ref, scheme=sealed.COMMITMENT_SCHEME, choices=listed)


def settle(game: Game[Any, Any], state: Any, change: Change) -> None:
    """Store the new state and what the game now waits for; schedule resolutions; finish."""
    record = change.record
    pending = game.pending(state)
    record.state = game.dump(state)
    record.pending = [d.to_json() for d in pending]
    change.resolve_add = [d.ref for d in pending if d.kind == "resolve" and d.seat == SYSTEM]
    if game.is_over(state):
        record.status = "finished"
        record.result = game.result(state)
        _release_stand_ins(record)
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
