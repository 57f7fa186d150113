"""Commitments to sealed choices and to the shuffle seed.

A commitment binds a choice without showing it: SHA-256 over a fixed, documented text made of
the game id, the conflict ref, the seat, the canonical choice and a random salt. The salt stops
anyone from guessing the choice by hashing the few possible ones. Clients verify a reveal by
recomputing ``commitment_text`` (see docs/api.md).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

COMMITMENT_SCHEME = "kurier-commit-v1"


def new_salt() -> str:
    return secrets.token_hex(16)


def commitment_text(game_id: str, ref: str, seat: int, choice: str, salt: str) -> str:
    # "|" never occurs in ids, refs, notation or hex salts, so the fields can't run together.
    return "|".join([COMMITMENT_SCHEME, game_id, ref, str(seat), choice, salt])


def commitment(game_id: str, ref: str, seat: int, choice: str, salt: str) -> str:
    text = commitment_text(game_id, ref, seat, choice, salt)
    return hashlib.sha256(text.encode()).hexdigest()


def verify(game_id: str, ref: str, seat: int, choice: str, salt: str, expected: str) -> bool:
    return hmac.compare_digest(commitment(game_id, ref, seat, choice, salt), expected)


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def new_seed() -> str:
    return secrets.token_hex(16)
