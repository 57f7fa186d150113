"""What a newcomer saw in the mails (issue 36, item 6), each with real Redis, workers, SMTP
(aiosmtpd) and, for answers, a real ``kurier mail-in``:

a) no "your turn" mail in the middle of the player's own steps;
b) English mails name Attila's action tiles in English;
c) the game-over mail has no secret box and no ``resign``;
d) a mail-in answer shows the moves by kind and the board as an inline picture;
e) ``List-Unsubscribe`` with one-click unsubscribe (RFC 8058);
f) deadlines in the reader's own time zone.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest
import requests

from engine.core import SYSTEM
from engine.registry import get_game
from service.common import i18n
from service.domain import mailbag, prefs, unsubscribe
from service.pictures import png as picture_png
from service.store import Store
from service.store.queues import notify_job_id
from tests.client import Kurier, Player
from tests.games_in_store import started_attila, step
from tests.mail_stack import (
    LEGAL_HEADINGS,
    MailStack,
    actionable,
    answers_to,
    legal_moves,
    plain,
    reply_to,
)
from tests.notify_stack import NotifyStack
from tests.receivers import wait_for
from tests.test_digest import QUIET, _bag_jobs, _run_now, _zone_at_two
from tests.test_mail_design import inline_pngs
from workers import mailview, seatmail

GAME = get_game("attila")
TOKYO = "Asia/Tokyo"


@pytest.fixture(scope="module")
def stack() -> Iterator[MailStack]:
    s = MailStack().start()
    yield s
    s.stop()


def _store(stack: NotifyStack) -> Store:
    assert stack.store is not None
    return stack.store


def _html(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert part is not None
    return str(part.get_content())


def _play(k: Kurier, game_id: str, player: Player, notation: str) -> None:
    before = k.view(game_id)["version"]
    r = k.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": notation})
    assert r.status_code in (200, 202), r.text
    wait_for(lambda: k.view(game_id)["version"] > before, 30, f"{notation!r} to apply")


# -- a) no "your turn" in the middle of the player's own steps --------------------------------


def test_a_turn_notice_is_not_mailed_once_the_player_is_already_playing(
    stack: MailStack,
) -> None:
    """The notice waits (here: the player's quiet hours; usually the 20-second window) while
    the player plays the first steps of the turn on the web. When it goes, the player is in
    the middle of the turn: the mail must not say "your turn" nor list moves."""
    k = stack.client
    zone = _zone_at_two()
    names = ("Quinn", "Rosa")
    addresses = [f"{n.lower()}@steps.test" for n in names]
    players = [
        stack.player(n, email=a, timezone=zone, quiet_hours=QUIET)[0]
        for n, a in zip(names, addresses, strict=True)
    ]
    game_id = stack.game(players, seed="steps-1")
    view = k.view(game_id)
    mover = view["waiting_for"][0]["seat"]
    wait_for(lambda: _bag_jobs(stack, game_id, mover), 20, "the mover's held notices")
    # Two-player Attila: two cards a turn. The first card (on an empty board: no conflict) and
    # its influence; then the turn waits for the same player's second card.
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", players[mover]).json()
    card = next(a["notation"] for a in legal["actions"] if " " in a["notation"])
    assert not card.startswith(("swap", "boost")), card
    _play(k, game_id, players[mover], card)
    _play(k, game_id, players[mover], "inf")
    record = _store(stack).get_game(game_id)
    assert [(d["seat"], d["step"]) for d in record.pending] == [(mover, "play_card")]
    # Quiet hours end now: the held bag goes.
    (job,) = _bag_jobs(stack, game_id, mover)
    _run_now(stack, job.id)
    store = _store(stack)
    wait_for(lambda: not mailbag.contents(store, game_id, mover), 20, "the held bag to go")
    # It held news too (the game started): that mail goes, as news.
    wait_for(lambda: stack.smtp.to(addresses[mover]), 20, "the held mail")
    time.sleep(1)
    for message in stack.smtp.to(addresses[mover]):
        assert "your turn" not in str(message["Subject"]), message["Subject"]
        assert not legal_moves(message), plain(message)


def _resumed_after_a_conflict(
    k: Kurier, stack: NotifyStack, game_id: str, players: list[Player]
) -> tuple[int, int]:
    """Random moves until a conflict's resolution hands the active seat back its turn:
    (that version, that seat). Told apart here from the log, not by the server's code."""
    store = _store(stack)
    rng = random.Random(11)
    for _ in range(400):
        view = k.view(game_id)
        assert view["status"] == "active", "the game ended without such a conflict"
        record = store.get_game(game_id)
        entries = store.log_tail(record, 20)
        moves = [e for _v, e in entries if e["kind"] == "move"]
        humans = [d for d in record.pending if d["seat"] != SYSTEM]
        if (
            entries
            and entries[-1][1]["kind"] == "resolve"
            and moves
            and [(d["seat"], d["kind"]) for d in humans] == [(int(moves[-1]["seat"]), "move")]
        ):
            return record.version, humans[0]["seat"]
        if not humans:
            wait_for(lambda v=view["version"]: k.view(game_id)["version"] > v, 30, "resolution")
            continue
        seat = humans[0]["seat"]
        legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()
        _play(k, game_id, players[seat], rng.choice(legal["actions"])["notation"])
    raise AssertionError("no conflict in 400 moves")


def _notice_mail(
    stack: NotifyStack, address: str, game_id: str, version: int, kind: str, seat: int
) -> list[EmailMessage]:
    """The mail of one notice (its Message-ID is the notice's job id)."""
    wanted = f"<{notify_job_id(game_id, version, kind, seat)}@"
    return [m for m in stack.smtp.to(address) if str(m["Message-ID"]).startswith(wanted)]


def test_after_a_conflict_in_the_players_own_turn_the_news_carries_the_turn(
    stack: MailStack,
) -> None:
    """The active player lays cards in a conflict of her own making; when it is resolved the
    turn is hers again. She hears of it in the conflict's mail, which shows her moves: no
    "your turn" mail in the middle of her turn. (A webhook still says both.)"""
    k = stack.client
    names = ("Tilda", "Ugo")
    addresses = [f"{n.lower()}@conflict.test" for n in names]
    players = [stack.player(n, email=a)[0] for n, a in zip(names, addresses, strict=True)]
    game_id = stack.game(players, seed="resume-1")
    version, seat = _resumed_after_a_conflict(k, stack, game_id, players)
    news = wait_for(
        lambda: _notice_mail(
            stack, addresses[seat], game_id, version, "game.conflict_resolved", seat
        ),
        30,
        "the conflict's mail",
    )
    time.sleep(1.5)  # the turn's mail, were there one, is made by a job queued beside it
    assert not _notice_mail(stack, addresses[seat], game_id, version, "game.turn_started", seat)
    assert news[0]["X-Kurier-Version"] == str(version)
    assert "your turn" not in str(news[0]["Subject"])
    assert legal_moves(news[0]), plain(news[0])
    assert f"Your turn, {names[seat]}:" in plain(news[0])
    # The other seat of the conflict hears of it too, without moves: it is not asked.
    theirs = wait_for(
        lambda: _notice_mail(
            stack, addresses[1 - seat], game_id, version, "game.conflict_resolved", 1 - seat
        ),
        30,
        "their mail",
    )
    assert not legal_moves(theirs[0])


# -- b) the action tiles in English -----------------------------------------------------------


def test_english_rules_name_the_action_tiles_in_english_and_german_in_german() -> None:
    english = " ".join(GAME.move_rules.values())
    for german in ("Doppelzug", "Tausch", "Einfluss"):
        assert german not in english
    for kind, word in (("double", "double turn"), ("swap", "swap"), ("boost", "two influence")):
        assert f"action tile {word}:" in GAME.move_rules[kind]
    german = {kind: i18n.gettext("de", rule) for kind, rule in GAME.move_rules.items()}
    assert german["double"].startswith("Aktionsplättchen Doppelzug:")
    assert german["swap"].startswith("Aktionsplättchen Tausch:")
    assert german["boost"].startswith("Aktionsplättchen 2 Einfluss:")


# -- c) the game-over mail ----------------------------------------------------------------------


def test_the_game_over_mail_has_no_secrets_box_and_no_resign(store: Store) -> None:
    game_id, seated = started_attila(store, ("Vera", "Wim"))
    for _ in range(3000):
        if not step(store, game_id, seated):
            break
    record = store.get_game(game_id)
    assert record.status == "finished"
    for seat in range(2):
        turn = mailview.turn_mail(
            store,
            record,
            seat,
            record.names[seat],
            told=["The game is over."],
            asked=False,
            links=seatmail.game_links(record),
        )
        text, html = mailview.render_text(turn), mailview.render_html(turn, "over")
        assert turn.standings and not turn.secret and not turn.groups
        assert "Only you see this" not in html
        assert "resign" not in text and "resign" not in html
        assert "legal-actions" not in text  # no moves to ask the API for
        assert "Final standings:" in text


# -- d) and f) the mail-in answer, and the deadline in the reader's zone -------------------------


def _tokyo(when: float) -> str:
    """The deadline as a reader in Tokyo reads it (computed apart from the server's code)."""
    return datetime.fromtimestamp(when, ZoneInfo(TOKYO)).strftime("%Y-%m-%d %H:%M JST")


def test_an_answer_groups_the_moves_inlines_the_board_and_tells_the_deadline_locally(
    stack: MailStack,
) -> None:
    k = stack.client
    names = ("Xena", "Yann")
    addresses = [f"{n.lower()}@answer.test" for n in names]
    players = [
        stack.player(n, email=a, timezone=TOKYO)[0] for n, a in zip(names, addresses, strict=True)
    ]
    game_id = stack.game(players, deadline={"hours": 48}, seed="answer-1")
    view = k.view(game_id)
    seat = view["waiting_for"][0]["seat"]
    me = addresses[seat]
    due = _tokyo(view["deadline_at"])
    mail = wait_for(lambda: actionable(stack, me, view["version"]), 30, "the turn mail")
    # f) The turn mail: the deadline on its own line under the header, in Tokyo's time.
    text = plain(mail)
    header = f"Your turn, {names[seat]}: play a card"
    assert f"{header}\nDecide before {due}." in text, text
    assert f"Decide before {due}." in _html(mail)

    # d) A line that is no move: the answer names it, then the game as the turn mail shows it.
    bad = reply_to(mail, me, "zz top")
    stack.send(bad, me, str(mail["Reply-To"]))
    answer = wait_for(lambda: answers_to(stack, me, str(bad["Message-ID"])), 30, "the answer")[0]
    text = plain(answer)
    assert 'Line 1 "zz top": not played' in text
    assert f"Decide before {due}." in text and f"Decide before {due}." in _html(answer)
    legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()["actions"]
    counts = re.findall(r"^  \S+ \((\d+) moves?", text, re.MULTILINE)
    assert counts and sum(int(n) for n in counts) == len(legal)
    assert set(legal_moves(answer)) <= {a["notation"] for a in legal}
    assert len(text.splitlines()) < len(legal), "every move listed, one a line"
    assert not any(line in LEGAL_HEADINGS for line in text.splitlines())
    if not picture_png.missing_fonts():
        pngs = inline_pngs(answer)
        assert pngs and all(f'src="cid:{cid}"' in _html(answer) for cid in pngs)
        assert "board.svg" not in _html(answer).split("<a ", 1)[0]  # shown, not only linked

    # `legal` still lists every move, under the list's own heading.
    fresh = wait_for(lambda: actionable(stack, me, view["version"]), 30, "a fresh mail")
    asked = reply_to(fresh, me, "legal")
    stack.send(asked, me, str(fresh["Reply-To"]))
    answer = wait_for(lambda: answers_to(stack, me, str(asked["Message-ID"])), 30, "the answer")[0]
    lines = [line.strip() for line in plain(answer).splitlines()]
    assert any(line in LEGAL_HEADINGS for line in plain(answer).splitlines())
    assert {a["notation"] for a in legal} <= set(lines)


# -- e) one-click unsubscribe -------------------------------------------------------------------


def _unsubscribe_url(message: EmailMessage) -> str:
    header = str(message["List-Unsubscribe"])
    assert header.startswith("<") and header.endswith(">"), header
    assert str(message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    return header[1:-1]


def test_one_click_unsubscribe_turns_the_mails_off(stack: MailStack) -> None:
    k = stack.client
    names = ("Zoe", "Abe")
    addresses = [f"{n.lower()}@unsub.test" for n in names]
    players = [
        stack.player(n, email=a, language="de" if n == "Zoe" else "en")[0]
        for n, a in zip(names, addresses, strict=True)
    ]
    game_id = stack.game(players, seed="unsub-1")
    first = wait_for(lambda: stack.smtp.to(addresses[0]), 30, "Zoe's first mail")[0]
    url = _unsubscribe_url(first)
    assert url.startswith(f"{stack.base}/unsubscribe/")
    assert url in plain(first)  # the mail says it in words too
    theirs = _unsubscribe_url(wait_for(lambda: stack.smtp.to(addresses[1]), 30, "Abe's mail")[0])
    assert theirs != url

    # GET only asks (a link checker must not unsubscribe anyone), in the player's language.
    page = requests.get(url, timeout=30)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert 'name="List-Unsubscribe" value="One-Click"' in page.text
    assert '<html lang="de">' in page.text  # Zoe reads German
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert unsubscribe.mails_on(_store(stack), players[0].id)
    # A POST without the one-click field, a forged token, another player's token changed:
    # refused, nothing changes.
    assert requests.post(url, data={"x": "y"}, timeout=30).status_code == 400
    forged = url[:-1] + ("a" if url[-1] != "a" else "b")
    assert (
        requests.post(forged, data={"List-Unsubscribe": "One-Click"}, timeout=30).status_code == 404
    )
    assert requests.get(f"{stack.base}/unsubscribe/nonsense", timeout=30).status_code == 404
    assert unsubscribe.mails_on(_store(stack), players[0].id)

    # The mail program's POST (RFC 8058), twice: the mails are off, webhooks as they were.
    for _ in range(2):
        r = requests.post(url, data={"List-Unsubscribe": "One-Click"}, timeout=30)
        assert r.status_code == 200, r.text
    chosen = prefs.read(_store(stack), players[0].id)
    assert not any("email" in channels for channels in chosen["notify"].values())
    assert all("webhook" in channels for channels in chosen["notify"].values())
    assert not unsubscribe.mails_on(_store(stack), players[0].id)
    assert unsubscribe.mails_on(_store(stack), players[1].id)  # nobody else's

    # No more mails to Zoe; Abe still gets his. A mail sent before the unsubscribe may still
    # be on its way through SMTP (a CI run once counted it after): count once they stop.
    sent = -1
    for _ in range(60):  # bounded: 30 s
        if sent == (now := len(stack.smtp.to(addresses[0]))):
            break
        sent = now
        time.sleep(0.5)
    heard = len(stack.smtp.to(addresses[1]))
    r = k.call("POST", f"/v1/games/{game_id}/messages", players[1], json={"text": "hello?"})
    assert r.status_code == 201, r.text
    r = k.call("POST", f"/v1/games/{game_id}/messages", players[0], json={"text": "hi"})
    assert r.status_code == 201, r.text
    wait_for(lambda: len(stack.smtp.to(addresses[1])) > heard, 30, "Abe's message mail")
    time.sleep(1.5)
    assert len(stack.smtp.to(addresses[0])) == sent


def test_a_token_is_the_players_own_and_survives_a_key_it_does_not_name(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    player, _ = store.players.create("Tok", "tok@unsub.test")
    made = unsubscribe.token(store, player["id"])
    assert unsubscribe.player_of(store, made) == player["id"]
    other, _ = store.players.create("Other", None)
    swapped = made.replace(player["id"], other["id"])
    assert unsubscribe.player_of(store, swapped) is None
    for bad in ("", "x" * 500, made + "a", made.upper(), f"{made}\n"):
        assert unsubscribe.player_of(store, bad) is None
    # Rotated keys: a token signed with a key the server no longer has is refused.
    monkeypatch.setenv("KURIER_MAIL_KEYS", "n:" + "a" * 44)
    assert unsubscribe.player_of(store, made) is None
