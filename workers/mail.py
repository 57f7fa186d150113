"""Outgoing email: compose a notification and hand it to SMTP or to the local outbox.

``KURIER_SMTP_URL`` names the relay: ``smtp://host:25`` (plain), ``smtp+starttls://user:pass@
host:587`` (STARTTLS, then login) or ``smtps://user:pass@host:465`` (TLS from the start).
Without it (the embedded default) messages go to a maildir outbox, so a club server and
``make run`` show real mails without a mail server.
"""

from __future__ import annotations

import mailbox
import os
import re
import smtplib
import ssl
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.headerregistry import Address, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid, parseaddr
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jinja2

from service.common import i18n
from service.common.replies import mail_domain as mail_domain  # the workers import it from here
from service.ops import config

TEMPLATES = Path(__file__).parent / "templates" / "mail"
SMTP_TIMEOUT = 30


@dataclass(frozen=True)
class InlineImage:
    """A picture the HTML part shows by ``cid:<cid>`` (multipart/related)."""

    cid: str
    png: bytes


@dataclass(frozen=True)
class Mail:
    """One message to one player, before it becomes MIME."""

    to: str
    to_name: str
    subject: str
    text: str
    #: Links shown at the end: (label, url).
    links: tuple[tuple[str, str], ...] = ()
    #: The game's thread: every mail of a game references this Message-ID.
    thread_id: str = ""
    message_id: str = ""
    reply_to: str = ""
    extra_headers: dict[str, str] = field(default_factory=dict)
    #: A designed HTML part (workers/mailview.py); empty: the text in a ``<pre>`` block.
    html: str = ""
    #: Pictures the HTML part refers to by ``cid:``, attached inline beside it.
    images: tuple[InlineImage, ...] = ()
    #: The one-click unsubscribe URL (RFC 8058; service/domain/unsubscribe.py), "" for none.
    unsubscribe: str = ""


def sender() -> Address:
    """``KURIER_MAIL_FROM`` (``Name <address>`` or a bare address), else Kurier at the mail
    domain."""
    configured = os.environ.get("KURIER_MAIL_FROM", "").strip()
    if not configured:
        return Address("Kurier", addr_spec=f"kurier@{mail_domain()}")
    name, addr = parseaddr(configured)
    try:
        return Address(display_name(name), addr_spec=addr or configured)
    except (ValueError, IndexError) as error:  # what email's parser raises for a bad address
        raise ValueError(f"KURIER_MAIL_FROM: {configured!r} is not an address: {error}") from None


def one_line(text: str) -> str:
    """``text`` fit for a header: every line break (CR, LF, U+2028, NEL…) and other control
    character becomes a space, runs of white space one space. A header value with a line
    break in it is refused by ``email`` (the mail would never go) or, written by hand, starts
    a header of its own."""
    cleaned = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)
    return " ".join(cleaned.split())


def display_name(text: str) -> str:
    """``text`` fit for a display name: one line, and no RFC 2047 encoded word in it (every
    ``=?`` becomes ``= ?``). An encoded word is decoded by the reader's mail program (and by
    ``email`` itself when it folds the header) after the name was quoted, so a name spelled
    ``=?utf-8?b?PGV2ZUBldmlsLmV4YW1wbGU+?=`` would be shown as ``<eve@evil.example>``, an
    address of its own."""
    return one_line(text).replace("=?", "= ?")


def address(addr: str, name: str = "") -> Address:
    """One mailbox as an ``Address``: the display name is quoted or encoded as it needs, so a
    name such as ``Smith, Anna``, ``Eve <eve@evil.example>`` or an encoded word for an address
    stays a name and never becomes a second recipient."""
    return Address(display_name(name), addr_spec=addr.strip())


class VerbatimHeader(UnstructuredHeader):
    """A header written exactly as its value stands, on one line, never folded or RFC 2047
    encoded: for values a program reads without decoding, such as ``List-Unsubscribe``'s
    ``<URL>`` (RFC 2369). ``email``'s default folding encodes any word longer than a line,
    and a long URL is one word. The value must be printable ASCII; a line may run to RFC
    5322's 998 characters."""

    #: The longest value that fits a 998-character line after the longest such header's name.
    max_length = 998 - len("List-Unsubscribe-Post: ")

    @classmethod
    def parse(cls, value: str, kwds: dict[str, Any]) -> None:
        if (
            not re.fullmatch(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*", value)
            or len(value) > cls.max_length
        ):
            raise ValueError(f"not a one-line printable ASCII header value: {value!r}")
        super().parse(value, kwds)

    def fold(self, *, policy: Any) -> str:
        name = self.name  # type: ignore[attr-defined]  # BaseHeader, mixed in by the registry
        return f"{name}: {self}{policy.linesep}"


def _policy() -> EmailPolicy[EmailMessage]:
    registry = HeaderRegistry()
    for name in ("List-Unsubscribe", "List-Unsubscribe-Post"):
        # The registry makes the header class from BaseHeader and this one (as for its own).
        registry.map_to_type(name, VerbatimHeader)  # type: ignore[arg-type]
    return default_policy.clone(header_factory=registry)


#: The policy of every mail Kurier writes: ``email``'s default, with verbatim list headers.
POLICY = _policy()


def thread_id(game_id: str) -> str:
    """The Message-ID every mail of a game points back to, so clients show one conversation."""
    return f"<game-{game_id}@{mail_domain()}>"


def compose(mail: Mail, now: float) -> EmailMessage:
    message = EmailMessage(policy=POLICY)
    message["From"] = sender()
    message["To"] = address(mail.to, mail.to_name)
    message["Subject"] = one_line(mail.subject)
    message["Date"] = format_datetime(datetime.fromtimestamp(now, UTC))
    message["Message-ID"] = mail.message_id or make_msgid(domain=mail_domain())
    if mail.thread_id:
        message["In-Reply-To"] = mail.thread_id
        message["References"] = mail.thread_id
    if mail.reply_to:
        message["Reply-To"] = address(mail.reply_to)
    message["Auto-Submitted"] = "auto-generated"
    if mail.unsubscribe:
        # RFC 2369 and RFC 8058: a mail program offers "unsubscribe", and its POST of
        # ``List-Unsubscribe=One-Click`` to the URL turns the mails off.
        message["List-Unsubscribe"] = f"<{mail.unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    for name, value in mail.extra_headers.items():
        message[name] = value
    message.set_content(_plain(mail))
    message.add_alternative(mail.html or _html(mail), subtype="html")
    if mail.images:
        # The HTML part becomes multipart/related: the pictures travel with it, so a mail
        # program that blocks remote images still shows them.
        html_part = message.get_body(("html",))
        assert html_part is not None
        for image in mail.images:
            html_part.add_related(
                image.png,
                "image",
                "png",
                cid=f"<{image.cid}>",
                disposition="inline",
                filename=f"{image.cid}.png",
            )
    return message


def _plain(mail: Mail) -> str:
    if mail.html:
        return mail.text.rstrip() + "\n"  # a designed mail's text part has its links
    links = "".join(f"{label}: {url}\n" for label, url in mail.links)
    return f"{mail.text.rstrip()}\n\n{links}".rstrip() + "\n"


def _html(mail: Mail) -> str:
    """The designed HTML part of a mail without one of its own (an invitation, a round's
    start, a message, the sign-in link…): the turn mails' frame, the subject as its heading,
    the text's paragraphs, lines that start with "- " as a list, the first link as a button,
    the unsubscribe link in the footer."""
    stop = next(((label, url) for label, url in mail.links if url == mail.unsubscribe), None)
    links = [(label, url) for label, url in mail.links if (label, url) != stop]
    picture = next((url for _label, url in links if url.endswith(".svg")), "")
    links = [(label, url) for label, url in links if url != picture]
    return (
        environment()
        .get_template("notice.html")
        .render(
            subject=mail.subject,
            lang=i18n.spoken(),
            blocks=_blocks(mail.text),
            picture=picture,
            action=links[0] if links else None,
            links=links[1:],
            stop=stop,
        )
    )


def _blocks(text: str) -> list[list[dict[str, Any]]]:
    """``text``'s paragraphs (split at blank lines), each a list of parts: a line, a URL
    alone on its line, or the list its "- " lines make."""
    blocks = []
    for paragraph in re.split(r"\n[ \t]*\n", text.strip()):
        parts: list[dict[str, Any]] = []
        for line in paragraph.splitlines():
            bare = line.strip()
            if bare.startswith("- "):
                if not (parts and "list" in parts[-1]):
                    parts.append({"list": []})
                parts[-1]["list"].append(bare[2:])
            elif re.fullmatch(r"https?://\S+", bare):
                parts.append({"url": bare})
            elif bare:
                parts.append({"line": line.rstrip()})
        if parts:
            blocks.append(parts)
    return blocks


@cache
def environment() -> jinja2.Environment:
    """The one Jinja environment of the mail templates (workers/templates/mail/), with the
    i18n extension: a template speaks the language of the ``i18n.speaking`` block it is
    rendered in."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    i18n.install_jinja(env)
    return env


def deliver(message: EmailMessage, recipients: Sequence[str]) -> str:
    """Send by SMTP when configured, else drop into the outbox. Returns where it went.

    ``recipients`` is the envelope (RCPT TO), given by the caller: never read back from the
    headers, where a display name could add a recipient."""
    if not recipients:
        raise ValueError("a mail needs at least one recipient")
    url = os.environ.get("KURIER_SMTP_URL", "")
    if not url:
        return _to_outbox(message, recipients)
    _send_smtp(message, recipients, url)
    return f"smtp:{urlsplit(url).hostname}"


def outbox_path() -> Path:
    return config.outbox_path(os.environ)


def _to_outbox(message: EmailMessage, recipients: Sequence[str]) -> str:
    path = outbox_path()
    # Maildir(create=True) makes tmp/new/cur only when the root is new: ensure all of them.
    for sub in ("tmp", "new", "cur"):
        (path / sub).mkdir(parents=True, exist_ok=True)
    # A maildir has no envelope: the recipients go in Delivered-To lines on top, as a local
    # delivery agent writes them (the message itself stays as composed).
    envelope = "".join(f"Delivered-To: {one_line(r)}\n" for r in recipients).encode()
    key = mailbox.Maildir(str(path), create=True).add(envelope + message.as_bytes())
    return f"maildir:{path}/new/{key}"


def _send_smtp(message: EmailMessage, recipients: Sequence[str], url: str) -> None:
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    scheme = parts.scheme.lower()
    if scheme not in {"smtp", "smtp+starttls", "smtps"}:
        raise ValueError(f"KURIER_SMTP_URL: unknown scheme {parts.scheme!r}")
    if scheme == "smtps":
        client: smtplib.SMTP = smtplib.SMTP_SSL(
            host, parts.port or 465, timeout=SMTP_TIMEOUT, context=ssl.create_default_context()
        )
    else:
        client = smtplib.SMTP(host, parts.port or 25, timeout=SMTP_TIMEOUT)
    with client:
        if scheme == "smtp+starttls":
            client.starttls(context=ssl.create_default_context())
        if parts.username:
            client.login(unquote(parts.username), unquote(parts.password or ""))
        client.send_message(message, to_addrs=list(recipients))
