"""A gunicorn worker of the API freezes the loaded app's objects out of the cyclic collector's
walks (service/http/gunicorn_worker.py ``freeze_loaded_app``, run by gunicorn_conf's
``post_worker_init``)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What a worker does after the fork: load the app, then gunicorn calls the hook.
WORKER = """
import gc, json
import service.http.gunicorn_conf as conf
from service.http.wsgi import app
before = gc.get_freeze_count()
conf.post_worker_init(None)
print(json.dumps({"before": before, "frozen": gc.get_freeze_count(),
                  "objects": len(gc.get_objects()), "threshold": gc.get_threshold()}))
"""


def test_a_worker_freezes_the_loaded_app(tmp_path: Path) -> None:
    # In a process of its own: the hook changes the whole interpreter's collector.
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "REDIS_URL": "unix:///nonexistent",  # the app connects lazily: nothing is opened
        "KURIER_DATA_DIR": str(tmp_path / "data"),
    }
    (tmp_path / "metrics").mkdir()
    said = subprocess.run(
        [sys.executable, "-c", WORKER],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    ).stdout.strip()
    seen = json.loads(said.splitlines()[-1])
    assert seen["before"] == 0
    # The app's objects (about a hundred thousand) are frozen; what is left to walk is few.
    assert seen["frozen"] > 50_000, seen
    assert seen["objects"] < seen["frozen"] / 10, seen
    assert tuple(seen["threshold"]) == gc.get_threshold()  # Python's own, as in this process
