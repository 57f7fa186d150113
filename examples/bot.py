#!/usr/bin/env python3
"""A complete small Kurier client: a bot that plays one game with random legal moves.

It signs up, joins an open game of the wanted type from the lobby (or creates one and waits
for players, then starts it), follows the game's event stream (Server-Sent Events; plain
conditional GETs when there is no stream server), plays until the game is over and prints the
result. Copy it and
replace ``choose`` with something smarter. Needs only ``requests`` (pip install requests).

    python examples/bot.py --base-url http://127.0.0.1:8000 --type attila --seats 2 --name Ann
    python examples/bot.py --base-url http://127.0.0.1:8000 --type attila --seats 2 --name Bob

The API is described in docs/api.md and at /v1/docs (OpenAPI at /v1/openapi.json).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import requests

TIMEOUT = 10  # seconds for one HTTP request
RETRIES = 5  # attempts of one request after a network error, a 429 or a 503


class BotError(Exception):
    """An answer the bot cannot go on from (printed, exit status 1)."""


class Client:
    """The HTTP calls, with retries where they are safe: GETs, and POSTs that carry an
    Idempotency-Key (the server answers a repeated key with the first answer)."""

    def __init__(self, base_url: str) -> None:
        self.base = base_url.rstrip("/")
        self.http = requests.Session()

    def authenticate(self, token: str) -> None:
        self.http.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        headers = kwargs.get("headers") or {}
        retry_network = method == "GET" or "Idempotency-Key" in headers
        for attempt in range(RETRIES):
            try:
                r = self.http.request(method, self.base + path, timeout=TIMEOUT, **kwargs)
            except (requests.ConnectionError, requests.Timeout):
                if not retry_network or attempt == RETRIES - 1:
                    raise
                time.sleep(2**attempt)
                continue
            if r.status_code in (429, 503) and attempt < RETRIES - 1:
                # Rate limited, or the server is busy: wait as long as it asks.
                time.sleep(float(r.headers.get("Retry-After", 2**attempt)))
                continue
            return r
        raise AssertionError("unreachable")

    def expect(self, r: requests.Response, *statuses: int) -> dict[str, Any]:
        """The JSON body of an answer with one of ``statuses``; otherwise the problem
        (application/problem+json: code and detail) as a BotError."""
        if r.status_code not in statuses:
            try:
                problem = r.json()
                said = f"{problem.get('code')}: {problem.get('detail') or problem.get('title')}"
            except ValueError:
                said = r.text[:200]
            raise BotError(f"{r.request.method} {r.url} -> {r.status_code} {said}")
        return r.json() if r.content else {}


def sign_up(client: Client, name: str) -> dict[str, Any]:
    """A new player; its token is shown only this once (a real client would keep it)."""
    player = client.expect(client.request("POST", "/v1/players", json={"name": name}), 201)
    client.authenticate(player["token"])
    return player


def join_from_lobby(client: Client, game_type: str, seats: int) -> dict[str, Any] | None:
    """Take a free seat in the oldest open game of this type and size, or None if there is
    none. Another player may take the last seat first (409): then try the next one."""
    r = client.request("GET", "/v1/games/open", params={"type": game_type, "seats": seats})
    for game in client.expect(r, 200)["items"]:
        r = client.request("POST", f"/v1/games/{game['id']}/seats", json={})
        if r.status_code == 201:
            return r.json()
        client.expect(r, 409)  # full or started meanwhile: anything else is an error
    return None


def create_open_game(client: Client, game_type: str, seats: int) -> dict[str, Any]:
    body = {"type": game_type, "seats": seats, "access": "open"}
    return client.expect(client.request("POST", "/v1/games", json=body), 201)


def wait_for_players_and_start(
    client: Client, game_id: str, seats: int, poll: float, wait: float
) -> None:
    """The creator waits (at most ``wait`` seconds) until every seat is taken, then deals."""
    version, deadline = -1, time.monotonic() + wait
    while True:
        if time.monotonic() > deadline:
            raise BotError(f"game {game_id}: not enough players within {wait:.0f} s")
        view = get_view_if_changed(client, game_id, version)
        if view is not None:
            version = view["version"]
            if len(view["seats"]) == seats:
                break
        time.sleep(poll)
    client.expect(client.request("POST", f"/v1/games/{game_id}/start"), 200)


def get_view_if_changed(client: Client, game_id: str, version: int) -> dict[str, Any] | None:
    """The game view, or None while its version is still ``version``: a conditional GET
    (If-None-Match with the ETag, which is the version) costs the server almost nothing."""
    headers = {"If-None-Match": f'"{version}"'} if version >= 0 else {}
    r = client.request("GET", f"/v1/games/{game_id}", headers=headers)
    if r.status_code == 304:
        return None
    return client.expect(r, 200)


def follow(client: Client, game_id: str, after: int) -> Iterator[int]:
    """The game's versions as they happen, from its Server-Sent Events stream
    (GET /v1/games/{id}/stream): each event's ``id`` is a version. The API answers 307 to the
    stream server, with a one-time ticket in the URL that stands for our token there (HTTP
    clients drop Authorization when a redirect changes the port); we follow it ourselves, so
    that a missing stream server means polling. Ends when the stream ends or breaks: the
    caller then looks with a plain GET and may follow again from where it was. (A client
    generated from the OpenAPI document has examples/streams.py for this.)"""
    r = client.http.get(
        f"{client.base}/v1/games/{game_id}/stream",
        params={"after": str(after)},
        allow_redirects=False,
        timeout=TIMEOUT,
    )
    url = r.headers.get("Location") if r.status_code == 307 else None
    if url is None:
        return
    try:
        # (connect timeout, read timeout): heartbeats come every 15 s.
        with client.http.get(url, stream=True, timeout=(TIMEOUT, 60)) as stream:
            if stream.status_code != 200:
                return
            print(f"following {url}", flush=True)
            for line in stream.iter_lines(decode_unicode=True):
                if line.startswith("id:"):
                    yield int(line[3:].strip())
    except requests.RequestException:
        return  # the stream server is gone or restarting: polling takes over meanwhile


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The bot's whole strategy: any legal action. Each has an ``action`` object and its
    ``notation`` (a string such as a player would type in a mail); either may be played."""
    return rng.choice(legal)


def play_one(client: Client, game_id: str, version: int, rng: random.Random) -> bool:
    """Play one legal action at ``version``; False if the game moved on first (try again)."""
    r = client.request("GET", f"/v1/games/{game_id}/legal-actions")
    legal = client.expect(r, 200)["actions"]
    if not legal:
        return False
    action = choose(legal, rng)
    headers = {
        # The same key on a retry after a network error: the move is made once.
        "Idempotency-Key": str(uuid.uuid4()),
        # Only if the game is still where we looked (else 412).
        "If-Match": f'"{version}"',
    }
    r = client.request(
        "POST",
        f"/v1/games/{game_id}/actions",
        json={"notation": action["notation"]},
        headers=headers,
    )
    if r.status_code in (409, 412):  # not our turn any more, or the version moved
        return False
    client.expect(r, 200, 202)  # 202: a sealed choice, stored unseen until all are in
    return True


def play(
    client: Client, game_id: str, poll: float, max_moves: int, rng: random.Random
) -> dict[str, Any]:
    """Wait for our turn, play, until the game is over: its final view. Waits on the game's
    stream when the server has one, else polls with conditional GETs."""
    version, moves = -1, 0
    streamed = iter(())  # type: Iterator[int]
    while True:
        view = get_view_if_changed(client, game_id, version)
        if view is None:  # nothing moved: wait for the stream's next event, or a while
            if next(streamed, None) is None:
                time.sleep(poll)
                streamed = follow(client, game_id, max(version, 0))
            continue
        version = view["version"]
        if view["status"] == "finished":
            return view
        if view["your_decision"] is None:  # someone else's turn, or the server resolves
            continue
        if moves >= max_moves:
            raise BotError(f"stopped after {max_moves} moves (--max-moves)")
        if play_one(client, game_id, version, rng):
            moves += 1
        else:
            version = -1  # look again, without the cache
            time.sleep(poll)


def describe_result(view: dict[str, Any]) -> str:
    names = {seat["seat"]: seat["name"] for seat in view["seats"]}
    result = view.get("result") or {}
    winners = [names.get(seat, f"seat {seat}") for seat in result.get("winners", [])]
    return (
        f"game {view['id']} over at version {view['version']}: "
        f"winner(s) {', '.join(winners) or 'none'}; you were seat {view['your_seat']}; "
        f"result {json.dumps(result, sort_keys=True)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--type", default="attila", help="a game type from GET /v1/game-types")
    parser.add_argument("--seats", type=int, default=2, help="players in the game")
    parser.add_argument("--name", default=f"bot-{uuid.uuid4().hex[:6]}")
    parser.add_argument("--poll-seconds", type=float, default=2.0, help="between looks")
    parser.add_argument("--wait-seconds", type=float, default=3600, help="for players")
    parser.add_argument("--max-moves", type=int, default=5000, help="give up after this many")
    parser.add_argument("--seed", type=int, help="for the bot's random choices")
    args = parser.parse_args(argv)
    client = Client(args.base_url)
    rng = random.Random(args.seed)
    try:
        player = sign_up(client, args.name)
        print(f"{args.name}: player {player['id']}", flush=True)
        seat = join_from_lobby(client, args.type, args.seats)
        if seat is not None:
            game_id = seat["id"]
            print(f"{args.name}: joined game {game_id} as seat {seat['seat']}", flush=True)
        else:
            game_id = create_open_game(client, args.type, args.seats)["id"]
            print(f"{args.name}: created game {game_id}, waiting for players", flush=True)
            wait_for_players_and_start(
                client, game_id, args.seats, args.poll_seconds, args.wait_seconds
            )
            print(f"{args.name}: started game {game_id}", flush=True)
        final = play(client, game_id, args.poll_seconds, args.max_moves, rng)
    except (BotError, requests.RequestException) as error:
        print(f"{args.name}: {error}", file=sys.stderr)
        return 1
    print(f"{args.name}: {describe_result(final)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
