"""Compact storage of the event log: each entry deflated against a preset dictionary.

A game's log entries repeat the same kinds and keys (``{"kind":"move","seat":"1","action":
"V ITA",...,"events":[{"kind":"stone_placed","data":{"people":...``), so an entry compressed
alone gains little, but compressed against a dictionary of typical entries of its game type it
shrinks several times over. That keeps Redis memory per active game within the budget of
docs/performance.md.

Each entry is stored as one field ``z``: the deflate of its fields' compact JSON. A game records
its codec (``GameRecord.log_codec``) when it is created, and keeps it: an entry is always read
with the codec it was written with. Games without one (created before codecs, or of a type
without a dictionary) store plain fields. The codec new games get is the one their game's kit
names (service/kits/). A dictionary file is therefore never changed: a better one is a new codec
id (``<type>-2``) used by new games only; tests pin every file's SHA-256. The dictionaries are
made by ``scripts/make_zdict.py`` from random engine games.
"""

from __future__ import annotations

import zlib
from functools import cache
from pathlib import Path
from typing import Any

from engine import jsontext
from service import kits

ZDICT_DIR = Path(__file__).resolve().parent / "zdicts"
_WBITS = -15  # raw deflate: no zlib header or checksum (Redis keeps the bytes intact)


@cache
def dictionary(codec: str) -> bytes:
    return (ZDICT_DIR / f"{codec}.zdict").read_bytes()


def codec_for(game_type: str) -> str:
    """The codec for a new game of ``game_type``, its kit's ``log_codec`` ("" for plain
    JSON)."""
    codec = kits.kit(game_type).log_codec
    return codec if codec and (ZDICT_DIR / f"{codec}.zdict").exists() else ""


def pack(codec: str, entry: dict[str, Any]) -> bytes:
    """One log entry (its fields, ``events`` as a list) as stored: its compact JSON deflated
    against the codec's dictionary, in one stream field (one field, not seven: a stream entry
    pays a few bytes per field)."""
    return _deflate(codec, jsontext.dumpb(entry))


def pack_text(codec: str, text: str, level: int = 9) -> bytes:
    """``text`` deflated against the codec's dictionary; a low ``level`` for what is rewritten
    on every move (a game's state in play: service/store/record.py), 9 for what is kept."""
    return _deflate(codec, text.encode(), level)


def pack_bytes(codec: str, data: bytes) -> bytes:
    """``data`` deflated against the codec's dictionary, at level 9 (what is kept)."""
    return _deflate(codec, data)


def _deflate(codec: str, data: bytes, level: int = 9) -> bytes:
    compressor = _primed(codec, level).copy()
    packed: bytes = compressor.compress(data) + compressor.flush()
    return packed


@cache
def _primed(codec: str, level: int) -> Any:
    # Loading a 32 KiB dictionary costs more than compressing an entry; copying a compressor
    # that has it loaded costs less (memLevel 8: half the state to copy, the same ratio here).
    return zlib.compressobj(level, zlib.DEFLATED, _WBITS, 8, zdict=dictionary(codec))


def unpack(codec: str, stored: bytes) -> dict[str, Any]:
    data: dict[str, Any] = jsontext.loads(unpack_bytes(codec, stored))
    return data


def unpack_bytes(codec: str, stored: bytes) -> bytes:
    """What ``pack_bytes`` (or ``pack``, ``pack_text``) was given."""
    decompressor = zlib.decompressobj(_WBITS, zdict=dictionary(codec))
    return decompressor.decompress(stored) + decompressor.flush()
