"""The wargame hard Roman's defence of the West (engine/attila_wargame/bot.py,
``Potential._defence``, ``WargameBot._retaking``): from round 8, the Roman's last movement
before the Huns may enter the West, its garrisons of Gaul and Italy stay, its other units
are drawn to the empty cities there nearest a Barbarian who may take them and to the
Barbarian's only city of Gaul or Italy, which it attacks more readily; medium marches to
its nearest cities as before."""

from __future__ import annotations

from typing import Any

from engine.attila_wargame.actions import Attack, Move
from engine.attila_wargame.bot import (
    BOT,
    HARD_BOT,
    RETAKE_BONUS,
    Potential,
    WargameBot,
    _distances,
)
from engine.attila_wargame.state import MOVEMENT
from engine.bots import Bot, Level
from engine.registry import get_game

ROMAN_SEAT = 0


def _roman_movement() -> Any:
    """The opening position at the Roman's first movement (the Barbarian moved nothing)."""
    game = get_game("attila-wargame")
    state = game.new_state(2, "pieces")
    while not (state.step == MOVEMENT and game.pending(state)[0].seat == ROMAN_SEAT):
        seat = game.pending(state)[0].seat
        legal = game.legal_actions(state, seat)
        if state.step == MOVEMENT:
            legal = [a for a in legal if not isinstance(a, Move)]  # ``end``: nothing moves
        game.apply(state, seat, legal[0])
    return state


def _best_step(bot: WargameBot, state: Any, unit: str) -> Move:
    """The step of ``unit`` that ``bot``'s prior ranks first."""
    legal = get_game("attila-wargame").legal_actions(state, ROMAN_SEAT)
    prior = bot.prior(state, ROMAN_SEAT, legal)
    assert prior is not None
    ranked = [(p, a) for p, a in zip(prior, legal, strict=True) if isinstance(a, Move)]
    return max((pa for pa in ranked if pa[1].unit == unit), key=lambda pa: pa[0])[1]


def test_the_hard_roman_defends_the_gaulish_cities_nearest_the_barbarians() -> None:
    """The Roman's opening position set at round 7 and at round 8. At round 7 the defence
    waits (the Huns may enter the West only from round 9): both levels step alike. At round
    8 the empty cities of Gaul nearest a Barbarian who may take them once the West is invaded
    are Colonia, Augusta Allobrogum and Lugdunum (Augusta Treverorum, held, is the fourth):
    the cavalry of the IX legion, 3 hexes from Colonia, steps towards it at hard and away
    from it (towards Trecae) at medium, and Mediolanum's garrison stays at hard where
    medium's walks on to Genua."""
    board = get_game("attila-wargame").board
    colonia = _distances(board.index_of_label["1604"])
    state = _roman_movement()
    unit = "W-IX-CAV"
    assert board.labels[state.pos[unit]] == "1507" and colonia[state.pos[unit]] == 3
    state.round = 7
    assert not Potential(HARD_BOT, state, ROMAN_SEAT).defending
    assert _best_step(HARD_BOT, state, unit) == _best_step(BOT, state, unit)
    state.round = 8
    hard = Potential(HARD_BOT, state, ROMAN_SEAT)
    assert [board.labels[h] for h in hard.threatened] == ["1604", "1411", "1312"]
    assert not Potential(BOT, state, ROMAN_SEAT).defending
    assert colonia[_best_step(HARD_BOT, state, unit).path[-1]] == 2
    assert colonia[_best_step(BOT, state, unit).path[-1]] == 4
    garrison = "W-V-INF"
    assert board.labels[state.pos[garrison]] == "1813"  # Mediolanum
    assert hard.gain(_best_step(HARD_BOT, state, garrison)) <= 0  # ``end`` ranks first
    assert Potential(BOT, state, ROMAN_SEAT).gain(_best_step(BOT, state, garrison)) > 0


def test_the_hard_roman_attacks_the_barbarians_only_city_of_italy() -> None:
    """A Hun in Aquileia, the Barbarian's only city of Italy, at round 12: the hard Roman's
    units outside a city are drawn to it and its attack on it is worth ``RETAKE_BONUS`` more
    than medium's; a second Hun in Verona makes neither city the only one."""
    board = get_game("attila-wargame").board
    state = _roman_movement()
    state.round = 12
    aquileia, verona = board.index_of_label["2412"], board.index_of_label["2113"]
    for garrison in ("W-IV-INF", "W-XV-INF"):
        del state.pos[garrison]
    state.pos["HUN-1"] = aquileia
    assert Potential(HARD_BOT, state, ROMAN_SEAT).retaken == [aquileia]
    assault = Attack(aquileia, ("W-IV-CAV",))
    assert HARD_BOT._retaking(state, ROMAN_SEAT, assault) == RETAKE_BONUS
    assert BOT._retaking(state, ROMAN_SEAT, assault) == 0
    assert HARD_BOT._retaking(state, 1 - ROMAN_SEAT, assault) == 0
    state.pos["HUN-2"] = verona
    assert Potential(HARD_BOT, state, ROMAN_SEAT).retaken == []
    assert HARD_BOT._retaking(state, ROMAN_SEAT, assault) == 0


def _rules_of(bot: WargameBot, level: Level) -> object:
    player: Bot[Any, Any] = Bot(bot, level, "s")
    return player.rules


def test_only_the_hard_level_plays_by_the_defence() -> None:
    """``Bot`` takes the rules of its level: the hard level's defends the West, medium's and
    easy's are the shared ``BOT``."""
    assert _rules_of(BOT, "hard") is HARD_BOT
    assert _rules_of(BOT, "medium") is BOT
    assert _rules_of(HARD_BOT, "easy") is BOT
    assert HARD_BOT.defends_west and not BOT.defends_west
