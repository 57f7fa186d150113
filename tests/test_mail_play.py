"""Play by email with real servers: three players play a whole Attila game only by replying to
the mails they receive (an aiosmtpd sink), through a real ``kurier mail-in`` and real workers."""

from __future__ import annotations

import random
import smtplib
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from rq.job import Job
from rq.serializers import JSONSerializer

from engine.core import SYSTEM
from service.common import replies
from service.store.queues import INBOUND_JOB, queue
from tests.mail_stack import (
    DOMAIN,
    TEXT_ONLY,
    MailStack,
    actionable,
    answers_to,
    as_wire,
    legal_moves,
    plain,
    play_by_mail,
    reply_to,
)
from tests.receivers import wait_for

GAME_SECONDS = 300  # a bound, not the expectation: 50-125 s


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack(env=TEXT_ONLY).start()
    s.start_worker()  # two workers: answers and notifications run side by side
    yield s
    s.stop()


def addresses(prefix: str) -> list[str]:
    return [f"{prefix}.{name}@players.test" for name in ("anna", "ben", "cora")]


def new_game(stack: MailStack, prefix: str, seed: str) -> tuple[str, list[str]]:
    mails = addresses(prefix)
    seated = [stack.player(f"{prefix}{i}", email=a)[0] for i, a in enumerate(mails)]
    return stack.game(seated, seed=seed), mails


def test_three_players_play_a_whole_attila_game_by_email(stack: MailStack) -> None:
    assert stack.store is not None
    game_id, mails = new_game(stack, "g", "mail-game-3")
    started = time.monotonic()
    sent = [  # seat, Message-ID, notation
        (seat, str(reply["Message-ID"]), move)
        for seat, reply, move in play_by_mail(stack, game_id, mails, random.Random(3), GAME_SECONDS)
    ]
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
        assert "not played" not in plain(answer[0])  # the quoted mail below was not read
        assert answer[0]["Reply-To"].startswith("play+")
        assert message_id in answer[0]["References"]
    # An answer (it echoes a sealed choice) goes to its sender's registered address only.
    senders = {message_id: mails[seat] for seat, message_id, _ in sent}
    with stack.smtp.lock:
        everything = [r.message for r in stack.smtp.messages]
    for message in everything:
        if message["In-Reply-To"] in senders:
            assert message["To"].addresses[0].addr_spec == senders[message["In-Reply-To"]]
    # No log line repeats a sealed choice (bodies are never logged; aiosmtpd's log is quiet).
    logs = "".join(p.read_text(errors="replace") for p in stack.tmp.glob("*.log"))
    assert "mail-in:" in logs and "inbound mail" in logs
    assert not [move for move in sealed if move.startswith("commit ") and move in logs]
    log = stack.client.all_events(game_id)
    assert [e["version"] for e in log] == list(range(1, record.version + 1))
    print(f"{len(sent)} moves by mail ({len(sealed)} sealed) in {time.monotonic() - started:.1f} s")


# -- bad mail ---------------------------------------------------------------------------------


def turn(stack: MailStack, game_id: str, mails: list[str]) -> tuple[int, int, EmailMessage]:
    """The seat to move, the version, and its newest mail listing legal moves."""
    assert stack.store is not None
    record = stack.store.get_game(game_id)
    seat = next(d["seat"] for d in record.pending if d["seat"] != SYSTEM)
    found = wait_for(
        lambda: actionable(stack, mails[seat], record.version), 20, f"seat {seat}'s mail"
    )
    return seat, record.version, found


def answer_for(stack: MailStack, address: str, reply: EmailMessage) -> EmailMessage:
    found = wait_for(lambda: answers_to(stack, address, str(reply["Message-ID"])), 20, "the answer")
    assert len(found) == 1
    assert found[0]["To"].addresses[0].addr_spec == address
    return found[0]


def version(stack: MailStack, game_id: str) -> int:
    assert stack.store is not None
    return stack.store.get_game(game_id).version


def test_bad_mails_get_clear_answers_and_change_nothing(stack: MailStack) -> None:
    game_id, mails = new_game(stack, "bad", "mail-bad-1")
    seat, v, mail = turn(stack, game_id, mails)
    me = mails[seat]
    legal = legal_moves(mail)
    token = str(mail["Reply-To"])

    def fresh() -> EmailMessage:
        found = actionable(stack, me, v)
        assert found is not None
        return found

    # Tampered: one character of the signature changed; forged: signed with a key we never had.
    local, _, domain = token.partition("@")
    tampered = f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{domain}"
    forged = replies.reply_address({"z": b"k" * 32}, "z", game_id, seat, time.time(), DOMAIN)[0]
    bad = reply_to(mail, me, legal[0], to=tampered)
    stack.send(bad, me, tampered)
    text = plain(answer_for(stack, me, bad))
    assert "not issued by this server" in text and "Nothing was played" in text
    # Anyone may send that: the player hears of such mails once a day (test_mail_trust.py).
    bad = reply_to(mail, me, legal[0], to=forged)
    (job,) = stack.send(bad, me, forged)
    assert stack.job_result(job) == "bad-signature-not-told"
    assert not answers_to(stack, me, str(bad["Message-ID"]))

    # An empty body, garbage, and odd charsets: an error naming the line, with the legal moves.
    cases = [
        ("", "had no move in it"),
        ("hello there\nzz top", 'Line 1 "hello there": not played'),
        ("ход конём", 'Line 1 "ход конём": not played'),
    ]
    for body, expected in cases:
        charset = "koi8-r" if body.startswith("ход") else "utf-8"
        bad = reply_to(fresh(), me, body, charset=charset)
        stack.send(bad, me, str(bad["To"]))
        answer = plain(answer_for(stack, me, bad))
        assert expected in answer, answer
        # The answer shows the moves by kind, as the turn mail does.
        assert set(legal) <= set(legal_moves(answer_for(stack, me, bad)))
    # An unknown charset label: read as far as possible, refused clearly.
    unknown = reply_to(fresh(), me, "zz \xe4\xf6 top", charset="iso-8859-1")
    raw = as_wire(unknown).replace(b'charset="iso-8859-1"', b'charset="x-klingon"')
    assert b"x-klingon" in raw
    stack.send(raw, me, str(unknown["To"]))
    assert 'Line 1 "zz' in plain(answer_for(stack, me, unknown))
    # A legal move with a 1 MB attachment: too large, not played.
    big = reply_to(fresh(), me, legal[0])
    big.add_attachment(b"\x00" * 1_048_576, maintype="application", subtype="octet-stream")
    stack.send(big, me, str(big["To"]))
    text = plain(answer_for(stack, me, big))
    assert "Kurier reads mails of up to 256 KiB" in text and "Nothing was played" in text
    assert version(stack, game_id) == v

    # Refused before any game work: no play+ address, or a token nobody can read.
    with smtplib.SMTP("127.0.0.1", stack.mail_port, timeout=30) as smtp:
        smtp.ehlo("players.test")
        smtp.mail(me)
        for wrong in (f"someone@{DOMAIN}", "play+x@other.test"):
            code, text = smtp.rcpt(wrong)
            assert code == 550 and b"not a game address" in text
    unreadable = reply_to(mail, me, legal[0], to=f"play+hello@{DOMAIN}")
    (job,) = stack.send(unreadable, me, f"play+hello@{DOMAIN}")
    assert stack.job_result(job) == "malformed-token-unanswered"

    # Auto-replies are never answered.
    auto = reply_to(fresh(), me, "I am on holiday")
    auto["Auto-Submitted"] = "auto-replied"
    (job,) = stack.send(auto, me, str(auto["To"]))
    assert stack.job_result(job) == "ignored-auto-reply"
    assert not answers_to(stack, me, str(auto["Message-ID"]))
    assert version(stack, game_id) == v

    # After all that, the newest mail still plays.
    good = reply_to(fresh(), me, legal[0])
    stack.send(good, me, str(good["To"]))
    assert f'"{legal[0]}": played.' in plain(answer_for(stack, me, good))
    assert version(stack, game_id) > v


def test_expired_and_reused_addresses_are_refused(stack: MailStack) -> None:
    assert stack.store is not None
    game_id, mails = new_game(stack, "old", "mail-old-1")
    seat, v, mail = turn(stack, game_id, mails)
    me = mails[seat]
    first = reply_to(mail, me, "legal\nhelp\nboard")
    stack.send(first, me, str(mail["Reply-To"]))
    text = plain(answer_for(stack, me, first))
    assert "legal: your legal moves are below." in text
    assert "`resign` leaves the game" in text and "Commands: legal" in text
    again = reply_to(mail, me, legal_moves(mail)[0])  # the same address a second time
    stack.send(again, me, str(mail["Reply-To"]))
    assert "already used" in plain(answer_for(stack, me, again))

    keys, key_id = replies.load_keys(stack.store.r)
    then = time.time() - replies.DEFAULT_LIFETIME - 60
    expired = replies.reply_address(keys, key_id, game_id, seat, then, DOMAIN)[0]
    late = reply_to(mail, me, legal_moves(mail)[0], to=expired)
    stack.send(late, me, expired)
    assert "too old" in plain(answer_for(stack, me, late))
    assert version(stack, game_id) == v


def test_a_mail_delivered_twice_plays_once_and_lines_run_in_order(stack: MailStack) -> None:
    assert stack.store is not None
    game_id, mails = new_game(stack, "twice", "mail-twice-1")
    seat, v, mail = turn(stack, game_id, mails)
    me = mails[seat]
    move = legal_moves(mail)[0]
    reply = reply_to(mail, me, f"{move}\nlegal\nzz top")
    raw = as_wire(reply)
    (job,) = stack.send(raw, me, str(mail["Reply-To"]))
    assert stack.send(raw, me, str(mail["Reply-To"])) == []  # the same Message-ID: dropped
    assert stack.job_result(job) == "refused:bad-notation"
    # The job itself run twice (as rq may after a crash): replayed, not played or answered again.
    inbound = queue(stack.store.raw)
    args = Job.fetch(job, connection=stack.store.raw, serializer=JSONSerializer).args
    rerun = inbound.enqueue(INBOUND_JOB, args=args)
    assert stack.job_result(rerun.id) == "refused:bad-notation"
    text = plain(answer_for(stack, me, reply))
    assert "The mail you answered showed" not in text  # it was the newest mail
    assert f'Line 1 "{move}": played.' in text
    assert 'Line 3 "zz top": not played' in text and "(bad-notation)" in text
    assert version(stack, game_id) == v + 1


def test_a_reply_to_an_older_turn_is_checked_against_the_current_state(
    stack: MailStack,
) -> None:
    assert stack.store is not None
    game_id, mails = new_game(stack, "late", "mail-late-1")
    seat, _, mail = turn(stack, game_id, mails)
    started = wait_for(
        lambda: [m for m in stack.smtp.to(mails[seat]) if "has started" in m["Subject"]],
        20,
        "the game-started mail",
    )[0]
    move = legal_moves(mail)[0]
    # Play the whole turn from the turn mails, then answer the older game-started mail.
    for _ in range(10):
        current = stack.store.get_game(game_id)
        if not any(d["seat"] == seat for d in current.pending):
            break
        step = wait_for(lambda c=current: actionable(stack, mails[seat], c.version), 20, "mail")
        reply = reply_to(step, mails[seat], legal_moves(step)[0])
        stack.send(reply, mails[seat], str(step["Reply-To"]))
        wait_for(lambda c=current: version(stack, game_id) > c.version, 20, "the move")
    now = version(stack, game_id)
    late = reply_to(started, mails[seat], move)
    stack.send(late, mails[seat], str(started["Reply-To"]))
    text = plain(answer_for(stack, mails[seat], late))
    assert "not played: the game is not waiting for you (not-your-turn)" in text
    assert "The mail you answered showed version" in text
    assert " is to move." in text  # the header names who the game waits for
    assert version(stack, game_id) == now


def test_say_talks_and_resign_leaves_by_mail(stack: MailStack) -> None:
    """``say`` posts to the table, ``say @name`` privately; ``resign`` takes the seat out; a
    mail delivered twice says each line once."""
    assert stack.store is not None
    game_id, mails = new_game(stack, "talk", "mail-talk-1")
    seat, _, mail = turn(stack, game_id, mails)
    me = mails[seat]
    other = (seat + 1) % 3
    names = stack.store.get_game(game_id).names
    lines = f"say good luck, all\nsay @{names[other]} just between us\nresign"
    reply = reply_to(mail, me, lines)
    stack.send(reply, me, str(mail["Reply-To"]))
    text = plain(answer_for(stack, me, reply))
    assert "Line 1: said to the table." in text and "Line 2: said privately" in text
    assert '"resign": played.' in text
    stack.send(reply, me, str(mail["Reply-To"]))  # delivered again: nothing more
    time.sleep(1)
    found, _ = stack.store.messages.read(game_id, None, 10)
    said = [(f["text"], f["to_seat"]) for _, f in found]
    assert said == [("good luck, all", ""), ("just between us", str(other))]
    record = stack.store.get_game(game_id)
    assert record.game.resigned_seats(record.game.load(record.state)) == [seat]
    assert all(d["seat"] != seat for d in record.pending)
