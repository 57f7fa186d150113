"""Outgoing email: compose a notification and hand it to SMTP or to the local outbox.

``KURIER_SMTP_URL`` names the relay: ``smtp://host:25`` (plain), ``smtp+starttls://user:pass@
host:587`` (STARTTLS, then login) or ``smtps://user:pass@host:465`` (TLS from the start).
Without it (the embedded default) messages go to a maildir outbox, so a club server and
``make run`` show real mails without a mail server.
"""

from __future__ import annotations

import mailbox
import os
import smtplib
import ssl
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr
from html import escape
from pathlib import Path
from urllib.parse import unquote, urlsplit

from service.common.replies import mail_domain
from service.ops import config

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
        return Address(one_line(name), addr_spec=addr or configured)
    except (ValueError, IndexError) as error:  # what email's parser raises for a bad address
        raise ValueError(f"KURIER_MAIL_FROM: {configured!r} is not an address: {error}") from None


def one_line(text: str) -> str:
    """``text`` fit for a header: every line break (CR, LF, U+2028, NEL…) and other control
    character becomes a space, runs of white space one space. A header value with a line
    break in it is refused by ``email`` (the mail would never go) or, written by hand, starts
    a header of its own."""
    cleaned = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)
    return " ".join(cleaned.split())


def address(addr: str, name: str = "") -> Address:
    """One mailbox as an ``Address``: the display name is quoted or encoded as it needs, so a
    name such as ``Smith, Anna`` or ``Eve <eve@evil.example>`` stays a name and never becomes
    a second recipient."""
    return Address(one_line(name), addr_spec=addr.strip())


def thread_id(game_id: str) -> str:
    """The Message-ID every mail of a game points back to, so clients show one conversation."""
    return f"<game-{game_id}@{mail_domain()}>"


def compose(mail: Mail, now: float) -> EmailMessage:
    message = EmailMessage()
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
    picture = next((url for label, url in mail.links if url.endswith(".svg")), "")
    # Scaled down on a phone, never past the screen's edge.
    image = (
        f'<p><img src="{escape(picture)}" alt="The board" width="620"'
        ' style="max-width: 100%; height: auto"></p>'
        if picture
        else ""
    )
    links = "".join(
        f'<li><a href="{escape(url)}" style="overflow-wrap: anywhere">{escape(label)}</a></li>'
        for label, url in mail.links
    )
    # pre-wrap keeps the text's own line breaks and columns but wraps a line longer than the
    # screen (a refusal's list of example moves) instead of running it past the right edge.
    return (
        '<!doctype html><html><head><meta name="viewport" content="width=device-width">'
        '</head><body style="font-family: sans-serif">'
        '<pre style="font-family: monospace; font-size: 13px;'
        f' white-space: pre-wrap; overflow-wrap: anywhere">{escape(mail.text)}</pre>'
        f"{image}<ul>{links}</ul></body></html>\n"
    )


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
