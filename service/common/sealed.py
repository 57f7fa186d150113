"""Commitments to sealed choices and to the shuffle seed: the scheme is the engine's
(engine/commitments.py, so clients verify without the server); the secrets are made here.
Clients verify a reveal by recomputing ``commitment_text`` (see docs/api.md).

A sealed choice's salt is derived from a secret of its game (``derived_salt``), made at the
game's first sealed choice and kept in its record beside the choices it salts, never shown: a
salt is as unguessable as a random one to whoever lacks the secret, and a finished game's log
keeps the secret instead of every salt (service/store/logpack.py). A salt is published with its
choice's reveal; the secret is not, and one salt tells nothing of another (HMAC).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from engine.commitments import (
    COMMITMENT_SCHEME,
    commitment,
    commitment_matches,
    commitment_text,
    seed_commitment,
)

__all__ = [
    "COMMITMENT_SCHEME",
    "commitment",
    "commitment_matches",
    "commitment_text",
    "derived_salt",
    "new_salt",
    "new_secret",
    "new_seed",
    "seed_commitment",
]


#: A salt's length in bytes (as text: twice as many hex digits).
SALT_BYTES = 16
#: A game's salt secret's length in bytes (``GameRecord.secret``: hex).
SECRET_BYTES = 32


def new_salt() -> str:
    """A random salt (games whose record has no secret, made before salts were derived)."""
    return secrets.token_hex(SALT_BYTES)


def new_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


def derived_salt(secret: str, ref: str, seat: int) -> str:
    """The salt of ``seat``'s sealed choice at step ``ref`` in the game of ``secret``: the
    first ``SALT_BYTES`` of HMAC-SHA256(secret, "ref|seat"), in hex. A game answers a step's
    ref once per seat (engine/verify.py keys reveals so), so no two choices share a salt."""
    message = f"{ref}|{seat}".encode()
    digest = hmac.new(bytes.fromhex(secret), message, hashlib.sha256).digest()
    return digest[:SALT_BYTES].hex()


def new_seed() -> str:
    return secrets.token_hex(16)
