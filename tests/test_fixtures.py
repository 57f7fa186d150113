"""The test stacks leave nothing behind in /tmp (sockets, logs, Redis data, mail)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.notify_stack import NotifyStack

ROOT = Path(__file__).resolve().parent.parent


def test_short_tmp_directories_are_removed_when_the_process_exits() -> None:
    script = (
        "from tests.conftest import short_tmp; d = short_tmp('kur-leak-'); "
        "(d / 'redis.log').write_text('x'); print(d)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    made = Path(done.stdout.strip())
    assert made.name.startswith("kur-leak-")
    assert not made.exists()


def test_a_notify_stack_removes_its_directory_when_it_stops() -> None:
    stack = NotifyStack().start()
    try:
        assert (stack.tmp / "worker0.log").exists()
    finally:
        stack.stop()
    assert not stack.tmp.exists()
