"""Play by email with real servers, Attika: two players play a whole game only by replying to
the mails they receive (an aiosmtpd sink), through a real ``kurier mail-in`` and real workers.
Every mail goes to its player's registered address only and shows exactly that seat's engine
view (never another hand, never a stack's order or contents), and the record replays."""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from email.message import EmailMessage

import pytest

from engine.attika.game import GAME
from engine.attika.state import AttikaState
from engine.core import SYSTEM
from service.pictures import text_summary
from tests.mail_stack import TEXT_ONLY, MailStack, answers_to, legal_moves, plain, reply_to
from tests.receivers import wait_for
from tests.test_service_attika import _hidden_changed
from workers.mailview import MOVES_HEADING

GAME_SECONDS = 300  # a bound, not the expectation: about 200 moves take 60-150 s
MAX_MOVES = 600


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack(env=TEXT_ONLY).start()
    s.start_worker()  # two workers: answers and notifications run side by side
    yield s
    s.stop()


def actionable(stack: MailStack, address: str, version: int) -> EmailMessage | None:
    """The newest mail to ``address`` that lists legal moves for ``version``."""
    for message in reversed(stack.smtp.to(address)):
        if message["X-Kurier-Version"] == str(version) and legal_moves(message):
            return message
    return None


def choose(rng: random.Random, legal: list[str]) -> str:
    """Random, leaning to building (a short game); ending a turn early only now and then."""
    builds = [move for move in legal if move.startswith("build ")]
    if builds and rng.random() < 0.9:
        return rng.choice(builds)
    busy = [move for move in legal if move.split()[0] not in ("end", "draw")]
    if busy and rng.random() < 0.9:
        return rng.choice(busy)
    return rng.choice(legal)


def test_two_players_play_a_whole_attika_game_by_email(stack: MailStack) -> None:
    assert stack.store is not None
    mails = [f"attika.{name}@players.test" for name in ("anna", "ben")]
    seated = [stack.player(f"attika{i}", email=a)[0] for i, a in enumerate(mails)]
    game_id = stack.game(seated, seed="attika-mail-2", game_type="attika")
    rng = random.Random(2)
    sent: list[tuple[int, str, str]] = []  # seat, Message-ID, notation
    started = time.monotonic()
    for _ in range(MAX_MOVES):
        record = stack.store.get_game(game_id)
        if record.status == "finished":
            break
        assert time.monotonic() - started < GAME_SECONDS, f"{len(sent)} moves sent in time"
        humans = [d for d in record.pending if d["seat"] != SYSTEM]
        assert len(humans) == 1, record.pending  # Attika: always exactly the active seat
        seat = humans[0]["seat"]
        found = wait_for(
            lambda seat=seat, v=record.version: actionable(stack, mails[seat], v),
            20,
            f"a mail with legal moves for seat {seat} at version {record.version}",
        )
        move = choose(rng, legal_moves(found))
        reply = reply_to(found, mails[seat], move)
        stack.send(reply, mails[seat], str(found["Reply-To"]))
        sent.append((seat, str(reply["Message-ID"]), move))
        wait_for(
            lambda v=record.version: stack.store.get_game(game_id).version > v,
            20,
            f"{move!r} of seat {seat} to apply",
        )
    seconds = time.monotonic() - started
    record = stack.store.get_game(game_id)
    assert record.status == "finished", f"{len(sent)} moves by mail"
    assert record.result and record.result["winners"]
    kinds = Counter(move.split()[0] for _, _, move in sent)
    assert kinds["build"] > 10 and kinds["reveal"] > 5 and kinds["tile"] > 0, kinds
    # Notation with spaces and negative coordinates came back whole.
    assert any(" at " in m and ",-" in m and m.endswith(" pay auto") for _, _, m in sent)

    # Every mail got exactly one answer, to the sender's registered address, threaded.
    for seat, message_id, move in sent:
        answer = wait_for(
            lambda a=mails[seat], m=message_id: answers_to(stack, a, m), 20, "an answer"
        )
        assert len(answer) == 1
        assert f'"{move}": played.' in plain(answer[0])
        assert "not played" not in plain(answer[0])
        assert message_id in answer[0]["References"]
    # Everything the sink got went to one player of this game, in the header and the envelope;
    # an answer went to the address of the player who sent the mail it answers.
    senders = {message_id: mails[seat] for seat, message_id, _ in sent}
    with stack.smtp.lock:
        everything = list(stack.smtp.messages)
    for received in everything:
        (to,) = received.message["To"].addresses
        assert to.addr_spec in mails and received.rcpt_tos == [to.addr_spec]
        if received.message["In-Reply-To"] in senders:
            assert to.addr_spec == senders[received.message["In-Reply-To"]]

    # The final record replays with the engine to the same result.
    r = stack.client.call("GET", f"/v1/games/{game_id}/record")
    assert r.status_code == 200, r.text
    full = r.json()
    assert full["type"] == "attika" and full["complete"] is True
    actions = full["actions"]
    assert [a["action"] for a in actions] == [move for _, _, move in sent]
    moves = [(a["seat"], a["action"]) for a in actions]
    replayed = GAME.replay(full["players"], full["seed"], full["options"], moves)
    assert GAME.result(replayed) == full["result"] == record.result

    # Each mail shows its recipient's own engine view of the version it names, which would
    # read the same had anything hidden from that seat (other hands, every stack's order and
    # contents, the deck) been different; the legal moves listed are the engine's.
    by_version: dict[int, list[tuple[int, EmailMessage]]] = {}
    for received in everything:
        seat = mails.index(received.message["To"].addresses[0].addr_spec)
        by_version.setdefault(int(received.message["X-Kurier-Version"]), []).append(
            (seat, received.message)
        )
    state = GAME.new_state(full["players"], full["seed"], full["options"])
    pending = list(actions)
    hidden_rng = random.Random(7)
    checked = varied = 0
    for version in sorted(by_version):
        while pending and pending[0]["version"] <= version:
            GAME.apply_notation(state, pending[0]["seat"], pending[0]["action"])
            pending.pop(0)
        for seat, message in by_version[version]:
            varied += _check_mail(state, seat, plain(message), hidden_rng, record.names)
            checked += 1
    assert checked == len(everything) > len(sent)
    assert varied > checked // 2
    print(
        f"Attika by mail: {len(sent)} moves {dict(kinds)}, {len(everything)} mails, {seconds:.1f} s"
    )


def _check_mail(
    state: AttikaState, seat: int, text: str, rng: random.Random, names: list[str]
) -> bool:
    """Returns whether something hidden from ``seat`` could be changed for the comparison."""
    summary = text_summary("attika", GAME.view(state, seat), names=names).rstrip()
    assert summary in text, text
    assert text.count("Your hand:") == 1 and text.count(summary) == 1
    changed = _hidden_changed(state, seat, rng)
    assert text_summary("attika", GAME.view(changed, seat), names=names).rstrip() == summary
    listed = legal_moves_of(text)
    if listed:
        legal = [GAME.notation(a) for a in GAME.legal_actions(state, seat)]
        # A turn mail and an answer alike: examples of each kind, counts that add up.
        assert MOVES_HEADING in text
        assert set(listed) <= set(legal)
        counts = re.findall(r"^  \S+ \((\d+) moves?", text, re.MULTILINE)
        assert sum(int(n) for n in counts) == len(legal)
        # Only what the seat may know decides its moves.
        assert [GAME.notation(a) for a in GAME.legal_actions(changed, seat)] == legal
    return changed.stacks != state.stacks or changed.deck != state.deck


def legal_moves_of(text: str) -> list[str]:
    message = EmailMessage()
    message.set_content(text)
    return legal_moves(message)
