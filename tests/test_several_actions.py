"""Several actions in one request: ``{"actions": [...]}`` on POST …/actions is one
atomic change, all or none, one version and one log entry per action."""

from __future__ import annotations

import random
import uuid
from typing import Any

from engine.attika import targets
from engine.verify import verify_record
from service.common.problems import Problem
from service.domain.games import play, views
from service.store import Store
from tests.client import Kurier, Player, play_to_end, wait_for_version


def _mover(k: Kurier, game_id: str, seated: list[Player]) -> tuple[Player, dict[str, Any]]:
    view = k.view(game_id)
    humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
    assert humans, view["waiting_for"]
    return seated[humans[0]["seat"]], view


def _two_moves(
    store: Store, k: Kurier, game_id: str, seated: list[Player]
) -> tuple[Player, list[str], int]:
    """A card play and what follows it for the same seat (the server judges both)."""
    mover, view = _mover(k, game_id, seated)
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()
    plays = [a["notation"] for a in legal["actions"] if a["action"]["type"] == "play"]
    record = store.get_game(game_id)
    seat = record.seat_of(mover.id)
    assert seat is not None
    for first in plays:  # a play that leaves the same seat to take or waive the influence
        after = play.staged(record, seat, [first])["actions"]
        if after:
            return mover, [first, after[0]["notation"]], view["version"]
    raise AssertionError("no card play left the seat a second step")


def test_a_list_is_all_or_nothing(kurier: Kurier, store: Store) -> None:
    game_id, seated = kurier.new_game(3, seed="several-1")
    mover, moves, version = _two_moves(store, kurier, game_id, seated)
    log_before = kurier.all_events(game_id)

    # A bad second action: nothing at all changes, and the problem says which one failed.
    for bad in ("no such move", {"type": "boost", "peoples": ["X"]}):
        r = kurier.call(
            "POST", f"/v1/games/{game_id}/actions", mover, json={"actions": [moves[0], bad]}
        )
        assert 400 <= r.status_code < 500, r.text
        assert r.headers["Content-Type"].startswith("application/problem+json")
        assert r.json()["index"] == 1, r.json()
        assert kurier.view(game_id)["version"] == version
        assert kurier.all_events(game_id) == log_before

    # Neither none, nor two of notation/action/actions, nor an empty or too long list.
    for body in (
        {"actions": []},
        {"actions": moves, "notation": moves[0]},
        {"actions": [moves[0]] * 21},
        {"actions": [7]},
    ):
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", mover, json=body)
        assert r.status_code == 422, (body, r.text)

    # Both together: two versions, two log entries, one answer with every event.
    key = {"Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{version}"'}
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", mover, json={"actions": moves}, headers=key
    )
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["version"] == version + 2
    entries = kurier.all_events(game_id, mover)[len(log_before) :]
    assert [e["version"] for e in entries] == [version + 1, version + 2]
    assert [e["action"] for e in entries] == moves
    assert len(answer["events"]) == sum(len(e["events"]) for e in entries)

    # The same key and body: the first answer again, nothing applied twice.
    again = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", mover, json={"actions": moves}, headers=key
    )
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == answer
    assert kurier.view(game_id)["version"] == version + 2
    # The same key with another body is refused.
    other = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", mover, json={"actions": moves[:1]}, headers=key
    )
    assert other.status_code == 422 and other.json()["code"] == "idempotency-key-reused"
    # A stale If-Match (the version before the pair) is refused before any action.
    stale = kurier.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        mover,
        json={"actions": moves},
        headers={"If-Match": f'"{version}"'},
    )
    assert stale.status_code == 412 and "index" not in stale.json()


def test_a_whole_game_in_lists_replays_and_keeps_sealed_choices_sealed(
    kurier: Kurier, store: Store
) -> None:
    """Every turn sent as one list (card, then influence or waive); sealed choices as lists of
    one: the record replays, every commitment checks, nobody else saw a choice early."""
    game_id, seated = kurier.new_game(3, seed="several-2")
    rng = random.Random(5)
    lists = sealed = 0
    for _ in range(400):  # bounded: a game is about 100 lists
        view = kurier.view(game_id)
        if view["status"] == "finished":
            break
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:
            wait_for_version(kurier, game_id, view["version"], _deadline())
            continue
        decision = humans[0]
        mover = seated[decision["seat"]]
        record = store.get_game(game_id)
        moves: list[str] = []
        for _step in range(4):  # build the seat's move as the web table does
            legal = play.staged(record, decision["seat"], moves)["actions"]
            if not legal:
                break
            moves.append(rng.choice(legal)["notation"])
            if decision["kind"] == "sealed":
                break
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", mover, json={"actions": moves})
        # A turn may end in a sealed choice of the same seat (its card started a conflict
        # where it lays first): the list then answers as that choice, 202.
        if r.status_code == 202:
            sealed += 1
            ref = r.json()["ref"]
            # Another seat's log shows the commitment, never the choice, until the reveal.
            other = seated[(decision["seat"] + 1) % 3]
            entry = kurier.all_events(game_id, other)[-1]
            if store.get_game(game_id).sealed.get(ref):
                assert entry["kind"] == "sealed" and entry["action"] is None
        else:
            assert r.status_code == 200 and decision["kind"] == "move", r.text
        lists += len(moves) > 1
    else:
        raise AssertionError("the game did not finish")
    assert lists > 10 and sealed > 0
    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    found = verify_record(record)
    assert found.ok, found.summary()
    # Versions are still the log's length.
    assert len(kurier.all_events(game_id)) == kurier.view(game_id)["version"]


def test_single_actions_still_play_whole_games(kurier: Kurier) -> None:
    game_id, seated = kurier.new_game(2, seed="several-3")
    view, verifier, sealed = play_to_end(kurier, game_id, seated, random.Random(3))
    assert view["status"] == "finished" and verifier.verified == sealed


def _deadline() -> float:
    import time

    return time.monotonic() + 30


def test_a_part_that_draws_is_not_tried(kurier: Kurier, store: Store) -> None:
    """The web table's trial plays on the whole state, hidden parts included: a part that
    turns a building up (or draws a tile or cards) would show what it draws before it is sent,
    and could be taken back. It is refused untried (``draws-hidden``, with its index), and so
    is all after it; what draws nothing is tried as before."""
    game_id, seated = kurier.new_game(2, seed="draws-hidden", game_type="attika")
    mover, _view = _mover(kurier, game_id, seated)
    record = store.get_game(game_id)
    seat = record.seat_of(mover.id)
    assert seat is not None
    legal = [a["notation"] for a in views.legal_actions(record, seat)["actions"]]
    reveal = next(n for n in legal if n.startswith("reveal "))
    build = next(n for n in legal if n.startswith("build "))
    assert play.staged_record(record, seat, [build], targets.DRAWS).version == record.version
    for moves in ([reveal], [reveal, "store"]):
        try:
            play.staged_record(record, seat, moves, targets.DRAWS)
        except Problem as refused:
            assert refused.problem_code == "draws-hidden"
            assert refused.extra == {"index": 0, "draws": True}
        else:
            raise AssertionError(f"{moves} tried")
    # Without the game's draws (the API's own legal actions), the trial goes on as before.
    assert play.staged_record(record, seat, [reveal]).version == record.version
