"""The web pages' routes, one module per family on the one blueprint ``web``: base (the
blueprint, session, CSRF, notes, errors, headers), sign-in, lobby, game, settings. Importing
this package imports each family, which adds its routes to the blueprint; it hands the app
(service/http/web/__init__.py) the blueprint, its error page and its language selector."""

from service.http.web.pages import game, lobby, settings, signin
from service.http.web.pages.base import blp, error_page, page_language

__all__ = ["blp", "error_page", "game", "lobby", "page_language", "settings", "signin"]
