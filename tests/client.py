"""A small third-party-style client for the end-to-end tests: HTTP with ``requests`` only, and
its own check of every commitment (it trusts nothing the server says at reveal time)."""

from __future__ import annotations

import hashlib
import random
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

TIMEOUT = 10


@dataclass
class Player:
    id: str
    name: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class Kurier:
    def __init__(self, base_url: str) -> None:
        self.base = base_url
        #: The answer to the last start ``new_game`` sent (checked against its schema).
        self.last_start: dict[str, Any] = {}

    def call(
        self, method: str, path: str, player: Player | None = None, **kwargs: Any
    ) -> requests.Response:
        headers = {**(player.auth if player else {}), **kwargs.pop("headers", {})}
        return requests.request(
            method, self.base + path, headers=headers, timeout=TIMEOUT, **kwargs
        )

    def new_player(self, name: str) -> Player:
        r = self.call("POST", "/v1/players", json={"name": name})
        assert r.status_code == 201, r.text
        return Player(r.json()["id"], name, r.json()["token"])

    def new_game(
        self,
        n: int,
        options: dict[str, Any] | None = None,
        seed: str | None = None,
        game_type: str = "attila",
    ) -> tuple[str, list[Player]]:
        players = [self.new_player(f"P{i}") for i in range(n)]
        body: dict[str, Any] = {"type": game_type, "seats": n, "options": options or {}}
        if seed:
            body["seed"] = seed
        r = self.call("POST", "/v1/games", players[0], json=body)
        assert r.status_code == 201, r.text
        game_id, invite = r.json()["id"], r.json()["invite_code"]
        for p in players[1:]:
            r = self.call("POST", f"/v1/games/{game_id}/seats", p, json={"invite_code": invite})
            assert r.status_code == 201, r.text
        r = self.call("POST", f"/v1/games/{game_id}/start", players[0])
        assert r.status_code == 200, r.text
        self.last_start = r.json()
        return game_id, players

    def seated_game(
        self, type_id: str, seats: int, prefix: str, **settings: Any
    ) -> tuple[str, list[Player]]:
        """A started game of new players named ``<prefix>0``…, created with ``settings``
        (any GameCreate fields beyond type and seats)."""
        players = [self.new_player(f"{prefix}{i}") for i in range(seats)]
        body = {"type": type_id, "seats": seats, **settings}
        created = self.call("POST", "/v1/games", players[0], json=body).json()
        for p in players[1:]:
            r = self.call(
                "POST",
                f"/v1/games/{created['id']}/seats",
                p,
                json={"invite_code": created["invite_code"]},
            )
            assert r.status_code == 201, r.text
        r = self.call("POST", f"/v1/games/{created['id']}/start", players[0])
        assert r.status_code == 200, r.text
        return created["id"], players

    def view(self, game_id: str, player: Player | None = None) -> dict[str, Any]:
        r = self.call("GET", f"/v1/games/{game_id}", player)
        assert r.status_code == 200, r.text
        return r.json()

    def play_first_legal(
        self, game_id: str, seated: list[Player]
    ) -> tuple[Player, requests.Response] | None:
        """The first legal action of the first seat the game waits for: who played and the
        answer; None when the game waits only for the server (a resolution) or is over."""
        view = self.view(game_id)
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if view["status"] != "active" or not humans:
            return None
        mover = seated[humans[0]["seat"]]
        legal = self.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()
        notation = legal["actions"][0]["notation"]
        body = {"notation": notation}
        return mover, self.call("POST", f"/v1/games/{game_id}/actions", mover, json=body)

    def all_events(self, game_id: str, player: Player | None = None) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        cursor = "0"
        for _ in range(1000):  # bounded: 500 entries a page
            r = self.call(
                "GET", f"/v1/games/{game_id}/events", player, params={"after": cursor, "limit": 500}
            )
            assert r.status_code == 200, r.text
            page = r.json()
            if not page["items"]:
                return entries
            entries += page["items"]
            cursor = page["next_cursor"]
        raise AssertionError("event log did not end")


def problem(r: requests.Response, status: int, code: str) -> dict[str, Any]:
    """``r`` is a problem+json answer of ``status`` and ``code``; its body."""
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == "application/problem+json", r.text
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    return body


def commitment(game_id: str, ref: str, seat: int, choice: str, salt: str) -> str:
    """Recomputed from docs/api.md, independently of the server's code."""
    text = f"kurier-commit-v1|{game_id}|{ref}|{seat}|{choice}|{salt}"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Verifier:
    """Collects commitments as they are published and checks each reveal against them."""

    game_id: str
    seen: dict[tuple[str, int], str] = field(default_factory=dict)
    verified: int = 0

    def note_entry(self, entry: dict[str, Any]) -> None:
        for event in entry["events"]:
            data = event["data"]
            if event["kind"] == "sealed_committed":
                self.seen[(data["ref"], data["seat"])] = data["commitment"]
            elif event["kind"] == "sealed_revealed":
                self.check_reveal(data)

    def check_reveal(self, data: dict[str, Any]) -> None:
        assert data["scheme"] == "kurier-commit-v1"
        for choice in data["choices"]:
            key = (data["ref"], choice["seat"])
            assert key in self.seen, f"reveal of {key} that was never committed"
            expected = self.seen[key]
            got = commitment(
                self.game_id, data["ref"], choice["seat"], choice["choice"], choice["salt"]
            )
            assert got == expected, f"commitment mismatch for {key}"
            self.verified += 1


def play_to_end(
    k: Kurier,
    game_id: str,
    players: list[Player],
    rng: random.Random,
    max_steps: int = 3000,
    max_seconds: float = 240,
) -> tuple[dict[str, Any], Verifier, int]:
    """Play random legal moves (from legal-actions) until the game ends; follow the log as a
    spectator and verify every reveal. Returns the final view, the verifier, sealed count.
    Between moves the game's status, version and whom it waits for are the last move's answer
    (its `waiting_for` is the view's); the view is read at the start, after a resolution and
    at the end."""
    verifier = Verifier(game_id)
    cursor = 0
    sealed = 0
    deadline = time.monotonic() + max_seconds
    view = k.view(game_id)
    for _ in range(max_steps):
        assert time.monotonic() < deadline, "game did not finish in time"
        for entry in _events_after(k, game_id, cursor):
            verifier.note_entry(entry)
            cursor = entry["version"]
        if view["status"] == "finished":
            return k.view(game_id), verifier, sealed
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:  # the worker owes a resolution: wait for the version to move
            wait_for_version(k, game_id, view["version"], deadline)
            view = k.view(game_id)
            continue
        decision = rng.choice(humans)
        player = players[decision["seat"]]
        legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        assert legal["actions"], legal
        choice = rng.choice(legal["actions"])
        # Half the moves as notation, half as action objects: both must work.
        body = (
            {"notation": choice["notation"]} if rng.random() < 0.5 else {"action": choice["action"]}
        )
        r = k.call(
            "POST",
            f"/v1/games/{game_id}/actions",
            player,
            json=body,
            headers={"If-Match": f'"{view["version"]}"'},
        )
        if decision["kind"] == "sealed":
            assert r.status_code == 202, r.text
            sealed += 1
            got = r.json()
            mine = commitment(game_id, got["ref"], decision["seat"], got["choice"], got["salt"])
            assert mine == got["commitment"]
        else:
            assert r.status_code == 200, r.text
        sent, view = view["version"], r.json()
        assert view["version"] == sent + 1 and "waiting_for" in view, view
    raise AssertionError("game did not finish within max_steps")


def _events_after(k: Kurier, game_id: str, after: int) -> list[dict[str, Any]]:
    r = k.call("GET", f"/v1/games/{game_id}/events", params={"after": after, "limit": 500})
    assert r.status_code == 200, r.text
    return r.json()["items"]


def wait_for_version(k: Kurier, game_id: str, version: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        r = k.call("GET", f"/v1/games/{game_id}", headers={"If-None-Match": f'"{version}"'})
        if r.status_code == 200:
            return
        assert r.status_code == 304, r.text
        time.sleep(0.02)
    raise AssertionError("the worker did not resolve in time")


def metric_sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in the Prometheus text format (0 if absent)."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        if line.startswith(name + "{") and found != labels:
            continue
        return float(line.rsplit(" ", 1)[1])
    return 0.0


def wait_until_answering(
    proc: subprocess.Popen[bytes], base_url: str, log_path: str, seconds: float = 30.0
) -> None:
    """Wait until a server we started answers ``/healthz`` with anything (503 too: up, but
    without a worker). A refused connection or a read timeout while its processes boot on a
    busy machine is not an answer yet; the server exiting is a failure that shows its log."""
    deadline = time.monotonic() + seconds
    while True:
        assert proc.poll() is None, "the server exited:\n" + Path(log_path).read_text()
        assert time.monotonic() < deadline, f"the server did not answer within {seconds} s"
        try:
            requests.get(base_url + "/healthz", timeout=5)
            return
        except requests.RequestException:
            time.sleep(0.1)
