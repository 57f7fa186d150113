"""Attika's rules: setup, legal actions, building costs, amphorae, map growth and the end.

Every handler validates completely before it changes anything, so an illegal action leaves
the state as it was. Rule decisions beyond the rulebook are options (the ``options`` block of
``data/attika.json``) and are written down in docs/rules/attika.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
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
from engine.attika.board import Board, Building, Hex, hex_distance
from engine.attika.state import (
    BUILD,
    DRAW,
    NO_MODE,
    OVER,
    PLACE_TILE,
    REVEAL,
    REVEALED,
    TURN,
    AttikaState,
)
from engine.core import (
    Decision,
    Event,
    IllegalAction,
    check_turn,
    dispatch,
    next_seat,
    rank_with_resigned,
    seeded_rng,
    start_rejoin,
    start_resign,
)
from engine.sentences import N_


@dataclass(frozen=True, slots=True)
class Site:
    """What the cost of building on one empty map hex depends on, for one player."""

    hex: Hex
    area: tuple[int, ...]  # landscape symbols on the hex and its unoccupied neighbours
    area_all: tuple[int, ...]  # ... on the hex and all its neighbours
    joins: bool  # touches an own building (so founds no new settlement)
    adjacent: int  # bit mask of own buildings on neighbouring hexes


@dataclass(frozen=True, slots=True)
class Quote:
    """The cards a building costs on a site: specific symbols, any cards, and why."""

    need: tuple[int, ...]  # per resource, after the landscape reduction
    any: int  # cards of any type: the road's rest plus the settlement surcharge
    free: bool  # free by an arrow (or road next to an own road)
    surcharge: int  # part of ``any``: one per settlement the player already has


def hex_text(hex_: Hex) -> str:
    return f"{hex_[0]},{hex_[1]}"


class Rules:
    """The rules of Attika for one data file. Stateless; every method takes the state."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.kinds = len(board.resources)
        self.stacks = 1 + board.other_stacks
        self.rotations = len(board.directions)
        self.max_actions = max(board.reveal_actions, board.build_actions)
        self._reveals = [Reveal(s) for s in range(self.stacks)]
        near = {(a[0] + b[0], a[1] + b[1]) for a in board.directions for b in board.directions}
        self._ring2 = sorted(d for d in near if hex_distance(d, (0, 0)) == 2)

    # == setup ================================================================================

    def new_state(self, players: int, seed: str, options: dict[str, Any]) -> AttikaState:
        b = self.board
        layout = b.layouts[players]
        pile = list(range(len(b.tiles)))
        seeded_rng(seed, "tiles").shuffle(pile)
        turn_rng = seeded_rng(seed, "tile-rotation")
        land: dict[Hex, int] = {}
        tiles = []
        for centre in layout.tile_centres:
            tile = pile.pop()
            rotation = 0
            if options["INITIAL_TILE_ROTATION"] == "random_from_seed":
                rotation = turn_rng.randrange(self.rotations)
            land.update(b.tile_hexes(tile, centre, rotation))
            tiles.append([tile, centre[0], centre[1], rotation])
        mains = [x.index for x in b.buildings if x.main]
        others = [x.index for x in b.buildings if not x.main]
        size = b.other_stack_size
        stacks, boards = [], []
        for seat in range(players):
            rng = seeded_rng(seed, "stacks", seat)
            main, rest = mains[:], others[:]
            rng.shuffle(main)
            rng.shuffle(rest)
            split = [rest[i * size : (i + 1) * size] for i in range(b.other_stacks - 1)]
            split.append(rest[(b.other_stacks - 1) * size :])
            own = [main, *split]
            boards.append(sorted(stack.pop() for stack in own if stack))
            stacks.append(own)
        deck = [r.index for r in b.resources for _ in range(r.cards)]
        seeded_rng(seed, "deck").shuffle(deck)
        start = 0
        if options["START_PLAYER"] == "random_from_seed":
            start = seeded_rng(seed, "start").randrange(players)
        hands = [[0] * self.kinds for _ in range(players)]
        for i in range(players):
            for _ in range(b.starting_cards[i]):
                hands[(start + i) % players][deck.pop()] += 1
        state = AttikaState(
            seed=seed,
            options=dict(options),
            players=players,
            data_version=b.data_version,
            start_seat=start,
            active=start,
            land=land,
            shrines=list(layout.shrines),
            tiles=tiles,
            tile_pile=pile,
            occupant={},
            stacks=stacks,
            boards=boards,
            hands=hands,
            deck=deck,
            discard=[],
            amphorae=[0] * players,
            amphora_supply=b.amphora_supply,
            rewarded=[[] for _ in range(players)],
        )
        self._start_turn(state, start, [])
        return state

    # == who acts ===========================================================================

    def pending(self, state: AttikaState) -> list[Decision]:
        if state.step == OVER:
            return []
        return [Decision(state.active, "move", state.step)]

    # == legal actions ========================================================================

    def legal_actions(self, state: AttikaState, seat: int) -> list[AttikaAction]:
        if state.step == OVER or seat != state.active:
            return []
        if state.step == PLACE_TILE:
            return [
                PlaceTile(where, k)
                for where in self.tile_positions(state)
                for k in range(self.rotations)
            ]
        if state.step == REVEALED:
            return [*self.build_actions(state, seat, [state.current]), Store()]
        out: list[AttikaAction] = []
        if self._reveals_left(state):
            out += [self._reveals[s] for s, stack in enumerate(state.stacks[seat]) if stack]
        if self._builds_left(state):
            out += self.build_actions(state, seat, self._distinct(state.boards[seat]))
        if state.amphorae[seat]:
            if state.mode == DRAW or (state.mode in (REVEAL, BUILD) and not state.actions_left):
                out.append(SpendAmphora())
            if self._unused(state):
                out.append(DrawCards())
        out.append(EndTurn())
        return out

    def build_actions(self, state: AttikaState, seat: int, buildings: Iterable[int]) -> list[Build]:
        """``pay auto`` builds of these buildings on every site the player can afford."""
        sites = self.sites(state, seat)
        settlements = len(self.settlements(state, seat))
        hand = state.hands[seat]
        all_neighbours = state.options["ROAD_REDUCTION_AREA"] == "site_and_all_neighbours"
        out = []
        for index in buildings:
            building = self.board.buildings[index]
            wide = bool(building.any_cost) and all_neighbours
            chain = 0 if building.main else building.predecessors
            known: dict[tuple[tuple[int, ...], bool], bool] = {}
            for site in sites:
                if not chain & site.adjacent:
                    key = (site.area_all if wide else site.area, site.joins)
                    ok = known.get(key)
                    if ok is None:
                        quote = self._quote(state, building, site, settlements)
                        ok = known[key] = self.affordable(hand, quote)
                    if not ok:
                        continue
                out.append(Build(index, site.hex, None))
        return out

    def _distinct(self, board: list[int]) -> list[int]:
        """One building of each set of interchangeable copies (the lowest index)."""
        seen: dict[int, int] = {}
        for index in board:
            seen.setdefault(self.board.buildings[index].copy_of, index)
        return sorted(seen.values())

    def _reveals_left(self, state: AttikaState) -> int:
        if state.mode == NO_MODE:
            return self.board.reveal_actions
        return state.actions_left if state.mode == REVEAL else 0

    def _builds_left(self, state: AttikaState) -> int:
        if state.mode == NO_MODE:
            return self.board.build_actions
        return state.actions_left if state.mode == BUILD else 0

    def _unused(self, state: AttikaState) -> int:
        """Actions not taken this turn (each turns into a card)."""
        if state.mode == NO_MODE:
            return self.max_actions
        return 0 if state.mode == DRAW else state.actions_left

    # == the map ==============================================================================

    def sites(self, state: AttikaState, seat: int) -> list[Site]:
        """Every empty map hex with what its cost depends on."""
        linked = self._linked_shrines(state, seat)
        occupant = state.occupant
        return [self._site(state, seat, h, linked) for h in state.land if h not in occupant]

    def site(self, state: AttikaState, seat: int, hex_: Hex) -> Site:
        return self._site(state, seat, hex_, self._linked_shrines(state, seat))

    def _site(self, state: AttikaState, seat: int, hex_: Hex, linked: set[Hex]) -> Site:
        land, occupant = state.land, state.occupant
        area = [0] * self.kinds
        area_all = [0] * self.kinds
        kind = land[hex_]
        if kind >= 0:
            area[kind] += 1
            area_all[kind] += 1
        joins = False
        adjacent = 0
        for n in self.board.neighbours(hex_):
            k = land.get(n, -1)
            owner = occupant.get(n)
            if k >= 0:
                area_all[k] += 1
                if owner is None:
                    area[k] += 1
            if owner is not None and owner[0] == seat:
                joins = True
                adjacent |= 1 << owner[1]
            elif n in linked:
                joins = True
        return Site(hex_, tuple(area), tuple(area_all), joins, adjacent)

    def _linked_shrines(self, state: AttikaState, seat: int) -> set[Hex]:
        """Shrines that join settlements and touch an own building (none by default)."""
        return self._shrines_touching(state, seat) if self._shrine_joins(state) else set()

    def _shrine_joins(self, state: AttikaState) -> bool:
        return bool(state.options["SHRINE_JOINS_SETTLEMENTS"])

    def _shrines_touching(self, state: AttikaState, seat: int) -> set[Hex]:
        own = state.placed[seat]
        mine = set(own.values())
        return {s for s in state.shrines if any(n in mine for n in self.board.neighbours(s))}

    def settlements(self, state: AttikaState, seat: int) -> list[set[Hex]]:
        """The player's settlements: connected groups of own buildings."""
        own = set(state.placed[seat].values())
        links: dict[Hex, list[Hex]] = {h: [] for h in own}
        for h in own:
            links[h] = [n for n in self.board.neighbours(h) if n in own]
        if self._shrine_joins(state):
            for shrine in state.shrines:
                touching = [n for n in self.board.neighbours(shrine) if n in own]
                for a in touching:
                    links[a].extend(t for t in touching if t != a)
        return _components(own, links)

    def tile_positions(self, state: AttikaState) -> list[Hex]:
        """Centres where the drawn tile may go: 7 free hexes touching the map or a shrine."""
        taken = set(state.land) | set(state.shrines)
        candidates = {(q + dq, r + dr) for q, r in taken for dq, dr in self._ring2}
        return sorted(c for c in candidates if self._tile_fits(state, taken, c))

    def _tile_fits(self, state: AttikaState, taken: set[Hex], centre: Hex) -> bool:
        if centre in taken or any(n in taken for n in self.board.neighbours(centre)):
            return False
        q, r = centre
        if not any((q + dq, r + dr) in taken for dq, dr in self._ring2):
            return False
        lattice_only = state.options["TILE_PLACEMENT_POSITIONS"] == "super_lattice_only"
        return not lattice_only or self.board.on_lattice(centre)

    # == costs ================================================================================

    def quote(self, state: AttikaState, seat: int, building: int, hex_: Hex) -> Quote:
        """What ``building`` costs ``seat`` on the empty map hex ``hex_``."""
        b = self.board.buildings[building]
        site = self.site(state, seat, hex_)
        return self._quote(state, b, site, len(self.settlements(state, seat)))

    def _quote(self, state: AttikaState, b: Building, site: Site, settlements: int) -> Quote:
        if not b.main and b.predecessors & site.adjacent:
            return Quote((0,) * self.kinds, 0, True, 0)
        reduce = not b.main or state.options["MAIN_BUILDING_LANDSCAPE_REDUCTION"]
        area = site.area
        if b.any_cost and state.options["ROAD_REDUCTION_AREA"] == "site_and_all_neighbours":
            area = site.area_all
        if not reduce:
            area = (0,) * self.kinds
        need = []
        surplus = 0
        for c, a in zip(b.cost, area, strict=True):
            if c >= a:
                need.append(c - a)
            else:
                need.append(0)
                surplus += a - c
        surcharge = 0 if site.joins else settlements
        return Quote(tuple(need), max(0, b.any_cost - surplus) + surcharge, False, surcharge)

    def affordable(self, hand: list[int], quote: Quote) -> bool:
        matched = missing = 0
        for n, h in zip(quote.need, hand, strict=True):
            if n > h:
                matched += h
                missing += n - h
            else:
                matched += n
        return sum(hand) - matched >= self.board.joker_cards * missing + quote.any

    def auto_payment(self, hand: list[int], quote: Quote) -> list[int] | None:
        """A cheapest payment (fewest cards) from ``hand``, or None if it cannot pay.

        Matching cards first; the jokers and the any-cards are taken from the types the
        player holds most of (ties: the first resource in the data file).
        """
        pay = [min(n, h) for n, h in zip(quote.need, hand, strict=True)]
        missing = sum(quote.need) - sum(pay)
        extra = self.board.joker_cards * missing + quote.any
        rest = [h - p for h, p in zip(hand, pay, strict=True)]
        if sum(rest) < extra:
            return None
        for _ in range(extra):
            kind = max(range(self.kinds), key=lambda k: (rest[k], -k))
            rest[kind] -= 1
            pay[kind] += 1
        return pay

    def check_payment(self, hand: list[int], quote: Quote, pay: list[int]) -> None:
        """Raise unless ``pay`` is held and covers the cost exactly (no card to spare)."""
        if any(p > h for p, h in zip(pay, hand, strict=True)):
            raise IllegalAction("cards-not-in-hand", N_("you do not hold all of these cards"))
        matched = sum(min(p, n) for p, n in zip(pay, quote.need, strict=True))
        missing = sum(quote.need) - matched
        required = self.board.joker_cards * missing + quote.any
        others = sum(pay) - matched
        if others < required:
            raise IllegalAction(
                "payment-too-small",
                N_("these cards do not pay the cost"),
                cost=self._quote_json(quote),
            )
        if others > required:
            raise IllegalAction(
                "payment-too-large",
                N_("pay exactly: the cost is covered without some of these cards"),
                cost=self._quote_json(quote),
            )

    def _quote_json(self, quote: Quote) -> dict[str, Any]:
        ids = [r.id for r in self.board.resources]
        out: dict[str, Any] = {ids[k]: n for k, n in enumerate(quote.need) if n}
        if quote.any:
            out["any"] = quote.any
        return out

    # == applying =============================================================================

    def apply(self, state: AttikaState, seat: int, action: AttikaAction) -> list[Event]:
        check_turn(self.pending(state), state.step == OVER, seat, action)
        events: list[Event] = []
        dispatch(_HANDLERS, self, state, seat, action, events)
        return events

    # -- leaving and coming back (docs/rules/attika.md, "Resigning") ---------------------------

    def resign(self, state: AttikaState, seat: int, forfeit: bool) -> list[Event]:
        events: list[Event] = []
        if start_resign(state.step == OVER, state.players, state.resigned, seat, forfeit, events):
            staying = next_seat(seat, state.players, state.resigned)
            self._finish(state, [staying], "resigned", events)
        elif seat == state.active:
            self._leave_turn(state, seat, events)
        return events

    def _leave_turn(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        """The active seat resigned mid-turn: a building just revealed goes to its board, a
        map tile just drawn back on the pile (for the next player who empties a stack)."""
        if state.step == REVEALED:
            state.boards[seat].append(state.current)
            state.boards[seat].sort()
            events.append(
                self._event("building_stored", seat=seat, building=self._id(state.current))
            )
            state.current = state.current_stack = -1
        elif state.step == PLACE_TILE:
            state.tile_pile.append(state.drawn_tile)
            events.append(
                self._event("tile_returned", seat=seat, tile=self.board.tiles[state.drawn_tile].id)
            )
            state.drawn_tile = -1
        self._end_turn(state, 0, events)

    def rejoin(self, state: AttikaState, seat: int) -> list[Event]:
        events: list[Event] = []
        start_rejoin(state.step == OVER, state.resigned, seat, events)
        return events

    # -- reveal, store ------------------------------------------------------------------------

    def _reveal(self, state: AttikaState, seat: int, action: Reveal, events: list[Event]) -> None:
        if state.mode not in (NO_MODE, REVEAL):
            raise IllegalAction(
                "mixed-actions", N_("revealing and building never mix in one turn"), mode=state.mode
            )
        if not self._reveals_left(state):
            raise IllegalAction("no-reveals-left", N_("no reveal is left this turn"))
        if not 0 <= action.stack < len(state.stacks[seat]):
            raise IllegalAction("no-such-stack", N_("no such stack"), stack=action.stack + 1)
        stack = state.stacks[seat][action.stack]
        if not stack:
            raise IllegalAction("stack-empty", N_("that stack is empty"), stack=action.stack + 1)
        if state.mode == NO_MODE:
            state.mode = REVEAL
            state.actions_left = self.board.reveal_actions
        state.actions_left -= 1
        state.current = stack.pop()
        state.current_stack = action.stack
        state.step = REVEALED
        state.progress = True
        events.append(
            self._event(
                "building_revealed",
                seat=seat,
                stack=action.stack + 1,
                building=self._id(state.current),
                left_in_stack=len(stack),
            )
        )

    def _store(self, state: AttikaState, seat: int, _: Store, events: list[Event]) -> None:
        state.boards[seat].append(state.current)
        state.boards[seat].sort()
        events.append(self._event("building_stored", seat=seat, building=self._id(state.current)))
        state.current = -1
        self._after_reveal(state, seat, events)

    def _after_reveal(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        emptied = not state.stacks[seat][state.current_stack]
        state.current_stack = -1
        if emptied and state.tile_pile:
            state.drawn_tile = state.tile_pile.pop()
            state.step = PLACE_TILE
            events.append(
                self._event(
                    "tile_drawn",
                    seat=seat,
                    tile=self.board.tiles[state.drawn_tile].id,
                    left=len(state.tile_pile),
                )
            )
            return
        if emptied:
            events.append(self._event("no_tile_left", seat=seat))
        state.step = TURN
        self._maybe_end_turn(state, events)

    # -- build --------------------------------------------------------------------------------

    def _build(self, state: AttikaState, seat: int, action: Build, events: list[Event]) -> None:
        index, where = action.building, action.hex
        if not 0 <= index < len(self.board.buildings):
            raise IllegalAction("unknown-building", N_("no such building"), building=index)
        if state.step == REVEALED:
            if index != state.current:
                raise IllegalAction(
                    "not-revealed-building",
                    N_("in a reveal turn only the building just revealed may be built"),
                    revealed=self._id(state.current),
                )
        else:
            self._check_build_turn(state, seat, index)
        self._check_site(state, where)
        site = self.site(state, seat, where)
        building = self.board.buildings[index]
        quote = self._quote(state, building, site, len(self.settlements(state, seat)))
        hand = state.hands[seat]
        if action.pay is None:
            pay = self.auto_payment(hand, quote)
            if pay is None:
                raise IllegalAction(
                    "cannot-afford",
                    N_("your cards do not pay for this building here"),
                    cost=self._quote_json(quote),
                )
        else:
            if any(not 0 <= c < self.kinds for c in action.pay):
                raise IllegalAction("unknown-resource", N_("no such resource"))
            pay = [action.pay.count(k) for k in range(self.kinds)]
            self.check_payment(hand, quote, pay)
        # -- valid: change the state --
        if state.step == REVEALED:
            state.current = -1
        else:
            if state.mode == NO_MODE:
                state.mode = BUILD
                state.actions_left = self.board.build_actions
            state.actions_left -= 1
            state.boards[seat].remove(index)
        cards = []
        for kind, n in enumerate(pay):
            hand[kind] -= n
            cards += [kind] * n
        state.discard.extend(cards)
        state.occupant[where] = (seat, index)
        state.placed[seat][index] = where
        state.progress = True
        events.append(
            self._event(
                "building_built",
                seat=seat,
                building=self._id(index),
                hex=hex_text(where),
                paid=[self.board.resources[c].id for c in cards],
                free=quote.free,
                new_settlement=not site.joins,
                settlements=len(self.settlements(state, seat)),
            )
        )
        self._award_amphorae(state, seat, events)
        if self._check_win(state, seat, events):
            return
        if state.step == REVEALED:
            self._after_reveal(state, seat, events)
        else:
            self._maybe_end_turn(state, events)

    def _check_build_turn(self, state: AttikaState, seat: int, index: int) -> None:
        if state.mode not in (NO_MODE, BUILD):
            raise IllegalAction(
                "mixed-actions", N_("revealing and building never mix in one turn"), mode=state.mode
            )
        if not self._builds_left(state):
            raise IllegalAction("no-builds-left", N_("no build is left this turn"))
        if index not in state.boards[seat]:
            where = "already built" if index in state.placed[seat] else "still in a stack"
            raise IllegalAction(
                "not-on-storage-board",
                f"that building is not on your storage board ({where})",
                building=self._id(index),
            )

    def _check_site(self, state: AttikaState, where: Hex) -> None:
        if where in state.shrines:
            raise IllegalAction("shrine", N_("nothing is built on a shrine"), hex=hex_text(where))
        if where not in state.land:
            raise IllegalAction("not-on-map", N_("that hex is not on the map"), hex=hex_text(where))
        if where in state.occupant:
            raise IllegalAction("hex-occupied", N_("that hex is built on"), hex=hex_text(where))

    # -- amphorae and cards ------------------------------------------------------------------

    def _award_amphorae(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        placed = state.placed[seat]
        via_any = state.options["AMPHORA_GROUP_CONNECTION"] == "connected_via_any_own_buildings"
        settlements = self.settlements(state, seat) if via_any else []
        for group in self.board.groups:
            if group.index in state.rewarded[seat]:
                continue
            if not all(m in placed for m in group.members):
                continue
            hexes = {placed[m] for m in group.members}
            if via_any:
                connected = any(hexes <= s for s in settlements)
            else:
                links = {h: [n for n in self.board.neighbours(h) if n in hexes] for h in hexes}
                connected = len(_components(hexes, links)) == 1
            if not connected:
                continue
            state.rewarded[seat].append(group.index)
            if state.amphora_supply:
                state.amphora_supply -= 1
                state.amphorae[seat] += 1
                events.append(self._event("amphora_earned", seat=seat, group=group.id))
            else:
                events.append(self._event("amphora_supply_empty", seat=seat, group=group.id))
                self._draw(state, seat, 1, events)

    def _amphora(self, state: AttikaState, seat: int, _: SpendAmphora, events: list[Event]) -> None:
        if not state.amphorae[seat]:
            raise IllegalAction("no-amphora", N_("you have no amphora"))
        if state.mode == NO_MODE:
            raise IllegalAction(
                "no-action-chosen", N_("reveal, build or draw first; an amphora extends that")
            )
        if state.mode != DRAW and state.actions_left:
            raise IllegalAction(
                "actions-left",
                N_("an amphora is spent at the end of the turn, once your actions are used up"),
                actions_left=state.actions_left,
            )
        state.amphorae[seat] -= 1
        if state.options["AMPHORA_SPENT_RETURNS_TO_SUPPLY"]:
            state.amphora_supply += 1
        events.append(self._event("amphora_spent", seat=seat, mode=state.mode))
        if state.mode == DRAW:
            self._draw(state, seat, state.options["AMPHORA_CARD_DRAW_RATE"], events)
        else:
            state.actions_left += 1
        self._maybe_end_turn(state, events)

    def _draw_instead(
        self, state: AttikaState, seat: int, _: DrawCards, events: list[Event]
    ) -> None:
        if not state.amphorae[seat]:
            raise IllegalAction(
                "no-amphora", N_("only a player with an amphora may draw and go on")
            )
        if state.mode == DRAW:
            raise IllegalAction("already-drawn", N_("the remaining actions are already cards"))
        unused = self._unused(state)
        if not unused:
            raise IllegalAction("no-actions-left", N_("no action is left to turn into cards"))
        state.mode = DRAW
        state.actions_left = 0
        events.append(self._event("actions_converted", seat=seat, actions=unused))
        self._draw(state, seat, unused * self.board.card_per_unused_action, events)
        self._maybe_end_turn(state, events)

    def _end(self, state: AttikaState, seat: int, _: EndTurn, events: list[Event]) -> None:
        self._end_turn(state, self._unused(state) * self.board.card_per_unused_action, events)

    def _draw(self, state: AttikaState, seat: int, count: int, events: list[Event]) -> None:
        drawn: list[int] = []
        for _ in range(max(count, 0)):
            if not state.deck and not self._reshuffle(state, events):
                break
            drawn.append(state.deck.pop())
        if not drawn:
            return
        for card in drawn:
            state.hands[seat][card] += 1
        events.append(self._event("cards_drawn", seat=seat, count=len(drawn)))
        events.append(
            Event(
                "cards_drawn_own",
                {"seat": seat, "cards": [self.board.resources[c].id for c in sorted(drawn)]},
                audience=(seat,),
            )
        )

    def _reshuffle(self, state: AttikaState, events: list[Event]) -> bool:
        if state.options["DECK_EXHAUSTED"] != "reshuffle_discards" or not state.discard:
            return False
        state.reshuffles += 1
        state.deck, state.discard = sorted(state.discard), []
        seeded_rng(state.seed, "reshuffle", state.reshuffles).shuffle(state.deck)
        events.append(self._event("discards_reshuffled", cards=len(state.deck)))
        return True

    # -- map growth ---------------------------------------------------------------------------

    def _place_tile(
        self, state: AttikaState, seat: int, action: PlaceTile, events: list[Event]
    ) -> None:
        if not 0 <= action.rotation < self.rotations:
            raise IllegalAction(
                "bad-rotation",
                f"a rotation is 0 to {self.rotations - 1} steps",
                rotation=action.rotation,
            )
        taken = set(state.land) | set(state.shrines)
        if not self._tile_fits(state, taken, action.hex):
            raise IllegalAction(
                "tile-position",
                N_("the tile must lie on 7 free hexes and touch the map or a shrine"),
                hex=hex_text(action.hex),
            )
        tile = state.drawn_tile
        state.land.update(self.board.tile_hexes(tile, action.hex, action.rotation))
        state.tiles.append([tile, action.hex[0], action.hex[1], action.rotation])
        state.drawn_tile = -1
        state.step = TURN
        events.append(
            self._event(
                "tile_placed",
                seat=seat,
                tile=self.board.tiles[tile].id,
                hex=hex_text(action.hex),
                rotation=action.rotation,
            )
        )
        self._maybe_end_turn(state, events)

    # -- the end of a turn and of the game -------------------------------------------------------

    def _maybe_end_turn(self, state: AttikaState, events: list[Event]) -> None:
        """Without an amphora to spend, the turn ends by itself once the actions are used."""
        if (
            state.step == TURN
            and state.mode != NO_MODE
            and not state.actions_left
            and not state.amphorae[state.active]
        ):
            self._end_turn(state, 0, events)

    def _end_turn(self, state: AttikaState, cards: int, events: list[Event]) -> None:
        seat = state.active
        self._draw(state, seat, cards, events)
        events.append(self._event("turn_ended", seat=seat, turn=state.turn))
        state.idle_turns = 0 if state.progress else state.idle_turns + 1
        staying = [s for s in range(state.players) if s not in state.resigned]
        if state.idle_turns >= 2 * len(staying) and not any(
            self.can_still_build(state, s) for s in staying
        ):
            self._finish_blocked(state, events)
            return
        state.turn += 1
        self._start_turn(state, next_seat(seat, state.players, state.resigned), events)

    def _start_turn(self, state: AttikaState, seat: int, events: list[Event]) -> None:
        state.active = seat
        state.step = TURN
        state.mode = NO_MODE
        state.actions_left = 0
        state.progress = False
        events.append(self._event("turn_started", seat=seat, turn=state.turn))

    def _check_win(self, state: AttikaState, seat: int, events: list[Event]) -> bool:
        if len(state.placed[seat]) == len(self.board.buildings):
            self._finish(state, [seat], "all_buildings", events)
            return True
        if self.shrines_connected(state, seat):
            self._finish(state, [seat], "shrines_connected", events)
            return True
        return False

    def shrines_connected(self, state: AttikaState, seat: int) -> bool:
        """Whether one settlement of ``seat`` touches two shrines."""
        neighbours = self.board.neighbours
        for group in self.settlements(state, seat):
            touched = {s for s in state.shrines if any(n in group for n in neighbours(s))}
            if len(touched) >= 2:
                return True
        return False

    def can_still_build(self, state: AttikaState, seat: int) -> bool:
        """Whether ``seat`` could ever build again (STALEMATE_END ends a game only when no
        player can): a building left to place (storage board, just revealed, or in a
        stack), room for it, and cards that pay for it now or may still come."""
        unplaced = [b for stack in state.stacks[seat] for b in stack] + state.boards[seat]
        if state.current >= 0 and seat == state.active:
            unplaced.append(state.current)
        if not unplaced:
            return False
        # Revealing a stack's last building brings a new tile: new hexes, new costs.
        if state.tile_pile and any(stack for own in state.stacks for stack in own):
            return True
        if all(h in state.occupant for h in state.land):
            return False
        reshuffle = state.options["DECK_EXHAUSTED"] == "reshuffle_discards"
        if state.deck or (reshuffle and state.discard):
            return True
        return bool(self.build_actions(state, seat, self._distinct(unplaced)))

    def _finish_blocked(self, state: AttikaState, events: list[Event]) -> None:
        """STALEMATE_END: most buildings, then fewest settlements, then most amphorae."""

        def rank(seat: int) -> tuple[int, int, int]:
            settlements = len(self.settlements(state, seat))
            return (len(state.placed[seat]), -settlements, state.amphorae[seat])

        staying = [s for s in range(state.players) if s not in state.resigned]
        best = max(rank(seat) for seat in staying)
        winners = [seat for seat in staying if rank(seat) == best]
        self._finish(state, winners, "blocked", events)

    def _finish(
        self, state: AttikaState, winners: list[int], reason: str, events: list[Event]
    ) -> None:
        state.step = OVER
        result = {
            "winners": winners,
            "reasons": [reason],
            "scores": [len(placed) for placed in state.placed],
            "settlements": [len(self.settlements(state, s)) for s in range(state.players)],
            "amphorae": list(state.amphorae),
        }
        state.result = rank_with_resigned(result, state.resigned, state.players)
        events.append(self._event("game_ended", **state.result, seed=state.seed))

    # -- small helpers ------------------------------------------------------------------------

    def _id(self, building: int) -> str:
        return self.board.buildings[building].id

    @staticmethod
    def _event(kind: str, **data: Any) -> Event:
        return Event(kind, data)


_HANDLERS: dict[tuple[str, type], Any] = {
    (TURN, Reveal): Rules._reveal,
    (TURN, Build): Rules._build,
    (TURN, SpendAmphora): Rules._amphora,
    (TURN, DrawCards): Rules._draw_instead,
    (TURN, EndTurn): Rules._end,
    (REVEALED, Build): Rules._build,
    (REVEALED, Store): Rules._store,
    (PLACE_TILE, PlaceTile): Rules._place_tile,
}


def _components(nodes: set[Hex], links: dict[Hex, list[Hex]]) -> list[set[Hex]]:
    seen: set[Hex] = set()
    out = []
    for start in sorted(nodes):
        if start in seen:
            continue
        group = {start}
        todo = [start]
        while todo:
            for n in links[todo.pop()]:
                if n not in group:
                    group.add(n)
                    todo.append(n)
        seen |= group
        out.append(group)
    return out
