"""A player's name never changes who gets a mail (issue 36, item 4): the To header is built from
``Address`` objects and the envelope (RCPT TO) is the player's address, given to SMTP
explicitly. Real worker, real SMTP (aiosmtpd): what the sink records is what the relay would
have been told."""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from email.headerregistry import Address
from pathlib import Path

import pytest

from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import Received, wait_for
from workers import mail

#: The names the drill used, and names with non-ASCII letters and line breaks in them.
NAMES = (
    "Smith, Anna",
    "<script>alert(1)</script>",
    "Eve <eve@evil.example>",
    "Jörg Ünal-Çelik 名前",
    "Mallory\r\nBcc: mallory@evil.example",
    "Line\u2028Break",
)
#: What a header can say of each: the same name, with every line break made a space.
SHOWN = {name: " ".join(name.replace("\u2028", " ").split()) for name in NAMES}


@pytest.fixture(scope="module")
def stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


def _received(stack: NotifyStack, address: str) -> list[Received]:
    with stack.smtp.lock:
        return [r for r in stack.smtp.messages if address in r.rcpt_tos]


def test_names_stay_names_and_the_envelope_is_the_players_address(stack: NotifyStack) -> None:
    assert stack.store is not None
    addresses = [f"player{i}@names.test" for i in range(len(NAMES))]
    players = []
    for i, address in enumerate(addresses):
        player, _ = stack.player(f"N{i}", email=address)
        # Straight into the store: whatever the forms accept today or tomorrow, a name once
        # stored must not break a mail.
        stack.store.players.update(player.id, {"name": NAMES[i]})
        players.append(player)
    # Two tables of three: every seat gets the game-started mail (and one its turn).
    games = [stack.game(players[:3], seed="names-1"), stack.game(players[3:], seed="names-2")]
    for address in addresses:
        wait_for(lambda a=address: _received(stack, a), 30, f"the mail to {address}")
    with stack.smtp.lock:
        everything = list(stack.smtp.messages)
    for received in everything:
        # One recipient, the player's own address: no "Smith", no "script", no Eve.
        assert len(received.rcpt_tos) == 1, received.rcpt_tos
        (rcpt,) = received.rcpt_tos
        assert rcpt in addresses, rcpt
        name = NAMES[addresses.index(rcpt)]
        (to,) = received.message["To"].addresses
        assert to == Address(SHOWN[name], addr_spec=rcpt), (name, str(received.message["To"]))
        assert received.message["Bcc"] is None
        assert "\u2028" not in str(received.message["Subject"])
    assert "mallory@evil.example" not in {r for m in everything for r in m.rcpt_tos}
    assert not [m for m in everything if "evil.example" in str(m.rcpt_tos)]
    assert len(games) == 2


def test_a_message_from_a_name_with_line_breaks_still_reaches_the_table(
    stack: NotifyStack,
) -> None:
    """The subject names the writer: a line break in the name used to make ``compose`` raise,
    and the reader got no mail at all."""
    assert stack.store is not None
    k = stack.client
    writer, _ = stack.player("W", email="writer@names.test")
    reader, _ = stack.player("R", email="reader@names.test")
    stack.store.players.update(writer.id, {"name": "Mal\u2028lory\nX"})
    game_id = stack.game([writer, reader], seed="names-3")
    wait_for(lambda: _received(stack, "reader@names.test"), 30, "the reader's first mail")
    r = k.call("POST", f"/v1/games/{game_id}/messages", writer, json={"text": "hello"})
    assert r.status_code == 201, r.text

    def said() -> list[Received]:
        return [
            r for r in _received(stack, "reader@names.test") if "message" in r.message["Subject"]
        ]

    found = wait_for(said, 30, "the message mail")
    assert "Mal lory X" in str(found[0].message["Subject"])
    assert found[0].rcpt_tos == ["reader@names.test"]


def test_the_outbox_keeps_the_envelope_in_delivered_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KURIER_SMTP_URL", raising=False)
    monkeypatch.setenv("KURIER_OUTBOX", str(tmp_path / "outbox"))
    message = mail.compose(
        mail.Mail(to="anna@names.test", to_name="Eve <eve@evil.example>", subject="s", text="t"),
        0.0,
    )
    where = mail.deliver(message, ["anna@names.test"])
    assert where.startswith("maildir:")
    (stored,) = list(mailbox.Maildir(str(tmp_path / "outbox"), create=False))
    assert stored.get_all("Delivered-To") == ["anna@names.test"]
    assert "Eve <eve@evil.example>" in stored["To"] and "anna@names.test" in stored["To"]
    with pytest.raises(ValueError):
        mail.deliver(message, [])
