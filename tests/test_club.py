"""The club's API (issue 34): profiles with rank, history, stats and reliability; the games in
play to watch; a player's finished games; following. Real Redis and worker: games created
over HTTP, played to their end, rated by the worker."""

from __future__ import annotations

import json
from typing import Any

from service.domain import club, ratings
from service.store import Store
from service.store.keys import LIVE_GAMES
from tests.client import Kurier, Player
from tests.game_helpers import Table, play_random
from tests.test_profiles import _game, _get, _wait_counted, _walk


def _running(kurier: Kurier, players: list[Player], **settings: Any) -> tuple[str, str]:
    """A started 2-player Attila game (id, invite code) with ``settings``."""
    body = {"type": "attila", "seats": 2, **settings}
    r = kurier.call("POST", "/v1/games", players[0], json=body)
    assert r.status_code == 201, r.text
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    r = kurier.call("POST", f"/v1/games/{game_id}/seats", players[1], json={"invite_code": invite})
    assert r.status_code == 201, r.text
    assert kurier.call("POST", f"/v1/games/{game_id}/start", players[0]).status_code == 200
    return game_id, invite


def test_profile_shows_rank_history_stats_and_nothing_private(kurier: Kurier, store: Store) -> None:
    r = kurier.call("POST", "/v1/players", json={"name": "Dora", "email": "dora@example.org"})
    assert r.status_code == 201, r.text
    dora = Player(r.json()["id"], "Dora", r.json()["token"])
    eli = kurier.new_player("Eli")
    finished = [_game(kurier, store, [dora, eli], f"club-{i}") for i in range(2)]
    for game_id in finished:
        _wait_counted(store, game_id)
    running, invite = _running(kurier, [dora, eli])
    hidden, _ = _running(kurier, [dora, eli], public=False)
    secret = "a word for Eli alone"
    r = kurier.call(
        "POST", f"/v1/games/{running}/messages", dora, json={"text": secret, "to_seat": 1}
    )
    assert r.status_code == 201, r.text

    profile = _get(kurier, f"/v1/players/{dora.id}")
    assert profile["member_since"] > 0
    [rating] = profile["ratings"]
    assert rating["game_type"] == "attila" and rating["games"] == 2
    assert 1 <= rating["rank"] <= rating["rated_players"]
    assert [p["game_id"] for p in rating["history"]] == finished
    assert rating["history"][-1]["rating"] == rating["rating"]
    [row] = profile["played"]
    assert row == {"game_type": "attila", "seats": 2, "played": 2, "won": row["won"]}
    reliable = profile["reliability"]
    assert reliable["games"] == 2 and reliable["decisions"] > 0
    assert reliable["timeouts"] == 0 and reliable["on_time"] == 1.0
    assert reliable["abandoned"] == 0
    assert [g["id"] for g in profile["current_games"]] == [running]
    text = json.dumps(profile)
    record = store.get_game(running)
    for private in ("dora@example.org", "email", secret, invite, hidden, record.seed, "state"):
        assert private not in text, private
    # The page says no more than the API (the same service function).
    page = kurier.call("GET", f"/players/{dora.id}").text
    for private in ("dora@example.org", secret, invite, hidden, record.seed):
        assert private not in page, private


def test_counted_once_however_often_rated(kurier: Kurier, store: Store) -> None:
    fay, gus = kurier.new_player("Fay"), kurier.new_player("Gus")
    game_id = _game(kurier, store, [fay, gus], "club-once")
    _wait_counted(store, game_id)
    before = club.profile(store, fay.id)
    for _ in range(3):
        ratings.rate_game(store, game_id)
    after = club.profile(store, fay.id)
    assert after["played"] == before["played"] and after["reliability"] == before["reliability"]
    assert after["ratings"] == before["ratings"]


def test_live_games_newest_move_first_public_only(kurier: Kurier, store: Store) -> None:
    ida, jon = kurier.new_player("Ida"), kurier.new_player("Jon")
    first, _ = _running(kurier, [ida, jon])
    second, _ = _running(kurier, [ida, jon])
    hidden, _ = _running(kurier, [ida, jon], public=False)
    assert store.r.zscore(LIVE_GAMES, hidden) is None
    listed = [g["id"] for g in _walk(kurier, "/v1/games/live", 1)]
    assert listed.index(second) < listed.index(first) and hidden not in listed
    # A move in the first game brings it to the top.
    table = Table(first, [store.players.get(p.id) for p in (ida, jon)])
    assert play_random(store, table, 1) == 1
    assert _get(kurier, "/v1/games/live", limit=1)["items"][0]["id"] == first
    assert _get(kurier, "/v1/games/live", 400, after="nonsense")["code"] == "invalid-cursor"


def test_player_archive_and_leaderboard_by_seats(kurier: Kurier, store: Store) -> None:
    kim, lea = kurier.new_player("Kim"), kurier.new_player("Lea")
    done = [_game(kurier, store, [kim, lea], f"club-archive-{i}") for i in range(3)]
    for game_id in done:
        _wait_counted(store, game_id)
    archive = _walk(kurier, f"/v1/players/{kim.id}/games/finished", 2, type="attila")
    assert [g["id"] for g in archive] == done[::-1]
    assert _get(kurier, f"/v1/players/{kim.id}/games/finished", 422, type="nope")
    assert _get(kurier, "/v1/players/p_nobody/games/finished", 404)["code"] == "player-not-found"
    board = _walk(kurier, "/v1/leaderboards/attila", 5, seats=2, min_games=3)
    mine = {e["player_id"]: e for e in board}
    assert {kim.id, lea.id} <= set(mine)
    assert all(e["rank"] >= 1 for e in board)
    assert [e["rank"] for e in board] == sorted(e["rank"] for e in board)
    assert _get(kurier, "/v1/leaderboards/attila", 400, seats=9)["code"] == "invalid-seats"


def test_follow_and_see_their_games(kurier: Kurier) -> None:
    max_, ned, ola = kurier.new_player("Max"), kurier.new_player("Ned"), kurier.new_player("Ola")
    assert kurier.call("PUT", f"/v1/me/following/{ned.id}").status_code == 401
    assert kurier.call("PUT", f"/v1/me/following/{ned.id}", max_).status_code == 204
    assert kurier.call("PUT", f"/v1/me/following/{ned.id}", max_).status_code == 204
    r = kurier.call("PUT", f"/v1/me/following/{max_.id}", max_)
    assert r.status_code == 422 and r.json()["code"] == "cannot-follow-self"
    r = kurier.call("PUT", "/v1/me/following/p_nobody", max_)
    assert r.status_code == 404
    game_id, _ = _running(kurier, [ned, ola])
    hidden, _ = _running(kurier, [ned, ola], public=False)
    seen = kurier.call("GET", "/v1/me/following", max_).json()
    assert seen["players"] == [{"id": ned.id, "name": "Ned"}]
    ids = [g["id"] for g in seen["games"]]
    assert game_id in ids and hidden not in ids
    assert kurier.call("DELETE", f"/v1/me/following/{ned.id}", max_).status_code == 204
    assert kurier.call("GET", "/v1/me/following", max_).json() == {"players": [], "games": []}


def test_rating_plot_is_inline_svg_without_inline_style(app: Any) -> None:
    """The plot: nothing without history; a dot per game up to 60 (then the last only); no
    style attribute or element (the pages' CSP forbids inline style: club.css colours it)."""
    from service.http.web.club import rating_plot

    with app.test_request_context("/"):
        assert rating_plot([]) == ""
        first = {"at": 1.8e9, "game_id": "g", "rating": 3.0, "display_rating": 1560}
        one = str(rating_plot([first]))
        assert one.count("<circle") == 1 and "<polyline" in one
        many = [
            {"at": 1.8e9 + i, "game_id": f"g{i}", "rating": i / 10, "display_rating": 1500 + 2 * i}
            for i in range(100)
        ]
        svg = str(rating_plot(many))
        assert svg.count("<circle") == 1 and svg.count(",") >= 100
        for text in (one, svg):
            assert "style" not in text and text.startswith('<svg class="plot"')


#: Query values ``int()`` or ``str.isdigit()`` misread: other scripts' digits, signs, spaces.
NOT_ASCII_NUMBERS = ("\u00b2", "\u0663", "\uff13", " 3", "+3", "1_0", "3.0", "x")


def test_leaderboard_page_reads_numbers_as_the_api_does(kurier: Kurier) -> None:
    """Signed out, a malformed ``seats`` or ``min_games`` is a 400 page, as the API refuses it
    (422); a seat count the game does not have is 404 (the API: 400)."""
    for text in NOT_ASCII_NUMBERS:
        for name in ("seats", "min_games"):
            page = kurier.call("GET", "/leaderboards/attila", params={name: text})
            assert page.status_code == 400, (name, text, page.status_code)
            api = kurier.call("GET", "/v1/leaderboards/attila", params={name: text})
            assert api.status_code == 422, (name, text, api.status_code)
    assert kurier.call("GET", "/leaderboards/attila", params={"seats": "9"}).status_code == 404
    assert kurier.call("GET", "/leaderboards/attila", params={"seats": "-2"}).status_code == 404
    for query in ({"seats": "2"}, {"min_games": "3"}, {"min_games": "7"}, {"seats": ""}, {}):
        assert kurier.call("GET", "/leaderboards/attila", params=query).status_code == 200, query
