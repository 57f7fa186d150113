"""Layer 4, HTTP: the API's resources (``api/``) and their schemas (``schemas/``), the web
pages (``web/``), their middleware (authentication, the outage answer) and their servers (the
Flask app factories, gunicorn's settings and worker class, the stream server).

Resources, schemas and pages are adapters over the service functions (service/domain/); they do
not import one another, and nothing below this layer imports them (tests/test_architecture.py).
"""
