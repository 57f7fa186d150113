"""Who may play by email, with real servers (a real ``kurier mail-in``, workers and an aiosmtpd
sink) behind a relay that vouches for senders with Authentication-Results: the envelope
sender and the relay's verdict count, not only ``From:``; a sender learns nothing about an
address; the player is warned at most once a day; logs never hold a usable address; a mail
reads the game once."""

from __future__ import annotations

import email
import email.policy
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest

from service.common import replies
from service.common.mailauth import parse_authentication_results, trusted_results, vouched
from service.common.replies import message_id_of
from service.store import Store
from service.store.record import GameRecord
from tests.mail_stack import DOMAIN, MailStack, as_wire, legal_moves, plain, reply_to
from tests.test_mail_play import answer_for, new_game, turn, version
from workers.mailin import Inbound, _process

RELAY = "mx.play.test"
PASS = f"{RELAY}; dkim=pass header.d=players.test; spf=pass smtp.mailfrom=players.test"
INTRUDER = "mallory@evil.test"


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack(env={"KURIER_MAIL_AUTHSERV_ID": RELAY}).start()
    yield s
    s.stop()


def relayed(message: EmailMessage, *results: str) -> bytes:
    """The mail as the relay hands it on: its Authentication-Results prepended, on top."""
    added = "".join(f"Authentication-Results: {result}\r\n" for result in results)
    return f"Received: from players.test by {RELAY}\r\n{added}".encode() + as_wire(message)


def outcome(stack: MailStack, raw: bytes, mail_from: str, rcpt: str) -> str:
    (job,) = stack.send(raw, mail_from, rcpt)
    return stack.job_result(job)


def test_the_envelope_sender_and_the_relays_verdict_must_name_the_player(
    stack: MailStack,
) -> None:
    game_id, mails = new_game(stack, "auth", "mail-auth-1")
    seat, v, mail = turn(stack, game_id, mails)
    me, token, move = mails[seat], str(mail["Reply-To"]), legal_moves(mail)[0]

    # From: is the player's, but the SMTP envelope names someone else.
    spoofed = reply_to(mail, me, move)
    assert outcome(stack, relayed(spoofed, PASS), INTRUDER, token) == "wrong-envelope-sender"
    assert "wrong-envelope-sender" in plain(answer_for(stack, me, spoofed))
    # From: and envelope are the player's, but the relay did not vouch for them: no verdict, a
    # pass from another server, a pass forged below the relay's fail, a pass for another domain.
    cases = [
        (),
        ("evil.test; dmarc=pass header.from=players.test",),
        (f"{RELAY}; dmarc=fail header.from=players.test", PASS),
        (f"{RELAY} 1; dkim=pass header.d=evil.test (signed by the wrong domain)",),
    ]
    for results in cases:
        forged = reply_to(mail, me, move)
        result = outcome(stack, relayed(forged, *results), me, token)
        assert result.startswith("not-authenticated"), (results, result)
    assert version(stack, game_id) == v
    # The relay's own pass, on top: played (a quoted reason and a comment do not confuse it).
    good = reply_to(mail, me, move)
    verdict = f'{RELAY}; dmarc=pass (p=reject) reason="aligned; ok" header.from=players.test'
    assert outcome(stack, relayed(good, verdict), me, token) == "played:1"
    assert f'"{move}": played.' in plain(answer_for(stack, me, good))
    assert version(stack, game_id) > v


def test_a_forger_causes_one_warning_a_day_and_learns_nothing(stack: MailStack) -> None:
    assert stack.store is not None
    game_id, mails = new_game(stack, "nosy", "mail-nosy-1")
    seat, v, mail = turn(stack, game_id, mails)
    me, token, move = mails[seat], str(mail["Reply-To"]), legal_moves(mail)[0]

    first, second = reply_to(mail, INTRUDER, move), reply_to(mail, INTRUDER, move)
    assert outcome(stack, relayed(first, PASS), INTRUDER, token) == "wrong-sender"
    assert "Someone tried to play for you" in plain(answer_for(stack, me, first))
    assert outcome(stack, relayed(second, PASS), INTRUDER, token) == "wrong-sender-not-told"
    keys, key_id = replies.load_keys(stack.store.r)
    unknown = replies.reply_address(keys, key_id, "gnothere0000", 1, time.time(), DOMAIN)[0]
    forged = replies.reply_address({"z": b"k" * 32}, "z", game_id, seat, time.time(), DOMAIN)[0]
    transcripts = []
    for address in (unknown, forged, token):
        probe = reply_to(mail, INTRUDER, move, to=address)
        transcript = stack.transcript(relayed(probe, PASS), INTRUDER, address)
        transcripts.append(
            [(c, re.sub(r"queued as \S+", "queued as <job>", t)) for c, t in transcript]
        )
        job = transcript[-1][1].split("queued as ")[1]
        assert stack.job_result(job) in {
            "no-player-to-answer",
            "bad-signature-not-told",
            "wrong-sender-not-told",
        }
    # An address of no game, a forged one of a real seat and a real one: the same answers.
    assert transcripts[0] == transcripts[1] == transcripts[2], transcripts
    assert not stack.smtp.to(INTRUDER)
    warnings = [m for m in stack.smtp.to(me) if "Someone tried" in plain(m)]
    assert len(warnings) == 1
    assert version(stack, game_id) == v


def test_logs_name_reply_addresses_by_fingerprint_only(stack: MailStack) -> None:
    game_id, mails = new_game(stack, "logs", "mail-logs-1")
    seat, _, mail = turn(stack, game_id, mails)
    me, token = mails[seat], str(mail["Reply-To"])
    good = reply_to(mail, me, "legal")
    assert outcome(stack, relayed(good, PASS), me, token) == "answered"
    answer = answer_for(stack, me, good)
    issued = [str(m["Reply-To"]) for m in stack.smtp.to(me)] + [str(answer["Reply-To"])]
    logs = "".join(p.read_text(errors="replace") for p in stack.tmp.glob("*.log"))
    assert replies.fingerprint(token) in logs
    for address in issued:
        mac = address.partition("@")[0].rpartition(".")[2]
        assert mac not in logs, f"a log holds the reply address {address}"
    assert not re.search(r"play\+[a-z0-9]+\.\d+\.[a-z0-9]{4,12}\.", logs)


def test_authentication_results_are_read_as_rfc_8601_writes_them() -> None:
    server, results = parse_authentication_results(
        'mx.Play.test 1; (a comment; with ";") dkim/1 = pass header.d="players.test" '
        "header.s=k1; spf=softfail smtp.mailfrom=a@players.test; dmarc=pass (p=none)"
    )
    assert server == "mx.play.test"
    assert [(r.method, r.result) for r in results] == [
        ("dkim", "pass"),
        ("spf", "softfail"),
        ("dmarc", "pass"),
    ]
    assert results[0].properties == {"header.d": "players.test", "header.s": "k1"}
    assert vouched(results, "players.test") and vouched(results, "eu.players.test")
    assert not vouched(results[:2], "evil.test")
    assert not parse_authentication_results("mx.play.test; none")[1]
    message = EmailMessage()
    message["Authentication-Results"] = f"{RELAY}; spf=fail smtp.mailfrom=players.test"
    message["Authentication-Results"] = PASS  # lower down: came with the mail
    assert not vouched(trusted_results(message, RELAY), "players.test")


class CountingStore(Store):
    """The real store, counting how often the game is read."""

    reads = 0

    def get_game(self, game_id: str) -> GameRecord:
        self.reads += 1
        return super().get_game(game_id)


def test_a_mail_reads_the_game_once_and_again_only_after_its_own_move(
    stack: MailStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert stack.store is not None
    for name in ("KURIER_SMTP_URL", "KURIER_MAIL_DOMAIN", "KURIER_MAIL_AUTHSERV_ID"):
        monkeypatch.setenv(name, stack.env[name])
    game_id, mails = new_game(stack, "reads", "mail-reads-1")
    seat, v, mail = turn(stack, game_id, mails)
    me, token, move = mails[seat], str(mail["Reply-To"]), legal_moves(mail)[0]
    raw = relayed(reply_to(mail, me, f"legal\nboard\n{move}\nhelp\nlegal"), PASS)
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    store = CountingStore(stack.store.url)
    try:
        inbound = Inbound(me, token, message, message_id_of(raw), len(raw), False)
        assert _process(store, inbound) == "played:1"
    finally:
        store.close()
    # Once when the mail arrives, once after its move (Store.transact reads for itself).
    assert store.reads == 2
    assert version(stack, game_id) > v
