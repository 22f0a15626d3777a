"""A bot that picks uniformly at random, seeded from the seed the arena sends, so its games replay identically."""

from __future__ import annotations

import random
from typing import Any

from protocol import Bot, NewGame, run_bot


class RandomBot(Bot):
    """Every decision: a uniformly random option."""

    name = "random"
    version = "1.0"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)

    def new_game(self, game: NewGame) -> None:
        """Seed the generator with this seat's seed for the game."""
        self.rng = random.Random(game.seed)

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        """A random index."""
        return self.rng.randrange(len(options))


if __name__ == "__main__":
    run_bot(RandomBot())
