"""Commitments to sealed choices and to the shuffle seed: the scheme is the engine's
(engine/commitments.py, so clients verify without the server); the secrets are made here.
Clients verify a reveal by recomputing ``commitment_text`` (see docs/api.md).
"""

from __future__ import annotations

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
    "new_salt",
    "new_seed",
    "seed_commitment",
]


def new_salt() -> str:
    return secrets.token_hex(16)


def new_seed() -> str:
    return secrets.token_hex(16)
