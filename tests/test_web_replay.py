"""Stepping through a game's versions: ``/games/<id>/replay/<n>`` shows
the board of version n rebuilt from the log, for its viewer, never more than they could see
then: every version of a played game is fetched by each seat and a spectator, and each answer
is scanned for another seat's hand at that version and for a sealed choice's salt before its
reveal."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine.core import Event
from service import pictures
from service.domain import pinning, ratings, replay, seats
from service.domain.games import play
from service.store import Store
from tests.game_helpers import Table, new_table, play_random

STEP = re.compile(r'<p class="step-move">(.*?)</p>', re.S)
TAG = re.compile(r"<[^>]+>")


def _played(store: Store, seed: str) -> Table:
    """A finished 3-player Attila game with a conflict revealed (its players' tokens kept)."""
    for attempt in range(6):  # bounded: a random game nearly always has a conflict
        table = new_table(store, 3, f"{seed}-{attempt}")
        play_random(store, table, 600, seed=attempt)
        record, entries = store.read_log(table.game_id)
        kinds = {e["kind"] for _, entry in entries for e in entry["events"]}
        if record.status == "finished" and "sealed_revealed" in kinds:
            return table
    raise AssertionError("no finished game with a conflict in six tries")


def _client(app: Flask, token: str | None) -> FlaskClient:
    client = app.test_client()
    if token is not None:
        answer = client.post("/signin/token", data={"token": token})
        assert answer.status_code in (302, 303), answer.status_code
    return client


def _secret_lines(record: Any, state: Any, seat: int | None) -> set[str]:
    """What only other seats could see at this state: the lines of their views in words that
    neither the spectators' nor ``seat``'s own view has."""
    game = record.game

    def lines(who: int | None) -> set[str]:
        text = pictures.text_summary(record.type, game.view(state, who), names=record.names)
        return {line.strip() for line in text.splitlines() if line.strip()}

    known = lines(None) | (lines(seat) if seat is not None else set())
    return {
        line for other in range(len(record.seats)) if other != seat for line in lines(other)
    } - known


def test_every_version_shows_each_viewer_no_more_than_they_saw(app: Flask, store: Store) -> None:
    table = _played(store, "replay-scan")
    record, entries = store.read_log(table.game_id)
    first = replay.first_version(entries)
    assert first is not None and record.version - first > 50
    salts = [
        (version, choice["salt"])
        for version, entry in entries
        for raw in entry["events"]
        if raw["kind"] == "sealed_revealed"
        for choice in raw["data"]["choices"]
    ]
    clients = {seat: _client(app, token) for seat, token in enumerate(table.tokens)}
    clients[None] = _client(app, None)
    # The states, replayed here step by step (independently of the page's kept checkpoints).
    game = record.game
    state = game.new_state(len(record.seats), record.seed, record.options)
    checked = hidden_steps = secret_lines = 0
    for version, entry in entries:
        if version < first:
            continue
        pinning.apply_entries(game, state, [(version, entry)])
        revealed = {
            Event.from_json(raw).data["ref"]
            for v, e in entries
            if v <= version
            for raw in e["events"]
            if raw["kind"] == "sealed_revealed"
        }
        for seat, client in clients.items():
            answer = client.get(f"/games/{table.game_id}/replay/{version}")
            assert answer.status_code == 200, (version, seat)
            body = html.unescape(answer.get_data(as_text=True))
            # Line by line: one seat's "Your cards in it: F" is part of another's "…: F G".
            shown = {line.strip() for line in body.splitlines()}
            secrets = _secret_lines(record, state, seat)
            leaked = [line for line in secrets if line in shown]
            assert leaked == [], (version, seat, leaked)
            secret_lines += len(secrets)
            # ...while a seat's own hand at that version is there.
            assert (seat is None) == ("Your hand:" not in body), (version, seat)
            early = [salt for at, salt in salts if at > version and salt in body]
            assert early == [], (version, seat)
            move = STEP.search(body)
            assert move is not None
            sealed = entry["kind"] == "sealed" and entry["ref"] not in revealed
            if sealed and int(entry["seat"]) != seat:
                assert "<code>" not in move.group(1), (version, seat)
                hidden_steps += 1
            checked += 1
    assert checked == 4 * (record.version - first + 1) and hidden_steps > 0 and secret_lines
    # The last version's board is the stored state's: the replay is the game's.
    assert game.dump(replay.state_at(record, entries, record.version)) == record.state


def test_the_steps_link_to_each_other_and_the_game_page_links_in(app: Flask, store: Store) -> None:
    table = _played(store, "replay-links")
    record, entries = store.read_log(table.game_id)
    first = replay.first_version(entries)
    client = _client(app, table.tokens[0])
    start = client.get(f"/games/{table.game_id}/replay")
    assert start.headers["Location"].endswith(f"/games/{table.game_id}/replay/{first}")
    asked = client.get(f"/games/{table.game_id}/replay?v=99999")
    assert asked.headers["Location"].endswith(f"/replay/{record.version}")
    assert client.get(f"/games/{table.game_id}/replay?v=x").status_code == 302
    middle = (first + record.version) // 2
    body = client.get(f"/games/{table.game_id}/replay/{middle}").get_data(as_text=True)
    for rel, to in (("first", first), ("prev", middle - 1), ("next", middle + 1)):
        assert f'rel="{rel}" href="/games/{table.game_id}/replay/{to}"' in body
    assert f'rel="last" href="/games/{table.game_id}/replay/{record.version}"' in body
    assert "<svg" in body and "replay.js" in body
    at_end = client.get(f"/games/{table.game_id}/replay/{record.version}").get_data(as_text=True)
    assert 'rel="next"' not in at_end and 'rel="last"' not in at_end
    for wrong in (first - 1, record.version + 1, 0):
        assert client.get(f"/games/{table.game_id}/replay/{wrong}").status_code == 404
    assert client.get("/games/nosuchgame/replay/3").status_code == 404
    page = client.get(f"/games/{table.game_id}").get_data(as_text=True)
    assert f'href="/games/{table.game_id}/replay/{record.version}"' in page
    ratings.rate_game(store, table.game_id)  # what the worker does: the game is listed
    archive = client.get("/watch/finished?type=attila").get_data(as_text=True)
    assert f'href="/games/{table.game_id}/replay"' in archive
    # A reveal is shown at the version that made it, with the commitment published before.
    reveal = next(
        v for v, e in entries if any(raw["kind"] == "sealed_revealed" for raw in e["events"])
    )
    shown = client.get(f"/games/{table.game_id}/replay/{reveal}").get_data(as_text=True)
    assert 'class="reveal"' in shown and 'data-commitment=""' not in shown
    before = client.get(f"/games/{table.game_id}/replay/{reveal - 1}").get_data(as_text=True)
    assert 'class="reveal"' not in before


@pytest.mark.parametrize("game_type", ["attika", "attila-wargame"])
def test_the_other_games_step_through_too(app: Flask, store: Store, game_type: str) -> None:
    table = new_table(store, 2, f"replay-{game_type}", game_type)
    play_random(store, table, 25, seed=2)
    record, entries = store.read_log(table.game_id)
    first = replay.first_version(entries)
    assert first is not None and record.version > first
    player, spectator = _client(app, table.tokens[0]), _client(app, None)
    for version in range(first, record.version + 1):
        for client in (player, spectator):
            answer = client.get(f"/games/{table.game_id}/replay/{version}")
            assert answer.status_code == 200, (version, answer.status_code)
            assert "<svg" in answer.get_data(as_text=True)
    assert game_type == "attila-wargame" or "Your hand:" in player.get(
        f"/games/{table.game_id}/replay/{record.version}"
    ).get_data(as_text=True)


def test_a_replacement_sees_the_seat_only_from_when_they_took_it(store: Store) -> None:
    table = _played(store, "replay-handover")
    record, entries = store.read_log(table.game_id)
    taken = (replay.first_version(entries) or 0) + 20
    record.seating["handovers"] = [{"seat": 1, "version": taken, "player_id": "p_new"}]
    assert replay.seat_then(record, 1, taken - 1) is None
    assert replay.seat_then(record, 1, taken) == 1
    assert replay.seat_then(record, 0, taken - 1) == 0
    before = replay.step(record, entries, taken - 1, replay.seat_then(record, 1, taken - 1))
    after = replay.step(record, entries, taken, replay.seat_then(record, 1, taken))
    assert "hand" not in before["view"] and "hand" in after["view"]


def test_seat_changes_are_told_in_words_not_their_internal_names(app: Flask, store: Store) -> None:
    """A resigned seat offered to a newcomer and taken over: each step says so in words."""
    table = new_table(store, 3, "replay-words")
    creator, quitter = table.players[0], table.players[2]
    play.play(store, quitter, table.game_id, "resign", None, None, None, None)
    code = seats.offer_seat(store, creator, table.game_id, 2).body["invite_code"]
    newcomer = store.players.create("Newcomer", None)[0]
    taken = seats.take_seat(store, newcomer, table.game_id, 2, code).body["version"]
    client = _client(app, table.tokens[0])
    said = [
        # The words as read (the mover's name is a link to their profile).
        html.unescape(
            TAG.sub("", STEP.search(client.get(f"/games/{table.game_id}/replay/{v}").text)[1])
        )
        for v in (taken - 1, taken)
    ]
    assert "a seat was offered to a newcomer" in said[0], said
    assert "Newcomer: took the seat over" in said[1], said
