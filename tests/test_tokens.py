"""API tokens over HTTP: create (shown once), list without the secret, revoke."""

from __future__ import annotations

from tests.client import Kurier, Player


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
