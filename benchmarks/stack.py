"""The stack a benchmark measures, started as ``kurier run`` starts it on loopback (Redis with
the production flags, rq workers, gunicorn or granian, optionally the stream server), and a
meter of the CPU each of its parts uses. benchmarks/load.py, pages.py and streams.py share it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

from service.ops.commands import gunicorn_argv
from service.store.redis_server import PERSISTENT_FLAGS, RedisServer

#: The checkout the stack's processes run from.
ROOT = Path(__file__).resolve().parent.parent
#: The bare framework's app (benchmarks/bare_app.py), in place of the service's.
BARE_APP = "benchmarks.bare_app:app"
APP = "service.http.wsgi:app"
#: gunicorn_conf.DEFAULT_NICE, for granian (importing that module makes a metrics directory).
WEB_NICE = 5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stack:
    """Redis, rq workers and gunicorn as ``kurier run`` starts them, on loopback, and the bare
    app beside them (``with_bare``: for the scripts that measure against it)."""

    def __init__(self, args: argparse.Namespace, with_bare: bool = True) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="kur-load-", dir="/tmp"))
        self.redis = RedisServer(self.dir / "redis", PERSISTENT_FLAGS)
        self.port = free_port()
        self.bare_port = free_port()
        self.args = args
        self.procs: list[subprocess.Popen[bytes]] = []
        self.with_bare = with_bare
        self.bare: subprocess.Popen[bytes] | None = None
        #: Game streams to keep open (``--streams``; other scripts' stacks have none).
        self.stream_count = int(getattr(args, "streams", 0))
        self.streams: subprocess.Popen[bytes] | None = None
        self.streams_port = free_port()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def streams_base(self) -> str:
        return f"http://127.0.0.1:{self.streams_port}"

    @property
    def bare_base(self) -> str:
        return f"http://127.0.0.1:{self.bare_port}"

    def start(self) -> None:
        self.redis.start()
        env = {
            **os.environ,
            "REDIS_URL": self.redis.url,
            "KURIER_DATA_DIR": str(self.dir),  # gunicorn's control socket: this stack's own
            "KURIER_HOST": "127.0.0.1",
            "KURIER_PORT": str(self.port),
            "KURIER_WEB_WORKERS": str(self.args.web_workers or ""),
            "KURIER_WEB_THREADS": str(self.args.web_threads),
            # Every request is still counted by the limiter; the budget is just out of reach.
            "KURIER_RATE_LIMIT": "1000000/minute",
            "KURIER_SIGNUP_RATE_LIMIT": "1000000/minute",
            "KURIER_STREAM_CONNECTIONS": str(self.stream_count + 100),
        }
        log = open(self.dir / "stack.log", "wb")  # noqa: SIM115 - lives as long as the stack
        kurier = [sys.executable, "-m", "service.cli"]
        for _ in range(self.args.workers):
            self.procs.append(
                subprocess.Popen([*kurier, "worker"], env=env, stdout=log, stderr=log)
            )
        if self.stream_count:
            self.streams = subprocess.Popen(
                [*kurier, "streams", "--port", str(self.streams_port)],
                env=env,
                stdout=log,
                stderr=log,
            )
        # The API last: cpu_parts counts procs[-1] as gunicorn (or granian, ``--server``).
        web = self.granian_argv(self.port, APP) if self.granian else [*kurier, "web"]
        self.procs.append(subprocess.Popen(web, env=env, cwd=ROOT, stdout=log, stderr=log))
        if self.with_bare:
            self.bare = self.start_bare(env, log)

    @property
    def granian(self) -> bool:
        """Whether the apps run under granian (``--server``), not gunicorn."""
        return bool(getattr(self.args, "server", "gunicorn") == "granian")

    def start_bare(self, env: dict[str, str], log: IO[bytes]) -> subprocess.Popen[bytes]:
        """The bare app under the very command line `kurier web` runs, but for the app: same
        gunicorn config (processes, threads, niceness), same environment."""
        if self.granian:
            argv = self.granian_argv(self.bare_port, BARE_APP)
        else:
            argv = gunicorn_argv("127.0.0.1", self.bare_port)
            assert argv[-1] == APP, argv
            argv = [*argv[:-1], BARE_APP]
        return subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log, stderr=log)

    def granian_argv(self, port: int, app: str) -> list[str]:
        """The app under granian's WSGI interface (issue 38: measured against gunicorn; not a
        dependency, so ``pip install granian`` first) with gunicorn's processes, threads
        (granian's blocking threads serve WSGI) and niceness."""
        workers = self.args.web_workers or 2 * (os.cpu_count() or 1)
        nice = os.environ.get("KURIER_WEB_NICE") or str(WEB_NICE)
        return [
            *("nice", "-n", nice, sys.executable, "-m", "granian", "--interface", "wsgi"),
            *("--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)),
            *("--blocking-threads", str(self.args.web_threads), "--no-ws", app),
        ]

    def bare_cpu_parts(self) -> dict[str, list[int]]:
        assert self.redis.process is not None and self.bare is not None
        return {
            "client": [os.getpid()],
            "gunicorn": [self.bare.pid],
            "redis": [self.redis.process.pid],
        }

    def stop_bare(self) -> None:
        """The bare server is measured first and then stopped, so it takes nothing from the
        service's phases."""
        if self.bare is not None:
            _terminate([self.bare])
            self.bare = None

    def cpu_parts(self) -> dict[str, list[int]]:
        assert self.redis.process is not None
        return {
            "client": [os.getpid()],
            "gunicorn": [self.procs[-1].pid],
            "rq": [proc.pid for proc in self.procs[:-1]],
            "redis": [self.redis.process.pid],
        } | ({"streams": [self.streams.pid]} if self.streams else {})

    def stop(self) -> None:
        self.stop_bare()
        _terminate(self.procs + ([self.streams] if self.streams else []))
        self.redis.stop()
        if getattr(self.args, "keep_log", False):  # the servers' own lines, to see why a run failed
            shutil.copy(self.dir / "stack.log", self.args.keep_log)
        shutil.rmtree(self.dir, ignore_errors=True)  # Redis data, log: nothing outlives a run


def _terminate(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def _proc_stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds used) of a live process, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime, stime, and those of the children it has reaped (rq's work-horses).
    ticks = sum(int(value) for value in fields[11:15])
    return int(fields[1]), ticks / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds used by each part of the stack: its processes and their descendants, but for
    the client (this process, whose descendants are the stack)."""

    def __init__(self, parts: dict[str, list[int]]) -> None:
        self.parts = parts
        self.last = self.sample()

    def sample(self) -> dict[str, float]:
        pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
        stats = {pid: _proc_stat(pid) for pid in pids}
        children: dict[int, list[int]] = {}
        for pid, stat in stats.items():
            if stat:
                children.setdefault(stat[0], []).append(pid)
        out = {}
        for name, roots in self.parts.items():
            todo, total = list(roots), 0.0
            while todo:
                pid = todo.pop()
                total += (stats.get(pid) or (0, 0.0))[1]
                if name != "client":
                    todo.extend(children.get(pid, []))
            out[name] = total
        return out

    def since_last(self, seconds: float, requests: int | None = None) -> str:
        """Cores used by each part since the last call; with ``requests``, also gunicorn's CPU
        milliseconds per request."""
        now = self.sample()
        used = {name: (now[name] - self.last[name]) / seconds for name in now}
        self.last = now
        line = "CPU cores used: " + ", ".join(f"{name} {share:.2f}" for name, share in used.items())
        if requests:
            line += f"; gunicorn {used['gunicorn'] * seconds / requests * 1000:.2f} ms per request"
        return line
