"""An invited player told by mail and webhook (``game.invited``, workers/invites.py): real
SMTP, a webhook receiver on loopback, the real workers. A game made with ``invited`` players
(a profile's "play with") and a rematch tell each invited player once, the creator never,
nobody who turned the kind off; the job run again sends nothing more."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest

from service.domain import invites
from service.store import owed
from tests.client import Player
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import HookSink, wait_for


@pytest.fixture(scope="module")
def stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


@pytest.fixture
def hooks() -> Iterator[HookSink]:
    sink = HookSink().start()
    yield sink
    sink.stop()


def _invites(stack: NotifyStack, address: str) -> list[EmailMessage]:
    return [m for m in stack.smtp.to(address) if m["Message-ID"].startswith("<inv-")]


def _text(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def _hooks(hooks: HookSink) -> list[dict[str, object]]:
    bodies = [json.loads(c.body) for c in hooks.calls]
    return [b for b in bodies if b["type"] == invites.INVITED]


def _settled(stack: NotifyStack, job_id: str) -> bool:
    assert stack.store is not None
    return stack.store.queue_raw.zscore(owed.OWED_INDEX, job_id) is None


def test_play_with_tells_the_invited_player_once(stack: NotifyStack, hooks: HookSink) -> None:
    k = stack.client
    ann, _ = stack.player("Ann", email="ann@mail.test", webhook_url=hooks.url)
    bea, _ = stack.player("Bea", email="bea@mail.test", webhook_url=hooks.url)
    cid, _ = stack.player("Cid", email="cid@mail.test", notify={invites.INVITED: []})
    body = {
        "type": "attila",
        "seats": 3,
        "invited": [bea.id, cid.id],
        "options": {"CONFLICT_COMMIT_ORDER": "simultaneous"},
    }
    r = k.call("POST", "/v1/games", ann, json=body)
    assert r.status_code == 201, r.text
    game_id, code = r.json()["id"], r.json()["invite_code"]
    [mail] = wait_for(lambda: _invites(stack, "bea@mail.test"), 30, "the invitation mail")
    assert str(mail["Subject"]) == "Ann invites you to a game of Attila"
    text = _text(mail)
    assert "Ann invites you to a game of Attila (3 players)." in text
    assert "simultaneous" in text
    assert f"/games/{game_id}" in text and "/unsubscribe/" in text
    assert code not in text and code not in str(mail)
    assert mail["References"] == f"<game-{game_id}@{mail['Message-ID'].split('@')[1]}"
    [hook] = wait_for(lambda: _hooks(hooks), 30, "the invitation webhook")
    data = hook["data"]
    assert isinstance(data, dict)
    assert data["game_id"] == game_id and data["seats"] == 3 and data["rematch_of"] is None
    assert data["invited_by"] == {"id": ann.id, "name": "Ann"}
    assert code not in json.dumps(hook)
    job_id = invites.job(game_id, bea.id).id
    wait_for(lambda: _settled(stack, job_id), 30, "the invitation job's end")
    # The job run again (a retry, a swept copy): no second mail, no second delivery.
    assert stack.store is not None
    owed.owe_now(stack.store.queue_raw, invites.job(game_id, bea.id))
    wait_for(lambda: _settled(stack, job_id), 30, "the second run's end")
    time.sleep(0.5)
    assert len(_invites(stack, "bea@mail.test")) == 1
    assert len(_hooks(hooks)) == 1
    # The creator is told nothing; Cid, who turned the kind off, neither.
    assert not _invites(stack, "ann@mail.test") and not _invites(stack, "cid@mail.test")
    # Bea joins without the code, by her invitation.
    r = k.call("POST", f"/v1/games/{game_id}/seats", bea, json={})
    assert r.status_code == 201, r.text


def _finished(stack: NotifyStack, players: list[Player]) -> str:
    """A 2-player Attika game that its seat 1 resigned: over at once."""
    k = stack.client
    game_id = stack.game(players, game_type="attika")
    action = {"action": {"type": "resign"}}
    r = k.call("POST", f"/v1/games/{game_id}/actions", players[1], json=action)
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    return game_id


def test_a_rematch_tells_the_other_player(stack: NotifyStack, hooks: HookSink) -> None:
    k = stack.client
    dan, _ = stack.player("Dan", email="dan@mail.test", webhook_url=hooks.url)
    eva, _ = stack.player("Eva", email="eva@mail.test", webhook_url=hooks.url, language="de")
    old = _finished(stack, [dan, eva])
    r = k.call("POST", f"/v1/games/{old}/rematch", dan)
    assert r.status_code == 201, r.text
    new = r.json()["id"]
    [mail] = wait_for(lambda: _invites(stack, "eva@mail.test"), 30, "the rematch invitation")
    assert "Revanche" in str(mail["Subject"]), mail["Subject"]
    assert old in _text(mail) and f"/games/{new}" in _text(mail)
    [hook] = wait_for(lambda: _hooks(hooks), 30, "the rematch webhook")
    data = hook["data"]
    assert isinstance(data, dict)
    assert data["game_id"] == new and data["rematch_of"] == old
    time.sleep(0.5)
    assert not _invites(stack, "dan@mail.test") and len(_hooks(hooks)) == 1
