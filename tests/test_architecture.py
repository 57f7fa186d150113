"""The import map of docs/architecture.md, checked: imports run down the layers, never up, and
no two modules import each other (directly or around a loop), lazy imports included."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "service", "workers")

#: A folder is a layer (docs/architecture.md); lower numbers are lower layers. A module may
#: import only from its own layer or below; the longest matching folder wins.
LAYERS: dict[str, int] = {
    "engine": 0,  # pure rules: no I/O, imports nothing of ours but itself
    "service.common": 1,  # foundations: problems, logs, languages, reply addresses, secrets
    "service.kits": 1,  # the game kits: what the service knows of each game type, as data
    "service.store": 2,  # the one writer of games, the repositories, Redis's bookkeeping
    "service.domain": 3,  # service functions: what a request changes, what a caller may see
    "service.pictures": 3,  # the boards drawn as SVG and PNG
    "service.ops": 4,  # settings and their check, metrics, archives, operator commands
    "service.http": 5,  # adapters: API resources, schemas, web pages, their servers
    "service.mail": 5,  # adapter: the SMTP receiver
    "workers": 5,  # adapter: rq jobs
    "service": 6,  # composition: service/cli.py wires everything together
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
            # `from service import games` imports the module service.domain.games.
            names = [f"{node.module}.{a.name}" for a in node.names]
            names = [n if n in MODULES else node.module for n in names]
        else:
            continue
        out |= {name for name in names if name.split(".")[0] in PACKAGES}
    return out


def test_every_module_lives_in_a_layer_folder() -> None:
    """Only the command line (composition) sits in service/ itself: any other module is in the
    folder of its layer, so that its folder says what it may import."""
    loose = sorted(
        m for m in MODULES if m.count(".") == 1 and m.startswith("service.") and m not in LAYERS
    )
    assert loose == ["service.cli"], loose


def folder(module: str) -> str:
    """The layer folder ``module`` sits in (the longest matching one)."""
    candidates = [
        prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")
    ]
    return max(candidates, key=len)


def layer(module: str) -> int:
    return LAYERS[folder(module)]


@functools.cache
def imports() -> dict[str, set[str]]:
    """Each of our modules' imports of our modules: parsed once, when a test first asks (not
    at collection, which every pytest-xdist process does for the whole suite)."""
    return {name: _imports(path) for name, path in MODULES.items()}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_down_the_layers(module: str) -> None:
    upward = sorted(dep for dep in imports()[module] if layer(dep) > layer(module))
    assert not upward, f"{module} (layer {layer(module)}) imports from above: {upward}"


def test_the_engine_imports_nothing_of_the_service() -> None:
    for module, deps in imports().items():
        if module.startswith("engine"):
            assert all(dep.startswith("engine") for dep in deps), (module, deps)


def _first_loop(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in ``graph`` (depth-first search), as the path around it; None if there is none."""
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

    for node in sorted(graph):
        if node not in state and (loop := visit(node)):
            return loop
    return None


def test_no_import_loops() -> None:
    """No two modules import each other, directly or around a loop (package __init__s
    excluded: a package importing its own submodules is how Python packages work)."""
    graph = {m: {d for d in deps if d in MODULES and d != m} for m, deps in imports().items()}
    loop = _first_loop(graph)
    assert loop is None, "import loop: " + " -> ".join(loop or [])


def test_no_import_loops_between_folders() -> None:
    """Folders of one layer (the service functions and the pictures) may use each other one
    way only: no two folders import each other, directly or around a loop."""
    graph: dict[str, set[str]] = {prefix: set() for prefix in LAYERS}
    for module, deps in imports().items():
        graph[folder(module)] |= {folder(dep) for dep in deps if dep in MODULES}
    graph = {node: deps - {node} for node, deps in graph.items()}
    loop = _first_loop(graph)
    assert loop is None, "folders import each other: " + " -> ".join(loop or [])


def test_the_checks_can_fail() -> None:
    assert _first_loop({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _first_loop({"a": {"b"}, "b": set()}) is None
    assert layer("service.ops.config") > layer("service.domain.deliveries")


#: Adapters stand side by side: an HTTP resource does not call into a job module or back (what
#: both need lives in a service module below them).
ADAPTER_FAMILIES = (
    ("service.http.api", "service.http.schemas"),
    ("workers",),
    ("service.mail.receiver",),
    ("service.http.web",),
)


def _family(module: str) -> int | None:
    for index, prefixes in enumerate(ADAPTER_FAMILIES):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _family(m) is not None))
def test_adapters_do_not_import_each_other(module: str) -> None:
    mine = _family(module)
    across = sorted(d for d in imports()[module] if _family(d) not in (None, mine))
    assert not across, f"{module} imports another adapter: {across}"
