"""Tournaments for correspondence play (docs/tournaments.md): a round-robin or a
Swiss system of any game type at tables of its seat count, sign-up until a start, rounds
whose games are created by the same service functions as any game (service/domain/games/),
standings with tie-breaks. The pairing itself is pure: service/domain/pairing.py.

What happens when:

- ``create``: the organiser names the game, the seats, the format and (for Swiss) the rounds,
  the games' deadline and options, and optionally ``starts_at``: a job
  ``tournament-<id>-round-1`` (``pair_round``) is then scheduled for that moment.
- ``sign_up`` / ``withdraw`` until it starts; ``start`` by the organiser, or the scheduled job.
  Too few entrants at the scheduled start: the tournament is cancelled.
- Each round's tables are paired and written into the document first (one compare-and-set),
  then each table's game is created, its entrants seated and started; each entrant is told
  (``tournament.round_started``: mail and webhook by their preferences, workers/tournaments.py).
- A tournament game's end: the rating job (workers/ratings.py), which the commit that finishes a
  game owes, calls ``game_finished``: the table's ranks are recorded once; when a round's last
  table ends, the job ``tournament-<id>-round-<n+1>`` pairs the next round, or the tournament
  is finished. Every step reads what is stored and does only what is still missing, so a job
  that runs twice, or two at once, pairs a round once (the compare-and-set decides).

The document (service/store/tournaments.py) holds ids and names only: nothing private.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from engine.core import IllegalAction
from service.common.problems import Problem
from service.domain import inputs, pairing, ratings, reliability
from service.domain.games import lifecycle, play
from service.store import Store, owed
from service.store.owed import OwedJob, notice_job
from service.store.queues import (
    NOTIFY_QUEUE,
    TOURNAMENT_NOTIFY_JOB,
    TOURNAMENT_ROUND_JOB,
    tournament_notify_job_id,
    tournament_round_job_id,
)

FORMATS = ("round_robin", "swiss")
STATUSES = ("signup", "running", "finished", "cancelled")
ROUND_STARTED = "tournament.round_started"
NAME = inputs.Text(80)
#: Entrants at most: a round seats them all at once (64 players: 32 games), and the standings
#: and pairings are computed from the whole document on every change.
MAX_ENTRANTS = 64
MAX_ROUNDS = 30
#: A tournament's cap on the days leave may pause its games' clocks (0: leave pauses none).
LEAVE_MAX_DAYS = (0, int(inputs.VACATION_MAX_DAYS[1]))
#: How far ahead a start may be set (days).
MAX_START_DAYS = 365
MAX_TRIES = 16
#: Seconds a run's claim on a table it is seating holds (docs/tournaments.md).
CLAIM_SECONDS = 120


# -- reading -----------------------------------------------------------------------------------


def _read(store: Store, tournament_id: str) -> tuple[int, dict[str, Any]]:
    found = store.tournaments.get(tournament_id)
    if found is None:
        raise Problem(
            404,
            "tournament-not-found",
            f"no tournament {tournament_id!r}",
            tournament_id=tournament_id,
        )
    return found


def _update(
    store: Store, tournament_id: str, change: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Read, ``change`` the document in place (False: nothing to write), write it back if
    nobody wrote in between, else again from a fresh read. Returns the document as stored."""
    for _ in range(MAX_TRIES):
        version, doc = _read(store, tournament_id)
        if not change(doc):
            return doc
        if store.tournaments.replace(tournament_id, version, doc):
            return doc
    raise Problem(409, "concurrent-update", "the tournament kept changing; please retry")


def show(store: Store, tournament_id: str) -> dict[str, Any]:
    """A tournament with its entrants, standings and rounds (each table's game linked)."""
    return view(_read(store, tournament_id)[1])


def listing(store: Store, limit: int, before: float | None) -> dict[str, Any]:
    """Tournaments, newest first; page with ``before`` = the previous page's ``next_before``."""
    rows = store.tournaments.listed(before, limit)
    docs = store.tournaments.documents([tournament_id for tournament_id, _ in rows])
    items = [summary(doc) for doc in docs if doc is not None]
    more = len(rows) == limit
    return {"items": items, "next_before": rows[-1][1] if rows and more else None}


def summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    keys = (
        "id",
        "name",
        "type",
        "seats",
        "format",
        "rounds",
        "status",
        "organiser",
        "created_at",
        "starts_at",
        "started_at",
        "finished_at",
        "deadline",
        "rated",
        "options",
        "max_entrants",
        "reliability",
        "leave_max_days",
    )
    out = {key: doc.get(key) for key in keys}
    out["entrant_count"] = len(doc["entrants"])
    out["round"] = len(doc["played"])
    return out


def view(doc: Mapping[str, Any]) -> dict[str, Any]:
    names = {e["id"]: e["name"] for e in doc["entrants"]}
    out = summary(doc)
    out["entrants"] = [dict(e) for e in doc["entrants"]]
    out["standings"] = [
        {
            "rank": row.rank,
            "player_id": row.player,
            "name": names[row.player],
            "points": row.points,
            "games": row.games,
            "firsts": row.firsts,
            "byes": row.byes,
            "average_place": row.place_sum / row.games if row.games else None,
            "buchholz": row.buchholz,
            "sonneborn_berger": row.sonneborn_berger,
        }
        for row in standings(doc)
    ]
    out["played_rounds"] = [
        {
            "number": index + 1,
            "started_at": played["started_at"],
            "byes": [{"id": p, "name": names[p]} for p in played["byes"]],
            "kept_apart_failed": played.get("kept_apart_failed", 0),
            "tables": [_table_view(table, names, doc["seats"]) for table in played["tables"]],
        }
        for index, played in enumerate(doc["played"])
    ]
    return out


def _table_view(table: Mapping[str, Any], names: Mapping[str, str], size: int) -> dict[str, Any]:
    ranks = table.get("ranks")
    points = pairing.table_points(ranks) if ranks else {}
    return {
        "game_id": table.get("game_id"),
        "finished": ranks is not None,
        "players": [
            {
                "id": p,
                "name": names[p],
                "rank": ranks[p] + 1 if ranks else None,
                "points": points.get(p),
            }
            for p in table["players"]
        ],
    }


def standings(doc: Mapping[str, Any]) -> list[pairing.Standing]:
    ids = [e["id"] for e in doc["entrants"]]
    results = [t["ranks"] for played in doc["played"] for t in played["tables"] if t.get("ranks")]
    byes = [p for played in doc["played"] for p in played["byes"]]
    return pairing.standings(ids, doc["seats"], results, byes)


# -- creating and signing up -------------------------------------------------------------------


def create(
    store: Store,
    organiser: Mapping[str, Any],
    data: Mapping[str, Any],
) -> dict[str, Any]:
    """A new tournament open for sign-up. ``data``: name, type, seats, format, and optionally
    rounds (Swiss), options (the game's), deadline (the games'), rated, starts_at (an aware
    datetime), max_entrants. Checked by the schema's rules again (service/domain/inputs.py)."""
    name = inputs.checked("name", NAME.check, data.get("name"))
    type_id = inputs.checked("type", inputs.GAME_TYPE.check, data.get("type"))
    seats = inputs.checked("seats", lambda n: inputs.integer(n, *inputs.SEATS), data.get("seats"))
    form = inputs.checked("format", lambda v: inputs.one_of(v, FORMATS), data.get("format"))
    rounds = data.get("rounds")
    if rounds is not None:
        rounds = inputs.checked("rounds", lambda n: inputs.integer(n, 1, MAX_ROUNDS), rounds)
    most = data.get("max_entrants", MAX_ENTRANTS)
    most = inputs.checked("max_entrants", lambda n: inputs.integer(n, 2, MAX_ENTRANTS), most)
    deadline = data.get("deadline")
    if deadline is not None:
        deadline = inputs.checked("deadline", inputs.deadline, deadline)
    rated = inputs.checked("rated", inputs.boolean, data.get("rated", True))
    wanted = inputs.checked("reliability", inputs.reliability_filter, data.get("reliability", {}))
    leave_cap = data.get("leave_max_days")
    if leave_cap is not None:
        leave_cap = inputs.checked(
            "leave_max_days", lambda v: inputs.integer(v, *LEAVE_MAX_DAYS), leave_cap
        )
    game = play.game_type(type_id)
    try:
        chosen = game.resolve_options(data.get("options"))
        game.check_players(seats)
    except IllegalAction as error:
        raise play.engine_problem(error) from None
    if most < seats:
        raise Problem(
            422,
            "invalid-max-entrants",
            f"max_entrants: at least one table of {seats}",
            field="max_entrants",
        )
    now = time.time()
    starts_at = None
    if data.get("starts_at") is not None:
        when: datetime = inputs.checked("starts_at", inputs.moment, data["starts_at"])
        starts_at = when.timestamp()
        if not now < starts_at <= now + MAX_START_DAYS * 86_400:
            raise Problem(
                422,
                "invalid-starts-at",
                f"starts_at: a moment in the next {MAX_START_DAYS} days",
                field="starts_at",
            )
    tournament_id = "t_" + secrets.token_hex(6)
    doc: dict[str, Any] = {
        "id": tournament_id,
        "name": name,
        "type": game.id,
        "seats": seats,
        "format": form,
        "rounds": rounds,
        "options": chosen,
        "deadline": deadline,
        "rated": rated,
        "max_entrants": most,
        "reliability": wanted or None,
        "leave_max_days": leave_cap,
        "organiser": {"id": organiser["id"], "name": organiser["name"]},
        "created_at": now,
        "starts_at": starts_at,
        "started_at": None,
        "finished_at": None,
        "status": "signup",
        "entrants": [],
        "schedule": [],
        "played": [],
    }
    if not store.tournaments.create(tournament_id, doc, now):
        raise Problem(409, "tournament-id-collision", "please retry")
    if starts_at is not None:
        owed.owe_now(store.queue_raw, round_job(tournament_id, 1, at=starts_at))
    return view(doc)


def sign_up(store: Store, player: Mapping[str, Any], tournament_id: str) -> dict[str, Any]:
    """Sign ``player`` up; one whose reliability falls short of the tournament's is refused
    (403 ``reliability-required``)."""
    mine = reliability.numbers(store, player["id"])

    def change(doc: dict[str, Any]) -> bool:
        _signing_up(doc)
        reliability.require(doc.get("reliability"), mine)
        if any(e["id"] == player["id"] for e in doc["entrants"]):
            return False  # signed up already: the same answer
        if len(doc["entrants"]) >= doc["max_entrants"]:
            raise Problem(
                409,
                "tournament-full",
                "every place of this tournament is taken",
                max_entrants=doc["max_entrants"],
            )
        doc["entrants"].append({"id": player["id"], "name": player["name"]})
        return True

    return view(_update(store, tournament_id, change))


def withdraw(store: Store, player: Mapping[str, Any], tournament_id: str) -> dict[str, Any]:
    def change(doc: dict[str, Any]) -> bool:
        _signing_up(doc)
        kept = [e for e in doc["entrants"] if e["id"] != player["id"]]
        if len(kept) == len(doc["entrants"]):
            return False
        doc["entrants"] = kept
        return True

    return view(_update(store, tournament_id, change))


def _signing_up(doc: Mapping[str, Any]) -> None:
    """Sign-up is open until the tournament starts, and never past its start date (the job
    that starts it may run a moment later)."""
    late = doc["starts_at"] is not None and time.time() >= doc["starts_at"]
    if doc["status"] != "signup" or late:
        raise Problem(
            409,
            "tournament-started",
            "this tournament has started: sign-up and withdrawal are closed",
            tournament_status=doc["status"],
        )


# -- rounds ------------------------------------------------------------------------------------


def start(store: Store, player: Mapping[str, Any], tournament_id: str) -> dict[str, Any]:
    """The organiser starts the tournament now: round 1 is paired and its games begin."""
    _, doc = _read(store, tournament_id)
    if doc["organiser"]["id"] != player["id"]:
        raise Problem(403, "not-organiser", "only the tournament's organiser can start it")
    _signing_up(doc)
    return view(pair_round(store, tournament_id, 1, by_organiser=True))


def _too_few(doc: Mapping[str, Any]) -> Problem:
    return Problem(
        409,
        "not-enough-entrants",
        f"a table takes {doc['seats']} players; {len(doc['entrants'])} signed up",
        entrants=len(doc["entrants"]),
    )


def pair_round(
    store: Store, tournament_id: str, number: int, by_organiser: bool = False
) -> dict[str, Any]:
    """Round ``number``, whatever is missing of it: its pairing (round 1: the start; later:
    once the round before has ended), then its games, then the entrants told. Run by the job
    ``tournament-<id>-round-<number>`` and by ``start``; doing it twice does it once. A table
    another run is seating is left to it: ``seated`` says whether the round is complete (the
    job fails, to be retried, until it is). Entrants of whom one blocks the other are kept
    apart where the pairing allows it (service/domain/blocks.py)."""
    _, entered = _read(store, tournament_id)
    avoid = frozenset(store.blocks.among(e["id"] for e in entered["entrants"]))

    def change(doc: dict[str, Any]) -> bool:
        if number == 1 and doc["status"] == "signup":
            if by_organiser and len(doc["entrants"]) < doc["seats"]:
                raise _too_few(doc)  # the organiser is told; only a start date cancels
            return _begin(doc, avoid)
        if doc["status"] != "running" or len(doc["played"]) != number - 1 or number == 1:
            return False  # paired already, not due yet, or over
        if not all(t.get("ranks") for t in doc["played"][-1]["tables"]):
            return False
        doc["played"].append(_next_round(doc, avoid))
        return True

    doc = _update(store, tournament_id, change)
    if doc["status"] == "cancelled" or len(doc["played"]) < number:
        return doc
    if by_organiser:
        # The round's job, later: should this request die while seating, it finishes.
        later = round_job(tournament_id, 1, at=time.time() + CLAIM_SECONDS + 5)
        owed.owe_now(store.queue_raw, later)
    doc = _seat(store, tournament_id, number)
    if seated(doc, number) and not doc["played"][number - 1].get("told"):
        # Owed before they are marked: a run that dies between the two owes them again, and
        # their ids make that the same jobs (a mail goes once, a delivery exists once).
        for player in _round_players(doc["played"][number - 1]):
            owed.owe_now(store.queue_raw, notify_job(tournament_id, number, player))

        def told(doc: dict[str, Any]) -> bool:
            played = doc["played"][number - 1]
            if played.get("told"):
                return False
            played["told"] = True
            return True

        doc = _update(store, tournament_id, told)
    return doc


def _begin(doc: dict[str, Any], avoid: pairing.Pairs) -> bool:
    """Close sign-up and pair round 1 (or cancel: too few entrants at the start date)."""
    now = time.time()
    ids = [e["id"] for e in doc["entrants"]]
    size = doc["seats"]
    if len(ids) < size:
        doc["status"], doc["finished_at"] = "cancelled", now
        return True
    random.Random(doc["id"]).shuffle(ids)  # the seeding: sign-up order must not decide
    doc["entrants"].sort(key=lambda e: ids.index(e["id"]))
    if doc["format"] == "round_robin":
        doc["rounds"] = pairing.round_robin_rounds(len(ids), size)
        doc["schedule"] = [
            {"tables": [list(t) for t in r.tables], "byes": list(r.byes)}
            for r in pairing.round_robin(ids, size, doc["id"], avoid)
        ]
    else:
        most = pairing.round_robin_rounds(len(ids), size)
        doc["rounds"] = min(doc["rounds"] or pairing.swiss_rounds(len(ids), size), most)
    doc["status"], doc["started_at"] = "running", now
    doc["played"] = [_next_round(doc, avoid)]
    return True


def _next_round(doc: Mapping[str, Any], avoid: pairing.Pairs) -> dict[str, Any]:
    number = len(doc["played"]) + 1
    if doc["format"] == "round_robin":
        planned = doc["schedule"][number - 1]
        tables, byes = planned["tables"], planned["byes"]
    else:
        order = standings(doc)
        history = [
            pairing.Round(
                tuple(tuple(t["players"]) for t in played["tables"]), tuple(played["byes"])
            )
            for played in doc["played"]
        ]
        scores = {row.player: row.points for row in order}
        paired = pairing.swiss_round(
            [row.player for row in order], doc["seats"], scores, history, avoid
        )
        tables, byes = [list(t) for t in paired.tables], list(paired.byes)
    played = {
        "started_at": time.time(),
        "tables": [{"players": list(t), "game_id": None, "ranks": None} for t in tables],
        "byes": list(byes),
        "told": False,
    }
    failed = pairing.kept_apart_failed(tables, avoid)
    if failed:  # said in the round, naming nobody: a block is private
        played["kept_apart_failed"] = failed
    return played


def _round_players(played: Mapping[str, Any]) -> list[str]:
    return [p for t in played["tables"] for p in t["players"]] + list(played["byes"])


def seated(doc: Mapping[str, Any], number: int) -> bool:
    """Whether every table of round ``number`` has its game."""
    return all(t["game_id"] is not None for t in doc["played"][number - 1]["tables"])


def _seat(store: Store, tournament_id: str, number: int) -> dict[str, Any]:
    """Create, seat and start the game of every table of round ``number`` that has none yet,
    each through lifecycle.create_game / join_game / start_game like any other game.

    A table is claimed first (compare-and-set): two runs at once seat it once. A claim older
    than CLAIM_SECONDS is a dead run's, and is taken over (seating one table takes well under
    a second)."""
    _, doc = _read(store, tournament_id)
    names = {e["id"]: e["name"] for e in doc["entrants"]}
    for index in range(len(doc["played"][number - 1]["tables"])):
        token = secrets.token_hex(6)

        def claim(doc: dict[str, Any], index: int = index, token: str = token) -> bool:
            table = doc["played"][number - 1]["tables"][index]
            held = table.get("claim")
            if table["game_id"] is not None or (held and time.time() - held["at"] < CLAIM_SECONDS):
                return False
            table["claim"] = {"by": token, "at": time.time()}
            return True

        doc = _update(store, tournament_id, claim)
        table = doc["played"][number - 1]["tables"][index]
        if table["game_id"] is not None or table["claim"]["by"] != token:
            continue  # seated, or being seated by another run
        game_id = _table_game(store, doc, [{"id": p, "name": names[p]} for p in table["players"]])
        store.tournaments.link_game(game_id, tournament_id)

        def record(doc: dict[str, Any], index: int = index, game_id: str = game_id) -> bool:
            held = doc["played"][number - 1]["tables"][index]
            if held["game_id"] is not None:
                return False  # a run that took over a stale claim seated it first
            held["game_id"] = game_id
            return True

        doc = _update(store, tournament_id, record)
    return doc


def _table_game(store: Store, doc: Mapping[str, Any], players: list[dict[str, Any]]) -> str:
    """A table's game, created by its first player, joined by the others, started."""
    settings = {"rated": doc["rated"], "public": True}
    created = lifecycle.create_game(
        store,
        players[0],
        doc["type"],
        doc["options"],
        None,
        doc["seats"],
        leave_capped(doc["deadline"], doc.get("leave_max_days")),
        settings,
    ).body
    for player in players[1:]:
        lifecycle.join_game(store, player, created["id"], created["invite_code"], keep_apart=False)
    lifecycle.start_game(store, players[0], created["id"])
    return str(created["id"])


def leave_capped(deadline: Mapping[str, Any] | None, cap: int | None) -> dict[str, Any] | None:
    """The games' deadline with the tournament's leave cap: no leave (or vacation) pauses a
    clock beyond ``cap`` days (``vacation_max_days``, service/domain/deadlines.py); 0: none
    pauses it at all. No cap: the deadline as given."""
    if deadline is None or cap is None:
        return None if deadline is None else dict(deadline)
    most = min(float(deadline["vacation_max_days"]), cap)  # inputs.deadline filled it in
    return {**deadline, "vacation_max_days": most}


def game_finished(store: Store, game_id: str) -> bool:
    """A game has ended: if it is a tournament's, record its table's ranks (once) and, when the
    round is complete, owe the next round's pairing or finish the tournament. True if it was
    a tournament game. Called by the rating job (workers/ratings.py)."""
    tournament_id = store.tournaments.of_game(game_id)
    if tournament_id is None:
        return False
    try:
        record = store.get_game(game_id)
    except Problem:  # archived meanwhile: its result was recorded when it ended
        return True
    if record.status != "finished" or record.result is None:
        return True
    ranks = dict(ratings.ranked_players(record))

    def change(doc: dict[str, Any]) -> bool:
        for played in doc["played"]:
            for table in played["tables"]:
                if table["game_id"] == game_id and table["ranks"] is None:
                    table["ranks"] = {p: ranks[p] for p in table["players"]}
                    _maybe_finish(doc)
                    return True
        return False

    doc = _update(store, tournament_id, change)
    done = all(t["ranks"] for t in doc["played"][-1]["tables"]) if doc["played"] else False
    if doc["status"] == "running" and done:
        owed.owe_now(store.queue_raw, round_job(tournament_id, len(doc["played"]) + 1))
    return True


def _maybe_finish(doc: dict[str, Any]) -> None:
    if len(doc["played"]) < doc["rounds"]:
        return
    if all(t["ranks"] for played in doc["played"] for t in played["tables"]):
        doc["status"], doc["finished_at"] = "finished", time.time()


# -- jobs --------------------------------------------------------------------------------------


def round_job(tournament_id: str, number: int, at: float | None = None) -> OwedJob:
    """The pairing of round ``number`` (``pair_round``): its id says which, so owing it twice
    is one job."""
    return OwedJob(
        id=tournament_round_job_id(tournament_id, number),
        func=TOURNAMENT_ROUND_JOB,
        args=(tournament_id, number),
        queue=NOTIFY_QUEUE,  # never before a resolution
        timeout=300,
        result_ttl=0,
        failure_ttl=7 * 86_400,
        retry=(5, 30, 120, 600),
        description=f"pair round {number} of tournament {tournament_id}",
        at=at,
    )


def notify_job(tournament_id: str, number: int, player_id: str) -> OwedJob:
    return notice_job(
        tournament_notify_job_id(tournament_id, number, player_id),
        TOURNAMENT_NOTIFY_JOB,
        (tournament_id, number, player_id),
        f"round {number} of tournament {tournament_id} to {player_id}",
    )


def round_notice(store: Store, tournament_id: str, number: int, player_id: str) -> dict[str, Any]:
    """What the round-start notice tells one entrant: the tournament, the round, and their
    game (None: a bye) with who sits at it."""
    doc = _read(store, tournament_id)[1]
    names = {e["id"]: e["name"] for e in doc["entrants"]}
    played = doc["played"][number - 1]
    mine = next((t for t in played["tables"] if player_id in t["players"]), None)
    return {
        "tournament_id": tournament_id,
        "name": doc["name"],
        "type": doc["type"],
        "round": number,
        "rounds": doc["rounds"],
        "game_id": mine["game_id"] if mine else None,
        "opponents": [names[p] for p in mine["players"] if p != player_id] if mine else [],
    }
