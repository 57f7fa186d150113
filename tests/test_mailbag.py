"""Fewer mails (service/domain/mailbag.py): a seat's mail notices within one window go out as one
mail: a conflict's reveal, scoring and the next turn, and the messages of a lively table.
Real Redis, worker and SMTP sink; the window is 2 s here (20 s by default)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest

from service.domain import mailbag
from tests.notify_stack import NotifyStack
from tests.receivers import wait_for

WINDOW = 2.0


@pytest.fixture
def stack() -> Iterator[NotifyStack]:
    s = NotifyStack(env={"KURIER_MAIL_BATCH_SECONDS": str(int(WINDOW))}).start()
    yield s
    s.stop()


def _plain(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return part.get_content()


def test_messages_and_move_notices_within_a_window_make_one_mail(stack: NotifyStack) -> None:
    k = stack.client
    seated = [stack.player(f"B{i}", email=f"b{i}@mail.test")[0] for i in range(3)]
    game_id = stack.game(seated, seed="bag-1")
    # The start notices of each seat arrive as one mail per seat, however many they were.
    for i in range(3):
        wait_for(lambda i=i: stack.smtp.to(f"b{i}@mail.test"), 20, f"b{i}'s first mail")
    time.sleep(WINDOW + 1)
    before = len(stack.smtp.to("b2@mail.test"))
    # Three lines of talk in well under a window: one mail to each reader, holding all three.
    time.sleep((WINDOW - time.time() % WINDOW) % WINDOW + 0.05)  # early in a window
    for text in ("hello", "how are you", "let us begin"):
        r = k.call("POST", f"/v1/games/{game_id}/messages", seated[0], json={"text": text})
        assert r.status_code == 201, r.text
    private = {"text": "psst, only you", "to_seat": 1}
    assert k.call("POST", f"/v1/games/{game_id}/messages", seated[0], json=private).ok
    wait_for(lambda: len(stack.smtp.to("b2@mail.test")) > before, 20, "the talk mail")
    time.sleep(WINDOW + 1)  # nothing more comes for those notices
    new = stack.smtp.to("b2@mail.test")[before:]
    assert len(new) == 1, [m["Subject"] for m in new]
    text = _plain(new[0])
    lines = ("B0 wrote to the table: hello", "how are you", "let us begin")
    positions = [text.index(line) for line in lines]
    assert positions == sorted(positions), text  # in the order they were written
    assert "psst" not in text  # the private line went to seat 1 only
    assert any("psst, only you" in _plain(m) for m in stack.smtp.to("b1@mail.test"))
    # The bags are empty once sent: a job run again sends nothing.
    assert stack.store is not None
    for seat in range(3):
        assert mailbag.contents(stack.store, game_id, seat) == []


def test_no_window_sends_each_notice_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KURIER_MAIL_BATCH_SECONDS", "0")
    assert mailbag.window() == 0
    monkeypatch.setenv("KURIER_MAIL_BATCH_SECONDS", "nonsense")
    assert mailbag.window() == mailbag.DEFAULT_WINDOW


def test_the_bag_is_told_in_the_order_things_happened() -> None:
    """The worker runs notice jobs side by side, so they may reach the bag out of order."""

    def news(version: int, kind: str) -> dict[str, object]:
        return {"kind": kind, "version": version, "data": {}}

    def message(message_id: str) -> dict[str, object]:
        return {"kind": "game.message", "message_id": message_id}

    arrived = [
        ("1-0", message("1700000000002-0")),
        ("2-0", news(9, "game.turn_started")),
        ("3-0", news(9, "game.conflict_resolved")),
        ("4-0", message("1700000000001-1")),
        ("5-0", news(8, "game.scored")),
        ("6-0", message("1700000000001-0")),
    ]
    told = [notice for _entry, notice in mailbag.in_order(arrived)]
    assert told == [
        message("1700000000001-0"),
        news(8, "game.scored"),
        news(9, "game.conflict_resolved"),
        message("1700000000001-1"),
        news(9, "game.turn_started"),
        message("1700000000002-0"),
    ]
    assert mailbag.in_order([]) == []
