"""Notifications end to end: real SMTP (aiosmtpd), a real webhook receiver on loopback, the
real worker with its scheduler; deadlines, the board picture, refused webhook URLs."""

from __future__ import annotations

import json
import logging
import mailbox
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from engine.registry import get_game
from service.domain.games import views
from service.pictures import text_summary
from tests.client import metric_sample
from tests.mail_stack import legal_moves
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import HookSink, wait_for
from workers import notify, shared

GAME = get_game("attila")


@pytest.fixture(scope="module")
def stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


@pytest.fixture
def hooks() -> Iterator[HookSink]:
    sink = HookSink().start()
    yield sink
    sink.stop()


def _plain(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return part.get_content().replace("\r\n", "\n")


def test_emails_show_only_the_recipients_view_parse_back_and_thread(stack: NotifyStack) -> None:
    k = stack.client
    seated = [stack.player(f"M{i}", email=f"m{i}@mail.test")[0] for i in range(3)]
    game_id = stack.game(seated, seed="mail-1")
    view = k.view(game_id)
    to_move = view["waiting_for"][0]["seat"]
    address = [f"m{i}@mail.test" for i in range(3)]
    # Everyone hears the game started; the seat to move hears it is their turn.
    wait_for(lambda: all(stack.smtp.to(a) for a in address), 20, "game-started mails")
    turn = wait_for(
        lambda: [m for m in stack.smtp.to(address[to_move]) if "your turn" in m["Subject"]],
        20,
        "the turn mail",
    )[0]
    assert game_id in turn["Subject"] and "Attila" in turn["Subject"]

    hands = {}
    for seat, player in enumerate(seated):
        own = k.view(game_id, player)["view"]
        hands[seat] = " ".join(GAME.board.people(p).letter for p in own["hand"])
    text = _plain(turn)
    own_view = k.view(game_id, seated[to_move])["view"]
    # The body is the recipient's own view: their hand, and nobody else's.
    names = [seat["name"] for seat in k.view(game_id)["seats"]]
    assert text_summary("attila", own_view, names=names).rstrip() in text
    assert [line for line in text.splitlines() if "hand" in line.lower()] == [
        f"Your hand: {hands[to_move]}"
    ]
    for seat, hand in hands.items():
        if seat != to_move and hand != hands[to_move]:
            assert f"Your hand: {hand}" not in text

    # Every listed move parses back into one of the legal actions; the kinds' counts add up.
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", seated[to_move]).json()
    listed = legal_moves(turn)
    assert listed
    notations = {a["notation"] for a in legal["actions"]}
    assert {GAME.notation(GAME.parse(line)) for line in listed} <= notations
    counts = re.findall(r"^  \S+ \((\d+) moves?", text, re.MULTILINE)
    assert sum(map(int, counts)) == len(notations)
    assert f"{stack.base}/v1/games/{game_id}/board.svg" in text
    html = turn.get_body(("html",))
    assert html is not None and "board.svg" in html.get_content()

    # Threading: one conversation per game, a distinct Message-ID per notification.
    # The seat to move gets two mails (started, your turn) in no fixed order: wait for both.
    # The creator may also hear that every seat is taken: whether the worker reads that
    # notice before the game starts (`stack.game` starts it at once) is a race.
    def all_four() -> list | None:
        mails = [m for a in address for m in stack.smtp.to(a)]
        return mails if len([m for m in mails if not _seats_filled(m)]) >= 4 else None

    mails = wait_for(all_four, 20, "four mails")
    ids = [m["Message-ID"] for m in mails]
    assert len(set(ids)) == len(ids)
    assert len([m for m in mails if not _seats_filled(m)]) == 4
    thread = f"<game-{game_id}@kurier.localhost>"
    assert all(m["In-Reply-To"] == thread and m["References"] == thread for m in mails)
    assert all(m["Auto-Submitted"] == "auto-generated" for m in mails)


def test_webhook_signed_retried_after_two_500s_and_logged(
    stack: NotifyStack, hooks: HookSink
) -> None:
    k = stack.client
    player, me = stack.player("H", webhook_url=hooks.url)
    secret = me["webhook_secret"]
    assert (
        secret.startswith("whsec_")
        and "webhook_secret" not in k.call("GET", "/v1/me", player).json()
    )
    retries_before = _counter(k, "kurier_webhook_deliveries", "retry")
    delivered_before = _counter(k, "kurier_webhook_deliveries", "delivered")
    hooks.statuses += [500, 500]
    r = k.call("POST", "/v1/me/webhook-test", player)
    assert r.status_code == 202, r.text
    delivery = r.json()["delivery_id"]

    wait_for(lambda: len(hooks.calls) >= 3, 20, "three attempts")
    verifier = Webhook(secret)
    for call in hooks.calls:
        payload = verifier.verify(call.body, call.headers)  # raises if the signature is wrong
        assert payload["type"] == "webhook.test"
        assert call.headers["webhook-id"] == delivery  # stable across retries
    with pytest.raises(Exception):  # noqa: B017 - any verification failure
        Webhook(secret).verify(hooks.calls[0].body + b" ", hooks.calls[0].headers)

    def logged() -> dict[str, Any] | None:
        items = k.call("GET", "/v1/me/webhook-deliveries", player).json()["items"]
        found = [i for i in items if i["id"] == delivery and i["status"] == "delivered"]
        return found[0] if found else None

    entry = wait_for(logged, 10, "the delivery log")
    assert entry["attempts"] == 3 and entry["last_status"] == 204
    # /metrics counts the attempts (kept in Redis by the webhook workers).
    assert _counter(k, "kurier_webhook_deliveries", "retry") >= retries_before + 2
    assert _counter(k, "kurier_webhook_deliveries", "delivered") >= delivered_before + 1


def _seats_filled(message: EmailMessage) -> bool:
    return "every seat is taken" in str(message["Subject"])


def _counter(k: Any, name: str, outcome: str) -> float:
    return metric_sample(k.call("GET", "/metrics").text, f"{name}_total", outcome=outcome)


def test_turn_webhook_is_thin_and_410_disables_and_tells_the_owner(
    stack: NotifyStack, hooks: HookSink
) -> None:
    k = stack.client
    a, _ = stack.player("WA", webhook_url=hooks.url, email="wa@mail.test")
    b, _ = stack.player("WB", webhook_url=hooks.url)
    game_id = stack.game([a, b], seed="hook-1")
    seat = k.view(game_id)["waiting_for"][0]["seat"]
    wait_for(lambda: any(b"turn_started" in c.body for c in hooks.calls), 20, "a turn webhook")
    turn = next(json.loads(c.body) for c in hooks.calls if b"turn_started" in c.body)
    assert turn["type"] == "game.turn_started"
    assert set(turn["data"]) == {"game_id", "game_type", "version", "seat", "link"}
    assert turn["data"]["seat"] == seat and turn["data"]["game_id"] == game_id

    hooks.statuses += [410]
    calls = len(hooks.calls)
    assert k.call("POST", "/v1/me/webhook-test", a).status_code == 202
    wait_for(lambda: not k.call("GET", "/v1/me", a).json()["webhook_enabled"], 20, "disable")
    assert "410" in k.call("GET", "/v1/me", a).json()["webhook_disabled_reason"]
    wait_for(
        lambda: [m for m in stack.smtp.to("wa@mail.test") if "disabled" in m["Subject"]],
        20,
        "the owner's mail",
    )
    # Disabled: a further test event is not sent (it is cancelled).
    assert k.call("POST", "/v1/me/webhook-test", a).status_code == 202
    wait_for(
        lambda: (
            k.call("GET", "/v1/me/webhook-deliveries", a).json()["items"][0]["status"]
            == "cancelled"
        ),
        10,
        "cancellation",
    )
    assert len(hooks.calls) == calls + 1


def test_private_webhook_url_is_refused_with_422_and_nothing_changes(stack: NotifyStack) -> None:
    k = stack.client
    player, _ = stack.player("R")
    r = k.call("PATCH", "/v1/me", player, json={"webhook_url": "http://10.0.0.1/hook"})
    assert r.status_code == 422
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["code"] == "webhook-url-refused"
    me = k.call("GET", "/v1/me", player).json()
    assert me["webhook_url"] is None and me["has_webhook_secret"] is False
    r = k.call("PATCH", "/v1/me", player, json={"timezone": "Mars/Olympus"})
    assert r.status_code == 422 and r.json()["code"] == "invalid-timezone"


def test_deadline_fires_the_default_after_a_worker_restart_and_notifies_the_next(
    stack: NotifyStack,
) -> None:
    k = stack.client
    seated = [stack.player(f"D{i}", email=f"d{i}@mail.test")[0] for i in range(2)]
    deadline = {"hours": 0.0006, "remind_before_hours": 0.0003, "policy": "default_move"}
    game_id = stack.game(seated, deadline, seed="deadline-1")
    view = k.view(game_id)
    first = view["waiting_for"][0]["seat"]
    assert view["deadline_at"] is not None and view["deadline"]["hours"] == 0.0006
    # The scheduled deadline lives in Redis: a new worker fires it.
    stack.stop_worker(stack.workers[0])
    stack.start_worker()
    other = f"d{1 - first}@mail.test"
    wait_for(
        lambda: [m for m in stack.smtp.to(other) if "your turn" in m["Subject"]],
        30,
        "the next player's turn mail",
    )
    log = k.all_events(game_id)
    timeouts = [e for entry in log for e in entry["events"] if e["kind"] == "timeout_applied"]
    assert timeouts and all(t["data"]["seat"] == first for t in timeouts)
    assert timeouts[0]["data"]["policy"] == "default_move"
    played = [entry["action"] for entry in log if entry["kind"] == "move"]
    first_legal = GAME.legal_actions(GAME.new_state(2, "deadline-1"), first)
    assert played[0] == GAME.notation(first_legal[0])  # the documented default
    subjects = [m["Subject"] for m in stack.smtp.to(f"d{first}@mail.test")]
    assert any("deadline is near" in s for s in subjects)
    assert any("deadline passed" in s for s in subjects)
    stack.end_game(game_id, seated[0])  # its deadlines would go on firing on the shared stack


def test_board_picture_endpoint(stack: NotifyStack) -> None:
    k = stack.client
    seated = [stack.player(f"B{i}")[0] for i in range(2)]
    game_id = stack.game(seated, seed="board-1")
    r = k.call("GET", f"/v1/games/{game_id}/board.svg")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("image/svg+xml")
    assert ET.fromstring(r.content).tag == "{http://www.w3.org/2000/svg}svg"
    r = k.call("GET", "/v1/games/nope/board.svg")
    assert r.status_code == 404 and r.json()["code"] == "game-not-found"
    r = k.call("GET", f"/v1/games/{game_id}/board.svg", seated[0])
    assert r.status_code == 200  # the same spectator picture for a player


def test_mail_without_smtp_goes_to_the_logged_maildir(
    stack: NotifyStack,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert stack.store is not None
    monkeypatch.delenv("KURIER_SMTP_URL", raising=False)
    monkeypatch.setenv("KURIER_OUTBOX", str(tmp_path / "outbox"))
    monkeypatch.setattr(shared, "_store", stack.store)
    player, _ = stack.player("O", email="o@mail.test")
    other, _ = stack.player("O2")
    game_id = stack.game([player, other], seed="outbox-1")
    record = stack.store.get_game(game_id)
    seat = record.seat_of(player.id)
    assert seat is not None
    with caplog.at_level(logging.INFO, logger="kurier.notify"):
        assert notify.notify(game_id, record.version, "game.ended", seat, {}) == "email"
    box = mailbox.Maildir(str(tmp_path / "outbox"), create=False)
    messages = list(box)
    assert len(messages) == 1 and "o@mail.test" in messages[0]["To"]
    assert str(tmp_path / "outbox") in caplog.text
    # Idempotent: the same notification again sends nothing.
    notify.notify(game_id, record.version, "game.ended", seat, {})
    assert len(list(box)) == 1
    assert not os.environ.get("KURIER_SMTP_URL")
    assert views.game_view(record, seat, player.id)["deadline"] is None


def test_a_games_own_words_come_from_its_engine_package() -> None:
    """workers/ and service/ hold no game's vocabulary: the notifier asks the game."""
    resolved = {"province": "ITA", "cards": {"0": ["V", "V"], "1": []}, "removed": ["H"]}
    names = ["Anna", "Bruno"]
    assert GAME.event_words("conflict_resolved", resolved, names) == (
        "a conflict was resolved",
        "The conflict in ITA was resolved. Revealed cards: Anna: V V; Bruno: nothing. Removed: H.",
    )
    # Scores in words, players by name: never a Python list.
    assert GAME.event_words("scored", {"scoring": "final", "scores": [3, 5]}, names) == (
        "final scoring",
        "Final scoring. Scores: Anna 3, Bruno 5.",
    )
    assert GAME.event_words("no_such_event", {}) is None
    assert get_game("attika").event_words("conflict_resolved", resolved) is None
    for path in ("workers/notify.py", "service/domain/notifications.py", "workers/mailin.py"):
        source = (Path(__file__).parent.parent / path).read_text()
        assert "Revealed cards" not in source and "conflict in" not in source


def test_notices_say_what_happened_with_the_players_names() -> None:
    """A notice's sentence is the engine's ``describe``: names, not seats or Python lists."""
    from types import SimpleNamespace

    record = SimpleNamespace(game=GAME, names=["Anna", "Bruno"], deadline_at=None)
    resolved = {
        "event": "conflict_resolved",
        "ref": "conflict-1",
        "province": "ITA",
        # The revealed cards are people ids, as the engine's event carries them.
        "cards": {"0": ["vandals", "vandals"], "1": []},
        "strength": {"V": 3, "H": 1},
        "removed": ["H"],
    }
    text = notify._headline("game.conflict_resolved", resolved, record)
    assert text == (
        "The conflict in Italia is decided (Anna laid Vandal, Vandal; Bruno laid none): "
        "the Huns leave it."
    )
    scored = {"event": "scored", "scoring": "final", "peoples": [], "scores": [3, 5]}
    text = notify._headline("game.scored", scored, record)
    assert text == "Final scoring; the scores are now Anna 3, Bruno 5."
    assert "seat" not in text and "[" not in text


def test_the_creator_hears_when_the_last_seat_is_taken(stack: NotifyStack, hooks: HookSink) -> None:
    """A seat-filled notice: when the last seat of an open game is taken, its
    creator (only) gets a mail and a webhook saying the table is full and can be started; a
    creator who wants no such mail gets none."""
    k = stack.client
    host, _ = stack.player("Fila", email="fila@mail.test", webhook_url=hooks.url)
    guests = [stack.player(f"Gast{i}", email=f"gast{i}@mail.test")[0] for i in (1, 2)]
    r = k.call("POST", "/v1/games", host, json={"type": "attila", "seats": 3})
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    for guest in guests:
        joined = k.call("POST", f"/v1/games/{game_id}/seats", guest, json={"invite_code": invite})
        assert joined.status_code == 201, joined.text
    full = wait_for(
        lambda: [m for m in stack.smtp.to("fila@mail.test") if game_id in m["Subject"]],
        20,
        "the seat-filled mail",
    )[0]
    assert full["Subject"].endswith("every seat is taken"), full["Subject"]
    text = _plain(full)
    assert "Hello Fila," in text and "Gast1" in text and "Gast2" in text
    assert f"/games/{game_id}" in text and "start" in text.lower()
    hook = wait_for(
        lambda: [c for c in hooks.calls if b"seats_filled" in c.body], 20, "the webhook"
    )[0]
    body = json.loads(hook.body)
    assert body["type"] == "game.seats_filled" and body["data"]["game_id"] == game_id
    assert body["data"]["seat"] == 0
    # Only the creator, once: nothing to the guests, no second mail.
    assert k.call("POST", f"/v1/games/{game_id}/start", host).status_code == 200
    wait_for(lambda: stack.smtp.to("gast2@mail.test"), 20, "the guests' game-started mail")
    for guest in ("gast1@mail.test", "gast2@mail.test"):
        assert not [m for m in stack.smtp.to(guest) if "every seat" in m["Subject"]]
    assert len([m for m in stack.smtp.to("fila@mail.test") if "every seat" in m["Subject"]]) == 1

    # A creator who turned the notice off gets no such mail.
    quiet, _ = stack.player("Stille", email="stille@mail.test", notify={"game.seats_filled": []})
    r = k.call("POST", "/v1/games", quiet, json={"type": "attila", "seats": 2})
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    joined = k.call("POST", f"/v1/games/{game_id}/seats", guests[0], json={"invite_code": invite})
    assert joined.status_code == 201
    assert k.call("POST", f"/v1/games/{game_id}/start", quiet).status_code == 200
    wait_for(lambda: stack.smtp.to("stille@mail.test"), 20, "the game-started mail")
    assert not [m for m in stack.smtp.to("stille@mail.test") if "every seat" in m["Subject"]]


def test_the_seat_filled_notice_is_planned_for_the_creator_only() -> None:
    """Planned with the join that takes the last seat (service/domain/notifications.py), for
    the creator's seat; not for a join that leaves a seat free."""
    from types import SimpleNamespace

    from service.domain.notifications import notices
    from service.store.record import Change

    def joined(seats: int, max_seats: int) -> Any:
        record = SimpleNamespace(
            status="open",
            pending=[],
            seats=[f"p{i}" for i in range(seats)],
            max_seats=max_seats,
            creator="p0",
            result=None,
        )
        return Change(record, "joined", [], 201, {})

    assert [(n.type, n.seat) for n in notices("attila", [], joined(3, 3), 3)] == [
        ("game.seats_filled", 0)
    ]
    assert notices("attila", [], joined(2, 3), 2) == []


def test_the_game_over_mail_shows_each_rating_change(stack: NotifyStack) -> None:
    """A rated game's end: the game-over mail names each player's new rating and its change on
    the display scale (as the end screen shows them), rated by the notice's job if no rating
    job did it first."""
    k = stack.client
    seated = [stack.player(f"R{i}", email=f"r{i}@mail.test")[0] for i in range(2)]
    game_id = stack.game(seated, seed="rated-end-1")
    loser = seated[1]
    r = k.call("POST", f"/v1/games/{game_id}/actions", loser, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text

    def over(address: str) -> list[EmailMessage]:
        return [m for m in stack.smtp.to(address) if "Rating of" in _plain(m)]

    for i in range(2):
        wait_for(lambda i=i: over(f"r{i}@mail.test"), 20, "the game-over mail")
    changes = k.view(game_id)["rating_changes"]
    assert changes and len(changes) == 2
    text = _plain(over("r0@mail.test")[0])
    for change in changes:
        name = next(p.name for p in seated if p.id == change["player_id"])
        line = f"Rating of {name}: {change['display_after']} ({change['display_delta']:+d})"
        assert line in text, text
    assert changes[0]["display_delta"] > 0 > changes[1]["display_delta"]
