"""Reports and moderators (service/domain/moderation.py): the operator names moderators with
`kurier moderator`; players report messages and players; the queue shows each reported item in
context and never a private message that was not reported; every action is in the audit log;
a suspended account is refused on the API, the event streams and the pages."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
import requests

from service import cli
from service.store import Store
from service.store.keys import AUDIT_LOG, player_key
from tests.client import Kurier, Player, problem
from tests.test_streams import Sse
from tests.test_web_hostile import _signed_in

SECRET_TALK = "the unreported private plan"
REPORTED_PRIVATE = "a rude private word"


def _name(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"


def _moderator(kurier: Kurier, store: Store, monkeypatch: pytest.MonkeyPatch) -> Player:
    """A player made moderator by the operator's command (by name)."""
    player = kurier.new_player(_name("Mod"))
    monkeypatch.setenv("REDIS_URL", store.url)
    assert cli.main(["moderator", "grant", player.name]) == 0
    return player


def _report(kurier: Kurier, who: Player, **body: Any) -> dict[str, Any]:
    r = kurier.call("POST", "/v1/reports", who, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _queue(kurier: Kurier, moderator: Player) -> list[dict[str, Any]]:
    r = kurier.call("GET", "/v1/moderation/reports", moderator)
    assert r.status_code == 200, r.text
    return r.json()["items"]


def _act(kurier: Kurier, moderator: Player, **body: Any) -> dict[str, Any]:
    r = kurier.call("POST", "/v1/moderation/actions", moderator, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_the_operator_grants_lists_and_revokes_the_role(
    kurier: Kurier, store: Store, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    mod = _moderator(kurier, store, monkeypatch)
    assert cli.main(["moderator", "list"]) == 0
    assert f"{mod.id}\t{mod.name}" in capsys.readouterr().out
    assert kurier.call("GET", "/v1/moderation/reports", mod).status_code == 200
    assert cli.main(["moderator", "revoke", mod.id]) == 0
    problem(kurier.call("GET", "/v1/moderation/reports", mod), 403, "not-a-moderator")
    assert cli.main(["moderator", "grant", "Nobody " + _name("x")]) == 1


def test_reports_in_context_and_no_unreported_private_message(
    kurier: Kurier, store: Store, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = _moderator(kurier, store, monkeypatch)
    game_id, (ann, bob, cid) = kurier.seated_game("attila", 3, "Rep")
    path = f"/v1/games/{game_id}/messages"

    def say(who: Player, text: str, to: int | None = None) -> str:
        body: dict[str, Any] = {"text": text} if to is None else {"text": text, "to_seat": to}
        r = kurier.call("POST", path, who, json=body)
        assert r.status_code == 201, r.text
        return str(r.json()["id"])

    say(ann, "table one")
    say(bob, SECRET_TALK, to=2)  # private between bob and cid, never reported
    rude = say(bob, "rude table words")
    say(cid, "table two")
    private = say(bob, REPORTED_PRIVATE, to=0)
    public_report = _report(
        kurier, ann, kind="message", game_id=game_id, message_id=rude, reason="insults"
    )
    again = _report(kurier, ann, kind="message", game_id=game_id, message_id=rude, reason="x")
    assert again["id"] == public_report["id"]  # the same report, not a second one
    private_report = _report(
        kurier, ann, kind="message", game_id=game_id, message_id=private, reason="harassment"
    )
    player_report = _report(kurier, cid, kind="player", player_id=bob.id, reason="spam")
    # Bad reports: a 4xx each, the queue unchanged.
    before = _queue(kurier, mod)
    bad = [
        ({"kind": "message", "game_id": game_id, "message_id": rude, "reason": ""}, 422),
        ({"kind": "message", "game_id": game_id, "message_id": "1-1", "reason": "r"}, 404),
        ({"kind": "player", "player_id": ann.id, "reason": "me"}, 422),
        ({"kind": "player", "player_id": "p_nobody", "reason": "r"}, 404),
        ({"kind": "gossip", "player_id": bob.id, "reason": "r"}, 422),
        ({"kind": "player", "reason": "r"}, 422),
    ]
    for body, status in bad:
        assert kurier.call("POST", "/v1/reports", ann, json=body).status_code == status, body
    # ann cannot report the private talk between bob and cid: she cannot see it.
    secret_id = kurier.call("GET", path, cid).json()["items"][1]["id"]
    body = {"kind": "message", "game_id": game_id, "message_id": secret_id, "reason": "r"}
    problem(kurier.call("POST", "/v1/reports", ann, json=body), 404, "message-not-found")
    queue = _queue(kurier, mod)
    assert [r["id"] for r in queue] == [r["id"] for r in before]
    mine = {r["id"]: r for r in queue}
    in_context = mine[public_report["id"]]["context"]
    assert [m["text"] for m in in_context] == ["table one", "rude table words", "table two"]
    assert [m["reported"] for m in in_context] == [False, True, False]
    assert [m["text"] for m in mine[private_report["id"]]["context"]] == [REPORTED_PRIVATE]
    assert mine[player_report["id"]]["context"] == []
    # Hidden information: the unreported private message is nowhere in the queue or its page.
    assert SECRET_TALK not in json.dumps(queue)
    web, _csrf = _signed_in(base_url, mod)
    page = web.get(f"{base_url}/moderation", timeout=10)
    assert page.status_code == 200 and "rude table words" in page.text
    assert SECRET_TALK not in page.text and REPORTED_PRIVATE in page.text
    # A player who is not a moderator sees neither.
    problem(kurier.call("GET", "/v1/moderation/reports", ann), 403, "not-a-moderator")
    web_ann, _ = _signed_in(base_url, ann)
    assert web_ann.get(f"{base_url}/moderation", timeout=10).status_code == 403


def test_actions_are_audited_and_a_suspension_is_refused_everywhere(
    kurier: Kurier, store: Store, base_url: str, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = _moderator(kurier, store, monkeypatch)
    game_id, (ann, bob) = kurier.seated_game("attila", 2, "Act")
    path = f"/v1/games/{game_id}/messages"
    rude = kurier.call("POST", path, bob, json={"text": "rude"}).json()["id"]
    report = _report(kurier, ann, kind="message", game_id=game_id, message_id=rude, reason="r")
    audit_before = store.r.xlen(AUDIT_LOG)
    # Bad actions: a 4xx each, nothing written.
    for body, status in (
        ({"action": "hide", "reason": "x"}, 422),
        ({"action": "explode", "reason": "x", "report_id": report["id"]}, 422),
        ({"action": "warn", "reason": "", "report_id": report["id"]}, 422),
        ({"action": "warn", "reason": "x", "report_id": "r_nope"}, 404),
        ({"action": "suspend", "reason": "x", "player_id": "p_nobody"}, 404),
    ):
        r = kurier.call("POST", "/v1/moderation/actions", mod, json=body)
        assert r.status_code == status, (body, r.text)
    problem(
        kurier.call("POST", "/v1/moderation/actions", ann, json={"action": "warn", "reason": "x"}),
        403,
        "not-a-moderator",
    )
    assert store.r.xlen(AUDIT_LOG) == audit_before
    # Hide the reported message: closed in the queue, the text withheld at the table.
    hidden = _act(kurier, mod, action="hide", reason="insult", report_id=report["id"])
    assert hidden["player_id"] == bob.id and hidden["message_id"] == rude
    assert report["id"] not in [r["id"] for r in _queue(kurier, mod)]
    assert kurier.call("GET", path, ann).json()["items"][0] == {
        **kurier.call("GET", path, ann).json()["items"][0],
        "hidden": True,
        "text": None,
    }
    dismiss = {"action": "dismiss", "reason": "again", "report_id": report["id"]}
    problem(kurier.call("POST", "/v1/moderation/actions", mod, json=dismiss), 409, "report-closed")
    _act(kurier, mod, action="warn", reason="be kind", player_id=bob.id)
    assert [w["reason"] for w in kurier.call("GET", "/v1/me/warnings", bob).json()["items"]] == [
        "be kind"
    ]
    # Suspend: the API, the streams and the pages refuse bob; his sign-in is refused.
    web, _csrf = _signed_in(base_url, bob)
    inbox = Sse(f"{streams}/v1/me/stream", bob)
    assert inbox.until(lambda item: item.get("event") == "inbox")
    _act(kurier, mod, action="suspend", reason="repeated insults", player_id=bob.id)
    problem(kurier.call("GET", "/v1/me", bob), 403, "account-suspended")
    problem(kurier.call("GET", f"/v1/games/{game_id}", bob), 403, "account-suspended")
    problem(kurier.call("POST", path, bob, json={"text": "hi"}), 403, "account-suspended")
    problem(
        requests.get(f"{streams}/v1/me/stream", headers=bob.auth, timeout=10),
        403,
        "account-suspended",
    )
    assert inbox.ends_within(10)  # the open stream ends within a heartbeat
    page = web.get(f"{base_url}/", headers={"Accept": "text/html"}, timeout=10)
    assert page.status_code == 403 and "suspended" in page.text
    signin = requests.post(f"{base_url}/signin/token", data={"token": bob.token}, timeout=10)
    assert signin.status_code == 403 and "suspended" in signin.text
    assert store.r.hget(player_key(bob.id), "suspended")
    # Reinstated: everything answers again.
    _act(kurier, mod, action="reinstate", reason="appeal heard", player_id=bob.id)
    assert kurier.call("GET", "/v1/me", bob).status_code == 200
    # The audit log: every action, newest first, moderators only, append-only.
    log = kurier.call("GET", "/v1/moderation/audit", mod).json()["items"]
    assert [e["action"] for e in log[:4]] == ["reinstate", "suspend", "warn", "hide"]
    assert all(e["moderator_id"] == mod.id for e in log[:4])
    assert log[1]["reason"] == "repeated insults" and log[1]["player_id"] == bob.id
    problem(kurier.call("GET", "/v1/moderation/audit", ann), 403, "not-a-moderator")
    problem(
        kurier.call("GET", "/v1/moderation/audit", mod, params={"before": "x"}),
        400,
        "invalid-cursor",
    )


def test_the_queue_pages_on_with_after_and_refuses_a_cursor_that_is_not_one(
    kurier: Kurier, store: Store, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = _moderator(kurier, store, monkeypatch)
    game_id, (ann, bob) = kurier.seated_game("attila", 2, "Page")
    path = f"/v1/games/{game_id}/messages"
    said = [kurier.call("POST", path, bob, json={"text": f"rude {n}"}).json()["id"] for n in "abcd"]
    mine = [
        _report(kurier, ann, kind="message", game_id=game_id, message_id=m, reason="r")["id"]
        for m in said
    ]

    def walk(limit: int) -> list[str]:
        """Every open report, a page of ``limit`` at a time (bounded)."""
        ids: list[str] = []
        query: dict[str, Any] = {"limit": limit}
        for _ in range(1000):
            page = kurier.call("GET", "/v1/moderation/reports", mod, params=query).json()
            assert len(page["items"]) <= limit
            ids += [r["id"] for r in page["items"]]
            if page["next_cursor"] is None:
                return ids
            assert page["next_cursor"] == ids[-1]
            query["after"] = page["next_cursor"]
        raise AssertionError("the pages did not end")

    whole = walk(50)
    assert walk(2) == whole and len(set(whole)) == len(whole)
    assert [i for i in whole if i in mine] == mine  # oldest first, each once
    # A page starts after its cursor's report even once that report is closed.
    _act(kurier, mod, action="dismiss", reason="tidy", report_id=mine[1])
    r = kurier.call("GET", "/v1/moderation/reports", mod, params={"after": mine[1], "limit": 2})
    assert r.status_code == 200 and [i["id"] for i in r.json()["items"]] == mine[2:], r.text
    # A position that is not one: 400 invalid-cursor naming it, as on every list; bad limits 422.
    for after in ("r_nope", "not a cursor!", "x" * 65):
        r = kurier.call("GET", "/v1/moderation/reports", mod, params={"after": after})
        assert problem(r, 400, "invalid-cursor")["parameter"] == "after"
    for limit in ("0", "51", "ten"):
        r = kurier.call("GET", "/v1/moderation/reports", mod, params={"limit": limit})
        assert r.status_code == 422, r.text
    web, _csrf = _signed_in(base_url, mod)
    page = web.get(f"{base_url}/moderation", params={"after": mine[2]}, timeout=10)
    assert page.status_code == 200, page.status_code
    assert f'id="report-{mine[3]}"' in page.text and f'id="report-{mine[2]}"' not in page.text
    wrong = web.get(f"{base_url}/moderation", params={"after": "r_nope"}, timeout=10)
    assert wrong.status_code == 400, wrong.status_code
