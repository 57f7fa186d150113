"""A game's lifecycle before play: creating it (the checks of its choices, its bots and its
invited players), joining a seat, the lobby's open games, and starting it.
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.core import IllegalAction
from engine.sentences import N_
from service.common import sealed
from service.common.problems import Problem
from service.domain import blocks, inputs, reliability
from service.domain.games.play import commit, engine_problem, event, game_type, require, settle
from service.domain.games.views import bot_fields
from service.store import MAX_INDEX, Store, eventlog
from service.store.keys import GAME_SEQ
from service.store.record import Change, GameRecord, Outcome


def create_game(
    store: Store,
    creator: Mapping[str, Any],
    type_id: str,
    options: Mapping[str, Any] | None,
    seed: str | None,
    seats: int,
    deadline: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
    bots: Sequence[Mapping[str, Any]] | None = None,
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
    bots: Sequence[Mapping[str, Any]] | None = None,
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
    if levels:
        settings = inputs.bot_pace(settings)
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
    blocks.check_invited(store, creator["id"], [guest["player_id"] for guest in guests])
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
    """Take the next free seat: with the invite code, or without one in an open-access game;
    a player whose reliability falls short of the game's ``reliability`` is refused.
    Refused where a player sits whom the joiner blocks or who blocks the joiner, unless
    ``keep_apart`` is False (a tournament's table, paired so for want of another pairing)."""
    if invite is not None:
        inputs.checked("invite_code", inputs.CODE.check, invite)
    apart = blocks.kept_apart(store, player) if keep_apart else set()
    mine = reliability.numbers(store, player["id"])

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
        reliability.require(record.settings.get("reliability"), mine)
        blocks.check_table(record.seats, apart)  # last: it tells nothing a refusal above would
        seat = len(record.seats)
        record.seats.append(player["id"])
        record.names.append(player["name"])
        joined = event("player_joined", seat=seat, name=player["name"])
        body = {"id": game_id, "version": version, "seat": seat}
        return Change(record, "joined", [joined], 201, body, index_players=[player["id"]])

    return commit(store, game_id, mutate)


def open_games(
    store: Store,
    after: int | None,
    limit: int,
    filters: Mapping[str, Any],
    player_id: str | None = None,
) -> dict[str, Any]:
    """The lobby: open-access games with a free seat, oldest first, matching ``filters``
    (``type``, ``seats``: the player count, ``deadline``: a policy or ``none``). For
    ``player_id``, each game says whether it is closed to them and why (``closed_to_you``)."""
    mine = reliability.numbers(store, player_id) if player_id else None
    rows = store.indexes.open_games(after)
    summaries = store.indexes.game_summaries([gid for gid, _ in rows])
    items: list[dict[str, Any]] = []
    examined = 0
    for (_, seq), summary in zip(rows, summaries, strict=True):
        examined, after = examined + 1, seq
        if summary is not None and _wanted(summary, filters):
            items.append(_lobby_item(summary, mine))
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


def _lobby_item(summary: Mapping[str, Any], mine: Mapping[str, Any] | None) -> dict[str, Any]:
    wanted = summary["settings"].get("reliability") or None
    item = {
        "id": summary["id"],
        "type": summary["type"],
        "max_seats": int(summary["max_seats"]),
        "seats": summary_seats(summary),
        "deadline": summary["deadline"] or None,
        "created_at": float(summary["created_at"]),
        "reliability": wanted,
    }
    if mine is not None:
        unmet = reliability.shortfall(wanted, mine)
        item["closed_to_you"] = (
            {"code": reliability.PROBLEM, "unmet": unmet, **mine} if unmet else None
        )
    return item


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
        settle(game, state, change)
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
