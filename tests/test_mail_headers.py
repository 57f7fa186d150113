"""The headers a mail program acts on, read from the bytes that go out.

``List-Unsubscribe`` must carry its ``<URL>`` as it is (RFC 2369, RFC 8058): a mail program
looks for the angle brackets in the raw header and does not decode RFC 2047 words there. A
display name is only ever a name: a name spelled as an encoded word (``=?utf-8?b?...?=``) must
not decode, in the reader's mail program, into a second address."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage

import pytest

from workers import mail

#: Public unsubscribe URLs as long as real ones: a host, the path and a signed token.
URLS = (
    "https://k.example/unsubscribe/t",
    "https://kurier.example.org/unsubscribe/"
    "eyJwIjoiUDEyMyIsImsiOiJ0dXJucyJ9.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU",
    "https://play.a-rather-long-club-domain-name.example.org/kurier/unsubscribe/" + "x" * 120,
)

#: Display names that are, or contain, RFC 2047 encoded words for an address.
ENCODED_NAMES = (
    "=?utf-8?b?PGV2ZUBldmlsLmV4YW1wbGU+?=",  # "<eve@evil.example>"
    "Ann =?utf-8?q?=3Ceve=40evil=2Eexample=3E?= x",
    '"=?utf-8?b?PGV2ZUBldmlsLmV4YW1wbGU+?="',
    "=?iso-8859-1?q?Eve_=3Ceve=40evil=2Eexample=3E?=",
    "==?utf-8?b?PGV2ZUBldmlsLmV4YW1wbGU+?=?=",
)


def _sent(message: EmailMessage) -> tuple[bytes, EmailMessage]:
    raw = message.as_bytes()
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return raw, parsed


def _raw_header(raw: bytes, name: str) -> str:
    head = raw.split(b"\n\n", 1)[0].decode("ascii")
    unfolded = re.sub(r"\r?\n[ \t]", " ", head)
    (line,) = [h for h in unfolded.splitlines() if h.lower().startswith(name.lower() + ":")]
    return line.split(":", 1)[1].strip()


@pytest.mark.parametrize("url", URLS)
def test_list_unsubscribe_goes_out_as_the_url_in_angle_brackets(url: str) -> None:
    message = mail.compose(
        mail.Mail(to="anna@headers.test", to_name="Anna", subject="s", text="t", unsubscribe=url),
        0.0,
    )
    raw, parsed = _sent(message)
    assert _raw_header(raw, "List-Unsubscribe") == f"<{url}>"
    assert _raw_header(raw, "List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    assert str(parsed["List-Unsubscribe"]) == f"<{url}>"
    assert all(len(line) <= 998 for line in raw.splitlines())


@pytest.mark.parametrize("name", ENCODED_NAMES)
def test_an_encoded_word_in_a_name_never_becomes_an_address(name: str) -> None:
    message = mail.compose(
        mail.Mail(
            to="m3@headers.test",
            to_name=name,
            subject="s",
            text="t",
            reply_to="play+g.1.2.mac@reply.headers.test",
        ),
        0.0,
    )
    raw, parsed = _sent(message)
    (to,) = parsed["To"].addresses
    assert to.addr_spec == "m3@headers.test", _raw_header(raw, "To")
    assert "evil" not in to.addr_spec
    # The only address in the raw header is the player's: no mail program can read another.
    assert re.findall(r"<([^<>]*)>", _raw_header(raw, "To")) == ["m3@headers.test"]
    assert "evil.example" not in _raw_header(raw, "To")
    # The name is still shown, recognisably, with its encoded word defused.
    assert "utf-8" in to.display_name or "iso-8859-1" in to.display_name
    (reply_to,) = parsed["Reply-To"].addresses
    assert reply_to.addr_spec == "play+g.1.2.mac@reply.headers.test"


def test_plain_and_accented_names_are_kept_as_they_are() -> None:
    for name in ("Anna", "Smith, Anna", "Jörg Ünal-Çelik", "Eve <eve@evil.example>", "a=b?c"):
        message = mail.compose(
            mail.Mail(to="m3@headers.test", to_name=name, subject="s", text="t"), 0.0
        )
        _raw, parsed = _sent(message)
        (to,) = parsed["To"].addresses
        assert (to.display_name, to.addr_spec) == (name, "m3@headers.test")


def test_a_configured_sender_name_cannot_encode_an_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "KURIER_MAIL_FROM", "=?utf-8?b?PGV2ZUBldmlsLmV4YW1wbGU+?= <club@headers.test>"
    )
    raw, parsed = _sent(
        mail.compose(mail.Mail(to="m3@headers.test", to_name="", subject="s", text="t"), 0.0)
    )
    (sender,) = parsed["From"].addresses
    assert sender.addr_spec == "club@headers.test"
    assert "evil.example" not in _raw_header(raw, "From")
