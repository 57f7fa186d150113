"""Every operation of the committed OpenAPI document, called with valid inputs in a real game's
life (players, a game, joining, starting, playing, messages, seats, tokens, webhooks, a claimed
win): each answers 2xx at least once, and each 2xx body validates against the operation's
response schema in openapi/openapi.json.

Why: the schemathesis contract test (tests/test_contract.py) fuzzes each operation on its own
with made-up bodies and ids, so it hardly ever reaches the success of an operation that needs a
prepared state (starting a full game, playing a legal move, taking an offered seat, claiming a
win): those answers were never checked against the document.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
import requests

from service.store import Store
from tests.client import Kurier, Player
from tests.openapi_validation import document, errors, validator

Reached = dict[str, int]


def _operations() -> dict[str, tuple[str, str, dict[str, Any]]]:
    """operationId -> (method, path template, operation)."""
    out = {}
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                out[operation["operationId"]] = (method.upper(), path, operation)
    return out


class Walker:
    def __init__(self, kurier: Kurier) -> None:
        self.kurier = kurier
        self.operations = _operations()
        self.reached: Reached = {}

    def call(
        self, operation_id: str, who: Player | None = None, expect: int | None = None, **args: Any
    ) -> requests.Response:
        """Call the operation (path parameters from ``args``), require a 2xx (or ``expect``)
        and check its body against the document."""
        method, template, operation = self.operations[operation_id]
        params = {k: args.pop(k) for k in re.findall(r"{(\w+)}", template)}
        path = template.format(**params)
        answer = self.kurier.call(method, path, who, **args)
        if expect is not None:
            assert answer.status_code == expect, (operation_id, answer.status_code, answer.text)
        ok = 200 <= answer.status_code < 300 or answer.status_code == expect
        assert ok, (operation_id, answer.status_code, answer.text)
        self._check(operation_id, operation, answer)
        self.reached[operation_id] = self.reached.get(operation_id, 0) + 1
        return answer

    @staticmethod
    def _check(operation_id: str, operation: dict[str, Any], answer: requests.Response) -> None:
        declared = operation["responses"].get(str(answer.status_code))
        assert declared is not None, (operation_id, answer.status_code, "not in the document")
        assert "X-Request-ID" in declared.get("headers", {}), operation_id
        for header in declared.get("headers", {}):
            if header in ("ETag", "X-Request-ID"):
                assert header in answer.headers, (operation_id, header)
        content = declared.get("content")
        if not content:
            assert not answer.content, (operation_id, "a body where none is declared")
            return
        media = answer.headers["Content-Type"].split(";")[0]
        assert media in content, (operation_id, media, list(content))
        if media == "image/png":
            assert answer.content.startswith(b"\x89PNG\r\n\x1a\n"), operation_id
            return
        if media != "application/json":
            assert answer.text.startswith("<svg") or "<svg" in answer.text[:500], operation_id
            return
        problems = errors(validator(content[media]["schema"]), answer.json())
        assert not problems, (operation_id, answer.status_code, problems)


def _join(w: Walker, game: dict[str, Any], players: list[Player]) -> None:
    for p in players:
        w.call("join_game", p, json={"invite_code": game["invite_code"]}, game_id=game["id"])


def _play_some(w: Walker, game_id: str, players: list[Player], moves: int) -> set[int]:
    """Up to ``moves`` first legal actions of whoever is waiting; the statuses answered."""
    statuses: set[int] = set()
    for _ in range(moves):
        view = w.call("get_game", players[0], game_id=game_id).json()
        waiting = [d for d in view["waiting_for"] if d["kind"] != "resolve"]
        if view["status"] != "active":
            break
        if not waiting:
            time.sleep(0.1)  # the worker resolves a sealed step
            continue
        who = players[waiting[0]["seat"]]
        legal = w.call("list_legal_actions", who, game_id=game_id).json()["actions"]
        body = {"action": legal[0]["action"]}
        key = {"Idempotency-Key": f"walk-{view['version']}-{waiting[0]['seat']}"}
        answer = w.call("play", who, json=body, headers=key, game_id=game_id)
        statuses.add(answer.status_code)
        replayed = w.call("play", who, json=body, headers=key, game_id=game_id)
        assert replayed.headers.get("Idempotent-Replayed") == "true"
    return statuses


def _claim(w: Walker, players: list[Player]) -> None:
    """A two-player game whose absent seat misses two 1.8 s deadlines: the other claims, and
    asks for a rematch of the finished game, and for its review."""
    a, b = players
    deadline = {"hours": 0.0005, "policy": "remind_only"}
    body = {"type": "attila", "seats": 2, "deadline": deadline, "abandon_after": 2}
    game = w.call("create_game", a, json=body).json()
    _join(w, game, [b])
    w.call("start_game", a, game_id=game["id"])
    view = w.call("get_game", a, game_id=game["id"]).json()
    present = (a, b)[1 - view["waiting_for"][0]["seat"]]
    until = time.monotonic() + 30
    while time.monotonic() < until:
        view = w.call("get_game", present, game_id=game["id"]).json()
        if any(s.get("abandoned") for s in view["seats"]):
            break
        time.sleep(0.3)
    w.call("claim_win", present, game_id=game["id"])
    w.call("rematch", present, game_id=game["id"])
    w.call("request_review", present, game_id=game["id"])
    w.call("get_review", present, game_id=game["id"])


def test_every_operation_answers_2xx_as_documented(
    kurier: Kurier, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KURIER_WEBHOOK_ALLOW", "loopback")  # the API's URL check, in-process
    w = Walker(kurier)
    for operation_id in ("get_index", "list_game_types", "get_health"):
        w.call(operation_id)
    created = [w.call("create_player", json={"name": f"W{i}"}).json() for i in range(4)]
    a, b, c, d = (Player(p["id"], p["name"], p["token"]) for p in created)
    w.call("get_me", a)
    w.call("update_me", a, json={"name": "Walker A", "webhook_url": "http://127.0.0.1:9/hook"})
    w.call("rotate_webhook_secret", a)
    w.call("send_webhook_test", a)
    w.call("list_webhook_deliveries", a)
    token = w.call("create_token", a, json={"name": "bot"}).json()
    w.call("list_tokens", a)
    w.call("revoke_token", a, token_id=token["id"])

    game = w.call("create_game", a, json={"type": "attila", "seats": 3, "access": "open"}).json()
    w.call("list_open_games", None)
    _join(w, game, [b, c])
    w.call("start_game", a, game_id=game["id"])
    gid = game["id"]
    w.call("list_my_games", a)
    w.call("get_inbox", a)
    w.call("get_game", None, game_id=gid)
    w.call("get_board_svg", None, game_id=gid)
    w.call("get_board_png", None, game_id=gid)
    statuses = _play_some(w, gid, [a, b, c], 40)
    assert 200 in statuses, statuses
    w.call("list_game_events", None, params={"after": "0"}, game_id=gid)
    w.call("list_game_events", b, params={"after": "2"}, game_id=gid)
    w.call("get_game_record", None, game_id=gid)
    message = w.call("post_message", b, json={"text": "hello"}, game_id=gid).json()
    w.call("list_messages", a, game_id=gid)
    w.call("hide_message", a, game_id=gid, message_id=message["id"])
    w.call("play", c, json={"notation": "resign"}, game_id=gid)
    offer = w.call("offer_seat", a, game_id=gid, seat=2).json()
    w.call("take_seat", d, json={"invite_code": offer["invite_code"]}, game_id=gid, seat=2)

    _claim(w, [c, d])
    w.call("get_player_profile", None, player_id=d.id)
    w.call("get_leaderboard", None, params={"min_games": 1}, game_type="attila")
    w.call("list_finished_games", None)
    # The club's (issue 34): following, games in play, a player's finished games.
    w.call("follow_player", a, player_id=d.id)
    w.call("get_following", a)
    w.call("unfollow_player", a, player_id=d.id)
    w.call("list_live_games", None)
    w.call("list_player_finished_games", None, player_id=d.id)

    # Blocks, private notes, reports and moderation.
    w.call("block_player", a, player_id=d.id)
    w.call("list_blocks", a)
    w.call("unblock_player", a, player_id=d.id)
    w.call("put_game_note", a, json={"text": "a note"}, game_id=gid)
    w.call("get_game_note", a, game_id=gid)
    report = {"kind": "message", "game_id": gid, "message_id": message["id"], "reason": "rude"}
    report_id = w.call("create_report", a, json=report).json()["id"]
    store.moderation.set_moderator(d.id, True)  # `kurier moderator grant`
    w.call("get_moderation_queue", d)
    action = {"action": "warn", "reason": "be kind", "report_id": report_id}
    w.call("take_moderation_action", d, json=action)
    w.call("get_moderation_audit", d)
    w.call("list_warnings", b)
    # Leave: taken, shown, ended.
    w.call("take_leave", d, json={"days": 3}, expect=201)
    w.call("get_leave", d)
    w.call("end_leave", d)

    body = {"name": "Walk cup", "type": "attila", "seats": 2, "format": "swiss"}
    cup = w.call("create_tournament", a, json={**body, "deadline": {"hours": 48}}).json()
    for who in (a, b, c):
        w.call("sign_up_for_tournament", who, tournament_id=cup["id"])
    w.call("withdraw_from_tournament", c, tournament_id=cup["id"])
    w.call("start_tournament", a, tournament_id=cup["id"])
    w.call("list_tournaments", None)
    w.call("get_tournament", None, tournament_id=cup["id"])

    # The API sends streams on to the stream server (kurier streams; tests/test_streams.py
    # reads them there): here they answer their documented 307 with a Location.
    for operation_id in ("stream_game_events", "stream_my_inbox"):
        args = {"game_id": gid} if operation_id == "stream_game_events" else {}
        moved = w.call(operation_id, a, expect=307, allow_redirects=False, **args)
        assert "/stream" in moved.headers["Location"]
    missing = sorted(set(w.operations) - set(w.reached))
    assert not missing, f"operations never answered 2xx: {missing}"
