"""Blocking (service/domain/blocks.py): the list is the blocker's alone; the two are not seated
together by open games, offered seats or tournament pairings while a pairing keeps them apart;
the blocked player's messages reach the blocker through no channel (the API's list, the game
page, the event stream, mail), and the blocked player cannot write to them privately."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain import blocks, pairing, tournaments
from service.store import Store
from service.store.keys import game_key, player_games_key
from tests.client import Kurier, Player, problem
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import wait_for
from tests.test_streams import Sse
from tests.test_web_hostile import _signed_in

BLOCKED_WORDS = "you will never read this"


def _block(k: Kurier, who: Player, other: Player) -> None:
    r = k.call("PUT", f"/v1/me/blocks/{other.id}", who)
    assert r.status_code == 204, r.text


def test_the_list_is_the_blockers_own_and_bad_input_changes_nothing(kurier: Kurier) -> None:
    ann, bob = kurier.new_player("Ann"), kurier.new_player("Bob")
    assert kurier.call("GET", "/v1/me/blocks", ann).json() == {"items": []}
    _block(kurier, ann, bob)
    _block(kurier, ann, bob)  # again: the same
    assert kurier.call("GET", "/v1/me/blocks", ann).json() == {
        "items": [{"id": bob.id, "name": "Bob"}]
    }
    assert kurier.call("GET", "/v1/me/blocks", bob).json() == {"items": []}  # private
    problem(kurier.call("PUT", f"/v1/me/blocks/{ann.id}", ann), 422, "cannot-block-self")
    problem(kurier.call("PUT", "/v1/me/blocks/p_nobody", ann), 404, "player-not-found")
    problem(kurier.call("PUT", f"/v1/me/blocks/{bob.id}"), 401, "missing-token")
    assert [p["id"] for p in kurier.call("GET", "/v1/me/blocks", ann).json()["items"]] == [bob.id]
    assert kurier.call("DELETE", f"/v1/me/blocks/{bob.id}", ann).status_code == 204
    assert kurier.call("GET", "/v1/me/blocks", ann).json() == {"items": []}


@pytest.mark.parametrize("joiner_blocks", [True, False])
def test_an_open_game_where_either_sits_cannot_be_joined(
    kurier: Kurier, store: Store, joiner_blocks: bool
) -> None:
    host, joiner, other = (kurier.new_player(n) for n in ("Host", "Joiner", "Other"))
    if joiner_blocks:
        _block(kurier, joiner, host)
    else:
        _block(kurier, host, joiner)
    body = {"type": "attila", "seats": 3, "access": "open"}
    game_id = kurier.call("POST", "/v1/games", host, json=body).json()["id"]
    before = store.r.hgetall(game_key(game_id))
    refused = problem(
        kurier.call("POST", f"/v1/games/{game_id}/seats", joiner, json={}), 409, "cannot-join"
    )
    assert refused["detail"] == "you can't join this game"  # the same whoever blocked whom
    assert store.r.hgetall(game_key(game_id)) == before
    assert kurier.call("POST", f"/v1/games/{game_id}/seats", other, json={}).status_code == 201


def test_no_new_game_invites_a_blocked_pair_by_name(kurier: Kurier, store: Store) -> None:
    """Whoever creates it (the blocked player, the blocker, a third player inviting both):
    409 ``cannot-invite``, the same whoever blocked whom; nothing is made, nobody is told."""
    ann, bob, cid = (kurier.new_player(n) for n in ("InvAnn", "InvBob", "InvCid"))
    _block(kurier, ann, bob)
    for creator, invited in ((bob, [ann.id]), (ann, [bob.id]), (cid, [ann.id, bob.id])):
        games = store.r.zcard(player_games_key(creator.id))
        body = {"type": "attila", "seats": 3, "invited": invited}
        refused = problem(
            kurier.call("POST", "/v1/games", creator, json=body), 409, "cannot-invite"
        )
        assert refused["detail"] == "you can't invite these players to one table"
        assert store.r.zcard(player_games_key(creator.id)) == games, "no game was made"
    made = kurier.call(
        "POST", "/v1/games", cid, json={"type": "attila", "seats": 3, "invited": [ann.id]}
    )
    assert made.status_code == 201, made.text


def test_a_rematch_does_not_invite_a_player_kept_apart(kurier: Kurier, store: Store) -> None:
    """A finished game's players who blocked each other since: the asker's rematch leaves the
    other out of its invitation, and they cannot sit down in it."""
    game_id, (ann, bob) = kurier.seated_game("attika", 2, "RmB")
    resigned = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", bob, json={"action": {"type": "resign"}}
    )
    assert resigned.json()["status"] == "finished", resigned.text
    _block(kurier, bob, ann)
    made = kurier.call("POST", f"/v1/games/{game_id}/rematch", ann)
    assert made.status_code == 201, made.text
    new_id = made.json()["id"]
    assert kurier.view(new_id, ann)["invited"] == []
    asked = kurier.call("POST", f"/v1/games/{game_id}/rematch", bob)
    assert asked.status_code in (403, 409), asked.text
    assert [s["player_id"] for s in kurier.view(new_id)["seats"]] == [ann.id]
    # Of three, the one kept apart from another invited player is left out too.
    cid, dan, eve = (kurier.new_player(n) for n in ("RmCid", "RmDan", "RmEve"))
    _block(kurier, eve, dan)
    assert blocks.invitable(store, cid.id, [dan.id, eve.id]) == [dan.id]
    assert blocks.invitable(store, cid.id, [eve.id, dan.id]) == [eve.id]
    assert blocks.invitable(store, dan.id, [cid.id, eve.id]) == [cid.id]


def test_an_offered_seat_at_a_blockers_table_is_refused(kurier: Kurier, store: Store) -> None:
    game_id, (ann, _bob, cid) = kurier.seated_game("attila", 3, "Off")
    resigned = kurier.call("POST", f"/v1/games/{game_id}/actions", cid, json={"notation": "resign"})
    assert resigned.status_code in (200, 201), resigned.text
    offer = kurier.call("POST", f"/v1/games/{game_id}/seats/2/offer", ann)
    assert offer.status_code == 201, offer.text
    code = {"invite_code": offer.json()["invite_code"]}
    blocked, other = kurier.new_player("Dan"), kurier.new_player("Eve")
    _block(kurier, ann, blocked)
    before = store.r.hgetall(game_key(game_id))
    taking = kurier.call("POST", f"/v1/games/{game_id}/seats/2/take", blocked, json=code)
    problem(taking, 409, "cannot-join")
    assert store.r.hgetall(game_key(game_id)) == before
    taken = kurier.call("POST", f"/v1/games/{game_id}/seats/2/take", other, json=code)
    assert taken.status_code == 200, taken.text


def test_no_message_of_the_blocked_player_reaches_the_blocker(
    kurier: Kurier, base_url: str, streams: str
) -> None:
    game_id, (ann, bob, cid) = kurier.seated_game("attila", 3, "Blk")
    _block(kurier, ann, bob)
    inbox = Sse(f"{streams}/v1/me/stream", ann)
    # Following the game before anyone speaks: a stream sends the messages after it opened.
    assert inbox.until(lambda i: i.get("event") == "inbox", seconds=30), inbox.seen
    path = f"/v1/games/{game_id}/messages"
    said = kurier.call("POST", path, bob, json={"text": BLOCKED_WORDS})
    assert said.status_code == 201, said.text
    problem(
        kurier.call("POST", path, bob, json={"text": BLOCKED_WORDS, "to_seat": 0}),
        403,
        "cannot-message-player",
    )
    after = kurier.call("POST", path, cid, json={"text": "from cid"}).json()["id"]
    # The stream: cid's message arrives, bob's never did.
    found = inbox.until(lambda i: i.get("event") == "message" and i["id"] == after, seconds=30)
    assert found, inbox.seen
    assert [m["text"] for m in inbox.entries("message")] == ["from cid"]
    inbox.close()
    # The API's list: ann reads cid only; cid (who blocks nobody) reads both.
    listed = kurier.call("GET", path, ann).json()["items"]
    assert [m["text"] for m in listed] == ["from cid"]
    assert [m["text"] for m in kurier.call("GET", path, cid).json()["items"]] == [
        BLOCKED_WORDS,
        "from cid",
    ]
    # Bob can still write privately to cid, and ann to bob.
    assert kurier.call("POST", path, bob, json={"text": "hi", "to_seat": 2}).status_code == 201
    assert kurier.call("POST", path, ann, json={"text": "hi", "to_seat": 1}).status_code == 201
    # The game page.
    browser, _csrf = _signed_in(base_url, ann)
    page = browser.get(f"{base_url}/games/{game_id}", timeout=10)
    assert page.status_code == 200 and "from cid" in page.text
    assert BLOCKED_WORDS not in page.text
    # Unblocked: bob's table message shows again (nothing was deleted).
    assert kurier.call("DELETE", f"/v1/me/blocks/{bob.id}", ann).status_code == 204
    assert BLOCKED_WORDS in [m["text"] for m in kurier.call("GET", path, ann).json()["items"]]


@pytest.fixture(scope="module")
def mail_stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


def test_no_mail_carries_the_blocked_players_message(mail_stack: NotifyStack) -> None:
    k = mail_stack.client
    ann, _ = mail_stack.player("Ann", email="ann@blocks.test")
    bob, _ = mail_stack.player("Bob", email="bob@blocks.test")
    cid, _ = mail_stack.player("Cid", email="cid@blocks.test")
    game_id = mail_stack.game([ann, bob, cid], seed="blocks-mail")
    _block(k, ann, bob)
    path = f"/v1/games/{game_id}/messages"
    assert k.call("POST", path, bob, json={"text": BLOCKED_WORDS}).status_code == 201
    assert k.call("POST", path, cid, json={"text": "cid speaks"}).status_code == 201

    def mails(address: str) -> list[str]:
        return [str(m.get_body(("plain",)).get_content()) for m in mail_stack.smtp.to(address)]

    # Cid reads Bob's message by mail; Ann reads Cid's, and never Bob's.
    wait_for(lambda: any(BLOCKED_WORDS in text for text in mails("cid@blocks.test")), 30, "cid")
    wait_for(lambda: any("cid speaks" in text for text in mails("ann@blocks.test")), 30, "ann")
    assert not any(BLOCKED_WORDS in text for text in mails("ann@blocks.test"))


# -- pairing ------------------------------------------------------------------------------------


def test_swiss_keeps_a_blocked_pair_apart_while_any_pairing_does() -> None:
    players = ["a", "b", "c", "d"]
    scores = dict.fromkeys(players, 0.0)
    apart = frozenset({frozenset(("a", "b"))})
    paired = pairing.swiss_round(players, 2, scores, [], apart)
    assert frozenset(("a", "b")) not in {frozenset(t) for t in paired.tables}
    assert pairing.kept_apart_failed(paired.tables, apart) == 0
    # Everyone has met everyone: a round without repeats is impossible; a and b still apart.
    history = [pairing.Round((("a", "b"), ("c", "d"))), pairing.Round((("a", "c"), ("b", "d")))]
    history.append(pairing.Round((("a", "d"), ("b", "c"))))
    again = pairing.swiss_round(players, 2, scores, history, apart)
    assert pairing.kept_apart_failed(again.tables, apart) == 0
    # Two players only: the pairing has no alternative, and says so.
    forced = pairing.swiss_round(["a", "b"], 2, {"a": 0.0, "b": 0.0}, [], apart)
    assert forced.tables == (("a", "b"),)
    assert pairing.kept_apart_failed(forced.tables, apart) == 1


def _apart_round_exists(
    players: list[str], size: int, byes: list[tuple[str, ...]], avoid: pairing.Pairs
) -> bool:
    """Brute force: some fair bye set leaves players that tables of ``size`` seat with no pair
    of ``avoid`` together."""

    def splits(left: list[str]) -> bool:
        if not left:
            return True
        first, rest = left[0], left[1:]
        for others in itertools.combinations(rest, size - 1):
            table = (first, *others)
            kept = pairing.kept_apart_failed([table], avoid) == 0
            if kept and splits([p for p in rest if p not in others]):
                return True
        return False

    return any(splits([p for p in players if p not in out]) for out in byes)


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(2, 8),
    size=st.integers(2, 3),
    rounds=st.integers(0, 3),
    blocked=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=6),
    seed=st.integers(0, 10_000),
)
def test_swiss_seats_a_blocked_pair_together_only_when_no_round_keeps_it_apart(
    n: int, size: int, rounds: int, blocked: list[tuple[int, int]], seed: int
) -> None:
    if n < size:
        return
    players = [f"p{i}" for i in range(n)]
    rng = random.Random(seed)
    avoid = frozenset(
        frozenset((players[a], players[b])) for a, b in blocked if a < n and b < n and a != b
    )
    history: list[pairing.Round] = []
    scores = {p: float(rng.randrange(4)) for p in players}
    for _ in range(rounds):
        history.append(pairing.swiss_round(players, size, scores, history))
    paired = pairing.swiss_round(players, size, scores, history, avoid)
    seated = sorted(p for t in paired.tables for p in t)
    assert sorted(seated + list(paired.byes)) == players  # everyone once
    if pairing.kept_apart_failed(paired.tables, avoid):
        byes = pairing.bye_counts(history)
        place = {p: i for i, p in enumerate(players)}
        fair = list(pairing._fair_byes(players, size, scores, byes, place))
        assert not _apart_round_exists(players, size, fair, avoid)


def test_round_robin_of_threes_keeps_a_blocked_pair_apart() -> None:
    players = [f"p{i}" for i in range(6)]
    apart = frozenset({frozenset(("p0", "p1"))})
    rounds = pairing.round_robin(players, 3, "seed-rr", apart)
    assert all(pairing.kept_apart_failed(r.tables, apart) == 0 for r in rounds)
    # Two-player round-robin: everyone meets everyone, so the pair meets (and the round says so).
    duel = pairing.round_robin(players[:4], 2, "seed-rr", apart)
    assert sum(pairing.kept_apart_failed(r.tables, apart) for r in duel) == 1


def _tournament(kurier: Kurier, store: Store, fmt: str, entrants: list[Player]) -> dict[str, Any]:
    cup = {"name": f"Cup {fmt}", "type": "attila", "seats": 2, "format": fmt}
    created = kurier.call("POST", "/v1/tournaments", entrants[0], json=cup)
    assert created.status_code == 201, created.text
    cup_id = created.json()["id"]
    for player in entrants:
        r = kurier.call("POST", f"/v1/tournaments/{cup_id}/entrants", player)
        assert r.status_code in (200, 201), r.text
    started = kurier.call("POST", f"/v1/tournaments/{cup_id}/start", entrants[0])
    assert started.status_code == 200, started.text
    return tournaments.show(store, cup_id)


def test_a_swiss_tournament_pairs_blocked_entrants_apart_and_says_when_it_cannot(
    kurier: Kurier, store: Store
) -> None:
    four = [kurier.new_player(f"Sw{i}") for i in range(4)]
    _block(kurier, four[2], four[3])
    _block(kurier, four[0], four[1])
    shown = _tournament(kurier, store, "swiss", four)
    first = shown["played_rounds"][0]
    tables = [{p["id"] for p in t["players"]} for t in first["tables"]]
    assert {four[0].id, four[1].id} not in tables and {four[2].id, four[3].id} not in tables
    assert first["kept_apart_failed"] == 0
    # Two entrants, one blocking the other: the forced pairing is said, naming nobody.
    two = [kurier.new_player(f"Du{i}") for i in range(2)]
    _block(kurier, two[1], two[0])
    cup = _tournament(kurier, store, "swiss", two)
    forced = cup["played_rounds"][0]
    assert forced["kept_apart_failed"] == 1
    assert "block" not in str(forced).lower()
    page = requests.get(f"{kurier.base}/tournaments/{cup['id']}", timeout=10)
    assert "No pairing could keep every player apart: 1 table" in page.text
