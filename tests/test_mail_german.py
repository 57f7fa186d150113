"""Play by email in German (issue 15, docs/i18n.md): mail-in answers in the player's language
(a German player's bad line, a move out of turn, a good move and ``help`` answered in German;
the notation and the codes stay), and a whole 2-player Attila game played by replying to German
mails until every kind of turn mail has come (a move to make, a sealed choice), then to its end
through the API: every mail (subject, header, the game's sentences, the moves' rules, the reply
instruction, the picture, the final standings) in German, while an English player at another
table of the same server still reads English, of the very same version."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
import requests

from tests.client import play_to_end
from tests.mail_stack import (
    PLAYERS_DOMAIN,
    MailStack,
    actionable,
    legal_moves,
    plain,
    play_by_mail,
    reply_to,
)
from tests.receivers import wait_for
from tests.test_mail_design import inline_pngs
from tests.test_mail_play import answer_for, turn, version

GAME_SECONDS = 300  # a bound, not the expectation
#: The rulebook's German names of Attila's peoples (a sentence naming one is German).
PEOPLES_DE = ("Franken", "Hunnen", "Goten", "Sachsen", "Teutonen", "Vandalen")
#: Words of the English mail templates: none may appear in a German player's mail.
ENGLISH = (
    "Hello ",
    "Since your last move",
    "Reply to this mail",
    "Your moves",
    "Your turn",
    "for example",
    "Final standings",
    "The game on the web",
    "Board picture",
    "is to move",
    "The game is over",
    "Only you see this",
    " game ",
)


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack().start()
    s.start_worker()  # two workers: answers and notifications run side by side
    yield s
    s.stop()


def test_a_german_player_gets_german_answers(stack: MailStack) -> None:
    mails = [f"de.{name}@players.test" for name in ("anna", "ben")]
    seated = [
        stack.player(f"de{i}", email=address, language="de")[0] for i, address in enumerate(mails)
    ]
    game_id = stack.game(seated, seed="mail-german-1")
    seat, v, mail = turn(stack, game_id, mails)
    me = mails[seat]
    legal = legal_moves(mail)

    bad = reply_to(mail, me, "zz top\nhelp")
    stack.send(bad, me, str(bad["To"]))
    text = plain(answer_for(stack, me, bad))
    assert text.startswith(f"Hallo de{seat},")
    # The line read as no move: the reason in German, the notation's examples as they are.
    refused = "Zeile 1 „zz top“: nicht gespielt: 'zz top' lässt sich nicht lesen: erwartet z. B."
    assert f"{refused} 'V ITA', " in text, text
    assert "Die Zeilen danach wurden nicht gelesen." in text
    assert "Bild des Spielbretts" in text or "board.svg?lang=de" in text
    assert "Deine Züge, nach Art:" in text
    assert "Your legal moves" not in text and "Your moves" not in text
    # The notation stays: the answer shows the moves by kind, as the turn mail does.
    assert set(legal) <= set(legal_moves(answer_for(stack, me, bad)))
    assert version(stack, game_id) == v

    # The other player is not on turn: the game's reason is German too, its code stays.
    other = mails[1 - seat]
    theirs = wait_for(
        lambda: [m for m in notifications(stack, other) if m["Reply-To"]], 20, "their mail"
    )[-1]
    early = reply_to(theirs, other, legal[0])
    stack.send(early, other, str(theirs["Reply-To"]))
    text = plain(answer_for(stack, other, early))
    assert "nicht gespielt: das Spiel wartet gerade nicht auf dich (not-your-turn)." in text, text
    assert version(stack, game_id) == v

    fresh = actionable(stack, me, v)
    assert fresh is not None
    good = reply_to(fresh, me, f"help\n{legal[0]}")
    stack.send(good, me, str(good["To"]))
    text = plain(answer_for(stack, me, good))
    assert "help: so spielst du per Mail." in text
    assert f"Zeile 2 „{legal[0]}“: gespielt." in text
    assert version(stack, game_id) > v


def notifications(stack: MailStack, address: str) -> list[EmailMessage]:
    """The game's own mails to ``address`` (not the answers to the player's mails)."""
    return [
        m
        for m in stack.smtp.to(address)
        if not str(m["In-Reply-To"] or "").endswith(f"@{PLAYERS_DOMAIN}>")
    ]


def test_two_german_players_play_a_whole_game_by_email_in_german(stack: MailStack) -> None:
    assert stack.store is not None
    mails = [f"ganz.{name}@players.test" for name in ("anna", "ben")]
    seated = [stack.player(f"Spieler{i}", email=a, language="de")[0] for i, a in enumerate(mails)]
    game_id = stack.game(seated, seed="mail-german-game-2")
    started = time.monotonic()
    rng = random.Random(15)
    sent = 0
    for _move in play_by_mail(stack, game_id, mails, rng, GAME_SECONDS):
        sent += 1
        if sent % 10 == 0 and _every_kind_mailed(stack, mails):
            break
    # The rest through the API: its turn mails are read as the others are, the last one too.
    play_to_end(stack.client, game_id, seated, rng, max_seconds=GAME_SECONDS)
    record = stack.store.get_game(game_id)
    assert record.status == "finished", f"{sent} moves by mail"
    winners = [record.names[s] for s in record.result["winners"]] if record.result else []
    assert winners

    # The game-over mail, to each player, in German.
    for address in mails:
        over = wait_for(
            lambda a=address: [
                m for m in notifications(stack, a) if m["Subject"].endswith("das Spiel ist aus")
            ],
            20,
            f"the game-over mail to {address}",
        )[-1]
        text = plain(over)
        assert over["Subject"] == f"Attila, Spiel {game_id}: das Spiel ist aus"
        assert "Das Spiel ist aus: " in text and "gewonnen." in text and "Endstand:" in text
        assert re.search(r"^  1\. .+: \d+ Punkte? \(Sieger\)$", text, re.M), text
        assert '<html lang="de">' in str(over.get_body(("html",)).get_content())

    seen = [m for address in mails for m in notifications(stack, address)]
    assert len(seen) >= 10, len(seen)
    sentences = []
    for message in seen:
        text = plain(message)
        assert message["Subject"].startswith(f"Attila, Spiel {game_id}: "), message["Subject"]
        assert text.startswith("Hallo Spieler"), text[:80]
        english = [word for word in ENGLISH if word in text or word in message["Subject"]]
        assert not english, f"English in a German mail: {english}\n{text}"
        html = str(message.get_body(("html",)).get_content())
        assert not [word for word in ENGLISH if word in html], html
        if "-seats_filled-" in str(message["Message-ID"]):
            continue  # the table is full, the game not started (if it came before the start)
        # The picture of the mailed version rides inline, labelled in German.
        pngs = inline_pngs(message)
        assert pngs and all(png.startswith(b"\x89PNG") for png in pngs.values())
        assert all(f"cid:{cid}" in html for cid in pngs)
        assert 'alt="Das Spielbrett' in html
        sentences += [line for line in text.splitlines() if line.startswith("- ")]
    # The header line, the grouped moves' rules and the reply instruction of a turn mail.
    turns = [plain(m) for m in seen if legal_moves(m)]
    assert turns
    assert all(
        re.search(r"^(Du bist am Zug|Deine verdeckte Wahl), Spieler", t, re.M) for t in turns
    )
    assert all("Antworte auf diese Mail mit deinem Zug, z. B. „" in t for t in turns)
    assert any("Deine Züge, nach Art:" in t and "Karte spielen und einen Stein" in t for t in turns)
    # The game's own sentences, with the rulebook's peoples.
    assert any(any(people in line for people in PEOPLES_DE) for line in sentences), sentences
    print(f"{sent} moves by mail in German, the game over in {time.monotonic() - started:.1f} s")


def _every_kind_mailed(stack: MailStack, mails: list[str]) -> bool:
    """Whether the players were mailed a move to make and a sealed choice, with the moves'
    rules of a card and a stone."""
    turns = [plain(m) for address in mails for m in notifications(stack, address)]
    turns = [text for text in turns if "Antworte auf diese Mail" in text]
    return all(
        any(re.search(pattern, text, re.M) for text in turns)
        for pattern in (
            r"^Du bist am Zug",
            r"^Deine verdeckte Wahl",
            "Karte spielen und einen Stein",
        )
    )


def test_an_english_player_reads_english_of_the_same_version(stack: MailStack) -> None:
    """One German and one English player at one table: each mail in its reader's language,
    the pictures of the same version rendered once per language."""
    mails = ["mixed.greta@players.test", "mixed.henry@players.test"]
    greta = stack.player("Greta", email=mails[0], language="de")[0]
    henry = stack.player("Henry", email=mails[1])[0]
    game_id = stack.game([greta, henry], seed="mail-german-mixed-1")
    seat, v, mail = turn(stack, game_id, mails)
    me, other = mails[seat], mails[1 - seat]
    # Both players are told of the start: the same version, a mail each.
    started = {
        address: wait_for(
            lambda a=address: [m for m in notifications(stack, a) if m["X-Kurier-Version"]],
            20,
            f"a mail to {address}",
        )[0]
        for address in mails
    }
    german, english = plain(started[mails[0]]), plain(started[mails[1]])
    assert german.startswith("Hallo Greta,") and "Hello" not in german
    assert english.startswith("Hello Henry,") and "Hallo" not in english
    assert started[mails[0]]["Subject"].startswith(f"Attila, Spiel {game_id}: ")
    assert started[mails[1]]["Subject"].startswith(f"Attila game {game_id}: ")
    assert "Franken" in german and "Franks" in english  # the text summary's peoples
    assert "Jahrhundert" in german and "Century" in english
    if started[mails[0]]["X-Kurier-Version"] == started[mails[1]]["X-Kurier-Version"]:
        # One version, two languages: two renders (the cache is keyed by language too).
        assert set(inline_pngs(started[mails[0]]).values()).isdisjoint(
            inline_pngs(started[mails[1]]).values()
        )
    legal = legal_moves(mail)
    reply = reply_to(mail, me, legal[0])
    stack.send(reply, me, str(mail["Reply-To"]))
    answer = plain(answer_for(stack, me, reply))
    assert ("gespielt." in answer) == (me == mails[0])
    assert ('": played.' in answer) == (me == mails[1])
    assert version(stack, game_id) > v
    assert other


def test_the_sign_in_link_mail_speaks_the_players_language(stack: MailStack) -> None:
    """The mail the web sign-in page sends: German for a German player, whatever the page's
    language; English for a player who never chose (and an English page)."""
    german, english = "signin.ines@players.test", "signin.jack@players.test"
    stack.player("Ines", email=german, language="de")
    stack.player("Jack", email=english)
    for address in (german, english):
        asked = requests.post(
            f"{stack.base}/signin",
            data={"email": address},
            headers={"Accept-Language": "en-US"},
            timeout=10,
        )
        assert asked.status_code == 200
    ines = wait_for(lambda: stack.smtp.to(german), 20, "the sign-in mail to Ines")[0]
    assert ines["Subject"] == "Dein Kurier-Anmeldelink"
    assert "Als Ines anmelden:" in plain(ines) and "/signin/" in plain(ines)
    assert "Sign in" not in plain(ines)
    jack = wait_for(lambda: stack.smtp.to(english), 20, "the sign-in mail to Jack")[0]
    assert jack["Subject"] == "Your Kurier sign-in link" and "Sign in as Jack:" in plain(jack)


def test_table_talk_reaches_a_german_player_in_german(stack: MailStack) -> None:
    """A message to the table and a private one (``notify_message``: the mail of one message,
    no window in the tests): German words round the writer's own text."""
    mails = ["talk.karla@players.test", "talk.lars@players.test"]
    karla = stack.player("Karla", email=mails[0], language="de")[0]
    lars = stack.player("Lars", email=mails[1])[0]
    game_id = stack.game([karla, lars], seed="mail-german-talk-1")
    k = stack.client
    said = k.call("POST", f"/v1/games/{game_id}/messages", lars, json={"text": "good luck"})
    assert said.status_code == 201, said.text
    private = {"text": "just for you", "to_seat": 0}
    assert k.call("POST", f"/v1/games/{game_id}/messages", lars, json=private).ok

    def talk(address: str) -> list[EmailMessage]:
        return [m for m in stack.smtp.to(address) if "Lars" in str(m["Subject"])]

    found = wait_for(lambda: len(talk(mails[0])) >= 2 and talk(mails[0]), 20, "two talk mails")
    texts = {plain(m) for m in found}
    assert all(m["Subject"] == f"Attila, Spiel {game_id}: eine Nachricht von Lars" for m in found)
    assert any("Lars schrieb an den Tisch:" in t and "good luck" in t for t in texts), texts
    assert any("Lars schrieb dir privat:" in t and "just for you" in t for t in texts), texts
    assert all(t.startswith("Hallo Karla,") and "wrote" not in t for t in texts)
