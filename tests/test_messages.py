"""Messages at the table over HTTP (issue 13): who sees what, hiding, limits, notices."""

from __future__ import annotations

import time
from typing import Any

from rq.job import Job

from service.store import Store
from service.store.queues import message_job_id
from tests.client import Kurier, Player

PRIVATE = "meet me in Gallia <script>alert(1)</script>"


def _game(kurier: Kurier, **extra: Any) -> tuple[str, list[Player]]:
    return kurier.seated_game("attila", 3, "M", **extra)


def _say(kurier: Kurier, game_id: str, who: Player, text: str, to: int | None = None) -> Any:
    body: dict[str, Any] = {"text": text} if to is None else {"text": text, "to_seat": to}
    return kurier.call("POST", f"/v1/games/{game_id}/messages", who, json=body)


def _texts(kurier: Kurier, game_id: str, who: Player | None) -> list[str | None]:
    r = kurier.call("GET", f"/v1/games/{game_id}/messages", who)
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["items"]]


def test_table_and_private_messages_reach_exactly_their_audience(
    kurier: Kurier, store: Store
) -> None:
    game_id, (a, b, c) = _game(kurier)
    r = _say(kurier, game_id, a, "good luck, all")
    assert r.status_code == 201, r.text
    assert r.json()["to_seat"] is None and r.json()["from_seat"] == 0
    private = _say(kurier, game_id, a, PRIVATE, to=1)
    assert private.status_code == 201, private.text

    assert _texts(kurier, game_id, a) == ["good luck, all", PRIVATE]
    assert _texts(kurier, game_id, b) == ["good luck, all", PRIVATE]
    assert _texts(kurier, game_id, c) == ["good luck, all"]
    assert _texts(kurier, game_id, None) == []  # spectators: not allowed by the creator
    # The private text is nowhere else a third player or a spectator can look.
    for who in (c, None):
        for path in ("", "/events", "/record", "/messages"):
            seen = kurier.call("GET", f"/v1/games/{game_id}{path}", who).text
            assert "Gallia" not in seen, (who, path)
    # Notices (rq keeps a job's hash for 10 min after it ran): the table message to seats 1
    # and 2, the private one to seat 1 only.
    table_id, private_id = r.json()["id"], private.json()["id"]

    def noticed(message_id: str, seat: int) -> bool:
        job_id = message_job_id(game_id, message_id, seat)
        return Job.exists(job_id, connection=store.queue_raw)

    assert noticed(table_id, 1) and noticed(table_id, 2) and not noticed(table_id, 0)
    assert noticed(private_id, 1) and not noticed(private_id, 2)


def test_spectators_read_the_table_only_when_the_creator_allowed_it(kurier: Kurier) -> None:
    game_id, (a, b, _c) = _game(kurier, spectators_see_messages=True)
    _say(kurier, game_id, a, "hello, watchers")
    _say(kurier, game_id, b, "just between us", to=0)
    assert _texts(kurier, game_id, None) == ["hello, watchers"]


def test_the_creator_hides_a_message_that_stays_listed(kurier: Kurier) -> None:
    game_id, (a, b, c) = _game(kurier)
    rude = _say(kurier, game_id, b, "something rude").json()
    refused = kurier.call("POST", f"/v1/games/{game_id}/messages/{rude['id']}/hide", c)
    assert refused.status_code == 403 and refused.json()["code"] == "not-the-creator"
    hidden = kurier.call("POST", f"/v1/games/{game_id}/messages/{rude['id']}/hide", a)
    assert hidden.status_code == 200 and hidden.json()["hidden"] is True
    assert _texts(kurier, game_id, c) == [None]
    assert _texts(kurier, game_id, b) == ["something rude"]  # its sender still reads it
    missing = kurier.call("POST", f"/v1/games/{game_id}/messages/1-0/hide", a)
    assert missing.status_code == 404


def test_bad_messages_are_refused_saying_what_and_change_nothing(kurier: Kurier) -> None:
    game_id, (a, _b, _c) = _game(kurier)
    outsider = kurier.new_player("Outsider")
    cases = [
        (a, {"text": "x" * 2001}, 422),
        (a, {"text": "bell\x07"}, 422),
        (a, {"text": "   "}, 422),
        (a, {"text": "me", "to_seat": 0}, 422),
        (a, {"text": "nobody", "to_seat": 7}, 422),
        (outsider, {"text": "let me in"}, 403),
    ]
    for who, body, status in cases:
        r = kurier.call("POST", f"/v1/games/{game_id}/messages", who, json=body)
        assert r.status_code == status, (body, r.text)
        assert r.headers["Content-Type"].startswith("application/problem+json")
    assert _texts(kurier, game_id, a) == []
    bad_cursor = kurier.call("GET", f"/v1/games/{game_id}/messages?after=zzz", a)
    assert bad_cursor.status_code in (400, 422)


def test_a_player_may_send_ten_messages_a_minute(kurier: Kurier) -> None:
    game_id, (a, _b, _c) = _game(kurier)
    # Start at the beginning of a window so that the ten fit in it.
    time.sleep(max(0.0, 60 - time.time() % 60 + 0.05) if time.time() % 60 > 50 else 0)
    codes = [_say(kurier, game_id, a, f"line {i}").status_code for i in range(11)]
    assert codes == [201] * 10 + [429]
    r = _say(kurier, game_id, a, "one more")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_cursors_tell_nobody_of_messages_they_may_not_see(kurier: Kurier) -> None:
    """Issue 36: ``next_cursor`` was the id of the last message read, shown or not, so a third
    player or a spectator learnt that a private message was sent, and when (the id is its
    time in milliseconds)."""
    game_id, (a, b, c) = _game(kurier, spectators_see_messages=True)
    table = _say(kurier, game_id, a, "hello, all").json()["id"]
    private = _say(kurier, game_id, a, "psst", to=1).json()["id"]

    def read(who: Player | None, after: str | None = None) -> tuple[list[str], str | None]:
        params = {"after": after} if after else {}
        r = kurier.call("GET", f"/v1/games/{game_id}/messages", who, params=params)
        assert r.status_code == 200, r.text
        assert private not in r.text or who in (a, b)
        return [m["id"] for m in r.json()["items"]], r.json()["next_cursor"]

    for who in (c, None):
        assert read(who) == ([table], table)
        assert read(who, table) == ([], table)
    assert read(b) == ([table, private], private)
    later = _say(kurier, game_id, b, "and now to everyone").json()["id"]
    for who in (c, None):
        assert read(who, table) == ([later], later)

    closed, (d, _e, _f) = _game(kurier)  # spectators may not read this table
    _say(kurier, closed, d, "players only")
    r = kurier.call("GET", f"/v1/games/{closed}/messages")
    assert r.json() == {"items": [], "next_cursor": None}


def test_who_reads_what_after_a_seat_changes_hands(kurier: Kurier) -> None:
    """Issue 36, item 14: what docs/api.md ("Replace a player") says of the talk after a
    handover. Messages name seats; private talk stays with the two players who had it while
    they sat: the newcomer does not read the predecessor's, the other party still does, and
    the predecessor, now a spectator, reads it no more (spectators read no private word)."""
    game_id, (a, b, c) = _game(kurier, spectators_see_messages=True)
    table = _say(kurier, game_id, c, "c at the table").json()["id"]
    private = _say(kurier, game_id, a, "a to c, privately", to=2).json()["id"]
    resign = {"notation": "resign"}
    assert kurier.call("POST", f"/v1/games/{game_id}/actions", c, json=resign).status_code == 200
    code = kurier.call("POST", f"/v1/games/{game_id}/seats/2/offer", a).json()["invite_code"]
    d = kurier.new_player("Dora")
    took = kurier.call("POST", f"/v1/games/{game_id}/seats/2/take", d, json={"invite_code": code})
    assert took.status_code == 200, took.text
    after = _say(kurier, game_id, a, "a to seat 2, now Dora", to=2).json()["id"]

    def ids(who: Player | None) -> list[str]:
        r = kurier.call("GET", f"/v1/games/{game_id}/messages", who)
        return [m["id"] for m in r.json()["items"]]

    assert ids(a) == [table, private, after]  # the other party keeps the whole exchange
    assert ids(d) == [table, after]  # the seat's table talk, not its predecessor's private one
    assert ids(c) == [table]  # the predecessor is a spectator now
    assert ids(b) == ids(None) == [table]
    listed = kurier.call("GET", f"/v1/games/{game_id}/messages", d).json()["items"]
    assert listed[0]["from_seat"] == 2  # a seat, whoever sat in it: the record's handovers say
