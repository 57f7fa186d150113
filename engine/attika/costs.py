"""Where a player may build and what it costs: sites, settlements, shrines, where a map
tile fits, and the cards a building costs on a site (docs/rules/attika.md, "Building").

Read-only: nothing here changes a state. The cost of a building on a site (``quote``) is
free by an arrow, else its printed symbols minus the landscape around the site
(``MAIN_BUILDING_LANDSCAPE_REDUCTION``, ``ROAD_REDUCTION_AREA``), plus one card per
settlement the player has when the site founds a new one (``SHRINE_JOINS_SETTLEMENTS``);
``affordable``, ``auto_payment`` and ``check_payment`` say how a hand pays it.
"""

from __future__ import annotations

from typing import Any

from engine.attika.base import Quote, RulesBase, Site
from engine.attika.board import Building, Hex
from engine.attika.state import AttikaState
from engine.core import IllegalAction
from engine.sentences import N_


class Costs(RulesBase):
    """Sites, settlements, tile positions and building costs, read from a state."""

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

    # == costs ===================================================================================

    def quote(self, state: AttikaState, seat: int, building: int, hex_: Hex) -> Quote:
        """What ``building`` costs ``seat`` on the empty map hex ``hex_``."""
        b = self.board.buildings[building]
        site = self.site(state, seat, hex_)
        return self._quote(state, b, site, len(self.settlements(state, seat)))

    def quotes(self, state: AttikaState, seat: int, wanted: list[tuple[int, Hex]]) -> list[Quote]:
        """``quote`` for each (building, empty map hex) in ``wanted``, the sites read once (a
        page shows the cost of every legal build)."""
        sites = {site.hex: site for site in self.sites(state, seat)}
        settlements = len(self.settlements(state, seat))
        return [
            self._quote(state, self.board.buildings[b], sites[h], settlements) for b, h in wanted
        ]

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
