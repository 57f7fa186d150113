"""gunicorn entry point: ``gunicorn service.wsgi:app`` (REDIS_URL from the environment)."""

from service.app import create_app
from service.logs import configure_logging

configure_logging()
app = create_app()
