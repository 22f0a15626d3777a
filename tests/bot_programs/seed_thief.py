"""A bot that predicts the deal from its seat seed, for the seed tests: `python seed_thief.py [ROOT...]`, run from a
submission folder that bundles the published engine (a copy of `arena/games`), as an entrant's would.

The arena sends each seat a seed of its own in new_game. Where every seed derives from a public root by the
published derivation (arena/match/seeds.py: SHA-256 of the root and labels), the thief searches the roots it guesses
(the ROOTs given, else 0 to 63) and the tables of a round-robin or gauntlet (table number and round) for the one
that gives its own seat seed; it then knows the deal seed, deals the game with the engine and holds the whole
state, every hidden card included. It says so on stderr, which the arena keeps as its log:

  seed_thief: game G seat S predicts deal seed D, state DIGEST
  seed_thief: game G seat S predicts nothing

DIGEST is the SHA-256 of the dealt state (Game.new_state(...).to_dict() as sorted JSON), so that a test compares
the prediction with the game its record holds. It plays option 0 at every decision.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

from arena.games import get_game
from protocol import Bot, NewGame, run_bot

SEED_BITS = 31
TABLES, ROUNDS = 64, 8  # the schedules searched: small tournaments


def public_seed(*parts: object) -> int:
    """The published derivation of a seed from a public root and labels."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def state_digest(game: str, players: int, seed: int, options: dict[str, Any]) -> str:
    """The SHA-256 of a dealt game: what a test recomputes from the record's seed."""
    state = get_game(game).new_state(players, seed, options)
    return hashlib.sha256(json.dumps(state.to_dict(), sort_keys=True).encode()).hexdigest()


class SeedThief(Bot):
    """Option 0 every time; at each new game, a prediction of the deal on stderr."""

    name = "seed-thief"
    version = "1.0"

    def __init__(self, roots: list[int]) -> None:
        super().__init__()
        self.roots = roots

    def table(self, game: NewGame) -> int | None:
        """The seed of the table whose seat seeds include this one, if a guessed root gives one."""
        for root in self.roots:
            for number in range(TABLES):
                for round_no in range(ROUNDS):
                    table = public_seed(root, number, round_no)
                    if public_seed(table, "bot", game.game_index, game.seat) == game.seed:
                        return table
        return None

    def new_game(self, game: NewGame) -> None:
        table = self.table(game)
        where = f"seed_thief: game {game.game_index} seat {game.seat}"
        if table is None:
            print(f"{where} predicts nothing", file=sys.stderr, flush=True)
            return
        deal = public_seed(table, "deal", game.game_index)
        digest = state_digest(game.game, game.num_players, deal, game.options)
        print(f"{where} predicts deal seed {deal}, state {digest}", file=sys.stderr, flush=True)

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        return 0


if __name__ == "__main__":
    guesses = [int(a) for a in sys.argv[1:] if "://" not in a]  # the arena adds its endpoint last
    run_bot(SeedThief(guesses or list(range(64))))
