"""The web pages (issue 12, first part): sign in by mailed link, the lobby, a game's page.

Server-rendered (Jinja, templates/), over the same service functions as the API: nothing here
reads or writes Redis but through them, and no rule is decided here. Every action is a plain
form post with the session's CSRF token (service/websessions.py); responses carry a strict
Content-Security-Policy (no inline script or style), frame-ancestors 'none' and no referrer
beyond this site. Jinja escapes every string a user wrote (names, messages).
"""

from __future__ import annotations

from flask import Flask

from service.web.pages import blp, error_page


def init_app(app: Flask) -> None:
    app.register_blueprint(blp)
    # A browser outside /v1 gets an error as a page; API clients keep problem+json.
    app.extensions["kurier.api"].html_error = error_page
