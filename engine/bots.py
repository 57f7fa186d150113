"""Computer opponents for every game: the shared machinery (docs/bots.md).

A bot sees exactly what its seat may see: the seat's view (``game.view(state, seat)``), the
events the seat has seen, and the game's options (public at creation). It never receives the
state, the seed or another seat's secrets. To search, it *determinizes*: the game's
``Determinizer`` rebuilds a full state from the view and samples every unseen part (hands,
piles, stacks, notes, sealed cards) consistently with what the seat has seen.

Levels:

- ``easy``: uniform among the game's *reasonable* actions (the legal ones less those that are
  plainly self-harming and cheap to tell).
- ``medium``: greedy one ply with the game's evaluation function (sealed steps averaged over a
  few determinizations, the other seats' sealed choices drawn by the easy policy; an action
  judged by its best completion where the game says the next decision completes it; where
  the game has the others reply, its best few actions judged again after their replies by
  the game's quick policy).
- ``hard``: where the game has the others reply, medium's judgement with more of it: more
  candidates judged after the replies, its budget of determinizations spent on the leading
  ones by successive halving, on common random numbers. Elsewhere single-observer
  information-set Monte Carlo tree search (SO-ISMCTS, Cowling, Powley & Whitehouse 2012)
  with a fresh determinization per iteration, UCB1 over *available* children, progressive
  widening in the prior's order where a game has many actions, and playouts by the game's
  quick policy cut short by the evaluation after a few moves.

Pure: no I/O, no clock but the budget's, no global randomness. With an iteration cap that
binds before the budget's seconds, a move depends only on (view, events, options, seat, seed).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Final, Generic, Literal, Protocol, TypeVar

from engine.core import SYSTEM, Event, Game
from engine.registry import get_game

Level = Literal["easy", "medium", "hard"]
LEVELS: Final[tuple[Level, ...]] = ("easy", "medium", "hard")

State = TypeVar("State")
Action = TypeVar("Action")
StateOut = TypeVar("StateOut", covariant=True)

#: The exploration constant of UCB1 (rewards are win chances in [0, 1]).
EXPLORATION: Final = 0.7
#: Progressive widening: a node offers ``WIDEN_BASE + WIDEN_RATE * sqrt(visits)`` children.
WIDEN_BASE: Final = 3
WIDEN_RATE: Final = 1.5
#: Where the others reply (``reply_moves``), the hard level judges this many of its best
#: one-ply actions after the replies, by successive halving over the judgements its budget
#: allows (sixteen chose better than ten at the same judgements: docs/bots.md, "Successive
#: halving").
HARD_CANDIDATES: Final = 16


@dataclass(frozen=True)
class Budget:
    """What one move may cost: seconds, of CPU (``time.process_time``) and of the clock
    (``time.monotonic``, so that a loaded machine does not stretch a move), and an iteration
    cap.

    The search stops at whichever binds first; tests and benchmarks set ``iterations`` (and a
    generous ``seconds``) so that a move is reproducible."""

    seconds: float = 2.0
    iterations: int | None = None


DEFAULT_BUDGET: Final = Budget()


class Determinizer(Protocol[StateOut]):
    """A full state consistent with one seat's view, its unseen parts sampled afresh."""

    def sample(self, rng: random.Random) -> StateOut: ...


class GameBot(Protocol[State, Action]):
    """What a game gives the bots (``engine/<game>/bot.py``, its ``BOT``)."""

    game: Game[State, Action]
    #: Moves a playout takes before the evaluation cuts it short.
    playout_depth: int
    #: The other seats' moves (by ``policy``) played out after one of the bot's actions before
    #: the one-ply evaluation judges it; 0: judged as it stands.
    reply_moves: int

    def determinizer(
        self,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> Determinizer[State]:
        """Reads the view (and the events the seat saw) once; ``sample`` fills the rest."""
        ...

    def copy(self, state: State) -> State:
        """An independent copy of ``state`` (the search copies one per look-ahead)."""
        ...

    def evaluate(self, state: State) -> list[float]:
        """Each seat's chance to win from here, estimated (the exact result once over)."""
        ...

    def reasonable(self, state: State, seat: int, legal: list[Action]) -> list[Action]:
        """``legal`` less plainly self-harming actions (never empty when ``legal`` is not)."""
        ...

    def prior(self, state: State, seat: int, legal: list[Action]) -> list[float] | None:
        """A cheap score per action, higher first, or None (no order): the order in which the
        search widens a node."""
        ...

    def by_prior(self, state: State, seat: int) -> bool:
        """Whether medium takes the best ``prior`` here instead of applying every action and
        evaluating (where that would cost too much, e.g. one hex step of many units)."""
        ...

    def searched(self, state: State, seat: int) -> bool:
        """Whether the hard level searches this decision (else it plays as medium)."""
        ...

    def for_level(self, level: Level) -> GameBot[State, Action]:
        """The rules a level plays by: ``self``, or a variant whose prior differs at that
        level (the wargame's hard Roman defends the West)."""
        ...

    def continues(self, state: State, seat: int) -> bool:
        """Whether ``seat``'s decision here completes the one just taken (Attila's influence
        after a card), so that medium judges that one by its best completion."""
        ...

    def policy(self, state: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
        """The quick policy of the playouts and of the replies (``reply_moves``)."""
        ...


def bot_for(game_id: str) -> GameBot[Any, Any]:
    """The ``BOT`` of ``engine/<game>/bot.py`` (game ids use dashes, modules underscores)."""
    module = import_module(f"engine.{game_id.replace('-', '_')}.bot")
    bot: GameBot[Any, Any] = module.BOT
    return bot


def choose(
    game_id: str,
    view: Mapping[str, Any],
    events: Sequence[Event],
    seat: int,
    level: Level,
    seed: str | int,
    options: Mapping[str, Any] | None = None,
    budget: Budget = DEFAULT_BUDGET,
) -> Any:
    """The action ``seat`` plays now at ``level``, from what the seat may see only.

    ``options``: the game's options as created (defaults filled in when None); ``seed``: the
    bot's own seed (never the game's), so that a move can be reproduced."""
    game = get_game(game_id)
    return Bot(bot_for(game_id), level, seed, budget).choose(
        view, events, seat, game.resolve_options(options)
    )


def assess(
    game_id: str,
    view: Mapping[str, Any],
    events: Sequence[Event],
    seat: int,
    candidates: Sequence[Any],
    seed: str | int,
    options: Mapping[str, Any] | None = None,
    budget: Budget = DEFAULT_BUDGET,
) -> list[tuple[Any, float]]:
    """The hard level's view of one decision, from what the seat may see only: the action it
    would play, then each of ``candidates`` (legal actions of the decision), each with the
    seat's estimated win chance after it. Where the others reply (``hard_scores``, the
    candidates judged with the shortlist): its mean after the replies; elsewhere the mean
    reward of the search's root child, or, for an action the search did not try, its one-ply
    evaluation (``greedy_scores``). Where the hard level does not search (``searched``), the
    action it would play is medium's (by the game's prior where it decides by prior), and
    every chance is the one-ply evaluation, which can rank two actions otherwise than the
    prior does (the wargame's attacks: the prior weighs the battle's outcomes, the
    evaluation only its odds)."""
    rules = bot_for(game_id).for_level("hard")
    rng = random.Random(f"{seed}/assess/{seat}")
    det = rules.determinizer(view, events, seat, get_game(game_id).resolve_options(options))
    state = det.sample(rng)
    legal = rules.game.legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no decision to make in this view")
    if replied_here(rules, state, seat, legal):
        scores, winner, _ = hard_scores(
            rules, det, state, seat, legal, rng, budget, include=candidates
        )
        best = legal[winner]
        return [(action, scores[legal.index(action)] - 1.0) for action in [best, *candidates]]
    decision = rules.game.decision_for(state, seat)
    samples = SEALED_SAMPLES if decision is not None and decision.sealed else 1
    if not rules.searched(state, seat):
        judged = [greedy(rules, det, state, seat, legal, rng), *candidates]
        scores = one_ply_scores(rules, det, state, seat, judged, rng)
        return [(action, score / samples) for action, score in zip(judged, scores, strict=True)]
    search = Search(rules, det, seat, rng)
    run_within(budget, search.iterate, lambda: search.iterations)
    children = search.root.children

    def chance(action: Any) -> float:
        child = children.get(action)
        if child is not None and child.visits:
            return child.reward / child.visits
        return greedy_scores(rules, det, state, seat, [action], rng)[0] / samples

    return [(action, chance(action)) for action in [search.best(), *candidates]]


@dataclass
class Bot(Generic[State, Action]):
    """One computer player of one game at one level."""

    rules: GameBot[State, Action]
    level: Level
    seed: str | int
    budget: Budget = DEFAULT_BUDGET
    #: Iterations the last ``choose`` of the hard level ran (for the benchmarks).
    last_iterations: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.rules = self.rules.for_level(self.level)

    def choose(
        self,
        view: Mapping[str, Any],
        events: Sequence[Event],
        seat: int,
        options: Mapping[str, Any],
    ) -> Action:
        rng = random.Random(f"{self.seed}/{self.level}/{seat}")
        det = self.rules.determinizer(view, events, seat, options)
        state = det.sample(rng)
        legal = self.rules.game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no decision to make in this view")
        if len(legal) == 1:
            return legal[0]
        if self.level == "easy":
            return rng.choice(self.rules.reasonable(state, seat, legal))
        if self.level == "hard" and self.rules.searched(state, seat):
            if replied_here(self.rules, state, seat, legal):
                _, winner, judgements = hard_scores(
                    self.rules, det, state, seat, legal, rng, self.budget
                )
                self.last_iterations = math.ceil(judgements / JUDGEMENTS_PER_ITERATION)
                return legal[winner]
            return self._search(det, state, seat, legal, rng)
        return greedy(self.rules, det, state, seat, legal, rng)

    def _search(
        self,
        det: Determinizer[State],
        state: State,
        seat: int,
        legal: list[Action],
        rng: random.Random,
    ) -> Action:
        search = Search(self.rules, det, seat, rng)
        run_within(self.budget, search.iterate, lambda: search.iterations)
        self.last_iterations = search.iterations
        return search.best()


def run_within(budget: Budget, step: Callable[[], None], done: Callable[[], int]) -> None:
    """``step`` until ``done()`` reaches the budget's iterations or its seconds have passed
    (of CPU or of the clock, whichever first); at least once."""
    start, wall = time.process_time(), time.monotonic()
    while (budget.iterations is None or done() < budget.iterations) and (
        done() == 0
        or (
            time.process_time() - start < budget.seconds
            and time.monotonic() - wall < budget.seconds
        )
    ):
        step()


def hard_scores(
    rules: GameBot[State, Action],
    det: Determinizer[State],
    state: State,
    seat: int,
    legal: list[Action],
    rng: random.Random,
    budget: Budget,
    include: Sequence[Action] = (),
    candidates: int = HARD_CANDIDATES,
) -> tuple[list[float], int, int]:
    """The hard level's judgement where the others reply: medium's, with more of it. The
    ``candidates`` best one-ply actions are judged after the replies by successive
    halving (``Halving``), ``include`` beside them to the end; scores as
    ``ranked_by_replies`` (the judged ones 1 + their mean win chance), the index in ``legal``
    of the halving's winner, and the judgements made."""
    scores = one_ply_scores(rules, det, state, seat, legal, rng)
    shortlist = _shortlist(scores, candidates)
    kept = [i for i, a in enumerate(legal) if a in include and i not in shortlist]
    judged = shortlist + kept
    replies = Replies(rules, det, state, seat, [legal[i] for i in judged], rng)
    halving = Halving(replies, contenders=len(shortlist))
    halving.run(budget)
    ranked = ranked_by_replies(scores, judged, replies.means())
    return ranked, judged[halving.winner()], replies.judgements


#: Judgements (one candidate after the replies on one determinization, about 1-1.5 ms of CPU) that
#: one iteration of an iteration cap allows the hard level where the others reply.
JUDGEMENTS_PER_ITERATION: Final = 10


class Halving(Generic[State, Action]):
    """Successive halving (Karnin, Koren & Somekh, "Almost Optimal Exploration in Multi-Armed
    Bandits", ICML 2013) of the first ``contenders`` of ``replies``' candidates: the budget in
    equal parts per phase, each part spent in rounds (one new determinization judging every
    candidate still in, on common random numbers), then the better half by mean kept (ties: the
    earlier, i.e. the better one-ply score), until two are left for the last phase. The
    candidates after the contenders are judged in every round and never dropped (the review's
    own moves). A mean is over every round the candidate was in, the same rounds for all
    candidates still in.

    The budget: an iteration cap allows ``JUDGEMENTS_PER_ITERATION`` judgements an iteration,
    spent to within one round of the last phase; without one, each phase's share is what the
    seconds left allow at the rate of the judgements so far. Either way the halving stops
    after the round in which the seconds run out, the best mean still in winning."""

    def __init__(self, replies: Replies[State, Action], contenders: int) -> None:
        self.replies = replies
        self.alive = list(range(contenders))
        self.kept = list(range(contenders, len(replies.candidates)))

    def run(self, budget: Budget) -> None:
        start, wall = time.process_time(), time.monotonic()

        def spent() -> float:
            return max(time.process_time() - start, time.monotonic() - wall)

        cap = budget.iterations
        total = 0 if cap is None else cap * JUDGEMENTS_PER_ITERATION
        if cap is None:  # the first round tells what a judgement costs
            self.replies.judge_once(self.alive + self.kept)
        phases = _halving_phases(len(self.alive))
        for phase in range(phases):
            if cap is None:  # what the seconds left allow at the rate so far
                made = self.replies.judgements
                total = made + int(made * (budget.seconds - spent()) / max(spent(), 1e-6))
            in_round = len(self.alive) + len(self.kept)
            before = 0 if phase == 0 else self.replies.judgements
            left = total - before
            rounds = (
                left // in_round if phase == phases - 1 else left // (phases - phase) // in_round
            )
            rounds = max(rounds, 1) if phase == 0 else rounds
            while self.replies.judgements - before < rounds * in_round:
                if spent() >= budget.seconds and self.replies.judgements:
                    return
                self.replies.judge_once(self.alive + self.kept)
            if phase < phases - 1:
                self._halve()

    def _halve(self) -> None:
        means = self.replies.means()
        by_mean = sorted(self.alive, key=lambda k: (-means[k], k))
        self.alive = sorted(by_mean[: math.ceil(len(self.alive) / 2)])

    def winner(self) -> int:
        """The index among ``replies``' candidates of the best mean still in (the kept ones
        included)."""
        means = self.replies.means()
        return min(self.alive + self.kept, key=lambda k: (-means[k], k))


def _halving_phases(contenders: int) -> int:
    """Phases of successive halving: the last one judges two (one when there is only one)."""
    phases, left = 1, contenders
    while left > 2:
        left = math.ceil(left / 2)
        phases += 1
    return phases


# -- medium: one ply -----------------------------------------------------------------------------


#: Determinizations a medium bot averages over when its decision is sealed.
SEALED_SAMPLES: Final = 4
#: Determinizations a medium bot averages over when the others reply (``reply_moves``),
#: and how many of its best one-ply actions it judges so.
REPLY_SAMPLES: Final = 3
REPLY_CANDIDATES: Final = 6


def greedy(
    rules: GameBot[State, Action],
    det: Determinizer[State],
    state: State,
    seat: int,
    legal: list[Action],
    rng: random.Random,
) -> Action:
    """The action whose outcome the evaluation likes best for ``seat`` (ties: by ``rng``), or
    the best by the game's prior where it decides by prior (``by_prior``)."""
    if rules.by_prior(state, seat):
        prior = rules.prior(state, seat, legal)
        if prior is not None:
            return _best(legal, prior, rng)
    return _best(legal, greedy_scores(rules, det, state, seat, legal, rng), rng)


def greedy_scores(
    rules: GameBot[State, Action],
    det: Determinizer[State],
    state: State,
    seat: int,
    legal: list[Action],
    rng: random.Random,
) -> list[float]:
    """Each action's one-ply score for ``seat``: the evaluation after it (and its best
    completion), summed over ``SEALED_SAMPLES`` determinizations when the decision is sealed.
    Where the game has the others reply (``reply_moves``), the ``REPLY_CANDIDATES`` best of
    an open decision are judged again after the replies, over ``REPLY_SAMPLES``
    determinizations, and rank above the rest (``ranked_by_replies``)."""
    scores = one_ply_scores(rules, det, state, seat, legal, rng)
    if not replied_here(rules, state, seat, legal):
        return scores
    shortlist = _shortlist(scores, REPLY_CANDIDATES)
    replies = Replies(rules, det, state, seat, [legal[i] for i in shortlist], rng)
    while replies.rounds < REPLY_SAMPLES:
        replies.judge_once()
    return ranked_by_replies(scores, shortlist, replies.means())


def one_ply_scores(
    rules: GameBot[State, Action],
    det: Determinizer[State],
    state: State,
    seat: int,
    legal: list[Action],
    rng: random.Random,
) -> list[float]:
    """The evaluation after each action (and its best completion), summed over
    ``SEALED_SAMPLES`` determinizations (``state`` the first) when the decision is sealed."""
    decision = rules.game.decision_for(state, seat)
    sealed = decision is not None and decision.sealed
    states = [state] + [det.sample(rng) for _ in range(SEALED_SAMPLES - 1 if sealed else 0)]
    scores = [0.0] * len(legal)
    for sample in states:
        for i, action in enumerate(legal):
            after = _after(rules, sample, seat, action, rng, completing=True)
            scores[i] += rules.evaluate(after)[seat]
    return scores


def replied_here(rules: GameBot[Any, Any], state: Any, seat: int, legal: list[Any]) -> bool:
    """Whether an open decision with a choice, in a game where the others reply."""
    decision = rules.game.decision_for(state, seat)
    sealed = decision is not None and decision.sealed
    return bool(rules.reply_moves) and not sealed and len(legal) > 1


def ranked_by_replies(scores: list[float], shortlist: list[int], means: list[float]) -> list[float]:
    """The one-ply ``scores`` with the shortlisted actions' replied win chances ranked above
    the rest: 1 + chance for those, score - 1 for the others (one-ply scores are <= 1)."""
    out = [score - 1.0 for score in scores]
    for k, i in enumerate(shortlist):
        out[i] = 1.0 + means[k]
    return out


def _shortlist(scores: Sequence[float], size: int) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: -scores[i])[:size]


class Replies(Generic[State, Action]):
    """Candidate actions judged after the other seats' replies (``reply``), one
    determinization a round (``state`` the first), every candidate judged in a round under the
    same random draws (common random numbers: their differences are theirs, not the draws')."""

    def __init__(
        self,
        rules: GameBot[State, Action],
        det: Determinizer[State],
        state: State,
        seat: int,
        candidates: list[Action],
        rng: random.Random,
    ) -> None:
        self.rules, self.det, self.state, self.seat = rules, det, state, seat
        self.candidates, self.rng = candidates, rng
        self.totals = [0.0] * len(candidates)
        self.counts = [0] * len(candidates)
        self.rounds = 0
        self.judgements = 0

    def judge_once(self, which: Sequence[int] | None = None) -> None:
        """One round: a new determinization, on which the candidates ``which`` (indices; all
        when None) are judged."""
        sample = self.state if self.rounds == 0 else self.det.sample(self.rng)
        common = self.rng.getrandbits(64)
        for k in range(len(self.candidates)) if which is None else which:
            draws = random.Random(common)
            after = _after(self.rules, sample, self.seat, self.candidates[k], draws, True)
            reply(self.rules, after, self.seat, draws)
            self.totals[k] += self.rules.evaluate(after)[self.seat]
            self.counts[k] += 1
            self.judgements += 1
        self.rounds += 1

    def means(self) -> list[float]:
        return [
            total / max(count, 1) for total, count in zip(self.totals, self.counts, strict=True)
        ]


def _after(
    rules: GameBot[State, Action],
    state: State,
    seat: int,
    action: Action,
    rng: random.Random,
    completing: bool,
) -> State:
    """A copy of ``state`` after ``action`` and what the seat does not decide; with
    ``completing``, after the completion the evaluation likes best where the game says the
    seat's next decision completes this one."""
    game = rules.game
    after = rules.copy(state)
    game.apply(after, seat, action)
    settle(rules, after, seat, rng)
    if completing and not game.is_over(after) and rules.continues(after, seat):
        follow = rules.reasonable(after, seat, game.legal_actions(after, seat))
        if follow:
            outcomes = [_after(rules, after, seat, a, rng, completing=False) for a in follow]
            return max(outcomes, key=lambda o: rules.evaluate(o)[seat])
    return after


def _best(actions: list[Action], scores: Sequence[float], rng: random.Random) -> Action:
    top = max(scores)
    return rng.choice([a for a, s in zip(actions, scores, strict=True) if s >= top - 1e-9])


def settle(rules: GameBot[Any, Any], state: Any, observer: int, rng: random.Random) -> None:
    """Play what ``observer`` neither decides nor sees: the server's resolutions and the other
    seats' sealed choices (by the easy policy, blind to everyone's sealed choice)."""
    game = rules.game
    while not game.is_over(state):
        pending = game.pending(state)
        if pending[0].seat == SYSTEM:
            game.apply(state, SYSTEM, game.legal_actions(state, SYSTEM)[0])
            continue
        other = next((d for d in pending if d.sealed and d.seat != observer), None)
        if other is None:
            return
        legal = game.legal_actions(state, other.seat)
        game.apply(state, other.seat, rng.choice(rules.reasonable(state, other.seat, legal)))


def reply(rules: GameBot[Any, Any], state: Any, observer: int, rng: random.Random) -> None:
    """The rest of ``observer``'s turn, then the other seats' moves, all by the game's quick
    policy (the others' sealed ones as ``settle`` plays them), until ``observer`` decides
    again after the others moved, at most ``rules.reply_moves`` moves of the others. An
    action that keeps the turn (Attila's action tiles) is so judged with the rest of the
    turn and the replies, like a card, not as if the others never answered."""
    game = rules.game
    replies = own = 0
    while replies < rules.reply_moves and own < rules.reply_moves:
        settle(rules, state, observer, rng)
        if game.is_over(state):
            return
        pending = game.pending(state)
        mine = any(d.seat == observer for d in pending)
        if mine and replies:
            return
        seat = observer if mine else pending[0].seat
        game.apply(state, seat, rules.policy(state, seat, game.legal_actions(state, seat), rng))
        own, replies = own + mine, replies + (not mine)


# -- hard: SO-ISMCTS ---------------------------------------------------------------------------


class Node:
    """A node of the observer's tree: reached by ``seat`` playing the edge into it."""

    __slots__ = ("avail", "children", "order", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.children: dict[Any, Node] = {}
        self.order: list[Any] | None = None  # the widening order, fixed at the first visit
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


class Search(Generic[State, Action]):
    """One SO-ISMCTS search from the observer's information set."""

    def __init__(
        self,
        rules: GameBot[State, Action],
        det: Determinizer[State],
        observer: int,
        rng: random.Random,
    ) -> None:
        self.rules = rules
        self.det = det
        self.observer = observer
        self.rng = rng
        self.root = Node(observer)
        self.iterations = 0

    def iterate(self) -> None:
        rules, game, rng = self.rules, self.rules.game, self.rng
        state = self.det.sample(rng)
        node, path = self.root, [self.root]
        expanded = False
        while not expanded:
            if len(path) > 1:  # the root is the observer's own decision
                settle(self.rules, state, self.observer, rng)
            if game.is_over(state):
                break
            seat = self._acting(state)
            legal = game.legal_actions(state, seat)
            if node.order is None:
                prior = rules.prior(state, seat, legal)
                node.order = _ordered(legal, prior, rng)
            allowed = WIDEN_BASE + int(WIDEN_RATE * math.sqrt(node.visits))
            available = [a for a in node.order[:allowed] if a in legal] or legal[:1]
            untried = [a for a in available if a not in node.children]
            if untried:
                action = untried[0]
                child = node.children[action] = Node(seat)
                expanded = True
            else:
                action = self._select(node, available)
                child = node.children[action]
            for a in available:
                if a in node.children:
                    node.children[a].avail += 1
            game.apply(state, seat, action)
            node = child
            path.append(node)
        values = self._playout(state)
        for visited in path:
            visited.visits += 1
            visited.reward += values[visited.seat]
        self.iterations += 1

    def _select(self, node: Node, available: list[Action]) -> Action:
        def ucb(action: Action) -> float:
            child = node.children[action]
            return child.reward / child.visits + EXPLORATION * math.sqrt(
                math.log(max(child.avail, 1)) / child.visits
            )

        return max(available, key=ucb)

    def _acting(self, state: State) -> int:
        pending = self.rules.game.pending(state)
        mine = next((d for d in pending if d.seat == self.observer), None)
        return mine.seat if mine is not None else pending[0].seat

    def _playout(self, state: State) -> list[float]:
        game = self.rules.game
        for _ in range(self.rules.playout_depth):
            if game.is_over(state):
                break
            seat = self._acting(state)
            legal = game.legal_actions(state, seat)
            game.apply(state, seat, self.rules.policy(state, seat, legal, self.rng))
        return self.rules.evaluate(state)

    def best(self) -> Action:
        """The most visited root action (ties: the better mean)."""
        children = self.root.children
        best: Action = max(
            children, key=lambda a: (children[a].visits, children[a].reward / children[a].visits)
        )
        return best


def _ordered(legal: list[Action], prior: list[float] | None, rng: random.Random) -> list[Action]:
    """The widening order: by prior (ties shuffled by ``rng``), or shuffled without one."""
    keys = [rng.random() for _ in legal]
    if prior is None:
        return [a for _, a in sorted(zip(keys, legal, strict=True), key=lambda p: p[0])]
    ranked = sorted(range(len(legal)), key=lambda i: (-prior[i], keys[i]))
    return [legal[i] for i in ranked]


# -- helpers for the games' bots -------------------------------------------------------------------


def win_chances(values: Sequence[float], spread: float) -> list[float]:
    """Heuristic values (points-like, higher better) as win chances: a softmax whose
    ``spread`` is the lead, in the values' units, that makes a seat e times likelier to win."""
    top = max(values)
    weights = [math.exp((v - top) / spread) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


def result_chances(result: Mapping[str, Any], players: int) -> list[float]:
    """A finished game's result as rewards: the winners share 1."""
    winners = list(result.get("winners") or [])
    if not winners:
        return [1.0 / players] * players
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
