"""The commitment scheme of sealed choices and of the shuffle seed: pure hashing, so a client
can check a finished game without the server (``engine/verify.py``).

A sealed choice is bound by SHA-256 over a fixed text made of the game id, the step's ref, the
seat, the canonical choice (its notation) and a random salt; the salt stops anyone from guessing
the choice by hashing the few possible ones. The seed is bound by its own SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac

COMMITMENT_SCHEME = "kurier-commit-v1"


def commitment_text(game_id: str, ref: str, seat: int, choice: str, salt: str) -> str:
    # "|" never occurs in ids, refs, notation or hex salts, so the fields can't run together.
    return "|".join([COMMITMENT_SCHEME, game_id, ref, str(seat), choice, salt])


def commitment(game_id: str, ref: str, seat: int, choice: str, salt: str) -> str:
    text = commitment_text(game_id, ref, seat, choice, salt)
    return hashlib.sha256(text.encode()).hexdigest()


def commitment_matches(
    game_id: str, ref: str, seat: int, choice: str, salt: str, expected: str
) -> bool:
    return hmac.compare_digest(commitment(game_id, ref, seat, choice, salt), expected)


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()
