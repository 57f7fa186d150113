"""After the game: the hard bot's review of a player's decisions, made by a real worker for a
finished game on request, refused (and nothing of it stored) before the end, and judged from
exactly what the seat saw at each decision."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest
import requests
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry

from engine import bots as engine_bots
from engine.registry import get_game
from service.domain import review
from service.store import Store
from service.store.keys import events_key, game_key, review_key
from service.store.queues import BOT_QUEUE, queue, review_job_id
from service.store.record import PACKED_LOG
from tests.client import Kurier, Player, problem
from tests.receivers import wait_for


def _played_against_a_bot(
    api: Kurier, decisions: int, game_type: str = "attika"
) -> tuple[str, Player, dict[int, Any]]:
    """A two-player game against an easy bot (at once) in which the person made
    ``decisions`` moves or sealed choices, still in play; and the person's view of the game
    before each of them, by the version it was seen at."""
    me = api.new_player("Learner")
    body = {"type": game_type, "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
    created = api.call("POST", "/v1/games", me, json=body | {"bot_pace": "instant"})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert api.call("POST", f"/v1/games/{game_id}/start", me).status_code == 200
    seen: dict[int, Any] = {}
    for _ in range(decisions):
        view = wait_for(
            lambda: (v := api.view(game_id, me))["your_decision"] and v, 60, "the person's turn"
        )
        seen[view["version"]] = view["view"]
        played = api.play_first_legal(game_id, [me, me])
        assert played is not None and played[1].status_code in (200, 202), played
    return game_id, me, seen


def _review_when(
    api: Kurier, game_id: str, me: Player, status: str, seconds: float, what: str
) -> dict[str, Any]:
    """The player's review of the game once its status is ``status``, waited for."""

    def review_now() -> dict[str, Any] | None:
        r: dict[str, Any] = api.call("GET", f"/v1/games/{game_id}/review", me).json()
        return r if r["status"] == status else None

    found: dict[str, Any] = wait_for(review_now, seconds, what)
    return found


@pytest.mark.parametrize("game_type", ["attika", "attila"])
def test_a_review_is_made_for_a_finished_game_and_nothing_of_it_exists_before(
    base_url: str, worker: Any, store: Store, game_type: str
) -> None:
    api = Kurier(base_url)
    game_id, me, _ = _played_against_a_bot(api, 8, game_type)
    # In play: refused, and nothing is stored or owed.
    problem(api.call("POST", f"/v1/games/{game_id}/review", me), 409, "game-not-finished")
    problem(api.call("GET", f"/v1/games/{game_id}/review", me), 409, "game-not-finished")
    assert store.r.get(review_key(game_id, me.id)) is None
    owed = store.queue_raw.hkeys("kurier:owed:jobs")
    assert not [job for job in owed if job.startswith(f"review-{game_id}".encode())]
    web = _signed_in(base_url, me)
    page = web.get(f"{base_url}/games/{game_id}", timeout=10).text
    assert 'id="review"' not in page and f"/games/{game_id}/review" not in page
    # Over: a person at the table asks, a spectator may not.
    r = api.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    problem(api.call("GET", f"/v1/games/{game_id}/review", me), 404, "no-review")
    stranger = api.new_player("Stranger")
    problem(api.call("POST", f"/v1/games/{game_id}/review", stranger), 403, "not-a-player")
    page = web.get(f"{base_url}/games/{game_id}", timeout=10).text
    assert 'id="review"' in page and "Review my decisions" in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    asked = web.post(f"{base_url}/games/{game_id}/review", data={"csrf": csrf[1]}, timeout=10)
    assert asked.status_code == 200, asked.status_code  # back to the page
    done = _review_when(api, game_id, me, "ready", 120, "the review")
    mine = [
        e
        for e in api.all_events(game_id, me)
        if e["kind"] in ("move", "sealed") and e["seat"] == 0 and e["action"] != "resign"
    ]
    assert [d["version"] for d in done["decisions"]] == [e["version"] for e in mine]
    assert [d["played"] for d in done["decisions"]] == [e["action"] for e in mine]
    for decision in done["decisions"]:
        assert 0 <= decision["played_chance"] <= 1 and 0 <= decision["suggested_chance"] <= 1
        assert decision["agrees"] == (decision["played"] == decision["suggested"])
    again = api.call("POST", f"/v1/games/{game_id}/review", me)
    assert again.status_code == 202 and again.json() == done  # the same review, not redone
    page = web.get(f"{base_url}/games/{game_id}", timeout=10).text
    rows = re.findall(r'<tr class="(agrees|differs)">', page)
    assert len(rows) == len(done["decisions"])
    german = web.get(
        f"{base_url}/games/{game_id}", timeout=10, headers={"Accept-Language": "de"}
    ).text
    assert "Deine Entscheidungen aus Sicht des Bots (schwer)" in german


def _signed_in(base_url: str, player: Player) -> requests.Session:
    """A web session of ``player`` (the sign-in with a token)."""
    session = requests.Session()
    home = session.get(f"{base_url}/", timeout=10)
    csrf = re.search(r'name="csrf" value="([^"]+)"', home.text)
    fields = {"token": player.token, **({"csrf": csrf.group(1)} if csrf else {})}
    signed = session.post(f"{base_url}/signin/token", data=fields, timeout=10)
    assert signed.status_code == 200, signed.status_code
    return session


def test_each_decision_is_judged_from_what_the_seat_saw_then(
    base_url: str, worker: Any, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = Kurier(base_url)
    game_id, me, seen = _played_against_a_bot(api, 3)
    r = api.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": "resign"})
    assert r.status_code == 200, r.text
    served = api.all_events(game_id, me)  # the events the person's seat was served
    calls: list[dict[str, Any]] = []
    real = engine_bots.assess

    def spy(game_type: str, view: Any, events: Any, seat: int, *args: Any, **kw: Any) -> Any:
        calls.append({"view": view, "events": [e.to_json() for e in events], "seat": seat})
        return real(game_type, view, events, seat, *args, **kw)

    monkeypatch.setattr(review.engine_bots, "assess", spy)
    assert review.run(store, game_id, me.id) == "done"
    assert len(calls) == len(seen)
    for (version, view), call in zip(sorted(seen.items()), calls, strict=True):
        assert call["seat"] == 0
        assert call["view"] == view  # exactly the seat's own view before its move
        then = [e for entry in served if entry["version"] <= version for e in entry["events"]]
        assert call["events"] == then  # exactly the events the seat was served by then


@pytest.mark.parametrize("game_id", ["attila", "attika", "attila-wargame"])
def test_assess_names_a_legal_choice_and_win_chances_reproducibly(game_id: str) -> None:
    game = get_game(game_id)
    state = game.new_state(3 if game_id == "attila" else 2, "assess")
    seat = next(d.seat for d in game.pending(state) if d.seat >= 0)
    legal = game.legal_actions(state, seat)
    budget = engine_bots.Budget(seconds=30, iterations=20)

    def assessed() -> list[tuple[Any, float]]:
        view = game.view(state, seat)
        return engine_bots.assess(game_id, view, [], seat, legal[-2:], "s", budget=budget)

    first = assessed()
    assert first == assessed()  # the same inputs, the same answer
    assert len(first) == 3 and first[0][0] in legal
    assert [a for a, _ in first[1:]] == legal[-2:]
    assert all(0 <= chance <= 1 for _, chance in first)


def test_a_sealed_choice_is_reviewed_like_a_move(base_url: str, worker: Any, store: Store) -> None:
    """Attila's conflict cards: the person's sealed choices are judged too (from the seat's
    view before the choice, the other seat's choice unseen)."""
    api = Kurier(base_url)
    me = api.new_player("Sealer")
    body = {"type": "attila", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
    game_id = api.call("POST", "/v1/games", me, json=body | {"bot_pace": "instant"}).json()["id"]
    assert api.call("POST", f"/v1/games/{game_id}/start", me).status_code == 200
    pick = random.Random(7)
    for _ in range(200):  # bounded: decisions until the person has made a sealed choice
        if any(e["kind"] == "sealed" and e["seat"] == 0 for e in api.all_events(game_id, me)):
            break
        wait_for(lambda: api.view(game_id, me)["your_decision"], 60, "the person's turn")
        actions = api.call("GET", f"/v1/games/{game_id}/legal-actions", me).json()["actions"]
        notation = pick.choice(actions)["notation"]
        r = api.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": notation})
        assert r.status_code in (200, 202), r.text
    else:
        raise AssertionError("no sealed choice in 200 decisions")
    r = api.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    assert review.run(store, game_id, me.id) == "done"
    judged = {d["version"]: d for d in review.read(store, game_id, me.id)["decisions"]}
    sealed = [e for e in api.all_events(game_id, me) if e["kind"] == "sealed" and e["seat"] == 0]
    assert sealed and all(judged[e["version"]]["played"] == e["action"] for e in sealed)


def test_a_review_whose_job_fails_for_good_says_so_and_is_made_when_asked_again(
    base_url: str, worker: Any, store: Store
) -> None:
    """A log the worker cannot read (a crafted broken game): each run of the review's job
    fails; while rq retries it the review is pending, after its last retry it is "failed",
    owed no more, and shown so; asked again once the log is sound, it is made."""
    api = Kurier(base_url)
    game_id, me, _ = _played_against_a_bot(api, 2)
    r = api.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    wait_for(lambda: store.raw.hexists(game_key(game_id), PACKED_LOG), 30, "the packed log")
    version = r.json()["version"]
    store.raw.xadd(events_key(game_id), {"broken": "entry"}, id=f"{version + 1}-0")
    assert api.call("POST", f"/v1/games/{game_id}/review", me).status_code == 202
    job_id = review_job_id(game_id, me.id)
    bots = queue(store.queue_raw, BOT_QUEUE)
    retries = ScheduledJobRegistry(queue=bots)
    job_key = Job.key_for(job_id)

    def retry_scheduled(left: int) -> bool:
        scheduled = store.queue_raw.zscore(retries.key, job_id) is not None
        return scheduled and store.queue_raw.hget(job_key, "retries_left") == b"%d" % left

    for left in reversed(range(len(review.review_job(game_id, me.id).retry))):
        wait_for(lambda left=left: retry_scheduled(left), 30, f"a retry, {left} more left")
        assert api.call("GET", f"/v1/games/{game_id}/review", me).json()["status"] == "pending"
        store.queue_raw.zadd(retries.key, {job_id: time.time()})  # its back-off cut short
    failed = _review_when(api, game_id, me, "failed", 60, "the failed review")
    assert failed["decisions"] == [] and failed["failed_at"] >= failed["requested_at"]
    assert not store.queue_raw.hexists("kurier:owed:jobs", job_id)
    wait_for(lambda: job_id in FailedJobRegistry(queue=bots).get_job_ids(), 10, "rq's failure")
    store.raw.delete(events_key(game_id))  # the log sound again
    web = _signed_in(base_url, me)
    page = web.get(f"{base_url}/games/{game_id}", timeout=10).text
    assert "The review could not be made" in page and "Ask again" in page
    again = api.call("POST", f"/v1/games/{game_id}/review", me)
    assert again.status_code == 202 and again.json()["status"] == "pending", again.text
    assert job_id not in FailedJobRegistry(queue=bots).get_job_ids()
    done = _review_when(api, game_id, me, "ready", 120, "the review made on the second request")
    assert len(done["decisions"]) == 2 and "failed_at" not in done
