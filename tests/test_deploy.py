"""The container image and the compose stack, checked without a Docker engine (CI has none).

Three layers: hadolint lints the Dockerfile; Docker Compose v2 itself (`docker-compose config`,
which needs no daemon) validates and resolves the compose file; and the tests below check that
what they run exists here: every command is a `kurier` subcommand, the health check's URL is a
route of the app, ports agree, the user is not root, the Redis flags are the launcher's, the
workers may finish their longest job before being killed. Finally `kurier web` (the image's
default command) is started for real on loopback and answers /healthz and /metrics.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.cli import WORKER_ROLES, main, worker_options
from service.domain import deliveries
from service.http.app import create_app
from service.ops.config import SETTINGS
from service.store import resolve_job
from service.store.queues import WEBHOOK_QUEUE, WORKER_QUEUES
from service.store.redis_server import COMPACT_FLAGS, PERSISTENT_FLAGS
from tests.client import wait_until_answering

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if path is None:  # the wheels exist for x86_64 Linux only (pyproject.toml, test extras)
        pytest.skip(f"{name} is not installed on this platform")
    return path


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs: comments dropped, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _exec_form(args: str) -> list[str]:
    return json.loads(args) if args.startswith("[") else shlex.split(args)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """The compose file as Docker Compose resolves it (all profiles)."""
    out = subprocess.run(
        [_tool("docker-compose"), "--profile", "*", "config", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COMPOSE_PROJECT_NAME": "kurier"},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# -- linters ----------------------------------------------------------------------------------


def test_hadolint_finds_nothing() -> None:
    out = subprocess.run(
        [_tool("hadolint"), "--failure-threshold", "info", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_compose_validates_with_and_without_profiles() -> None:
    for extra in ([], ["--profile", "dashboard"]):
        out = subprocess.run(
            [_tool("docker-compose"), *extra, "config", "--quiet"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr


# -- the Dockerfile ---------------------------------------------------------------------------


def test_image_is_multi_stage_slim_and_unprivileged() -> None:
    steps = dockerfile()
    args = dict(step[1].split("=", 1) for step in steps if step[0] == "ARG" and "=" in step[1])
    bases = [
        a.split()[0].replace("${PYTHON_IMAGE}", args["PYTHON_IMAGE"])
        for w, a in steps
        if w == "FROM"
    ]
    assert len(bases) >= 2
    assert all(re.fullmatch(r"python:3\.11-slim(-\w+)?", base) for base in bases)
    user = [a for w, a in steps if w == "USER"][-1]
    assert user.split(":")[0] not in ("root", "0")
    runtime = steps[max(i for i, (w, _) in enumerate(steps) if w == "FROM") :]
    assert any(w == "USER" for w, _ in runtime), "the final stage must switch user"


def test_image_sources_exist_and_are_not_ignored() -> None:
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    allowed = {line[1:].rstrip("/") for line in ignored if line.startswith("!")}
    for word, args in dockerfile():
        if word == "COPY" and not args.startswith("--from"):
            for source in args.split()[:-1]:
                assert (ROOT / source).exists(), source
                assert source.rstrip("/") in allowed, f"{source} is excluded by .dockerignore"


def test_entrypoint_and_commands_are_kurier_subcommands(compose: dict[str, Any]) -> None:
    steps = dict(dockerfile())  # the last of each instruction wins, as in Docker
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert _exec_form(steps["ENTRYPOINT"]) == ["kurier"]
    assert "kurier" in scripts
    commands = [_exec_form(steps["CMD"])]
    image = compose["services"]["api"]["image"]
    ours = [s for s in compose["services"].values() if s.get("image") == image]
    assert len(ours) >= 3  # api, worker, webhooks (and mail-in once issue 5 adds it)
    commands += [service["command"] for service in ours]
    for service in compose["services"].values():
        test = service.get("healthcheck", {}).get("test", [])
        if test[:2] == ["CMD", "kurier"]:
            commands.append(test[2:])
    for argv in commands:
        with pytest.raises(SystemExit) as shown:
            main([*argv, "--help"])  # argparse exits 0 for a known subcommand, 2 otherwise
        assert shown.value.code == 0, argv


def test_healthcheck_probes_a_route_of_the_app_on_the_exposed_port() -> None:
    steps = dockerfile()
    (options,) = [a for w, a in steps if w == "HEALTHCHECK"]
    check = _exec_form(options.split(" CMD ", 1)[1])[-1]  # the python -c program
    path = re.search(r"'(/[a-z]+)'", check)
    assert path is not None and path.group(1) == "/healthz"
    rules = {rule.rule for rule in create_app({"REDIS_URL": "unix:///x"}).url_map.iter_rules()}
    assert "/healthz" in rules and "/metrics" in rules
    env = " ".join(a for w, a in steps if w == "ENV")
    assert "KURIER_PORT=8000" in env and "KURIER_HOST=0.0.0.0" in env
    assert [a for w, a in steps if w == "EXPOSE"] == ["8000"]


def test_every_engine_data_file_is_packaged() -> None:
    """The image installs the package non-editably: data files must be package data."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_data = data["package-data"]
    for path in (ROOT / "engine").rglob("*"):
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            package = ".".join(path.parent.relative_to(ROOT).parts[:2])
            relative = str(path.relative_to(ROOT / package.replace(".", "/")))
            globs = package_data.get(package, [])
            assert any(fnmatch.fnmatch(relative, g) for g in globs), f"{path} is not packaged"


# -- the compose file -------------------------------------------------------------------------


def test_redis_is_durable_private_and_on_a_volume(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    flags = redis["command"][1:]
    assert " ".join(PERSISTENT_FLAGS) in " ".join(flags)  # the launcher's durability flags
    assert "--maxmemory-policy noeviction" in " ".join(flags)
    # The launcher's compact-record and compact-log settings (the first under Redis 7's name).
    value = dict(zip(COMPACT_FLAGS[::2], COMPACT_FLAGS[1::2], strict=True))
    assert f"--hash-max-listpack-value {value['--hash-max-ziplist-value']}" in " ".join(flags)
    assert f"--stream-node-max-bytes {value['--stream-node-max-bytes']}" in " ".join(flags)
    assert "ports" not in redis
    assert [v["type"] for v in redis["volumes"]] == ["volume"]
    assert redis["volumes"][0]["target"] == "/data"


def test_workers_scale_and_finish_their_longest_job(compose: dict[str, Any]) -> None:
    longest = {
        "worker": resolve_job("g", "r").timeout,
        "webhooks": deliveries.attempt_timeout() + deliveries.WEBHOOK_JOB_MARGIN,
    }
    for name, job_timeout in longest.items():
        worker = compose["services"][name]
        assert "ports" not in worker and "container_name" not in worker  # --scale worker=N
        grace = worker["stop_grace_period"]  # a Go duration, e.g. 1m30s
        units = {"h": 3600, "m": 60, "s": 1}
        seconds = sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([hms])", grace))
        assert job_timeout is not None and seconds >= job_timeout + 10, (name, grace)


def _queues_served(commands: list[list[str]]) -> set[str]:
    served: set[str] = set()
    for argv in commands:
        if argv[0] == "worker":
            served |= set(worker_options().parse_args(argv[1:]).queues)
    return served


def test_every_queue_has_workers_in_compose_and_in_kurier_run(compose: dict[str, Any]) -> None:
    """A queue nobody serves would hold its jobs forever: webhooks have their own workers."""
    every = {*WORKER_QUEUES, WEBHOOK_QUEUE}
    image = compose["services"]["api"]["image"]
    ours = [s["command"] for s in compose["services"].values() if s.get("image") == image]
    assert _queues_served(ours) == every
    assert _queues_served([list(role) for role in WORKER_ROLES]) == every
    # Game work never shares a worker with webhook deliveries, which may wait on slow servers.
    for argv in [*ours, *WORKER_ROLES]:
        if argv[0] == "worker":
            queues = set(worker_options().parse_args(argv[1:]).queues)
            assert queues == {WEBHOOK_QUEUE} or WEBHOOK_QUEUE not in queues, argv


def test_api_port_matches_the_image(compose: dict[str, Any]) -> None:
    ports = compose["services"]["api"]["ports"]
    assert [(p["target"], p["host_ip"]) for p in ports] == [(8000, "127.0.0.1")]
    assert compose["services"]["dashboard"]["profiles"] == ["dashboard"]


def test_compose_sets_only_documented_variables(compose: dict[str, Any]) -> None:
    known = {s.name for s in SETTINGS}
    for name in ("api", "worker", "webhooks"):
        assert set(compose["services"][name]["environment"]) <= known


# -- the image's default command, run for real ---------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def web(redis_url: str, worker: subprocess.Popen[bytes], tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "KURIER_HOST": "127.0.0.1",
        "KURIER_PORT": str(port),
        "KURIER_WEB_WORKERS": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    log = open(tmp_path / "web.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([str(BIN / "kurier"), "web"], env=env, cwd=ROOT, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(proc, base, str(tmp_path / "web.log"))
        yield base
    finally:  # also when it never answered: no gunicorn left running after the test
        proc.terminate()
        proc.wait(30)
        log.close()
    lines = (tmp_path / "web.log").read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)  # JSON logs only


def test_kurier_web_serves_health_and_sums_metrics_over_processes(web: str) -> None:
    for _ in range(20):  # spread over both gunicorn workers
        assert requests.get(web + "/healthz", timeout=5).status_code == 200
    text = requests.get(web + "/metrics", timeout=5).text
    line = next(
        ln
        for ln in text.splitlines()
        if ln.startswith("kurier_http_requests_total")
        and 'route="/healthz"' in ln
        and 'status="200"' in ln
    )
    assert float(line.rsplit(" ", 1)[1]) >= 20  # every process's count, not one's
