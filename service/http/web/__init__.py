"""The web pages: sign in by mailed link, the lobby, a game's page.

Server-rendered (Jinja, templates/), over the same service functions as the API: nothing here
reads or writes Redis but through them, and no rule is decided here. Every action is a plain
form post with the session's CSRF token (service/domain/websessions.py); responses carry a strict
Content-Security-Policy (no inline script or style), frame-ancestors 'none' and no referrer
beyond this site. Jinja escapes every string a user wrote (names, messages).

Languages (docs/i18n.md): Flask-Babel picks each page's language (``pages.base.page_language``);
its translations are service/common/i18n.py's, the same the workers use, read from the ``.po``
catalogs (Flask-Babel's own loader wants compiled ``.mo`` files, which are not kept).
"""

from __future__ import annotations

import gettext

import flask_babel
from flask import Flask

from service import kits
from service.common import i18n
from service.domain import ratelimit
from service.http.web import club, replay, social, tournaments, unsubscribe
from service.http.web.pages import blp, error_page, page_language

# Nested once, at import (an app factory may run many times): the club's pages get the web
# pages' session, headers and error pages; so does stepping through a game's versions.
blp.register_blueprint(club.blp)
blp.register_blueprint(tournaments.blp)
blp.register_blueprint(replay.blp)
blp.register_blueprint(social.blp)  # blocking, reporting, private notes, moderation


class _CatalogDomain(flask_babel.Domain):
    """Flask-Babel's translations for the request's locale, from service/common/i18n.py."""

    def get_translations(self) -> gettext.NullTranslations:
        return i18n.translations(str(flask_babel.get_locale() or i18n.DEFAULT))


def init_app(app: Flask) -> None:
    babel = flask_babel.Babel(app, default_locale=i18n.DEFAULT, locale_selector=page_language)
    babel.domain_instance = _CatalogDomain()  # a cached_property on the instance: replaced
    app.register_blueprint(blp)
    # What a template needs of a game type beyond its view (the lobby's Play now).
    app.jinja_env.globals["game_kit"] = kits.kit
    # A page view is one request of its browser's budget, not one per stylesheet and script.
    ratelimit.EXEMPT_ENDPOINTS.add("web.static")
    app.register_blueprint(unsubscribe.blp)  # the link in every notification mail
    # A browser outside /v1 gets an error as a page; API clients keep problem+json.
    app.extensions["kurier.api"].html_error = error_page
