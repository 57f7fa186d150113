"""Reliability as a condition: a game's creator (open games) or a tournament's organiser sets
``reliability`` = ``{"min_on_time_percent": 0-100, "max_abandoned": n}`` (either or both),
and a player whose numbers fall short cannot take a seat or sign up (403
``reliability-required``, naming their numbers and the ones asked).

The numbers are the profile's (service/domain/club.py ``reliability``), counted from finished
games' records when they are rated: the share of decisions taken before their deadline, and
the games ended abandoned. A player with no decision counted yet has no share: any
``min_on_time_percent`` above 0 keeps them out (a new account proves nothing yet).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.sentences import N_
from service.common.problems import Problem
from service.domain import club
from service.store import Store
from service.store.keys import player_stats_key

#: The filter's fields and their bounds.
MIN_ON_TIME = "min_on_time_percent"
MAX_ABANDONED = "max_abandoned"
PROBLEM = "reliability-required"
#: What the refusal says (the numbers filled in).
SHORT = N_(
    "your reliability is below what is asked here: %(on_time)s of your moves on time, "
    "%(abandoned)s games abandoned"
)


def numbers(store: Store, player_id: str) -> dict[str, Any]:
    """The player's numbers as a filter reads them: ``on_time_percent`` (None: no decision
    counted yet) and ``abandoned``."""
    counted = club.reliability(store.r.hgetall(player_stats_key(player_id)))
    share = counted["on_time"]
    return {
        "on_time_percent": None if share is None else round(100 * share, 1),
        "abandoned": counted["abandoned"],
    }


def shortfall(wanted: Mapping[str, Any] | None, mine: Mapping[str, Any]) -> list[str]:
    """The filter's fields ``mine`` does not meet (empty: welcome)."""
    wanted = wanted or {}
    short = []
    least = wanted.get(MIN_ON_TIME)
    if least is not None and least > 0:
        share = mine["on_time_percent"]
        if share is None or share < least:
            short.append(MIN_ON_TIME)
    most = wanted.get(MAX_ABANDONED)
    if most is not None and mine["abandoned"] > most:
        short.append(MAX_ABANDONED)
    return short


def require(wanted: Mapping[str, Any] | None, mine: Mapping[str, Any]) -> None:
    """403 ``reliability-required`` when ``mine`` falls short of ``wanted``, naming both."""
    short = shortfall(wanted, mine)
    if not short:
        return
    values = {
        "on_time": "-" if mine["on_time_percent"] is None else f"{mine['on_time_percent']}%",
        "abandoned": str(mine["abandoned"]),
    }
    problem = Problem(
        403,
        PROBLEM,
        SHORT % values,
        field=short[0],
        unmet=short,
        on_time_percent=mine["on_time_percent"],
        abandoned=mine["abandoned"],
        **dict(wanted or {}),
    )
    problem.reason = (SHORT, values)
    raise problem
