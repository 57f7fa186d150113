"""An upgrade of rules cannot leave a finished game's log unreadable (docs/operations.md,
Upgrades): `kurier games verify --upgrade` upgrades nothing while a compacted game rebuilds its
events under rules the running engine does not reproduce, and `kurier games compact
--keep-events` makes compaction keep every event from then on, games that finish later
included.

An engine of other rules is played by the records: a record naming rules ``<type>-0`` is a
game of an older release to the running engine (as tests/test_pinning.py does)."""

from __future__ import annotations

import pytest

from engine.registry import get_game
from service.cli import main
from service.store import Store, logpack
from service.store.keys import game_key
from service.store.record import PACKED_LOG
from tests.game_helpers import new_table, play_random
from tests.test_logpack import _as_kept, _finished


def _derives(store: Store, game_id: str) -> bool:
    """Whether the game's compacted log rebuilds its events by replay."""
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert stored, "not compacted"
    return logpack.derives(store.get_game(game_id).log_codec, stored)


def _rules(store: Store, game_id: str, version: str) -> None:
    store.raw.hset(game_key(game_id), "rules_version", version)


def test_an_upgrade_waits_until_finished_games_keep_their_events(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = isolated_redis
    monkeypatch.setenv("REDIS_URL", store.url)
    finished = _finished(store, "attika", 2, None).game_id
    _record, entries = store.read_log(finished)
    assert main(["games", "compact"]) == 0 and _derives(store, finished)
    table = new_table(store, seats=2, seed="upgrade-guard")
    play_random(store, table, 10)
    in_play = table.game_id
    capsys.readouterr()

    # The new release: both games are of older rules to it.
    _rules(store, finished, "attika-0")
    _rules(store, in_play, "attila-0")
    assert main(["games", "verify", "--upgrade"]) == 1
    said = capsys.readouterr()
    assert "upgraded: 0" in said.out and f"error {finished}" in said.out
    assert "upgraded nothing" in said.err and "(attika attika-0)" in said.err
    assert "kurier games compact --keep-events" in said.err
    assert store.get_game(in_play).rules_version == "attila-0"  # still the old release's

    # Back on the release of the games' rules: every event kept, and the upgrade goes on.
    _rules(store, finished, get_game("attika").rules_version)
    assert main(["games", "compact", "--keep-events"]) == 0
    assert "packed: 1" in capsys.readouterr().out and not _derives(store, finished)
    _rules(store, finished, "attika-0")
    assert main(["games", "verify", "--upgrade"]) == 0
    assert f"upgraded {in_play}: attila-0 -> " in capsys.readouterr().out
    assert store.get_game(in_play).rules_version == get_game("attila").rules_version
    assert _as_kept(store.read_log(finished)[1]) == _as_kept(entries)


def test_after_compact_keep_events_a_game_that_finishes_later_keeps_them_too(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = isolated_redis
    monkeypatch.setenv("REDIS_URL", store.url)
    assert main(["games", "compact", "--keep-events"]) == 0
    assert "packed: 0" in capsys.readouterr().out
    later = _finished(store, "attika", 2, None).game_id
    assert store.compact(later)  # the compaction job's call, after the game's end
    assert not _derives(store, later)
    _rules(store, later, "attika-0")  # the next release reads it
    _record, entries = store.read_log(later)
    assert entries and all(entry["events"] for _version, entry in entries)
