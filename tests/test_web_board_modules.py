"""The browser table's ES modules (service/http/web/static/board/, games/): each game type has
its controller module, named after its engine package, which game.html loads; every module
imported by relative URL is there; and the versioned asset URLs reach into those folders."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask

from engine.registry import game_ids
from service.http.web.pages import base as pages

STATIC = Path(__file__).parents[1] / "service" / "http" / "web" / "static"
IMPORT = re.compile(r'^import [^"\n]*"(\.{1,2}/[^"]+)";', re.MULTILINE)


def modules() -> list[Path]:
    return sorted((STATIC / "board").rglob("*.js")) + sorted((STATIC / "games").rglob("*.js"))


def test_every_game_type_has_its_controller_module() -> None:
    for game_id in game_ids():
        controller = STATIC / "games" / f"{game_id.replace('-', '_')}.js"
        assert controller.is_file(), f"{game_id}: no {controller.relative_to(STATIC)}"
        assert 'from "../board/start.js"' in controller.read_text(encoding="utf-8"), controller


def test_every_imported_module_exists() -> None:
    seen = 0
    for module in modules():
        for url in IMPORT.findall(module.read_text(encoding="utf-8")):
            target = (module.parent / url).resolve()
            assert target.is_file(), f"{module.relative_to(STATIC)} imports {url}: missing"
            assert STATIC in target.parents, f"{module.relative_to(STATIC)} imports {url}"
            seen += 1
    assert seen > 10


def test_asset_versions_cover_the_modules_in_folders() -> None:
    versions = pages.asset_versions()
    for module in modules():
        assert module.relative_to(STATIC).as_posix() in versions, module
    assert "kurier.js" in versions and "games/attila.js" in versions


def test_the_game_page_loads_its_controller_as_a_module() -> None:
    template = (STATIC.parent / "templates" / "game.html").read_text(encoding="utf-8")
    assert '<script type="module" src="{{ asset(kit.table.controller) }}">' in template
    assert "table.js" not in (STATIC.parent / "templates" / "base.html").read_text(encoding="utf-8")


def test_imported_modules_are_checked_again_and_the_entry_cached_for_good(app: Flask) -> None:
    """A module is imported by its plain URL: served ``no-cache`` (the browser asks again with
    its ETag on each page load, so no page mixes two deploys' modules); the entry module, under
    its versioned URL, is kept for a year."""
    client = app.test_client()
    plain = client.get("/assets/board/board.js")
    assert plain.status_code == 200 and plain.headers["Cache-Control"] == "no-cache"
    assert plain.headers.get("ETag")
    again = client.get("/assets/board/board.js", headers={"If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 304
    version = pages.asset_versions()["games/attila.js"]
    entry = client.get(f"/assets/games/attila.js?v={version}")
    assert entry.status_code == 200
    assert entry.headers["Cache-Control"] == "public, max-age=31536000, immutable"
