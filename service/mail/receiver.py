"""``kurier mail-in``: the inbound SMTP server for play by email (aiosmtpd).

It accepts mail only for ``play+<token>@<KURIER_MAIL_DOMAIN>`` (any other recipient is refused
at RCPT), bounds the size, drops a mail it already took (same Message-ID and recipient), and
enqueues one ``workers.mailin.process_inbound`` job per recipient with the raw MIME (base64)
and the envelope. It does no game work itself: the worker checks the token, the sender and
the body, plays, and answers.

Sizes: up to ``SOFT_LIMIT`` the whole mail is queued; up to ``HARD_LIMIT`` only its headers
are, with the size, so the worker can answer the player that the mail was too large; beyond
that the SMTP transaction is refused (552).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import re
import signal
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from service.common.replies import LOCAL_PREFIX, SOFT_LIMIT, fingerprint, mail_domain, message_id_of
from service.store import Store, owed
from service.store.owed import OwedJob
from service.store.queues import DEFAULT_QUEUE, INBOUND_JOB

log = logging.getLogger("kurier.mailin")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 2525
HARD_LIMIT = 4 * 1024 * 1024
MAX_RECIPIENTS = 5
SEEN_TTL = 30 * 86_400


def _digest(message_id: str, recipient: str) -> str:
    """One mail to one recipient: what a relay's retry of the same mail has in common."""
    return hashlib.sha256(f"{message_id} {recipient.lower()}".encode()).hexdigest()


def seen_key(message_id: str, recipient: str) -> str:
    return f"kurier:mail:seen:{_digest(message_id, recipient)}"


class InboundHandler:
    """aiosmtpd handler: checks recipients, then queues the mail (no game work here)."""

    def __init__(self, store: Store, domain: str | None = None) -> None:
        self.store = store
        self.domain = (domain or mail_domain()).lower()
        pattern = rf"^{re.escape(LOCAL_PREFIX)}[a-z0-9.]{{1,60}}@{re.escape(self.domain)}$"
        self.accepts = re.compile(pattern, re.IGNORECASE)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if not self.accepts.match(address):
            return f"550 5.1.1 <{address}>: not a game address of {self.domain}"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        assert isinstance(raw, bytes)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(None, self.accept, envelope, raw)
        except Exception:
            log.exception("mail-in: could not queue a mail")
            return "451 4.3.0 temporary failure, try again later"

    def accept(self, envelope: Envelope, raw: bytes) -> str:
        message_id = message_id_of(raw)
        oversize = len(raw) > SOFT_LIMIT
        body = _headers_only(raw) if oversize else raw
        queued: list[str] = []
        for recipient in envelope.rcpt_tos:
            key = seen_key(message_id, recipient)
            if not self.store.r.set(key, "1", nx=True, ex=SEEN_TTL):
                continue  # delivered before: the first copy is (or was) processed
            try:
                job_id = f"inbound-{_digest(message_id, recipient)[:40]}"
                queued.append(
                    self.enqueue(
                        job_id, envelope.mail_from or "", recipient, body, len(raw), oversize
                    )
                )
            except Exception:
                self.store.r.delete(key)  # not queued: the sender's retry must get through
                raise
        count = len(envelope.rcpt_tos)
        log.info("mail-in: %s for %d recipient(s), %d queued", message_id, count, len(queued))
        return f"250 2.0.0 OK: queued as {','.join(queued)}" if queued else "250 2.0.0 OK: seen"

    def enqueue(
        self, job_id: str, mail_from: str, recipient: str, raw: bytes, size: int, oversize: bool
    ) -> str:
        """Owe the job that reads and plays this mail (service/store/owed.py): once we answered 250
        the sender forgets the mail, so a job lost by a dying worker must be swept back."""
        job = OwedJob(
            id=job_id,
            func=INBOUND_JOB,
            args=(mail_from, recipient, base64.b64encode(raw).decode(), size, oversize),
            queue=DEFAULT_QUEUE,
            timeout=60,
            result_ttl=3600,
            failure_ttl=7 * 86_400,
            # A failed run (the outgoing relay refused the answer) is tried again: the job
            # plays each line once and answers once, however often it runs.
            retry=(30, 120, 600),
            # rq logs the description: never the signed address, which would let a log
            # reader play it.
            description=f"inbound mail for {fingerprint(recipient)}",
        )
        with self.store.queue_raw.pipeline() as pipe:
            owed.owe(pipe, job, self.store.queue_raw)
            pipe.execute()
        return job.id


def _headers_only(raw: bytes) -> bytes:
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end < 0 else end
    head = raw[: end if end >= 0 else min(len(raw), 16_384)][:65_536]
    return head + b"\r\n\r\n"


def controller(store: Store, host: str, port: int, domain: str | None = None) -> Controller:
    """The server (not started). ``port`` must be a real port: aiosmtpd cannot start on 0."""
    return Controller(
        InboundHandler(store, domain),
        hostname=host,
        port=port,
        data_size_limit=HARD_LIMIT,
        decode_data=False,
        server_hostname=domain or mail_domain(),
        ident="Kurier mail-in",
    )


def serve(store: Store, host: str, port: int) -> None:
    """Run until SIGTERM or SIGINT."""
    # aiosmtpd logs each command at INFO and each DATA line at DEBUG: a body may hold a sealed
    # choice, so its logger never goes below WARNING, whatever KURIER_LOG_LEVEL says.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    server = controller(store, host, port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server.start()
    print(f"Kurier mail-in: SMTP on {host}:{port} for play+…@{mail_domain()}", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()


__all__ = ["InboundHandler", "controller", "serve"]
