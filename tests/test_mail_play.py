"""Play by email with real servers: three players play a whole Attila game only by replying to
the mails they receive (an aiosmtpd sink), through a real ``kurier mail-in`` and real workers."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest

from engine.core import SYSTEM
from tests.mail_stack import MailStack, answers_to, legal_moves, plain, reply_to
from tests.receivers import wait_for

GAME_SECONDS = 120


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack().start()
    s.start_worker()  # two workers: answers and notifications run side by side
    yield s
    s.stop()


def addresses(prefix: str) -> list[str]:
    return [f"{prefix}.{name}@players.test" for name in ("anna", "ben", "cora")]


def new_game(stack: MailStack, prefix: str, seed: str) -> tuple[str, list[str]]:
    mails = addresses(prefix)
    seated = [stack.player(f"{prefix}{i}", email=a)[0] for i, a in enumerate(mails)]
    return stack.game(seated, seed=seed), mails


def actionable(stack: MailStack, address: str, version: int) -> EmailMessage | None:
    """The newest mail to ``address`` that lists legal moves for ``version``."""
    for message in reversed(stack.smtp.to(address)):
        if message["X-Kurier-Version"] == str(version) and legal_moves(message):
            return message
    return None


def test_three_players_play_a_whole_attila_game_by_email(stack: MailStack) -> None:
    assert stack.store is not None
    game_id, mails = new_game(stack, "g", "mail-game-3")
    rng = random.Random(3)
    sent: list[tuple[int, str, str]] = []  # seat, Message-ID, notation
    started = time.monotonic()
    for _ in range(600):
        record = stack.store.get_game(game_id)
        if record.status == "finished":
            break
        assert time.monotonic() - started < GAME_SECONDS, f"{len(sent)} moves sent in time"
        humans = [d for d in record.pending if d["seat"] != SYSTEM]
        if not humans:
            time.sleep(0.02)  # the worker resolves a conflict
            continue
        seat = humans[0]["seat"]
        found = wait_for(
            lambda seat=seat, v=record.version: actionable(stack, mails[seat], v),
            20,
            f"a mail with legal moves for seat {seat} at version {record.version}",
        )
        move = rng.choice(legal_moves(found))
        reply = reply_to(found, mails[seat], move)
        stack.send(reply, mails[seat], str(found["Reply-To"]))
        sent.append((seat, str(reply["Message-ID"]), move))
        wait_for(
            lambda v=record.version: stack.store.get_game(game_id).version > v,
            20,
            f"{move!r} of seat {seat} to apply",
        )
    record = stack.store.get_game(game_id)
    assert record.status == "finished", f"{len(sent)} moves by mail"
    assert record.result and record.result["winners"]
    sealed = [move for _, _, move in sent if move == "pass" or move.startswith("commit")]
    assert sealed, "no conflict by mail: choose another seed"

    # Every mail got exactly one answer, to the sender's registered address, threaded.
    for seat, message_id, move in sent:
        answer = wait_for(
            lambda a=mails[seat], m=message_id: answers_to(stack, a, m), 20, "an answer"
        )
        assert len(answer) == 1
        assert f'"{move}": played.' in plain(answer[0])
        assert answer[0]["Reply-To"].startswith("play+")
        assert message_id in answer[0]["References"]
    # An answer (it echoes a sealed choice) goes to its sender's registered address only.
    senders = {message_id: mails[seat] for seat, message_id, _ in sent}
    with stack.smtp.lock:
        everything = [r.message for r in stack.smtp.messages]
    for message in everything:
        if message["In-Reply-To"] in senders:
            assert message["To"].addresses[0].addr_spec == senders[message["In-Reply-To"]]
    log = stack.client.all_events(game_id)
    assert [e["version"] for e in log] == list(range(1, record.version + 1))
    print(f"{len(sent)} moves by mail ({len(sealed)} sealed) in {time.monotonic() - started:.1f} s")
