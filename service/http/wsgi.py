"""gunicorn entry point: ``gunicorn service.http.wsgi:app`` (REDIS_URL from the environment)."""

from service.common.logs import configure_logging
from service.http.app import create_app

configure_logging()
app = create_app()
