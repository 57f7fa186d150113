"""Every server process imports the game engines at its start (``engine.registry.load_all``):
imported on first use, an engine cost the first move of its type in each new API process,
stream server process or worker 20-45 ms, over 150 ms on a loaded machine.

Each check runs in a fresh interpreter, where nothing has imported an engine yet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine import registry
from service.store import Store

ROOT = Path(__file__).resolve().parent.parent

#: Prints the engine modules the snippet before it left imported, one per line.
_REPORT = (
    "import sys\n"
    "from engine.registry import _ENGINES\n"
    "for target in _ENGINES.values():\n"
    "    module = target.split(':')[0]\n"
    "    print(module, module in sys.modules)\n"
)


def _engines_imported_after(snippet: str, env: dict[str, str] | None = None) -> dict[str, bool]:
    run = subprocess.run(
        [sys.executable, "-c", snippet + "\n" + _REPORT],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = [line.split() for line in run.stdout.splitlines() if line.startswith("engine.")]
    return {module: imported == "True" for module, imported in lines}


def test_a_fresh_interpreter_has_no_engine_until_asked() -> None:
    """The check itself can fail: the service's modules alone import no engine."""
    games = "service.domain.games.lifecycle, service.domain.games.play, service.domain.games.views"
    imported = _engines_imported_after(f"import {games}, service.store")
    assert len(imported) == len(registry.game_ids())
    assert not any(imported.values()), imported


def test_the_api_imports_every_engine_when_created() -> None:
    imported = _engines_imported_after("from service.http.app import create_app\ncreate_app()")
    assert imported and all(imported.values()), imported


def test_the_stream_server_imports_every_engine_when_created() -> None:
    snippet = "from service.http.streams_app import create_streams_app\ncreate_streams_app()"
    imported = _engines_imported_after(snippet)
    assert imported and all(imported.values()), imported


def test_a_worker_imports_every_engine_before_its_first_job(isolated_redis: Store) -> None:
    # A burst worker on a Redis of its own: it starts, finds no job and returns.
    snippet = "from service.cli import main\nmain(['worker', '--burst'])"
    imported = _engines_imported_after(snippet, {"REDIS_URL": isolated_redis.url})
    assert imported and all(imported.values()), imported
