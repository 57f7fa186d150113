"""Mail-in answers in the player's language (issue 15, docs/i18n.md): a German player's bad
line, good move and ``help`` are answered in German; the notation and the codes stay."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mail_stack import MailStack, legal_moves, plain, reply_to
from tests.test_mail_play import actionable, answer_for, turn, version


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack().start()
    yield s
    s.stop()


def test_a_german_player_gets_german_answers(stack: MailStack) -> None:
    mails = [f"de.{name}@players.test" for name in ("anna", "ben")]
    seated = [
        stack.player(f"de{i}", email=address, language="de")[0] for i, address in enumerate(mails)
    ]
    game_id = stack.game(seated, seed="mail-german-1")
    seat, v, mail = turn(stack, game_id, mails)
    me = mails[seat]
    legal = legal_moves(mail)

    bad = reply_to(mail, me, "zz top\nhelp")
    stack.send(bad, me, str(bad["To"]))
    text = plain(answer_for(stack, me, bad))
    assert text.startswith(f"Hallo de{seat},")
    assert "Zeile 1 „zz top“: nicht gespielt: " in text, text
    assert "Die Zeilen danach wurden nicht gelesen." in text
    assert "Bild des Spielbretts" in text or "board.svg?lang=de" in text
    assert legal_moves(answer_for(stack, me, bad)) == legal  # the notation stays
    assert version(stack, game_id) == v

    fresh = actionable(stack, me, v)
    assert fresh is not None
    good = reply_to(fresh, me, f"help\n{legal[0]}")
    stack.send(good, me, str(good["To"]))
    text = plain(answer_for(stack, me, good))
    assert "help: so spielst du per Mail." in text
    assert f"Zeile 2 „{legal[0]}“: gespielt." in text
    assert version(stack, game_id) > v
