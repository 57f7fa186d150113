"""The parts of a board picture that never change during a game, sent once.

A picture wraps each such part (the wargame's hexes, its rivers and cities, the cities' names)
in ``<g id="…" data-keep="KEY">``, KEY naming the part and a hash of its text. A page that
already shows the picture tells the server the keys it has (``table.svg?…&have=KEY,KEY``); the
new version then comes with those parts empty (``<g id="…" data-keep="KEY"/>``) and kurier.js
keeps the ones the page shows where they are (``morph``). The wargame's map is most of its
picture: an update in place carries the counters, the marks and the side panel only (issue 33:
a move's update to the other player ≤ 60 KB on the wire, not the whole map again).

A picture drawn without ``have`` (pages without JavaScript, mails, the first load) is whole.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

#: Bounds on what a client may say it has: a picture has a handful of kept parts.
MAX_KEYS = 8
MAX_KEY_LENGTH = 40


class Kept:
    """``parts`` as the kept group ``name`` (its text and key worked out once)."""

    def __init__(self, name: str, parts: list[str]) -> None:
        self.name = name
        self.body = "\n".join(parts)
        digest = hashlib.blake2s(self.body.encode(), digest_size=6).hexdigest()
        self.key = f"{name}-{digest}"

    def svg(self, have: Collection[str] = ()) -> list[str]:
        """The group whole, or empty when ``have`` names its key."""
        if self.key in have:
            return [f'<g id="{self.name}" data-keep="{self.key}"/>']
        return [f'<g id="{self.name}" data-keep="{self.key}">', self.body, "</g>"]


def keys(text: str) -> frozenset[str]:
    """The keys a client listed (``have=``), bounded: anything else is ignored (a key the
    picture does not have only means that part is sent whole)."""
    listed = (k.strip() for k in text[: MAX_KEYS * (MAX_KEY_LENGTH + 1)].split(","))
    return frozenset(k for k in listed if 0 < len(k) <= MAX_KEY_LENGTH)
