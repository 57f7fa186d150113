"""The benchmarks still run: a tiny run of benchmarks/load.py through the real stack, and one
round of scripts/bench_pictures.py.

Figures are not asserted (they belong in docs/performance.md, measured on a quiet machine); what
is asserted is that every phase reports (the bare framework's too, and the ratios to it), every
move the scripts make is accepted, and the conflicts get resolved by the worker."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The smoke run's phases of benchmarks/load.py, in seconds: each phase runs, and briefly.
LOAD_PHASE = 0.5


def _run(script: str, *args: str, timeout: int) -> str:
    """Run ``script`` (a path under the project) with ``args``; its output once it exited 0."""
    run = subprocess.run(
        [sys.executable, str(ROOT / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    return run.stdout


def test_load_benchmark_smoke_run() -> None:
    out = _run(
        "benchmarks/load.py",
        # 12 games: saturate plays the first 2 (one per loop in flight), which a loop may
        # play out before its phase is over; open needs games of its own.
        *("--games", "12", "--players", "2", "--seconds", str(LOAD_PHASE), "--rate", "30"),
        *("--saturate-games=2", "--pings", "50"),
        *("--concurrency", "2", "--connections", "8", "--web-workers", "1"),
        *("--web-threads", "2", "--scripts", "3", "--streams", "4"),
        timeout=180,
    )
    labels = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert labels == [
        "machine",
        "redis",
        "scripts",
        "setup",
        "bare",
        "streams",
        "trivial",
        "saturate",
        "open",
        "resolve",
        "resolve",
        "memory",
        "streams",
    ], out
    # The game streams stayed open through the phases and carried the moves' events.
    followed = out.splitlines()[-1]
    assert re.search(r", 0 failed; [1-9]\d* events received", followed), followed
    for phase in ("saturate", "open"):
        line = next(line for line in out.splitlines() if line.startswith(phase))
        assert "errors 0" in line, line
        assert float(re.search(r"([\d.]+) moves/s", line).group(1)) > 0, line
    # A phase lasts its --seconds even when a loop plays all its games out before the end
    # (a short game per loop). It slept a phase's length, so 2 s took 3.5.
    saturate = next(line for line in out.splitlines() if line.startswith("saturate"))
    in_flight = float(re.search(r"in flight for ([\d.]+) s", saturate).group(1))
    assert in_flight < LOAD_PHASE * 1.5, saturate
    assert re.search(r"KiB  kurier:game:\{\*\}:events", out), out
    # The bare framework answered, and the closed-loop phases are set against it.
    bare = next(line for line in out.splitlines() if line.startswith("bare"))
    assert float(re.search(r"([\d.]+) requests/s", bare).group(1)) > 0, bare
    for phase in ("trivial", "saturate"):
        line = next(line for line in out.splitlines() if line.startswith(phase))
        assert re.search(r"ratio to bare \d+\.\d\d", line), line


def test_pictures_benchmark_smoke_run() -> None:
    """scripts/bench_pictures.py still runs: one round of every game, each step reported."""
    out = _run("scripts/bench_pictures.py", "--renders", "1", timeout=180)
    for game in ("attila", "attika", "attila-wargame"):
        rows = [line.split() for line in out.splitlines()]
        steps = [row[1] for row in rows if row and row[0] == game]
        crop = ["crop"] if game == "attila-wargame" else []  # the map cut to the last move
        assert steps == ["baseline", "svg", "png", "png", *crop, "rounds"], out


def test_profile_request_smoke_run() -> None:
    """benchmarks/profile_request.py profiles the three kinds of request and splits their CPU."""
    out = _run(
        "benchmarks/profile_request.py",
        *("--requests", "40", "--seconds", "6", "--games", "2", "--warmup", "5"),
        timeout=120,
    )
    for title in ("GET /bare", "GET /v1/me", "POST /v1/games/{id}/actions"):
        line = next(line for line in out.splitlines() if line.startswith(title))
        # Every request answered as it should (a move: 200, or 202 for a sealed choice).
        assert re.search(r"statuses \{(20[02]: \d+(, )?)+\}", line), line
    assert out.count("| **total CPU** |") == 3, out


def test_switched_benchmark_smoke_run() -> None:
    """benchmarks/switched.py measures both sides of a lever (the collector's) in one process."""
    out = _run(
        "benchmarks/switched.py",
        *("--lever", "gc", "--moves", "40", "--batch", "10", "--games", "2", "--seconds", "30"),
        timeout=120,
    )
    rows = [line for line in out.splitlines() if line.startswith(("| on |", "| off |"))]
    assert len(rows) == 2, out
    assert re.search(
        r"statuses: \{'on': \{(20[02]: \d+(, )?)+\}, 'off': \{(20[02]: \d+(, )?)+\}\}", out
    ), out


def test_pages_benchmark_smoke_run() -> None:
    """benchmarks/pages.py still runs: every game type's page, picture and view are measured
    against the bare app, and the bytes are counted with the page's CSS and JS."""
    out = _run(
        "benchmarks/pages.py",
        *("--requests", "1", "--warmup", "1", "--moves", "4", "--web-workers", "1"),
        *("--other-games", "5", "--browser-moves", "1"),
        timeout=240,
    )
    assert re.search(r"^bare .* p95 [\d.]+ ms", out, re.M), out
    # The table's games: an update in place and its bytes; pages watched live in Chromium.
    assert len(re.findall(r"^  per update on the wire: [\d.]+ KB", out, re.M)) == 3, out
    watched = r"^browser +(attika: other pages show a move .* p95 \d+|skipped)"
    assert re.search(watched, out, re.M), out
    for game in ("attila", "attika", "attila-wargame"):
        assert re.search(rf"^{game} +mid-game", out, re.M), out
    for label in ("page", "svg", "api"):
        lines = [line for line in out.splitlines() if line.strip().startswith(label + " ")]
        assert len(lines) == 3 and all(re.search(r"p95 [\d.]+x bare", x) for x in lines), out
    sizes = [line for line in out.splitlines() if line.strip().startswith("bytes")]
    assert len(sizes) == 3 and all("kurier.css" in x and "kurier.js" in x for x in sizes), out
    assert "5 other started games in Redis" in out, out


def test_streams_benchmark_smoke_run() -> None:
    """benchmarks/streams.py still runs: moves made by its movers reach the open streams."""
    out = _run(
        "benchmarks/streams.py",
        *("--streams", "6", "--games", "3", "--rate", "10", "--seconds", "2"),
        *("--movers", "3", "--web-workers", "1"),
        timeout=240,
    )
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["moves"] > 0 and figures["events_delivered"] == figures["events_expected"]
    assert figures["events_expected"] >= figures["moves"], figures


def test_club_benchmark_smoke_run() -> None:
    """benchmarks/club.py still runs: players seeded and rated, a real game played, the
    profile and leaderboard pages and their API answers measured."""
    out = _run(
        "benchmarks/club.py",
        *("--players", "40", "--history", "5", "--real", "1", "--requests", "1"),
        *("--warmup", "1", "--web-workers", "1"),
        timeout=300,
    )
    assert "seeded 40 players" in out, out
    for label in ("page /players/{id}", "page /leaderboards/attila", "api /v1/players/{id}"):
        assert re.search(rf"^{re.escape(label)} +p50 [\d.]+ ms +p95", out, re.M), out
    assert "profile and leaderboard p95" in out, out


def test_peer_benchmark_smoke_run() -> None:
    """benchmarks/peer.py's Kurier side still runs (the peer needs Node and its packages, so
    it is not run here): both phases report, every move accepted, the table printed."""
    out = _run(
        "benchmarks/peer.py",
        *("--only", "kurier", "--games", "6", "--seconds", "1", "--warmup", "0"),
        *("--rate", "20", "--concurrency", "2", "--web-workers", "1", "--web-threads", "2"),
        *("--scripts", "2"),
        timeout=120,
    )
    saturation = next(line for line in out.splitlines() if "saturation:" in line)
    assert "errors 0" in saturation and "load average" in saturation, out
    assert re.search(r"20 moves/s offered: \d+ achieved, .* p99 [\d.]+ ms; errors 0", out), out
    assert re.search(r"^Kurier \(gunicorn, 1x2\) +\d+ +\d+ +[\d.]+ ms", out, re.M), out
