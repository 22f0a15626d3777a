"""A bot that writes a line to stderr at every decision, for the tests of per-decision logs:
`python tests/bot_programs/chatty_bot.py [SECRET_HEX | loud] ENDPOINT`.

It plays uniformly at random (seeded from the seed the arena sends) and, at each decision, writes one line to
stderr before it answers: `chatty: game G decision K chose I of N`, K counting its own decisions in the game from
1. Given SECRET_HEX, it also writes the secret (SECRET_HEX decoded, so that the command line, which the arena may
show, does not hold it) to stderr at every decision and answers an illegal index at its first one of each game: a
bot that tries to publish what it read, through its log and a fault's stderr tail. `loud` also writes LOUD_BYTES
more at every decision, before its line: more than the arena keeps of a decision.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from protocol import Bot, NewGame, run_bot

LOUD_BYTES = 10_000


class ChattyBot(Bot):
    """Random play, one stderr line per decision (and a secret, with an illegal first move, if given one)."""

    name = "chatty"
    version = "1.0"

    def __init__(self, secret: str | None, loud: bool) -> None:
        super().__init__()
        self.secret = secret
        self.loud = loud
        self.rng = random.Random(0)
        self.game = 0
        self.asked = 0

    def new_game(self, game: NewGame) -> None:
        """Seed the generator for this seat's game and count its decisions afresh."""
        self.rng = random.Random(game.seed)
        self.game = game.game_index
        self.asked = 0

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        """A random index, said on stderr first."""
        self.asked += 1
        index = self.rng.randrange(len(options))
        if self.secret is not None:
            print(self.secret, file=sys.stderr, flush=True)
            if self.asked == 1:
                index = len(options) + 5
        if self.loud:
            sys.stderr.write("x" * (LOUD_BYTES - 1) + "\n")
        print(f"chatty: game {self.game} decision {self.asked} chose {index} of {len(options)}", file=sys.stderr,
              flush=True)
        return index


if __name__ == "__main__":
    given = sys.argv[1] if len(sys.argv) > 2 else None
    run_bot(ChattyBot(bytes.fromhex(given).decode() if given and given != "loud" else None, given == "loud"))
