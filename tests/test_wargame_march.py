"""The wargame Barbarian's march West (engine/attila_wargame/bot.py, ``Potential``): from
round 9, when the Huns may enter the West, a third of them head for Gaul and Italy."""

from __future__ import annotations

from typing import Any

from engine.attila_wargame.actions import Move
from engine.attila_wargame.bot import BOT, Potential, _distances
from engine.registry import get_game
from tests.test_bots import _wargame_movement


def _to_gaul(h: int) -> int:
    """Hexes from ``h`` to the nearest "+" city of Gaul."""
    gaul = BOT.targets["gaul"]
    return min(_distances(c.hex)[h] for c in gaul)


def _best_step(state: Any, unit: str) -> Move:
    """The step of ``unit`` the prior (both levels' march) ranks first."""
    legal = get_game("attila-wargame").legal_actions(state, 1)
    prior = BOT.prior(state, 1, legal)
    assert prior is not None
    ranked = [(p, a) for p, a in zip(prior, legal, strict=True) if isinstance(a, Move)]
    return max((pa for pa in ranked if pa[1].unit == unit), key=lambda pa: pa[0])[1]


def test_a_hun_army_marches_west_once_the_west_is_open() -> None:
    """The opening position at the Barbarian's movement, set at round 8 and at round 9. At
    round 8 the Huns may enter no Western hex: no army. At round 9 the army is a third of the
    32 Huns, those nearest Gaul, Buda's garrison (HUN-7) left where it stands; the three by
    Buda that may step either way step towards Gaul (drawn to the East's nearer cities alone,
    they stepped away from Gaul or along the border)."""
    labels = get_game("attila-wargame").board.labels
    state = _wargame_movement()
    state.round = 8
    assert Potential(BOT, state, 1).west_army == set()
    state.round = 9
    army = Potential(BOT, state, 1).west_army
    assert len(army) == 11 and "HUN-7" not in army
    for unit, label in (("HUN-8", "3010"), ("HUN-9", "3111"), ("HUN-12", "3109")):
        at = state.pos[unit]
        assert unit in army and labels[at] == label
        assert _to_gaul(_best_step(state, unit).path[-1]) == _to_gaul(at) - 1
