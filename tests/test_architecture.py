"""The import map of docs/architecture.md, checked: imports run down the layers, never up, and
no two modules import each other (directly or around a loop), lazy imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "service", "workers")

#: Lower numbers are lower layers; a module may import only from its own layer or below.
#: Modules not named take their package's entry (the longest matching prefix wins).
LAYERS: dict[str, int] = {
    "engine": 0,  # pure rules: no I/O, imports nothing of ours but itself
    # Foundations: what a key is called, what the bytes mean, problems, pictures, logs.
    "service.keys": 1,
    "service.queues": 1,
    "service.problems": 1,
    "service.eventlog": 1,
    "service.record": 1,
    "service.sealed": 1,
    "service.logs": 1,
    "service.replies": 1,
    "service.redis_server": 1,
    "service.gunicorn_conf": 1,
    "service.pictures": 1,
    "service.redis_urls": 1,
    "service.numbers": 1,
    "service.webhook_urls": 1,
    "service.gunicorn_worker": 1,
    "service.gunicorn_streams": 1,  # gunicorn settings of the stream server
    "service.mailauth": 1,
    "service.writes": 1,  # commands recorded for a commit, and the commit script
    "service.lru": 1,  # the pictures' per-version caches
    "service.i18n": 1,  # the languages: gettext catalogs, read without a Flask request
    "service.store": 2,  # the one writer, and the Redis bookkeeping it writes with:
    "service.owed": 2,  # jobs owed and their sweep
    "service.liveness": 2,  # workers' heartbeats
    "service.outbox": 2,  # what a commit owes other slots and the queue Redis
    "service": 3,  # service functions: games, notifications, prefs, pinning, auth, ...
    "service.ratings": 3,  # ratings, profiles, leaderboards, finished games
    # Adapters: HTTP resources and their schemas, the mail receiver, rq jobs.
    "service.api": 4,
    "service.schemas": 4,
    "service.mailin": 4,
    "service.web": 4,  # the web pages
    "workers": 4,
    # Composition: the app factory and the command line wire everything together.
    "service.app": 5,
    "service.streams_app": 5,  # the stream server's app (SSE routes over service/streams.py)
    "service.wsgi": 5,
    "service.cli": 5,
    "service.ops": 5,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Our modules that ``path`` imports anywhere (top level or inside a function)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from service import games` imports the module service.games.
            names = [f"{node.module}.{a.name}" for a in node.names]
            names = [n if n in MODULES else node.module for n in names]
        else:
            continue
        out |= {name for name in names if name.split(".")[0] in PACKAGES}
    return out


def layer(module: str) -> int:
    candidates = [
        prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")
    ]
    return LAYERS[max(candidates, key=len)]


IMPORTS = {name: _imports(path) for name, path in MODULES.items()}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_down_the_layers(module: str) -> None:
    upward = sorted(dep for dep in IMPORTS[module] if layer(dep) > layer(module))
    assert not upward, f"{module} (layer {layer(module)}) imports from above: {upward}"


def test_the_engine_imports_nothing_of_the_service() -> None:
    for module, deps in IMPORTS.items():
        if module.startswith("engine"):
            assert all(dep.startswith("engine") for dep in deps), (module, deps)


def test_no_import_loops() -> None:
    """Depth-first search for a cycle in the module graph (package __init__s excluded: a
    package importing its own submodules is how Python packages work)."""
    graph = {m: {d for d in deps if d in MODULES and d != m} for m, deps in IMPORTS.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state and (loop := visit(dep)):
                return loop
        path.pop()
        state[node] = 2
        return None

    for module in sorted(graph):
        if module not in state and (loop := visit(module)):
            pytest.fail("import loop: " + " -> ".join(loop))


#: Adapters stand side by side: an HTTP resource does not call into a job module or back (what
#: both need lives in a service module below them).
ADAPTER_FAMILIES = (
    ("service.api", "service.schemas"),
    ("workers",),
    ("service.mailin",),
    ("service.web",),
)


def _family(module: str) -> int | None:
    for index, prefixes in enumerate(ADAPTER_FAMILIES):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _family(m) is not None))
def test_adapters_do_not_import_each_other(module: str) -> None:
    mine = _family(module)
    across = sorted(d for d in IMPORTS[module] if _family(d) not in (None, mine))
    assert not across, f"{module} imports another adapter: {across}"
