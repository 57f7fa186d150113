"""One kit per game type (service/kits/): every registered game has a complete one, and no
module outside a game's own places names a game type.

A game's own places: its engine package (engine/<game>/), its kit (service/kits/<game>.py), its
picture modules (service/pictures/<game>.py and the parts beside it, <game>_*.py), its template
partials (service/http/web/templates/games/<game>_*.html) and its table's controller
(service/http/web/static/games/<game>.js). Everywhere else a game type is a value read from a
record or a request, and what differs between games is read from the kit.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from types import ModuleType

import pytest

from engine.registry import game_ids, get_game
from service import kits
from service.store.eventlog import ZDICT_DIR

ROOT = Path(__file__).resolve().parent.parent
WEB_PARTS = ("service", "http", "web")
WEB = ROOT.joinpath(*WEB_PARTS)
GAMES = game_ids()
PACKAGES = [kits.module_name(game) for game in GAMES]

#: The modules that name a game type outside its own places, each for a reason that is not
#: history. (Data that is not code names game types too: the OpenAPI schemas derived from the
#: engines, service/http/schemas/gametypes.json; the log dictionaries, service/store/zdicts/;
#: the catalogs; and the stylesheet, static/kurier.css, styles the wargame's table by its
#: classes.)
EXCEPTIONS = {
    # `kurier demo` creates a 3-player Attila game, as documented (README.md, docs/api.md).
    "service/cli.py": {"attila"},
    # The API's description of the stream's events shows an example event (openapi.json).
    "service/http/schemas/streams.py": {"attila"},
}

_NAMES = sorted({*GAMES, *PACKAGES}, key=len, reverse=True)
#: A game type or package name as a word: "attila", "engine.attila.targets", "attika-1"; not
#: "attila_title" (a wargame view's key) nor "H-ATTILA" (a counter).
_ALTERNATIVES = "|".join(map(re.escape, _NAMES))
GAME_WORD = re.compile(rf"(?<![\w-])({_ALTERNATIVES})(?!\w)")
_OWN_PACKAGES = "|".join(PACKAGES)
GAME_MODULE = re.compile(rf"(engine|service\.pictures|service\.kits)\.({_OWN_PACKAGES})\b")


@pytest.mark.parametrize("game_id", GAMES)
def test_every_registered_game_has_a_complete_kit(game_id: str) -> None:
    kit = kits.kit(game_id)
    game = get_game(game_id)
    assert kit.id == game_id == game.id
    assert kit.pictures is not None, "a kit names its game's picture"
    for part in ("render", "summary", "seat_facts"):
        assert callable(kits.load(getattr(kit.pictures, part))), part
    for part in ("crop", "overview"):
        if getattr(kit.pictures, part):
            assert callable(kits.load(getattr(kit.pictures, part))), part
    assert kit.table is not None, "a kit names its game's table"
    _check_table(game_id, kit.table)
    fewest, most = game.min_players, game.max_players
    assert kit.play_now_seats == 0 or fewest <= kit.play_now_seats <= most
    assert kit.log_codec == "" or (ZDICT_DIR / f"{kit.log_codec}.zdict").is_file()
    assert kit.own_view_heading


def _check_table(game_id: str, table: kits.Table) -> None:
    targets = kits.load(table.targets)
    assert isinstance(targets, ModuleType)
    assert callable(targets.target) and callable(targets.places)
    assert isinstance(targets.PICK_LABELS, dict)
    assert table.controller == f"games/{kits.module_name(game_id)}.js"
    assert (WEB / "static" / table.controller).is_file(), table.controller
    if table.draws:
        assert isinstance(kits.load(table.draws), frozenset)
    for part in ("costs", "details", "march", "card_names", "open_hexes", "tile_preview"):
        if getattr(table, part):
            assert callable(kits.load(getattr(table, part))), part
    for part in ("pieces", "panel"):
        if getattr(table, part):
            assert callable(kits.load(getattr(table, part))), part
    for partial in (table.above_board, table.after_pieces):
        if partial:
            assert (WEB / "templates" / partial).is_file(), partial
            assert _owner(Path("service/http/web/templates") / partial) == game_id
            assert _packaged(f"templates/{partial}"), f"{partial} is not package data"
    assert not table.board_data or table.panel, "the board's data comes from the panel"
    assert table.data_id and table.move_hint


def _packaged(relative: str) -> bool:
    """Whether a file of service/http/web is package data (pyproject.toml): the container
    image installs the package non-editably."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    path = PurePosixPath(relative)
    globs = [PurePosixPath(g) for g in setuptools["package-data"]["service.http.web"]]
    return any(path.match(str(g)) and len(path.parts) == len(g.parts) for g in globs)


def test_every_kit_is_a_registered_games() -> None:
    """A kit module of no engine package would never be read."""
    modules = {p.stem for p in (ROOT / "service" / "kits").glob("*.py")} - {"__init__"}
    assert modules == set(PACKAGES)


def test_the_lobby_offers_one_game_first() -> None:
    assert [kit.id for kit in kits.kits() if kit.play_now_first] == ["attila"]


def test_an_unknown_game_type_has_no_kit() -> None:
    with pytest.raises(LookupError):
        kits.kit("chess")
    with pytest.raises(LookupError):
        kits.kit("attila_wargame")  # a package name is no game type


def _owner(path: Path) -> str | None:
    """The game type whose own place ``path`` (relative to the root) is, or None."""
    parts = path.parts
    if parts[0] == "engine" and len(parts) > 2 and parts[1] in PACKAGES:
        return GAMES[PACKAGES.index(parts[1])]
    folders = {("service", "kits"), ("service", "pictures"), (*WEB_PARTS, "templates", "games")}
    if tuple(parts[:-1]) in folders:
        # The longest package the file is named after: attila_wargame_map.py is the wargame's.
        stem = path.stem
        found = [p for p in PACKAGES if stem == p or stem.startswith(p + "_")]
        if found:
            return GAMES[PACKAGES.index(max(found, key=len))]
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _named_in_module(source: str) -> Iterator[str]:
    """The game types a module's code names: in a string (its docstrings are prose, not
    code) or by importing a game's own module."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield from GAME_WORD.findall(node.value)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for name in (node.module, *(f"{node.module}.{a.name}" for a in node.names)):
                yield from (m.group(2) for m in [GAME_MODULE.match(name)] if m)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield from (m.group(2) for m in [GAME_MODULE.match(alias.name)] if m)


def _named_in_template(text: str) -> Iterator[str]:
    """The game types a template names (its comments left out)."""
    yield from GAME_WORD.findall(re.sub(r"\{#.*?#\}", "", text, flags=re.S))


def _sources() -> Iterator[tuple[Path, Callable[[str], Iterator[str]]]]:
    for package in ("engine", "service", "workers"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT), _named_in_module
    for folder in (WEB / "templates", ROOT / "workers" / "templates"):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                yield path.relative_to(ROOT), _named_in_template


def naming_game_types() -> dict[str, set[str]]:
    """Each module or template outside a game's own places that names a game type, with
    the game types it names (as the game's id: a package name is read as its game's)."""
    out: dict[str, set[str]] = {}
    for path, named_in in _sources():
        if _owner(path) is not None:
            continue
        named = named_in(path.read_text())
        found = {GAMES[PACKAGES.index(n)] if n in PACKAGES else n for n in named}
        if found:
            out[path.as_posix()] = found
    return out


def test_no_module_outside_a_games_own_places_names_a_game_type() -> None:
    assert naming_game_types() == EXCEPTIONS


def test_the_name_check_can_fail() -> None:
    assert set(_named_in_module('TABLES = {"attika": 1}\n')) == {"attika"}
    assert set(_named_in_module("from engine.attila_wargame import targets\n")) == {
        "attila_wargame"
    }
    assert set(_named_in_module('"""Attila\'s board, as "attila" shows it."""\n')) == set()
    assert set(_named_in_module('KEY = "attila_title"\n')) == set()
    assert set(_named_in_template("{% if t.id == 'attila' %}{# attika #}")) == {"attila"}
    assert _owner(Path("service/pictures/attila_wargame_map.py")) == "attila-wargame"
    assert _owner(Path("service/http/web/table.py")) is None
    assert not _packaged("templates/elsewhere/game.html")
