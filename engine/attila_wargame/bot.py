"""The Attila wargame's side of the computer opponents (engine/bots.py, docs/bots.md): the
determinizer that rebuilds a state from one seat's view, the evaluation, the move priors.

Nearly everything is on the table. Unseen by a seat: the other side's secret notes until
they fire (the Barbarian's traitor and Aetius's rounds, the Roman's suborned unit) and the
other side's sealed battle or council card until the reveal. The determinizer draws a note
among the units it could still name (on the map, and not one that would already have fired
where it stands now) and a card uniformly among the side's cards.

Movement is offered one hex step at a time (hundreds of steps a phase), so both levels move
by the *prior*: the change of a per-unit potential (Barbarian combat units drawn to the cities
that win the game, by the march's plan, a third of the Huns to Gaul and Italy from round 9;
Roman ones to the cities they garrison; command units to their own combat units), and end
the phase when no step improves it. Both take attacks by the prior too (their expected
exchange over the nine pairs of battle cards) and end a combat phase when none is worth it,
and judge a push, a retreat or an advance one ply. The hard level searches the rest (battle
and council cards, convening, raze). The hard Roman also defends the West from round 8
(``Potential._defence``), holds Costantinopolis's one land approach (``GATE_PULL``) and keeps
its garrisons from sallying out of their cities (``SALLY_COST``).
"""

from __future__ import annotations

import math
import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from engine.attila_wargame.actions import Attack, Move, WargameAction
from engine.attila_wargame.board import City
from engine.attila_wargame.game import GAME, WargameGame
from engine.attila_wargame.map_questions import BARBARIAN, ROMAN, Ctx
from engine.attila_wargame.state import (
    ADVANCE,
    BATTLE_CARD,
    COMBAT,
    MOVEMENT,
    NOTES,
    PUSH,
    RETREAT,
    Battle,
    Council,
    WargameState,
)
from engine.bots import Level, result_chances
from engine.core import Event

#: Steps whose every action has one outcome (judged one ply by both levels).
SINGLE_OUTCOME = (PUSH, RETREAT, ADVANCE)
#: Regions a Barbarian must each hold a "+" city of (or reach the points threshold).
REGIONS = ("east", "gaul", "italy")
#: Hexes counted when no city can be reached.
FAR = 100
#: The Barbarian's march (``Potential``), in hexes of the potential: the extra pull of a "+"
#: city of a victory region he does not hold yet, the pull lost per point of its walled
#: garrison's defence, and per other Barbarian combat unit already in or next to it (one unit
#: takes an empty city; the rest should go on to the next).
REGION_PULL = 6.0
GARRISON_PULL = 0.25
CROWD_PULL = 0.5
#: The share of the Hun combat units the march sends to Gaul and Italy once the Huns may enter
#: the West (round 9): the East's cities are nearer, but a regional victory needs a city of
#: each region, and the Huns may take Italy's only once a city of Gaul is taken.
WEST_ARMY_SHARE = 1 / 3
#: The regions of the West the western army marches on.
WEST_REGIONS = ("gaul", "italy")
HUNS = "huns"
#: The hard level's Roman defence of the West (``Potential._defence``): from the round before
#: the Huns may enter it, the garrisons of Gaul and Italy stay, and the Roman units outside
#: a city are drawn this much harder (in hexes) to the empty cities there nearest a Barbarian
#: who may take them (this many, held ones counted) and to the Barbarian's only city there.
THREATENED_CITIES = 4
DEFENCE_PULL = 8.0
#: The hard Roman's extra value, in combat points, of an attack on the Barbarian's only city
#: of Gaul or of Italy (``WargameBot._retaking``).
RETAKE_BONUS = 3.0
#: The hard Roman's hold on a city with one land hex next to it (Costantinopolis): its march's
#: extra pull, in hexes of the potential, on that hex (a Roman combat unit standing there keeps
#: every attacker by land from the city until it is beaten; ``Potential.defending_gates``), and
#: the combat points an attack costs it for each attacker that leaves a city to fight
#: (``WargameBot._sallying``: a garrison worn down outside its walls loses the city).
GATE_PULL = 10.0
SALLY_COST = 3.0


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(x, 30.0), -30.0)))


class Determinizer:
    """The public part of the state, read once from the view; ``sample`` fills the notes and
    the opponent's sealed card."""

    def __init__(
        self,
        game: WargameGame,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> None:
        rules, b = game.rules, game.board
        self.game, self.seat = game, seat
        hx = b.index_of_label
        units = view["units"]
        state = WargameState(seed="", options=dict(options))
        state.round, state.phase, state.step = view["round"], view["phase"], view["step"]
        state.pos = {u: hx[e["hex"]] for u, e in units.items()}
        state.cf = {u: e["cf"] for u, e in units.items() if e["combat"]}
        state.gone = dict(view["gone"])
        state.alignment = dict(view["alignment"])
        state.neutralised = [u for u, e in units.items() if e.get("neutralised")]
        state.frozen = {
            u: e["moves_from_round"] for u, e in units.items() if "moves_from_round" in e
        }
        state.temp_devastated = [hx[h] for h in view["devastated"]["temporary"]]
        state.perm_devastated = [hx[h] for h in view["devastated"]["permanent"]]
        state.moved = {u: _copy_moved(e["moved"]) for u, e in units.items() if "moved" in e}
        state.attila_trail = [hx[h] for h in view["attila_trail"]]
        state.fought = list(view["fought"])
        state.attacked = list(view["attacked"])
        state.west_invaded = view["west_invaded"]
        state.gaul_invaded = view["gaul_invaded"]
        state.taken = list(view["cities_taken"])
        state.leo = view["leo"]
        state.attila_title = view["attila_title"] or ""
        state.lugdunum_done = view["lugdunum_council_done"]
        state.sides_at_west_invasion = dict(view["sides_at_west_invasion"])
        state.result = view["result"]
        first_combat: dict[int, str] = {}
        for u, h in state.pos.items():
            if rules.is_combat[u]:
                first_combat.setdefault(h, u)
        for city in b.cities:  # only the VICTORY_CITY_HOLD_TEST alternative reads it
            here = first_combat.get(city.hex)
            if here is not None:
                state.last_in_city[city.id] = rules.side(state, here)
        state.battles, state.councils, hit = EVENT_FACTS.read(events)
        self.open_cards: list[tuple[str, tuple[str, ...]]] = []  # (seat, cards) to draw
        battle = view["battle"]
        if battle is not None:
            attacker_side = rules.side(state, battle["attackers"][0])
            state.battle = Battle(
                ref=battle["ref"],
                attacker_seat=rules.seat_of[attacker_side],
                target=hx[battle["target"]],
                attackers=list(battle["attackers"]),
                defenders=list(battle["defenders"]),
                attack_strength=battle["attack"],
                defence_strength=battle["defence"],
                column=battle["column"],
                cards=self._cards(battle, state, b.attack_cards, b.defence_cards, True),
                result=battle["result"],
                stage=state.step if state.step in (BATTLE_CARD, PUSH, RETREAT, ADVANCE) else "",
                losers=list(battle["losers"]),
                retreating=list(battle["retreating"]),
                vacated=[hx[h] for h in battle["vacated"]],
                origin={u: state.pos[u] for u in battle["attackers"] if u in state.pos},
            )
            state.battles = max(state.battles, _number(battle["ref"]))
        council = view["council"]
        if council is not None:
            state.council = Council(
                ref=council["ref"],
                kind=council["kind"],
                cards=self._cards(council, state, b.roman_cards, b.barbarian_cards, False),
            )
            state.councils = max(state.councils, _number(council["ref"]))
        notes = view["notes"]
        state.notes = {"written": {str(s): True for s in notes["written"]}, **notes["known"]}
        state.notes_fired = list(notes["fired"])
        ctx = rules.ctx(state)
        state.siege_hit = [
            u for u in rules.order if u in hit and u in state.pos and rules.besieged(state, ctx, u)
        ]
        self.base = state
        self.missing = self._missing_notes(state, seat)

    def _cards(
        self,
        holder: Mapping[str, Any],
        state: WargameState,
        first: tuple[str, ...],
        second: tuple[str, ...],
        battle: bool,
    ) -> dict[str, str]:
        """The sealed cards known to the seat; the others' to be drawn in ``sample``."""
        if "cards" in holder:
            return dict(holder["cards"])
        cards: dict[str, str] = {}
        for s in holder["chosen"]:
            if s == self.seat:
                cards[str(s)] = holder["own_card"]
                continue
            if battle:  # ``first``: the attacker's cards, ``second``: the defender's
                attacker_side = self.game.rules.side(state, holder["attackers"][0])
                mine = self.game.rules.seat_of[attacker_side] == s
            else:  # ``first``: the Roman's cards, ``second``: the Barbarian's
                mine = self.game.rules.seats[s] == ROMAN
            self.open_cards.append((str(s), first if mine else second))
        return cards

    def _missing_notes(self, state: WargameState, seat: int) -> list[str]:
        """The opponent's notes written but unseen: what ``sample`` draws."""
        rules = self.game.rules
        other = 1 - seat
        if str(other) not in state.notes["written"]:
            return []
        keys = ("traitor", "aetius") if rules.seats[other] == BARBARIAN else ("suborned",)
        return [k for k in keys if k not in state.notes]

    def sample(self, rng: random.Random) -> WargameState:
        state = copy_state(self.base)
        rules = self.game.rules
        holder = state.battle if state.battle is not None else state.council
        for s, cards in self.open_cards:
            assert holder is not None
            holder.cards[s] = rng.choice(cards)
        if "traitor" in self.missing:
            state.notes["traitor"] = rng.choice(self._still_possible(state, "traitor"))
        if "aetius" in self.missing:
            last = rules.b.rounds - rules.aetius_span + 1
            state.notes["aetius"] = rng.randint(1, last)
        if "suborned" in self.missing:
            state.notes["suborned"] = rng.choice(self._still_possible(state, "suborned"))
        return state

    def _still_possible(self, state: WargameState, key: str) -> list[str]:
        """Candidates on the map that would not have fired where they stand now."""
        rules = self.game.rules
        b = rules.b
        attila = state.pos.get(rules.roles["attila"])
        if key == "traitor":
            candidates = rules.traitor_candidates
            watch = [state.pos.get(rules.roles["pope"]), attila]
        else:
            candidates = rules.suborned_candidates
            watch = [attila]
        near = {n for h in watch if h is not None for n in (h, *b.neighbours[h])}
        out = [u for u in candidates if u in state.pos and state.pos[u] not in near]
        return out or [u for u in candidates if u in state.pos] or list(candidates)


def _number(ref: str) -> int:
    tail = ref.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _from_events(events: Sequence[Event]) -> tuple[int, int, set[str]]:
    """The highest battle and council numbers the events' refs name (0 for none), and the
    units the events say suffered a siege loss; in one pass, as a game's events run to
    thousands."""
    battles = councils = 0
    hit: set[str] = set()
    for event in events:
        data = event.data
        if "ref" in data:
            ref = str(data["ref"])
            if ref.startswith("battle-"):
                battles = max(battles, _number(ref))
            elif ref.startswith("council-"):
                councils = max(councils, _number(ref))
        if event.kind == "siege_loss":
            hit.add(str(data.get("unit")))
    return battles, councils, hit


@dataclass(frozen=True)
class _Read:
    """``_from_events``' answer for the events ``events`` (a copy of the list read)."""

    events: list[Event]
    battles: int
    councils: int
    hit: frozenset[str]


class EventFacts:
    """``_from_events`` over a seat's events, reading only those added since a list it read
    before: a seat's events grow by a few a move, to thousands a game, and every move of a
    bot or a baseline determinizes afresh. It keeps the last ``KEPT`` lists read; one serves
    when the events begin with exactly its events (the lists' items compared as ``==`` on
    lists does, the same objects at once), else the events are read from the start."""

    KEPT = 4

    def __init__(self) -> None:
        self.kept: tuple[_Read, ...] = ()

    def read(self, events: Sequence[Event]) -> tuple[int, int, set[str]]:
        events = list(events)
        kept = self.kept  # replaced whole, never changed: one read of it is consistent
        base: _Read | None = None
        for old in kept:
            n = len(old.events)
            longer = base is None or n > len(base.events)
            if longer and n <= len(events) and events[:n] == old.events:
                base = old
        start = 0 if base is None else len(base.events)
        battles, councils, hit = _from_events(events[start:])
        if base is not None:
            battles, councils = max(battles, base.battles), max(councils, base.councils)
            hit |= base.hit
        read = _Read(events, battles, councils, frozenset(hit))
        self.kept = (read, *(old for old in kept if old is not base))[: self.KEPT]
        return battles, councils, hit


#: The determinizers' reader of events (one per process).
EVENT_FACTS = EventFacts()


def copy_state(state: WargameState) -> WargameState:
    """A copy sharing nothing the rules change (``WargameState.copy`` goes through storage
    form, several times slower)."""
    return replace(
        state,
        pos=dict(state.pos),
        cf=dict(state.cf),
        gone=dict(state.gone),
        alignment=dict(state.alignment),
        neutralised=list(state.neutralised),
        siege_hit=list(state.siege_hit),
        frozen=dict(state.frozen),
        temp_devastated=list(state.temp_devastated),
        perm_devastated=list(state.perm_devastated),
        moved={u: _copy_moved(m) for u, m in state.moved.items()},
        attila_trail=list(state.attila_trail),
        fought=list(state.fought),
        attacked=list(state.attacked),
        battle=None if state.battle is None else _copy_battle(state.battle),
        council=None
        if state.council is None
        else replace(state.council, cards=dict(state.council.cards)),
        notes={k: dict(v) if isinstance(v, dict) else v for k, v in state.notes.items()},
        notes_fired=list(state.notes_fired),
        taken=list(state.taken),
        last_in_city=dict(state.last_in_city),
        sides_at_west_invasion=dict(state.sides_at_west_invasion),
        resigned=list(state.resigned),
    )


def _copy_moved(moved: Mapping[str, Any]) -> dict[str, Any]:
    """A unit's movement this phase, {used, stopped, run: [rivers]} (``_take_step``), copied
    by hand: deepcopy was a third of a march's trial on the web table (targets.py)."""
    return {**moved, "run": list(moved["run"])}


def _copy_battle(battle: Battle) -> Battle:
    return replace(
        battle,
        attackers=list(battle.attackers),
        defenders=list(battle.defenders),
        cards=dict(battle.cards),
        losers=list(battle.losers),
        retreating=list(battle.retreating),
        vacated=list(battle.vacated),
        origin=dict(battle.origin),
    )


class WargameBot:
    game: WargameGame = GAME
    #: A battle's cards, its resolution and what follows, then the evaluation.
    playout_depth = 4
    reply_moves = 0

    def __init__(self, defends_west: bool = False) -> None:
        #: Whether the Roman's march defends the cities of the West the Huns may take
        #: (``Potential._threatened``): the hard level's.
        self.defends_west = defends_west
        b = self.game.board
        self.b = b
        self.barbarian_seat = self.game.rules.seat_of[BARBARIAN]
        self.targets = {r: [c for c in b.cities if c.plus and c.region == r] for r in REGIONS}
        #: The hex of each city with one land approach, by the hex of that approach.
        self.gates = _gates()

    def copy(self, state: WargameState) -> WargameState:
        return copy_state(state)

    def determinizer(
        self,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> Determinizer:
        return Determinizer(self.game, view, events, seat, options)

    # -- evaluation -------------------------------------------------------------------------

    def evaluate(self, state: WargameState) -> list[float]:
        """The Barbarian's chance: the points against the threshold, the victory regions held,
        how near his combat units stand to the regions still missing, the combat factors on
        each side, and a battle's odds while its cards are out."""
        if state.result is not None:
            return result_chances(state.result, 2)
        rules = self.game.rules
        score = rules.score(state)
        held = set(score["regions"])
        threshold = state.options["BARBARIAN_POINTS_THRESHOLD"]
        x = 0.1 * (score["points"] - threshold) + 1.2 * (len(held) - 2)
        barbarians = [
            h
            for u, h in state.pos.items()
            if rules.is_combat[u] and rules.side(state, u) == BARBARIAN
        ]
        for region in REGIONS:
            if region not in held:
                nearest = _region_distances(region)
                x -= 0.04 * min((nearest[h] for h in barbarians), default=FAR)
        strength = {BARBARIAN: 0, ROMAN: 0}
        for u, cf in state.cf.items():
            side = rules.side(state, u)
            if side in strength and u not in state.neutralised:
                strength[side] += cf
        x += 0.03 * (strength[BARBARIAN] - strength[ROMAN])
        battle = state.battle
        if battle is not None and battle.result is None and battle.defence_strength:
            odds = math.log2(max(battle.attack_strength, 1) / battle.defence_strength)
            x += 0.3 * odds * (1 if battle.attacker_seat == self.barbarian_seat else -1)
        p = _sigmoid(x)
        out = [0.0, 0.0]
        out[self.barbarian_seat], out[1 - self.barbarian_seat] = p, 1 - p
        return out

    # -- moves ------------------------------------------------------------------------------

    def reasonable(
        self, state: WargameState, seat: int, legal: list[WargameAction]
    ) -> list[WargameAction]:
        """Every legal action: nothing here is plainly self-harming at a glance (a random
        player walks its units step by step until it happens to ``end``)."""
        return legal

    def prior(
        self, state: WargameState, seat: int, legal: list[WargameAction]
    ) -> list[float] | None:
        if state.step == NOTES:
            return [0.0] * len(legal)  # no evaluation reaches that far: a random note
        if state.step == COMBAT:
            # Attacks come in every subset of the units next to each target (dozens). Both
            # levels take the best; ``end`` (0) comes before every losing exchange. In the
            # search's tree (the other side's attacks after a battle) it orders the widening,
            # which at random played 1:3 assaults on walled cities a few iterations in.
            ctx = self.game.rules.ctx(state)
            retaken = self._retake_targets(state, seat)
            return [
                self.attack_value(state, a, ctx)
                + self._retaking(state, seat, a, retaken)
                - self._sallying(state, seat, a)
                if isinstance(a, Attack)
                else 0.0
                for a in legal
            ]
        if state.step != MOVEMENT:
            return None
        potential = Potential(self, state, seat)
        # ``end`` (0) wins over steps that change nothing, so a phase ends once nothing gains.
        return [potential.gain(a) - 1e-6 if isinstance(a, Move) else 0.0 for a in legal]

    def attack_value(self, state: WargameState, attack: Attack, ctx: Ctx | None = None) -> float:
        """The attack's expected exchange, in combat-factor points, over the nine pairs of
        battle cards taken as equally likely: points the defenders lose (2 more for a unit
        eliminated) less those the attackers lose, 1 for the defenders' retreat, -0.5 for the
        attackers', and a fifth of a city's value when its garrison is likely to leave it.
        ``ctx``: the rules' lookup tables of ``state``, when the caller has them."""
        rules, b = self.game.rules, self.b
        if ctx is None:
            ctx = rules.ctx(state)
        t = attack.target
        defenders = [u for u in ctx.units_at.get(t, ()) if rules.is_combat[u]]
        defenders = [u for u in defenders if u not in ctx.neutralised]
        city = b.city_at.get(t)
        if not defenders:  # lone command units: eliminated at once (5.6)
            return 5.0
        attack_strength = sum(
            rules.strength(state, ctx, u, defending=False) for u in attack.attackers
        )
        defence = sum(rules.strength(state, ctx, u, defending=True) for u in defenders)
        cells = b.cells[rules.column(state, attack_strength, defence)]
        total = 0.0
        for row in cells.values():
            for result in row.values():
                total += _exchange(
                    result,
                    [state.cf[u] for u in attack.attackers],
                    [state.cf[u] for u in defenders],
                )
                if (
                    city is not None
                    and result[0] == "D"
                    and (result[1] == "R" or all(state.cf[u] <= int(result[2:]) for u in defenders))
                ):
                    total += city.value / 5
        return total / 9

    def _retaking(
        self,
        state: WargameState,
        seat: int,
        attack: Attack,
        retaken: Sequence[int] | None = None,
    ) -> float:
        """``RETAKE_BONUS`` for the hard Roman's attack on the Barbarian's only city of Gaul
        or of Italy: his regional victory needs it held at the end of round 16. ``retaken``:
        ``_retake_targets`` of ``state`` and ``seat``, when the caller has them."""
        if retaken is None:
            retaken = self._retake_targets(state, seat)
        return RETAKE_BONUS if attack.target in retaken else 0.0

    def _retake_targets(self, state: WargameState, seat: int) -> list[int]:
        """The cities whose attack ``_retaking`` values more: none but for the hard Roman
        (the score they come from is read once for all of a phase's attacks)."""
        if not self._hard_roman(seat):
            return []
        return _only_cities(state)

    def _sallying(self, state: WargameState, seat: int, attack: Attack) -> float:
        """``SALLY_COST`` for each of the hard Roman's attackers standing in a city (an attack
        out of a city is voluntary: its garrison need not wear itself down outside)."""
        if not self._hard_roman(seat):
            return 0.0
        cities = self.b.city_at
        return SALLY_COST * sum(1 for u in attack.attackers if state.pos[u] in cities)

    def _hard_roman(self, seat: int) -> bool:
        """Whether ``seat`` is the Roman of the hard level (the West's defence, the gate, the
        sally cost)."""
        return self.defends_west and self.game.rules.seats[seat] == ROMAN

    def by_prior(self, state: WargameState, seat: int) -> bool:
        """Movement, the notes and the choice of attack: the attack of the best expected
        exchange, or ``end`` when none is above 0."""
        return state.step in (MOVEMENT, NOTES, COMBAT)

    def searched(self, state: WargameState, seat: int) -> bool:
        """The battle and council cards, convening and the raze. The attack is taken by the
        prior at both levels: at a few dozen iterations the search's playouts (one pair of
        cards each) judged it worse than the expected exchange over the nine pairs
        (docs/bots.md, "The wargame against the baselines"). A push, a retreat or an advance
        has one outcome, which medium's one ply judges exactly where the search judged it by
        a few random playouts."""
        return state.step not in (MOVEMENT, NOTES, COMBAT, *SINGLE_OUTCOME)

    def for_level(self, level: Level) -> WargameBot:
        return HARD_BOT if level == "hard" else BOT

    def continues(self, state: WargameState, seat: int) -> bool:
        return False

    def policy(
        self, state: WargameState, seat: int, legal: list[WargameAction], rng: random.Random
    ) -> WargameAction:
        """Uniform among the reasonable actions."""
        return rng.choice(self.reasonable(state, seat, legal))


class Potential:
    """Where each unit of the moving side would rather stand (higher is better): the change
    of this by one step is the prior of that step; ``end`` scores 0."""

    def __init__(self, bot: WargameBot, state: WargameState, seat: int) -> None:
        rules = bot.game.rules
        self.bot, self.state, self.rules = bot, state, rules
        self.side = rules.seats[seat]
        b = bot.b
        combat_at = {h: u for u, h in state.pos.items() if rules.is_combat[u]}
        self.combat_at = combat_at
        # The Barbarian wants the "+" cities; the Roman garrisons them all ("-" ones count
        # against the Barbarian while a Roman unit stands in them).
        wanted = [c for c in b.cities if c.plus or self.side == ROMAN]
        free = [
            c
            for c in wanted
            if c.hex not in combat_at or rules.side(state, combat_at[c.hex]) != self.side
        ]
        # Each city's pull and distances; a unit's own city is not free, so it is no pull:
        # the bonus for standing in a city keeps a garrison where it is.
        self.pulls = [(c.value / 4, _distances(c.hex)) for c in free]
        self.field: dict[int, float] = {}
        # The Barbarian's plan: (city hex, pull) of the "+" cities not his.
        self.plan: list[tuple[int, float]] | None = None
        if self.side == BARBARIAN:
            self.plan = self._barbarian_plan(free)
        self.defending = False
        self.threatened: list[int] = []
        self.retaken: list[int] = []
        self.defended: dict[tuple[str, int], float] = {}
        #: The hard Roman's gates (``GATE_PULL``): the approaches of its cities not the
        #: Barbarian's.
        self.defending_gates: frozenset[int] = frozenset()
        if bot._hard_roman(seat):
            self._defence()
            self.defending_gates = frozenset(
                gate for gate, city in bot.gates.items() if not self._barbarian_holds(city)
            )
        self.planned: dict[tuple[str, int], float] = {}
        # What ``_planned`` reads, by people and army, and by unit.
        self.open_plans: dict[tuple[str, bool], list[tuple[int, float]]] = {}
        self.unit_plans: dict[str, list[tuple[float, list[int]]]] = {}
        self.mates_field: dict[tuple[str, int], float] = {}
        self.own_combat: dict[str, list[int]] = {}
        for u, h in state.pos.items():
            if rules.is_combat[u] and rules.side(state, u) == self.side:
                self.own_combat.setdefault(rules.people_of[u], []).append(h)

    def _barbarian_plan(self, free: list[City]) -> list[tuple[int, float]]:
        """Each city's pull for the Barbarian. By the nearest city alone (the Roman's kind of
        potential) every unit would stop next to a walled garrison and stay (nothing nearer
        gains) while the victory regions he lacks sit empty far away: here a city of a region
        he does not hold pulls harder, a walled garrison less, and a crowded city less; and the
        western army (``_west_army``) is drawn to Gaul and Italy alone."""
        state, rules, b = self.state, self.rules, self.bot.b
        ctx = self.ctx = rules.ctx(state)
        self.west_army = self._west_army()
        held = set(rules.score(state)["regions"])
        barbarians = [
            h
            for u, h in state.pos.items()
            if rules.is_combat[u] and rules.side(state, u) == BARBARIAN
        ]
        out = []
        self.crowd: dict[int, int] = {}
        standing = Counter(barbarians)
        for c in free:
            pull = c.value / 4
            if c.region in REGIONS and c.region not in held:
                pull += REGION_PULL
            garrison = self.combat_at.get(c.hex)
            if garrison is not None:
                pull -= GARRISON_PULL * rules.strength(state, ctx, garrison, defending=True)
            out.append((c.hex, pull))
            # Within one hex: the city's own hex and its neighbours.
            self.crowd[c.hex] = standing[c.hex] + sum(standing[n] for n in b.neighbours[c.hex])
        return out

    def _west_army(self) -> set[str]:
        """The Huns marching on Gaul and Italy: none before they may enter the West; then the
        share ``WEST_ARMY_SHARE`` of their combat units, those nearest Gaul, leaving out the
        garrisons of cities outside the West's regions (the East's hold its points and region).
        A Hun that has taken a city of Gaul or Italy stays in the army (nearest), so the army
        does not draw more Huns from the East as it takes cities."""
        rules, state, b = self.rules, self.state, self.bot.b
        gaul = self.bot.targets["gaul"]
        if not rules.may_enter_land(self.ctx, HUNS, gaul[0].hex):
            return set()
        huns = {
            u: h for u, h in state.pos.items() if rules.is_combat[u] and rules.people_of[u] == HUNS
        }
        size = round(WEST_ARMY_SHARE * len(huns))
        movable = []
        for u, h in huns.items():
            city = b.city_at.get(h)
            if city is None or city.region in WEST_REGIONS:
                movable.append((min(_distances(c.hex)[h] for c in gaul), u))
        return {u for _, u in sorted(movable)[:size]}

    def _planned(self, unit: str, h: int) -> float:
        """The best pull less distance at ``h`` over the cities ``unit`` may enter (a people
        barred from a region is not drawn to it; the western army only to Gaul and Italy), its
        own presence not counted as crowd."""
        got = self.planned.get((unit, h))
        if got is not None:
            return got
        best = -float(FAR)
        for base, dist in self._unit_plan(unit):
            best = max(best, base - dist[h])
        self.planned[(unit, h)] = best
        return best

    def _unit_plan(self, unit: str) -> list[tuple[float, list[int]]]:
        """(pull less crowd, distances to it) of each city ``unit`` may enter (``_planned``)."""
        got = self.unit_plans.get(unit)
        if got is not None:
            return got
        b = self.bot.b
        at = self.state.pos[unit]
        got = []
        for city, pull in self._open_plan(self.rules.people_of[unit], unit in self.west_army):
            crowd = self.crowd[city] - (1 if b.distance(at, city) <= 1 else 0)
            got.append((pull - CROWD_PULL * crowd, _distances(city)))
        self.unit_plans[unit] = got
        return got

    def _open_plan(self, people: str, west: bool) -> list[tuple[int, float]]:
        """The plan's (city hex, pull) that ``people`` may enter (the western army: in Gaul
        and Italy only)."""
        key = (people, west)
        got = self.open_plans.get(key)
        if got is not None:
            return got
        rules, b, state = self.rules, self.bot.b, self.state
        assert self.plan is not None
        got = [
            (city, pull)
            for city, pull in self.plan
            if (not west or b.city_at[city].region in WEST_REGIONS)
            and rules.may_enter_land(self.ctx, people, city)
            and rules.may_occupy_city(state, people, city)
        ]
        self.open_plans[key] = got
        return got

    def _defence(self) -> None:
        """The hard Roman's plan for the West, from the Roman's last movement before the
        Huns may enter it (the Barbarian's regional victory needs a city of Gaul and one of
        Italy held at the end of round 16): ``threatened``, the ``THREATENED_CITIES``
        cities of Gaul and Italy not the Barbarian's nearest a Barbarian combat unit whose
        people may take them once the West is invaded (Italy's: the Huns once a city of Gaul
        is taken, the others once all ten are), and ``retaken``, the Barbarian's city of
        Gaul or Italy when it is his only one there."""
        rules, state = self.rules, self.state
        self.ctx = rules.ctx(state)
        soon = replace(state, round=state.round + 1, west_invaded=True)
        ctx_soon = rules.ctx(soon)
        if not rules.may_enter_land(ctx_soon, HUNS, self.bot.targets["gaul"][0].hex):
            return
        self.defending = True
        self.retaken = _only_cities(state)
        barbarians = [
            (rules.people_of[u], h)
            for u, h in state.pos.items()
            if rules.is_combat[u] and rules.side(state, u) == BARBARIAN
        ]
        threat: list[tuple[int, int]] = []
        for c in self.bot.b.cities:
            if c.region not in WEST_REGIONS or self._barbarian_holds(c.hex):
                continue
            near = [
                _distances(c.hex)[h]
                for people, h in barbarians
                if rules.may_enter_land(ctx_soon, people, c.hex)
                and rules.may_occupy_city(soon, people, c.hex)
            ]
            if near:
                threat.append((min(near), c.hex))
        nearest = [h for _, h in sorted(threat)[:THREATENED_CITIES]]
        self.threatened = [h for h in nearest if h not in self.combat_at]

    def _barbarian_holds(self, h: int) -> bool:
        holder = self.combat_at.get(h)
        return holder is not None and self.rules.side(self.state, holder) == BARBARIAN

    def _defending(self, unit: str, h: int) -> float:
        """``DEFENCE_PULL`` in a city of Gaul or Italy not the Barbarian's (a garrison there
        stays), else that less the distance to the nearest threatened empty city or city to
        retake ``unit``'s people may enter."""
        city = self.bot.b.city_at.get(h)
        if city is not None and city.region in WEST_REGIONS and not self._barbarian_holds(h):
            return DEFENCE_PULL
        people = self.rules.people_of[unit]
        got = self.defended.get((people, h))
        if got is None:
            got = max(
                (
                    DEFENCE_PULL - _distances(target)[h]
                    for target in (*self.threatened, *self.retaken)
                    if self.rules.may_enter_land(self.ctx, people, target)
                ),
                default=-float(FAR),
            )
            self.defended[(people, h)] = got
        return got

    def gain(self, move: Move) -> float:
        at = self.state.pos[move.unit]
        return self.at(move.unit, move.path[-1]) - self.at(move.unit, at)

    def at(self, unit: str, h: int) -> float:
        rules, b = self.rules, self.bot.b
        people = rules.people_of[unit]
        if not rules.is_combat[unit]:
            got = self.mates_field.get((people, h))
            if got is None:
                everyone = [x for hexes in self.own_combat.values() for x in hexes]
                mates = self.own_combat.get(people) or everyone
                got = -0.5 * min((b.distance(h, m) for m in mates), default=0)
                self.mates_field[(people, h)] = got
            return got
        city = b.city_at.get(h)
        best = self.field.get(h) if self.plan is None else self._planned(unit, h)
        if best is None:
            best = self.field[h] = max(
                (pull - dist[h] for pull, dist in self.pulls), default=-float(FAR)
            )
        if self.defending:
            best = max(best, self._defending(unit, h))
        if h in self.defending_gates:
            best += GATE_PULL
        if city is not None and (city.plus or self.side == ROMAN):
            best += 3.0
        return best


def _exchange(result: str, attackers: list[int], defenders: list[int]) -> float:
    """One battle result (``AR``, ``DR``, ``AE2``, ``DE1``...) as points won by the attacker."""
    if result[1] == "R":
        return 1.0 if result[0] == "D" else -0.5
    points = int(result[2:])
    losers = defenders if result[0] == "D" else attackers
    lost = sum(min(points, cf) + (2.0 if cf <= points else 0.0) for cf in losers)
    return lost if result[0] == "D" else -lost


def _only_cities(state: WargameState) -> list[int]:
    """The Barbarian's city of Gaul, and of Italy, where it is his only one there."""
    held = GAME.rules.score(state)["regions"]
    b = GAME.board
    return [
        b.city_by_id[ids[0]].hex
        for region, ids in held.items()
        if region in WEST_REGIONS and len(ids) == 1
    ]


def _gates() -> dict[int, int]:
    """The hex of each city whose only neighbour on land in play is one hex (its gate), by
    the gate's hex: Costantinopolis, by 4418."""
    b = GAME.board
    out = {}
    for c in b.cities:
        land = [n for n in b.neighbours[c.hex] if b.passable[n]]
        if len(land) == 1:
            out[land[0]] = c.hex
    return out


@cache
def _region_distances(region: str) -> tuple[int, ...]:
    """Hexes from each hex to the nearest "+" city of a victory region (``_distances``; FAR
    when none can be reached)."""
    b = GAME.board
    targets = [_distances(c.hex) for c in b.cities if c.plus and c.region == region]
    return tuple(min((d[h] for d in targets), default=FAR) for h in range(len(b.labels)))


@cache
def _distances(target: int) -> list[int]:
    """Hexes to ``target`` over land in play (breadth-first; rivers and borders ignored)."""
    b = GAME.board
    dist = [FAR] * len(b.labels)  # unreachable hexes stay FAR away
    dist[target] = 0
    todo = deque([target])
    while todo:
        h = todo.popleft()
        for n in b.neighbours[h]:
            if b.passable[n] and dist[n] == FAR and n != target:
                dist[n] = dist[h] + 1
                todo.append(n)
    return dist


BOT = WargameBot()
HARD_BOT = WargameBot(defends_west=True)
