"""The interactive API documentation in a real browser: served by the app from its own wheel
(no CDN), it loads the OpenAPI document and lists the operations."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import screenshot


def test_the_interactive_docs_render_every_operation(browser: Any, base_url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto(f"{base_url}/docs/", wait_until="networkidle")
    page.wait_for_selector(".opblock", timeout=15_000)
    operations = page.locator(".opblock").count()
    assert operations >= 20, operations
    assert "Kurier" in page.locator(".info .title").inner_text()
    assert not failed, failed
    assert all(url.startswith(base_url) for url in _requested(page)), "an outside request"
    screenshot(page, "docs-1280")
    page.close()


def _requested(page: Any) -> list[str]:
    return [entry["name"] for entry in page.evaluate("performance.getEntriesByType('resource')")]
