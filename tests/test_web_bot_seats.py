"""A bot's seat on the web: its name shows its level in the reader's language wherever the
names macro renders a seat (table, lobby, replay, end screen: one macro), and a finished game
against a bot says on its end screen that it is unrated."""

from __future__ import annotations

import re
from typing import Any

import requests

from tests.client import Kurier, Player
from tests.receivers import wait_for

_BOT_NAME = r'<span class="bot-name" data-level="(\w+)">([^<]+)</span>'


def _page(base_url: str, path: str, language: str) -> str:
    answer = requests.get(base_url + path, timeout=10, headers={"Accept-Language": language})
    assert answer.status_code == 200, answer.text[:300]
    return answer.text


def _game(kurier: Kurier, body: dict[str, Any]) -> tuple[str, Player]:
    me = kurier.new_player("Seated")
    created = kurier.call("POST", "/v1/games", me, json=body)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert kurier.call("POST", f"/v1/games/{game_id}/start", me).status_code == 200
    return game_id, me


def test_the_table_names_each_bot_with_its_level_in_the_readers_language(
    base_url: str,
) -> None:
    kurier = Kurier(base_url)
    two_easy = [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "easy"}]
    body = {"type": "attila", "seats": 3, "bots": two_easy, "bot_pace": "correspondence"}
    game_id, _ = _game(kurier, body)
    english = re.findall(_BOT_NAME, _page(base_url, f"/games/{game_id}", "en"))
    assert ("easy", "Bot 2 (easy)") in english and ("easy", "Bot 3 (easy)") in english
    german = re.findall(_BOT_NAME, _page(base_url, f"/games/{game_id}", "de-DE,de;q=0.9"))
    assert ("easy", "Bot 2 (leicht)") in german and ("easy", "Bot 3 (leicht)") in german


def test_the_end_screen_of_a_game_against_a_bot_says_it_is_unrated(base_url: str) -> None:
    kurier = Kurier(base_url)
    body = {"type": "attika", "seats": 2, "bots": [{"seat": 1, "level": "hard"}]}
    body["bot_pace"] = "correspondence"  # the bot never moves before the resignation
    game_id, me = _game(kurier, body)
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    assert kurier.view(game_id)["rated"] is False
    english = _page(base_url, f"/games/{game_id}", "en")
    assert ("hard", "Bot (hard)") in re.findall(_BOT_NAME, english)
    assert "Unrated: a game against a computer opponent changes no rating." in english
    german = _page(base_url, f"/games/{game_id}", "de")
    assert ("hard", "Bot (schwer)") in re.findall(_BOT_NAME, german)
    assert "Ungewertet: ein Spiel gegen einen Computergegner" in german


def test_a_game_between_people_says_nothing_of_being_unrated(base_url: str) -> None:
    kurier = Kurier(base_url)
    ann, bob = kurier.new_player("RatedAnn"), kurier.new_player("RatedBob")
    created = kurier.call("POST", "/v1/games", ann, json={"type": "attika", "seats": 2}).json()
    joined = kurier.call(
        "POST",
        f"/v1/games/{created['id']}/seats",
        bob,
        json={"invite_code": created["invite_code"]},
    )
    assert joined.status_code == 201, joined.text
    assert kurier.call("POST", f"/v1/games/{created['id']}/start", ann).status_code == 200
    for who in (ann, bob):
        r = kurier.call(
            "POST", f"/v1/games/{created['id']}/actions", who, json={"notation": "resign"}
        )
        if r.status_code == 200 and r.json()["status"] == "finished":
            break
    view = kurier.view(created["id"])
    assert view["status"] == "finished" and view["rated"] is True
    page = requests.get(f"{base_url}/games/{created['id']}", timeout=10)
    assert 'class="unrated"' not in page.text


def _line(page: str, game_id: str) -> str:
    """The listing's line (``<li>``) of ``game_id`` on ``page``."""
    found = re.search(rf'<li><a href="/games/{game_id}".*?</li>', page)
    assert found is not None, f"no line of {game_id}"
    return found[0]


def test_every_list_names_a_bot_as_the_table_does_in_the_readers_language(
    base_url: str, worker: Any
) -> None:
    """The watch list, a profile's games in play and finished, and the finished games'
    archives: a bot's name with its level in the reader's language, like the table."""
    kurier = Kurier(base_url)
    body = {"type": "attika", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
    game_id, me = _game(kurier, body | {"bot_pace": "correspondence"})
    for path in ("/watch", f"/players/{me.id}"):
        line = _line(_page(base_url, path, "de"), game_id)
        assert re.findall(_BOT_NAME, line) == [("easy", "Bot (leicht)")], line
        assert "easy" not in line.replace('data-level="easy"', ""), line
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", me, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    # The finished lists are written by the game's end jobs (a real worker).
    for path in (f"/players/{me.id}", f"/players/{me.id}/games", "/watch/finished"):
        page = wait_for(
            lambda path=path: game_id in (p := _page(base_url, path, "de")) and p,
            30,
            f"the game on {path}",
        )
        line = _line(page, game_id)
        assert "Seated, Bot (leicht)" in line and "easy" not in line, line
    finished = _line(_page(base_url, "/watch/finished", "de"), game_id)
    assert "Bot (leicht)" in finished.split("</a>", 2)[2], finished  # the winner, after the link
    english = _line(_page(base_url, f"/players/{me.id}/games", "en"), game_id)
    assert "Seated, Bot (easy)" in english and "won by Bot (easy)" in english, english
