"""In-process play with built-in random players, for `arena play` and the engine benchmark."""

from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass
from typing import Any

from arena.errors import ConfigError
from arena.games import Game, GameError, State


def player_rng(seed: int) -> random.Random:
    """The random players' generator for a game seed, apart from the engine's own."""
    return random.Random(f"random-players:{seed}")


def new_game(game: Game, num_players: int, seed: int, options: dict[str, Any] | None = None) -> State:
    """A new game to play in-process; ConfigError naming the problem if the seats or options do not suit it."""
    try:
        return game.new_state(num_players, seed, options)
    except GameError as exc:
        raise ConfigError(str(exc)) from None


@dataclass(frozen=True)
class EngineBench:
    """Random-play throughput of one game at one player count."""

    game: str
    players: int
    games: int
    decisions: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds


def bench_engine(game: Game, num_players: int, games: int, options: dict[str, Any] | None = None) -> EngineBench:
    """Time `games` random games, counting every decision asked."""
    decisions = 0
    # The objects already alive (whatever the command imported: `arena bench` holds NumPy and SciPy, some 50,000
    # more than the engine needs) are set apart from the collector while the games run: each full collection the
    # games trigger would walk them all, which charged the engine for the command's imports.
    gc.collect()
    gc.freeze()
    try:
        start = time.perf_counter()
        for seed in range(games):
            state = game.new_state(num_players, seed, options)
            rng = player_rng(seed)
            while not state.is_terminal():
                state.apply(rng.randrange(len(state.options())))
                decisions += 1
        seconds = time.perf_counter() - start
    finally:
        gc.unfreeze()
    return EngineBench(game.name, num_players, games, decisions, seconds)
