"""Every player's name on a game's page links to their profile (the players, the table talk,
the standings at the end); a bot's seat has no profile and is no link."""

from __future__ import annotations

import re
from typing import Any

from tests.client import Kurier
from tests.receivers import wait_for


def _links(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<a class="player" href="/players/([^"]+)">([^<]+)</a>', html)


def test_names_on_the_game_page_link_to_profiles_and_bots_do_not(base_url: str) -> None:
    kurier = Kurier(base_url)
    ann = kurier.new_player("LinkAnn")
    body = {
        "type": "attila",
        "seats": 3,
        "bots": [{"seat": 1, "level": "easy"}],
        "spectators_see_messages": True,
    }
    answer = kurier.call("POST", "/v1/games", ann, json=body)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    bob = kurier.new_player("LinkBob")
    joined = kurier.call(
        "POST",
        f"/v1/games/{created['id']}/seats",
        bob,
        json={"invite_code": created["invite_code"]},
    )
    assert joined.status_code == 201, joined.text
    assert kurier.call("POST", f"/v1/games/{created['id']}/start", ann).status_code == 200
    said = kurier.call("POST", f"/v1/games/{created['id']}/messages", bob, json={"text": "hi"})
    assert said.status_code == 201, said.text
    page = kurier.call("GET", f"/games/{created['id']}")  # as a spectator
    assert page.status_code == 200
    links = _links(page.text)
    assert (ann.id, "LinkAnn") in links and (bob.id, "LinkBob") in links
    assert links.count((bob.id, "LinkBob")) == 2, "the players list and the talk"
    assert "Bot (easy)" in page.text
    assert not any(name.startswith("Bot") for _, name in links), "a bot's seat is no link"


def test_the_lobby_links_the_names_of_its_games(base_url: str) -> None:
    """The lobby's own games: the game's type links to it, each person's name to their
    profile, a bot's name to nothing (read as a signed-in player: the session's cookie)."""
    import requests

    kurier = Kurier(base_url)
    ann = kurier.new_player("LobbyAnn")
    body = {"type": "attika", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
    created = kurier.call("POST", "/v1/games", ann, json=body)
    assert created.status_code == 201, created.text
    session = requests.Session()
    home = session.get(f"{base_url}/", timeout=10)
    csrf = re.search(r'name="csrf" value="([^"]+)"', home.text)
    fields = {"token": ann.token, **({"csrf": csrf.group(1)} if csrf else {})}
    signed = session.post(f"{base_url}/signin/token", data=fields, timeout=10)
    assert signed.status_code == 200 and "Your games" in signed.text, signed.status_code
    links = _links(signed.text)
    assert (ann.id, "LobbyAnn") in links
    assert not any(name.startswith("Bot") for _, name in links)
    assert f'href="/games/{created.json()["id"]}">attika</a>' in signed.text


def test_the_replay_links_the_mover(base_url: str) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2)
    played = kurier.play_first_legal(game_id, players)
    assert played is not None and played[1].status_code == 200, played
    mover, answer = played
    page = kurier.call("GET", f"/games/{game_id}/replay/{answer.json()['version']}")
    assert page.status_code == 200, page.status_code
    moved = re.search(r'<p class="step-move">(.*?)</p>', page.text, re.S)
    assert moved is not None
    assert _links(moved.group(1)) == [(mover.id, mover.name)]


def test_the_watch_list_links_each_person_and_not_a_bot(base_url: str) -> None:
    """The club's live games (``GET /v1/games/live``'s ``player_ids``, the watch page, the
    profile's current games): each person's name links to their profile, a bot's is plain."""
    kurier = Kurier(base_url)
    ann = kurier.new_player("WatchAnn")
    body = {"type": "attila", "seats": 2, "bots": [{"seat": 1, "level": "easy"}], "public": True}
    created = kurier.call("POST", "/v1/games", ann, json=body)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    if kurier.view(game_id)["status"] == "open":
        assert kurier.call("POST", f"/v1/games/{game_id}/start", ann).status_code == 200
    live = kurier.call("GET", "/v1/games/live", params={"limit": 100}).json()["items"]
    (item,) = [i for i in live if i["id"] == game_id]
    assert item["player_ids"] == [ann.id, None]
    page = kurier.call("GET", "/watch")
    assert page.status_code == 200
    row = re.search(rf'<li><a href="/games/{game_id}">.*?</li>', page.text, re.S)
    assert row is not None, "the game is listed"
    assert _links(row.group(0)) == [(ann.id, "WatchAnn")]
    assert "Bot (easy)" in row.group(0)
    profile = kurier.call("GET", f"/players/{ann.id}")
    current = re.search(rf'<li><a href="/games/{game_id}">.*?</li>', profile.text, re.S)
    assert current is not None and _links(current.group(0)) == [(ann.id, "WatchAnn")]


def test_a_tournaments_pairings_byes_and_standings_link_each_player(
    base_url: str, worker: Any
) -> None:
    """Three players, two a table: the round's table, its bye and every standings row link
    the players' names to their profiles; the table's game is linked beside them."""
    kurier = Kurier(base_url)
    org = kurier.new_player("CupOrga")
    made = {"name": "Linked cup", "type": "attila", "seats": 2, "format": "round_robin"}
    tid = kurier.call("POST", "/v1/tournaments", org, json=made).json()["id"]
    trio = [kurier.new_player(name) for name in ("CupUma", "CupVic", "CupWes")]
    for p in trio:
        assert kurier.call("POST", f"/v1/tournaments/{tid}/entrants", p).status_code == 200
    assert kurier.call("POST", f"/v1/tournaments/{tid}/start", org).status_code == 200

    def seated() -> dict[str, Any] | None:
        shown = kurier.call("GET", f"/v1/tournaments/{tid}").json()
        rounds = shown["played_rounds"]
        return shown if rounds and rounds[0]["tables"][0]["game_id"] else None

    shown = wait_for(seated, 60, "the first round's game")
    (table,) = shown["played_rounds"][0]["tables"]
    (bye,) = shown["played_rounds"][0]["byes"]
    page = kurier.call("GET", f"/tournaments/{tid}")
    assert page.status_code == 200
    everyone = {(p.id, p.name) for p in trio}
    standings = re.search(r'<table class="board standings">.*?</table>', page.text, re.S)
    assert standings is not None and set(_links(standings.group(0))) == everyone
    pairings = re.search(r'<ul class="games rounds">.*?</ul>', page.text, re.S)
    assert pairings is not None
    assert set(_links(pairings.group(0))) == everyone  # the table's two and the bye
    row = re.search(r"<li>.*?</li>", pairings.group(0), re.S)
    assert row is not None
    assert {name for _, name in _links(row.group(0))} == {p["name"] for p in table["players"]}
    assert f'href="/games/{table["game_id"]}"' in row.group(0)
    assert bye["name"] not in row.group(0)
