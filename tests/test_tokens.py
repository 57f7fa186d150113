"""API tokens over HTTP: create (shown once), list without the secret, revoke."""

from __future__ import annotations

import requests

from service.http.app import create_app
from tests.client import Kurier, Player
from tests.conftest import UNLIMITED, serve


def test_a_player_makes_names_and_revokes_tokens(kurier: Kurier) -> None:
    first = kurier.new_player("Tokens")
    listed = kurier.call("GET", "/v1/me/tokens", first).json()["items"]
    assert [t["name"] for t in listed] == ["first token"]
    made = kurier.call("POST", "/v1/me/tokens", first, json={"name": "my bot"})
    assert made.status_code == 201, made.text
    bot = Player(first.id, first.name, made.json()["token"])
    assert kurier.call("GET", "/v1/me", bot).json()["id"] == first.id
    listed = kurier.call("GET", "/v1/me/tokens", first).json()["items"]
    assert [t["name"] for t in listed] == ["first token", "my bot"]
    assert all("token" not in t and "key" not in t for t in listed)

    revoked = kurier.call("DELETE", f"/v1/me/tokens/{made.json()['id']}", first)
    assert revoked.status_code == 204
    # The session's app is one process: the revoked token stops working at once.
    assert kurier.call("GET", "/v1/me", bot).status_code == 401
    again = kurier.call("DELETE", f"/v1/me/tokens/{made.json()['id']}", first)
    assert again.status_code == 404 and again.json()["code"] == "token-not-found"
    # Nobody revokes another player's token.
    other = kurier.new_player("Other")
    theirs = kurier.call("GET", "/v1/me/tokens", other).json()["items"][0]["id"]
    assert kurier.call("DELETE", f"/v1/me/tokens/{theirs}", first).status_code == 404
    assert kurier.call("GET", "/v1/me", other).status_code == 200
    bad = kurier.call("POST", "/v1/me/tokens", first, json={"name": ""})
    assert bad.status_code == 422


def test_a_token_revoked_elsewhere_stops_working_at_its_next_request(
    kurier: Kurier, redis_url: str
) -> None:
    """Another API process (a second app, its own token cache) that saw the token a moment
    ago refuses it at once: the rate limiter's pipeline re-reads the token's owner with every
    request (service/domain/ratelimit.py), so the per-process cache only guesses whose it is."""
    player = kurier.new_player("Elsewhere")
    made = kurier.call("POST", "/v1/me/tokens", player, json={"name": "bot"}).json()
    bot = Player(player.id, player.name, made["token"])
    with serve(create_app({"REDIS_URL": redis_url, **UNLIMITED})) as url:
        other = Kurier(url)
        for _ in range(3):  # the first fills the other process's cache, the rest use it
            seen = other.call("GET", "/v1/me", bot)
            assert seen.status_code == 200 and seen.json()["id"] == player.id
            assert seen.json()["notify"]  # the preferences, from the same read
        assert kurier.call("DELETE", f"/v1/me/tokens/{made['id']}", player).status_code == 204
        refused = other.call("GET", "/v1/me", bot)
        assert refused.status_code == 401 and refused.json()["code"] == "invalid-token"
        assert other.call("GET", "/v1/me", player).status_code == 200


def test_a_web_session_signed_in_with_a_token_ends_when_the_token_is_revoked(
    kurier: Kurier,
) -> None:
    """Signing in to the web pages with an API token makes a session; revoking that token
    ends it (at the session's next page), while a session signed in with another token of
    the same player stays."""
    player = kurier.new_player("Browser")
    made = kurier.call("POST", "/v1/me/tokens", player, json={"name": "laptop"}).json()
    browsers = []
    for token in (made["token"], player.token):
        browser = requests.Session()
        signed_in = browser.post(
            f"{kurier.base}/signin/token",
            data={"token": token},
            headers={"Origin": kurier.base},
            allow_redirects=False,
            timeout=10,
        )
        assert signed_in.status_code == 302, signed_in.text
        assert browser.get(f"{kurier.base}/settings", allow_redirects=False).status_code == 200
        browsers.append(browser)
    assert kurier.call("DELETE", f"/v1/me/tokens/{made['id']}", player).status_code == 204
    ended = browsers[0].get(f"{kurier.base}/settings", allow_redirects=False, timeout=10)
    assert ended.status_code == 302, "the session outlived the token it was made with"
    kept = browsers[1].get(f"{kurier.base}/settings", allow_redirects=False, timeout=10)
    assert kept.status_code == 200
