"""Who sent an inbound mail: the checks a reply must pass before it may play for a seat.

A mail plays for a seat only when all of these name the seat's registered address:

- the one ``From:`` header;
- the SMTP envelope sender (``MAIL FROM``), which ``kurier mail-in`` passes to the job;
- when ``KURIER_MAIL_AUTHSERV_ID`` names the relay in front of mail-in, that relay's
  ``Authentication-Results`` (RFC 8601): DMARC, or DKIM or SPF aligned with the ``From:``
  domain, must pass.

``From:`` and ``MAIL FROM`` are whatever the sender typed; only the relay's verdict is
evidence. So only results carrying the trusted authserv-id count, and only the topmost header
with that id (the relay prepends its own; a sender can put any header below it).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import getaddresses

AUTHSERV_SETTING = "KURIER_MAIL_AUTHSERV_ID"
_RESULT = re.compile(r'([A-Za-z0-9_.\-/]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s"]+)')


@dataclass(frozen=True)
class Doubt:
    """Why a mail is not taken as the player's: ``code`` for logs, ``detail`` for the player."""

    code: str
    detail: str


@dataclass(frozen=True)
class Result:
    """One ``method=result`` of an Authentication-Results header, with its properties."""

    method: str
    result: str
    properties: dict[str, str]


def trusted_authserv_id() -> str:
    return os.environ.get(AUTHSERV_SETTING, "").strip().lower()


def sender_address(message: EmailMessage) -> str:
    """The one ``From:`` address, lower-case; "" when there is none or several."""
    try:
        found = message.get_all("From") or []
        pairs = getaddresses([str(value) for value in found])
    except (TypeError, ValueError, IndexError):
        return ""
    addresses = [address for _, address in pairs if "@" in address]
    return addresses[0].strip().lower() if len(addresses) == 1 and len(found) == 1 else ""


def envelope_address(mail_from: str) -> str:
    return mail_from.strip().strip("<>").strip().lower()


def doubt(mail_from: str, message: EmailMessage, registered: str, authserv_id: str) -> Doubt | None:
    """None when the mail is the player's by every check in force; else the first failed one."""
    expected = registered.strip().lower()
    sender = sender_address(message)
    if sender != expected:
        return Doubt("wrong-sender", f"a mail from {sender or 'an unreadable sender'}")
    envelope = envelope_address(mail_from)
    if envelope != expected:
        return Doubt(
            "wrong-envelope-sender",
            f"a mail whose From: was your address but whose SMTP sender was {envelope}",
        )
    if authserv_id and not vouched(trusted_results(message, authserv_id), _domain(sender)):
        return Doubt(
            "not-authenticated",
            "a mail whose From: was your address but that your mail provider did not sign "
            "(no DMARC, DKIM or SPF pass for your domain)",
        )
    return None


def trusted_results(message: EmailMessage, authserv_id: str) -> list[Result]:
    """The results of the topmost Authentication-Results header of ``authserv_id``.

    The relay prepends its header above everything the mail came with, and a sender can add
    headers with any id below it, even right below it: so only the first one counts.
    """
    for name, value in message.raw_items():
        if name.strip().lower() != "authentication-results":
            continue
        server, results = parse_authentication_results(str(value))
        if server == authserv_id.lower():
            return results
    return []


def parse_authentication_results(value: str) -> tuple[str, list[Result]]:
    """``authserv-id [version]; method=result prop=value …; …`` (RFC 8601, section 2.2)."""
    segments = _split_unquoted(_without_comments(value), ";")
    head = segments[0].split()
    server = head[0].lower() if head else ""
    results = []
    for segment in segments[1:]:
        pairs = _RESULT.findall(segment)
        if not pairs:
            continue  # "none": no authentication was done
        method, result = pairs[0]
        properties = {key.lower(): _unquoted(text).lower() for key, text in pairs[1:]}
        results.append(Result(method.split("/")[0].lower(), result.lower(), properties))
    return server, results


def vouched(results: list[Result], domain: str) -> bool:
    """A DMARC pass for the From: domain, or an aligned DKIM or SPF pass (and no DMARC fail)."""
    if not domain or any(r.method == "dmarc" and r.result != "pass" for r in results):
        return False
    return any(r.result == "pass" and aligned(_vouched_domain(r, domain), domain) for r in results)


def _vouched_domain(result: Result, from_domain: str) -> str:
    """The domain a passing result speaks for (DMARC evaluates the From: domain itself)."""
    found = result.properties
    if result.method == "dmarc":
        return found.get("header.from", from_domain)
    if result.method == "dkim":
        return found.get("header.d") or found.get("header.i", "")
    return found.get("smtp.mailfrom", "") if result.method == "spf" else ""


def aligned(value: str, domain: str) -> bool:
    """``value`` (a domain or an address) is ``domain`` or a parent domain of it (relaxed)."""
    other = _domain(value)
    return bool(other) and (other == domain or ("." in other and domain.endswith(f".{other}")))


def _domain(address: str) -> str:
    return address.rpartition("@")[2].strip().strip(".").lower()


def _without_comments(value: str) -> str:
    """RFC 5322 comments, ``(…)``, nested and escaped, outside quoted strings, removed."""
    out: list[str] = []
    depth = 0
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\":
            escaped = True
            if depth == 0:
                out.append(char)
        elif char == '"' and depth == 0:
            quoted = not quoted
            out.append(char)
        elif char == "(" and not quoted:
            depth += 1
        elif char == ")" and not quoted and depth:
            depth -= 1
            out.append(" ")
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _split_unquoted(value: str, separator: str) -> list[str]:
    parts = re.split(rf'{re.escape(separator)}(?=(?:[^"]*"[^"]*")*[^"]*$)', value)
    return [part.strip() for part in parts]


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text
