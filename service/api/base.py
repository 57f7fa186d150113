"""Blueprint defaults shared by every resource."""

from __future__ import annotations

import flask_smorest


class Blueprint(flask_smorest.Blueprint):
    # Pages go in the body (``next_cursor``), never in a JSON header (stack guide pitfall 4).
    PAGINATION_HEADER_NAME = None
