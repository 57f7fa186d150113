"""Node packages a test needs, pinned by a folder's package.json and package-lock.json and
installed there with ``npm ci`` (node_modules, git-ignored), again only when the lock file
changed. Without npm the test is skipped on a developer's machine and fails under CI
(``CI=true``): a check that silently does not run checks nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

STAMP = ".kurier-lock-sha256"


def npm(why: str) -> str:
    found = shutil.which("npm")
    if found is None:
        message = f"npm (Node.js 20 or later) is needed for {why}"
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(message + " and CI is set: install nodejs and npm")
        pytest.skip(message)
    return found


def installed(folder: Path, why: str) -> Path:
    """``folder``/node_modules as its package-lock.json pins it."""
    command = npm(why)
    modules = folder / "node_modules"
    digest = hashlib.sha256((folder / "package-lock.json").read_bytes()).hexdigest()
    stamp = modules / STAMP
    if not stamp.exists() or stamp.read_text() != digest:
        done = subprocess.run(
            [command, "ci", "--no-audit", "--no-fund"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (
            f"npm ci failed in {folder.name} (the npm registry must be reachable):\n"
            + done.stdout[-3000:]
            + done.stderr[-3000:]
        )
        stamp.write_text(digest)
    return modules
