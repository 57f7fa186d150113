"""Signed reply addresses and reading a reply's body, for play by email.

Every notification carries a Reply-To address that names one seat of one game and is signed
with the server's key, e.g.::

    play+g4f2a9c1d0e3b5a67.2.k3v9q2.lz8m1c.a.5dxv3b7q2mfk8c1z@reply.example.org

= ``<game>.<seat>.<nonce>.<expiry>.<key id>.<mac>``. The MAC is the first 16 characters of the
lower-case base32 HMAC-SHA256 of everything before it, so nothing in the address can be
changed without the key. The key id lets an operator rotate keys while older mails still
work. Whether a token was already used is for the caller to check (the nonce is its name).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.policy import default as default_policy
from typing import Any

from mailparser_reply import EmailReplyParser

LOCAL_PREFIX = "play+"
MAC_LENGTH = 16
#: Long enough for a slow correspondence game, short enough that an old leaked mail expires.
DEFAULT_LIFETIME = 60 * 86_400
_TOKEN = re.compile(
    r"^(?P<game>[a-z0-9]{1,24})\.(?P<seat>\d{1,2})\.(?P<nonce>[a-z0-9]{4,12})\."
    r"(?P<expiry>[a-z0-9]{1,10})\.(?P<kid>[a-z0-9]{1,4})\.(?P<mac>[a-z2-7]{16})$"
)
MAX_BODY_LINES = 20
#: Where the embedded default keeps its generated key, so every process signs alike.
KEY_IN_REDIS = "kurier:mail:key"
REDIS_KEY_ID = "r"


class ReplyRejected(Exception):
    """A reply address that cannot be trusted; ``code`` says why (for the answer mail)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ReplyToken:
    game_id: str
    seat: int
    nonce: str
    expires_at: int
    key_id: str


def _mac(key: bytes, signed: str) -> str:
    digest = hmac.new(key, signed.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode().lower()[:MAC_LENGTH]


def reply_address(
    keys: dict[str, bytes],
    key_id: str,
    game_id: str,
    seat: int,
    now: float,
    domain: str,
    lifetime: int = DEFAULT_LIFETIME,
) -> tuple[str, str]:
    """A fresh signed address and its nonce."""
    nonce = base64.b32encode(secrets.token_bytes(5)).decode().lower()
    expiry = _base36(int(now) + lifetime)
    signed = f"{game_id}.{seat}.{nonce}.{expiry}.{key_id}"
    local = f"{LOCAL_PREFIX}{signed}.{_mac(keys[key_id], signed)}"
    assert len(local) <= 64, "RFC 5321 limits the local part to 64 octets"
    return f"{local}@{domain}", nonce


def read_address(address: str, keys: dict[str, bytes], now: float) -> ReplyToken:
    """Check a reply address; raises ``ReplyRejected`` when it is forged, altered or expired."""
    local = address.strip().strip("<>").rpartition("@")[0].lower()
    if not local.startswith(LOCAL_PREFIX):
        raise ReplyRejected("unknown-address", "this address does not belong to a game")
    match = _TOKEN.match(local.removeprefix(LOCAL_PREFIX))
    if match is None:
        raise ReplyRejected("malformed-token", "the reply address is damaged")
    key = keys.get(match["kid"])
    signed = local.removeprefix(LOCAL_PREFIX).rpartition(".")[0]
    if key is None or not hmac.compare_digest(_mac(key, signed), match["mac"]):
        raise ReplyRejected("bad-signature", "the reply address was not issued by this server")
    expires_at = int(match["expiry"], 36)
    if expires_at < now:
        raise ReplyRejected("expired-token", "the mail you answered is too old; use a newer one")
    return ReplyToken(match["game"], int(match["seat"]), match["nonce"], expires_at, match["kid"])


def peek_address(address: str) -> tuple[str, int] | None:
    """Game and seat named by an address, unverified: only to find whom to warn about it."""
    local = address.strip().strip("<>").rpartition("@")[0].lower()
    match = _TOKEN.match(local.removeprefix(LOCAL_PREFIX))
    if not local.startswith(LOCAL_PREFIX) or match is None:
        return None
    return match["game"], int(match["seat"])


def mail_domain() -> str:
    """The domain of reply addresses, Message-IDs and the default sender. Lower-case: mail-in
    matches recipients against it, and domains are case-insensitive anyway."""
    return os.environ.get("KURIER_MAIL_DOMAIN", "kurier.localhost").strip().lower()


def fingerprint(address: str) -> str:
    """What a log may say about a reply address: its game and seat and a short hash that tells
    addresses apart, never the nonce and MAC that would let a log reader play with it."""
    digest = hashlib.sha256(address.strip().strip("<>").lower().encode()).hexdigest()[:12]
    named = peek_address(address)
    return f"{LOCAL_PREFIX}{named[0]}.{named[1]}#{digest}" if named else f"#{digest}"


def load_keys(r: Any) -> tuple[dict[str, bytes], str]:
    """The signing keys and the current key id.

    ``KURIER_MAIL_KEYS`` = ``id:base64,id:base64`` (the first signs, all verify). Without it a
    random key is created once in Redis (``SET NX``), so that all processes agree.
    """
    text = os.environ.get("KURIER_MAIL_KEYS", "").strip()
    if text:
        return parse_keys(text)
    r.set(KEY_IN_REDIS, base64.b64encode(secrets.token_bytes(32)).decode(), nx=True)
    stored = r.get(KEY_IN_REDIS)
    value = stored.decode() if isinstance(stored, bytes) else str(stored)
    return {REDIS_KEY_ID: base64.b64decode(value)}, REDIS_KEY_ID


def parse_keys(text: str) -> tuple[dict[str, bytes], str]:
    keys: dict[str, bytes] = {}
    for item in text.split(","):
        key_id, _, value = item.strip().partition(":")
        if not re.fullmatch(r"[a-z0-9]{1,4}", key_id):
            raise ValueError(f"KURIER_MAIL_KEYS: key id {key_id!r} must be 1-4 of a-z, 0-9")
        try:
            secret = base64.b64decode(value, validate=True)
        except binascii.Error:
            raise ValueError(f"KURIER_MAIL_KEYS: key {key_id!r} is not base64") from None
        if len(secret) < 16:
            raise ValueError(f"KURIER_MAIL_KEYS: key {key_id!r} is shorter than 16 bytes")
        keys[key_id] = secret
    return keys, next(iter(keys))


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
    return out or "0"


def reply_lines(message: Message | EmailMessage) -> list[str]:
    """The lines a player wrote: plain text only, quotes and signatures removed, bounded."""
    text = _plain_text(message)
    latest = EmailReplyParser(languages=["en", "de", "fr", "it"]).parse_reply(text)
    lines = []
    raws = latest.splitlines()
    for index, raw in enumerate(raws):
        line = raw.strip()
        if line == "--" or line.startswith("-- "):
            break  # a signature starts
        following = raws[index + 1].lstrip() if index + 1 < len(raws) else ""
        if line.endswith(":") and following.startswith(">"):
            break  # "On …, … wrote:" above a quote the parser kept (an empty reply)
        if line and not line.startswith(">"):
            lines.append(line)
    return lines[:MAX_BODY_LINES]


def _plain_text(message: Message | EmailMessage) -> str:
    if isinstance(message, EmailMessage):
        part = message.get_body(preferencelist=("plain",))
        if part is not None:
            return _decoded(part)
    for piece in message.walk():
        if piece.get_content_type() == "text/plain" and not piece.get_filename():
            return _decoded(piece)
    return ""


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # an unknown charset name: read what can be read
        return payload.decode("utf-8", errors="replace")


#: A reply bigger than this is not read for moves (it is answered with a note instead).
SOFT_LIMIT = 256 * 1024


def message_id_of(raw: bytes) -> str:
    """The mail's Message-ID, or a stable stand-in (its hash) when it has none."""
    headers = BytesHeaderParser(policy=default_policy).parsebytes(raw)
    found = str(headers.get("Message-ID", "") or "").strip()
    return found[:250] if found else f"<sha256-{hashlib.sha256(raw).hexdigest()}@kurier>"
