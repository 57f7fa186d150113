"""The turn mail as people get it (docs/notifications.md, "What a turn mail contains"): real
SMTP (aiosmtpd) and the real worker. The HTML part is multipart/related with the board of the
mailed version as a PNG referred to by ``cid:``; the text part is complete on its own (the
moves grouped by kind, the reply instruction, no Python lists); no other seat's hand appears.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from engine.core import SYSTEM
from engine.registry import get_game
from service.common import i18n
from service.pictures import png as picture_png
from tests.client import Kurier, play_to_end
from tests.mail_stack import legal_moves, plain
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import wait_for
from workers import mail, mailview

GAME = get_game("attila")
#: A Python list or dict printed into words: "[3, 0]", "['F', 'H']", "{'0': ...}".
PYTHON_LITERAL = re.compile(r"\[\s*(\d|'|\")|\{\s*['\"]")


@pytest.fixture(scope="module")
def stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


def turn_mail(stack: NotifyStack, address: str, version: int) -> EmailMessage:
    """The mail to ``address`` of ``version`` that asks for a move."""

    def found() -> EmailMessage | None:
        for message in stack.smtp.to(address):
            if message["X-Kurier-Version"] == str(version) and legal_moves(message):
                return message
        return None

    return wait_for(found, 30, f"the turn mail of version {version} to {address}")


def inline_pngs(message: EmailMessage) -> dict[str, bytes]:
    """The inline pictures of the HTML part, by Content-ID (without the brackets)."""
    html = message.get_body(("html",))
    assert html is not None
    related = next(
        part
        for part in message.walk()
        if part.get_content_type() == "multipart/related" and html in part.iter_parts()
    )
    return {
        str(part["Content-ID"]).strip("<>"): part.get_content()
        for part in related.iter_parts()
        if part.get_content_type() == "image/png"
    }


def play_one(k: Kurier, game_id: str, players: list, rng: random.Random) -> None:
    view = k.view(game_id)
    decision = next(d for d in view["waiting_for"] if d["seat"] != SYSTEM)
    player = players[decision["seat"]]
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
    action = rng.choice(legal["actions"])
    r = k.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        player,
        json={"notation": action["notation"]},
        headers={"If-Match": f'"{view["version"]}"'},
    )
    assert r.status_code in (200, 202), r.text
    deadline = time.monotonic() + 30
    while k.view(game_id)["version"] <= view["version"]:
        assert time.monotonic() < deadline, "the version did not move"
        time.sleep(0.05)


def next_turn(k: Kurier, game_id: str, players: list, rng: random.Random) -> None:
    """Moves until another seat is to move (a turn mail goes out when the turn passes)."""
    before = [d["seat"] for d in k.view(game_id)["waiting_for"]]
    for _ in range(10):
        play_one(k, game_id, players, rng)
        view = k.view(game_id)
        if view["status"] != "active" or [d["seat"] for d in view["waiting_for"]] != before:
            return
    raise AssertionError("the turn did not pass in 10 moves")


def expected_pngs(stack: NotifyStack, game_id: str, seat: int) -> list[bytes]:
    """The pictures of the game as it is now, rendered here as the worker renders them for
    ``seat`` (this process's cache is its own)."""
    assert stack.store is not None
    record = stack.store.get_game(game_id)
    return [p.png for p in mailview.mail_pictures(stack.store, record, seat)]


def hand_line(k: Kurier, game_id: str, player: object) -> str:
    own = k.view(game_id, player)["view"]
    return "Your hand: " + " ".join(GAME.board.people(p).letter for p in own["hand"])


def test_turn_mail_carries_the_picture_of_its_version_and_reads_on_its_own(
    stack: NotifyStack,
) -> None:
    if picture_png.missing_fonts():
        pytest.skip("the DejaVu fonts are not installed")
    k = stack.client
    players = [stack.player(n, email=f"{n.lower()}@design.test")[0] for n in ("Anna", "Bruno")]
    address = ["anna@design.test", "bruno@design.test"]
    game_id = stack.game(players, seed="design-1")
    rng = random.Random(7)
    next_turn(k, game_id, players, rng)  # a last move to mark and to tell

    view = k.view(game_id)
    seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] != SYSTEM)
    first = turn_mail(stack, address[seat], view["version"])
    expected = expected_pngs(stack, game_id, seat)
    hands = {s: hand_line(k, game_id, p) for s, p in enumerate(players)}

    # multipart/related: each PNG's Content-ID is what the HTML refers to by cid:.
    html_part = first.get_body(("html",))
    assert html_part is not None
    html = html_part.get_content()
    pngs = inline_pngs(first)
    assert pngs, "no inline picture"
    for cid in pngs:
        assert f'src="cid:{cid}"' in html
    assert list(pngs.values()) == expected  # the board of exactly this version
    assert all(png.startswith(b"\x89PNG\r\n\x1a\n") for png in pngs.values())
    assert f"{stack.base}/games/{game_id}" in html  # the live web page of the game

    # Further moves: the mail of this version keeps this version's picture, and the next
    # turn mail carries the next one.
    next_turn(k, game_id, players, rng)
    later = k.view(game_id)
    if later["status"] == "active":
        seat2 = next(d["seat"] for d in later["waiting_for"] if d["seat"] != SYSTEM)
        second = turn_mail(stack, address[seat2], later["version"])
        assert list(inline_pngs(second).values()) == expected_pngs(stack, game_id, seat2)
        assert inline_pngs(second) != pngs
    assert list(inline_pngs(first).values()) == expected

    # The text part: whose turn, the moves by kind, how to reply; no Python list anywhere.
    text = plain(first)
    name = ("Anna", "Bruno")[seat]
    assert f"Your turn, {name}:" in text and f"Your turn, {name}:" in html
    assert mailview.MOVES_HEADING in text
    assert "Reply to this mail with your move, e.g." in text
    assert "Reply to this mail with your move, e.g." in html
    assert not PYTHON_LITERAL.search(text), text
    assert not PYTHON_LITERAL.search(html_part.get_content())
    for move in legal_moves(first):
        GAME.parse(move)  # every example is a move in notation

    # The reader's own hand, in both parts; the other seat's nowhere in the mail.
    assert hands[seat] in text and hands[seat] in html
    raw = first.as_string()
    for other, line in hands.items():
        if other != seat and line != hands[seat]:
            assert line not in raw


def test_the_moves_of_each_kind_add_up_to_the_legal_moves(stack: NotifyStack) -> None:
    k = stack.client
    players = [stack.player(n, email=f"{n.lower()}@count.test")[0] for n in ("Cleo", "Dora")]
    address = ["cleo@count.test", "dora@count.test"]
    game_id = stack.game(players, seed="design-2")
    view = k.view(game_id)
    seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] != SYSTEM)
    text = plain(turn_mail(stack, address[seat], view["version"]))
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()
    notations = [a["notation"] for a in legal["actions"]]
    counts = re.findall(r"^  (\S+) \((\d+) moves?", text, re.MULTILINE)
    assert counts and sum(int(n) for _, n in counts) == len(notations)
    # One group per kind of action, each action in exactly one.
    kinds = [GAME.parse(n).kind for n in notations]
    assert {kind: int(n) for kind, n in counts} == {kind: kinds.count(kind) for kind in kinds}


def test_without_fonts_the_mail_goes_out_without_its_picture(
    stack: NotifyStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The renderer refuses without its fonts: the mail still goes, with the text view."""
    k = stack.client
    players = [stack.player(n, email=f"{n.lower()}@nofont.test")[0] for n in ("Emil", "Fritz")]
    game_id = stack.game(players, seed="design-3")
    assert stack.store is not None
    record = stack.store.get_game(game_id)
    seat = next(d["seat"] for d in record.pending if d["seat"] != SYSTEM)
    monkeypatch.setattr(picture_png, "DEJAVU_DIR", tmp_path)  # an empty font directory
    turn = mailview.turn_mail(
        stack.store, record, seat, "Emil", told=["The game has started."], asked=True, links=()
    )
    assert turn.pictures == ()
    html = mailview.render_html(turn, "subject")
    assert "cid:" not in html and "Your hand:" in html
    message = mail.compose(
        mail.Mail(to="e@nofont.test", to_name="Emil", subject="s", text="t", html=html), 0.0
    )
    assert message.get_body(("html",)) is not None
    assert not [p for p in message.walk() if p.get_content_type() == "image/png"]
    assert k.view(game_id)["status"] == "active"


def test_mail_pictures_off_leaves_them_out_and_the_text_in(
    stack: NotifyStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``KURIER_MAIL_PICTURES=0`` (the whole games by mail that read only the text): a turn
    mail without pictures, its text view whole; 1, the default, has them."""
    players = [stack.player(n, email=f"{n.lower()}@nopic.test")[0] for n in ("Gerd", "Hilde")]
    game_id = stack.game(players, seed="design-nopic")
    assert stack.store is not None
    record = stack.store.get_game(game_id)
    seat = next(d["seat"] for d in record.pending if d["seat"] != SYSTEM)

    def turn() -> mailview.TurnMail:
        return mailview.turn_mail(stack.store, record, seat, "Gerd", told=[], asked=True, links=())

    monkeypatch.setenv("KURIER_MAIL_PICTURES", "0")
    without = turn()
    assert without.pictures == ()
    assert "cid:" not in mailview.render_html(without, "subject")
    monkeypatch.setenv("KURIER_MAIL_PICTURES", "1")
    if not picture_png.missing_fonts():
        assert turn().pictures != ()
    assert turn().view_text == without.view_text


def test_the_wargame_mail_has_the_crop_round_the_last_move_and_the_overview(
    stack: NotifyStack,
) -> None:
    if picture_png.missing_fonts():
        pytest.skip("the DejaVu fonts are not installed")
    k = stack.client
    players = [stack.player(n, email=f"{n.lower()}@war.test")[0] for n in ("Gaius", "Hunor")]
    game_id = stack.game(players, seed="design-war", game_type="attila-wargame")
    assert stack.store is not None
    moved = False
    for _ in range(12):  # the sealed notes, then a unit's move
        view = k.view(game_id)
        decision = next(d for d in view["waiting_for"] if d["seat"] != SYSTEM)
        player = players[decision["seat"]]
        legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()["actions"]
        moves = [a for a in legal if a["notation"].startswith("move ")]
        action = (moves or legal)[0]
        r = k.call(
            "POST",
            f"/v1/games/{game_id}/actions",
            player,
            json={"notation": action["notation"]},
            headers={"If-Match": f'"{view["version"]}"'},
        )
        assert r.status_code in (200, 202), r.text
        wait_for(lambda v=view["version"]: k.view(game_id)["version"] > v, 30, "the move")
        if moves:
            moved = True
            break
    assert moved, "no unit moved"
    record = stack.store.get_game(game_id)
    seat = next(d["seat"] for d in record.pending if d["seat"] != SYSTEM)
    made = mailview.mail_pictures(stack.store, record, seat)
    assert [p.cid.split("-")[0] for p in made] == ["crop", "map"]
    crop, overview = (p.png for p in made)
    assert crop != overview


def test_the_last_mail_tells_the_standings_in_words(stack: NotifyStack) -> None:
    """A whole game (random moves over HTTP): the game-over mail names the winner and has
    the final table by name and points, never a Python list."""

    k = stack.client
    players = [stack.player(n, email=f"{n.lower()}@end.test")[0] for n in ("Ida", "Jan")]
    game_id = stack.game(players, seed="design-end")
    final, _, _ = play_to_end(k, game_id, players, random.Random(5), max_seconds=120)
    assert final["status"] == "finished"
    result = final["result"]

    def over() -> EmailMessage | None:
        mails = [m for m in stack.smtp.to("ida@end.test") if "is over" in plain(m)]
        return mails[-1] if mails else None

    text = plain(wait_for(over, 60, "the game-over mail"))
    winners = ", ".join(("Ida", "Jan")[s] for s in result["winners"])
    assert f"The game is over: {winners} won." in text
    assert "Final standings:" in text
    for seat, name in enumerate(("Ida", "Jan")):
        points = result["scores"][seat]
        assert re.search(rf"^  \d\. {name}: {points} points?", text, re.MULTILINE), text
    assert not PYTHON_LITERAL.search(text), text


def test_a_mail_without_a_board_is_designed_too() -> None:
    """An invitation, a round's start, a message, the sign-in link: the turn mails' frame with
    the subject as its heading, the paragraphs, "- " lines as a list, a URL alone on its line
    as a link, the first link as a button and the unsubscribe link in the footer. What a
    player wrote is escaped, and the page says its language."""
    message = mail.Mail(
        to="ben@mail.test",
        to_name="Ben",
        subject="Ana invites you to a game of Attila",
        text="Hallo Ben,\n\nAna <b>lädt</b> dich ein.\n\nOptionen:\n  - Kurz\n  - Offen\n\n"
        "https://kurier.test/signin/abc",
        links=(("Mitspielen", "https://kurier.test/games/g1"), ("Abbestellen", "https://u/x")),
        unsubscribe="https://u/x",
    )
    with i18n.speaking("de"):
        composed = mail.compose(message, time.time())
    html = composed.get_body(("html",)).get_content()
    assert '<html lang="de">' in html
    assert ">Ana invites you to a game of Attila</td>" in html  # the heading
    assert "Ana &lt;b&gt;lädt&lt;/b&gt; dich ein." in html and "<b>" not in html
    assert re.search(r"<li[^>]*>Kurz</li>\s*<li[^>]*>Offen</li>", html)
    assert '<a href="https://kurier.test/signin/abc"' in html
    button = re.search(r'<a href="https://kurier.test/games/g1" style="([^"]*)">Mitspielen<', html)
    assert button and "background:#2b3a55" in button[1]
    footer = html.rsplit("border-top:1px solid #eeeae0", 1)[1]
    assert '<a href="https://u/x"' in footer and "Abbestellen" in footer
    assert "<pre" not in html
    text = composed.get_body(("plain",)).get_content()
    assert "  - Kurz\n" in text and "Mitspielen: https://kurier.test/games/g1" in text
