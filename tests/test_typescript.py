"""A second generator for a second ecosystem (issue 37): openapi-typescript's types of the
committed OpenAPI document, and a small TypeScript client's code using them
(tests/typescript/check.ts: a game view narrowed by its type, events by kind with the fallback,
typed legal actions, results and options, exactly one of notation / action, the streams'
payloads), compiled by tsc in strict mode. Any error fails the test.

Both tools are pinned in tests/typescript/package.json and package-lock.json and installed
with ``npm ci`` into tests/typescript/node_modules (git-ignored), again only when the lock
file changed. Without npm the test is skipped on a developer's machine and fails under CI
(``CI=true``): a check that silently does not run checks nothing.

The types are generated with ``--default-non-nullable false``: by default openapi-typescript
makes every property that has a default required, also in request bodies (GameCreate's
``access``, a deadline's ``policy``), where the server fills the default in (docs/api.md).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "typescript"
DOCUMENT = ROOT / "openapi" / "openapi.json"
STAMP = ".kurier-lock-sha256"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        message = "npm (Node.js 20 or later) is needed for the TypeScript check of the document"
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(message + " and CI is set: install nodejs and npm")
        pytest.skip(message)
    return npm


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """tests/typescript/node_modules as package-lock.json pins it (``npm ci``)."""
    npm = _npm()
    installed = HERE / "node_modules"
    digest = hashlib.sha256((HERE / "package-lock.json").read_bytes()).hexdigest()
    stamp = installed / STAMP
    if not stamp.exists() or stamp.read_text() != digest:
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (
            "npm ci failed in tests/typescript (the npm registry must be reachable):\n"
            + done.stdout[-3000:]
            + done.stderr[-3000:]
        )
        stamp.write_text(digest)
    return installed


def _run(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(argv[:2])} failed:\n{output[-6000:]}"
    return output


def test_openapi_typescript_types_compile_with_tsc(node_modules: Path, tmp_path: Path) -> None:
    for name in ("check.ts", "tsconfig.json"):
        shutil.copy(HERE / name, tmp_path / name)
    bin_dir = node_modules / ".bin"
    generated = tmp_path / "kurier.d.ts"
    _run(
        [
            str(bin_dir / "openapi-typescript"),
            str(DOCUMENT),
            "--default-non-nullable",
            "false",
            "--output",
            str(generated),
        ],
        tmp_path,
    )
    types = generated.read_text()
    # The unions as the document declares them (not one loose object type).
    assert 'GameView: components["schemas"]["AttikaGameView"] |' in types
    assert 'GameEvent: components["schemas"]["KnownGameEvent"] | components["schemas"]' in types
    _run([str(bin_dir / "tsc"), "-p", str(tmp_path / "tsconfig.json")], tmp_path)
