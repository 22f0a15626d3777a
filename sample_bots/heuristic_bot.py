"""A heuristic bot for every game that has a strategy here; each strategy's docstring tells how it plays.

A strategy is a module with `decide(view, options, decision) -> int`. To add one for another game,
write the module and add a line to STRATEGIES. For a game without a strategy the bot plays at random.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from protocol import Bot, NewGame, run_bot
from sample_bots import bali2001_heuristic, bali2017_heuristic

Strategy = Callable[[dict[str, Any], list[dict[str, Any]], dict[str, Any]], int]

STRATEGIES: dict[str, Strategy] = {
    "bali-2001": bali2001_heuristic.decide,
    "bali-2017": bali2017_heuristic.decide,
}


class HeuristicBot(Bot):
    """Plays the strategy of the game it is dealt."""

    name = "heuristic"
    version = "1.0"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)
        self.strategy: Strategy | None = None

    def new_game(self, game: NewGame) -> None:
        """Pick the game's strategy (or none), and seed the fallback generator."""
        self.strategy = STRATEGIES.get(game.game)
        self.rng = random.Random(game.seed)

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        """The strategy's choice, or a random one for a game without a strategy."""
        if self.strategy is None:
            return self.rng.randrange(len(options))
        return self.strategy(view, options, decision)


if __name__ == "__main__":
    run_bot(HeuristicBot())
