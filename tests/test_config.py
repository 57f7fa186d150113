"""Configuration: every environment variable is listed once (code, docs) and checked."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import redis

from service.cli import main
from service.ops.config import SETTINGS, Invalid, listen_address, public_url
from service.store import Store
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.conftest import short_tmp

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for setting in SETTINGS:
        monkeypatch.delenv(setting.name, raising=False)
    return monkeypatch


def _check(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["config", "check", "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_good_environment_passes_and_warns_about_risky_redis(
    clean_env: pytest.MonkeyPatch, isolated_redis: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("REDIS_URL", isolated_redis.url)
    clean_env.setenv("KURIER_SMTP_URL", "smtp+starttls://user:pw@mail.example.org:587")
    clean_env.setenv("KURIER_WEB_WORKERS", "4")
    code, out = _check(capsys)
    assert code == 0, out
    # The test Redis runs without AOF: worth a warning, not a failure.
    assert "warning REDIS_URL: set: single Redis " in out
    assert "appendonly is off" in out
    assert "pw@" not in out
    assert "stream-node-max-bytes" not in out  # the launcher's compact settings
    assert "hash-max-listpack-value" not in out


def test_settings_that_make_every_game_bigger_are_warned_about(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Redis of the operator's own with Redis's defaults for records and logs."""
    with RedisServer(short_tmp("kur-cfg-"), EPHEMERAL_FLAGS) as server:
        client = redis.Redis.from_url(server.url)
        client.config_set("stream-node-max-bytes", 4096)
        client.config_set("hash-max-ziplist-value", 64)
        client.close()
        clean_env.setenv("REDIS_URL", server.url)
        code, out = _check(capsys)
    assert code == 0, out  # a warning, not a failure
    assert "stream-node-max-bytes is 4096, not 1024 (an active game's log takes up to" in out
    assert "hash-max-listpack-value is 64, not 1024 (a game's record takes 2.6 KB" in out


def test_unset_redis_url_is_the_embedded_redis_of_kurier_run(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make run` users have no REDIS_URL: `kurier run` starts its own, which is fine."""
    data = short_tmp("kur-cfg-")
    clean_env.setenv("KURIER_DATA_DIR", str(data))
    code = main(["config", "check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"ok      REDIS_URL: unset: `kurier run` starts the embedded Redis in {data}" in out
    # Once it runs, it is checked like any Redis (this one has no AOF: a warning).
    with RedisServer(data, EPHEMERAL_FLAGS) as server:
        code = main(["config", "check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"warning REDIS_URL: unset: the embedded Redis {server.url}: single Redis" in out
    assert "appendonly is off" in out
    # `make run`'s own Redis, with the launcher's durable flags: nothing to warn about.
    with RedisServer(data) as server:
        code = main(["config", "check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"ok      REDIS_URL: unset: the embedded Redis {server.url}: single Redis" in out


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("REDIS_URL", "redis://:hunter2@127.0.0.1:1/0", "unreachable"),
        ("REDIS_URL", "http://127.0.0.1:6379", "malformed"),
        ("KURIER_SMTP_URL", "smtp://relay.example.org:twentyfive", "malformed port"),
        ("KURIER_SMTP_URL", "http://relay.example.org", "scheme must be one of"),
        ("KURIER_SMTP_URL", "smtps:///nohost", "names no host"),
        ("KURIER_PORT", "80a", "whole number from 1 to 65535"),
        # Read when the command line was parsed, it used to stop every command with a traceback.
        ("KURIER_MAILIN_PORT", "25x", "whole number from 1 to 65535"),
        ("KURIER_WEB_WORKERS", "0", "whole number from 1 to 64"),
        ("KURIER_WEBHOOK_ALLOW", "everything", "must be one of public, loopback, any"),
        ("KURIER_LOG_LEVEL", "loud", "must be one of"),
        ("KURIER_MAIL_FROM", "Kurier", "must be an address"),
        ("KURIER_RATE_LIMIT", "lots", "must be limits such as"),
        ("KURIER_SIGNUP_RATE_LIMIT", "5 per fortnight", "must be limits such as"),
        ("KURIER_SIGNIN_MAIL_LIMIT", "3 a day", "must be limits such as"),
        ("KURIER_TRUSTED_PROXIES", "10.0.0.0/33", "not an address or network"),
    ],
)
def test_wrong_values_fail_with_a_reason(
    clean_env: pytest.MonkeyPatch,
    isolated_redis: Store,
    capsys: pytest.CaptureFixture[str],
    name: str,
    value: str,
    says: str,
) -> None:
    clean_env.setenv("REDIS_URL", isolated_redis.url)
    clean_env.setenv(name, value)
    code, out = _check(capsys)
    assert code == 1
    assert re.search(rf"error +{name}: .*{says}", out), out
    assert "hunter2" not in out  # secrets are never printed


def _environ_reads(path: Path) -> set[str]:
    """Names read through os.environ.get/[]/setdefault or os.getenv with a literal name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = ast.unparse(node.func.value)
            from_environ = owner.endswith("environ") and node.func.attr in ("get", "setdefault")
            if (from_environ or (owner == "os" and node.func.attr == "getenv")) and node.args:
                target = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("environ"):
            target = node.slice
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            names.add(target.value)
    return names


def test_every_variable_the_code_reads_is_a_setting() -> None:
    read = set()
    for folder in ("service", "workers", "engine"):
        for path in (ROOT / folder).rglob("*.py"):
            read |= _environ_reads(path)
    assert read >= {"REDIS_URL", "KURIER_SMTP_URL"}  # the scan sees the known reads
    assert read - {s.name for s in SETTINGS} == set(), "add them to service/ops/config.py"


def test_the_operations_table_lists_every_setting_with_its_default() -> None:
    text = (ROOT / "docs" / "operations.md").read_text()
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]*) \|", text, flags=re.MULTILINE)
    assert [name for name, _ in rows] == [s.name for s in SETTINGS]
    for (_, default), setting in zip(rows, SETTINGS, strict=True):
        shown = default.strip().strip("`")
        assert shown == (setting.default or "unset"), setting.name


def test_listen_address_and_public_url_follow_host_and_port() -> None:
    assert listen_address({}) == ("127.0.0.1", 8000)
    assert listen_address({"KURIER_HOST": "0.0.0.0", "KURIER_PORT": "8080"}) == ("0.0.0.0", 8080)
    assert listen_address({"KURIER_PORT": "8080"}, "::1", 9000) == ("::1", 9000)  # options win
    with pytest.raises(Invalid, match="KURIER_PORT: '80a': must be a whole number"):
        listen_address({"KURIER_PORT": "80a"})
    assert public_url({}) == "http://127.0.0.1:8000"
    assert public_url({"KURIER_PORT": "8080"}) == "http://127.0.0.1:8080"
    # A wildcard address is reached on loopback; IPv6 in brackets; names as they are.
    assert public_url({"KURIER_HOST": "0.0.0.0", "KURIER_PORT": "81"}) == "http://127.0.0.1:81"
    assert public_url({"KURIER_HOST": "::", "KURIER_PORT": "81"}) == "http://[::1]:81"
    assert public_url({"KURIER_HOST": "kurier.lan"}) == "http://kurier.lan:8000"
    given = {"KURIER_PUBLIC_URL": "https://kurier.example.org/", "KURIER_PORT": "81"}
    assert public_url(given) == "https://kurier.example.org"
