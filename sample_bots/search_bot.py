"""A search bot: information-set Monte Carlo tree search (sample_bots/ismcts.py) over worlds its own view allows.

At every decision it samples worlds from what it has seen (its view, the events it was sent and the game's
options; sample_bots/determinize_2001.py and determinize_2017.py), searches them with the game's own engine, and
plays the move the search prefers. It never sees the arena's seed or state.

Time: thinking is counted in CPU seconds, so that a busy machine does not weaken it, within three bounds: at most
`--max-time` per decision (0.2 s in bali-2001, 0.15 s in bali-2017), at most 1/PACE of what is left of its budget
for the game (`--game-time`: 18 s and 4.5 s, so a game stays under about 20 s and 5 s of its own time), and never
more than `--share` (a quarter) of the wall-clock time the decision may take (`time.remaining` in the decide
request: the timeout plus what is left of the bank), so it is never late; with a game clock, at most 1/PACE of
what is left of it too. `--strong` thinks five times longer.
`--simulations N` searches a fixed number of iterations instead: with the game's seed (or `--seed`), such a search
plays the same moves every time. docs/sample-bots.md has the details and the measured strength.

    python -m sample_bots.search_bot                      # the defaults
    python -m sample_bots.search_bot --strong             # more time per decision
    python -m sample_bots.search_bot --simulations 200    # reproducible
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import replace
from typing import Any, Callable

from protocol import Bot, GameOver, NewGame, run_bot
from sample_bots import determinize_2001, determinize_2017
from sample_bots.heuristic_bot import STRATEGIES
from sample_bots.ismcts import FINAL_POLICIES, SearchSettings, random_rollout, rank_evaluation, rank_rewards, search

DETERMINIZERS: dict[str, Callable[..., Any]] = {
    "bali-2001": determinize_2001.Determinizer,
    "bali-2017": determinize_2017.Determinizer,
}
# The default thinking per game: seconds per decision at most; in bali-2001, rollouts of 40 moves scored by
# chips_evaluation (6 wins in 8 four-player games against three heuristic bots, 3 in 8 with rollouts to the end).
DEFAULTS: dict[str, SearchSettings] = {
    "bali-2001": SearchSettings(max_time=0.2, rollout_depth=40),
    "bali-2017": SearchSettings(max_time=0.15),
}
# Decisions the heuristic answers at once, without a search: in bali-2001, the order of the cards laid down as a
# pile, the cards kept when fleeing, and the cards a scholar or an artist exchanges (many small decisions whose
# search time is better spent on the turn and the contests).
QUICK_KINDS: dict[str, frozenset[str]] = {
    "bali-2001": frozenset({"arrange_pile", "flee_place", "scholar", "artist"})}
CHIP_VALUE = 1.5  # bali-2001: what a chip in a seat's village is worth, in points, where a rollout stops
ROLLOUTS = ("random", "heuristic")
DEFAULT_ROLLOUT = {"bali-2001": "heuristic", "bali-2017": "heuristic"}
# Seconds of thinking per game at most, by game: a decision takes at most 1/PACE of what is left of it, so the
# search slows down as the game goes on rather than stopping dead, and a very long game still stays within it.
GAME_TIME = {"bali-2001": 18.0, "bali-2017": 4.5}
DEFAULT_GAME_TIME = 5.0
PACE = 25
MIN_SEARCH = 0.005  # below this many seconds, play the heuristic without a search
SHARE = 0.25  # the largest share of a decision's time (time.remaining) a search may take
STRONG = 5.0  # --strong multiplies the time per decision and per game by this
RESERVE = 0.02  # seconds kept back from the search for sampling the first world and answering


def heuristic_rollout(strategy: Callable[..., int]) -> Callable[[Any, random.Random], int]:
    """A rollout policy that plays the game's heuristic strategy for every seat."""
    def choose(world: Any, rng: random.Random) -> int:
        seat = world.current_player()
        return strategy(world.view(seat), world.options(), world.decision())
    return choose


def chips_evaluation(world: Any) -> list[float]:
    """bali-2001 rewards where a rollout stops: seats ranked by score plus what their chips promise."""
    values = [world.score(seat) + CHIP_VALUE * (world.prince.count(seat) + world.priest.count(seat))
              for seat in range(world.num_players)]
    return rank_rewards(tuple(1 + sum(other > mine for other in values) for mine in values))


EVALUATORS: dict[str, Callable[[Any], list[float]]] = {"bali-2001": chips_evaluation}


class SearchBot(Bot):
    """Searches every decision of a game it has a determinizer for; plays the heuristic (or at random) otherwise."""

    name = "search"
    version = "1.0"

    def __init__(self, overrides: dict[str, Any] | None = None, share: float = SHARE, rollout: str | None = None,
                 seed: int | None = None, strength: float = 1.0, game_time: float | None = None) -> None:
        super().__init__()
        self.overrides = overrides or {}
        self.share = share
        self.rollout_name = rollout
        self.seed = seed
        self.strength = strength
        self.game_time_option = game_time
        self.game_time = DEFAULT_GAME_TIME
        self.rng = random.Random(0)
        self.settings = SearchSettings()
        self.rollout: Callable[[Any, random.Random], int] = random_rollout
        self.evaluate: Callable[[Any], list[float]] = rank_evaluation
        self.quick: frozenset[str] = frozenset()
        self.thinking: list[float] = []  # CPU seconds spent on each decision of the game
        self.wall: list[float] = []  # and wall-clock seconds
        self.warned = False

    def new_game(self, game: NewGame) -> None:
        """Settings and rollout for the game; a generator seeded with the game's seed (or --seed)."""
        self.rng = random.Random(game.seed if self.seed is None else self.seed)
        base = DEFAULTS.get(game.game, SearchSettings())
        settings = replace(base, **self.overrides)
        self.settings = replace(settings, max_time=settings.max_time * self.strength)
        base_time = GAME_TIME.get(game.game, DEFAULT_GAME_TIME)
        self.game_time = (self.game_time_option or base_time) * self.strength
        rollout = self.rollout_name or DEFAULT_ROLLOUT.get(game.game, "random")
        strategy = STRATEGIES.get(game.game)
        self.rollout = heuristic_rollout(strategy) if rollout == "heuristic" and strategy else random_rollout
        self.evaluate = EVALUATORS.get(game.game, rank_evaluation)
        self.quick = QUICK_KINDS.get(game.game, frozenset())
        self.thinking, self.wall = [], []
        self.warned = False

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        """The move the search prefers (the only one, if there is one)."""
        start, cpu = time.perf_counter(), time.process_time()
        index = self._choose(view, options, decision, start)
        self.thinking.append(time.process_time() - cpu)
        self.wall.append(time.perf_counter() - start)
        return index if 0 <= index < len(options) else 0

    def game_over(self, over: GameOver) -> None:
        """Note on stderr how long it thought in the game (the arena keeps the bot's stderr with the match)."""
        if self.thinking:
            times = sorted(self.wall)
            print(f"search: {len(times)} decisions, {sum(self.thinking):.2f} CPU seconds in all; wall clock: median "
                  f"{times[len(times) // 2]:.3f} s, slowest {times[-1]:.3f} s", file=sys.stderr)

    def _choose(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any],
                start: float) -> int:
        assert self.game is not None
        strategy = STRATEGIES.get(self.game.game)
        if len(options) == 1:
            return 0
        make = DETERMINIZERS.get(self.game.game)
        budget = self._budget()
        fixed = self.settings.simulations is not None
        quick = decision["kind"] in self.quick or (budget < MIN_SEARCH + RESERVE and not fixed)
        if make is None or (strategy and quick):
            return strategy(view, options, decision) if strategy else self.rng.randrange(len(options))
        try:
            sampler = make(view, self.events, self.game.options).sample
        except (ValueError, KeyError, IndexError) as exc:
            # A view this bot cannot read (a game it was not written for): play the heuristic, say why once a game.
            if not self.warned:
                self.warned = True
                print(f"search: cannot sample worlds ({exc}); playing the heuristic", file=sys.stderr)
            return strategy(view, options, decision) if strategy else 0
        # Thinking is counted in CPU seconds, so that a busy machine does not make the search weaker, but never
        # beyond its share of the wall clock, so that it is never late either.
        wall, cpu = start + budget - RESERVE, time.process_time() + budget - RESERVE
        cap = start + self.share * self.clock.remaining - RESERVE if self.clock is not None else wall
        preferred = strategy(view, options, decision) if strategy else None
        return search(sampler, self.settings, self.rng, self.rollout, self.evaluate,
                      lambda: time.process_time() >= cpu or time.perf_counter() >= cap, preferred)[0]

    def _budget(self) -> float:
        """Seconds this decision may think: its cap, its share of the decision's time, its part of the game's."""
        budget = min(self.settings.max_time, (self.game_time - sum(self.thinking)) / PACE)
        if self.clock is not None:
            budget = min(budget, self.share * self.clock.remaining)
            if self.clock.game_clock > 0:
                # The match's game clock, like its own game budget, is spread over the decisions to come.
                budget = min(budget, self.clock.game_clock / PACE)
        return budget


def parse_args(argv: list[str]) -> SearchBot:
    """The bot the command line asks for (the endpoint the arena appends is left to the SDK)."""
    parser = argparse.ArgumentParser(prog="search_bot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, help="Search this many iterations per decision instead of a time.")
    parser.add_argument("--max-time", type=float, help="Seconds per decision at most (default: per game).")
    parser.add_argument("--share", type=float, default=SHARE,
                        help="The largest share of a decision's time (timeout plus bank) to think.")
    parser.add_argument("--game-time", type=float, help="Seconds of thinking per game at most (default: per game).")
    parser.add_argument("--strong", action="store_true", help=f"Think {STRONG:g} times longer per decision and game.")
    parser.add_argument("--uct", type=float, help="The UCT exploration constant.")
    parser.add_argument("--worlds", type=int, help="Worlds to sample and reuse per decision (0: a fresh one each "
                        "iteration).")
    parser.add_argument("--final-policy", choices=FINAL_POLICIES, help="Play the most visited or the best move.")
    parser.add_argument("--rollout", choices=ROLLOUTS, help="The rollout policy (default: per game).")
    parser.add_argument("--depth", type=int, help="Moves a rollout plays before the position is scored.")
    parser.add_argument("--seed", type=int, help="Seed the search with this instead of the game's seed.")
    parser.add_argument("endpoint", nargs="?", help="The arena's endpoint (appended by the arena).")
    args = parser.parse_args(argv)
    names = {"simulations": "simulations", "max_time": "max_time", "uct": "uct", "worlds": "worlds",
             "final_policy": "final_policy", "depth": "rollout_depth"}
    overrides = {field: getattr(args, arg) for arg, field in names.items() if getattr(args, arg) is not None}
    return SearchBot(overrides, share=args.share, rollout=args.rollout, seed=args.seed,
                     strength=STRONG if args.strong else 1.0, game_time=args.game_time)


if __name__ == "__main__":
    run_bot(parse_args(sys.argv[1:]))
