"""Tournament pairings and standings as pure functions (docs/tournaments.md): no store, no clock,
the same answer for the same arguments. service/domain/tournaments.py keeps the state and calls
these; tests/test_tournament_pairing.py checks their properties with hypothesis.

A round seats the entrants at tables of ``size`` (the game's seat count); ``len(players) %
size`` of them sit the round out (a bye). "Meeting" someone means sharing a table with them.

``avoid``: pairs of players who must not meet (one blocks the other: service/domain/blocks.py).
A pairing keeps them apart whenever any pairing does, before it avoids repeats; when none does
(``kept_apart_failed`` counts such tables), the round says so.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: Tables looked at while searching a round without a repeated meeting: far more than any
#: round of the entrant counts allowed needs (MAX_ENTRANTS), and a bound on the work of one.
SEARCH_BUDGET = 50_000
#: Sets of bye candidates tried for a Swiss round, fairest first.
BYE_SETS_TRIED = 100
#: Schedules drawn for a round-robin of tables larger than two: the one with the fewest
#: repeated meetings is kept (all meetings once, when a draw finds it, ends the search). Fewer
#: for many entrants (a draw's work grows with their square): 64 entrants take 9 draws, 0.6 s.
ROUND_ROBIN_DRAWS = 200
ROUND_ROBIN_WORK = 40_000
#: What a meeting of two players to be kept apart costs, against 1 for a repeated meeting.
APART_WEIGHT = 1_000
Pairs = frozenset[frozenset[str]]


@dataclass(frozen=True)
class Round:
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def pairs(table: Iterable[str]) -> list[frozenset[str]]:
    return [frozenset(pair) for pair in itertools.combinations(table, 2)]


def meetings(rounds: Iterable[Round]) -> Counter[frozenset[str]]:
    """How often each two players shared a table."""
    met: Counter[frozenset[str]] = Counter()
    for played in rounds:
        for table in played.tables:
            met.update(pairs(table))
    return met


def bye_counts(rounds: Iterable[Round]) -> Counter[str]:
    return Counter(player for played in rounds for player in played.byes)


def kept_apart_failed(tables: Iterable[Sequence[str]], avoid: Pairs) -> int:
    """Tables that seat a pair of ``avoid``."""
    return sum(1 for table in tables if any(pair in avoid for pair in pairs(table)))


def repeats(tables: Iterable[Sequence[str]], met: Mapping[frozenset[str], int]) -> int:
    """Meetings in ``tables`` that happened before."""
    return sum(1 for table in tables for pair in pairs(table) if met.get(pair, 0))


# -- round-robin -------------------------------------------------------------------------------


def round_robin_rounds(players: int, size: int) -> int:
    """Rounds of a round-robin: each player meets ``size - 1`` others a round, so at least
    ``ceil((players - 1) / (size - 1))`` rounds to meet everyone (two players: ``players - 1``
    rounds, ``players`` with an odd count and its byes)."""
    if size == 2:
        return players if players % 2 else players - 1
    return max(1, -(-(players - 1) // (size - 1)))


def round_robin(
    players: Sequence[str], size: int, seed: str, avoid: Pairs = frozenset()
) -> list[Round]:
    """Every round of a round-robin. Two-player games: the circle method, every pairing
    exactly once (so a pair of ``avoid`` meets too: there is no other round-robin). Larger
    tables: everyone meets as evenly as possible: byes rotate (nobody a second before everyone
    has had one), and of ROUND_ROBIN_DRAWS schedules drawn (seeded by ``seed``) the one with
    the fewest meetings of ``avoid``, then the fewest repeated meetings."""
    if size == 2:
        return _circle(players)
    rng = random.Random(seed)
    best: list[Round] = []
    best_cost = -1
    for _ in range(max(3, min(ROUND_ROBIN_DRAWS, ROUND_ROBIN_WORK // len(players) ** 2))):
        drawn = _drawn_schedule(players, size, rng, avoid)
        met = meetings(drawn)
        cost = sum(count - 1 for count in met.values() if count > 1)
        cost += APART_WEIGHT * sum(count for pair, count in met.items() if pair in avoid)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = drawn, cost
        if cost == 0:
            break
    return best


def _circle(players: Sequence[str]) -> list[Round]:
    ring: list[str | None] = list(players)
    if len(ring) % 2:
        ring.append(None)  # whoever meets "None" has the round's bye
    n = len(ring)
    rounds = []
    for _ in range(n - 1):
        tables, byes = [], []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                byes.append(b if a is None else a)
            else:
                tables.append((a, b))
        rounds.append(Round(tuple(tables), tuple(p for p in byes if p is not None)))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _drawn_schedule(
    players: Sequence[str], size: int, rng: random.Random, avoid: Pairs
) -> list[Round]:
    rounds: list[Round] = []
    met: Counter[frozenset[str]] = Counter({pair: APART_WEIGHT for pair in avoid})
    byes: Counter[str] = Counter()
    for _ in range(round_robin_rounds(len(players), size)):
        order = list(players)
        rng.shuffle(order)
        order.sort(key=lambda p: byes[p])  # stable: the shuffle breaks ties
        need = len(players) % size
        out = order[:need]
        left = order[need:]
        tables = []
        while left:
            table = [left.pop(rng.randrange(len(left)))]
            while len(table) < size:
                cost = [sum(met[frozenset((p, q))] for q in table) for p in left]
                lowest = min(cost)
                choices = [i for i, c in enumerate(cost) if c == lowest]
                table.append(left.pop(rng.choice(choices)))
            tables.append(tuple(table))
            met.update(pairs(table))
        byes.update(out)
        rounds.append(Round(tuple(tables), tuple(out)))
    return rounds


# -- Swiss -------------------------------------------------------------------------------------


def swiss_rounds(players: int, size: int) -> int:
    """A Swiss tournament's default round count: enough for one player to stay ahead of all
    (log base ``size`` of the entrants, rounded up), at least two, never more than a
    round-robin's."""
    rounds, reach = 0, 1
    while reach < players:
        rounds, reach = rounds + 1, reach * size
    return max(1, min(max(rounds, 2), round_robin_rounds(players, size)))


def swiss_round(
    players: Sequence[str],
    size: int,
    scores: Mapping[str, float],
    history: Sequence[Round],
    avoid: Pairs = frozenset(),
) -> Round:
    """The next Swiss round. ``players`` in standing order (best first; ties as the caller
    ranks them), ``scores`` their points so far, ``history`` the rounds played.

    - Byes (``len(players) % size`` a round) go to players with the fewest byes so far, the
      lowest scorers among them: nobody has a second bye while someone has none.
    - Tables are filled from the top of the standings: each table takes the best player not yet
      seated and the next players by score whom none at the table has met.
    - No two players meet again while a round without a repeat exists (among the fair bye
      choices, searched exhaustively up to SEARCH_BUDGET tables); otherwise the fairest byes
      and greedy tables with few repeats.
    - A pair of ``avoid`` counts as having met, and heavily: kept apart while a round without
      a repeat exists, and then while any round keeps it apart (repeats allowed).
    """
    met = meetings(history)
    met.update({pair: APART_WEIGHT for pair in avoid})
    byes = bye_counts(history)
    place = {player: index for index, player in enumerate(players)}
    budget = [SEARCH_BUDGET]  # shared by every bye set tried
    fairest: tuple[str, ...] | None = None
    for out in _fair_byes(players, size, scores, byes, place):
        fairest = out if fairest is None else fairest
        seated = [p for p in players if p not in out]
        found = _without_repeats(seated, size, met, budget)
        if found is not None:
            return Round(tuple(found), out)
        if budget[0] < 0:
            break
    assert fairest is not None
    seated = [p for p in players if p not in fairest]
    if avoid:
        budget = [SEARCH_BUDGET]
        for out in _fair_byes(players, size, scores, byes, place):
            left = [p for p in players if p not in out]
            apart = _without_repeats(left, size, dict.fromkeys(avoid, 1), budget)
            if apart is not None:
                return Round(tuple(apart), out)
            if budget[0] < 0:
                break
    return Round(tuple(_fewest_repeats(seated, size, met)), fairest)


def _fair_byes(
    players: Sequence[str],
    size: int,
    scores: Mapping[str, float],
    byes: Mapping[str, int],
    place: Mapping[str, int],
) -> Iterable[tuple[str, ...]]:
    """Sets of players who may sit the round out, the fairest first: every one of them has no
    more byes than anyone left playing; fewer byes, then lower scores, then lower places."""
    need = len(players) % size
    if need == 0:
        yield ()
        return
    order = sorted(players, key=lambda p: (byes.get(p, 0), scores.get(p, 0.0), -place[p]))
    tried = 0
    for chosen in itertools.combinations(order, need):
        most = max(byes.get(p, 0) for p in chosen)
        others = [byes.get(p, 0) for p in players if p not in chosen]
        if others and most > min(others):
            continue
        yield tuple(chosen)
        tried += 1
        if tried >= BYE_SETS_TRIED:
            return


def _without_repeats(
    seated: Sequence[str], size: int, met: Mapping[frozenset[str], int], budget: list[int]
) -> list[tuple[str, ...]] | None:
    """Tables without a repeated meeting, the top of ``seated`` together: a depth-first search
    (the best player left takes the first fitting companions by standing, backtracking), or
    None if none exists or the budget (tables looked at, shared) ran out."""

    def fits(a: str, b: str) -> bool:
        return not met.get(frozenset((a, b)), 0)

    def search(left: list[str]) -> list[tuple[str, ...]] | None:
        if not left:
            return []
        first, rest = left[0], left[1:]
        candidates = [p for p in rest if fits(first, p)]
        for others in itertools.combinations(candidates, size - 1):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if any(not fits(a, b) for a, b in itertools.combinations(others, 2)):
                continue
            remaining = [p for p in rest if p not in others]
            found = search(remaining)
            if found is not None:
                return [(first, *others), *found]
            if budget[0] < 0:
                return None
        return None

    return search(list(seated))


def _fewest_repeats(
    seated: Sequence[str], size: int, met: Mapping[frozenset[str], int]
) -> list[tuple[str, ...]]:
    """Greedy tables when no round avoids every repeat: each table takes the best player left
    and then, one by one, whoever has met the table least (nearest in the standings first)."""
    left = list(seated)
    tables = []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            cost = [sum(met.get(frozenset((p, q)), 0) for q in table) for p in left]
            table.append(left.pop(cost.index(min(cost))))
        tables.append(tuple(table))
    return tables


# -- results and standings ---------------------------------------------------------------------


def table_points(ranks: Mapping[str, int]) -> dict[str, float]:
    """Points at one table by rank (0 best): one for each player placed below, a half for each
    placed level. Two players: 1 a win, ½ a draw, 0 a loss; three: 2, 1, 0."""
    return {
        player: sum(
            1.0 if rank < theirs else 0.5 if rank == theirs else 0.0
            for other, theirs in ranks.items()
            if other != player
        )
        for player, rank in ranks.items()
    }


def bye_points(size: int) -> float:
    """What a bye scores: a win for two-player games, the middle place at larger tables
    (``(size - 1) / 2``: what an average result scores there)."""
    return 1.0 if size == 2 else (size - 1) / 2


@dataclass
class Standing:
    player: str
    points: float = 0.0
    games: int = 0
    firsts: int = 0
    byes: int = 0
    place_sum: int = 0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    rank: int = 0


def standings(
    players: Sequence[str],
    size: int,
    results: Iterable[Mapping[str, int]],
    byes: Iterable[str],
) -> list[Standing]:
    """The standings from each finished table's ranks (player -> rank, 0 best) and the byes.

    Ordered by points, then for two-player games Buchholz (the points of everyone one met)
    and Sonneborn-Berger (the points of those one beat, half of those one drew), and for larger
    tables the first places, then the average place, then Buchholz. Equal on all of these,
    players share a rank (listed by their order in ``players``)."""
    rows = {player: Standing(player) for player in players}
    tables = [dict(ranks) for ranks in results]
    for ranks in tables:
        for player, points in table_points(ranks).items():
            row = rows[player]
            row.points += points
            row.games += 1
            row.place_sum += ranks[player] + 1
            row.firsts += ranks[player] == min(ranks.values())
    for player in byes:
        rows[player].points += bye_points(size)
        rows[player].byes += 1
    for ranks in tables:
        for player, rank in ranks.items():
            for other, their in ranks.items():
                if other == player:
                    continue
                rows[player].buchholz += rows[other].points
                share = 1.0 if rank < their else 0.5 if rank == their else 0.0
                rows[player].sonneborn_berger += share * rows[other].points

    def key(row: Standing) -> tuple[float, ...]:
        if size == 2:
            return (-row.points, -row.buchholz, -row.sonneborn_berger)
        average = row.place_sum / row.games if row.games else float(size)
        return (-row.points, -row.firsts, average, -row.buchholz)

    order = sorted(rows.values(), key=lambda row: (key(row), players.index(row.player)))
    for index, row in enumerate(order):
        same = index and key(order[index - 1]) == key(row)
        row.rank = order[index - 1].rank if same else index + 1
    return order
