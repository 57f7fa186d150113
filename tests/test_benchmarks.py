"""The benchmarks still run: a tiny run of benchmarks/load.py through the real stack, and one
round of scripts/bench_pictures.py.

Figures are not asserted (they belong in docs/performance.md, measured on a quiet machine); what
is asserted is that every phase reports, every move the scripts make is accepted, and the
conflicts get resolved by the worker."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_load_benchmark_smoke_run() -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "load.py"),
            *("--games", "6", "--players", "2", "--seconds", "2", "--rate", "30"),
            *("--concurrency", "2", "--connections", "8", "--web-workers", "1"),
            *("--web-threads", "2", "--scripts", "3"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    out = run.stdout
    assert run.returncode == 0, out + run.stderr[-3000:]
    labels = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert labels == [
        "machine",
        "redis",
        "scripts",
        "setup",
        "trivial",
        "saturate",
        "open",
        "resolve",
        "resolve",
        "memory",
    ], out
    for phase in ("saturate", "open"):
        line = next(line for line in out.splitlines() if line.startswith(phase))
        assert "errors 0" in line, line
        assert float(re.search(r"([\d.]+) moves/s", line).group(1)) > 0, line
    assert re.search(r"KiB  kurier:game:\{\*\}:events", out), out


def test_pictures_benchmark_smoke_run() -> None:
    """scripts/bench_pictures.py still runs: one round of every game, each step reported."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_pictures.py"), "--renders", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    for game in ("attila", "attika", "attila-wargame"):
        rows = [line.split() for line in run.stdout.splitlines()]
        steps = [row[1] for row in rows if row and row[0] == game]
        assert steps == ["baseline", "svg", "png", "png", "rounds"], run.stdout
