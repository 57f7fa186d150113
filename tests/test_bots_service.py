"""Computer opponents in the service: bot seats created through the API, their moves
made by rq jobs on a queue of their own, owed like resolutions, idempotent, from the seat's view
only, and a table of three hard bots played to its end through the real stack."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from rq import SimpleWorker
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.domain import bots, ratings, seats
from service.domain.games import lifecycle, views
from service.store import Store, game_jobs
from service.store.keys import GAME_SEQ
from service.store.queues import BOT_QUEUE, bot_job_id, queue
from tests.client import Kurier, Player
from tests.conftest import worker_process
from workers import bots as bot_jobs
from workers import shared


@pytest.fixture
def api(base_url: str, worker: Any) -> Kurier:
    """The API and a real `kurier worker` (which serves the bots queue too); every worker the
    tests start searches a few iterations a move (tests/conftest.py)."""
    return Kurier(base_url)


@pytest.fixture
def env_store(isolated_redis: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A Redis of its own and no worker: jobs run by hand, in this process."""
    monkeypatch.setenv("REDIS_URL", isolated_redis.url)
    monkeypatch.setattr(shared, "_store", None)
    return isolated_redis


def _wait(test: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = test()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {seconds} s")


def _moves_of(kurier: Kurier, game_id: str, seat: int, who: Player | None = None) -> list[Any]:
    return [
        e
        for e in kurier.all_events(game_id, who)
        if e["kind"] in ("move", "sealed") and e["seat"] == seat
    ]


# -- creating ------------------------------------------------------------------------------------


def test_the_api_creates_a_game_with_bots_and_shows_them_as_bots(api: Kurier) -> None:
    me = api.new_player("Host")
    body = {
        "type": "attila",
        "seats": 3,
        "bots": [{"seat": 1, "level": "medium"}, {"seat": 2, "level": "hard"}],
    }
    r = api.call("POST", "/v1/games", me, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["seat"] == 0
    view = api.view(r.json()["id"], me)
    shown = [(s["name"], s["is_bot"], s["bot_level"]) for s in view["seats"]]
    assert shown == [
        ("Host", False, None),
        ("Bot (medium)", True, "medium"),
        ("Bot (hard)", True, "hard"),
    ]
    assert view["your_seat"] == 0 and view["max_seats"] == 3

    # Bots before the creator: the creator takes the lowest free seat.
    body = {"type": "attika", "seats": 2, "bots": [{"seat": 0, "level": "easy"}]}
    r = api.call("POST", "/v1/games", me, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["seat"] == 1


@pytest.mark.parametrize(
    ("bots_given", "status", "code"),
    [
        ([{"seat": 1, "level": "grandmaster"}], 422, None),  # the schema's
        ([{"seat": 3, "level": "easy"}], 422, "invalid-bots"),  # no such seat
        ([{"seat": 1, "level": "easy"}, {"seat": 1, "level": "hard"}], 422, "invalid-bots"),
        ([{"seat": 2, "level": "easy"}], 422, "invalid-bots"),  # seat 1 would stay a hole
        ([{"seat": "1", "level": "easy"}], 422, None),
        ("hard", 422, None),
    ],
)
def test_bad_bot_seats_are_refused_with_problem_json_and_nothing_changes(
    api: Kurier, store: Store, bots_given: Any, status: int, code: str | None
) -> None:
    me = api.new_player("Careful")
    before = store.r.get(GAME_SEQ)
    r = api.call("POST", "/v1/games", me, json={"type": "attila", "seats": 3, "bots": bots_given})
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    if code:
        assert r.json()["code"] == code
    assert store.r.get(GAME_SEQ) == before  # refused before anything is written
    listed = api.call("GET", "/v1/games", me).json()
    assert listed["items"] == []


def test_a_game_with_a_bot_is_unrated_unless_the_creator_says_so(env_store: Store) -> None:
    me = env_store.players.create("Me", None)[0]
    plain = lifecycle.create_game(env_store, me, "attika", {}, None, 2, bots=[_bot(1, "easy")])
    asked = lifecycle.create_game(
        env_store, me, "attika", {}, None, 2, settings={"rated": True}, bots=[_bot(1, "easy")]
    )
    people = lifecycle.create_game(env_store, me, "attika", {}, None, 2)
    assert not ratings.is_rated(_record(env_store, plain.body["id"]))
    assert ratings.is_rated(_record(env_store, asked.body["id"]))
    lifecycle.join_game(
        env_store,
        env_store.players.create("Other", None)[0],
        people.body["id"],
        people.body["invite_code"],
    )
    assert ratings.is_rated(_record(env_store, people.body["id"]))


def _bot(seat: int, level: str) -> dict[str, Any]:
    return {"seat": seat, "level": level}


def _record(store: Store, game_id: str) -> Any:
    return store.get_game(game_id)


# -- the job -------------------------------------------------------------------------------------


def _bot_first(store: Store, level: str = "easy", game_type: str = "attika", **extra: Any) -> Any:
    """A started two-player game whose bot (seat 0) moves first; nothing has run its job. Its
    bot moves at once unless ``settings`` say otherwise."""
    me = store.players.create("Me", None)[0]
    extra.setdefault("settings", {"bot_pace": "instant"})
    for attempt in range(40):  # the deal picks who starts: a seed where the bot does
        created = lifecycle.create_game(
            store, me, game_type, {}, f"bot-first-{attempt}", 2, bots=[_bot(0, level)], **extra
        )
        lifecycle.start_game(store, me, created.body["id"])
        record = store.get_game(created.body["id"])
        if record.pending[0]["seat"] == 0:
            return me, record
    raise AssertionError("no seed lets the bot start")


def test_the_start_owes_the_bots_move_and_a_job_run_twice_moves_once(env_store: Store) -> None:
    _, record = _bot_first(env_store)
    job_id = bot_job_id(record.id, record.version, 0)
    assert job_id in queue(env_store.queue_raw, BOT_QUEUE).job_ids

    assert bot_jobs.move(record.id, record.version, 0) == "moved"
    assert bot_jobs.move(record.id, record.version, 0) == "stale"  # the same job again
    moved = env_store.get_game(record.id)
    assert moved.version == record.version + 1
    first = env_store.read_log(record.id, record.version)[1]
    # The queued copy runs in a real rq worker too, and finds nothing to do; the jobs the
    # bot's own move owed (an Attika turn is several actions) play on until the person's turn.
    bots_queue = queue(env_store.queue_raw, BOT_QUEUE)
    SimpleWorker([bots_queue], connection=env_store.queue_raw, serializer=JSONSerializer).work(
        burst=True
    )
    after = env_store.get_game(record.id)
    assert env_store.read_log(record.id, record.version, 1)[1] == first[:1]
    assert [d["seat"] for d in after.pending] == [1]
    _, entries = env_store.read_log(record.id, record.version)
    assert {e["seat"] for _, e in entries} == {"0"}
    assert len(entries) == after.version - record.version  # one entry per job: none twice
    assert not [j for j in env_store.queue_raw.hkeys("kurier:owed:jobs") if j.startswith(b"bot-")]


def test_a_stale_job_does_nothing(env_store: Store) -> None:
    _, record = _bot_first(env_store)
    assert bot_jobs.move(record.id, record.version - 1, 0) == "stale"  # an older version
    assert bot_jobs.move(record.id, record.version, 1) == "stale"  # a person's seat
    assert env_store.get_game(record.id).version == record.version


def test_a_bot_paced_like_correspondence_is_scheduled(env_store: Store) -> None:
    _, record = _bot_first(env_store, settings={"bot_delay_seconds": 3600})
    scheduled = ScheduledJobRegistry(queue=queue(env_store.queue_raw, BOT_QUEUE))
    job_id = bot_job_id(record.id, record.version, 0)
    assert env_store.queue_raw.zscore(scheduled.key, job_id) is not None
    due = env_store.queue_raw.zscore("kurier:owed", job_id)
    assert 3590 < due - time.time() <= 3600


def test_a_bot_paced_like_a_person_waits_a_few_seconds_drawn_from_its_own_seed(
    env_store: Store,
) -> None:
    _, record = _bot_first(env_store, settings={})  # no pace given: like a person at the table
    assert record.settings["bot_pace"] == "seconds"
    job_id = bot_job_id(record.id, record.version, 0)
    assert job_id not in queue(env_store.queue_raw, BOT_QUEUE).job_ids  # not at once
    scheduled = ScheduledJobRegistry(queue=queue(env_store.queue_raw, BOT_QUEUE))
    assert env_store.queue_raw.zscore(scheduled.key, job_id) is not None
    due = env_store.queue_raw.zscore("kurier:owed", job_id)
    wait = game_jobs.bot_wait(record.settings, record.id, record.version, 0)
    assert 2 <= wait <= 6 and abs(due - (record.updated_at + wait)) < 1
    waits = [game_jobs.bot_wait({"bot_pace": "seconds"}, "g1", v, 1) for v in range(200)]
    assert waits == [game_jobs.bot_wait({"bot_pace": "seconds"}, "g1", v, 1) for v in range(200)]
    assert min(waits) >= 2 and max(waits) <= 6 and max(waits) - min(waits) > 3  # spread
    slow = [game_jobs.bot_wait({"bot_pace": "correspondence"}, "g1", v, 1) for v in range(200)]
    assert min(slow) >= 600 and max(slow) <= 6 * 3600 and max(slow) - min(slow) > 3600
    assert game_jobs.bot_wait({"bot_pace": "instant"}, "g1", 3, 1) == 0


def test_a_bots_move_made_before_its_scheduled_job_fires_makes_the_job_stale(
    env_store: Store,
) -> None:
    _, record = _bot_first(env_store, settings={"bot_pace": "correspondence"})
    assert bots.play_turn(env_store, record.id, record.version, 0) == "moved"  # moved earlier
    assert bot_jobs.move(record.id, record.version, 0) == "stale"  # the scheduled one fires
    assert len(env_store.read_log(record.id, record.version)[1]) == 1


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ({"bot_pace": "slowly"}, "invalid-json"),
        ({"bot_pace": "seconds", "bot_delay_seconds": 60}, "invalid-bot-delay-seconds"),
    ],
)
def test_a_bad_pace_is_refused_and_nothing_is_created(
    api: Kurier, store: Store, extra: dict[str, Any], code: str
) -> None:
    me = api.new_player("Pacer")
    before = store.r.get(GAME_SEQ)
    body = {"type": "attika", "seats": 2, "bots": [_bot(1, "easy")], **extra}
    r = api.call("POST", "/v1/games", me, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == code, r.text
    assert store.r.get(GAME_SEQ) == before


def test_the_game_view_says_the_pace_and_that_a_bot_game_is_unrated(api: Kurier) -> None:
    me = api.new_player("Viewer")
    body = {"type": "attika", "seats": 2, "bots": [_bot(1, "easy")]}
    game_id = api.call("POST", "/v1/games", me, json=body).json()["id"]
    view = api.view(game_id, me)
    assert view["bot_pace"] == "seconds" and view["rated"] is False
    people = api.call("POST", "/v1/games", me, json={"type": "attika", "seats": 2}).json()
    view = api.view(people["id"], me)
    assert view["bot_pace"] is None and view["rated"] is True


def test_the_bot_is_given_only_its_seats_view_and_the_events_it_may_see(
    env_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attila: hands are hidden. The engine's bot is called with exactly what the seat's client
    reads (its view, the events redacted for it), and nothing of the seed or the other hand."""
    _, record = _bot_first(env_store, level="hard", game_type="attila")
    seen: list[tuple[Any, ...]] = []
    real = bots.engine_bots.choose

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(bots.engine_bots, "choose", spy)
    assert bots.play_turn(env_store, record.id, record.version, 0) == "moved"
    ((args, kwargs),) = seen
    game_type, view, events, seat, level, seed = args
    assert (game_type, seat, level) == ("attila", 0, "hard")
    assert seed != record.seed and record.seed not in json.dumps([view, kwargs["options"]])
    # Exactly the view and events a player in seat 0 would be served.
    served = views.game_view(record, 0, record.seats[0])["view"]
    assert view == served
    _, entries = env_store.read_log(record.id, 0, record.version)
    expected = [raw for v, e in entries for raw in views.redact_entry(record, v, e, 0)["events"]]
    assert [e.to_json() for e in events] == expected
    # Nothing of the other seat's hand: its view differs and is nowhere in the bot's inputs.
    state = record.game.load(record.state)
    other_hand = record.game.view(state, 1)
    assert other_hand != served
    text = json.dumps([view, [e.to_json() for e in events]])
    assert json.dumps(other_hand) not in text
    # And the move is reproducible from those inputs alone.
    again = real(game_type, view, events, seat, level, seed, **kwargs)
    after = env_store.read_log(record.id, record.version)[1]
    assert after[0][1]["action"] == record.game.notation(again)


def test_a_person_takes_over_a_bots_seat_through_the_seat_offer(env_store: Store) -> None:
    me, record = _bot_first(env_store)
    offer = seats.offer_seat(env_store, me, record.id, 0).body
    newcomer = env_store.players.create("Newcomer", None)[0]
    seats.take_seat(env_store, newcomer, record.id, 0, offer["invite_code"])
    after = env_store.get_game(record.id)
    assert after.bot_level(0) is None and after.names[0] == "Newcomer"
    assert bot_jobs.move(record.id, record.version, 0) == "stale"  # the bot's old job
    owed = env_store.queue_raw.hkeys("kurier:owed:jobs")
    assert bot_job_id(record.id, after.version, 0).encode() not in owed  # no bot plays it now
    view = views.game_view(after, 0, newcomer["id"])
    assert view["seats"][0]["is_bot"] is False


# -- through the real stack ----------------------------------------------------------------------


def test_a_bot_answers_in_a_two_player_game(api: Kurier) -> None:
    me = api.new_player("Human")
    body = {"type": "attika", "seats": 2, "bots": [_bot(1, "medium")], "bot_pace": "instant"}
    created = api.call("POST", "/v1/games", me, json=body).json()
    game_id = created["id"]
    assert api.call("POST", f"/v1/games/{game_id}/start", me).status_code == 200
    for _ in range(40):  # bounded: the human plays until the bot has answered twice
        if len(_moves_of(api, game_id, 1, me)) >= 2:
            break
        view = api.view(game_id, me)
        if any(d["seat"] == 0 for d in view["waiting_for"]):
            played = api.play_first_legal(game_id, [me, me])
            assert played is not None and played[1].status_code in (200, 202), played
            continue
        version = view["version"]
        _wait(lambda v=version: api.view(game_id, me)["version"] > v, 30, "the bot's move")
    assert len(_moves_of(api, game_id, 1, me)) >= 2


def test_an_owed_bot_move_is_made_by_a_worker_started_after_one_died(
    env_store: Store,
) -> None:
    """The worker that took the job off the queue died before it started it (its BLPOP
    answered, the job in no registry): the next worker's start enqueues it again."""
    _, record = _bot_first(env_store)
    bots_queue = queue(env_store.queue_raw, BOT_QUEUE)
    job_id = bot_job_id(record.id, record.version, 0)
    assert env_store.queue_raw.lpop(bots_queue.key) == job_id.encode()  # the dead worker's
    time.sleep(0.5)
    assert env_store.get_game(record.id).version == record.version  # nobody moved
    with worker_process(env_store):
        # The bot's turn (Attika: several actions, each owing the next) to the person's.
        _wait(lambda: env_store.get_game(record.id).pending[0]["seat"] == 1, 60, "the bot's turn")
    _, entries = env_store.read_log(record.id, record.version)
    assert entries[0][1]["seat"] == "0" and {e["seat"] for _, e in entries} == {"0"}
    _wait(lambda: env_store.queue_raw.hget("kurier:owed:jobs", job_id) is None, 10, "settled")


def test_three_hard_bots_play_attila_to_its_end_through_the_real_stack(
    api: Kurier, store: Store
) -> None:
    host = api.new_player("Watcher")
    body = {
        "type": "attila",
        "seats": 3,
        "bots": [_bot(0, "hard"), _bot(1, "hard"), _bot(2, "hard")],
        "bot_pace": "instant",
    }
    r = api.call("POST", "/v1/games", host, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["seat"] is None  # the creator watches
    game_id = r.json()["id"]
    assert api.call("POST", f"/v1/games/{game_id}/start", host).status_code == 200
    _wait(lambda: api.view(game_id)["status"] == "finished", 300, "the bots' game to end")
    final = api.view(game_id)
    assert final["result"]["winners"]
    assert all(s["is_bot"] for s in final["seats"])
    record = store.get_game(game_id)
    assert not ratings.is_rated(record)
    played = {e["seat"] for e in api.all_events(game_id) if e["kind"] in ("move", "sealed")}
    assert played == {0, 1, 2}


def test_a_bots_turn_runs_no_deadline_clock(env_store: Store) -> None:
    """A deadline is for people: while the game waits only for a bot, no clock runs (the bot
    would otherwise be timed out, or abandoned, at a slow pace)."""
    _, record = _bot_first(env_store, deadline={"hours": 1})
    assert record.deadline_at is None
    for _ in range(50):  # bounded: the bot's turn (an Attika turn is several actions)
        owed = _owed_bot(env_store, record.id)
        if owed is None:
            break
        assert bot_jobs.move(*owed) == "moved"
    after = env_store.get_game(record.id)
    assert [d["seat"] for d in after.pending] == [1]
    assert after.deadline_at is not None  # the person's turn: the clock runs


def _owed_bot(store: Store, game_id: str) -> tuple[str, int, int] | None:
    """The bot job owed now for ``game_id`` at its current version, if any."""
    record = store.get_game(game_id)
    waiting = [d["seat"] for d in record.pending if record.bot_level(d["seat"])]
    return (game_id, record.version, waiting[0]) if waiting else None


# -- play now ------------------------------------------------------------------------------------


@pytest.mark.parametrize("type_id", ["attila", "attika", "attila-wargame"])
def test_play_now_seats_the_player_where_the_game_starts(env_store: Store, type_id: str) -> None:
    """Play now's promise, "you move first": in every game it starts, whatever seat the deal
    makes the first player, the player sits there and no bot has moved before them (the
    wargame's first step has both sides decide at once)."""
    me = env_store.players.create("Now", None)[0]
    for _ in range(6):  # several seeds: the first player is drawn by the deal
        record = env_store.get_game(bots.play_now(env_store, me, type_id).body["id"])
        seat = record.seat_of(me["id"])
        view = views.game_view(record, seat, me["id"])
        acting = [d["seat"] for d in view["waiting_for"]]
        assert seat is not None and seat in acting  # alone, or at once with the bots (setup)
        assert record.version == 2, "created and started: no bot has moved"
