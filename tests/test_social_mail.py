"""Blocking and suspension by mail (workers/mailin.py): a suspended player's mailed move is
refused and answered as such, nothing played; a mailed private word to a player who blocks the
sender is refused too."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.mail_stack import MailStack, plain, reply_to
from tests.notify_stack import shared_stack
from tests.receivers import wait_for
from tests.test_mail_play import answer_for, new_game, turn


@pytest.fixture(scope="module")
def stack(play_by_mail_stack: MailStack) -> Iterator[MailStack]:
    with shared_stack(play_by_mail_stack) as s:
        yield s


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


def test_a_warned_and_suspended_player_is_told_by_mail_in_their_language(
    stack: MailStack,
) -> None:
    store = stack.store
    assert store is not None
    k = stack.client
    mod, _ = stack.player("Mod")
    store.moderation.set_moderator(mod.id, True)
    ada, _ = stack.player("Ada", email="ada@moderated.test", language="de")
    for action, reason in (("warn", "be kind"), ("suspend", "insults")):
        body = {"action": action, "reason": reason, "player_id": ada.id}
        assert k.call("POST", "/v1/moderation/actions", mod, json=body).status_code == 201

    def told() -> list[str]:
        return [str(m["Subject"]) for m in stack.smtp.to("ada@moderated.test")]

    wait_for(lambda: len(told()) == 2, 30, "two mails")
    assert sorted(told()) == [
        "Dein Kurier-Konto ist gesperrt",
        "Eine Verwarnung der Kurier-Moderatoren",
    ]
    texts = [plain(m) for m in stack.smtp.to("ada@moderated.test")]
    assert any("insults" in t for t in texts) and any("be kind" in t for t in texts)
