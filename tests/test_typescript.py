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

import shutil
import subprocess
from pathlib import Path

import pytest

from tests import node_packages

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "typescript"
DOCUMENT = ROOT / "openapi" / "openapi.json"


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """tests/typescript/node_modules as package-lock.json pins it (``npm ci``)."""
    return node_packages.installed(HERE, "the TypeScript check of the document")


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
