"""Blueprint defaults shared by every resource."""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from typing import Any, TypeVar

import flask_smorest

F = TypeVar("F", bound=Callable[..., Any])


class Blueprint(flask_smorest.Blueprint):
    # Pages go in the body (``next_cursor``), never in a JSON header (stack guide pitfall 4).
    PAGINATION_HEADER_NAME = None


def problems(blp: flask_smorest.Blueprint, *statuses: int) -> Callable[[F], F]:
    """Document the problem+json answers an operation may give (registered by our Api)."""

    def decorate(view: F) -> F:
        for status in statuses:
            view = blp.alt_response(status, response=HTTPStatus(status).name)(view)
        return view

    return decorate
