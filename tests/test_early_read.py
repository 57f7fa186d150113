"""A move's transaction read made early, in the rate limiter's round trip.

The read rides in the request's first pipeline (service/domain/ratelimit.py,
``Tokens.checked_player`` in service/store/tokens.py) and the transaction's first try uses it;
the commit's compare-and-set judges it like any read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from redis.connection import AbstractConnection

from service.domain import ratelimit
from service.domain.games import views
from service.http.app import create_app
from service.store import Store
from service.store.keys import player_key
from service.store.record import Change, GameRecord
from tests.conftest import UNLIMITED
from tests.games_in_store import started_attila


def test_a_stale_early_read_makes_the_transaction_start_over(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id, [(player, token), _] = started_attila(store)
    before = store.get_game(game_id).version
    store.tokens.checked_player(token, player["id"], early=(game_id, None))
    # Another process commits after the early read and before the transaction.
    elsewhere = Store(store.url)
    elsewhere.transact(game_id, lambda record, _v: Change(record, "touched", [], 200, {}))
    seen: list[int] = []

    def rename(record: GameRecord | None, version: int) -> Change:
        assert record is not None
        seen.append(version)
        record.names[0] = "renamed"
        return Change(record, "renamed", [], 200, {})

    store.transact(game_id, rename)
    # The first try used the early read (version before+1), lost the compare-and-set to the
    # other commit, and started over from a fresh read.
    assert seen == [before + 1, before + 2]
    assert store.get_game(game_id).version == before + 2
    _, entries = store.read_log(game_id)
    assert [e["kind"] for _, e in entries][-2:] == ["touched", "renamed"]
    elsewhere.close()


def test_an_early_read_serves_only_its_own_game_and_key(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id, [(player, token), _] = started_attila(store)
    other_id, _ = started_attila(store)
    seen: list[int] = []

    def note(record: GameRecord | None, version: int) -> Change:
        assert record is not None
        seen.append(version)
        return Change(record, "touched", [], 200, {})

    # Kept for a game, forgotten when the request ends without its transaction.
    store.tokens.checked_player(token, player["id"], early=(game_id, None))
    store.early.forget()
    store.transact(game_id, note)
    # Kept for one game, not used for another (and gone after that transaction).
    store.tokens.checked_player(token, player["id"], early=(game_id, None))
    store.transact(other_id, note)
    assert store.early.take(game_id, None) is None
    assert len(seen) == 2


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Redis round trips made by this process: one send per command or pipeline."""
    counted = [0]
    original = AbstractConnection.send_packed_command

    def counting(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        counted[0] += 1
        original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counting)
    yield counted


def _round_trips_of_a_move(store: Store, sends: list[int], key: str) -> tuple[int, int]:
    """The round trips of a game's second move through a new app (the first loads scripts)."""
    game_id, players = started_attila(store)
    client = create_app({"REDIS_URL": store.url, **UNLIMITED}).test_client()
    for move in range(2):
        record = store.get_game(game_id)
        seat = record.decisions()[0].seat
        auth = {"Authorization": f"Bearer {players[seat][1]}"}
        assert client.get("/v1/me", headers=auth).status_code == 200  # the token's guess
        notation = views.legal_actions(record, seat)["actions"][0]["notation"]
        before = sends[0]
        answer = client.post(
            f"/v1/games/{game_id}/actions",
            json={"notation": notation},
            headers={**auth, "Idempotency-Key": f"{key}-{move}"},
        )
        assert answer.status_code == 200, answer.get_json()
    return sends[0] - before, answer.get_json()["version"]


def test_a_move_reads_its_game_in_the_limiters_round_trip(
    isolated_redis: Store, sends: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    early, version = _round_trips_of_a_move(isolated_redis, sends, "early-1")
    monkeypatch.setattr(ratelimit, "EARLY_READS", {})
    late, same_version = _round_trips_of_a_move(isolated_redis, sends, "late-1")
    assert version == same_version
    # The first round trip (one script) carried the game and the idempotency record, and the notice
    # fields of the players seated (as this process last saw them): two round trips in all,
    # the commit the second. Without: a read of its own, and one for the fields when the move
    # notifies anyone.
    assert early == 2, (early, late)
    assert late >= 3, (early, late)


def test_the_seats_notice_fields_ride_in_the_first_round_trip(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id, seated = started_attila(store)  # its transactions showed this store the seats
    (player, token), (other, _) = seated
    store.r.hset(player_key(other["id"]), "email", "other@example.org")
    store.tokens.checked_player(token, player["id"], early=(game_id, None))
    ids = [player["id"], other["id"]]
    assert set(store.early.notice_fields() or {}) == set(ids)
    assert [f["email"] for f in store.players.notice_fields(ids)] == ["", "other@example.org"]
    # A player the first round trip did not read (seated since): everything is read now.
    newcomer, _ = store.players.create("Newcomer", "new@example.org")
    found = store.players.notice_fields([*ids, newcomer["id"]])
    assert [f["email"] for f in found] == ["", "other@example.org", "new@example.org"]
    assert found[0]["webhook_url"] is None
    # Gone with the request.
    store.early.forget()
    assert store.early.notice_fields() is None
