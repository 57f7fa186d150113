"""Side by side with boardgame.io (issue 38): the peer's server and Kurier's stack, one after the
other in one run on the same machine, and the ratios.

The peer is the harness in ``../shared/benchmarks/peer-bgio/`` (boardgame.io 0.50.2 on Node: a
3-player placement game with hidden hands, socket.io movers; its README says what a move does
there). shared/ may be read-only, so this script copies the harness into a folder of its own
(``--peer-dir``, by default ``$TMPDIR/kurier-peer-bgio``) and runs ``npm ci`` there when its
``node_modules`` is missing or its ``package-lock.json`` differs from the harness's; by hand that
is ``cp -r ../shared/benchmarks/peer-bgio /tmp/x && cd /tmp/x && npm ci`` (Node >= 18, the npm
registry). ``--peer-dir`` names a copy made before, to skip the copy and the install.

What runs, each with fresh servers, 2 server processes on each side by default:

1. boardgame.io in memory (``server.js --storage memory --procs 2``): moves/s at saturation
   (``load.js --matches 500``, one move in flight per match, closed loop);
2. boardgame.io with file storage, node-persist's write queue off (``--storage flatfile
   --write-queue off``: every move written at once, no fsync, after the answer): saturation, then
   a fresh server and the offered rate (open loop): p99 from each move's scheduled time; the
   rate is ``--rate-share`` (0.6, issue 50) of its saturated moves/s, or ``--rate``;
3. Kurier as ``kurier run`` starts it (benchmarks/load.py's stack: Redis with its AOF, one rq
   worker, the API's processes × threads from ``--web-workers``/``--web-threads``): ``--games``
   Attila games of 3 players are set up, then moves at saturation over all of them
   (``--concurrency`` in flight, closed loop), then the same offered rate over all of
   them (open loop): p99 from each move's scheduled time. A move is acknowledged once it is in
   Redis's AOF, with every check it makes in production (token, rate limit, idempotency,
   version, commitments, notifications owed).

Then the ratios Kurier / boardgame.io-file and Kurier / boardgame.io-memory at saturation, and
each side's p99 at the offered rate, against issue 38's targets (≥ 1.2 × file; ≤ 100 ms). The
load average (``/proc/loadavg``) is printed with every figure: the machine may be shared, and
only ratios measured in the same run count. Each phase is ``--seconds`` long after
``--warmup`` (both bounded); traffic goes to 127.0.0.1 only.

Not a test: ``.venv/bin/python benchmarks/peer.py`` (about 3 minutes); ``--only kurier`` or
``--only peer`` for one side.
"""

from __future__ import annotations

import argparse
import asyncio
import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load import (  # noqa: E402
    Client,
    Table,
    make_script,
    percentile,
    run_open,
    saturate,
    wait_ready,
)
from benchmarks.stack import CpuMeter, Stack  # noqa: E402

#: The harness, as issue 38 places it: beside the project, in shared/.
PEER_SOURCE = ROOT.parent / "shared" / "benchmarks" / "peer-bgio"
#: Issue 38's and 50's targets.
TARGET_RATIO_FILE = 1.2
TARGET_P99_MS = 100.0
#: The offered rate of the latency phase: this share of boardgame.io file's saturated rate,
#: measured in the same run (issue 50), or DEFAULT_RATE when only Kurier runs.
RATE_SHARE = 0.6
DEFAULT_RATE = 500.0


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Figure:
    """One side's figures: moves/s at saturation and p99 (ms) at the offered rate."""

    name: str
    moves: float = float("nan")
    p99: float = float("nan")
    achieved: float = float("nan")
    #: Moves per CPU-second of the server side at saturation (boardgame.io: its processes;
    #: Kurier: the API, the rq worker and Redis): what a busy machine disturbs least.
    per_cpu: float = float("nan")
    loads: str = ""


# -- the peer -----------------------------------------------------------------------------------


def prepare_peer(source: Path, work: Path) -> Path:
    """A copy of the harness in ``work`` with its packages installed (``npm ci``); reused while
    its lock file is the harness's."""
    if not (source / "package-lock.json").is_file():
        raise SystemExit(
            f"no boardgame.io harness at {source}: pass --peer-source (the folder "
            "shared/benchmarks/peer-bgio) or --peer-dir (a copy with `npm ci` done)"
        )
    lock = work / "package-lock.json"
    if (
        (work / "node_modules").is_dir()
        and lock.is_file()
        and filecmp.cmp(lock, source / "package-lock.json", shallow=False)
    ):
        return work
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("the peer needs Node >= 18 with npm (e.g. apt-get install nodejs npm)")
    print(f"peer      copying {source} to {work} and running npm ci (once)", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    # shared/ is read-only: copy the contents, not the modes, so that npm can write here.
    shutil.copytree(source, work, copy_function=shutil.copyfile, ignore=_no_installed)
    for folder, _dirs, _files in os.walk(work):
        os.chmod(folder, 0o755)
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=work,
        check=True,
        timeout=600,
        stdout=subprocess.DEVNULL,
    )
    return work


def _no_installed(_folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name in ("node_modules", "run", "results")]


class PeerServer:
    """``node server.js --procs N`` until ``stop``: its supervisor stops the N processes."""

    def __init__(self, peer: Path, storage: list[str], procs: int, port: int) -> None:
        self.pidfile = Path(tempfile.mkdtemp(prefix="kur-peer-")) / "servers.json"
        argv = ["node", "server.js", "--port", str(port), "--procs", str(procs), *storage]
        self.proc = subprocess.Popen(
            [*argv, "--pidfile", str(self.pidfile)],
            cwd=peer,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        # A server that never says it is up is killed, and the readline below ends.
        watchdog = threading.Timer(60, self.proc.kill)
        watchdog.start()
        try:
            assert self.proc.stdout is not None
            while not (line := self.proc.stdout.readline()).startswith("SUPERVISOR"):
                if not line:
                    raise SystemExit(f"boardgame.io's server did not start: {' '.join(argv)}")
        finally:
            watchdog.cancel()
        # Its further lines are not read: it prints nothing per move in production mode.

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.pidfile.parent, ignore_errors=True)


def peer_run(
    args: argparse.Namespace, peer: Path, storage: list[str], rate: float = 0.0
) -> dict[str, Any]:
    """One load.js run against a fresh server; its JSON summary. Tried a second time when it
    fails: on a busy machine setting up 500 matches once ended in ECONNRESET (load average 30)."""
    try:
        return _peer_run_once(args, peer, storage, rate)
    except PeerFailed as failure:
        print(f"          load.js failed ({failure}), once more with a fresh server", flush=True)
        return _peer_run_once(args, peer, storage, rate)


class PeerFailed(Exception):
    pass


def _peer_run_once(
    args: argparse.Namespace, peer: Path, storage: list[str], rate: float
) -> dict[str, object]:
    server = PeerServer(peer, storage, args.procs, args.peer_port)
    out = server.pidfile.with_name("result.json")
    try:
        argv = ["node", "load.js", "--matches", str(args.games), "--duration", str(args.seconds)]
        argv += ["--warmup", str(args.warmup), "--json", str(out), "--pidfile", str(server.pidfile)]
        argv += ["--workers", str(args.peer_load_workers)]
        if rate:
            argv += ["--rate", str(rate)]
        # Setting up 500 matches takes 4-17 s (the harness's README), then warm-up, window, drain.
        run = subprocess.run(
            argv,
            cwd=peer,
            capture_output=True,
            text=True,
            timeout=120 + args.warmup + args.seconds,
            check=False,
        )
        keep = ("MOVES", "OPEN", "LAT", "SERVER", "LOADGEN", "MACHINE", "ERROR")
        for line in run.stdout.splitlines():
            if line.startswith(keep):
                print(f"          {line}", flush=True)
        if run.returncode != 0 or not out.is_file():
            print(run.stdout + run.stderr[-3000:], flush=True)
            raise PeerFailed(f"exit {run.returncode}")
        return dict(json.loads(out.read_text()))
    finally:
        server.stop()


def measure_peer(args: argparse.Namespace, peer: Path) -> list[Figure]:
    figures = []
    for name, storage, open_loop in (
        ("boardgame.io, in memory", ["--storage", "memory"], False),
        ("boardgame.io, file", ["--storage", "flatfile", "--write-queue", "off"], True),
    ):
        figure = Figure(name)
        print(f"peer      {name}: {args.games} matches, closed loop", flush=True)
        try:
            result = peer_run(args, peer, storage)
        except PeerFailed:
            print(f"          {name}: no figure (load.js failed twice)", flush=True)
            figures.append(figure)
            continue
        figure.moves = float(result["throughput"])
        figure.per_cpu = float(result["movesPerServerCpuSec"] or "nan")
        figure.loads = load_average()
        print(
            f"          {figure.moves:.0f} moves/s, {figure.per_cpu:.0f} per server CPU-second; "
            f"load average {figure.loads}",
            flush=True,
        )
        if open_loop:
            if not args.fixed_rate and figure.moves > 0:
                args.rate = min(max(args.rate_share * figure.moves, 1.0), 5000.0)
            print(f"peer      {name}: {args.rate:.0f} moves/s offered", flush=True)
            try:
                result = peer_run(args, peer, storage, args.rate)
            except PeerFailed:
                print(f"          {name}: no open-loop figure (load.js failed twice)", flush=True)
                figures.append(figure)
                continue
            figure.p99 = float(result["latencyMs"]["p99"])
            figure.achieved = float(result["throughput"])
            figure.loads += f", {load_average()}"
            print(f"          p99 {figure.p99:.1f} ms; load average {load_average()}", flush=True)
        figures.append(figure)
    return figures


# -- Kurier -------------------------------------------------------------------------------------


async def kurier_phases(args: argparse.Namespace, stack: Stack) -> Figure:
    figure = Figure(f"Kurier ({args.server}, {args.web_workers}x{args.web_threads})")
    connector = aiohttp.TCPConnector(limit=args.connections)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        client = Client(session, stack.base)
        await wait_ready(client)
        scripts = [make_script(3, f"load-{n}") for n in range(args.scripts)]
        setup = asyncio.Semaphore(32)
        started = time.perf_counter()

        async def new(n: int) -> Table:
            async with setup:
                seed = f"load-{n % args.scripts}"
                return await client.new_table(n, 3, scripts[n % args.scripts], seed)

        tables = await asyncio.gather(*(new(n) for n in range(args.games)))
        print(f"kurier    {len(tables)} games set up in {time.perf_counter() - started:.1f} s")
        await saturate(client, tables, args.concurrency, args.warmup)
        cpu = CpuMeter(stack.cpu_parts())
        sat = await saturate(client, tables, args.concurrency, args.seconds)
        used = {part: seconds - cpu.last[part] for part, seconds in cpu.sample().items()}
        figure.per_cpu = sat.moves / sum(used[part] for part in ("gunicorn", "rq", "redis"))
        figure.moves = sat.moves / sat.elapsed
        figure.loads = load_average()
        lat = [v * 1000 for v in sat.tally.latencies]
        print(
            f"kurier    saturation: {figure.moves:.0f} moves/s at {args.concurrency} in flight, "
            f"p50 {percentile(lat, 0.5):.1f} ms p99 {percentile(lat, 0.99):.1f} ms; waits "
            f"{sat.tally.waits}, errors {sat.tally.errors or 0}; {figure.per_cpu:.0f} per server "
            f"CPU-second (API, worker, Redis); load average {figure.loads}",
            flush=True,
        )
        print(f"          {cpu.since_last(sat.elapsed, sat.moves)}", flush=True)
        started = time.perf_counter()
        tally = await run_open(client, list(tables), args.rate, args.seconds)
        elapsed = time.perf_counter() - started
        lat = [v * 1000 for v in tally.latencies]
        figure.p99 = percentile(lat, 0.99)
        figure.achieved = tally.moves / elapsed
        figure.loads += f", {load_average()}"
        print(
            f"kurier    {args.rate:.0f} moves/s offered: {figure.achieved:.0f} achieved, p50 "
            f"{percentile(lat, 0.5):.1f} ms p99 {figure.p99:.1f} ms; errors "
            f"{tally.errors or 0}; load average {load_average()}",
            flush=True,
        )
        print(f"          {cpu.since_last(elapsed, tally.moves)}", flush=True)
    return figure


def measure_kurier(args: argparse.Namespace) -> Figure:
    stack_args = argparse.Namespace(
        web_workers=args.web_workers,
        web_threads=args.web_threads,
        workers=1,
        streams=0,
        server=args.server,
    )
    stack = Stack(stack_args, with_bare=False)
    stack.start()
    try:
        return asyncio.run(kurier_phases(args, stack))
    finally:
        stack.stop()


# -- main ---------------------------------------------------------------------------------------


def report(kurier: Figure | None, peers: list[Figure], args: argparse.Namespace) -> None:
    rows = [*peers, *([kurier] if kurier else [])]
    print(
        f"\n{'':32} {'moves/s':>8} {'per CPU-s':>9} {f'p99 at {args.rate:.0f}/s':>14}  load average"
    )
    for f in rows:
        p99 = "–" if f.p99 != f.p99 else f"{f.p99:.1f} ms"
        print(f"{f.name:32} {f.moves:8.0f} {f.per_cpu:9.0f} {p99:>14}  {f.loads}")
    if not kurier or not peers:
        return
    by_name = {f.name: f for f in peers}
    file, memory = by_name["boardgame.io, file"], by_name["boardgame.io, in memory"]
    ratio_file, ratio_memory = kurier.moves / file.moves, kurier.moves / memory.moves
    print(
        f"\nper server CPU-second: Kurier / boardgame.io file {kurier.per_cpu / file.per_cpu:.2f}"
        f", Kurier / boardgame.io memory {kurier.per_cpu / memory.per_cpu:.2f} (the ratio a "
        "busy machine disturbs least)"
    )
    print(
        f"\nKurier / boardgame.io file:   {ratio_file:.2f} at saturation (target ≥ "
        f"{TARGET_RATIO_FILE}: {'met' if ratio_file >= TARGET_RATIO_FILE else 'NOT met'})\n"
        f"Kurier / boardgame.io memory: {ratio_memory:.2f} at saturation\n"
        f"p99 at {args.rate:.0f} moves/s: Kurier {kurier.p99:.1f} ms (target ≤ "
        f"{TARGET_P99_MS:.0f}: {'met' if kurier.p99 <= TARGET_P99_MS else 'NOT met'}), "
        f"boardgame.io file {file.p99:.1f} ms"
    )


def _stop(_signum: int, _frame: object) -> None:
    raise SystemExit("stopped (SIGTERM)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games (matches) in play, ≤ 1000")
    parser.add_argument("--seconds", type=float, default=15.0, help="each measured window")
    parser.add_argument("--warmup", type=float, default=5.0, help="before each window")
    parser.add_argument(
        "--rate",
        type=float,
        help="moves/s offered (open loop); by default --rate-share of boardgame.io file's "
        f"saturated moves/s in this run ({DEFAULT_RATE:.0f} with --only kurier)",
    )
    parser.add_argument(
        "--rate-share",
        type=float,
        default=RATE_SHARE,
        help="the offered rate as a share of boardgame.io file's saturated rate (issue 50: 0.6)",
    )
    parser.add_argument("--procs", type=int, default=2, help="boardgame.io server processes")
    parser.add_argument("--peer-port", type=int, default=8401, help="its first port")
    parser.add_argument("--peer-load-workers", type=int, default=1, help="load.js --workers")
    parser.add_argument("--peer-source", type=Path, default=PEER_SOURCE)
    parser.add_argument(
        "--peer-dir", type=Path, default=Path(tempfile.gettempdir()) / "kurier-peer-bgio"
    )
    parser.add_argument("--only", choices=("kurier", "peer"), help="measure one side")
    parser.add_argument("--server", choices=("gunicorn", "granian"), default="gunicorn")
    parser.add_argument("--web-workers", type=int, default=2, help="Kurier's API processes")
    parser.add_argument("--web-threads", type=int, default=4, help="threads per process")
    parser.add_argument("--concurrency", type=int, default=32, help="Kurier's moves in flight")
    parser.add_argument("--connections", type=int, default=128, help="Kurier client's pool")
    parser.add_argument("--scripts", type=int, default=50, help="distinct Kurier game scripts")
    parser.add_argument(
        "--web-nice",
        type=int,
        default=0,
        help="the API's niceness over this script's (production: 5, below the rq worker); 0: "
        "both servers at the benchmark's own, as boardgame.io's runs",
    )
    args = parser.parse_args()
    # Both servers alike: at nice +5 over a load average of 23, gunicorn (and boardgame.io,
    # when tried so) got 5% of a core (docs/performance.md, issue 38).
    os.environ["KURIER_WEB_NICE"] = str(args.web_nice)
    # A stop (timeout, kill) still stops the servers: the finally blocks run on SIGTERM too.
    signal.signal(signal.SIGTERM, _stop)
    args.games = max(1, min(args.games, 1000))
    args.seconds = min(max(args.seconds, 1.0), 120.0)
    args.warmup = min(max(args.warmup, 0.0), 30.0)
    args.fixed_rate = args.rate is not None
    args.rate = min(max(args.rate or DEFAULT_RATE, 1.0), 5000.0)
    print(
        f"machine   {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}; load average {load_average()}",
        flush=True,
    )
    peers = []
    if args.only != "kurier":
        peers = measure_peer(args, prepare_peer(args.peer_source, args.peer_dir))
    kurier = measure_kurier(args) if args.only != "peer" else None
    report(kurier, peers, args)


if __name__ == "__main__":
    main()
