"""Leave by mail (workers/mailin.py, service/domain/leave.py): ``leave 2w`` in a reply takes
leave and says until when, in the player's language (``urlaub 10 tage``); each opponent gets
one ``game.opponent_on_leave`` mail, the player none; a line with a bad unit is refused and
changes nothing; ``leave end`` gives the unused days back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.domain import leave
from tests.mail_stack import MailStack, plain, reply_to
from tests.notify_stack import shared_stack
from tests.receivers import wait_for
from tests.test_mail_play import answer_for, new_game, turn

NOTICE_SUBJECT = "an opponent is on leave"


@pytest.fixture(scope="module")
def stack(play_by_mail_stack: MailStack) -> Iterator[MailStack]:
    with shared_stack(play_by_mail_stack) as s:
        yield s


def _notices(stack: MailStack, address: str, subject: str = NOTICE_SUBJECT) -> list[str]:
    return [plain(m) for m in stack.smtp.to(address) if subject in str(m["Subject"])]


def test_leave_by_mail_is_taken_told_to_the_opponents_and_ended(stack: MailStack) -> None:
    store = stack.store
    assert store is not None
    game_id, mails = new_game(stack, "lvm", "mail-leave-1")
    seat, version, mail = turn(stack, game_id, mails)
    me = store.get_game(game_id).seats[seat]

    bad = reply_to(mail, mails[seat], "leave 2 months")
    stack.send(bad, mails[seat], str(mail["Reply-To"]))
    refused = answer_for(stack, mails[seat], bad)
    assert "invalid-days" in plain(refused) and "`leave 14d`" in plain(refused)
    assert leave.read(store, me)["current"] is None

    ask = reply_to(refused, mails[seat], "leave 2w")
    stack.send(ask, mails[seat], str(refused["Reply-To"]))
    answered = plain(answer_for(stack, mails[seat], ask))
    assert "on leave until" in answered and "16 days of leave left this year" in answered
    taken = leave.read(store, me)
    assert taken["current"]["days"] == 14 and taken["left_days"] == 16
    name = store.get_game(game_id).names[seat]
    for index, address in enumerate(mails):
        if index == seat:
            continue
        [told] = wait_for(lambda a=address: _notices(stack, a), 30, "the opponent's notice")
        assert f"{name} is on leave until" in told
    assert _notices(stack, mails[seat]) == []
    assert store.get_game(game_id).version == version  # nothing played

    answer = answer_for(stack, mails[seat], ask)
    end = reply_to(answer, mails[seat], "leave end")
    stack.send(end, mails[seat], str(answer["Reply-To"]))
    assert "no leave runs now; 29 days of leave left" in plain(answer_for(stack, mails[seat], end))
    assert leave.read(store, me)["used_days"] == 1


def test_urlaub_in_german(stack: MailStack) -> None:
    store = stack.store
    assert store is not None
    game_id, mails = new_game(stack, "lvd", "mail-leave-2")
    seat, _version, mail = turn(stack, game_id, mails)
    me = store.get_game(game_id).seats[seat]
    store.players.update(me, {"language": "de"})
    ask = reply_to(mail, mails[seat], "Urlaub 10 Tage")
    stack.send(ask, mails[seat], str(mail["Reply-To"]))
    answered = plain(answer_for(stack, mails[seat], ask))
    assert "im Urlaub bis" in answered and "bleiben 20 Urlaubstage" in answered
    assert leave.read(store, me)["current"]["days"] == 10
