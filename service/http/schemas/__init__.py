"""Marshmallow schemas, one module per resource: they validate requests and document the API."""
