"""What a game page fetches to follow its game in place (issue 32): the page again without its
board (``?live=1``) and the board alone at a URL per version and viewer, which a browser keeps
(``immutable``) — so an update costs the page's words, and the picture only when it changed.

Both are compressed here when the browser accepts gzip, and so is the game page itself (the
wargame's carries its map inline): the other pages are sent as they are.
"""

from __future__ import annotations

import gzip

from flask import Response, request

#: Below this a gzip header costs about what it saves.
MIN_GZIP = 1024
#: The board of one version for one viewer never changes: a browser may keep it for good.
FOREVER = "private, max-age=31536000, immutable"


def compressed(body: str, mimetype: str, cache: str) -> Response:
    """``body`` as a response, gzipped when the browser accepts it and it is worth it."""
    data = body.encode()
    response = Response(mimetype=mimetype)
    if len(data) >= MIN_GZIP and "gzip" in request.headers.get("Accept-Encoding", ""):
        data = gzip.compress(data, compresslevel=5)
        response.headers["Content-Encoding"] = "gzip"
    response.set_data(data)
    response.headers["Vary"] = "Accept-Encoding, Cookie"
    response.headers["Cache-Control"] = cache
    return response


def viewer(seat: int | None) -> str:
    """The URL's word for whom a board was drawn: a seat's number, or "x" for a spectator
    (a seat's board may light up places a spectator's does not draw)."""
    return "x" if seat is None else str(seat)
