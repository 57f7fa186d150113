"""Private notes (service/domain/notes.py): one per game and player, seen by its author only,
kept after the game; bounded, plain text, escaped on the page; bad input changes nothing."""

from __future__ import annotations

from service.store import Store
from service.store.keys import player_notes_key
from tests.client import Kurier, problem
from tests.test_web_hostile import _signed_in

NOTE = "watch Gallia <script>alert(1)</script>\nnext: double"


def test_a_note_is_its_authors_alone_and_outlives_the_game(kurier: Kurier, store: Store) -> None:
    game_id, (ann, bob) = kurier.seated_game("attila", 2, "Note")
    path = f"/v1/games/{game_id}/notes/me"
    assert kurier.call("GET", path, ann).json() == {
        "game_id": game_id,
        "text": "",
        "updated_at": None,
    }
    saved = kurier.call("PUT", path, ann, json={"text": NOTE})
    assert saved.status_code == 200, saved.text
    assert saved.json()["text"] == NOTE and saved.json()["updated_at"] > 0
    assert kurier.call("GET", path, ann).json()["text"] == NOTE
    assert kurier.call("GET", path, bob).json()["text"] == ""  # bob's own note: none
    assert NOTE not in kurier.call("GET", f"/v1/games/{game_id}", bob).text
    outsider = kurier.new_player("Out")
    problem(kurier.call("GET", path, outsider), 403, "not-a-player")
    problem(kurier.call("PUT", path, outsider, json={"text": "x"}), 403, "not-a-player")
    problem(kurier.call("GET", path), 401, "missing-token")
    problem(kurier.call("GET", "/v1/games/g_nothere/notes/me", ann), 404, "game-not-found")
    # The game ends (bob resigns): the note stays.
    ended = kurier.call("POST", f"/v1/games/{game_id}/actions", bob, json={"notation": "resign"})
    assert ended.status_code in (200, 201), ended.text
    assert kurier.call("GET", f"/v1/games/{game_id}", ann).json()["status"] == "finished"
    assert kurier.call("GET", path, ann).json()["text"] == NOTE
    # Empty text clears it.
    assert kurier.call("PUT", path, ann, json={"text": ""}).json()["text"] == ""
    assert store.r.hget(player_notes_key(ann.id), game_id) is not None


def test_bad_notes_are_refused_and_change_nothing(kurier: Kurier, store: Store) -> None:
    game_id, (ann, _bob) = kurier.seated_game("attila", 2, "Bad")
    path = f"/v1/games/{game_id}/notes/me"
    assert kurier.call("PUT", path, ann, json={"text": "kept"}).status_code == 200
    before = store.r.hgetall(player_notes_key(ann.id))
    for body in (
        {"text": "x" * 4001},
        {"text": "bad\u202eoverride"},
        {"text": "nul\x00"},
        {"text": "   "},
        {"text": 5},
        {},
        {"text": "ok", "more": 1},
    ):
        r = kurier.call("PUT", path, ann, json=body)
        assert r.status_code == 422, (body, r.text)
    assert (
        kurier.call(
            "PUT", path, ann, data="{", headers={"Content-Type": "application/json"}
        ).status_code
        == 400
    )
    assert store.r.hgetall(player_notes_key(ann.id)) == before


def test_the_game_page_keeps_the_note_escaped_for_its_author_only(
    kurier: Kurier, base_url: str
) -> None:
    game_id, (ann, bob) = kurier.seated_game("attila", 2, "Page")
    web, csrf = _signed_in(base_url, ann)
    saved = web.post(
        f"{base_url}/games/{game_id}/note", data={"csrf": csrf, "note": NOTE}, timeout=10
    )
    assert saved.status_code == 200
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in saved.text and "<script>alert" not in saved.text
    )
    assert kurier.call("GET", f"/v1/games/{game_id}/notes/me", ann).json()["text"] == NOTE
    web_bob, _ = _signed_in(base_url, bob)
    page = web_bob.get(f"{base_url}/games/{game_id}", timeout=10)
    assert page.status_code == 200 and "watch Gallia" not in page.text
    too_long = web.post(
        f"{base_url}/games/{game_id}/note", data={"csrf": csrf, "note": "y" * 4001}, timeout=10
    )
    assert too_long.status_code == 200 and 'role="alert"' in too_long.text
    assert kurier.call("GET", f"/v1/games/{game_id}/notes/me", ann).json()["text"] == NOTE
