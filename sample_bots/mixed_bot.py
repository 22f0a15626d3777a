"""The heuristic bot, diluted: each decision is the heuristic's choice with probability P (the first command-line
argument, 0 to 1), else a uniformly random option. Bots of several P make a field whose order of strength is known
(a larger P plays better), for measuring how well a ladder ranks real games."""

from __future__ import annotations

import random
import sys
from typing import Any

from protocol import NewGame, run_bot
from sample_bots.heuristic_bot import HeuristicBot


class MixedBot(HeuristicBot):
    """The heuristic's move with probability `p`, a random one otherwise (seeded from the game's seed)."""

    name = "mixed"

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p
        self.coin = random.Random(0)

    def new_game(self, game: NewGame) -> None:
        """As the heuristic bot, with a coin of its own seeded from the same seed."""
        super().new_game(game)
        self.coin = random.Random(game.seed ^ 0x5EED)

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        """The heuristic's choice with probability p, else a random index."""
        if self.coin.random() < self.p:
            return super().decide(view, options, decision)
        return self.rng.randrange(len(options))


def probability(argv: list[str]) -> float:
    """P from the command line (the argument before the endpoint the arena appends); 1 when none is given."""
    given = [a for a in argv[1:] if "://" not in a]
    p = float(given[0]) if given else 1.0
    if not 0.0 <= p <= 1.0:
        raise SystemExit(f"mixed_bot: P must be between 0 and 1, got {p}")
    return p


if __name__ == "__main__":
    run_bot(MixedBot(probability(sys.argv)))
