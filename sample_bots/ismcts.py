"""Single-observer information-set Monte Carlo tree search (Cowling, Powley and Whitehouse 2012, "Information Set
Monte Carlo Tree Search", algorithm SO-ISMCTS), for any engine state of the arena's games.

Every iteration samples a world the searching seat's view allows (a determinization), walks one shared tree down
with the moves that world allows, choosing among them by UCB1 with availability counts (a move is scored against
the number of times it was available, not the parent's visits), adds one node, finishes the game with a rollout
policy (or stops after a number of moves and scores the position), and backs up every seat's reward, each node
keeping the reward of the seat that chose the move into it. A node is a (seat, move) pair below its parent: which
seat is asked next may depend on hidden cards (a seat with a single legal choice is never asked).

The parameters are those of OpenSpiel's `is_mcts`: the UCT constant, the number of simulations, how many worlds to
sample (a fixed set reused in turn, or a fresh one per iteration), the final policy (most visited or best value),
and a wall-clock cap on the search.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Hashable

State = Any  # an engine state: legal_actions(), current_player(), apply(index), is_terminal(), rules, num_players
Sampler = Callable[[random.Random], State]
RolloutPolicy = Callable[[State, random.Random], int]
Evaluator = Callable[[State], list[float]]  # every seat's reward, from 0 to 1, for a position a rollout stopped at
DEADLINE_CHECK = 16  # a rollout looks at the clock every this many moves
MIN_TRIES = 2  # with a preferred move, the search overrules it only after this many iterations per root move


@dataclass(frozen=True)
class SearchSettings:
    """How one decision is searched."""

    uct: float = 0.7  # the exploration constant of UCB1 (rewards lie between 0 and 1)
    simulations: int | None = None  # a fixed number of iterations; None: as many as the time allows
    max_time: float = 0.1  # seconds of wall clock at most per decision
    worlds: int = 0  # how many worlds to sample and reuse in turn; 0: a fresh world every iteration
    final_policy: str = "visits"  # "visits": the most visited move; "value": the best mean reward
    rollout_depth: int | None = None  # moves a rollout plays before the position is scored; None: to the end


FINAL_POLICIES = ("visits", "value")


class Node:
    """One (seat, move) below its parent: visits, times available, and the total reward of the seat that moved."""

    __slots__ = ("seat", "visits", "available", "reward", "children")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[Hashable, Node] = {}


def search(sampler: Sampler, settings: SearchSettings, rng: random.Random, rollout: RolloutPolicy,
           evaluate: Evaluator | None = None, stop: Callable[[], bool] | None = None,
           preferred: int | None = None) -> tuple[int, dict[str, Any]]:
    """The index (among the root's options) of the move the search prefers, and its statistics.

    Without a fixed number of simulations the search runs until `stop()` says so, which a long rollout also asks
    every few moves (it then scores the position where it got to). A rollout stops at settings.rollout_depth and
    scores the position with `evaluate` (by default: the ranks the rules give it now). `preferred` (a prior
    choice, such as a heuristic's) is tried first, and played when the search had too few iterations to try every
    move MIN_TRIES times."""
    root = Node(-1)
    # A fixed set of worlds is kept as the seeds that sample them again: each comes back with the same cards and the
    # same chance outcomes to come.
    seeds = [rng.getrandbits(64) for _ in range(settings.worlds)]
    timed = None if settings.simulations is not None else stop
    root_actions: list[Any] = []
    iterations = 0
    while True:
        if settings.simulations is not None and iterations >= settings.simulations:
            break
        if timed is not None and timed():
            break
        world = sampler(random.Random(seeds[iterations % len(seeds)])) if seeds else sampler(rng)
        if not root_actions:
            root_actions = list(world.legal_actions())
        _iterate(root, world, settings, rng, rollout, evaluate or rank_evaluation, timed, preferred)
        iterations += 1
    stats = {"iterations": iterations}
    if not root.children or (preferred is not None and iterations < MIN_TRIES * len(root_actions)):
        return preferred or 0, stats
    best = _final(root, settings.final_policy)
    return root_actions.index(best[1]), {**stats, "visits": root.children[best].visits}


def _final(root: Node, policy: str) -> Hashable:
    if policy == "value":
        return max(root.children, key=lambda k: (root.children[k].reward / max(1, root.children[k].visits),
                                                 root.children[k].visits))
    return max(root.children, key=lambda k: (root.children[k].visits, root.children[k].reward))


def _iterate(root: Node, world: State, settings: SearchSettings, rng: random.Random, rollout: RolloutPolicy,
             evaluate: Evaluator, stop: Callable[[], bool] | None, preferred: int | None) -> None:
    node, path = root, []
    while not world.is_terminal():
        seat = world.current_player()
        legal = world.legal_actions()
        keys = [(seat, action) for action in legal]
        children = node.children
        untried = [i for i, key in enumerate(keys) if key not in children]
        for key in keys:
            child = children.get(key)
            if child is not None:
                child.available += 1
        if untried:
            i = preferred if node is root and preferred in untried else untried[rng.randrange(len(untried))]
            child = children[keys[i]] = Node(seat)
            child.available = 1
            world.apply(i)
            path.append(child)
            break
        i = _ucb(children, keys, settings.uct)
        node = children[keys[i]]
        world.apply(i)
        path.append(node)
    rewards = _playout(world, settings.rollout_depth, rng, rollout, evaluate, stop)
    for node in path:
        node.visits += 1
        node.reward += rewards[node.seat]


def _ucb(children: dict[Hashable, Node], keys: list[Hashable], c: float) -> int:
    best, best_value = 0, -math.inf
    for i, key in enumerate(keys):
        child = children[key]
        value = child.reward / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
        if value > best_value:
            best, best_value = i, value
    return best


def _playout(world: State, depth: int | None, rng: random.Random, rollout: RolloutPolicy, evaluate: Evaluator,
             stop: Callable[[], bool] | None) -> list[float]:
    moves = 0
    while not world.is_terminal():
        if depth is not None and moves >= depth:
            return evaluate(world)
        # A long rollout must not overrun the decision's time: stop it and score where it got to.
        if stop is not None and moves % DEADLINE_CHECK == DEADLINE_CHECK - 1 and stop():
            return evaluate(world)
        world.apply(rollout(world, rng))
        moves += 1
    return rank_rewards(world.result().ranks)


def rank_evaluation(world: State) -> list[float]:
    """Rewards by the ranks the rules would give the position as it stands."""
    return rank_rewards(world.rules.game_result(world).ranks)


def rank_rewards(ranks: tuple[int, ...]) -> list[float]:
    """Every seat's reward from its rank: 1 for the first, 0 for the last, evenly between (ties share a rank)."""
    n = len(ranks)
    return [(n - rank) / (n - 1) for rank in ranks]


def random_rollout(world: State, rng: random.Random) -> int:
    """A uniformly random legal move."""
    return rng.randrange(len(world.legal_actions()))
