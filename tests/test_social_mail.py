"""Blocking and suspension by mail (workers/mailin.py): a suspended player's mailed move is
refused and answered as such, nothing played; a mailed private word to a player who blocks the
sender is refused too."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.mail_stack import MailStack, plain, reply_to
from tests.test_mail_play import answer_for, new_game, turn


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack().start()
    yield s
    s.stop()


def test_a_suspended_player_plays_nothing_by_mail_and_a_blocked_one_says_nothing(
    stack: MailStack,
) -> None:
    store = stack.store
    assert store is not None
    game_id, mails = new_game(stack, "susp", "mail-suspended-1")
    seat, version, mail = turn(stack, game_id, mails)
    record = store.get_game(game_id)
    me, other = record.seats[seat], record.seats[(seat + 1) % 3]
    # Blocked by the other player: a private word to them is refused.
    store.blocks.add(other, me)
    other_name = record.names[(seat + 1) % 3]
    word = reply_to(mail, mails[seat], f"say @{other_name} just between us")
    stack.send(word, mails[seat], str(mail["Reply-To"]))
    answered = answer_for(stack, mails[seat], word)
    assert "cannot-message-player" in plain(answered)
    # Suspended: the move is refused, nothing played (each mail's reply address works once:
    # the answer's is fresh).
    store.moderation.suspend(me, {"reason": "test", "at": time.time()})
    move = reply_to(answered, mails[seat], "pass")
    stack.send(move, mails[seat], str(answered["Reply-To"]))
    text = plain(answer_for(stack, mails[seat], move))
    assert "account-suspended" in text and "suspended by the moderators" in text
    assert store.get_game(game_id).version == version
    found, _ = store.messages.read(game_id, None, 10)
    assert found == []
