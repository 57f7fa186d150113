"""Play by email end to end, loopback only: the notification stack (Redis, API, SMTP sink,
workers) plus a real ``kurier mail-in`` process, and players who read the sink's mails and
answer with smtplib."""

from __future__ import annotations

import random
import smtplib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid

from rq.job import Job
from rq.serializers import JSONSerializer

from engine.core import SYSTEM
from service.common import i18n
from tests.notify_stack import ROOT, NotifyStack
from tests.receivers import free_port, wait_for
from workers.mailview import MOVES_HEADING
from workers.seatmail import LEGAL_HEADING

DOMAIN = "play.test"
#: The turn mail's heading of the grouped moves in every language (a mail speaks its reader's).
MOVES_HEADINGS = frozenset(i18n.gettext(lang, MOVES_HEADING) for lang in i18n.LANGUAGES)
LEGAL_HEADINGS = frozenset(i18n.gettext(lang, LEGAL_HEADING) for lang in i18n.LANGUAGES)
PLAYERS_DOMAIN = "players.test"
#: The environment of a stack whose tests read only the mails' text: the worker leaves the
#: board's pictures out (rasterising them was two thirds of the worker's CPU in a whole game
#: by mail). The pictures are checked by test_mail_design.py, test_mail_size.py and the whole
#: game of test_mail_german.py.
TEXT_ONLY = {"KURIER_MAIL_PICTURES": "0"}


class MailStack(NotifyStack):
    def __init__(self, env: dict[str, str] | None = None) -> None:
        super().__init__(env=env)
        self.mail_port = free_port()
        self.mail_in: subprocess.Popen[bytes] | None = None

    @property
    def env(self) -> dict[str, str]:
        return {**super().env, "KURIER_MAIL_DOMAIN": DOMAIN}

    def start(self) -> MailStack:
        super().start()
        log = open(self.tmp / "mail-in.log", "wb")  # noqa: SIM115
        command = [sys.executable, "-m", "service.cli", "mail-in", "--port", str(self.mail_port)]
        self.mail_in = subprocess.Popen(command, env=self.env, cwd=ROOT, stdout=log, stderr=log)
        wait_for(self._listening, 30, "kurier mail-in to listen")
        return self

    def _listening(self) -> bool:
        assert self.mail_in is not None and self.mail_in.poll() is None, "mail-in exited"
        try:
            socket.create_connection(("127.0.0.1", self.mail_port), timeout=1).close()
        except OSError:
            return False
        return True

    def stop(self) -> None:
        if self.mail_in is not None and self.mail_in.poll() is None:
            self.mail_in.terminate()
            self.mail_in.wait(30)
        super().stop()

    # -- sending ----------------------------------------------------------------------------

    def send(self, message: EmailMessage | bytes, mail_from: str, rcpt: str) -> list[str]:
        """One SMTP transaction to mail-in; returns the ids of the jobs it queued."""
        replies = self.transcript(message, mail_from, rcpt)
        assert all(code == 250 for code, _ in replies), replies
        answer = replies[-1][1]
        return answer.split("queued as ", 1)[1].split(",") if "queued as" in answer else []

    def transcript(
        self, message: EmailMessage | bytes, mail_from: str, rcpt: str
    ) -> list[tuple[int, str]]:
        """What mail-in answers to MAIL, RCPT and DATA: all a sender ever learns."""
        raw = message if isinstance(message, bytes) else as_wire(message)
        with smtplib.SMTP("127.0.0.1", self.mail_port, timeout=30) as smtp:
            smtp.ehlo("players.test")
            replies = [smtp.mail(mail_from), smtp.rcpt(rcpt), smtp.data(raw)]
        return [(code, text.decode()) for code, text in replies]

    def job_result(self, job_id: str, seconds: float = 30) -> str:
        assert self.store is not None
        store = self.store

        def done() -> str | None:
            job = Job.fetch(job_id, connection=store.raw, serializer=JSONSerializer)
            status = job.get_status()
            assert status != "failed", job.latest_result()
            return job.return_value() if status == "finished" else None

        return wait_for(done, seconds, f"inbound job {job_id}")


def as_wire(message: EmailMessage) -> bytes:
    """CRLF line ends, as on the wire (``smtplib.SMTP.data`` sends bytes as they are)."""
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


def plain(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return part.get_content().replace("\r\n", "\n")


def legal_moves(message: EmailMessage) -> list[str]:
    """The moves a mail lists: all of them (an answer to a mail, under ``LEGAL_HEADING``), or
    the examples of each kind (a turn mail, under ``MOVES_HEADING`` in the reader's language:
    every move of a small group, a few of a large one)."""
    lines = plain(message).splitlines()
    heading = next((line for line in lines if line in MOVES_HEADINGS), None)
    if heading is not None:
        out = []
        for line in lines[lines.index(heading) + 1 :]:
            if not line.startswith("  "):
                break
            if line.startswith("      "):
                out.append(line.strip())
        return out
    heading = next((line for line in lines if line in LEGAL_HEADINGS), None)
    if heading is None:
        return []
    out = []
    for line in lines[lines.index(heading) + 1 :]:
        if not line.startswith("  ") or line.strip().startswith(("… and ", "… und ")):
            break  # the end of the list, or the note that it was cut short
        out.append(line.strip())
    return out


def reply_to(
    original: EmailMessage,
    sender: str,
    body: str,
    charset: str = "utf-8",
    to: str | None = None,
) -> EmailMessage:
    """A reply as a mail client writes it: the answer on top, the original quoted below."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to or str(original["Reply-To"])
    message["Subject"] = f"Re: {original['Subject']}"
    message["Message-ID"] = make_msgid(domain=PLAYERS_DOMAIN)
    message["In-Reply-To"] = str(original["Message-ID"])
    quoted = "\n".join(f"> {line}" for line in plain(original).splitlines()[:30])
    text = f"{body}\n\nOn {time.strftime('%a, %d %b %Y')}, Kurier wrote:\n{quoted}\n"
    text = text.encode(charset, "replace").decode(charset)  # a client's charset limits it
    message.set_content(text, charset=charset, cte="quoted-printable")
    return message


def answers_to(stack: MailStack, address: str, message_id: str) -> list[EmailMessage]:
    return [m for m in stack.smtp.to(address) if m["In-Reply-To"] == message_id]


def actionable(stack: MailStack, address: str, version: int) -> EmailMessage | None:
    """The newest mail to ``address`` that lists legal moves for ``version``."""
    for message in reversed(stack.smtp.to(address)):
        if message["X-Kurier-Version"] == str(version) and legal_moves(message):
            return message
    return None


def play_by_mail(
    stack: MailStack, game_id: str, mails: list[str], rng: random.Random, seconds: float
) -> Iterator[tuple[int, EmailMessage, str]]:
    """Play ``game_id`` to its end by email only: the seat to move answers the newest mail
    that lists its legal moves with one of them. Yields (seat, the reply, its move) once the
    move is applied. Bounded: 600 moves and ``seconds``."""
    assert stack.store is not None
    started = time.monotonic()
    for _ in range(600):
        record = stack.store.get_game(game_id)
        if record.status == "finished":
            return
        assert time.monotonic() - started < seconds, f"not over after {seconds} s"
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
        wait_for(
            lambda v=record.version: stack.store.get_game(game_id).version > v,
            20,
            f"{move!r} of seat {seat} to apply",
        )
        yield seat, reply, move
