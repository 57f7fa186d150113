"""The kurier command line as a newcomer meets it: `kurier run` on the address the variables
name, a busy port said in one line, a demo whose players get mail, help without markup."""

from __future__ import annotations

import contextlib
import email
import email.policy
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from subprocess import PIPE
from typing import Any

import pytest
import redis
import requests

from tests.client import Kurier
from tests.conftest import short_tmp
from tests.receivers import free_port, wait_for

ROOT = Path(__file__).resolve().parent.parent
Completed = subprocess.CompletedProcess[str]
COMMANDS = ("run", "worker", "mail-in", "redis", "demo", "openapi", "web", "config", "games")


def run_kurier(*args: str, env: dict[str, str], timeout: float = 60) -> Completed:
    """`kurier <args>` to its end; on timeout its whole process group is killed too."""
    command = [sys.executable, "-m", "service.cli", *args]
    with subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=PIPE, stderr=PIPE, text=True, start_new_session=True
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(proc, Path(env.get("KURIER_DATA_DIR", "/nonexistent")) / "redis.sock")
            raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def stack_env(tmp: Path, **extra: str) -> dict[str, str]:
    """A `kurier run` of its own: data, outbox, home and temp files under `tmp`, free ports."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("KURIER_")
        and k not in ("REDIS_URL", "PROMETHEUS_MULTIPROC_DIR", "XDG_RUNTIME_DIR")
    }
    for name in ("home", "tmp"):
        (tmp / name).mkdir()
    return {
        **env,
        "HOME": str(tmp / "home"),
        "TMPDIR": str(tmp / "tmp"),
        "KURIER_DATA_DIR": str(tmp / "data"),
        "KURIER_OUTBOX": str(tmp / "outbox"),
        "KURIER_PORT": str(free_port()),
        "KURIER_MAILIN_PORT": str(free_port()),
        "KURIER_STREAM_PORT": str(free_port()),  # else the API's port + 1: maybe taken
        "KURIER_WEB_WORKERS": "1",
        "KURIER_LOG_LEVEL": "WARNING",
        # As for every test (conftest.py): a mail goes out at once, not after the 20 s window.
        "KURIER_MAIL_BATCH_SECONDS": "0",
        **extra,
    }


@contextlib.contextmanager
def listening_socket() -> Iterator[int]:
    """A port some other program already listens on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


# -- a busy port -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "variable"),
    [("run", "KURIER_PORT"), ("run", "KURIER_MAILIN_PORT"), ("web", "KURIER_PORT")],
)
def test_a_busy_port_is_one_line_naming_the_variable(command: str, variable: str) -> None:
    tmp = short_tmp("kur-busy-")
    with listening_socket() as port:
        env = stack_env(tmp, **{variable: str(port)})
        if command == "web":
            env["REDIS_URL"] = "unix:///nonexistent"  # never reached: the port comes first
        done = run_kurier(command, env=env, timeout=30)
    assert done.returncode == 2
    assert done.stderr == (
        f"kurier {command}: cannot listen on 127.0.0.1:{port}: Address already in use; "
        f"set {variable} to a free port\n"
    )
    assert not (tmp / "data").exists()  # nothing started: no Redis, no data directory


def test_a_malformed_port_is_one_line_too() -> None:
    done = run_kurier("run", env=stack_env(short_tmp("kur-busy-"), KURIER_PORT="80a"), timeout=30)
    assert done.returncode == 2
    assert done.stderr == (
        "kurier run: KURIER_PORT: '80a': must be a whole number from 1 to 65535\n"
    )


# -- kurier run, end to end --------------------------------------------------------------------


def test_run_listens_where_the_variables_say_and_the_demo_mails_its_players() -> None:
    tmp = short_tmp("kur-run-")
    env = stack_env(tmp)
    base = f"http://127.0.0.1:{env['KURIER_PORT']}"
    log = open(tmp / "run.log", "w+")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "run"],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # to clean up the whole group if the test fails
    )
    try:
        index = wait_for(lambda: _get(proc, base + "/v1"), 90, "kurier run to answer /v1")
        links = index.json()["links"]
        assert links == {
            "docs": "/docs/",
            "openapi": "/v1/openapi.json",
            "game_types": "/v1/game-types",
            "health": "/healthz",
        }
        for name, path in links.items():
            answer = requests.get(base + path, timeout=10)
            assert answer.status_code in ((200, 503) if name == "health" else (200,)), path
        # gunicorn's control socket is the stack's own, not ~/.gunicorn/gunicorn.ctl.
        assert (tmp / "data" / "gunicorn.ctl").is_socket()
        assert not (tmp / "home" / ".gunicorn").exists()

        demo = run_kurier("demo", env=env)
        assert demo.returncode == 0, demo.stderr
        game_id = re.search(r"Demo game (\w+)", demo.stdout).group(1)
        assert f"{base}/v1/games/{game_id}/legal-actions" in demo.stdout
        assert f"their mails go to the maildir {tmp / 'outbox'}/new" in demo.stdout
        # The workers of this stack mail the demo's players, with links to where the API runs.
        mails = wait_for(lambda: _mails_to(tmp / "outbox", "alice@example.org"), 60, "a mail")
        body = mails[0].get_body(("plain",)).get_content()
        assert f"{base}/v1/games/{game_id}" in body

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=100) == 0
        log.seek(0)
        output = log.read()
        assert f"play in the browser at {base}/ ; API on {base}/v1" in output
        assert f"mail goes to the maildir {tmp / 'outbox'}/new" in output
        assert not (tmp / "data" / "redis.sock").exists()  # Redis stopped last, cleanly
        assert list((tmp / "tmp").iterdir()) == []  # gunicorn's metrics directory removed
    finally:
        _stop(proc, tmp / "data" / "redis.sock")
        log.close()


def _get(proc: subprocess.Popen[bytes], url: str) -> requests.Response | None:
    assert proc.poll() is None, "kurier run exited"
    try:
        answer = requests.get(url, timeout=2)
    except requests.RequestException:
        return None
    return answer if answer.status_code == 200 else None


def _mails_to(outbox: Path, address: str) -> list[EmailMessage]:
    if not (outbox / "new").is_dir():
        return []
    mails = [_parse(path) for path in (outbox / "new").iterdir()]
    return [m for m in mails if address in str(m["To"])]


def _parse(path: Path) -> EmailMessage:
    with path.open("rb") as file:
        message = email.message_from_binary_file(file, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _stop(proc: subprocess.Popen[Any], redis_socket: Path) -> None:
    """After a failure: the whole group, and the embedded Redis in its own session."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    if redis_socket.exists():
        client = redis.Redis(unix_socket_path=str(redis_socket), socket_timeout=5)
        with contextlib.suppress(redis.RedisError):  # SHUTDOWN answers by closing
            client.shutdown(nosave=True)


# -- the demo, help --------------------------------------------------------------------------


def test_demo_prints_working_tokens_and_gives_its_players_addresses(
    redis_url: str, kurier: Kurier
) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "demo", "--base-url", kurier.base],
        env={**os.environ, "REDIS_URL": redis_url},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    game_id = re.search(r"Demo game (\w+)", out.stdout).group(1)
    tokens = re.findall(r"kur_pat_[\w-]+", out.stdout)
    assert len(set(tokens)) == 3
    seats = []
    for token in set(tokens):
        headers = {"Authorization": f"Bearer {token}"}
        r = kurier.call("GET", f"/v1/games/{game_id}", headers=headers)
        assert r.status_code == 200
        seats.append(r.json()["your_seat"])
        me = kurier.call("GET", "/v1/me", headers=headers)
        assert me.json()["email"].endswith("@example.org")  # reserved: the outbox keeps it
    assert sorted(seats) == [0, 1, 2]
    assert f"{kurier.base}/v1/games/{game_id}/legal-actions" in out.stdout
    assert "<alice@example.org>" in out.stdout
    assert "their mails go to the maildir " in out.stdout


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_shows_no_markup(command: str) -> None:
    done = run_kurier(*([command] if command else []), "--help", env=dict(os.environ), timeout=30)
    assert done.returncode == 0, done.stderr
    assert "``" not in done.stdout
    assert done.stdout.startswith("usage: kurier")
