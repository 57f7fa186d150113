"""gunicorn builds no access line the app does not write (service/http/gunicorn_worker.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger

from service.common.logs import gunicorn_logconfig
from service.http.gunicorn_worker import AppAccessLogger

ROOT = Path(__file__).resolve().parent.parent


def _config() -> Config:
    config = Config()
    config.set("logconfig_dict", gunicorn_logconfig())
    return config


@pytest.mark.parametrize("module", ["service.http.gunicorn_conf", "service.http.gunicorn_streams"])
def test_both_servers_use_the_logger_without_access_lines(module: str, tmp_path: Path) -> None:
    # In a process of its own, given a metrics directory: the API's settings set one up at
    # import otherwise.
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    named = subprocess.run(
        [sys.executable, "-c", f"import {module} as m; print(m.logger_class)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    ).stdout.strip()
    assert named == "service.http.gunicorn_worker.AppAccessLogger"


def test_access_logging_is_off_where_gunicorns_logger_thinks_it_on() -> None:
    assert Logger(_config()).access_log_enabled
    assert not AppAccessLogger(_config()).access_log_enabled


def test_access_builds_nothing() -> None:
    # gunicorn's Logger.access reads the response, request and environ: None raises there.
    with pytest.raises(AttributeError):
        Logger(_config()).access(None, None, None, 0.0)
    AppAccessLogger(_config()).access(None, None, None, 0.0)


def test_an_access_logfile_does_not_turn_it_on(tmp_path: Path) -> None:
    """gunicorn's line has the query string, where invitation and seat-offer codes travel."""
    config = _config()
    config.set("accesslog", str(tmp_path / "access.log"))
    assert Logger(config).access_log_enabled
    assert not AppAccessLogger(config).access_log_enabled
