"""flask-smorest's documentation decorators without their wrapper around the view.

``Blueprint.doc`` and ``Blueprint.alt_response`` only add to the OpenAPI document, but each
wraps the view in a function that asks ``current_app.ensure_sync`` again on every request: a
move went through thirteen such calls (docs/performance.md). ``doc_only`` keeps the document
such a decorator builds and hands back the view itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

View = TypeVar("View", bound=Callable[..., Any])


def doc_only(decorator: Callable[[View], View]) -> Callable[[View], View]:
    """``decorator`` (a flask-smorest documentation decorator) as one that sets the view's
    ``_apidoc`` to what it documents and leaves the view unwrapped."""

    def document(view: View) -> View:
        documented = decorator(view)
        view._apidoc = documented._apidoc  # type: ignore[attr-defined]  # flask-smorest's own attribute
        return view

    return document
