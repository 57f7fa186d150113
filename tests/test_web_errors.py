"""Errors as pages for browsers outside /v1; problem+json for the API and for clients that
ask for JSON (issue 12)."""

from __future__ import annotations

import requests

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_a_browser_gets_an_error_page_and_the_api_keeps_problem_json(base_url: str) -> None:
    page = requests.get(f"{base_url}/games/0000000000000000", headers=HTML, timeout=10)
    assert page.status_code == 404 and page.headers["Content-Type"].startswith("text/html")
    assert "There is no such page or game here." in page.text
    assert "Content-Security-Policy" in page.headers
    nowhere = requests.get(f"{base_url}/no/such/page", headers=HTML, timeout=10)
    assert nowhere.status_code == 404 and "<html" in nowhere.text.lower()
    api = requests.get(f"{base_url}/v1/games/0000000000000000", headers=HTML, timeout=10)
    assert api.headers["Content-Type"] == "application/problem+json"
    plain = requests.get(f"{base_url}/no/such/page", timeout=10)
    assert plain.headers["Content-Type"] == "application/problem+json"


def test_a_stale_form_is_a_403_page_not_a_traceback(base_url: str) -> None:
    session = requests.Session()
    page = session.post(f"{base_url}/games", data={"type": "attila"}, headers=HTML, timeout=10)
    # No session: back to the sign-in page; with a forged session cookie: the same.
    assert page.status_code == 200 and "Sign" in page.text
