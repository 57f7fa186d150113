"""The container image, built and run on this machine without a Docker daemon
(scripts/image-check): runs when mmdebstrap, buildah and podman are installed and the test runs
as root, skipped otherwise (it takes minutes of CPU: the figures are in docs/operations.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

TOOLS = ("mmdebstrap", "buildah", "podman")


@pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in TOOLS) or os.geteuid() != 0,
    reason="needs root and mmdebstrap, buildah, podman (apt-get install mmdebstrap buildah podman)",
)
def test_the_image_builds_and_its_roles_run() -> None:
    done = subprocess.run(
        [str(ROOT / "scripts" / "image-check")],
        env={**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "image-check: passed" in done.stdout
