"""Attika's side of the computer opponents (engine/bots.py, docs/bots.md): the determinizer
that rebuilds a state from one seat's view, the evaluation, the reasonable moves.

Unseen by a seat (docs/rules/attika.md, "Hidden information"): the other hands (their sizes
are public), the order of the deck and of the tile pile, and which stack holds which of a
player's buildings still in stacks (the union is public, and the main stack holds exactly
the main buildings among them by the set-up rule). The determinizer deals the cards nobody
has shown at random to the other hands and the deck, shuffles the tiles not on the map into
the pile, and splits each player's stacked buildings at random into stacks of the public
sizes.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.attika.actions import (
    AttikaAction,
    Build,
    DrawCards,
    EndTurn,
    PlaceTile,
    Reveal,
    SpendAmphora,
    Store,
)
from engine.attika.board import Board, Hex
from engine.attika.game import GAME, AttikaGame
from engine.attika.state import BUILD, PLACE_TILE, REVEAL, TURN, AttikaState
from engine.bots import Level, result_chances, win_chances
from engine.core import Event

#: Value lead that makes a seat e times likelier to win.
SPREAD = 2.5
#: What one building still missing from a shrine-to-shrine settlement costs (the usual win).
SHRINE_STEP = 2.5
#: The share of a building's printed symbols a player pays on average: the landscape and the
#: arrows take off the rest (the heuristic baseline pays 0.85 cards a building, 94 symbols
#: printed on 30 buildings).
DEBT_SHARE = 0.3
#: What a card is worth while the hand is short of paying for the buildings still to build
#: (their printed symbols times ``DEBT_SHARE``); cards beyond that add little.
CARD_WORTH = 0.6
SPARE_CARD_WORTH = 0.02
#: The distance counted when two shrines cannot be joined at all any more.
UNREACHABLE = 12


def _hex(text: str) -> Hex:
    q, r = text.split(",")
    return int(q), int(r)


class Determinizer:
    """The public part of the state, read once from the view; ``sample`` deals the rest."""

    def __init__(
        self,
        game: AttikaGame,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> None:
        b = game.board
        self.seat = seat
        res = {r.id: r.index for r in b.resources}
        bld = {x.id: x.index for x in b.buildings}
        tile_of = {t.id: t.index for t in b.tiles}
        players = view["players"]
        occupant = {
            (m["q"], m["r"]): (m["building"]["seat"], bld[m["building"]["building"]])
            for m in view["map"]
            if m["building"]
        }
        tiles = [[tile_of[t["tile"]], *_hex(t["centre"]), t["rotation"]] for t in view["tiles"]]
        land: dict[Hex, int] = {}
        for tile, q, r, rotation in tiles:  # in the order laid, as the rules iterate it
            land.update(b.tile_hexes(tile, (q, r), rotation))
        drawn = tile_of[view["drawn_tile"]] if view["drawn_tile"] else -1
        on_map = {t[0] for t in tiles} | {drawn}
        self.tile_pool = [t.index for t in b.tiles if t.index not in on_map]
        seats = view["seats"]
        self.stack_sizes = [list(s["stacks"]) for s in seats]
        self.in_stacks = [[bld[x] for x in s["in_stacks"]] for s in seats]
        self.card_counts = [s["cards"] for s in seats]
        self.hand = [view.get("hand", {}).get(r.id, 0) for r in b.resources]
        discard = [res[k] for k, n in view["discard"].items() for _ in range(n)]
        everything = Counter(r.index for r in b.resources for _ in range(r.cards))
        own = Counter({k: n for k, n in enumerate(self.hand) if n})
        self.unseen = sorted((everything - own - Counter(discard)).elements())
        self.deck_size = view["deck"]
        mode = view["mode"] or ""
        revealed = view["revealed"]
        progress, idle = _turn_history(events)
        self.base = AttikaState(
            seed="",
            options=dict(options),
            players=players,
            data_version=view["data_version"],
            start_seat=0,
            active=view["active"],
            land=land,
            shrines=[_hex(h) for h in view["shrines"]],
            tiles=tiles,
            tile_pile=[],
            occupant=occupant,
            stacks=[[] for _ in range(players)],
            boards=[sorted(bld[x] for x in s["storage"]) for s in seats],
            hands=[[0] * len(b.resources) for _ in range(players)],
            deck=[],
            discard=discard,
            amphorae=[s["amphorae"] for s in seats],
            amphora_supply=view["amphora_supply"],
            rewarded=[[_group(b, g) for g in s["groups_complete"]] for s in seats],
            step=view["step"],
            mode=mode,
            actions_left=view["actions_left"].get(mode, 0) if mode else 0,
            current=bld[revealed["building"]] if revealed else -1,
            current_stack=revealed["stack"] - 1 if revealed else -1,
            drawn_tile=drawn,
            progress=progress or mode in (REVEAL, BUILD),
            idle_turns=idle,
            turn=view["turn"],
            result=view["result"],
            resigned=list(view["resigned"]),
        )
        self.mains = {x.index for x in b.buildings if x.main}

    def sample(self, rng: random.Random) -> AttikaState:
        state = copy_state(self.base)
        state.seed = f"determinized-{rng.getrandbits(64)}"  # its own reshuffles
        pile = list(self.tile_pool)
        rng.shuffle(pile)
        state.tile_pile = pile
        for s in range(state.players):
            mains = sorted(x for x in self.in_stacks[s] if x in self.mains)
            rest = sorted(x for x in self.in_stacks[s] if x not in self.mains)
            rng.shuffle(mains)
            rng.shuffle(rest)
            stacks = [mains]
            for size in self.stack_sizes[s][1:]:
                stacks.append(rest[:size])
                rest = rest[size:]
            state.stacks[s] = stacks
        cards = list(self.unseen)
        rng.shuffle(cards)
        state.hands[self.seat] = list(self.hand)
        for s in range(state.players):
            if s == self.seat:
                continue
            for card in cards[: self.card_counts[s]]:
                state.hands[s][card] += 1
            cards = cards[self.card_counts[s] :]
        state.deck = cards[: self.deck_size]
        return state


def copy_state(state: AttikaState) -> AttikaState:
    """A copy sharing nothing the rules change (``AttikaState.copy`` goes through storage
    form, several times slower; the search copies a state per iteration and per look-ahead)."""
    return replace(
        state,
        land=dict(state.land),
        shrines=list(state.shrines),
        tiles=[list(t) for t in state.tiles],
        tile_pile=list(state.tile_pile),
        occupant=dict(state.occupant),
        stacks=[[list(stack) for stack in own] for own in state.stacks],
        boards=[list(b) for b in state.boards],
        hands=[list(h) for h in state.hands],
        deck=list(state.deck),
        discard=list(state.discard),
        amphorae=list(state.amphorae),
        rewarded=[list(r) for r in state.rewarded],
        resigned=list(state.resigned),
        placed=[dict(p) for p in state.placed],
    )


def _group(board: Board, group_id: str) -> int:
    return next(g.index for g in board.groups if g.id == group_id)


def _turn_history(events: Sequence[Event]) -> tuple[bool, int]:
    """From the events seen: whether this turn revealed or built yet, and how many turns in a
    row before it did neither (the blocked end counts them)."""
    progress, idle = False, 0
    for event in events:
        if event.kind == "turn_started":
            progress = False
        elif event.kind in ("building_built", "building_revealed"):
            progress = True
        elif event.kind == "turn_ended":
            idle = 0 if progress else idle + 1
    return progress, idle


class AttikaBot:
    game: AttikaGame = GAME
    #: Each building's printed symbols (a road's any-card symbols included), by index.
    printed: tuple[int, ...] = tuple(sum(b.cost) + b.any_cost for b in GAME.board.buildings)
    # Listing Attika's legal builds costs milliseconds (every site, every stored building):
    # a playout of two moves, then the evaluation.
    playout_depth = 2
    reply_moves = 0

    def copy(self, state: AttikaState) -> AttikaState:
        return copy_state(state)

    def determinizer(
        self,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> Determinizer:
        return Determinizer(self.game, view, events, seat, options)

    def evaluate(self, state: AttikaState) -> list[float]:
        """Buildings on the map, the distance to the usual win (a settlement touching two
        shrines: how many buildings it still lacks), cards, amphorae and stored buildings."""
        if state.result is not None:
            return result_chances(state.result, state.players)
        return win_chances([self.value(state, s) for s in range(state.players)], SPREAD)

    def value(self, state: AttikaState, seat: int, extra: Hex | None = None) -> float:
        cards = sum(state.hands[seat])
        revealed = state.current >= 0 and seat == state.active  # built or stored next
        debt = self.debt(state, seat)
        return (
            1.5 * len(state.placed[seat])
            + 0.5 * (len(state.boards[seat]) + revealed)
            + self._card_value(cards, debt)
            + 0.8 * state.amphorae[seat]
            - SHRINE_STEP * self.shrine_gap(state, seat, extra)
        )

    def shrine_gap(self, state: AttikaState, seat: int, extra: Hex | None = None) -> int:
        """The fewest buildings ``seat`` must still build so that one settlement touches two
        shrines (0-1 breadth-first search: own buildings cost 0, free hexes 1); ``extra``
        counts as built by the seat."""
        neighbours = self.game.board.neighbours
        own = {h for h, (s, _) in state.occupant.items() if s == seat}
        if extra is not None:
            own.add(extra)
        best = UNREACHABLE
        shrines = state.shrines
        for i, start in enumerate(shrines[:-1]):
            goals = {n for s in shrines[i + 1 :] for n in neighbours(s)}
            dist: dict[Hex, int] = {}
            todo: deque[tuple[int, Hex]] = deque()
            for n in neighbours(start):
                cost = self._cost(state, own, n)
                if cost is not None:
                    todo.append((cost, n)) if cost else todo.appendleft((cost, n))
            while todo:
                d, h = todo.popleft()
                if h in dist or d >= best:
                    continue
                dist[h] = d
                if h in goals:
                    best = d
                    break
                for n in neighbours(h):
                    cost = self._cost(state, own, n)
                    if cost is not None and n not in dist:
                        if cost:
                            todo.append((d + 1, n))
                        else:
                            todo.appendleft((d, n))
        return best

    @staticmethod
    def _cost(state: AttikaState, own: set[Hex], h: Hex) -> int | None:
        if h in own:
            return 0
        if h not in state.land or h in state.occupant:
            return None
        return 1

    def reasonable(
        self, state: AttikaState, seat: int, legal: list[AttikaAction]
    ) -> list[AttikaAction]:
        """Build when a build is possible, and do not end a turn that could still reveal."""
        builds: list[AttikaAction] = [a for a in legal if isinstance(a, Build)]
        if builds:
            return builds
        out: list[AttikaAction] = [a for a in legal if not isinstance(a, EndTurn | DrawCards)]
        return out or legal

    def prior(self, state: AttikaState, seat: int, legal: list[AttikaAction]) -> list[float] | None:
        """Builds by what they gain in the evaluation (``build_gains``), so that a build
        paid at about its share of the symbols comes first and one paid far above it after
        the reveals; then reveals, amphorae and storing; tiles in no order; ending last."""
        builds = [a for a in legal if isinstance(a, Build)]
        gains = iter(self.build_gains(state, seat, builds) if builds else [])
        out = []
        for a in legal:
            if isinstance(a, Build):
                out.append(2.0 + next(gains))
            elif isinstance(a, Reveal | SpendAmphora | Store):
                out.append(1.5)
            elif isinstance(a, PlaceTile):
                out.append(1.0)
            else:
                out.append(0.5)
        return out

    def build_gains(self, state: AttikaState, seat: int, builds: list[Build]) -> list[float]:
        """What each build adds to the seat's ``value``, without applying it: the building
        moved from the storage board (or the reveal) to the map, its cards paid against the
        share of its symbols it takes off the debt, and the shrine gap it closes."""
        cards = sum(state.hands[seat])
        debt = self.debt(state, seat)
        before = self._card_value(cards, debt)
        gap = self.shrine_gap(state, seat)
        quotes = self.game.rules.quotes(state, seat, [(a.building, a.hex) for a in builds])
        return [
            1.0
            + self._card_value(cards - quote.cards, debt - DEBT_SHARE * self.printed[a.building])
            - before
            + SHRINE_STEP * (gap - self.shrine_gap(state, seat, a.hex))
            for a, quote in zip(builds, quotes, strict=True)
        ]

    def debt(self, state: AttikaState, seat: int) -> float:
        """The cards the buildings still to build will cost: a building paid below its share
        of the printed symbols (a good site, an arrow) gains, one paid above it loses."""
        return DEBT_SHARE * sum(
            cost for b, cost in enumerate(self.printed) if b not in state.placed[seat]
        )

    @staticmethod
    def _card_value(cards: int, debt: float) -> float:
        """The evaluation's card term: cards short of the debt cost, cards beyond it add little."""
        return -CARD_WORTH * max(debt - cards, 0) + SPARE_CARD_WORTH * max(cards - debt, 0)

    def by_prior(self, state: AttikaState, seat: int) -> bool:
        """Tile placements (up to hundreds, not each applied), and extending a turn by an
        amphora when it buys an action the seat can take: one ply sees the amphora spent, not
        the action it buys, and would never spend one (an amphora left at the end of the game
        breaks a tie at most); the prior spends it."""
        return state.step == PLACE_TILE or self._amphora_pays(state, seat)

    def _amphora_pays(self, state: AttikaState, seat: int) -> bool:
        """Whether the turn's actions are used up and an amphora spent now buys an action
        the seat can take: a stack to reveal, or a stored building it can afford."""
        if not (
            state.step == TURN
            and state.mode in (REVEAL, BUILD)
            and not state.actions_left
            and state.amphorae[seat] > 0
        ):
            return False
        after = copy_state(state)
        self.game.apply(after, seat, SpendAmphora())
        return any(isinstance(a, Reveal | Build) for a in self.game.legal_actions(after, seat))

    def searched(self, state: AttikaState, seat: int) -> bool:
        return state.step in (TURN, "place_revealed", PLACE_TILE)

    def for_level(self, level: Level) -> AttikaBot:
        return self  # every level plays by the same prior

    def continues(self, state: AttikaState, seat: int) -> bool:
        return False  # a turn's decisions are many: medium takes them one at a time

    def policy(
        self, state: AttikaState, seat: int, legal: list[AttikaAction], rng: random.Random
    ) -> AttikaAction:
        """The cheapest build (fewest cards) when a build is possible, else uniform among the
        reasonable actions."""
        builds = [a for a in legal if isinstance(a, Build)]
        if not builds:
            return rng.choice(self.reasonable(state, seat, legal))
        quotes = self.game.rules.quotes(state, seat, [(a.building, a.hex) for a in builds])
        costs = [quote.cards for quote in quotes]
        cheapest = min(costs)
        return rng.choice([a for a, c in zip(builds, costs, strict=True) if c == cheapest])


BOT = AttikaBot()
