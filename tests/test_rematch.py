"""A rematch and a finished game's rating changes over HTTP, with a real Redis (issues 32 and
34): the same players, options and settings and a new seed; asked twice, or by two players, the
one game; refused while the game runs (409) and to someone who did not play (403). A rated
game's rating changes are kept when it is rated and shown in its view; an unrated one's are
null."""

from __future__ import annotations

from typing import Any

from service.domain import ratings
from service.store import Store
from service.store.keys import ratings_changes_key
from tests.client import Kurier, Player


def _ended(kurier: Kurier, prefix: str, **settings: Any) -> tuple[str, list[Player]]:
    """A 2-player Attika game, seat 1 resigned: over at once, seat 0 won."""
    game_id, players = kurier.seated_game("attika", 2, prefix, **settings)
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", players[1], json={"action": {"type": "resign"}}
    )
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    return game_id, players


def _rematch(kurier: Kurier, game_id: str, who: Player | None) -> Any:
    return kurier.call("POST", f"/v1/games/{game_id}/rematch", who)


def test_a_rematch_has_the_same_players_and_options_and_a_new_seed(kurier: Kurier) -> None:
    game_id, (ann, bob) = _ended(kurier, "RM", public=False, deadline={"hours": 48})
    first = _rematch(kurier, game_id, bob)
    assert first.status_code == 201, first.text
    new = first.json()
    assert new | {"id": ""} == {"id": "", "rematch_of": game_id, "seat": 0, "status": "open"}
    assert _rematch(kurier, game_id, bob).json() == new | {"status": "open"}, "twice: one game"
    old_view, view = kurier.view(game_id, ann), kurier.view(new["id"], bob)
    assert old_view["rematch"] == new["id"] and view["rematch_of"] == game_id
    assert view["invited"] == [{"player_id": ann.id, "name": ann.name}]
    assert view["options"] == old_view["options"] and view["max_seats"] == 2
    assert view["deadline"]["hours"] == 48
    assert view["seed_commitment"] != old_view["seed_commitment"]
    # Strangers cannot take the seat kept for Ann; Ann sits down by asking too.
    cid = kurier.new_player("RMC")
    join = kurier.call("POST", f"/v1/games/{new['id']}/seats", cid, json={})
    assert join.status_code == 403, join.text
    again = _rematch(kurier, game_id, ann)
    assert again.status_code == 200 and again.json()["id"] == new["id"], again.text
    assert again.json()["seat"] == 1
    assert _rematch(kurier, game_id, ann).json()["seat"] == 1, "asked again: the same seat"
    assert [s["player_id"] for s in kurier.view(new["id"])["seats"]] == [bob.id, ann.id]
    assert kurier.call("POST", f"/v1/games/{new['id']}/start", bob).status_code == 200
    record = kurier.call("GET", f"/v1/games/{new['id']}/record").json()
    assert record["seed"] is None, "the new seed stays secret while the game runs"
    events = kurier.call("GET", f"/v1/games/{game_id}/events", ann).json()["items"]
    offered = [e for entry in events for e in entry["events"] if e["kind"] == "rematch_offered"]
    assert offered == [{"kind": "rematch_offered", "data": {"game_id": new["id"], "seat": 1}}]


def test_two_players_asking_at_once_get_one_rematch(kurier: Kurier) -> None:
    from concurrent.futures import ThreadPoolExecutor

    game_id, players = _ended(kurier, "RT")
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda p: _rematch(kurier, game_id, p), players))
    assert sorted(a.status_code for a in answers) == [200, 201], [a.text for a in answers]
    assert answers[0].json()["id"] == answers[1].json()["id"]
    assert sorted(a.json()["seat"] for a in answers) == [0, 1]


def test_no_rematch_before_the_end_nor_for_someone_who_did_not_play(kurier: Kurier) -> None:
    running, (ann, _bob) = kurier.seated_game("attika", 2, "RN")
    r = _rematch(kurier, running, ann)
    assert r.status_code == 409 and r.json()["code"] == "game-not-finished", r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    ended, _ = _ended(kurier, "RO")
    stranger = kurier.new_player("RNX")
    r = _rematch(kurier, ended, stranger)
    assert r.status_code == 403 and r.json()["code"] == "not-a-player", r.text
    assert _rematch(kurier, ended, None).status_code == 401
    assert _rematch(kurier, "0123456789abcdef", ann).status_code == 404
    assert kurier.view(ended)["rematch"] is None


def test_rating_changes_are_kept_and_shown(kurier: Kurier, store: Store) -> None:
    game_id, (ann, bob) = _ended(kurier, "RR")
    ratings.rate_game(store, game_id)  # the worker's job, run here too: it rates once
    assert not ratings.rate_game(store, game_id), "rated once"
    changes = kurier.view(game_id)["rating_changes"]
    assert [c["player_id"] for c in changes] == [ann.id, bob.id], "best first"
    for change in changes:
        assert change["delta"] == change["after"] - change["before"]
        assert change["before"] == ratings.conservative(ratings.MODEL.mu, ratings.MODEL.sigma), (
            "a first game starts from the default rating"
        )
    assert changes[0]["delta"] > changes[1]["delta"]
    # The displayed scale: a newcomer reads 1500, and the loser of a first game stays positive.
    for change in changes:
        assert change["display_before"] == 1500
        assert change["display_after"] == ratings.display(change["after"]) > 0
        assert change["display_delta"] == change["display_after"] - change["display_before"]
    assert changes[0]["display_delta"] > 0 > changes[1]["display_delta"]
    profile = kurier.call("GET", f"/v1/players/{ann.id}").json()
    assert profile["ratings"][0]["rating"] == changes[0]["after"]
    loser = kurier.call("GET", f"/v1/players/{bob.id}").json()["ratings"][0]
    assert loser["display_rating"] == changes[1]["display_after"] and loser["provisional"]
    unrated, _ = _ended(kurier, "RU", rated=False)
    ratings.rate_game(store, unrated)
    assert kurier.view(unrated)["rating_changes"] is None
    running, _ = kurier.seated_game("attika", 2, "RV")
    assert kurier.view(running)["rating_changes"] is None


def test_the_game_etag_changes_when_its_rating_changes_arrive(kurier: Kurier, store: Store) -> None:
    """A client polling a finished game with If-None-Match sees rating_changes arrive: the
    rating job changes no version, so the ETag says it (``"<version>-rated"``)."""
    game_id, (ann, _bob) = _ended(kurier, "RE")
    ratings.rate_game(store, game_id)  # (or the worker's job did it first: rated once)
    # Back to the moment between the end and the rating job: the changes not written yet.
    changes_key = ratings_changes_key("attika")
    written = store.r.hget(changes_key, game_id)
    assert written
    store.r.hdel(changes_key, game_id)
    before = kurier.call("GET", f"/v1/games/{game_id}", ann)
    etag = before.headers["ETag"]
    assert before.json()["rating_changes"] is None and etag == f'"{before.json()["version"]}"'
    same = kurier.call("GET", f"/v1/games/{game_id}", ann, headers={"If-None-Match": etag})
    assert same.status_code == 304
    store.r.hset(changes_key, game_id, written)  # what the rating job writes, arriving
    after = kurier.call("GET", f"/v1/games/{game_id}", ann, headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.json()["rating_changes"], after.text
    assert after.headers["ETag"] == f'"{before.json()["version"]}-rated"'
    again = kurier.call(
        "GET", f"/v1/games/{game_id}", ann, headers={"If-None-Match": after.headers["ETag"]}
    )
    assert again.status_code == 304


def test_a_player_invited_by_name_joins_without_the_code(kurier: Kurier) -> None:
    ann, bob, cid = (kurier.new_player(n) for n in ("IA", "IB", "IC"))
    body = {"type": "attila", "seats": 2, "invited": [bob.id]}
    r = kurier.call("POST", "/v1/games", ann, json=body)
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    assert kurier.view(game_id)["invited"] == [{"player_id": bob.id, "name": "IB"}]
    join = f"/v1/games/{game_id}/seats"
    assert kurier.call("POST", join, cid, json={}).status_code == 403, "not invited"
    assert kurier.call("POST", join, bob, json={}).status_code == 201
    for invited, code in (
        (["p_nobody"], "unknown-player"),
        ([bob.id, cid.id], "too-many-invited"),
    ):
        r = kurier.call("POST", "/v1/games", ann, json=body | {"invited": invited})
        assert r.status_code == 422 and r.json()["code"] == code, r.text
    # Bots take seats too: a bot, the creator and one guest fill three; a second guest is one
    # too many; a table of bots only, which its creator watches, invites nobody and is fine.
    bot = [{"seat": 1, "level": "easy"}]
    three = {"type": "attila", "seats": 3, "bots": bot}
    assert kurier.call("POST", "/v1/games", ann, json=three | {"invited": [bob.id]}).ok
    r = kurier.call("POST", "/v1/games", ann, json=three | {"invited": [bob.id, cid.id]})
    assert r.status_code == 422 and r.json()["code"] == "too-many-invited", r.text
    only_bots = [{"seat": seat, "level": "easy"} for seat in range(2)]
    r = kurier.call(
        "POST", "/v1/games", ann, json={"type": "attika", "seats": 2, "bots": only_bots}
    )
    assert r.status_code == 201, r.text


def test_the_board_still_marks_the_last_move_after_a_rematch(kurier: Kurier) -> None:
    game_id, (ann, _bob) = _ended(kurier, "RB")
    before = kurier.call("GET", f"/v1/games/{game_id}/board.svg").text
    assert _rematch(kurier, game_id, ann).status_code == 201
    after = kurier.call("GET", f"/v1/games/{game_id}/board.svg").text
    # The same picture but for its title's version: the link moved nothing on the board.
    version = kurier.view(game_id)["version"]
    assert after.replace(f"version {version}", "") == before.replace(f"version {version - 1}", "")
    # Stepping through the versions passes over it too (the link is no action to replay).
    for step in (version - 1, version):
        r = kurier.call("GET", f"/games/{game_id}/replay/{step}")
        assert r.status_code == 200, r.text[:500]


def test_a_rematch_against_a_bot_keeps_the_bot(kurier: Kurier) -> None:
    ann = kurier.new_player("RBot")
    body = {"type": "attika", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
    r = kurier.call("POST", "/v1/games", ann, json=body)
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    assert kurier.call("POST", f"/v1/games/{game_id}/start", ann).status_code == 200
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", ann, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    again = _rematch(kurier, game_id, ann)
    assert again.status_code == 201 and again.json()["seat"] == 0, again.text
    view = kurier.view(again.json()["id"])
    assert view["invited"] == [] and len(view["seats"]) == 2
    assert view["seats"][1]["player_id"] == kurier.view(game_id)["seats"][1]["player_id"]
